// `weft run` end to end: the bounce scene for 20 frames, its summary line, and the frames it
// writes (.npz read back and compared with the discrete free-fall answer, .ply vertex count;
// frame 0 is the initial state); topology.npz and the .ply faces against the model the scene
// builds; a bad scene exits 1 with the loader's located message. Hostile conditions, each run as a
// subprocess: SIGINT / SIGTERM mid-run, a symlink planted in the output folder, two runs writing
// one folder, a file-size limit and a full file system, a diverging scene.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "apps/npz.h"
#include "engine/scene.h"
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
    EXPECT_EQ(all.find("element face"), std::string::npos) << "a lone particle has no surface";
    // Frame 0 is the scene's initial state, before any step: y = 1 m, v = (1, 0, 0) m/s.
    auto first = weft::apps::read_npz((dir / "frame_00000.npz").string());
    float x0[3], v0[3];
    std::memcpy(x0, first["particle_q"].data.data(), sizeof x0);
    std::memcpy(v0, first["particle_qd"].data.data(), sizeof v0);
    EXPECT_EQ(std::vector<float>(x0, x0 + 3), (std::vector<float>{0, 1, 0}));
    EXPECT_EQ(std::vector<float>(v0, v0 + 3), (std::vector<float>{1, 0, 0}));
    auto topology = weft::apps::read_npz((dir / "topology.npz").string());
    EXPECT_EQ(topology["particle_radius"].shape, (std::vector<int64_t>{1}));
    EXPECT_EQ(topology["tri_indices"].shape, (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(topology["tet_indices"].shape, (std::vector<int64_t>{0, 4}));
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

namespace fs = std::filesystem;

const std::string kBin = WEFT_BIN;
const std::string kScenes = std::string(WEFT_SOURCE_DIR) + "/scenes/";

fs::path fresh_dir(const std::string& tag) {
    fs::path d = fs::temp_directory_path() / ("weft_run_" + tag + "_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// Names in `dir` that are weft temporaries (frame_N.npz.tmp.XXXXXX).
std::vector<std::string> temporaries(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
    return out;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Starts `weft ARGS...` with stdout and stderr in `log`; returns its pid.
pid_t spawn_weft(const std::vector<std::string>& args, const fs::path& log) {
    std::vector<std::string> all = {kBin};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, kBin.c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

int exit_code(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

// Ctrl-C and SIGTERM end the run with 130 / 143 and leave only whole frames: a signal that lands
// while a frame is written waits until its temporary is renamed (it once left frame_N.npz.tmp).
TEST(RunCommand, SignalsLeaveNoTemporaries) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    int round = 0;
    for (int sig : {SIGINT, SIGTERM, SIGINT, SIGTERM, SIGINT}) {
        fs::path dir = fresh_dir("signal"), log = dir.string() + ".log";
        pid_t pid =
            spawn_weft({"run", kScenes + "cloth_benchmark.toml", "--frames", "100000", "--quiet", "--out", dir.string()}, log);
        auto start = std::chrono::steady_clock::now();
        while (!fs::exists(dir / "frame_00002.npz") && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::microseconds(3000 * round++));  // land at different points of a frame
        kill(pid, sig);
        int rc = exit_code(pid);
        EXPECT_EQ(rc, 128 + sig) << slurp(log);
        EXPECT_NE(
            slurp(log).find(sig == SIGINT ? "weft run: interrupted (SIGINT); finished files are complete, no temporary is left"
                                          : "weft run: terminated (SIGTERM)"),
            std::string::npos)
            << slurp(log);
        EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
        for (const auto& e : fs::directory_iterator(dir)) {  // every frame left is whole
            if (e.path().filename() == "topology.npz") continue;
            auto npz = weft::apps::read_npz(e.path().string());
            EXPECT_EQ(npz["particle_q"].shape, (std::vector<int64_t>{4096, 3})) << e.path();
        }
        fs::remove_all(dir);
        fs::remove(log);
    }
}

// A symlink planted under a temporary's or a frame's name in the output folder: the file it
// points to stays untouched (a planted frame_00001.npz.tmp once made weft overwrite its target).
TEST(RunCommand, PlantedSymlinksAreNotFollowed) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("symlink"), victim = dir.string() + ".victim";
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, dir / "frame_00001.npz.tmp");
    fs::create_symlink(victim, dir / "frame_00002.npz");
    fs::create_symlink(victim, dir / "frame_00003.ply.tmp");
    int rc = 0;
    std::string out = run(kBin + " run " + kScenes + "bounce.toml --frames 3 --quiet --out " + dir.string(), &rc);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_FALSE(fs::is_symlink(dir / "frame_00002.npz"));  // replaced by the frame, not written through
    for (int f = 1; f <= 3; ++f) {
        char name[32];
        snprintf(name, sizeof name, "frame_%05d.npz", f);
        EXPECT_EQ(weft::apps::read_npz((dir / name).string())["particle_q"].shape, (std::vector<int64_t>{1, 3}));
    }
    EXPECT_TRUE(fs::is_symlink(dir / "frame_00001.npz.tmp"));  // not ours: left as it was
    EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
    fs::remove_all(dir);
    fs::remove(victim);
}

// Two runs writing one folder never share a temporary (they once failed with "cannot rename ...tmp").
TEST(RunCommand, ConcurrentRunsIntoOneFolder) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("concurrent");
    std::vector<pid_t> pids;
    for (int k = 0; k < 3; ++k)
        pids.push_back(spawn_weft({"run", kScenes + "cloth_benchmark.toml", "--frames", "30", "--quiet", "--out", dir.string()},
                                  dir.string() + "." + std::to_string(k) + ".log"));
    for (size_t k = 0; k < pids.size(); ++k)
        EXPECT_EQ(exit_code(pids[k]), 0) << slurp(dir.string() + "." + std::to_string(k) + ".log");
    EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
    auto npz = weft::apps::read_npz((dir / "frame_00030.npz").string());
    EXPECT_EQ(npz["particle_qd"].shape, (std::vector<int64_t>{4096, 3}));
    for (int k = 0; k < 3; ++k) fs::remove(dir.string() + "." + std::to_string(k) + ".log");
    fs::remove_all(dir);
}

// A file that does not fit (RLIMIT_FSIZE: EFBIG; a full file system: ENOSPC) is an error naming
// the file and the reason, exit 1, and its partial temporary is removed. The first file written
// is topology.npz (221 KiB, most of it the cloth's springs), then frame 0 (96 KiB).
TEST(RunCommand, FullDiskAndFileSizeLimitRemoveThePartialFrame) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("fsize");
    int rc = 0;
    // 16 KiB or less (dash counts 512-byte blocks): a 4096-particle frame is 98 KiB
    std::string out = run("sh -c 'ulimit -f 32; exec " + kBin + " run " + kScenes +
                              "cloth_benchmark.toml --frames 2 --quiet --out " + dir.string() + "'",
                          &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(
        out.find("cannot write " + (dir / "topology.npz").string() + ": write: File too large (the partial file was removed)"),
        std::string::npos)
        << out;
    EXPECT_EQ(temporaries(dir), std::vector<std::string>{});
    fs::remove_all(dir);
}

TEST(RunCommand, FullFileSystem) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("enospc");
    // A 64 KiB tmpfs in a private mount namespace (needs user namespaces or root).
    int rc = 0;
    run("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs " + dir.string() + "'", &rc);
    if (rc != 0) GTEST_SKIP() << "cannot mount a small tmpfs here (no user namespaces)";
    std::string out =
        run("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs " + dir.string() + " && " + kBin + " run " + kScenes +
                "cloth_benchmark.toml --frames 2 --quiet --out " + dir.string() + "; echo rc=$?; ls -a " + dir.string() + "'",
            &rc);
    EXPECT_NE(out.find("cannot write " + (dir / "topology.npz").string() +
                       ": write: No space left on device (the partial file was removed)"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("rc=1\n.\n..\n"), std::string::npos) << out;  // nothing left in the full folder
    fs::remove_all(dir);
}

// Physics that diverges: the run stops at the first non-finite frame and names the launch and the
// scene key behind it (it once wrote NaN frames to the end and said one line); a stiffness that
// only overflows |v|^2 no longer freezes the particle.
TEST(RunCommand, DivergenceStopsAtTheFirstNonFiniteFrame) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("diverge"), scene = dir.string() + ".toml";
    auto write_scene = [&](const std::string& ke) {
        std::ofstream(scene) << "[simulation]\nfps = 10\nsubsteps = 1\nframes = 5\n[[particle]]\npos = [0.0, 1.0, 0.0]\n"
                                "mass = 1.0\n[[particle]]\npos = [0.5, 1.0, 0.0]\nmass = 1.0\n[[spring]]\ni = 0\nj = 1\nke = "
                             << ke << "\nrest_length = 0.2\n";
    };
    write_scene("1e38");
    int rc = 0;
    std::string out = run(kBin + " run " + scene.string() + " --quiet --out " + dir.string(), &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find(scene.string() + ":14:6: warning: [[spring]] 'ke' = 1e+38 exceeds the explicit scheme's stability limit"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("error: frame 2: particle_q of particle 0 is not finite (-inf): the simulation diverged\n"
                       "  substep 1 of frame 2: launch of kernel 'accumulate_forces_with_springs' left a non-finite value (-inf) "
                       "in argument 'particle_f' at scalar 0\n"
                       "  fed by " +
                       scene.string() +
                       ":14:6: [[spring]] 'ke' = 1e+38 (sqrt(k/m) dt = 1e+18 with m = 1 kg; the "
                       "explicit scheme needs it well below 2)\n"),
              std::string::npos)
        << out;
    EXPECT_TRUE(fs::exists(dir / "frame_00001.npz"));
    EXPECT_FALSE(fs::exists(dir / "frame_00002.npz"));
    // WEFT_VERIFY_FINITE=1 stops at the launch itself, and names the scene key too
    out = run("WEFT_VERIFY_FINITE=1 " + kBin + " run " + scene.string() + " --quiet", &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("frame 2: launch of kernel 'accumulate_forces_with_springs' left a non-finite value (-inf) in argument "
                       "'particle_f' at scalar 0\n  fed by " +
                       scene.string() + ":14:6: [[spring]] 'ke' = 1e+38"),
              std::string::npos)
        << out;
    // --allow-nonfinite writes every frame and still fails at the end
    fs::remove_all(dir);
    out = run(kBin + " run " + scene.string() + " --quiet --allow-nonfinite --out " + dir.string(), &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_TRUE(fs::exists(dir / "frame_00005.npz"));
    EXPECT_NE(out.find("error: the simulation diverged (non-finite positions)"), std::string::npos) << out;
    // 1e30 at dt 0.1: |v|^2 overflows float32; the clamp keeps |v| = max_velocity (it once froze the particle)
    fs::remove_all(dir);
    write_scene("1e30");
    out = run(kBin + " run " + scene.string() + " --quiet --out " + dir.string(), &rc);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find(":14:6: warning: [[spring]] 'ke' = 1e+30 exceeds"), std::string::npos) << out;
    auto qd = weft::apps::read_npz((dir / "frame_00001.npz").string())["particle_qd"];
    float v[6];
    std::memcpy(v, qd.data.data(), sizeof v);
    EXPECT_NEAR(std::hypot(v[0], v[1], v[2]), 1e5, 1.0);
    // a float the engine cannot hold is a located error before anything runs
    write_scene("1e40");
    out = run(kBin + " run " + scene.string() + " --quiet", &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find(scene.string() + ":14:6: 'ke' = 1e+40 is outside the float32 range the engine computes in"),
              std::string::npos)
        << out;
    fs::remove_all(dir);
    fs::remove(scene);
}

TEST(RunCommand, DirectoryAsSceneAndSceneTooLargeForMemory) {
    int rc = 0;
    std::string out = run(kBin + " run " + kScenes, &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find(": is a directory; give a scene file (.toml)"), std::string::npos) << out;
    fs::path scene = fs::temp_directory_path() / ("weft_big_" + std::to_string(getpid()) + ".toml");
    std::ofstream(scene) << "[simulation]\n[[particle_block]]\npos = [0, 0, 0]\ndim = [1000, 1000, 1000]\nspacing = 0.01\n"
                            "mass = 1\n[[soft_body]]\ndim = [1000, 1000, 1000]\n";
    out = run(kBin + " run " + scene.string(), &rc);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("'dim' makes the scene too large for memory: about "), std::string::npos) << out;
    fs::remove(scene);
}

// A .ply file as a reader of the format sees it: the header's elements and properties, then the
// vertex rows and the face lists.
struct Ply {
    std::vector<std::string> header;
    std::vector<std::array<double, 3>> vertices;
    std::vector<std::array<int32_t, 3>> faces;
};

Ply read_ply(const fs::path& path) {
    std::ifstream in(path);
    Ply ply;
    std::string line;
    size_t nv = 0, nf = 0;
    while (std::getline(in, line) && line != "end_header") {
        ply.header.push_back(line);
        if (line.rfind("element vertex ", 0) == 0) nv = std::stoul(line.substr(15));
        if (line.rfind("element face ", 0) == 0) nf = std::stoul(line.substr(13));
    }
    ply.vertices.resize(nv);
    for (auto& v : ply.vertices) in >> v[0] >> v[1] >> v[2];
    for (size_t i = 0; i < nf; ++i) {
        int count = 0;
        std::array<int32_t, 3> f{};
        in >> count >> f[0] >> f[1] >> f[2];
        EXPECT_EQ(count, 3);
        ply.faces.push_back(f);
    }
    std::string rest;
    EXPECT_FALSE(in >> rest) << "trailing data: " << rest;
    return ply;
}

template <size_t N>
std::vector<std::array<int32_t, N>> npz_rows(const weft::apps::NpyArray& a) {
    EXPECT_EQ(a.descr, "<i4");
    EXPECT_EQ(a.shape.size(), 2u);
    EXPECT_EQ(a.shape[1], int64_t(N));
    std::vector<std::array<int32_t, N>> rows(size_t(a.shape[0]));
    std::memcpy(rows.data(), a.data.data(), a.data.size());
    return rows;
}

// A shipped scene with .ply output as well, under a fresh name.
fs::path with_ply(const std::string& scene, const fs::path& dir) {
    std::string text = slurp(kScenes + scene);
    text.replace(text.find("[output]"), 8, "[output]\nformats = [\"npz\", \"ply\"]");
    fs::path copy = dir.string() + ".toml";
    std::ofstream(copy) << text;
    return copy;
}

// The cloth's .ply faces are the model's triangles, in order; topology.npz holds its triangles,
// bending edges and springs as the scene's builder made them, once for the whole run.
TEST(RunCommand, PlyFacesAndTopologyOfACloth) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("ply_cloth"), scene = with_ply("cloth_drape.toml", dir);
    int rc = 0;
    std::string out = run(kBin + " run " + scene.string() + " --frames 4 --quiet --out " + dir.string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    weft::engine::Scene ref = weft::engine::load_scene(scene.string());
    const auto& b = ref.builder;
    ASSERT_EQ(b.tri_indices.size(), 32u * 32 * 2);
    for (int f : {0, 4}) {  // every = 4: frames 0 and 4
        char name[32];
        snprintf(name, sizeof name, "frame_%05d.ply", f);
        Ply ply = read_ply(dir / name);
        EXPECT_EQ(ply.header, (std::vector<std::string>{"ply", "format ascii 1.0", "element vertex 1089", "property float x",
                                                        "property float y", "property float z", "element face 2048",
                                                        "property list uchar int vertex_indices"}));
        ASSERT_EQ(ply.faces.size(), b.tri_indices.size());
        for (size_t i = 0; i < ply.faces.size(); ++i)
            for (size_t k = 0; k < 3; ++k) ASSERT_EQ(ply.faces[i][k], b.tri_indices[i][k]) << i;
        if (f == 0)
            for (size_t i = 0; i < ply.vertices.size(); ++i)  // frame 0: the builder's positions, exactly
                for (int k = 0; k < 3; ++k) ASSERT_EQ(float(ply.vertices[i][size_t(k)]), b.particle_q[i][k]) << i;
    }
    EXPECT_FALSE(fs::exists(dir / "frame_00001.ply"));
    auto topology = weft::apps::read_npz((dir / "topology.npz").string());
    auto tris = npz_rows<3>(topology["tri_indices"]);
    auto edges = npz_rows<4>(topology["edge_indices"]);
    ASSERT_EQ(tris.size(), b.tri_indices.size());
    for (size_t i = 0; i < tris.size(); ++i)
        for (size_t k = 0; k < 3; ++k) EXPECT_EQ(tris[i][k], b.tri_indices[i][k]);
    ASSERT_EQ(edges.size(), b.edge_indices.size());
    for (size_t i = 0; i < edges.size(); ++i)
        for (size_t k = 0; k < 4; ++k) EXPECT_EQ(edges[i][k], b.edge_indices[i][k]);
    EXPECT_EQ(npz_rows<2>(topology["spring_indices"]).size(), b.spring_indices.size() / 2);
    EXPECT_EQ(npz_rows<3>(topology["tet_surface_indices"]).size(), 0u);
    EXPECT_EQ(topology["particle_mass"].shape, (std::vector<int64_t>{1089}));
    fs::remove_all(dir);
    fs::remove(scene);
}

// The soft body's .ply faces are its skin: 4 (ab + bc + ca) triangles of a 6 x 3 x 3 block, each
// on a face of the block, wound outward (the volume they enclose at frame 0 is the block's).
TEST(RunCommand, PlyFacesOfASoftBodyAreItsSurface) {
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    fs::path dir = fresh_dir("ply_soft"), scene = with_ply("soft_body_drop.toml", dir);
    int rc = 0;
    std::string out = run(kBin + " run " + scene.string() + " --frames 2 --quiet --out " + dir.string(), &rc);
    ASSERT_EQ(rc, 0) << out;
    weft::engine::Scene ref = weft::engine::load_scene(scene.string());
    Ply ply = read_ply(dir / "frame_00000.ply");
    ASSERT_EQ(ply.vertices.size(), 7u * 4 * 4);
    ASSERT_EQ(ply.faces.size(), size_t(4 * (6 * 3 + 3 * 3 + 3 * 6)));
    EXPECT_EQ(read_ply(dir / "frame_00002.ply").faces, ply.faces);
    double volume = 0;
    for (const auto& f : ply.faces) {
        bool on_face = false;  // the three vertices share a grid coordinate at 0 or at the block's size
        for (int axis = 0; axis < 3; ++axis) {
            auto coord = [&](int32_t i) { return axis == 0 ? i % 7 : axis == 1 ? (i / 7) % 4 : i / 28; };
            for (int side : {0, axis == 0 ? 6 : 3}) on_face |= coord(f[0]) == side && coord(f[1]) == side && coord(f[2]) == side;
        }
        EXPECT_TRUE(on_face) << f[0] << " " << f[1] << " " << f[2];
        const auto &a = ply.vertices[size_t(f[0])], &b = ply.vertices[size_t(f[1])], &c = ply.vertices[size_t(f[2])];
        volume +=
            (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
    }
    EXPECT_NEAR(volume, 6 * 3 * 3 * 0.1 * 0.1 * 0.1, 1e-5);
    auto topology = weft::apps::read_npz((dir / "topology.npz").string());
    auto tets = npz_rows<4>(topology["tet_indices"]);
    ASSERT_EQ(tets.size(), ref.builder.tet_indices.size());
    for (size_t i = 0; i < tets.size(); ++i)
        for (size_t k = 0; k < 4; ++k) EXPECT_EQ(tets[i][k], ref.builder.tet_indices[i][k]);
    EXPECT_EQ(npz_rows<3>(topology["tet_surface_indices"]), ply.faces);
    EXPECT_EQ(npz_rows<3>(topology["tri_indices"]).size(), 0u);
    fs::remove_all(dir);
    fs::remove(scene);
}

}  // namespace

// --launch-list (runtime/launch_list.h): on sim:h200 (here; cuda:0 is the same code path with a
// cooperative grid) each frame after the first is one launch, and the frames written are the bits
// of the frames run as before. The option excludes --no-graph.
TEST(RunCommand, LaunchListFramesEqualTheDefaultFrames) {
    const std::string base = (std::filesystem::temp_directory_path() / ("weft_run_list_" + std::to_string(getpid()))).string();
    const std::string plain_dir = base + "_plain", listed_dir = base + "_listed";
    int rc = 0;
    const std::string cmd =
        std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR + "/scenes/bounce.toml --device sim:h200 --frames 3 --quiet";
    const std::string plain = run(cmd + " --out " + plain_dir, &rc);
    ASSERT_EQ(rc, 0) << plain;
    const std::string listed = run(cmd + " --launch-list --out " + listed_dir, &rc);
    ASSERT_EQ(rc, 0) << listed;
    EXPECT_NE(listed.find("on sim:h200 (a launch list per frame)"), std::string::npos) << listed;
    EXPECT_EQ(plain.find("launch list"), std::string::npos) << plain;
    for (const std::string frame : {"frame_00001.npz", "frame_00003.npz"}) {
        auto p = weft::apps::read_npz(plain_dir + "/" + frame), l = weft::apps::read_npz(listed_dir + "/" + frame);
        EXPECT_EQ(p["particle_q"].data, l["particle_q"].data) << frame;
        EXPECT_EQ(p["particle_qd"].data, l["particle_qd"].data) << frame;
    }
    std::filesystem::remove_all(plain_dir);
    std::filesystem::remove_all(listed_dir);
    // A frame a list cannot hold (particle contact zeroes its hash grid every step) runs as before,
    // with a note naming why; an integrator whose steps cannot be replayed says so.
    const std::string scene = base + "_contact.toml";
    std::ofstream(scene) << "[simulation]\nfps = 60\nsubsteps = 2\nframes = 2\n\n[particle_contact]\nke = 1.0e3\n\n"
                            "[[particle_block]]\npos = [0.0, 0.5, 0.0]\ndim = [2, 2, 2]\nspacing = 0.04\nradius = 0.018\n"
                            "mass = 0.01\n";
    const std::string contact = run(std::string(WEFT_BIN) + " run " + scene + " --device sim:h200 --quiet --launch-list", &rc);
    EXPECT_EQ(rc, 0) << contact;
    EXPECT_NE(contact.find("note: --launch-list: a frame could not be one launch (the work does what a launch list cannot "
                           "hold: zero() of array(int32, "),
              std::string::npos)
        << contact;
    EXPECT_NE(contact.find("); frames ran as without the option"), std::string::npos) << contact;
    EXPECT_EQ(contact.find("(a launch list per frame)"), std::string::npos) << contact;
    std::filesystem::remove(scene);
    const std::string smoke = run(std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR +
                                      "/scenes/smoke_plume.toml --device sim:h200 --frames 0 --quiet --launch-list",
                                  &rc);
    EXPECT_EQ(rc, 0) << smoke;
    EXPECT_NE(smoke.find("note: --launch-list: integrator 'smoke' steps cannot be replayed; frames run launch by launch"),
              std::string::npos)
        << smoke;
    const std::string both =
        run(std::string(WEFT_BIN) + " run " + WEFT_SOURCE_DIR + "/scenes/bounce.toml --launch-list --no-graph", &rc);
    EXPECT_EQ(rc, 2) << both;
    EXPECT_NE(both.find("--launch-list and --no-graph exclude each other (a launch list replays a frame, as a graph does)"),
              std::string::npos)
        << both;
}
