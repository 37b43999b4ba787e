// bench/viewer/viewer_bench.cpp: what watching a simulation costs next to running it (issue 16's
// viewer benchmark).
//
//   viewer_bench [--device cuda:0|cpu] [--sizes 128,512] [--frames 60] [--seconds 2] [--draw-hz 60] [--samples 4]
//                [--no-shadows] [--size 1280x720] [--profile] [--out FILE.md]
//
// The cloth of bench/engine/cloth_bench.cpp (a dx x dx spring grid, semi-implicit Euler, 60 frames
// per second x 16 substeps; one CUDA graph per frame on cuda), drawn as `weft view` draws it:
// every particle as a sphere impostor coloured by speed, every spring as a line, the ground grid
// and the shadow map. For each size, in lockstep (one drawing per simulated frame; `frames` frames
// after warm-up):
//
//   sim       the frame's substeps and a synchronisation: the simulation's frame time
//   snapshot  the same, then viewer::snapshot with a SnapshotCache to host vectors: the State's
//             positions and velocities to the host, the colours, the lines
//   view      the same, then Renderer::render_offscreen at --size (EGL; it waits for the GPU)
//   arrays    sim, then a snapshot of vertex arrays (device copies on cuda) and the render, which
//             fills its buffers through CUDA-OpenGL interop and colours on the GPU: the window's path
//
// and as the window runs ahead (`weft view --run-ahead`): a simulation thread steps frames back to
// back (no synchronisation per frame) and makes a vertex-array snapshot whenever the drawing
// thread took the last one; the drawing thread renders the latest, for --seconds each:
//
//   back to back   the simulation thread alone: its ms per frame (the baseline)
//   60 Hz window   drawing at a display's 60 frames per second (--draw-hz): the simulation's ms per frame,
//                  its overhead against back to back, and the drawings per second
//   unthrottled    drawing as fast as it can: the same
//
// With --profile it also lists one eager frame's kernels as the viewer's profile panel measures
// them (runtime/kernel_timing.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "engine/stepper.h"
#include "runtime/device.h"
#include "runtime/kernel_timing.h"
#include "viewer/frame_profile.h"
#include "viewer/frame_writer.h"
#include "viewer/gl_context.h"
#include "viewer/renderer.h"

using namespace weft;
using Clock = std::chrono::steady_clock;

namespace {

struct RunAhead {
    double sim_ms = 0;  // per simulated frame
    double draws = 0;   // per second
    long frames = 0, drawn = 0;
};

struct Row {
    int dx = 0;
    int particles = 0, springs = 0;
    double sim_ms = 0, snapshot_ms = 0, view_ms = 0, arrays_ms = 0;
    RunAhead alone, at60, unthrottled;
    std::string profile;  // --profile: one eager frame's measured kernels (markdown)
};

Row measure(int dx, const std::string& device, int frames, double seconds, int width, int height, viewer::Renderer& renderer,
            bool profile, const viewer::RenderOptions& look, double draw_hz) {
    engine::ModelBuilder b(-9.81f);
    b.ground = false;
    engine::SpringGridDef d;
    d.dim_x = d.dim_z = dx;
    b.add_spring_grid(d);
    engine::Model m = b.finalize(device);
    engine::State s0 = m.state(), s1 = m.state();
    auto integ = engine::create_integrator("semi_implicit");
    const float dt = 1.0f / (60.0f * 16.0f);
    engine::FrameStepper stepper(m, s0, s1, 16, [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); });
    runtime::DeviceBackend& be = runtime::backend(m.device);
    const std::vector<engine::Renderable> parts = integ->renderables(m);
    viewer::SnapshotCache cache;
    viewer::OrbitCamera camera;
    Row row;
    row.dx = dx;
    row.particles = m.particle_count;
    row.springs = m.spring_count;

    auto loop = [&](int mode) {  // 0: sim, 1: + snapshot, 2: + render, 3: sim + vertex arrays + render
        auto frame = [&] {
            stepper.advance();
            be.synchronize();
            if (mode == 0) return;
            viewer::FrameData f = viewer::snapshot(m, stepper.current(), parts, {}, {}, &cache, mode == 3);
            if (mode >= 2) renderer.render_offscreen(f, camera, width, height, look);
        };
        for (int w = 0; w < 3; ++w) frame();  // compiles, records the graph, warms the caches
        auto t = Clock::now();
        for (int f = 0; f < frames; ++f) frame();
        return std::chrono::duration<double, std::milli>(Clock::now() - t).count() / frames;
    };
    viewer::fit_camera(camera, viewer::snapshot(m, stepper.current(), parts, {}, {}, &cache));
    row.sim_ms = loop(0);
    row.snapshot_ms = loop(1);
    row.view_ms = loop(2);
    row.arrays_ms = loop(3);

    // Run ahead: `draw_hz` 0 draws as fast as it can, < 0 not at all.
    auto run_ahead = [&](double draw_hz) {
        std::atomic<bool> stop{false}, want{true};
        std::mutex mutex;
        std::shared_ptr<viewer::FrameData> latest;
        std::atomic<long> stepped{0};
        std::exception_ptr failed;
        auto t0 = Clock::now();
        std::thread sim([&] {
            try {
                // At most two frames queued ahead of the GPU (as the window's loop): the drawing
                // thread's copies wait for a snapshot's point, not for a long queue behind it.
                std::deque<std::shared_ptr<runtime::QueueMark>> queued;
                while (!stop.load()) {
                    if (queued.size() >= 2) {
                        if (queued.front()) queued.front()->wait();
                        queued.pop_front();
                    }
                    stepper.advance();
                    queued.push_back(be.mark_queue());
                    stepped.fetch_add(1);
                    if (draw_hz >= 0 && want.exchange(false)) {
                        auto f = std::make_shared<viewer::FrameData>(
                            viewer::snapshot(m, stepper.current(), parts, {}, {}, &cache, true));
                        std::lock_guard<std::mutex> lock(mutex);
                        latest = std::move(f);
                    }
                }
                be.synchronize();
            } catch (...) { failed = std::current_exception(); }
        });
        RunAhead r;
        auto next = Clock::now();
        while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
            if (draw_hz < 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                continue;
            }
            std::shared_ptr<viewer::FrameData> f;
            {
                std::lock_guard<std::mutex> lock(mutex);
                f = std::move(latest);
            }
            if (!f) {
                std::this_thread::yield();
                continue;
            }
            renderer.render_offscreen(*f, camera, width, height, look);
            want = true;
            ++r.drawn;
            if (draw_hz > 0) {
                next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / draw_hz));
                std::this_thread::sleep_until(next);
            }
        }
        stop = true;
        sim.join();
        if (failed) std::rethrow_exception(failed);
        double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        r.frames = stepped.load();
        r.sim_ms = 1000.0 * wall / double(std::max(r.frames, 1L));
        r.draws = double(r.drawn) / wall;
        return r;
    };
    row.alone = run_ahead(-1);
    row.at60 = run_ahead(draw_hz);
    row.unthrottled = run_ahead(0);
    if (profile) {
        engine::FrameStepper eager(
            m, s0, s1, 16, [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); }, false);
        eager.advance();  // warm
        be.synchronize();
        runtime::KernelTiming timing;
        auto t = Clock::now();
        eager.advance();
        be.synchronize();
        double wall_us = std::chrono::duration<double, std::micro>(Clock::now() - t).count();
        viewer::FrameProfile p = viewer::measured_profile(timing.results());
        char head[256];
        std::snprintf(head, sizeof head, "\n%d^2, one eager frame on %s: %llu launches, %.1f us of kernels (%.1f us wall)\n\n",
                      dx, p.device.c_str(), (unsigned long long)p.launches, p.time_us, wall_us);
        row.profile += head;
        row.profile += "| kernel | launches | us | share |\n|---|---|---|---|\n";
        for (const viewer::ProfileKernel& k : p.kernels) {
            char line[256];
            std::snprintf(line, sizeof line, "| %s | %llu | %.1f | %.1f%% |\n", k.name.c_str(), (unsigned long long)k.launches,
                          k.time_us, 100.0 * k.share);
            row.profile += line;
        }
    }
    return row;
}

std::vector<int> parse_sizes(const std::string& s) {
    std::vector<int> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) {
        char* end = nullptr;
        long v = std::strtol(item.c_str(), &end, 10);
        if (end == item.c_str() || *end || v < 2 || v > 4096) {
            std::fprintf(stderr, "viewer_bench: --sizes: '%s' is not a grid side from 2 to 4096\n", item.c_str());
            std::exit(2);
        }
        out.push_back(int(v));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cuda:0", out_path;
    std::vector<int> sizes = {128, 512};
    int frames = 60, width = 1280, height = 720;
    double seconds = 2.0, draw_hz = 60.0;
    viewer::RenderOptions look;
    bool profile = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "viewer_bench: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--device")
            device = value();
        else if (a == "--sizes")
            sizes = parse_sizes(value());
        else if (a == "--frames")
            frames = std::max(1, std::atoi(value().c_str()));
        else if (a == "--seconds")
            seconds = std::max(0.1, std::atof(value().c_str()));
        else if (a == "--draw-hz")
            draw_hz = std::max(1.0, std::atof(value().c_str()));
        else if (a == "--samples")
            look.samples = std::max(1, std::atoi(value().c_str()));
        else if (a == "--no-shadows")
            look.shadows = false;
        else if (a == "--size") {
            std::string v = value();
            if (std::sscanf(v.c_str(), "%dx%d", &width, &height) != 2 || width < 16 || height < 16) {
                std::fprintf(stderr, "viewer_bench: --size: '%s' is not WxH\n", v.c_str());
                return 2;
            }
        } else if (a == "--out")
            out_path = value();
        else if (a == "--profile")
            profile = true;
        else {
            std::fprintf(stderr,
                         "viewer_bench: unknown option '%s'\nusage: viewer_bench [--device D] [--sizes 128,512] [--frames N] "
                         "[--seconds S] [--draw-hz H] [--samples N] [--no-shadows] [--size WxH] [--profile] [--out FILE.md]\n",
                         a.c_str());
            return 2;
        }
    }
    try {
        viewer::HeadlessContext context;
        viewer::Renderer renderer;
        std::ostringstream md;
        std::string profiles;
        md << "viewer_bench on " << device << ", " << width << "x" << height << ", " << frames << " frames, " << look.samples
           << "x MSAA, shadows " << (look.shadows ? "on" : "off") << ", run-ahead window at " << draw_hz
           << " Hz; OpenGL: " << viewer::gl_description() << "\n\n"
           << "Lockstep (one drawing per simulated frame), ms per frame:\n\n"
           << "| cloth | particles | springs | sim | + snapshot (host) | + render (view) | overhead (view - sim) / sim | "
              "sim + arrays + render | overhead (arrays - sim) / sim | fps (1000 / arrays) |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n";
        std::string ahead =
            "\nRunning ahead (`weft view --run-ahead`): the simulation steps back to back, the drawing thread renders the "
            "latest snapshot of vertex arrays; " +
            std::to_string(seconds) +
            " s each:\n\n| cloth | back to back ms/frame | window at --draw-hz: ms/frame | overhead | drawings/s | unthrottled: "
            "ms/frame | overhead | drawings/s |\n|---|---|---|---|---|---|---|---|\n";
        for (int dx : sizes) {
            Row r = measure(dx, device, frames, seconds, width, height, renderer, profile, look, draw_hz);
            profiles += r.profile;
            char line[512];
            std::snprintf(line, sizeof line, "| %d^2 | %d | %d | %.3f | %.3f | %.3f | %.0f%% | %.3f | %.0f%% | %.0f |\n", r.dx,
                          r.particles, r.springs, r.sim_ms, r.snapshot_ms, r.view_ms, 100.0 * (r.view_ms - r.sim_ms) / r.sim_ms,
                          r.arrays_ms, 100.0 * (r.arrays_ms - r.sim_ms) / r.sim_ms, 1000.0 / r.arrays_ms);
            md << line;
            std::fputs(line, stdout);
            std::snprintf(line, sizeof line, "| %d^2 | %.4f | %.4f | %.1f%% | %.0f | %.4f | %.1f%% | %.0f |\n", r.dx,
                          r.alone.sim_ms, r.at60.sim_ms, 100.0 * (r.at60.sim_ms - r.alone.sim_ms) / r.alone.sim_ms, r.at60.draws,
                          r.unthrottled.sim_ms, 100.0 * (r.unthrottled.sim_ms - r.alone.sim_ms) / r.alone.sim_ms,
                          r.unthrottled.draws);
            ahead += line;
            std::fputs(line, stdout);
            std::fflush(stdout);
        }
        md << ahead << profiles;
        if (!out_path.empty())
            std::ofstream(out_path) << md.str();
        else
            std::fputs(("\n" + md.str()).c_str(), stdout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "viewer_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
