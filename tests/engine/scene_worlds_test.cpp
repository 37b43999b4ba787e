// A scene's [worlds] (engine/scene_worlds.cpp): each world of a batched scene, run on the CPU device,
// is bit for bit the same scene run alone with that world's values written into its blocks; a
// process's block of worlds (WorldRange) gets the values of its global world numbers and its
// offsets; every mistake in [worlds] is a located error with its message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "runtime/device.h"

namespace {

using namespace weft::engine;

std::string error_of(const std::string& text, double memory_limit = 0.0, WorldRange range = {}) {
    try {
        parse_scene(text, "scenes/x.toml", memory_limit, range);
    } catch (const SceneError& e) { return e.what(); }
    return "(no error)";
}

std::string num(double v) {
    char b[40];
    snprintf(b, sizeof b, "%.17g", v);
    return b;
}

// A chain of three particles on two springs beside a 2x2 cloth, above a static sphere and the
// ground: springs, triangles, bending edges, particle-shape and ground contact in one world. The
// springs' ke, the cloth's tri_ke and particle 2's initial x velocity are written from the arguments.
std::string one_world(double spring_ke, double tri_ke, double vx) {
    return "[simulation]\nfps = 60\nsubsteps = 4\n"
           "[[particle]]\npos = [0.0, 1.0, 0.0]\nmass = 0.0\n"
           "[[particle]]\npos = [0.2, 1.0, 0.0]\nmass = 0.1\n"
           "[[particle]]\npos = [0.4, 1.0, 0.0]\nmass = 0.1\nvel = [" +
           num(vx) +
           ", 0.0, 0.0]\n"
           "[[spring]]\ni = 0\nj = 1\nkd = 0.5\nke = " +
           num(spring_ke) +
           "\n"
           "[[spring]]\ni = 1\nj = 2\nkd = 0.5\nke = " +
           num(spring_ke) +
           "\n"
           "[[cloth]]\npos = [-0.2, 0.8, 0.0]\ndim = [2, 2]\ncell = [0.1, 0.1]\nmass = 0.05\ntri_ke = " +
           num(tri_ke) +
           "\n"
           "[[shape]]\ntype = \"sphere\"\npos = [-0.1, 0.3, 0.05]\nradius = 0.2\n";
}

std::vector<float> positions_after(const Scene& s, int steps) {
    Model m = s.builder.finalize("cpu");
    auto integrator = create_integrator(s.solver, s.solver_options);
    State a = m.state(), b = m.state();
    for (int k = 0; k < steps; ++k) {
        integrator->simulate(m, a, b, s.dt());
        std::swap(a, b);
    }
    std::vector<float> q(size_t(m.particle_count) * 3);
    a.particle_q.copy_to_host(q.data(), q.size() * sizeof(float));
    return q;
}

TEST(SceneWorlds, EachWorldIsItsSceneRunAloneBitForBit) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    const int n = 5;
    const double vx[n] = {0.0, -1.0, 0.5, 2.0, 0.25};
    const std::string worlds =
        "[worlds]\ncount = 5\n[worlds.vary]\n"
        "\"spring.ke\" = { from = 100.0, to = 900.0 }\n"
        "cloth.tri_ke = { from = 10.0, to = 1000.0, scale = \"log\" }\n"
        "\"particle_qd[2].x\" = [0.0, -1.0, 0.5, 2.0, 0.25]\n";
    Scene batched = parse_scene(one_world(1, 1, 0) + worlds, "batched.toml");
    ASSERT_EQ(batched.worlds.count, n);
    ASSERT_EQ(batched.worlds.built, n);
    const int np = batched.worlds.particles;
    ASSERT_EQ(np, 3 + 9);
    ASSERT_EQ(batched.builder.particle_count(), n * np);
    std::vector<float> all = positions_after(batched, 120);
    for (int w = 0; w < n; ++w) {
        // The ranges' values, computed here from their definitions.
        const double ke = 100.0 + 800.0 * w / (n - 1), tri_ke = 10.0 * std::pow(100.0, double(w) / (n - 1));
        Scene alone = parse_scene(one_world(ke, w == n - 1 ? 1000.0 : tri_ke, vx[w]), "alone.toml");
        std::vector<float> q = positions_after(alone, 120);
        ASSERT_EQ(q.size(), size_t(np) * 3);
        EXPECT_EQ(std::memcmp(q.data(), all.data() + size_t(w) * q.size(), q.size() * sizeof(float)), 0)
            << "world " << w << " differs from its scene run alone";
        EXPECT_TRUE(std::isfinite(q[5]) && q[4] < 1.0f) << "world " << w << ": the chain moved";
    }
    // The worlds differ: world 0 and world 4 do not end in the same place.
    EXPECT_NE(std::memcmp(all.data(), all.data() + size_t(4) * np * 3, size_t(np) * 3 * sizeof(float)), 0);
}

// Particle-particle contact separates worlds: a jittered heap of eight particles dropped on the
// ground, as four worlds at one place thrown down at their own speeds, each bit for bit the heap
// alone (both particle solvers).
TEST(SceneWorlds, ParticleContactStaysInsideEachWorld) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    auto heap = [](const std::string& solver, double vy) {
        return "[simulation]\nsolver = \"" + solver +
               "\"\nfps = 60\nsubsteps = 8\n[particle_contact]\nke = 500.0\nkd = 1.0\n"
               "[[particle_block]]\npos = [0.0, 0.15, 0.0]\ndim = [2, 2, 2]\nspacing = 0.1\nmass = 0.01\n"
               "jitter = 0.3\nvel = [0.0, " +
               num(vy) + ", 0.0]\n";
    };
    const double vy[4] = {0.0, -0.5, -1.0, -1.5};
    for (const std::string solver : {"semi_implicit", "xpbd"}) {
        Scene batched =
            parse_scene(heap(solver, 0.0) + "[worlds]\ncount = 4\n[worlds.vary]\n\"particle_qd.y\" = [0.0, -0.5, -1.0, -1.5]\n",
                        "batched.toml");
        std::vector<float> all = positions_after(batched, 160);
        for (int w = 0; w < 4; ++w) {
            std::vector<float> q = positions_after(parse_scene(heap(solver, vy[w]), "alone.toml"), 160);
            ASSERT_EQ(q.size(), size_t(8 * 3));
            EXPECT_EQ(std::memcmp(q.data(), all.data() + size_t(w) * q.size(), q.size() * sizeof(float)), 0)
                << solver << ": world " << w << " differs from its heap alone";
        }
    }
}

TEST(SceneWorlds, ABlockOfWorldsHasItsGlobalValuesAndOffsets) {
    const std::string text = one_world(100, 100, 0) +
                             "[worlds]\ncount = 10\nspacing = [2.0, 0.0, 0.0]\n[worlds.vary]\n"
                             "spring_stiffness = { from = 0.0, to = 9.0 }\n";
    Scene part = parse_scene(text, "x.toml", 0.0, {1, 3});  // worlds 3, 4, 5
    EXPECT_EQ(part.worlds.first, 3);
    EXPECT_EQ(part.worlds.built, 3);
    const ModelBuilder& b = part.builder;
    ASSERT_EQ(b.spring_stiffness.size(), size_t(3 * 2));
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(b.spring_stiffness[size_t(2 * k)], float(3 + k));
        EXPECT_EQ(b.spring_stiffness[size_t(2 * k + 1)], float(3 + k));
        EXPECT_EQ(b.particle_q[size_t(12 * k)].x(), 2.0f * float(3 + k)) << "world " << 3 + k << " moved by its number";
    }
    EXPECT_EQ(b.num_worlds, 3);
    Scene last = parse_scene(text, "x.toml", 0.0, {2, 3});  // worlds 6 .. 9
    EXPECT_EQ(last.worlds.first, 6);
    EXPECT_EQ(last.worlds.built, 4);
    EXPECT_EQ(last.builder.spring_stiffness.back(), 9.0f);
}

TEST(SceneWorlds, MistakesAreLocatedErrors) {
    const std::string base = one_world(100, 100, 0);
    auto with = [&](const std::string& worlds) { return error_of(base + worlds); };
    // base has 33 lines: [worlds] is line 34
    EXPECT_EQ(with("[worlds]\ncount = 0\n"), "scenes/x.toml:35:9: 'count' must be >= 1, got 0");
    EXPECT_EQ(with("[worlds]\ncount = 20000000\n"), "scenes/x.toml:35:9: 'count' must be <= 16777216, got 20000000");
    EXPECT_EQ(with("[worlds]\ncont = 2\n"), "scenes/x.toml:34:1: missing key 'count' in [worlds]");
    EXPECT_EQ(with("[worlds]\ncount = 2\nspaceing = [1, 0, 0]\n"),
              "scenes/x.toml:36:1: unknown key 'spaceing' (did you mean 'spacing'?)");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"spring.kee\" = [1.0, 2.0]\n"),
              "scenes/x.toml:37:16: [worlds.vary] 'spring.kee': unknown parameter 'spring' (did you mean 'spring.ke'?); "
              "parameters are Model arrays, initial-State arrays (particle_q, particle_qd) or scene keys such as spring.ke "
              "and cloth.tri_ke");
    EXPECT_EQ(with("[worlds]\ncount = 3\n[worlds.vary]\n\"spring.ke\" = [1.0, 2.0]\n"),
              "scenes/x.toml:37:15: 'spring.ke' must list 3 values (one per world), got 2");
    EXPECT_EQ(with("[worlds]\ncount = 3\n[worlds.vary]\n\"spring.ke\" = { from = 1.0, too = 2.0 }\n"),
              "scenes/x.toml:37:15: missing key 'to' in [worlds.vary] 'spring.ke'");
    EXPECT_EQ(with("[worlds]\ncount = 3\n[worlds.vary]\n\"spring.ke\" = { from = 1.0, to = 2.0, scale = \"logg\" }\n"),
              "scenes/x.toml:37:47: 'scale' must be one of 'linear', 'log', got 'logg' (did you mean 'log'?)");
    EXPECT_EQ(with("[worlds]\ncount = 3\n[worlds.vary]\n\"spring.ke\" = { from = 0.0, to = 2.0, scale = \"log\" }\n"),
              "scenes/x.toml:37:24: a log range needs 'from' and 'to' of one sign and nonzero, got 0 and 2");
    EXPECT_EQ(with("[worlds]\ncount = 3\n[worlds.vary]\n\"spring_indices[0]\" = [1.0, 2.0, 3.0]\n"),
              "scenes/x.toml:37:23: 'spring_indices[0]': 'spring_indices' is an integer array; [worlds.vary] sets float "
              "parameters (Model arrays such as spring_stiffness, or scene keys such as spring.ke)");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"spring.ke[7]\" = [1.0, 2.0]\n"),
              "scenes/x.toml:37:18: [worlds.vary] 'spring.ke[7]': index 7 is out of range ('spring.ke' has 2 entries)");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"spring.ke.y\" = [1.0, 2.0]\n"),
              "scenes/x.toml:37:17: [worlds.vary] 'spring.ke.y': '.y' applies to vec3 arrays (particle_q, particle_qd); "
              "'spring.ke' is not one");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"soft_body.k_mu\" = [1.0, 2.0]\n"),
              "scenes/x.toml:37:20: [worlds.vary] 'soft_body.k_mu': 'tet_materials' is empty in this scene (nothing of "
              "that kind was built)");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\ntri_activations = [1.0, 2.0]\n"),
              "scenes/x.toml:37:19: [worlds.vary] 'tri_activations': 'tri_activations' starts at 0 in every model (no scene "
              "key sets it), so worlds cannot differ in it");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"spring.ke\" = [1.0, 2.0]\n\"spring_stiffness[1]\" = [1.0, 2.0]\n"),
              "scenes/x.toml:38:25: 'spring_stiffness[1]' and 'spring.ke' both set a value of spring_stiffness; name each "
              "scalar once");
    EXPECT_EQ(with("[worlds]\ncount = 2\n[worlds.vary]\n\"spring.ke\" = [1.0, inf]\n"),
              "scenes/x.toml:37:21: 'spring.ke' must be finite, got inf");
    EXPECT_EQ(error_of("worlds = 4\n" + base), "scenes/x.toml:1:10: 'worlds' must be a table, got an integer");
    // A job of more processes than worlds, and a scene without worlds split across processes.
    EXPECT_EQ(error_of(base + "[worlds]\ncount = 2\n", 0.0, {0, 3}),
              "scenes/x.toml:35:9: the scene has 2 worlds, fewer than the 3 processes of this job (each needs one world "
              "at least)");
    EXPECT_EQ(error_of(base, 0.0, {0, 2}),
              "scenes/x.toml:1:1: the scene has no [worlds] table, so it cannot be split across 2 processes; add [worlds] "
              "count = N (docs/scene-format.md)");
    // Absurd counts are refused from the counts, before anything is replicated.
    std::string big = error_of(base + "[worlds]\ncount = 16000000\n", 1e9);
    EXPECT_EQ(big,
              "scenes/x.toml:35:9: 'count' makes the scene too large for memory: about 86.8 GiB for 1.92e+08 particles, 3.2e+07 "
              "springs, 1.28e+08 triangles, and the limit is 0.931 GiB");
    // What worlds cannot separate: a smoke grid.
    std::string smoke = error_of("[simulation]\nsolver = \"smoke\"\n[smoke]\nresolution = [4, 4, 4]\n[worlds]\ncount = 2\n");
    EXPECT_EQ(smoke, "scenes/x.toml:6:9: a scene with a [smoke] grid cannot have worlds: the grid is one per model");
}

}  // namespace
