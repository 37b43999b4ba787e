// bench/engine/rollout_bench.cpp: issue 8's differentiable cloth rollout.
//
//   rollout_bench [--device cpu|cuda:0|sim:h200] [--sizes 32,128] [--repeat 3] [--tri-kd 10] [--out FILE.md]
//
// On a cuda device it also captures the whole recorded rollout — zeroing the loss, the 160
// recorded steps and the loss launch, tape.zero() and tape.backward(loss) — into one CUDA graph
// and times its replays (best of `repeat`, synchronised), as Warp's optim examples replay their
// captured tape (issue 20); the replay's gradient is printed next to the eager one.
//
// With tri_kd = 10 these parameters are past the explicit scheme's stability limit at this dt
// (the stiffest mode's stiffness and damping together): the cloth diverges within about 30
// substeps and the gradient is not finite. Timing does not depend on it; --tri-kd 5 stays finite.
//
// An add_cloth_grid cloth of dim x dim cells (cell 0.05 m, mass 0.1 kg, triangle ke = ka = 1e4,
// kd = 10 (--tri-kd); Warp's default bending), lying flat 0.2 m above the ground, every particle
// moving at 1 m/s in x, ground contact on (the default particle radius 0.1 m reaches the ground
// in the last substeps); semi-implicit Euler, 160 substeps of 1/960 s, each into a new State (as
// Warp's differentiable examples do); loss =
// sum over particles of (x + 0.5 y) of the last state. Reports, per size, the recorded forward
// (160 steps and the loss under a Tape, synchronised) and the backward (tape.backward(loss),
// synchronised) in milliseconds, the best of `repeat` runs after one warm-up, and the memory the
// rollout holds: the peak bytes of all arrays during forward + backward minus the bytes held
// before the states were made (the model), that is the states, their gradients and the tape's
// scratch. The gradient of the loss with respect to the initial velocity's x is printed too, so a
// run on another device can be compared.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model_builder.h"
#include "engine/integrator_registry.h"
#include "runtime/device.h"
#include "runtime/memory_stats.h"
#include "runtime/recorder.h"
#include "tape/tape.h"
#if WEFT_HAVE_CUDA
#include "runtime/cuda/stream.h"
#endif

using namespace weft;
using Clock = std::chrono::steady_clock;

namespace {

const char* kLoss = R"(
import weft as wp

@wp.kernel
def rollout_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, q[i][0] + 0.5 * q[i][1])
)";

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Result {
    int particles = 0, triangles = 0;
    double forward_ms = 1e30, backward_ms = 1e30;
    double mib = 0;
    double loss = 0, grad_vx = 0;
    double graph_ms = -1;      // forward + backward as one CUDA graph replay (cuda devices)
    double graph_grad_vx = 0;  // the replay's d loss / d vx
};

Result run(int dim, const std::string& device, int repeat, float tri_kd) {
    engine::ModelBuilder b(-9.81f);
    b.ground = true;
    engine::ClothGridDef d;
    d.dim_x = d.dim_y = dim;
    d.cell_x = d.cell_y = 0.05f;
    d.mass = 0.1f;
    d.tri_ke = d.tri_ka = 1.0e4f;
    d.tri_kd = tri_kd;
    d.pos = engine::Vec3(0.0f, 0.2f, 0.0f);
    d.rot = engine::Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Eigen::Vector3f::UnitX()));  // the x-z plane
    d.vel = engine::Vec3(1.0f, 0.0f, 0.0f);
    b.add_cloth_grid(d);
    engine::Model m = b.finalize(device, /*requires_grad=*/true);
    runtime::DeviceBackend& be = runtime::backend(m.device);
    auto loss_module = runtime::Module::compile({{"rollout_loss.py", kLoss}});
    runtime::Kernel loss_k = loss_module->kernel("rollout_loss");
    runtime::LaunchOptions o;
    o.device = m.device;
    const int steps = 160;
    const float dt = 1.0f / 960.0f;
    auto integ = engine::create_integrator("semi_implicit");

    Result r;
    r.particles = m.particle_count;
    r.triangles = m.tri_count;
    for (int rep = 0; rep <= repeat; ++rep) {  // rep 0 warms up (compiles, fills the allocator's pool)
        be.synchronize();
        const size_t before = runtime::memory_stats().live_bytes;
        runtime::reset_peak_memory();
        {
            std::vector<engine::State> states;
            states.reserve(steps + 1);
            for (int k = 0; k <= steps; ++k) states.push_back(m.state());
            runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, true);
            tape::Tape tape;
            be.synchronize();
            auto t = Clock::now();
            {
                runtime::ScopedRecorder rec(&tape);
                for (int k = 0; k < steps; ++k) integ->simulate(m, states[size_t(k)], states[size_t(k) + 1], dt);
                runtime::launch(loss_k, {m.particle_count},
                                {runtime::LaunchArg::of(states.back().particle_q), runtime::LaunchArg::of(loss)}, o);
                be.synchronize();
            }
            double fwd = seconds_since(t) * 1e3;
            t = Clock::now();
            tape.backward(loss);
            be.synchronize();
            double bwd = seconds_since(t) * 1e3;
            if (rep > 0) {
                r.forward_ms = std::min(r.forward_ms, fwd);
                r.backward_ms = std::min(r.backward_ms, bwd);
            }
            r.mib = double(runtime::memory_stats().peak_bytes - before) / (1024.0 * 1024.0);
            float l = 0;
            loss.copy_to_host(&l, sizeof l);
            r.loss = l;
            std::vector<float> g(size_t(m.particle_count) * 3);
            states[0].particle_qd.grad()->copy_to_host(g.data(), g.size() * sizeof(float));
            double sum = 0;
            for (int i = 0; i < m.particle_count; ++i) sum += g[size_t(3 * i)];
            r.grad_vx = sum;  // d loss / d (the same vx added to every particle)
        }
    }
#if WEFT_HAVE_CUDA
    if (m.device.kind == runtime::DeviceKind::Cuda) {
        // Everything is allocated before the capture (the warm-up above also sized the
        // integrator's scratch), so the graph holds no allocation that outlives it.
        std::vector<engine::State> states;
        for (int k = 0; k <= steps; ++k) states.push_back(m.state());
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, true);
        tape::Tape tape;
        runtime::Stream stream(m.device);
        be.synchronize();
        runtime::begin_capture(stream);
        loss.zero_unrecorded();
        {
            runtime::ScopedRecorder rec(&tape);
            for (int k = 0; k < steps; ++k) integ->simulate(m, states[size_t(k)], states[size_t(k) + 1], dt);
            runtime::launch(loss_k, {m.particle_count},
                            {runtime::LaunchArg::of(states.back().particle_q), runtime::LaunchArg::of(loss)}, o);
        }
        tape.zero();
        tape.backward(loss);
        runtime::Graph graph = runtime::end_capture(stream);
        graph.launch(stream);  // first replay: uploads the graph
        stream.synchronize();
        for (int rep = 0; rep < repeat; ++rep) {
            auto t = Clock::now();
            graph.launch(stream);
            stream.synchronize();
            double ms = seconds_since(t) * 1e3;
            r.graph_ms = r.graph_ms < 0 ? ms : std::min(r.graph_ms, ms);
        }
        std::vector<float> g(size_t(m.particle_count) * 3);
        states[0].particle_qd.grad()->copy_to_host(g.data(), g.size() * sizeof(float));
        double sum = 0;
        for (int i = 0; i < m.particle_count; ++i) sum += g[size_t(3 * i)];
        r.graph_grad_vx = sum;
    }
#endif
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu", out_path;
    std::vector<int> sizes = {32, 128};
    int repeat = 3;
    float tri_kd = 10.0f;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s needs a value\n", a.c_str());
                exit(2);
            }
            return argv[++i];
        };
        if (a == "--device")
            device = next();
        else if (a == "--repeat")
            repeat = std::max(1, std::atoi(next().c_str()));
        else if (a == "--tri-kd")
            tri_kd = float(std::atof(next().c_str()));
        else if (a == "--out")
            out_path = next();
        else if (a == "--sizes") {
            sizes.clear();
            std::stringstream ss(next());
            std::string tok;
            while (std::getline(ss, tok, ',')) sizes.push_back(std::atoi(tok.c_str()));
        } else {
            fprintf(stderr, "usage: rollout_bench [--device D] [--sizes 32,128] [--repeat N] [--tri-kd KD] [--out FILE.md]\n");
            return 2;
        }
    }
    if (!runtime::device_available(runtime::parse_device(device))) {
        fprintf(stderr, "rollout_bench: device %s is not available here\n", device.c_str());
        return 1;
    }
    std::ostringstream md;
    md << "differentiable cloth rollout on " << device << " (160 substeps, tri_kd " << tri_kd << ", best of " << repeat << ")\n\n"
       << "| cloth | particles | triangles | forward (recorded) ms | backward ms | memory MiB | loss | d loss / d vx |"
       << " forward + backward as one graph, ms | its d loss / d vx |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (int dim : sizes) {
        Result r = run(dim, device, repeat, tri_kd);
        char row[256];
        char graph[64] = "n/a (cuda only) | n/a";
        if (r.graph_ms >= 0) snprintf(graph, sizeof graph, "%.2f | %.6g", r.graph_ms, r.graph_grad_vx);
        snprintf(row, sizeof row, "| %dx%d | %d | %d | %.2f | %.2f | %.1f | %.6g | %.6g | %s |\n", dim, dim, r.particles,
                 r.triangles, r.forward_ms, r.backward_ms, r.mib, r.loss, r.grad_vx, graph);
        md << row;
        fprintf(stderr, "%s", row);
    }
    printf("%s", md.str().c_str());
    if (!out_path.empty()) std::ofstream(out_path) << md.str();
    return 0;
}
