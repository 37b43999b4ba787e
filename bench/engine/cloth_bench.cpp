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
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
    double frame_ms = 0;  // the whole frame: substeps and the copy to the host
    double copy_ms = 0;   // of which the copy (after the substeps have finished on the device)
};

// ms per frame over `frames` frames (after one warm-up frame).
FrameTimes time_frames(int dx, const std::string& device, int frames, bool graphs) {
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
        m, a, b, 16, [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); }, graphs);
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
    return {seconds_since(t) * 1000.0 / frames, copy_s * 1000.0 / frames};
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
    bool graphs = true;
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
        else if (a == "--out")
            out_path = next();
        else if (a == "--sizes") {
            sizes.clear();
            std::stringstream ss(next());
            std::string tok;
            while (std::getline(ss, tok, ',')) sizes.push_back(std::atoi(tok.c_str()));
        } else {
            fprintf(stderr, "usage: cloth_bench [--device D] [--sizes 32,64,...] [--frames N] [--no-graph] [--out FILE.md]\n");
            return 2;
        }
    }
    if (!runtime::device_available(runtime::parse_device(device))) {
        fprintf(stderr, "cloth_bench: device %s is not available here\n", device.c_str());
        return 1;
    }
    std::ostringstream md;
    md << "cloth_benchmark on " << device << (graphs ? "" : ", --no-graph") << "\n\n";
    md << "| particles | springs | ms / frame | of which copy to host | steps / s |\n|---|---|---|---|---|\n";
    for (int dx : sizes) {
        FrameTimes t = time_frames(dx, device, frames, graphs);
        double ms = t.frame_ms;
        long springs = 2L * (dx - 1) * dx + 2L * (dx - 2) * dx + 2L * (dx - 1) * (dx - 1);
        char row[160];
        snprintf(row, sizeof row, "| %d² = %d | %ld | %.3f | %.3f | %.0f |\n", dx, dx * dx, springs, ms, t.copy_ms,
                 16.0 * 1000.0 / ms);
        md << row;
        fprintf(stderr, "%s", row);
    }
    std::string cache = (std::filesystem::temp_directory_path() / ("weft_cold_cache_" + std::to_string(getpid()))).string();
    std::filesystem::remove_all(cache);
    double cold = first_step_in_child(argv[0], device, cache);
    double warm = first_step_in_child(argv[0], device, cache);
    std::filesystem::remove_all(cache);
    char line[200];
    snprintf(line, sizeof line,
             "\nKernels of this scene ready (a fresh process, model built, one step): cold cache %.2f s, warm cache %.2f s.\n",
             cold, warm);
    md << line;
    printf("%s", md.str().c_str());
    if (!out_path.empty()) std::ofstream(out_path) << md.str();
    return 0;
}
