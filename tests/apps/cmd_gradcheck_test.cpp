// `weft gradcheck` end to end, as CI would run it: every shipped scene passes with a cheap loss
// and few steps (one test per scene; a new scene without a case fails), a golden file's life
// (created by --update, compared, moved, updated, with the exit codes), the causes of a bad
// gradient (a scene past its stability limit, finite differences that change with eps, a loss
// that is not finite), the JSON report, and every usage error's message (exit 2).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "apps/npz.h"
#include "runtime/device.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
    int rc;
    std::string out;  // stdout and stderr
};

CliRun weft(const std::string& args) {
    std::string out;
    FILE* p = popen((std::string(WEFT_BIN) + " gradcheck " + args + " 2>&1").c_str(), "r");
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string scene(const std::string& name) { return std::string(WEFT_SOURCE_DIR) + "/scenes/" + name + ".toml"; }
std::string test_scene(const std::string& name) {
    return std::string(WEFT_SOURCE_DIR) + "/tests/apps/gradcheck/" + name + ".toml";
}

#define REQUIRE_CPU() \
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT"

// [SECTION] shipped scenes: a loss and parameters each, with the velocity always among them.
const std::map<std::string, std::string> kSceneCases = {
    {"bounce", "--loss 'mean(particle_q.y)' --wrt particle_qd,particle_q --steps 16"},
    {"cloth_benchmark", "--loss 'sum(particle_q.y * particle_q.y)' --wrt spring_grid.ke,particle_qd --samples 3 --steps 16"},
    {"cloth_drape", "--loss 'sum(particle_q.x * particle_q.z)' --wrt cloth.tri_ke,particle_qd --samples 3 --steps 16"},
    {"cloth_on_mesh",
     "--loss 'mean(particle_q.y) + sum(particle_q.x * particle_q.z)' --wrt cloth.tri_kd,particle_qd --samples 3 --steps 16"},
    // The cloth's fall before it meets the box (the body is in the rollout; a loss over body_q is
    // not in gradcheck yet): tests/engine/particle_body_test.cpp checks the contact's gradient.
    {"cloth_on_moving_box",
     "--loss 'mean(particle_q.x) + sum(particle_q.x * particle_q.z)' --wrt cloth.tri_kd,particle_qd --samples 3 --steps 16"},
    {"granular_pile", "--loss 'com(particle_q).y' --wrt particle_qd,particle_radius --samples 3 --steps 16"},
    {"soft_body_drop", "--loss 'sum(particle_q.x * particle_q.y)' --wrt soft_body.k_mu,particle_qd --samples 3 --steps 32"},
    {"spring_chain", "--loss 'mean(particle_q.y)' --wrt spring.ke,particle_qd[3] --steps 64"},
    // 16 worlds, each with its own tri_ke (gradcheck sees the batched model's arrays)
    {"worlds_sweep", "--loss 'sum(particle_q.x * particle_q.z)' --wrt cloth.tri_ke,particle_qd --samples 3 --steps 16"},
};

class ShippedScene : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScene, Passes) {
    REQUIRE_CPU();
    CliRun r = weft(scene(GetParam()) + " " + kSceneCases.at(GetParam()));
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("\nPASS\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("disagree"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Gradcheck, ShippedScene, ::testing::ValuesIn([] {
                             std::vector<std::string> names;
                             for (const auto& [k, v] : kSceneCases) names.push_back(k);
                             return names;
                         }()),
                         [](const auto& info) { return info.param; });

// Scenes weft gradcheck cannot check yet, each with the reason (and where its gradients are tested).
const std::map<std::string, std::string> kScenesWithoutCase = {
    {"box_stack",
     "rigid bodies: loss expressions and --wrt parameters over body_q / body_qd are not in weft gradcheck yet; "
     "tests/engine/rigid_body_test.cpp checks rigid-body gradients against central differences"},
    {"box_stack_xpbd",
     "rigid bodies under XPBD: loss expressions and --wrt parameters over body_q / body_qd are not in weft gradcheck yet; "
     "tests/engine/xpbd_rigid_test.cpp checks XPBD gradients through contact and a hinge against central differences"},
    {"mesh_bodies",
     "rigid bodies under XPBD: loss expressions and --wrt parameters over body_q / body_qd are not in weft gradcheck yet; "
     "tests/engine/mesh_body_test.cpp checks the gradient of a mesh body's throw against central differences"},
    {"joint_chain",
     "rigid bodies: loss expressions and --wrt parameters over body_q / body_qd are not in weft gradcheck yet; "
     "tests/engine/joint_test.cpp checks the gradient of a jointed chain against central differences"},
    {"pendulum_chain",
     "rigid bodies imported from MJCF: loss expressions over body_q / body_qd are not in weft gradcheck yet; "
     "tests/engine/joint_test.cpp checks jointed-chain gradients against central differences"},
    {"pendulum_chain_rk4",
     "an articulation stepped by Featherstone: loss expressions over body_q and --wrt parameters over joint_q / joint_qd "
     "are not in weft gradcheck yet; tests/engine/featherstone_test.cpp checks Featherstone gradients (chain swing, "
     "ground contact) against central differences"},
    {"ant",
     "an articulation stepped by Featherstone: as pendulum_chain_rk4; tests/engine/featherstone_test.cpp checks "
     "Featherstone gradients against central differences"},
    {"smoke_plume",
     "a smoke grid: loss expressions over grid arrays are not in weft gradcheck yet; tests/engine/smoke_test.cpp checks "
     "smoke gradients against central differences"},
    {"mpm_sand_column",
     "MPM: loss expressions over particle_q work, but the MPM state (F, C) is not a gradcheck parameter yet; "
     "tests/engine/mpm_test.cpp checks MPM gradients against central differences"},
    {"mpm_dam_break", "MPM: as mpm_sand_column; tests/engine/mpm_test.cpp checks MPM gradients against central differences"},
    {"mpm_snowball", "MPM: as mpm_sand_column; tests/engine/mpm_test.cpp checks MPM gradients against central differences"},
};

TEST(Gradcheck, EveryShippedSceneHasACase) {
    for (const auto& f : fs::directory_iterator(std::string(WEFT_SOURCE_DIR) + "/scenes"))
        if (f.path().extension() == ".toml")
            EXPECT_TRUE(kSceneCases.count(f.path().stem().string()) || kScenesWithoutCase.count(f.path().stem().string()))
                << f.path() << " has no case in kSceneCases";
}

TEST(Gradcheck, ABodySceneSaysWhatItCannotCheck) {
    REQUIRE_CPU();
    CliRun r = weft(scene("box_stack") + " --loss 'mean(body_q.y)' --wrt particle_qd --steps 4");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("unknown State array 'body_q' (particle_q, particle_qd)"), std::string::npos) << r.out;
}

// [SECTION] goldens
struct TempDir {
    fs::path path = fs::temp_directory_path() / ("weft_gradcheck_test_" + std::to_string(getpid()));
    TempDir() {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

TEST(Gradcheck, GoldenCreatedComparedMovedAndUpdated) {
    REQUIRE_CPU();
    TempDir dir;
    const std::string golden = (dir.path / "chain.npz").string();
    const std::string chain = scene("spring_chain") + " --loss 'mean(particle_q.y)' --steps 64 --golden " + golden;
    const std::string base = chain + " --wrt spring.ke,particle_qd[3]";

    CliRun r = weft(base);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("weft gradcheck: golden file '" + golden + "' does not exist; run once with --update to create it"),
              std::string::npos)
        << r.out;

    r = weft(base + " --update");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("golden " + golden + ": created\n  new: loss = "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  new: d loss / d spring.ke (7 entries)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  new: d loss / d particle_qd[3] (3 entries)\n"), std::string::npos) << r.out;
    for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_NE(e.path().extension(), ".tmp") << "written atomically";
    auto npz = weft::apps::read_npz(golden);
    ASSERT_EQ(npz.size(), 3u);
    EXPECT_EQ(npz["loss"].descr, "<f8");
    EXPECT_EQ(npz["loss"].shape, std::vector<int64_t>{});
    EXPECT_EQ(npz["spring.ke"].shape, std::vector<int64_t>{7});
    EXPECT_EQ(npz["particle_qd[3]"].shape, std::vector<int64_t>{3});

    r = weft(base);
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("golden " + golden + ": loss and gradients match (rtol 0.0001)"), std::string::npos) << r.out;

    // the golden moves: d loss / d particle_qd[3].y stored 10% larger
    double stored[3];
    std::memcpy(stored, npz["particle_qd[3]"].data.data(), sizeof stored);
    stored[1] *= 1.1;
    std::memcpy(npz["particle_qd[3]"].data.data(), stored, sizeof stored);
    weft::apps::write_npz(golden, npz);
    r = weft(base);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("golden: 1 value moved beyond rtol 0.0001:\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  particle_qd[3].y"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0.0909091\n"), std::string::npos) << "the relative change: " << r.out;
    EXPECT_NE(r.out.find("\nFAIL\n"), std::string::npos) << r.out;
    r = weft(base + " --golden-rtol 0.2");
    EXPECT_EQ(r.rc, 0) << "within a looser tolerance: " << r.out;

    r = weft(base + " --update");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("golden " + golden +
                         ": updated\n  changed: d loss / d particle_qd[3]: 1 of 3 entries (largest relative change 0.0909091)\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(weft(base).rc, 0);

    // a parameter the golden lacks; --update adds it and keeps the others
    r = weft(base + ",spring.kd");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("golden: the golden file has no gradient for 'spring.kd' (run with --update to add it)"),
              std::string::npos)
        << r.out;
    r = weft(chain + " --wrt spring.kd --update");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("  new: d loss / d spring.kd (7 entries)\n  kept: d loss / d particle_qd[3] (not checked in this run)\n"
                         "  kept: d loss / d spring.ke (not checked in this run)\n"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(weft(base + ",spring.kd").rc, 0);

    // a golden of another kind of file: float32 members, a loss of two values
    weft::apps::NpyArray f4;
    f4.descr = "<f4";
    f4.shape = {1};
    f4.data.resize(4);
    weft::apps::write_npz(golden, {{"spring.ke", f4}});
    r = weft(base);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(
        r.out.find("weft gradcheck: " + golden +
                   ": member 'spring.ke' must be a float64 scalar or vector (a golden gradient file), got <f4 (a golden file is "
                   "written by --update)"),
        std::string::npos)
        << r.out;
    weft::apps::NpyArray two = npz["spring.ke"];
    two.shape = {2};
    two.data.resize(16);
    weft::apps::write_npz(golden, {{"loss", two}});
    r = weft(base);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(": member 'loss' must hold one value (a golden file is written by --update)"), std::string::npos)
        << r.out;

    // not a golden file
    std::ofstream(golden, std::ios::trunc) << "not a zip";
    r = weft(base);
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("(a golden file is written by --update)"), std::string::npos) << r.out;
}

// [SECTION] causes of a bad gradient
TEST(Gradcheck, ScenePastItsStabilityLimit) {
    REQUIRE_CPU();
    CliRun r = weft(test_scene("unstable_spring") + " --loss 'final(particle_q[1].y)' --wrt spring.ke");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("loss final(particle_q[1].y) (not run), 8 steps"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("error: the explicit step is past its stability limit: spring 0 (particles 0, 1): sqrt(ke/m) dt = 6.59 >= 2 "
                   "(ke 1e+06 N/m, m 0.1 kg, dt 0.00208 s); raise substeps or lower the stiffness (docs/scene-format.md)\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\nFAIL\n"), std::string::npos) << r.out;
    EXPECT_EQ(weft(test_scene("unstable_spring") + " --loss 'final(particle_q[1].y)' --wrt spring.ke --steps 8 --device cpu").rc,
              1);
}

TEST(Gradcheck, FiniteDifferencesNotSmoothAtEps) {
    REQUIRE_CPU();
    CliRun r = weft(test_scene("kink") + " --loss 'max(particle_q.y)' --wrt 'particle_q[1].y' --fd-eps 0.003");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("<- fd not smooth"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find(
            "error: finite differences of particle_q[1].y are not smooth at eps (1 of 1 entries; particle_q[1].y: fd 0.333"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("at eps 0.003, 0.166"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("at eps/2): the adjoint is not judged; try another --fd-eps"), std::string::npos) << r.out;
    // a golden is not written from a check that failed
    TempDir dir;
    const std::string golden = (dir.path / "kink.npz").string();
    r = weft(test_scene("kink") + " --loss 'max(particle_q.y)' --wrt 'particle_q[1].y' --fd-eps 0.003 --golden " + golden +
             " --update");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("golden " + golden + ": not updated: the adjoint disagrees with finite differences\n"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(golden));
    // a step that stays on one side of the kink: the adjoint (0) is checked and right
    r = weft(test_scene("kink") + " --loss 'max(particle_q.y)' --wrt 'particle_q[1].y' --fd-eps 0.0005");
    EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(Gradcheck, LossThatIsNotFinite) {
    REQUIRE_CPU();
    CliRun r = weft(scene("spring_chain") + " --loss 'sum(particle_q.y) / final(particle_q[0].x)' --wrt spring.ke");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("error: the loss is not finite (inf) although the rollout is: the loss expression divides by zero?"),
              std::string::npos)
        << r.out;
}

TEST(Gradcheck, JsonReport) {
    REQUIRE_CPU();
    TempDir dir;
    const std::string golden = (dir.path / "g.npz").string();
    CliRun r = weft(scene("bounce") + " --loss 'mean(particle_q.y)' --wrt particle_qd --steps 8 --report json --golden " +
                    golden + " --update");
    ASSERT_EQ(r.rc, 0) << r.out;
    std::ofstream(dir.path / "report.json") << r.out;
    // Python's json module reads it back; the check prints the fields the test compares.
    std::string cmd =
        "/usr/bin/python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); p=d['params'][0]; "
        "print(d['passed'], d['steps'], d['loss_expr'], p['name'], p['entries_total'], len(p['entries']), "
        "p['entries'][1]['label'], round(p['entries'][1]['adjoint'], 6), d['golden']['updated'], d['causes'])\" " +
        (dir.path / "report.json").string();
    FILE* p = popen(cmd.c_str(), "r");
    char buf[512] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    // d mean(q.y) / d v0.y = n dt = 8 / 480
    EXPECT_EQ(std::string(buf, n), "True 8 mean(particle_q.y) particle_qd 3 3 particle_qd[0].y 0.016667 True []\n") << r.out;

    r = weft(test_scene("unstable_spring") + " --loss 'final(particle_q[1].y)' --wrt spring.ke --report json");
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.out.find("\"loss\": null"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"passed\": false"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"causes\": [\"the explicit step is past its stability limit: spring 0"), std::string::npos) << r.out;
}

// [SECTION] usage errors: exit 2 and a message naming the mistake
TEST(Gradcheck, UsageErrors) {
    const std::string chain = scene("spring_chain");
    const std::pair<std::string, std::string> cases[] = {
        {"", "weft gradcheck: expected one scene file, got 0"},
        {chain + " --wrt spring.ke", "weft gradcheck: --loss is required, for example --loss 'mean(particle_q.y)'"},
        {chain + " --loss 'mean(particle_q.y)'",
         "weft gradcheck: --wrt is required, for example --wrt spring_stiffness,particle_qd[0]"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --report xml",
         "weft gradcheck: --report must be 'text' or 'json', got 'xml'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --update",
         "weft gradcheck: --update needs --golden FILE.npz (the file to write)"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --fd-eps -1",
         "weft gradcheck: --fd-eps expects a positive number, got '-1'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --rtol x",
         "weft gradcheck: --rtol expects a positive number, got 'x'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --atol -1",
         "weft gradcheck: --atol expects a non-negative number, got '-1'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --golden-rtol 0",
         "weft gradcheck: --golden-rtol expects a positive number, got '0'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --steps 0",
         "weft gradcheck: --steps expects an integer from 1 to 10000000, got '0'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --samples 2.5",
         "weft gradcheck: --samples expects an integer from 1 to 1000000, got '2.5'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --stesp 3",
         "weft gradcheck: unknown option --stesp (did you mean --steps?)"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke, ",
         "weft gradcheck: --wrt has an empty parameter name in 'spring.ke,'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring.ke --device gpu",
         "weft gradcheck: invalid device 'gpu': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'"},
        {chain + " --loss 'mean(particle_q.y)' --wrt spring_stifness",
         "weft gradcheck: --wrt 'spring_stifness': unknown parameter 'spring_stifness' (did you mean 'spring_stiffness'?); "
         "parameters are "
         "Model arrays, initial-State arrays (particle_q, particle_qd) or scene keys such as spring.ke and cloth.tri_ke"},
        {chain + " --loss 'mean(particle_q.y)' --wrt cloth.tri_ke",
         "weft gradcheck: --wrt 'cloth.tri_ke': 'tri_materials' is empty in this scene (nothing of that kind was built)"},
        {chain + " --loss 'mean(particle_p.y)' --wrt spring.ke",
         "--loss:1:6: error: unknown State array 'particle_p' (particle_q, particle_qd)\n    mean(particle_p.y)\n         "
         "^~~~~~~~~~\n"
         "note: did you mean 'particle_q'?\n"},
        {chain + " --loss 'final(particle_q[8].y)' --wrt spring.ke",
         "--loss:1:7: error: particle index 8 is out of range (the model has 8 particles)\n    final(particle_q[8].y)\n          "
         "^~~~~~~~~~~~~~~\n"},
        {test_scene("missing") + " --loss 'mean(particle_q.y)' --wrt spring.ke", "cannot open"},
    };
    for (const auto& [args, message] : cases) {
        CliRun r = weft(args);
        EXPECT_EQ(r.rc, 2) << args << "\n" << r.out;
        EXPECT_NE(r.out.find(message), std::string::npos) << args << "\n" << r.out;
    }
    TempDir dir;
    std::ofstream(dir.path / "bad.toml") << "[simulation]\nsubsteps = 0\n";
    CliRun r = weft((dir.path / "bad.toml").string() + " --loss 'mean(particle_q.y)' --wrt spring.ke");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("bad.toml:2:12: 'substeps' must be >= 1, got 0"), std::string::npos) << r.out;
    r = weft("--help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.out.rfind("usage: weft gradcheck SCENE.toml --loss EXPR --wrt PARAM[,PARAM...]", 0), 0u) << r.out;
}

}  // namespace
