// bench/engine/cloth_bench.cpp: issue 8's cloth benchmark, and the compile time of the solver kernels.
//
//   cloth_bench [--device cpu|cuda:0|sim:h200] [--sizes 32,64,128,256,512] [--frames 60] [--no-graph] [--out FILE.md]
//
// A dx x dx particle grid (add_spring_grid: spacing 0.1 in the x-z plane, mass 0.1, two corners
// fixed, springs ke 1000 kd 10: structural, bending (+2) and shear), semi-implicit Euler at 60
// frames per second with 16 substeps, positions copied to the host after every frame. Reports
// milliseconds per frame (the mean over `frames` frames after two warm-up frames; on a cuda device a
// frame's 16 substeps are one CUDA graph unless --no-graph, engine/stepper.h) as a markdown
// table, plus the cold (empty cache directory) and warm (disk cache) time to get every kernel the
// scene launches ready, measured in child processes so that no in-process state is reused. On a
// cuda device the positions are copied into pinned host memory.
//
// On the cpu device it also times a hand-written C++ step doing the same arithmetic (issue 20's
// baseline): one fused loop per particle over the model's own arrays — its springs from the
// column-by-column lists, then the semi-implicit update — on the same thread pool, compiled -O3
// -march=native by the host compiler, and reports Weft's time over it and the largest difference
// between the two clouds after the timed frames (the same physics, so a bug shows up as a gap).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model_builder.h"
#include "engine/integrator_registry.h"
#include "engine/stepper.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/device.h"
#if WEFT_HAVE_CUDA
#include "runtime/cuda/pinned.h"
#endif

using namespace weft;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

engine::Model cloth(int dx, const std::string& device) {
    engine::ModelBuilder b(-9.81f);
    b.ground = false;
    engine::SpringGridDef d;
    d.dim_x = d.dim_z = dx;
    b.add_spring_grid(d);
    return b.finalize(device);
}

struct FrameTimes {
    double frame_ms = 0;   // the whole frame: substeps and the copy to the host
    double copy_ms = 0;    // of which the copy (after the substeps have finished on the device)
    std::vector<float> x;  // the positions after the last frame
    bool listed = false;   // the frames ran as a launch list
    std::string why_not_listed;
};

// ms per frame over `frames` frames (after one warm-up frame).
FrameTimes time_frames(int dx, const std::string& device, int frames, bool graphs, bool launch_list = false) {
    engine::Model m = cloth(dx, device);
    engine::State a = m.state(), b = m.state();
    auto integ = engine::create_integrator("semi_implicit");
    std::vector<float> pageable(size_t(m.particle_count) * 3);
    float* host = pageable.data();
#if WEFT_HAVE_CUDA
    // On a cuda device the frame's positions land in pinned host memory (DMA at full link speed;
    // pageable memory is staged by the driver), as a viewer or exporter would keep them.
    runtime::Array pinned;
    if (m.device.kind == runtime::DeviceKind::Cuda) {
        pinned = runtime::pinned_zeros(engine::vec3_type(), {m.particle_count});
        host = static_cast<float*>(pinned.data());
    }
#endif
    const size_t bytes = size_t(m.particle_count) * 3 * sizeof(float);
    const float dt = 1.0f / (60.0f * 16.0f);
    runtime::DeviceBackend& be = runtime::backend(m.device);
    engine::FrameStepper stepper(
        m, a, b, 16, [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); }, graphs, launch_list);
    double copy_s = 0;
    auto frame = [&] {
        stepper.advance();
        be.synchronize();
        auto c = Clock::now();
        stepper.current().particle_q.copy_to_host(host, bytes);
        copy_s += seconds_since(c);
    };
    frame();  // eager: compiles or loads the kernels
    frame();  // records the CUDA graph on cuda devices
    copy_s = 0;
    auto t = Clock::now();
    for (int f = 0; f < frames; ++f) frame();
    FrameTimes out;
    out.frame_ms = seconds_since(t) * 1000.0 / frames;
    out.copy_ms = copy_s * 1000.0 / frames;
    out.x.assign(host, host + size_t(m.particle_count) * 3);
    out.listed = stepper.uses_launch_list();
    out.why_not_listed = stepper.why_not_listed();
    return out;
}

// The hand-written step: for each particle, its springs (kernels/springs.py spring_force_on, in
// the model's order) and the update of kernels/particles.py integrate_particles (gravity on
// particles with mass, the speed clamp), fused into one pass that reads (x, v) and writes
// (x_new, v_new). The cloth has no ground, drag or external force, so eval_particle_terms adds 0.
struct HandCloth {
    int n = 0, width = 0;
    std::vector<float> x, v, x_new, v_new, w, rest, ke, kd;
    std::vector<int> list, other;
    std::vector<uint32_t> flags;
    float g[3] = {0, 0, 0}, v_max = 0;

    explicit HandCloth(const engine::Model& m) : n(m.particle_count), width(m.particle_spring_width) {
        auto host = [](const runtime::Array& a, auto& out) {
            out.resize(size_t(a.size()) * (a.dtype() == engine::vec3_type() ? 3 : 1));
            a.copy_to_host(out.data(), out.size() * sizeof(out[0]));
        };
        host(m.particle_q, x);
        host(m.particle_qd, v);
        host(m.particle_inv_mass, w);
        host(m.particle_flags, flags);
        host(m.spring_rest_length, rest);
        host(m.spring_stiffness, ke);
        host(m.spring_damping, kd);
        host(m.particle_spring_ell_list, list);
        host(m.particle_spring_ell_other, other);
        x_new = x;
        v_new = v;
        for (int k = 0; k < 3; ++k) g[k] = m.gravity[size_t(k)];
        v_max = m.particle_max_velocity;
    }

    void step(float dt) {
        runtime::ThreadPool& pool = runtime::cpu_thread_pool();
        const int64_t chunks = std::min<int64_t>(n, pool.size() * 8), per = (n + chunks - 1) / chunks;
        const float* X = x.data();
        const float* V = v.data();
        float* XN = x_new.data();
        float* VN = v_new.data();
        const float *W = w.data(), *R = rest.data(), *KE = ke.data(), *KD = kd.data();
        const int *L = list.data(), *O = other.data();
        const uint32_t* F = flags.data();
        const int np = n, wd = width;
        const float gx = g[0], gy = g[1], gz = g[2], vmax = v_max;
        pool.parallel_for(chunks, [=](int64_t c, int) {
            const int b = int(c * per), e = int(std::min<int64_t>(np, (c + 1) * per));
            for (int i = b; i < e; ++i) {
                const float xi0 = X[3 * i], xi1 = X[3 * i + 1], xi2 = X[3 * i + 2];
                const float vi0 = V[3 * i], vi1 = V[3 * i + 1], vi2 = V[3 * i + 2];
                if (!(F[i] & 1u)) {
                    XN[3 * i] = xi0, XN[3 * i + 1] = xi1, XN[3 * i + 2] = xi2;
                    VN[3 * i] = vi0, VN[3 * i + 1] = vi1, VN[3 * i + 2] = vi2;
                    continue;
                }
                float f0 = 0, f1 = 0, f2 = 0;
                for (int k = 0; k < wd; ++k) {
                    const int s = L[size_t(k) * size_t(np) + size_t(i)];
                    if (s < 0) break;
                    const int j = O[size_t(k) * size_t(np) + size_t(i)];
                    const float d0 = xi0 - X[3 * j], d1 = xi1 - X[3 * j + 1], d2 = xi2 - X[3 * j + 2];
                    const float l = std::sqrt(d0 * d0 + d1 * d1 + d2 * d2);
                    if (l > 0) {
                        const float u0 = d0 / l, u1 = d1 / l, u2 = d2 / l;
                        const float dcdt = u0 * (vi0 - V[3 * j]) + u1 * (vi1 - V[3 * j + 1]) + u2 * (vi2 - V[3 * j + 2]);
                        const float mag = KE[s] * (l - R[s]) + KD[s] * dcdt;
                        f0 -= u0 * mag, f1 -= u1 * mag, f2 -= u2 * mag;
                    }
                }
                const float wi = W[i], gs = wi > 0 ? 1.0f : 0.0f;
                float v0 = vi0 + (f0 * wi + gx * gs) * dt, v1 = vi1 + (f1 * wi + gy * gs) * dt,
                      v2 = vi2 + (f2 * wi + gz * gs) * dt;
                const float speed = std::sqrt(v0 * v0 + v1 * v1 + v2 * v2);
                if (speed > vmax) {
                    const float sc = vmax / speed;
                    v0 *= sc, v1 *= sc, v2 *= sc;
                }
                VN[3 * i] = v0, VN[3 * i + 1] = v1, VN[3 * i + 2] = v2;
                XN[3 * i] = xi0 + v0 * dt, XN[3 * i + 1] = xi1 + v1 * dt, XN[3 * i + 2] = xi2 + v2 * dt;
            }
        });
        x.swap(x_new);
        v.swap(v_new);
    }
};

struct HandTimes {
    double frame_ms = 0;
    double max_diff = 0;  // m, largest |x_hand - x_weft| after the frames
};

// The hand-written step's ms per frame (16 substeps and a copy of the positions) over the same
// frames as time_frames, and its distance from Weft's cloud after them (run again, eagerly).
HandTimes time_hand_frames(int dx, int frames) {
    engine::Model m = cloth(dx, "cpu");
    if (m.particle_spring_width == 0) return {-1, -1};
    HandCloth h(m);
    std::vector<float> host(h.x.size());
    const float dt = 1.0f / (60.0f * 16.0f);
    auto frame = [&] {
        for (int s = 0; s < 16; ++s) h.step(dt);
        std::copy(h.x.begin(), h.x.end(), host.begin());
    };
    frame();
    frame();
    auto t = Clock::now();
    for (int f = 0; f < frames; ++f) frame();
    HandTimes r;
    r.frame_ms = seconds_since(t) * 1000.0 / frames;
    engine::State a = m.state(), b = m.state();
    auto integ = engine::create_integrator("semi_implicit");
    for (int s = 0; s < 16 * (frames + 2); ++s) {
        integ->simulate(m, a, b, dt);
        std::swap(a, b);
    }
    std::vector<float> weft(h.x.size());
    a.particle_q.copy_to_host(weft.data(), weft.size() * sizeof(float));
    for (size_t k = 0; k < weft.size(); ++k) r.max_diff = std::max(r.max_diff, double(std::abs(weft[k] - h.x[k])));
    return r;
}

// Wall time of one step in a fresh process with WEFT_CACHE_DIR=cache (kernels compiled or loaded).
double first_step_in_child(const char* self, const std::string& device, const std::string& cache) {
    auto t = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        setenv("WEFT_CACHE_DIR", cache.c_str(), 1);
        execl(self, self, "--first-step", device.c_str(), (char*)nullptr);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1.0;
    return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu", out_path;
    std::vector<int> sizes = {32, 64, 128, 256, 512};
    int frames = 60;
    bool graphs = true, compare_list = false, cold_start = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s needs a value\n", a.c_str());
                exit(2);
            }
            return argv[++i];
        };
        if (a == "--first-step") {  // child: build the smallest cloth and take one step
            engine::Model m = cloth(4, next());
            engine::State s0 = m.state(), s1 = m.state();
            engine::create_integrator("semi_implicit")->simulate(m, s0, s1, 1e-3f);
            return 0;
        } else if (a == "--device")
            device = next();
        else if (a == "--frames")
            frames = std::atoi(next().c_str());
        else if (a == "--no-graph")
            graphs = false;
        else if (a == "--compare-list")  // each size also as a launch list (runtime/launch_list.h)
            compare_list = true;
        else if (a == "--no-cold-start")  // skip timing the kernels' first compile in a fresh process
            cold_start = false;
        else if (a == "--out")
            out_path = next();
        else if (a == "--sizes") {
            sizes.clear();
            std::stringstream ss(next());
            std::string tok;
            while (std::getline(ss, tok, ',')) sizes.push_back(std::atoi(tok.c_str()));
        } else {
            fprintf(stderr,
                    "usage: cloth_bench [--device D] [--sizes 32,64,...] [--frames N] [--no-graph] [--compare-list] "
                    "[--no-cold-start] [--out FILE.md]\n");
            return 2;
        }
    }
    if (!runtime::device_available(runtime::parse_device(device))) {
        fprintf(stderr, "cloth_bench: device %s is not available here\n", device.c_str());
        return 1;
    }
    std::ostringstream md;
    md << "cloth_benchmark on " << device << (graphs ? "" : ", --no-graph") << "\n\n";
    const bool hand = device == "cpu";
    md << "| particles | springs | ms / frame | of which copy to host | steps / s |"
       << (hand ? " hand-written C++, ms / frame | Weft / hand (time) | max abs(x_weft - x_hand), m |" : "")
       << (compare_list ? " launch list, ms / frame | list / graph (time) | same bits |" : "") << "\n";
    md << "|---|---|---|---|---|" << (hand ? "---|---|---|" : "") << (compare_list ? "---|---|---|" : "") << "\n";
    for (int dx : sizes) {
        FrameTimes t = time_frames(dx, device, frames, graphs);
        double ms = t.frame_ms;
        long springs = 2L * (dx - 1) * dx + 2L * (dx - 2) * dx + 2L * (dx - 1) * (dx - 1);
        char row[300];
        int len = snprintf(row, sizeof row, "| %d² = %d | %ld | %.3f | %.3f | %.0f |", dx, dx * dx, springs, ms, t.copy_ms,
                           16.0 * 1000.0 / ms);
        if (hand) {
            HandTimes h = time_hand_frames(dx, frames);
            len +=
                snprintf(row + len, sizeof row - size_t(len), " %.3f | %.2f | %.2g |", h.frame_ms, ms / h.frame_ms, h.max_diff);
        }
        if (compare_list) {
            FrameTimes l = time_frames(dx, device, frames, graphs, true);
            if (!l.listed) fprintf(stderr, "cloth_bench: %d²: no launch list: %s\n", dx, l.why_not_listed.c_str());
            const bool same = l.x.size() == t.x.size() && std::memcmp(l.x.data(), t.x.data(), t.x.size() * sizeof(float)) == 0;
            char list_ms[32] = "(not listed)";
            if (l.listed) snprintf(list_ms, sizeof list_ms, "%.3f", l.frame_ms);
            snprintf(row + len, sizeof row - size_t(len), " %s | %.2f | %s |", list_ms, l.frame_ms / ms, same ? "yes" : "no");
        }
        strncat(row, "\n", sizeof row - strlen(row) - 1);
        md << row;
        fprintf(stderr, "%s", row);
    }
    if (cold_start) {
        std::string cache = (std::filesystem::temp_directory_path() / ("weft_cold_cache_" + std::to_string(getpid()))).string();
        std::filesystem::remove_all(cache);
        double cold = first_step_in_child(argv[0], device, cache);
        double warm = first_step_in_child(argv[0], device, cache);
        std::filesystem::remove_all(cache);
        char line[200];
        snprintf(
            line, sizeof line,
            "\nKernels of this scene ready (a fresh process, model built, one step): cold cache %.2f s, warm cache %.2f s.\n",
            cold, warm);
        md << line;
    }
    printf("%s", md.str().c_str());
    if (!out_path.empty()) std::ofstream(out_path) << md.str();
    return 0;
}
