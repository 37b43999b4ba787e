// apps/sim_report.cpp: `weft sim` reports counts per source line (text and JSON) and names the
// known architectures when given an unknown one. Needs NVRTC (PTX), not a GPU.
#include <gtest/gtest.h>

#include <string>

#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;
using Result = CliResult;

#if WEFT_TEST_HAS_NVRTC
TEST(Cli, SimReportsCountsPerSourceLine) {
    Result r = run_weft("sim " + kExample + " --kernel block_sum --dim 128");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("kernel block_sum: grid 2 x block 64"), std::string::npos) << r.out;
    // the reduction's inner statement runs on a third of the lanes, and reads shared memory
    EXPECT_NE(r.out.find("s[t] = s[t] + s[t + stride]"), std::string::npos) << r.out;
    r = run_weft("sim " + kExample + " --kernel saxpy --dim 100 --report json");
    EXPECT_NE(r.out.find("\"kernel\": \"saxpy\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"global_loads\": 200"), std::string::npos) << r.out;
    r = run_weft("sim " + kExample + " --kernel saxpy --dim 8 --arch z80");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("unknown architecture 'z80'; known: a100, h100, h200, rtx4090, v100"), std::string::npos) << r.out;
}
#endif

}  // namespace
