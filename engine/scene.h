// engine/scene.h: TOML scene files (docs/scene-format.md): what to build, which solver, how long,
// on which device, and what to write.
//
//   Scene s = load_scene("scenes/bounce.toml");    // SceneError on any mistake
//   Model m = s.builder.finalize(s.device);
//   auto integrator = create_integrator(s.solver, s.solver_options);
//
// The loader validates everything before anything runs: unknown keys (with a did-you-mean), wrong
// types, missing keys, values out of range, particle indices out of range. [simulation] takes, next
// to its own keys, the options the chosen solver declares (IntegratorInfo::options), and only those. Each error is one
// SceneError whose message starts with "FILE:LINE:COLUMN: ", as
//   scenes/x.toml:12:5: unknown key 'stifness' (did you mean 'stiffness'?)
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/integrator_options.h"
#include "engine/model_builder.h"
#include "engine/stability.h"

namespace weft::engine {

struct SceneError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The most frames a scene (or `weft run --frames`) may ask for.
inline constexpr int kMaxFrames = 100000000;

struct SceneOutput {
    std::string dir;   // "" = no per-frame files
    int every = 1;     // write every N-th frame
    bool npz = true;   // frame_NNNNN.npz: particle_q, particle_qd (float32, n x 3)
    bool ply = false;  // frame_NNNNN.ply: ASCII point cloud of the positions
    bool vdb = false;  // frame_NNNNN.vdb: the smoke grid as OpenVDB grids (density, velocity)
};

// The explicit scheme's stability estimate of one stiffness or damping coefficient of the scene
// (docs/scene-format.md, "Stability"): sqrt(k/m) dt for a stiffness, k dt / m for a damping or
// friction coefficient, m the lightest moving particle it acts on. A block's triangles or
// tetrahedra are estimated as one system instead (engine/stability.h's element_rates): the
// highest frequency of their linearised forces times dt, sqrt(lambda_max(M^-1 K)) dt, and their
// highest damping rate times dt. Beyond kStabilityLimit the semi-implicit step diverges.
struct StabilityEstimate {
    std::string where;         // "scenes/x.toml:12:6", the coefficient's value in the file (else its table)
    bool is_default = false;   // not written in the file: the default applies
    std::string key;           // "[[spring]] 'ke'"
    std::string module;        // the kernel module it feeds (kernels/springs.py -> "springs")
    bool stiffness = true;     // a stiffness (sqrt rule) or a damping / friction coefficient
    double coefficient = 0.0;  // N/m or N s/m
    double mass = 0.0;         // kg
    double value = 0.0;        // the estimate
    // Elements: 3 (triangles) or 4 (tetrahedra) for the block's elements [element_begin,
    // element_end) of the builder; 0 for one coefficient on `mass`.
    int element_nodes = 0;
    size_t element_begin = 0, element_end = 0;
    std::string with;  // the other coefficient the estimate depends on: "'tri_ka' = 100"
    // "sqrt(k/m) dt = 4.47 with m = 2 kg", "sqrt(lambda_max(M^-1 K)) dt = 3.1 over the block's
    // 200 triangles (with 'tri_ka' = 100)"
    std::string term() const;
};
inline constexpr double kStabilityLimit = kExplicitLimit;  // engine/stability.h: one rule

// [worlds] (docs/scene-format.md, "Batched worlds in scenes"): the scene's model replicated as
// `count` separate worlds in one set of arrays (ModelBuilder::replicate), each world with its own
// values of the parameters [worlds.vary] names.
inline constexpr int kMaxWorlds = 1 << 24;
struct SceneWorlds {
    int count = 0;                  // worlds of the scene; 0 = no [worlds] table (one model, no world folders)
    int first = 0;                  // the first world this process built (parse_scene's WorldRange)
    int built = 0;                  // worlds built: first .. first + built - 1, as worlds 0 .. built - 1 of the builder
    Vec3 spacing = Vec3::Zero();    // m: world w is moved by w * spacing
    int particles = 0, bodies = 0;  // one world's share: world k's particles are k * particles .. (k + 1) * particles - 1
};

// Which worlds a process builds: the part-th of `parts` contiguous blocks, worlds
// [count * part / parts, count * (part + 1) / parts) (an MPI rank's share; docs/scale-out.md).
struct WorldRange {
    int part = 0, parts = 1;
};

struct Scene {
    std::string path;
    std::string name;  // [scene] name, else the file's stem
    ModelBuilder builder;
    std::string solver = "semi_implicit";  // an integrator's registered name (engine/integrator_registry.h)
    IntegratorOptions solver_options;      // its options, every declared one (defaults filled in)
    float fps = 60.0f;                     // frames per simulated second
    int substeps = 8;                      // solver steps per frame: dt = 1 / (fps substeps)
    int frames = 60;
    std::string device = "cpu";
    SceneOutput output;
    // Every estimate of a solver with an explicit limit (IntegratorCaps_Explicit), the
    // largest first; empty for the others.
    std::vector<StabilityEstimate> stability;
    // "FILE:LINE: warning: ..." of the [[urdf]] / [[mjcf]] imports (engine/scene_import.cpp).
    std::vector<std::string> import_warnings;
    // Bytes the loader lets the scene's particles and elements take (parse_scene's memory_limit);
    // 0 = this machine's physical memory.
    double memory_limit = 0.0;
    SceneWorlds worlds;

    // "FILE:LINE:COL: warning: ..." for each estimate at or past kStabilityLimit (at most 5, then a
    // count), then the import warnings.
    std::vector<std::string> warnings() const;
    float dt() const { return 1.0f / (fps * float(substeps)); }
};

Scene load_scene(const std::string& path, WorldRange range = {});
// Parses `text` as if read from `path` (errors name `path`). A block whose particles and elements
// would take the scene past `memory_limit` bytes on the host and device (an estimate from their
// counts, made before anything is allocated) is an error at its key, "... too large for memory";
// 0 = this machine's physical memory. The scene fuzzer (fuzz/scene_fuzz.cpp) passes a few MiB, so
// that it exercises that check instead of building millions of particles. A scene with [worlds]
// builds the worlds of `range` only (all of them by default); a range with more parts than the
// scene has worlds is an error at 'count'.
Scene parse_scene(const std::string& text, const std::string& path, double memory_limit = 0.0, WorldRange range = {});

}  // namespace weft::engine
