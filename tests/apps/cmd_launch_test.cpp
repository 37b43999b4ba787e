// apps/cmd_launch.cpp: `weft launch` runs a kernel on generated inputs and prints its arrays.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;
using Result = CliResult;

TEST(Cli, LaunchRunsTheDefaultExample) {
    Result r = run_weft("launch " + kExample + " --kernel saxpy --dim 16");
    EXPECT_EQ(r.code, 0) << r.out;
    // x[i] = 0.5 * (i % 17) - 2, y likewise, a = 1.5: y = 1.5 x + y = 2.5 x
    EXPECT_NE(r.out.find("-5, -3.75, -2.5, -1.25, 0, 1.25, 2.5, 3.75, ..."), std::string::npos) << r.out;
}

}  // namespace
