// runtime/cpu/crash_report.cpp: a release CPU launch whose kernel writes far out of range ends
// the process with exit code 70 and a line naming the kernel and suggesting WEFT_DEBUG=1
// (in a child process: `weft launch`); with --debug the same launch is a located error instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <sys/wait.h>

#include "tests/runtime/devices/kernel_test_util.h"

namespace {

struct Outcome {
    int code = -1;  // exit code, or 128 + signal
    std::string output;
};

Outcome weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " " + args + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    Outcome o;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) o.output.append(buf, n);
    int status = pclose(f);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return o;
}

TEST(CrashReport, AFaultingCpuKernelNamesItselfAndExits70) {
    REQUIRE_CPU();
    std::string py = ::testing::TempDir() + "/wild.py";
    std::ofstream(py) << "import weft as wp\n\n@wp.kernel\ndef wild(a: wp.array(dtype=float)):\n    i = wp.tid()\n"
                         "    a[i * 100000000] = 1.0\n";
    Outcome o = weft("launch " + py + " --kernel wild --dim 64");
    EXPECT_EQ(o.code, 70) << o.output;
    EXPECT_EQ(o.output,
              "weft: kernel 'wild' crashed on the cpu device (SIGSEGV, an invalid memory access) in a launch without bounds "
              "checks: most likely an array index out of range. Rerun with WEFT_DEBUG=1 (weft launch --debug; "
              "wp.config.mode = \"debug\" in Python) to find the access.\n");
    Outcome d = weft("launch " + py + " --kernel wild --dim 64 --debug");
    EXPECT_EQ(d.code, 1) << d.output;
    EXPECT_NE(d.output.find("wild.py:6): index 100000000 is out of range"), std::string::npos) << d.output;
}

}  // namespace
