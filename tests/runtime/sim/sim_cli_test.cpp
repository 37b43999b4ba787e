// tests/runtime/sim/sim_cli_test.cpp: `weft sim` on the sim:ARCH device: JSON report fields, the
// text report, JSONL trace filters, the Chrome trace, and the messages for bad --arch / filter
// arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include "gpusim/arch/json_reader.h"
#include "runtime/device.h"
#include "tests/runtime/sim/sim_test_util.h"

namespace weft {
namespace {

TEST(SimCli, JsonReportCarriesPerLineTiming) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    Cmd r = weft("sim " + kKernels + " --kernel column_store --dim 256 --report json");
    ASSERT_EQ(r.code, 0) << r.out;
    const gpusim::JsonValue j = gpusim::parse_json(r.out, "weft sim --report json");
    const gpusim::JsonValue* timing = j.find("timing");
    ASSERT_NE(timing, nullptr);
    for (const char* k : {"cycles", "time_us", "ipc", "sass_instructions", "achieved_occupancy", "occupancy", "total"})
        EXPECT_NE(timing->find(k), nullptr) << k;
    if (std::ifstream("/usr/local/cuda/bin/ptxas")) {
        // 8 one-warp blocks of the same straight-line code: the same SASS count per warp.
        const double sass = timing->find("sass_instructions")->number;
        EXPECT_GT(sass, 0);
        EXPECT_EQ(std::fmod(sass, 8.0), 0.0) << sass;
    }
    const gpusim::JsonValue* lines = j.find("lines");
    ASSERT_NE(lines, nullptr);
    bool saw10 = false;
    for (const gpusim::JsonValue& l : lines->array) {
        const gpusim::JsonValue* t = l.find("timing");
        ASSERT_NE(t, nullptr);
        for (const char* k : {"cycles", "stalls", "shared_requests", "shared_wavefronts", "shared_excess_wavefronts",
                              "global_sectors", "sectors_per_request", "l1_hit_rate", "l2_hit_rate"})
            ASSERT_NE(t->find(k), nullptr) << k;
        ASSERT_EQ(t->find("stalls")->find("long_scoreboard")->kind, gpusim::JsonValue::Kind::Number);
        if (l.find("line")->number == 10 && l.find("file")->string.find("bank_conflict.py") != std::string::npos) {
            saw10 = true;
            EXPECT_EQ(t->find("shared_requests")->number, 8);
            EXPECT_EQ(t->find("shared_wavefronts")->number, 256);
            EXPECT_EQ(t->find("shared_excess_wavefronts")->number, 248);
            EXPECT_EQ(t->find("global_sectors")->number, 32);
            EXPECT_GT(t->find("cycles")->number, 0);
        }
    }
    EXPECT_TRUE(saw10) << r.out;
}

TEST(SimCli, TextReportShowsCyclesAndConflicts) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    Cmd r = weft("sim " + kKernels + " --kernel column_store --dim 256");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("kernel column_store: grid 8 x block 32 on sim:h200"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("shared: 40 requests, 536 wavefronts (496 excess from bank conflicts)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("IPC"), std::string::npos);
    // The launch's SASS instruction estimate beside the PTX count (8 one-warp blocks).
    EXPECT_NE(r.out.find("warp instructions "), std::string::npos) << r.out;
    if (std::ifstream("/usr/local/cuda/bin/ptxas"))
        EXPECT_NE(r.out.find(" SASS, thread instructions "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("long_scoreboard"), std::string::npos);
}

TEST(SimCli, TraceFiltersAndChromeTrace) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const std::string dir = ::testing::TempDir();
    Cmd r = weft("sim " + kKernels + " --kernel column_store --dim 256 --trace-jsonl " + dir +
                 "/t.jsonl --trace-opcode ld.shared --chrome-trace " + dir + "/c.json");
    ASSERT_EQ(r.code, 0) << r.out;
    // 8 blocks x 3 shared loads (lines 12, 14, 14).
    std::istringstream in(read_file(dir + "/t.jsonl"));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        const gpusim::JsonValue v = gpusim::parse_json(line, "trace");
        EXPECT_EQ(v.find("text")->string.rfind("ld.shared", 0), 0u) << line;
        ++n;
    }
    EXPECT_EQ(n, 24);
    r = weft("sim " + kKernels + " --kernel column_store --dim 256 --trace-jsonl " + dir +
             "/t2.jsonl --trace-sm 3 --trace-line 14 --trace-cycles 10:");
    ASSERT_EQ(r.code, 0) << r.out;
    in = std::istringstream(read_file(dir + "/t2.jsonl"));
    n = 0;
    while (std::getline(in, line)) {
        const gpusim::JsonValue v = gpusim::parse_json(line, "trace");
        EXPECT_EQ(v.find("sm")->number, 3);
        EXPECT_EQ(v.find("line")->number, 14);
        EXPECT_GE(v.find("cycle")->number, 10);
        ++n;
    }
    EXPECT_GT(n, 0);
    // Chrome trace: SM processes, a block and a warp event per block (8 blocks on 8 SMs).
    const gpusim::JsonValue c = gpusim::parse_json(read_file(dir + "/c.json"), "chrome trace");
    int processes = 0, blocks = 0, warps = 0;
    for (const gpusim::JsonValue& e : c.find("traceEvents")->array) {
        const std::string name = e.find("name")->string, ph = e.find("ph")->string;
        if (ph == "M" && name == "process_name") ++processes;
        if (ph == "X" && e.find("cat")->string == "block") ++blocks;
        if (ph == "X" && e.find("cat")->string == "warp") {
            ++warps;
            EXPECT_GE(e.find("dur")->number, 0);
        }
    }
    EXPECT_EQ(processes, 8);
    EXPECT_EQ(blocks, 8);
    EXPECT_EQ(warps, 8);
}

TEST(SimCli, BadArgumentsAreNamed) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const std::string base = "sim " + kKernels + " --kernel column_store --dim 32 ";
    // Usage errors exit with 2; an architecture file that cannot be read is a runtime error (1).
    struct Case {
        std::string args, message;
        int code = 2;
    } cases[] = {
        {"--arch z80",
         "--arch: unknown architecture 'z80'; known: a100, h100, h200, rtx4090, v100 (the files in gpusim/arch/), or the path of "
         "an architecture file (FILE.json)"},
        {"--arch /nonexistent/x.json", "/nonexistent/x.json", 1},
        {"--scheduler fifo", "--scheduler: unknown warp scheduler 'fifo'"},
        {"--threads 0", "--threads takes an integer >= 1; got '0'"},
        {"--threads two", "--threads takes an integer >= 1; got 'two'"},
        {"--trace-jsonl /tmp/x.jsonl --trace-opcode lod", "--trace-opcode: trace filter: opcode 'lod' is not a PTX instruction"},
        {"--trace-jsonl /tmp/x.jsonl --trace-sm -2", "--trace-sm takes an integer >= 0; got '-2'"},
        {"--trace-jsonl /tmp/x.jsonl --trace-warp w", "--trace-warp takes an integer >= 0; got 'w'"},
        {"--trace-jsonl /tmp/x.jsonl --trace-line 0", "--trace-line takes an integer >= 1; got '0'"},
        {"--trace-jsonl /tmp/x.jsonl --trace-cycles 100",
         "--trace-cycles takes FIRST:LAST cycles (either may be left out); got '100'"},
        {"--trace-jsonl /tmp/x.jsonl --trace-cycles 9:3", "the cycle window 9..3 is empty"},
        {"--trace-opcode ld", "the --trace-* filters need --trace-jsonl FILE"},
        {"--trace-jsonl /nonexistent/dir/t.jsonl", "--trace-jsonl: cannot write '/nonexistent/dir/t.jsonl'"},
    };
    for (const Case& c : cases) {
        Cmd r = weft(base + c.args);
        EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.out;
        EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    }
}

}  // namespace
}  // namespace weft
