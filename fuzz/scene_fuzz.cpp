// libFuzzer target: the TOML scene loader (engine/scene*.cpp, docs/scene-format.md) on arbitrary
// bytes, as `weft run SCENE` reads a file: parse_scene() = toml++'s parser, then every table's
// reader (types, ranges, unknown keys, indices, the solver's options, the families' blocks of
// engine/scene_blocks.def, [[shape]] meshes, [[urdf]] / [[mjcf]] imports) and the host-side
// ModelBuilder calls they make, then the stability estimates and Scene::warnings().
//
// Where the pipeline is cut: ModelBuilder::finalize() is left out. It uploads the arrays to a
// device, samples mesh SDFs and compiles the solver kernels on first use: milliseconds to seconds
// per input where parsing takes microseconds, and it is the runtime's code, not the loader's. What
// a file can say is all decided by parse_scene; what is built from a valid Scene is covered by
// the engine's tests on the shipped scenes.
//
// The scene is parsed as if it were scenes/fuzz.toml of the source tree (of $WEFT_SOURCE_DIR where
// set, for a binary carried to another machine), so that relative 'obj' and [[mjcf]] / [[urdf]]
// files can name the shipped scenes/pyramid.obj and scenes/pendulum_chain.xml. parse_scene gets a
// 16 MiB memory limit (about 65,000 particles): a block past it is the loader's "too large for
// memory" error, so the fuzzer exercises that check instead of spending seconds filling a grid.
//
// Any crash, hang, sanitizer report or exception other than SceneError is a bug; so is a
// SceneError whose message does not name the scene file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "engine/scene.h"

namespace {

const std::string kPath =
    std::string(std::getenv("WEFT_SOURCE_DIR") ? std::getenv("WEFT_SOURCE_DIR") : WEFT_SOURCE_DIR) + "/scenes/fuzz.toml";
constexpr double kMemoryLimit = 16.0 * 1024 * 1024;

[[noreturn]] void bug(const char* what, const std::string& message) {
    std::fprintf(stderr, "scene_fuzz: %s: %s\n", what, message.c_str());
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        weft::engine::Scene s = weft::engine::parse_scene(text, kPath, kMemoryLimit);
        (void)s.warnings();
        const auto& b = s.builder;
        if (b.particle_mass.size() != b.particle_q.size() || b.particle_qd.size() != b.particle_q.size())
            bug("particle arrays of different lengths", std::to_string(b.particle_q.size()));
    } catch (const weft::engine::SceneError& e) {
        if (std::string(e.what()).find(kPath) == std::string::npos) bug("SceneError without the file", e.what());
    } catch (const std::exception& e) { bug("exception other than SceneError", e.what()); }
    return 0;
}
