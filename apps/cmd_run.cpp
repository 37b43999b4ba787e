// `weft run SCENE.toml`: load a scene file (docs/scene-format.md), simulate it frame by frame on a
// device, and write per-frame particle positions (.npz for numpy, .ply for mesh and point-cloud
// tools).
//
//   weft run scenes/bounce.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--out DIR] [--quiet] [--no-graph]
//                               [--launch-list]
//                               [--render DIR] [--video FILE.mp4] [--allow-nonfinite]
//
// The output folder holds topology.npz (the model's index arrays, written once, before any step)
// and frame_00000 (the initial state) to frame_NNNNN, every [output] every-th frame; a .ply frame
// has the model's surface triangles as faces (docs/scene-format.md, "The output folder").
//
// stderr shows the scene's stability warnings and a progress bar; stdout gets a one-line summary
// (frames, simulated seconds, wall time, steps per second). Frame files are written to a unique
// temporary and renamed (apps/atomic_write.h), so a viewer polling DIR never reads half a frame
// and no temporary outlives the run, even on Ctrl-C. The run stops at the first frame whose state
// is not finite and says which launch and scene key caused it (apps/nonfinite_report.h);
// --allow-nonfinite runs on. Exit codes: 0 success, 1 scene or run error, 2 usage, 130 / 143
// interrupted by SIGINT / SIGTERM.
//
// A scene with [worlds] (docs/scene-format.md, "Batched worlds in scenes") runs every world in one
// set of arrays and writes each world's frames and topology to DIR/world_NNNNN/ (NNNNN the
// scene's world number), as if that world ran alone. Under mpirun (apps/mpi_job.h) each rank builds
// and runs a contiguous block of the worlds on its own device and writes those worlds' folders;
// rank 0 prints one summary for the job, and any rank's failure stops every rank with
// "rank K: REASON" (docs/scale-out.md, "mpirun weft run").
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <array>
#include <filesystem>
#include <memory>
#include <sstream>

#include "apps/cli.h"
#include "apps/mpi_job.h"
#include "apps/nonfinite_report.h"
#include "apps/npz.h"
#include "apps/ply.h"
#include "apps/vdb_write.h"
#include "engine/integrator_registry.h"
#include "engine/particle_grid.h"
#include "engine/scene.h"
#include "engine/stepper.h"
#include "engine/topology.h"
#ifdef WEFT_HAVE_VIEWER
#include "apps/video_output.h"
#include "viewer/frame_writer.h"
#include "viewer/image.h"
#endif
#include "runtime/cancel.h"
#include "runtime/errors.h"

namespace weft::apps {

namespace {

using Clock = std::chrono::steady_clock;

void progress(int frame, int frames, bool tty) {
    const int width = 30;
    int filled = frames > 0 ? frame * width / frames : width;
    std::string bar(size_t(filled), '#');
    bar.append(size_t(width - filled), '.');
    fprintf(stderr, "%s[%s] %d/%d frames%s", tty ? "\r" : "", bar.c_str(), frame, frames, tty ? "" : "\n");
    fflush(stderr);
}

// Where one output folder's share of the model goes: the whole model, or one world of a batched
// scene (particles first .. first + count - 1 and its bodies), with that world's topology and faces.
struct OutputSlot {
    std::string dir;
    int64_t particle_first = 0, particle_count = 0;
    int64_t body_first = 0, body_count = 0;
    std::vector<std::array<int32_t, 3>> faces;  // the .ply frames' faces
};

void write_frame(const OutputSlot& slot, int frame, double time, const engine::SceneOutput& out, const std::vector<float>& all_q,
                 const std::vector<float>& all_qd, const std::vector<float>& all_body_q, const std::vector<float>& all_body_qd,
                 const engine::SmokeGrid& smoke, const std::map<std::string, NpyArray>& grids) {
    char name[32];
    snprintf(name, sizeof name, "frame_%05d", frame);
    std::string base = (std::filesystem::path(slot.dir) / name).string();
    auto slice = [](const std::vector<float>& v, int64_t first, int64_t count, int64_t cols) {
        return std::vector<float>(v.begin() + first * cols, v.begin() + (first + count) * cols);
    };
    const std::vector<float> q = slice(all_q, slot.particle_first, slot.particle_count, 3);
    if (out.npz) {
        const std::vector<float> qd = slice(all_qd, slot.particle_first, slot.particle_count, 3);
        const std::vector<float> body_q = slice(all_body_q, slot.body_first, slot.body_count, 7);
        const std::vector<float> body_qd = slice(all_body_qd, slot.body_first, slot.body_count, 6);
        auto arr = [&](const std::vector<float>& v, int64_t cols) {
            NpyArray a;
            a.descr = "<f4";
            a.shape = {int64_t(v.size()) / cols, cols};
            a.data.resize(v.size() * sizeof(float));
            if (!v.empty()) std::memcpy(a.data.data(), v.data(), a.data.size());
            return a;
        };
        // Bodies (when the scene has them): body_q as (x, y, z, qx, qy, qz, qw), body_qd as (w, v).
        // Smoke grids (when the scene has one): smoke_density (nz, ny, nx), smoke_u/v/w on the faces.
        std::map<std::string, NpyArray> members = grids;
        members["particle_q"] = arr(q, 3);
        members["particle_qd"] = arr(qd, 3);
        if (!body_q.empty()) {
            members["body_q"] = arr(body_q, 7);
            members["body_qd"] = arr(body_qd, 6);
        }
        write_npz(base + ".npz", members);
    }
    if (out.ply) write_file_atomically(base + ".ply", ply_text(q, slot.faces));
    if (out.vdb) {  // the smoke grid (the scene loader allows "vdb" only with one)
        auto field = [&](const char* name) { return reinterpret_cast<const float*>(grids.at(name).data.data()); };
        VdbFields f{smoke.nx,         smoke.ny,         smoke.nz,        smoke.h, smoke.origin, field("smoke_density"),
                    field("smoke_u"), field("smoke_v"), field("smoke_w")};
        write_file_atomically(base + ".vdb", vdb_bytes(f, frame, time));
    }
}

// An int32 (rows x N) member of an .npz; a float32 (count) one copied from a Model array.
template <size_t N>
NpyArray int_rows(const std::vector<std::array<int32_t, N>>& rows) {
    NpyArray a;
    a.descr = "<i4";
    a.shape = {int64_t(rows.size()), int64_t(N)};
    a.data.resize(rows.size() * sizeof(rows[0]));
    if (!rows.empty()) std::memcpy(a.data.data(), rows.data(), a.data.size());
    return a;
}

NpyArray float_column(const std::vector<float>& all, int64_t first, int64_t count) {
    NpyArray a;
    a.descr = "<f4";
    a.shape = {count};
    a.data.resize(size_t(count) * sizeof(float));
    if (count > 0) std::memcpy(a.data.data(), all.data() + first, a.data.size());
    return a;
}

// A Model array of floats on the host (its first `count` entries).
std::vector<float> host_floats(const engine::Array& array, int64_t count) {
    std::vector<float> v(size_t(std::max<int64_t>(count, 0)));
    if (count > 0) array.copy_to_host(v.data(), v.size() * sizeof(float));
    return v;
}

// DIR/topology.npz: what does not change between frames, so that a reader of the frames needs no
// scene. Every member is present, with 0 rows when the model has none of it. `radius` and `mass`
// are the whole model's (host_floats); the slot picks its particles.
void write_topology(const OutputSlot& slot, const std::vector<float>& radius, const std::vector<float>& mass,
                    const engine::Topology& t) {
    std::map<std::string, NpyArray> members;
    members["tri_indices"] = int_rows(t.triangles);
    members["tet_surface_indices"] = int_rows(t.tet_surface);
    members["spring_indices"] = int_rows(t.springs);
    members["edge_indices"] = int_rows(t.edges);
    members["tet_indices"] = int_rows(t.tetrahedra);
    members["particle_radius"] = float_column(radius, slot.particle_first, slot.particle_count);
    members["particle_mass"] = float_column(mass, slot.particle_first, slot.particle_count);
    write_npz((std::filesystem::path(slot.dir) / "topology.npz").string(), members);
}

// World k's share of the topology of `worlds` equal copies (replicate_worlds keeps each kind
// of element world by world), renumbered to the world's own particles (-1 stays -1).
engine::Topology world_topology(const engine::Topology& all, int worlds, int k, int32_t particles_per_world) {
    auto part = [&](const auto& rows) {
        using Rows = std::decay_t<decltype(rows)>;
        const size_t n = rows.size() / size_t(worlds);
        Rows out(rows.begin() + std::ptrdiff_t(n * size_t(k)), rows.begin() + std::ptrdiff_t(n * size_t(k + 1)));
        for (auto& r : out)
            for (int32_t& i : r)
                if (i >= 0) i -= particles_per_world * k;
        return out;
    };
    engine::Topology t;
    t.triangles = part(all.triangles);
    t.tet_surface = part(all.tet_surface);
    t.springs = part(all.springs);
    t.edges = part(all.edges);
    t.tetrahedra = part(all.tetrahedra);
    return t;
}

// The smoke grid's fields of a state, x fastest: (nz, ny, nx) cells and the three face arrays.
std::map<std::string, NpyArray> smoke_grids(const engine::Model& m, const engine::State& s) {
    std::map<std::string, NpyArray> out;
    const engine::SmokeGrid& g = m.smoke;
    if (!g.valid()) return out;
    auto grid = [](const runtime::Array& a, std::vector<int64_t> shape) {
        NpyArray n;
        n.descr = "<f4";
        n.shape = std::move(shape);
        n.data.resize(size_t(a.size()) * sizeof(float));
        a.copy_to_host(n.data.data(), n.data.size());
        return n;
    };
    out["smoke_density"] = grid(s.smoke_density, {g.nz, g.ny, g.nx});
    out["smoke_u"] = grid(s.smoke_u, {g.nz, g.ny, g.nx + 1});
    out["smoke_v"] = grid(s.smoke_v, {g.nz, g.ny + 1, g.nx});
    out["smoke_w"] = grid(s.smoke_w, {g.nz + 1, g.ny, g.nx});
    return out;
}

}  // namespace

namespace {
int run_scene(const Args& args, const MpiJob& job);

// How the frames after the first ran, for the summary line (a list that fell back is a graph where
// the device has graphs, else eager).
const char* replay_kind(const engine::FrameStepper& s, const runtime::Device& d) {
    if (s.uses_launch_list()) return " (a launch list per frame)";
    if (s.uses_graph() && d.supports(runtime::Capability::GraphCapture)) return " (a CUDA graph per frame)";
    return "";
}
}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
    for (const auto& a : argv)
        if (a == "--help" || a == "-h") {
            printf(
                "usage: weft run SCENE.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--out DIR] [--quiet] [--no-graph]\n"
                "                [--launch-list] [--render DIR] [--video FILE.mp4] [--allow-nonfinite]\n"
                "Simulates a scene file (docs/scene-format.md); writes to --out or [output] dir: topology.npz (the\n"
                "model's triangles, springs, edges, tetrahedra) once, and frame_NNNNN.npz/.ply from frame 0 (the\n"
                "initial state); a .ply frame has the model's surface triangles as faces.\n"
                "On a cuda device each frame's substeps run as one CUDA graph; --no-graph launches them one by one.\n"
                "--launch-list runs them as ONE launch of a persistent grid instead (cuda and sim; docs/engine.md,\n"
                "\"Launch lists\"), and says why where a frame cannot be one (it then runs as without the option).\n"
                "--render DIR writes DIR/frame_NNNNN.png for frame 0 and every frame, as `weft view --headless` does;\n"
                "--video FILE pipes the same 1280x720 frames to ffmpeg at the scene's fps (.mp4, .mov, .mkv, .webm).\n"
                "Stops at the first frame that is not finite, naming the launch and the scene key behind it;\n"
                "--allow-nonfinite writes every frame anyway (and still exits 1).\n"
                "A scene with [worlds] writes each world to DIR/world_NNNNN/. Under `mpirun -np R weft run SCENE`, each\n"
                "rank runs a contiguous block of the worlds on its own device; rank 0 prints the job's summary.\n");
            return 0;
        }
    Args args(argv, {"device", "frames", "out", "render", "video"}, {"quiet", "no-graph", "launch-list", "allow-nonfinite"});
    MpiJob job = MpiJob::start();
    if (!job.distributed()) return run_scene(args, job);
    if (args.get("render") || args.get("video"))
        job.fail(2, "rank " + std::to_string(job.rank()) +
                        ": weft run: --render and --video draw one model, not a job's worlds split across ranks; run "
                        "without mpirun to render");
    // Under mpirun every way out of a rank but success stops the job: a rank that returned or threw
    // while the others wait in the summary's gather would hang them.
    const std::string rank = "rank " + std::to_string(job.rank()) + ": ";
    int rc = 0;
    try {
        rc = run_scene(args, job);
    } catch (const UsageError& e) { job.fail(2, rank + "weft run: " + e.what()); } catch (const std::exception& e) {
        std::string what = e.what();
        while (!what.empty() && what.back() == '\n') what.pop_back();
        job.fail(1, rank + what);
    }
    if (rc != 0) job.fail(rc, "");
    return 0;
}

namespace {

int run_scene(const Args& args, const MpiJob& job) {
    exit_cleanly_on_signals("weft run");
    // Errors of the run itself: under mpirun each line names its rank.
    const std::string rank_prefix = job.distributed() ? "rank " + std::to_string(job.rank()) + ": " : "";
    auto report = [&](const std::string& text) { fprintf(stderr, "%s%s\n", rank_prefix.c_str(), text.c_str()); };
    if (args.positional().size() != 1)
        throw UsageError("expected one scene file, got " + std::to_string(args.positional().size()));
    if (args.flag("launch-list") && args.flag("no-graph"))
        throw UsageError("--launch-list and --no-graph exclude each other (a launch list replays a frame, as a graph does)");
#ifdef WEFT_HAVE_VIEWER
    if (auto v = args.get("video")) check_video_option(*v, "--render DIR");
#else
    if (args.get("video")) throw UsageError("--video needs the viewer, which this build does not have");
#endif
    engine::Scene scene;
    try {
        scene = engine::load_scene(args.positional()[0], {job.rank(), job.ranks()});
    } catch (const engine::SceneError& e) {
        report(e.what());
        return 1;
    }
    if (job.rank() == 0)
        for (const std::string& w : scene.warnings()) fprintf(stderr, "%s\n", w.c_str());
    if (auto d = args.get("device")) scene.device = *d;
    // "cuda" without an ordinal under mpirun: each rank takes the GPU of its local rank, round robin.
    if (job.distributed() && scene.device == "cuda") {
        int count = 0;
        while (count < 64 && runtime::device_available(runtime::parse_device("cuda:" + std::to_string(count)))) ++count;
        if (count > 0) scene.device = "cuda:" + std::to_string(job.local_rank() % count);
    }
    if (auto f = args.get("frames")) scene.frames = int(parse_integer("--frames", *f, 0, engine::kMaxFrames));
    if (auto o = args.get("out")) scene.output.dir = *o;
    runtime::parse_device(scene.device);  // a bad device string is reported before anything is built
    if (scene.output.vdb && !scene.output.dir.empty() && !vdb_available()) {
        fprintf(stderr,
                "%s: [output] formats: this weft was built without OpenVDB (apt-get install libopenvdb-dev, then "
                "rebuild): the .vdb frames cannot be written\n",
                scene.path.c_str());
        return 1;
    }
    bool quiet = args.flag("quiet") || job.rank() != 0;  // one progress bar: rank 0's
    bool tty = isatty(2);

    auto t0 = Clock::now();
    engine::Model model;
    try {
        model = scene.builder.finalize(scene.device);
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(scene.path + ": out of memory while building the model on " + scene.device + " (" +
                                 std::to_string(scene.builder.particle_count()) + " particles, " +
                                 std::to_string(scene.builder.spring_rest_length.size()) + " springs, " +
                                 std::to_string(scene.builder.tri_indices.size()) + " triangles, " +
                                 std::to_string(scene.builder.tet_indices.size()) + " tetrahedra)");
    }
    engine::State a = model.state(), b = model.state();
    std::unique_ptr<engine::Integrator> integrator = engine::create_integrator(scene.solver, scene.solver_options);
    const float dt = scene.dt();
    bool first = true;
    double setup_s = 0.0;
    auto run_start = Clock::now();
    auto step = [&](engine::State& in, engine::State& out) {
        integrator->simulate(model, in, out, dt);
        if (first) {  // the first step compiles (or loads from the disk cache) every kernel the scene uses
            first = false;
            setup_s = std::chrono::duration<double>(Clock::now() - t0).count();
            run_start = Clock::now();
        }
    };
    // A frame's substeps are one CUDA graph on cuda devices after the first frame (engine/stepper.h).
    bool graphs = !args.flag("no-graph") && integrator->info().can(engine::IntegratorCaps_GraphCapture);
    if (args.flag("launch-list") && !graphs && job.rank() == 0)
        fprintf(stderr, "note: --launch-list: integrator '%s' steps cannot be replayed; frames run launch by launch\n",
                integrator->info().name.c_str());
    engine::FrameStepper stepper(model, a, b, scene.substeps, step, graphs, graphs && args.flag("launch-list"));
    std::vector<float> q(size_t(model.particle_count) * 3), qd(q.size());
    std::vector<float> body_q(size_t(model.body_count) * 7), body_qd(size_t(model.body_count) * 6);
    a.particle_q.copy_to_host(q.data(), q.size() * sizeof(float));
    a.particle_qd.copy_to_host(qd.data(), qd.size() * sizeof(float));
    if (model.body_count > 0) {
        a.body_q.copy_to_host(body_q.data(), body_q.size() * sizeof(float));
        a.body_qd.copy_to_host(body_qd.data(), body_qd.size() * sizeof(float));
    }
#ifdef WEFT_HAVE_VIEWER
    // --render DIR: PNG frames (viewer/frame_writer.h); --video FILE: the same frames through ffmpeg.
    // The video starts first, so that a path it cannot write stops the run before any file exists.
    std::unique_ptr<VideoOutput> video;
    if (auto v = args.get("video")) video = std::make_unique<VideoOutput>(*v, 1280, 720, double(scene.fps));
    std::unique_ptr<viewer::FrameWriter> render;
    auto render_frame = [&](int frame, const engine::State& s) {
        viewer::Image image =
            render->render(viewer::snapshot(model, s, integrator->renderables(model), scene.builder.shape_geo_src));
        if (auto dir = args.get("render")) viewer::write_png(viewer::frame_png_path(*dir, frame), image);
        if (video) video->add(image);
    };
    if (args.get("render") || video) {
        if (auto dir = args.get("render")) std::filesystem::create_directories(*dir);
        render = std::make_unique<viewer::FrameWriter>(1280, 720);
        render_frame(0, a);
    }
#else
    if (args.get("render")) throw UsageError("--render needs the viewer, which this build does not have");
#endif
    // The output folders: DIR itself, or DIR/world_NNNNN for each world of a batched scene.
    const engine::SceneWorlds& worlds = scene.worlds;
    std::vector<OutputSlot> slots;
    if (!scene.output.dir.empty()) {
        engine::Topology topology = engine::model_topology(model);
        const std::vector<float> radius = host_floats(model.particle_radius, model.particle_count);
        const std::vector<float> mass = host_floats(model.particle_mass, model.particle_count);
        if (worlds.count == 0) {
            OutputSlot slot{scene.output.dir, 0, model.particle_count, 0, model.body_count, topology.surface()};
            slots.push_back(slot);
            std::filesystem::create_directories(slot.dir);
            write_topology(slot, radius, mass, topology);
        }
        for (int k = 0; k < (worlds.count > 0 ? worlds.built : 0); ++k) {
            char name[32];
            snprintf(name, sizeof name, "world_%05d", worlds.first + k);
            engine::Topology t = world_topology(topology, worlds.built, k, worlds.particles);
            OutputSlot slot{(std::filesystem::path(scene.output.dir) / name).string(),
                            int64_t(k) * worlds.particles,
                            worlds.particles,
                            int64_t(k) * worlds.bodies,
                            worlds.bodies,
                            t.surface()};
            std::filesystem::create_directories(slot.dir);
            write_topology(slot, radius, mass, t);
            slots.push_back(std::move(slot));
        }
        for (const OutputSlot& slot : slots)
            write_frame(slot, 0, 0.0, scene.output, q, qd, body_q, body_qd, model.smoke, smoke_grids(model, a));
    }
    // Particle i of the model as "particle P of world W" ("" without worlds).
    auto world_of_particle = [&](int64_t i) {
        if (worlds.count == 0 || worlds.particles == 0 || i < 0) return std::string();
        return "particle " + std::to_string(i % worlds.particles) + " of world " +
               std::to_string(worlds.first + int(i / worlds.particles));
    };
    std::vector<float> q_prev, qd_prev;  // the last finite frame, to explain a divergence
    const bool stop_nonfinite = !args.flag("allow-nonfinite");
    for (int frame = 1; frame <= scene.frames; ++frame) {
        if (stop_nonfinite) {
            q_prev.swap(q);
            qd_prev.swap(qd);
            q.resize(q_prev.size());
            qd.resize(qd_prev.size());
        }
        try {
            stepper.advance();
        } catch (const runtime::LaunchInterrupted&) {  // Ctrl-C during a launch: the same exit as between launches
            exit_for_signal(SIGINT);
        } catch (const runtime::RuntimeError& e) {  // WEFT_VERIFY_FINITE=1 names the launch; add the scene key
            std::string param = feeding_parameter(scene, integrator->info(), kernel_of_error(e.what()));
            if (param.empty() || std::string(e.what()).find("non-finite") == std::string::npos) throw;
            throw runtime::RuntimeError("frame " + std::to_string(frame) + ": " + e.what() + "\n  fed by " + param);
        }
        const engine::State& now = stepper.current();
#ifdef WEFT_HAVE_VIEWER
        if (render) render_frame(frame, now);
#endif
        now.particle_q.copy_to_host(q.data(), q.size() * sizeof(float));
        now.particle_qd.copy_to_host(qd.data(), qd.size() * sizeof(float));
        if (model.body_count > 0) {
            now.body_q.copy_to_host(body_q.data(), body_q.size() * sizeof(float));
            now.body_qd.copy_to_host(body_qd.data(), body_qd.size() * sizeof(float));
            if (stop_nonfinite && (first_nonfinite(body_q) >= 0 || first_nonfinite(body_qd) >= 0)) {
                if (!quiet && tty) fprintf(stderr, "\n");
                const long long body = std::max(first_nonfinite(body_q) / 7, first_nonfinite(body_qd) / 6);
                std::string world;
                if (worlds.count > 0 && worlds.bodies > 0)
                    world = " (world " + std::to_string(worlds.first + int(body / worlds.bodies)) + ")";
                report("error: frame " + std::to_string(frame) + ": a rigid body's pose or velocity is not finite (body " +
                       std::to_string(body) + world + "); reduce dt (raise substeps) or the shapes' contact stiffness ke");
                return 1;
            }
        }
        if (stop_nonfinite && (first_nonfinite(q) >= 0 || first_nonfinite(qd) >= 0)) {
            if (!quiet && tty) fprintf(stderr, "\n");
            const int64_t bad = first_nonfinite(q) >= 0 ? first_nonfinite(q) / 3 : first_nonfinite(qd) / 3;
            std::string world = world_of_particle(bad);
            report(explain_nonfinite(scene, model, *integrator, frame, q_prev, qd_prev, q, qd) +
                   (world.empty() ? "" : "\n  particle " + std::to_string(bad) + " is " + world));
            return 1;
        }
        if (frame % scene.output.every == 0)
            for (const OutputSlot& slot : slots)
                write_frame(slot, frame, double(frame) / scene.fps, scene.output, q, qd, body_q, body_qd, model.smoke,
                            smoke_grids(model, now));
        if (!quiet && (tty || frame == scene.frames || frame % std::max(1, scene.frames / 10) == 0))
            progress(frame, scene.frames, tty);
    }
    if (!quiet && tty && scene.frames > 0) fprintf(stderr, "\n");
#ifdef WEFT_HAVE_VIEWER
    if (video) video->finish();
#endif
    double wall = std::chrono::duration<double>(Clock::now() - run_start).count();
    if (args.flag("launch-list") && !stepper.why_not_listed().empty() && job.rank() == 0)
        fprintf(stderr, "note: --launch-list: a frame could not be one launch (%s); frames ran as without the option\n",
                stepper.why_not_listed().c_str());
    long steps = long(scene.frames) * scene.substeps;
    double sim_s = double(scene.frames) / scene.fps;
    // After the summary: the grid's dropped contacts, and a divergence that --allow-nonfinite ran past.
    auto finish = [&] {
        if (int64_t dropped = engine::particle_grid_dropped(model, stepper.current().grid_bucket_count))
            fprintf(stderr,
                    "%swarning: %lld particles found their hash-grid bucket full in the last step; contacts were missed\n",
                    rank_prefix.c_str(), (long long)dropped);
        for (float v : q)
            if (!std::isfinite(v)) {
                report("error: the simulation diverged (non-finite positions); reduce dt (raise substeps) or stiffness");
                return 1;
            }
        return 0;
    };
    if (worlds.count == 0) {
        printf(
            "%s: %d frames, %.3f s simulated, %ld steps of %.3g s, %d particles%s on %s%s; wall %.3f s (+ %.3f s setup and "
            "first step), %.0f steps/s\n",
            scene.name.c_str(), scene.frames, sim_s, steps, double(scene.dt()), model.particle_count,
            model.body_count ? (", " + std::to_string(model.body_count) + " bodies").c_str() : "", model.device.str().c_str(),
            replay_kind(stepper, model.device), wall, setup_s, steps > 1 && wall > 0 ? double(steps - 1) / wall : 0.0);
        return finish();
    }
    // Batched worlds: one line for the job, from every rank's worlds, particles and times (rank 0
    // prints it; the wall time of the job is its slowest rank's).
    std::vector<double> all =
        job.gather({double(worlds.built), double(model.particle_count), double(model.body_count), wall, setup_s});
    if (job.rank() != 0) return finish();
    double built = 0, particles = 0, bodies = 0, job_wall = 0, job_setup = 0;
    for (size_t r = 0; r + 4 < all.size(); r += 5) {
        built += all[r];
        particles += all[r + 1];
        bodies += all[r + 2];
        job_wall = std::max(job_wall, all[r + 3]);
        job_setup = std::max(job_setup, all[r + 4]);
    }
    std::string where = model.device.str();
    if (job.distributed()) where = std::to_string(job.ranks()) + " ranks (rank 0 on " + where + ")";
    printf(
        "%s: %.0f worlds, %d frames, %.3f s simulated, %ld steps of %.3g s, %.0f particles%s on %s%s; wall %.3f s (+ %.3f s "
        "setup and first step), %.0f world-steps/s\n",
        scene.name.c_str(), built, scene.frames, sim_s, steps, double(scene.dt()), particles,
        bodies > 0 ? (", " + std::to_string((long long)bodies) + " bodies").c_str() : "", where.c_str(),
        replay_kind(stepper, model.device), job_wall, job_setup,
        steps > 1 && job_wall > 0 ? built * double(steps - 1) / job_wall : 0.0);
    fflush(stdout);
    return finish();
}

}  // namespace

}  // namespace weft::apps
