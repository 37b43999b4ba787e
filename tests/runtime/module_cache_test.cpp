// runtime/module_cache.cpp: a second process running the same module compiles nothing, and a
// damaged entry is noticed and rebuilt (through the weft binary, each run a process of its own).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "runtime/module_cache.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

// A second process running the same module compiles nothing; a damaged entry is rebuilt.
TEST(Launch, DiskCacheAcrossProcessesAndDamage) {
    REQUIRE_CPU();
    std::string dir = std::filesystem::temp_directory_path() / ("weft-cache-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto run_child = [&]() -> std::string {
        std::string cmd = "WEFT_CACHE_DIR=" + dir + " " + WEFT_BINARY + " launch " + WEFT_SOURCE_DIR +
                          "/examples/saxpy.py --kernel saxpy --dim 16 --cache-stats 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        std::string out;
        char buf[512];
        while (f && fgets(buf, sizeof buf, f)) out += buf;
        if (f) pclose(f);
        return out;
    };
    std::string first = run_child();
    EXPECT_NE(first.find("cache: 0 hit(s), 1 miss(es), 0 damaged"), std::string::npos) << first;
    std::string second = run_child();
    EXPECT_NE(second.find("cache: 1 hit(s), 0 miss(es), 0 damaged"), std::string::npos) << second;
    // Damage the entry: flip bytes in the payload.
    for (auto& e : std::filesystem::directory_iterator(dir)) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(200);
        f.write("garbage!", 8);
    }
    std::string third = run_child();
    EXPECT_NE(third.find("cache: 0 hit(s), 1 miss(es), 1 damaged"), std::string::npos) << third;
    EXPECT_NE(third.find("y: array(float32"), std::string::npos) << third;  // and the kernel still ran
    std::string fourth = run_child();
    EXPECT_NE(fourth.find("cache: 1 hit(s), 0 miss(es), 0 damaged"), std::string::npos) << fourth;
    std::filesystem::remove_all(dir);
}

}  // namespace
