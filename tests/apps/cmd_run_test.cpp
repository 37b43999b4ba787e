// `weft run` end to end: the bounce scene for 20 frames, its summary line, and the frames it
// writes (.npz read back and compared with the discrete free-fall answer, .ply vertex count);
// a bad scene exits 1 with the loader's located message.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "apps/npz.h"
#include "runtime/device.h"

namespace {

std::string run(const std::string& cmd, int* rc) {
    std::string out;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

TEST(RunCommand, BounceWritesFramesThatMatchFreeFall) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    auto dir = std::filesystem::temp_directory_path() / ("weft_run_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    int rc = 0;
    std::string out =
        run(std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR + "/scenes/bounce.toml --frames 20 --out " + dir.string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("[##############################] 20/20 frames"), std::string::npos) << out;
    EXPECT_NE(out.find("bounce: 20 frames, 0.333 s simulated, 160 steps"), std::string::npos) << out;
    auto npz = weft::apps::read_npz((dir / "frame_00020.npz").string());
    ASSERT_TRUE(npz.count("particle_q") && npz.count("particle_qd"));
    const auto& q = npz["particle_q"];
    ASSERT_EQ(q.descr, "<f4");
    ASSERT_EQ(q.shape, (std::vector<int64_t>{1, 3}));
    float x[3];
    std::memcpy(x, q.data.data(), sizeof x);
    // 160 steps of dt = 1/480 from y = 1 with v = (1, 0, 0), g = 9.81, before touching the ground
    const double dt = 1.0 / 480, n = 160;
    EXPECT_NEAR(x[1], 1.0 - 9.81 * dt * dt * n * (n + 1) / 2, 1e-4);
    EXPECT_NEAR(x[0], n * dt, 1e-5);
    std::ifstream ply(dir / "frame_00020.ply");
    std::string line, all;
    while (std::getline(ply, line)) all += line + "\n";
    EXPECT_EQ(all.rfind("ply\nformat ascii 1.0\nelement vertex 1\n", 0), 0u) << all;
    for (const auto& e : std::filesystem::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".tmp");
    std::filesystem::remove_all(dir);
}

TEST(RunCommand, BadSceneAndBadOptions) {
    auto bad = std::filesystem::temp_directory_path() / ("weft_bad_" + std::to_string(getpid()) + ".toml");
    std::ofstream(bad) << "[simulation]\nfrmes = 3\n";
    int rc = 0;
    std::string out = run(std::string(WEFT_BIN) + " run " + bad.string(), &rc);
    EXPECT_EQ(rc, 1);
    EXPECT_NE(out.find(bad.string() + ":2:1: unknown key 'frmes' (did you mean 'frames'?)"), std::string::npos) << out;
    out = run(std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR + "/scenes/bounce.toml --frames ten", &rc);
    EXPECT_EQ(rc, 2);
    EXPECT_NE(out.find("--frames expects an integer from 0 to 100000000, got 'ten'"), std::string::npos) << out;
    // 2^31 frames once wrapped to a negative count that ran nothing and exited 0
    for (const char* n : {"2147483648", "-1", "100000001"}) {
        out = run(std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR + "/scenes/bounce.toml --frames " + n, &rc);
        EXPECT_EQ(rc, 2) << n;
        EXPECT_NE(out.find("--frames expects an integer from 0 to 100000000, got '" + std::string(n) + "'"), std::string::npos)
            << out;
    }
    std::filesystem::remove(bad);
}

}  // namespace
