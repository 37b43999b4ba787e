// bench/gpusim/sim_frame_bench.cpp: how long gpusim takes to profile one frame of the 64 x 64 cloth on the
// sim device with the timing model (issue 20's "gpusim speed, for the viewer's sim mode").
//
//   sim_frame_bench [--size 64] [--threads N] [--device sim:ARCH]
//
// The cloth of scenes/cloth_benchmark.toml and bench/engine/cloth_bench.cpp (a size x size spring
// grid: spacing 0.1, mass 0.1, ke 1000, kd 10, two corners fixed, no ground; semi-implicit Euler,
// 60 frames per second, 16 substeps), built in C++ so that it runs where there is no TOML reader
// (the GPU machine). The kernels are compiled and loaded first by one untimed substep on a second
// pair of states; then one frame (16 substeps, launched one by one as the viewer's sim mode does)
// runs on fresh states under the wall clock, including the copy of the positions to the host.
// `--threads` sets the host threads gpusim simulates with (the CPU pool's size, which the sim
// device uses by default); default: every core. Prints one line per figure:
//   wall_s               seconds of the timed frame
//   thread_instructions  thread-instructions the frame's launches executed (the reports' counts)
//   mtips                millions of thread-instructions per wall second
//   cycles               the launches' simulated cycles, summed
//   report_hash          hash of every launch's timing JSON (write_timing_json): equal hashes,
//                        equal reports (cycles, stalls, per-line and per-instruction counts)
//   state_hash           hash of the final positions and velocities (the functional result)
// Both hashes must not depend on --threads, nor change when gpusim gets faster.
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "gpusim/timing/timing.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/sim/sim_backend.h"
#include "support/hash.h"

using namespace weft;

namespace {

std::string state_hash(const engine::State& s) {
    support::Hasher h;
    for (const runtime::Array* a : {&s.particle_q, &s.particle_qd}) {
        std::vector<char> bytes(a->nbytes());
        a->copy_to_host(bytes.data(), bytes.size());
        h.add(std::string_view(bytes.data(), bytes.size()));
    }
    return h.hex();
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "sim:h200";
    int threads = 0, size = 64;
    const int substeps = 16;
    // A positive integer, or -1.
    auto positive = [](const std::string& v) {
        size_t used = 0;
        int x = -1;
        try {
            x = std::stoi(v, &used);
        } catch (const std::exception&) { used = 0; }
        return used == v.size() && x >= 1 ? x : -1;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--threads" || a == "--size") && i + 1 < argc) {
            const std::string v = argv[++i];
            const int x = positive(v);
            if (x < 0) {
                std::fprintf(stderr, "sim_frame_bench: %s takes a positive integer, got '%s'\n", a.c_str(), v.c_str());
                return 2;
            }
            (a == "--threads" ? threads : size) = x;
        } else if (a == "--device" && i + 1 < argc) {
            device = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--size 64] [--threads N] [--device sim:ARCH]\n", argv[0]);
            return 2;
        }
    }
    try {
        runtime::set_cpu_threads(threads);
        const runtime::Device dev = runtime::parse_device(device);
        if (dev.kind != runtime::DeviceKind::Sim) throw std::runtime_error("--device must be a sim device, got " + device);
        engine::ModelBuilder builder(-9.81f);
        builder.ground = false;
        engine::SpringGridDef grid;
        grid.dim_x = grid.dim_z = size;
        builder.add_spring_grid(grid);
        engine::Model model = builder.finalize(device);
        auto integrator = engine::create_integrator("semi_implicit");
        const float dt = 1.0f / (60.0f * substeps);
        {
            // Compile and load every kernel a substep launches, untimed.
            engine::State c = model.state(), d = model.state();
            integrator->simulate(model, c, d, dt);
        }
        engine::State a = model.state(), b = model.state();
        std::vector<float> host(static_cast<size_t>(model.particle_count) * 3);
        const uint64_t mark = runtime::sim_report_mark();
        const auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < substeps; ++s) {
            integrator->simulate(model, a, b, dt);
            std::swap(a, b);
        }
        a.particle_q.copy_to_host(host.data(), host.size() * sizeof(float));
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        uint64_t thread_instructions = 0, cycles = 0, launches = 0;
        support::Hasher reports;
        for (const auto& r : runtime::sim_reports_since(mark)) {
            ++launches;
            thread_instructions += r->result.counts.total.thread_instructions;
            cycles += r->result.cycles;
            std::ostringstream json;
            gpusim::write_timing_json(json, r->result);
            reports.add(json.str());
        }
        std::printf("cloth %dx%d\ndevice %s\nthreads %d\nsubsteps %d\nlaunches %llu\n", size, size, device.c_str(),
                    runtime::cpu_threads(), substeps, static_cast<unsigned long long>(launches));
        std::printf("wall_s %.3f\nthread_instructions %llu\nmtips %.2f\ncycles %llu\n", wall,
                    static_cast<unsigned long long>(thread_instructions), static_cast<double>(thread_instructions) / wall / 1e6,
                    static_cast<unsigned long long>(cycles));
        std::printf("report_hash %s\nstate_hash %s\n", reports.hex().c_str(), state_hash(a).c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sim_frame_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
