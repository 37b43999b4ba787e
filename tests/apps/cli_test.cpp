// The `weft` command line as a user runs it: outputs, exit codes and error messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>
#include <sys/wait.h>

namespace {

struct Result {
    int code;
    std::string out;
};

Result weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " " + args + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[1024];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    int status = f ? pclose(f) : -1;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kExample = std::string(WEFT_SOURCE_DIR) + "/examples/saxpy.py";

TEST(Cli, UsageErrorsExitWithTwoAndSayWhy) {
    Result r = weft("compil " + kExample);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft: unknown command 'compil' (did you mean 'compile'?)"), std::string::npos) << r.out;
    r = weft("compile " + kExample + " --emti ir");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft compile: unknown option --emti (did you mean --emit?)"), std::string::npos) << r.out;
    r = weft("compile " + kExample + " --emit llvm");
    EXPECT_NE(r.out.find("--emit takes ast, ir, cpp or ptx; got 'llvm'"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel saxpy --dim 4x4");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --dim '4x4'"), std::string::npos) << r.out;
    r = weft("compile /nonexistent/file.py");
    EXPECT_NE(r.out.find("cannot read '/nonexistent/file.py'"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel saxpi --dim 4");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("has no kernel 'saxpi'; did you mean 'saxpy'?"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel saxpy --dim 4 --device tpu");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("invalid device 'tpu'"), std::string::npos) << r.out;
}

TEST(Cli, CompileEmitsEachForm) {
    Result r = weft("compile " + kExample);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("3 kernel(s), 1 func(s), 0 struct(s): OK"), std::string::npos) << r.out;
    r = weft("compile " + kExample + " --emit ir --kernel saxpy");
    EXPECT_NE(r.out.find("kernel saxpy(x.0: array(float32), y.1: array(float32), a.2: float32) -> None:"), std::string::npos) << r.out;
    r = weft("compile " + kExample + " --emit cpp");
    EXPECT_NE(r.out.find("#line 15 \"" + kExample + "\""), std::string::npos);
    EXPECT_NE(r.out.find("extern \"C\" void saxpy_cpu_range("), std::string::npos);
}

TEST(Cli, CompileReportsDiagnosticsWithExitOne) {
    std::string bad = std::string(WEFT_SOURCE_DIR) + "/tests/apps/bad_module.py";
    Result r = weft("compile " + bad);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("bad_module.py:7:19: error: use of undeclared name 'veloctiy'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: did you mean 'velocity'?"), std::string::npos) << r.out;
}

// A kernel file that imports sibling kernel modules (`import geometry as geo`) compiles and
// audits from the command line as Python would import it: the siblings come along, and audit
// reports the named file's kernels only.
TEST(Cli, ImportedSiblingModulesComeAlong) {
    const std::string contact = std::string(WEFT_SOURCE_DIR) + "/kernels/contact.py";
    Result r = weft("compile " + contact);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(": OK"), std::string::npos) << r.out;
    r = weft("compile " + contact + " --emit ir --kernel eval_particle_terms");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("kernel eval_particle_terms("), std::string::npos) << r.out;
    r = weft("audit " + contact + " --dim 256 --format json");
    EXPECT_NE(r.out.find("\"eval_particle_terms\""), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\"build_grid\""), std::string::npos) << "hash_grid.py's kernels are not audited: " << r.out;
}

#if WEFT_TEST_HAS_NVRTC
TEST(Cli, EmitPtxNeedsNoGpu) {
    Result r = weft("compile " + kExample + " --emit ptx --arch h200");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_90"), std::string::npos);
    EXPECT_NE(r.out.find(".visible .entry saxpy_cuda("), std::string::npos);
    EXPECT_NE(r.out.find("griddepcontrol.wait;"), std::string::npos) << "sm_90 entries wait for prior grids (PDL)";
    EXPECT_NE(r.out.find(".file"), std::string::npos);
    EXPECT_NE(r.out.find("saxpy.py"), std::string::npos);
}

TEST(Cli, SimReportsCountsPerSourceLine) {
    Result r = weft("sim " + kExample + " --kernel block_sum --dim 128");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("kernel block_sum: grid 2 x block 64"), std::string::npos) << r.out;
    // the reduction's inner statement runs on a third of the lanes, and reads shared memory
    EXPECT_NE(r.out.find("s[t] = s[t] + s[t + stride]"), std::string::npos) << r.out;
    r = weft("sim " + kExample + " --kernel saxpy --dim 100 --report json");
    EXPECT_NE(r.out.find("\"kernel\": \"saxpy\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"global_loads\": 200"), std::string::npos) << r.out;
    r = weft("sim " + kExample + " --kernel saxpy --dim 8 --arch z80");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("unknown architecture 'z80' known: a100, h100, h200, rtx4090, v100"), std::string::npos) << r.out;
}

// --arch names an architecture file (gpusim/arch/*.json) in every command; compile takes the
// PTX target from it (a100: sm_80).
TEST(Cli, EmitPtxTargetsTheArchitectureFile) {
    Result r = weft("compile " + kExample + " --emit ptx --arch a100");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_80"), std::string::npos) << r.out.substr(0, 400);
    r = weft("compile " + kExample + " --emit ptx --arch " + std::string(WEFT_SOURCE_DIR) + "/gpusim/arch/rtx4090.json");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_89"), std::string::npos) << r.out.substr(0, 400);
}
#endif

// An unknown --arch is one message, with a did-you-mean and the list of files, in compile, audit
// and sim (sim only where the build has the simulator).
TEST(Cli, UnknownArchIsOneMessageInEveryCommand) {
    const std::string message =
        "--arch: unknown architecture 'h20'; did you mean 'h200'? known: a100, h100, h200, rtx4090, v100 (the files in gpusim/arch/), "
        "or the path of an architecture file (FILE.json)";
    std::vector<std::pair<std::string, std::string>> commands = {{"compile", kExample}, {"audit", kExample}};
#if WEFT_TEST_HAS_NVRTC
    commands.push_back({"sim", kExample + " --kernel saxpy --dim 8"});
#endif
    for (const auto& [command, rest] : commands) {
        Result r = weft(command + " " + rest + " --arch h20");
        EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
        EXPECT_NE(r.out.find("weft " + command + ": " + message), std::string::npos) << r.out;
    }
}

// --inputs FILE.npz: numpy's savez archives supply named inputs (vec3 arrays as (n, 3)).
TEST(Cli, LaunchReadsInputsFromNpz) {
    std::string dir = ::testing::TempDir();
    std::string py = "/usr/bin/python3 -c \"import numpy as np; "
                     "np.savez('" + dir + "/in.npz', points=np.array([[1,0,0],[0,0,2]], dtype=np.float32), angle=np.float32(3.14159265)); "
                     "np.savez_compressed('" + dir + "/zip.npz', points=np.zeros((2,3), np.float32)); "
                     "np.savez('" + dir + "/f64.npz', points=np.zeros((2,3)))\"";
    if (std::system(py.c_str()) != 0) GTEST_SKIP() << "numpy is not available to write the fixtures";
    Result r = weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/in.npz");
    EXPECT_EQ(r.code, 0) << r.out;
    // rotating by pi about y: (x, y, z) -> (-x, y, -z), times SCALE = 2
    EXPECT_NE(r.out.find("[-2, 0, 1.74846e-07], [-3.49691e-07, 0, -4]"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/zip.npz");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("member 'points.npy' is compressed; save with numpy.savez, not numpy.savez_compressed"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/f64.npz");
    EXPECT_NE(r.out.find("input 'points' has dtype <f8; parameter 'points' needs float32"), std::string::npos) << r.out;
    r = weft("launch " + kExample + " --kernel saxpy --dim 2 --inputs " + dir + "/in.npz");
    EXPECT_NE(r.out.find("input 'angle' in " + dir + "/in.npz matches no parameter of kernel 'saxpy' (x, y, a)"), std::string::npos) << r.out;
}

TEST(Cli, LaunchRunsTheDefaultExample) {
    Result r = weft("launch " + kExample + " --kernel saxpy --dim 16");
    EXPECT_EQ(r.code, 0) << r.out;
    // x[i] = 0.5 * (i % 17) - 2, y likewise, a = 1.5: y = 1.5 x + y = 2.5 x
    EXPECT_NE(r.out.find("-5, -3.75, -2.5, -1.25, 0, 1.25, 2.5, 3.75, ..."), std::string::npos) << r.out;
}

}  // namespace
