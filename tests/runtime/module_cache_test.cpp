// runtime/module_cache.cpp: a second process running the same module compiles nothing, and a
// damaged entry is noticed and rebuilt (through the weft binary, each run a process of its own);
// without HOME the cache is a folder of the user's own in /tmp (mode 0700), and a folder that
// others can write or that belongs to another user is refused with a warning (cache off).
#include <gtest/gtest.h>

#include <sys/stat.h>
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

std::string weft_saxpy(const std::string& env) {
    std::string cmd =
        env + " " + WEFT_BINARY + " launch " + WEFT_SOURCE_DIR + "/examples/saxpy.py --kernel saxpy --dim 16 --cache-stats 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[512];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    if (f) pclose(f);
    return out;
}

TEST(Launch, DiskCacheWithoutHomeIsTheUsersOwnFolder) {
    REQUIRE_CPU();
    std::string dir = "/tmp/weft-cache-" + std::to_string(::geteuid());
    bool existed = std::filesystem::exists(dir);
    std::string out = weft_saxpy("env -u HOME -u XDG_CACHE_HOME -u WEFT_CACHE_DIR");
    EXPECT_NE(out.find("y: array(float32"), std::string::npos) << out;
    EXPECT_EQ(out.find("warning"), std::string::npos) << out;
    struct stat st {};
    ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_uid, ::geteuid());
    if (!existed) EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_mode & 022, 0u);
}

TEST(Launch, DiskCacheRefusesAFolderOthersCanWrite) {
    REQUIRE_CPU();
    std::string dir = std::filesystem::temp_directory_path() / ("weft-cache-open-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    ::chmod(dir.c_str(), 0777);
    for (int run = 0; run < 2; ++run) {
        std::string out = weft_saxpy("WEFT_CACHE_DIR=" + dir);
        EXPECT_EQ(out.rfind("weft: warning: the module cache folder '" + dir +
                                "' can be written by other users (mode 0777); the disk cache is off in this process (modules "
                                "are compiled, not saved or loaded). Set WEFT_CACHE_DIR to a folder that only you can write.\n",
                            0),
                  0u)
            << out;
        EXPECT_NE(out.find("cache: 0 hit(s), 1 miss(es), 0 damaged"), std::string::npos) << out;  // nothing was stored
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    if (::geteuid() == 0) {  // a folder of another user (only root can make one here)
        ::chmod(dir.c_str(), 0700);
        ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
        std::string out = weft_saxpy("WEFT_CACHE_DIR=" + dir);
        EXPECT_NE(out.find("' belongs to another user (uid 65534; this process runs as uid 0); the disk cache is off"),
                  std::string::npos)
            << out;
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
