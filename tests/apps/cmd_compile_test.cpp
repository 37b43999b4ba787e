// apps/cmd_compile.cpp: `weft compile` emits each form (ast, ir, cpp, ptx), reports diagnostics
// with exit status 1, and brings along the sibling modules a kernel file imports.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;
using Result = CliResult;

TEST(Cli, CompileEmitsEachForm) {
    Result r = run_weft("compile " + kExample);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("3 kernel(s), 1 func(s), 0 struct(s): OK"), std::string::npos) << r.out;
    r = run_weft("compile " + kExample + " --emit ir --kernel saxpy");
    EXPECT_NE(r.out.find("kernel saxpy(x.0: array(float32), y.1: array(float32), a.2: float32) -> None:"), std::string::npos)
        << r.out;
    r = run_weft("compile " + kExample + " --emit cpp");
    EXPECT_NE(r.out.find("#line 15 \"" + kExample + "\""), std::string::npos);
    EXPECT_NE(r.out.find("extern \"C\" void saxpy_cpu_range("), std::string::npos);
}

// --part: the halves the cuda and sim devices compile (runtime/module.h); its errors name it.
TEST(Cli, CompilePartPrintsOneHalf) {
    Result r = run_weft("compile " + kExample + " --emit cpp --part forward");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("saxpy_cuda("), std::string::npos) << r.out.substr(0, 400);
    EXPECT_EQ(r.out.find("saxpy_cuda_backward("), std::string::npos);
    r = run_weft("compile " + kExample + " --emit cpp --part backward");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("saxpy_cuda_backward("), std::string::npos);
    EXPECT_EQ(r.out.find("saxpy_cuda(wp::launch_bounds_t"), std::string::npos);
    r = run_weft("compile " + kExample + " --emit cpp --part back");
    EXPECT_NE(r.out.find("--part takes all, forward or backward; got 'back'"), std::string::npos) << r.out;
    r = run_weft("compile " + kExample + " --part forward");
    EXPECT_NE(r.out.find("--part goes with --emit cpp or --emit ptx"), std::string::npos) << r.out;
}

TEST(Cli, CompileReportsDiagnosticsWithExitOne) {
    std::string bad = std::string(WEFT_SOURCE_DIR) + "/tests/apps/bad_module.py";
    Result r = run_weft("compile " + bad);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("bad_module.py:7:19: error: use of undeclared name 'veloctiy'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: did you mean 'velocity'?"), std::string::npos) << r.out;
}

// A kernel file that imports sibling kernel modules (`import geometry as geo`) compiles and
// audits from the command line as Python would import it: the siblings come along, and audit
// reports the named file's kernels only.
TEST(Cli, ImportedSiblingModulesComeAlong) {
    const std::string contact = std::string(WEFT_SOURCE_DIR) + "/kernels/contact.py";
    Result r = run_weft("compile " + contact);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(": OK"), std::string::npos) << r.out;
    r = run_weft("compile " + contact + " --emit ir --kernel eval_particle_terms");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("kernel eval_particle_terms("), std::string::npos) << r.out;
    r = run_weft("audit " + contact + " --dim 256 --format json");
    EXPECT_NE(r.out.find("\"eval_particle_terms\""), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\"build_grid\""), std::string::npos) << "hash_grid.py's kernels are not audited: " << r.out;
}

#if WEFT_TEST_HAS_NVRTC
TEST(Cli, EmitPtxNeedsNoGpu) {
    Result r = run_weft("compile " + kExample + " --emit ptx --arch h200");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_90"), std::string::npos);
    EXPECT_NE(r.out.find(".visible .entry saxpy_cuda("), std::string::npos);
    EXPECT_NE(r.out.find("griddepcontrol.wait;"), std::string::npos) << "sm_90 entries wait for prior grids (PDL)";
    EXPECT_NE(r.out.find(".file"), std::string::npos);
    EXPECT_NE(r.out.find("saxpy.py"), std::string::npos);
}

// --arch names an architecture file (gpusim/arch/*.json) in every command; compile takes the
// PTX target from it (a100: sm_80).
TEST(Cli, EmitPtxTargetsTheArchitectureFile) {
    Result r = run_weft("compile " + kExample + " --emit ptx --arch a100");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_80"), std::string::npos) << r.out.substr(0, 400);
    r = run_weft("compile " + kExample + " --emit ptx --arch " + std::string(WEFT_SOURCE_DIR) + "/gpusim/arch/rtx4090.json");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(".target sm_89"), std::string::npos) << r.out.substr(0, 400);
}
#endif

}  // namespace
