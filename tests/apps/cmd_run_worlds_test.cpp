// `weft run` of a scene with [worlds], alone and under mpirun (apps/cmd_run.cpp, apps/mpi_job.h):
// each world's folder DIR/world_NNNNN holds its topology and frames as documented; `mpirun -np 2`
// and `-np 4 --oversubscribe` write the same bytes as one process running every world, with one
// summary; a rank whose worlds diverge stops the job with "rank K: ..." and a nonzero exit, well
// within the time limit. The MPI tests skip when mpirun is absent or weft was built without MPI.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "apps/npz.h"
#include "runtime/device.h"

namespace {

namespace fs = std::filesystem;

std::string run(const std::string& cmd, int* rc) {
    std::string out;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

fs::path temp_dir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("weft_worlds_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// Six worlds of a three-particle chain whose springs stiffen from world to world; `last_y` is the
// height of the last world's end particle (3e38 makes its spring force overflow).
fs::path write_scene(const fs::path& dir, const std::string& last_y = "1.0") {
    fs::path p = dir / "chain.toml";
    std::ofstream(p) << "[simulation]\nfps = 60\nsubsteps = 4\nframes = 6\n[model]\nground = false\n"
                        "[[particle]]\npos = [0.0, 1.0, 0.0]\nmass = 0.0\n"
                        "[[particle]]\npos = [0.2, 1.0, 0.0]\nmass = 0.1\n"
                        "[[particle]]\npos = [0.4, 1.0, 0.0]\nmass = 0.1\n"
                        "[[spring]]\ni = 0\nj = 1\nke = 100.0\nkd = 0.1\n"
                        "[[spring]]\ni = 1\nj = 2\nke = 100.0\nkd = 0.1\n"
                        "[worlds]\ncount = 6\nspacing = [0.0, 0.0, 1.0]\n[worlds.vary]\n"
                        "\"spring.ke\" = [100.0, 150.0, 200.0, 250.0, 300.0, 400.0]\n"
                        "\"particle_q[2].y\" = [1.0, 1.0, 1.0, 1.0, 1.0, "
                     << last_y << "]\n";
    return p;
}

std::string file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string mpirun(int ranks) {
    return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 240 mpirun --oversubscribe -np " +
           std::to_string(ranks) + " ";
}

bool have_mpirun() {
    int rc = 0;
    run("command -v mpirun", &rc);
    return rc == 0;
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(RunWorlds, EachWorldGetsItsOwnFolder) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = temp_dir("one");
    int rc = 0;
    std::string out = run(std::string(WEFT_BIN) + " run " + write_scene(dir).string() + " --out " + (dir / "out").string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("chain: 6 worlds, 6 frames, 0.100 s simulated, 24 steps"), std::string::npos) << out;
    EXPECT_NE(out.find("18 particles on cpu"), std::string::npos) << out;
    for (int w = 0; w < 6; ++w) {
        char name[32];
        snprintf(name, sizeof name, "world_%05d", w);
        fs::path wd = dir / "out" / name;
        auto topo = weft::apps::read_npz((wd / "topology.npz").string());
        ASSERT_EQ(topo["spring_indices"].shape, (std::vector<int64_t>{2, 2})) << name;
        int32_t idx[4];
        std::memcpy(idx, topo["spring_indices"].data.data(), sizeof idx);
        EXPECT_EQ(idx[0], 0) << name << ": indices are the world's own";
        EXPECT_EQ(idx[3], 2) << name;
        for (int f = 0; f <= 6; ++f) {
            char frame[32];
            snprintf(frame, sizeof frame, "frame_%05d.npz", f);
            auto npz = weft::apps::read_npz((wd / frame).string());
            ASSERT_EQ(npz["particle_q"].shape, (std::vector<int64_t>{3, 3})) << name << "/" << frame;
            if (f == 0) {
                float q[9];
                std::memcpy(q, npz["particle_q"].data.data(), sizeof q);
                EXPECT_EQ(q[2], float(w)) << name << ": moved by w * spacing";
                EXPECT_EQ(q[3], 0.2f) << name;
            }
        }
    }
    EXPECT_FALSE(fs::exists(dir / "out" / "frame_00000.npz")) << "no frames outside the world folders";
    fs::remove_all(dir);
}

TEST(RunWorlds, MpiRanksWriteWhatOneProcessWrites) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin)";
    fs::path dir = temp_dir("mpi");
    const std::string scene = write_scene(dir).string();
    int rc = 0;
    std::string out = run(std::string(WEFT_BIN) + " run " + scene + " --quiet --out " + (dir / "one").string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    for (int ranks : {2, 4}) {
        const fs::path to = dir / ("ranks" + std::to_string(ranks));
        out = run(mpirun(ranks) + WEFT_BIN + " run " + scene + " --out " + to.string(), &rc);
        if (out.find("built without MPI") != std::string::npos) GTEST_SKIP() << "weft was built without MPI: " << out;
        ASSERT_EQ(rc, 0) << out;
        EXPECT_EQ(count_of(out, "chain: 6 worlds"), 1u) << "one summary, from rank 0:\n" << out;
        EXPECT_NE(out.find("18 particles on " + std::to_string(ranks) + " ranks (rank 0 on cpu)"), std::string::npos) << out;
        size_t files = 0;
        for (const auto& e : fs::recursive_directory_iterator(dir / "one")) {
            if (!e.is_regular_file()) continue;
            const fs::path rel = fs::relative(e.path(), dir / "one");
            ASSERT_TRUE(fs::exists(to / rel)) << rel << " missing with " << ranks << " ranks";
            EXPECT_EQ(file_bytes(to / rel), file_bytes(e.path())) << rel << " differs with " << ranks << " ranks";
            ++files;
        }
        EXPECT_EQ(files, 6u * 8u);  // topology and 7 frames per world
    }
    fs::remove_all(dir);
}

TEST(RunWorlds, AFailingRankStopsTheJobWithItsReason) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin)";
    fs::path dir = temp_dir("fail");
    int rc = 0;
    // World 5, on rank 1 of 2, diverges; rank 0's worlds are fine and wait in the summary's gather.
    std::string out = run(mpirun(2) + WEFT_BIN + " run " + write_scene(dir, "3e38").string() + " --quiet", &rc);
    if (out.find("built without MPI") != std::string::npos) GTEST_SKIP() << "weft was built without MPI: " << out;
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(rc, 124) << "the job hung until timeout killed it:\n" << out;
    EXPECT_NE(out.find("rank 1: error: frame 1"), std::string::npos) << out;
    EXPECT_NE(out.find("particle 7 is particle 1 of world 5"), std::string::npos) << out;
    EXPECT_EQ(out.find("rank 0: "), std::string::npos) << out;
    EXPECT_EQ(out.find("chain: 6 worlds"), std::string::npos) << "no summary from a failed job:\n" << out;
    // A scene that does not load fails on every rank with the loader's message.
    std::ofstream(dir / "bad.toml") << "[simulation]\n[[particle]]\npos = [0, 1, 0]\nmass = 1.0\n[worlds]\ncount = 1\n";
    out = run(mpirun(2) + WEFT_BIN + " run " + (dir / "bad.toml").string() + " --quiet", &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find(": the scene has 1 worlds, fewer than the 2 processes of this job"), std::string::npos) << out;
    EXPECT_NE(out.find("rank "), std::string::npos) << out;
    // Pictures are of one model: under mpirun they are refused on every rank.
    out = run(mpirun(2) + WEFT_BIN + " run " + write_scene(dir).string() + " --render " + (dir / "png").string(), &rc);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find(": weft run: --render and --video draw one model, not a job's worlds split across ranks; run "
                       "without mpirun to render"),
              std::string::npos)
        << out;
    EXPECT_FALSE(fs::exists(dir / "png"));
    fs::remove_all(dir);
}

}  // namespace
