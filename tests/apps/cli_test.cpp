// apps/cli.cpp and weft_main.cpp: usage errors exit with 2 and say why, with a did-you-mean for
// commands and options; errors of the run itself exit with 1.
#include <gtest/gtest.h>

#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;
using Result = CliResult;

TEST(Cli, UsageErrorsExitWithTwoAndSayWhy) {
    Result r = run_weft("compil " + kExample);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft: unknown command 'compil' (did you mean 'compile'?)"), std::string::npos) << r.out;
    r = run_weft("compile " + kExample + " --emti ir");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft compile: unknown option --emti (did you mean --emit?)"), std::string::npos) << r.out;
    r = run_weft("compile " + kExample + " --emit llvm");
    EXPECT_NE(r.out.find("--emit takes ast, ir, cpp or ptx; got 'llvm'"), std::string::npos) << r.out;
    r = run_weft("launch " + kExample + " --kernel saxpy --dim 4x4");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --dim '4x4'"), std::string::npos) << r.out;
    r = run_weft("compile /nonexistent/file.py");
    EXPECT_NE(r.out.find("cannot read '/nonexistent/file.py'"), std::string::npos) << r.out;
    r = run_weft("launch " + kExample + " --kernel saxpi --dim 4");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("has no kernel 'saxpi'; did you mean 'saxpy'?"), std::string::npos) << r.out;
    r = run_weft("launch " + kExample + " --kernel saxpy --dim 4 --device tpu");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("invalid device 'tpu'"), std::string::npos) << r.out;
}

}  // namespace
