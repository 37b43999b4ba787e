// `weft audit` as a user runs it: exit codes, output forms and the messages of its error paths.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <sys/wait.h>

#include "gpusim/arch/arch.h"
#include "gpusim/arch/occupancy.h"

namespace {

struct Result {
    int code;
    std::string out;
};

Result weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " audit " + args + " --no-resources 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[1024];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    int status = f ? pclose(f) : -1;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kCorpus = WEFT_AUDIT_CORPUS;

TEST(AuditCli, ErrorPaths) {
    std::string m = kCorpus + "/bounds_plus_one.py";
    Result r = weft(m + " --shape a");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft audit: invalid --shape 'a': no NAME= (expected NAME=N or NAME=AxB, e.g. x=1024 or m=64x3)"),
              std::string::npos)
        << r.out;
    r = weft(m + " --shape a=10y3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --shape 'a=10y3': '10y3' is not a positive integer"), std::string::npos) << r.out;
    r = weft(m + " --shape a=");
    EXPECT_NE(r.out.find("invalid --shape 'a=': '' is not a positive integer"), std::string::npos) << r.out;
    r = weft(m + " --shape zz=10");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("--shape names 'zz', which is no array parameter of the audited kernel(s)"), std::string::npos) << r.out;
    r = weft(m + " --shape a=10x3");
    EXPECT_NE(r.out.find("--shape a has 2 dimension(s), but 'a' in kernel 'k' has 1"), std::string::npos) << r.out;
    r = weft(m + " --dim 4x4");
    EXPECT_NE(r.out.find("invalid --dim '4x4'"), std::string::npos) << r.out;
    r = weft(m + " --format xml");
    EXPECT_NE(r.out.find("--format takes text, json or sarif; got 'xml'"), std::string::npos) << r.out;
    r = weft(m + " --arch tpu");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft audit: --arch: unknown architecture 'tpu'; known: a100, h100, h200, rtx4090, v100 (the files in "
                         "gpusim/arch/), or the path of an architecture file (FILE.json)"),
              std::string::npos)
        << r.out;
    r = weft(m + " --arch h20");
    EXPECT_NE(r.out.find("weft audit: --arch: unknown architecture 'h20'; did you mean 'h200'? known: a100, h100"),
              std::string::npos)
        << r.out;
    r = weft(m + " --arch /nonexistent/x.json");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("/nonexistent/x.json: error: cannot open architecture file"), std::string::npos) << r.out;
    r = weft(m + " --kernel kk");
    EXPECT_NE(r.out.find("has no kernel 'kk'; did you mean 'k'?"), std::string::npos) << r.out;
    r = weft(m + " --werorr");
    EXPECT_NE(r.out.find("unknown option --werorr (did you mean --werror?)"), std::string::npos) << r.out;
    r = weft(m + " --arg n=x");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --arg 'n=x': expected NAME=INTEGER, e.g. n=1000"), std::string::npos) << r.out;
    r = weft(m + " --arg a=3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("--arg names 'a', which is no int or bool parameter of the audited kernel(s)"), std::string::npos)
        << r.out;
    r = weft(m + " --max-constant-bytes 64k");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --max-constant-bytes '64k': expected a number of bytes"), std::string::npos) << r.out;
    r = weft(m + " --dim 100 --counts /nonexistent-dir/counts.json");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("cannot write --counts file '/nonexistent-dir/counts.json'"), std::string::npos) << r.out;
    r = weft("/nonexistent.py");
    EXPECT_NE(r.out.find("cannot read '/nonexistent.py'"), std::string::npos) << r.out;
}

TEST(AuditCli, ExitCodesAndFormats) {
    Result r = weft(kCorpus + "/bounds_plus_one.py --dim 100 --shape a=100 --shape b=100");
    EXPECT_EQ(r.code, 1);  // an error
    EXPECT_NE(r.out.find("bounds_plus_one.py:8:12: error: [bounds] out-of-bounds access"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 kernel(s) audited: 1 error(s), 0 warning(s)"), std::string::npos) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32");
    EXPECT_EQ(r.code, 0) << r.out;  // warnings only
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --werror");
    EXPECT_EQ(r.code, 1) << r.out;
    r = weft(kCorpus + "/bank_stride16_suppressed.py --dim 32 --werror");
    EXPECT_EQ(r.code, 0) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --format json");
    EXPECT_NE(r.out.find("\"check\": \"bank-conflict\""), std::string::npos) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --format sarif");
    EXPECT_NE(r.out.find("\"ruleId\": \"bank-conflict\""), std::string::npos) << r.out;
    // The constant limit is the user's: 64 bytes by default, lower on request.
    r = weft(kCorpus + "/clean_const_mat44.py --dim 64");
    EXPECT_EQ(r.out.find("oversize-constant"), std::string::npos) << r.out;
    r = weft(kCorpus + "/clean_const_mat44.py --dim 64 --max-constant-bytes 48");
    EXPECT_NE(r.out.find("warning: [oversize-constant] constant 'FRAME' (mat44f) is 64 bytes, over the limit of 48"),
              std::string::npos)
        << r.out;
}

TEST(AuditCli, DotWritesTheSyncGraph) {
    auto dir = std::filesystem::temp_directory_path() / "weft-audit-dot-test";
    std::filesystem::remove_all(dir);
    Result r = weft(kCorpus + "/clean_block_reduce.py --dim 128 --dot " + dir.string());
    EXPECT_EQ(r.code, 0) << r.out;
    std::ifstream in(dir / "block_sum.dot");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string dot = ss.str();
    EXPECT_NE(dot.find("digraph \"block_sum\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("entry -> sync_l10_c5;"), std::string::npos) << dot;
    EXPECT_NE(dot.find("sync_l15_c9 -> sync_l15_c9;"), std::string::npos) << dot;
    EXPECT_NE(dot.find("line 14: write s[t]"), std::string::npos) << dot;
    std::filesystem::remove_all(dir);
}

}  // namespace

// The audit's predicted shared-memory counts (--counts) against gpusim running the PTX that
// NVRTC makes for the same kernel (`weft sim --report json`): another way to the same numbers,
// through the real compiler. Loads the audit marks forwardable (a thread reading back its own
// store in the same barrier interval) are not in the PTX. Skipped where the build has no
// simulator (no CUDA toolkit).
namespace {

std::string run(const std::string& cmd, int* code) {
    FILE* f = popen((cmd + " 2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    int status = f ? pclose(f) : -1;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

int64_t json_int(const std::string& text, const std::string& key, size_t from = 0) {
    size_t at = text.find("\"" + key + "\": ", from);
    if (at == std::string::npos) return -1;
    return std::stoll(text.substr(at + key.size() + 4));
}

}  // namespace

TEST(AuditCli, SharedCountsMatchGpusimOnTheCompiledPtx) {
    int code = 0;
    std::string probe =
        run(std::string(WEFT_BINARY) + " sim " + kCorpus + "/clean_bank_odd_stride.py --kernel k --dim 32 --report json", &code);
    if (code != 0) GTEST_SKIP() << "no simulator in this build: " << probe.substr(0, 200);
    // (file, dims): bank conflicts of 4-, 8- and 16-byte elements, a tile column, a reduction,
    // a conflict inside a func, and a 16x16 tile read transposed.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"bank_tile_column", "1024"},
        {"bank_double_stride2", "32"},
        {"bank_vec4_stride2", "32"},
        {"clean_block_reduce", "128"},
        {"func_bank_strided_store", "32"},
        {"clean_bounds_shared_tile", "256"},
        // loads of a thread's own store, which NVRTC forwards from a register (ld_forwarded)
        {"clean_disjoint_halves", "64"},
        {"race_loop_carried", "32"}};
    auto dir = std::filesystem::temp_directory_path() / "weft_audit_cli_counts";
    std::filesystem::create_directories(dir);
    for (const auto& [name, dim] : cases) {
        std::string file = kCorpus + "/" + name + ".py";
        std::string counts = (dir / (name + ".json")).string();
        run(std::string(WEFT_BINARY) + " audit " + file + " --dim " + dim + " --no-resources --counts " + counts, &code);
        std::ifstream in(counts);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string pred = ss.str();
        ASSERT_NE(pred.find("\"exact\": true"), std::string::npos) << name << ": " << pred;
        size_t ld = pred.find("\"ld\""), st = pred.find("\"st\"");
        size_t fw = pred.find("\"ld_forwarded\"");
        int64_t requests = json_int(pred, "requests", ld) + json_int(pred, "requests", st) - json_int(pred, "requests", fw);
        int64_t wavefronts =
            json_int(pred, "wavefronts", ld) + json_int(pred, "wavefronts", st) - json_int(pred, "wavefronts", fw);
        int64_t ideal = json_int(pred, "ideal", ld) + json_int(pred, "ideal", st) - json_int(pred, "ideal", fw);

        // The kernel name is the first `def` after @wp.kernel.
        std::ifstream src(file);
        std::string line, kernel;
        bool next = false;
        while (std::getline(src, line) && kernel.empty()) {
            if (next && line.rfind("def ", 0) == 0) kernel = line.substr(4, line.find('(') - 4);
            if (line.rfind("@wp.kernel", 0) == 0) next = true;
        }
        std::string sim =
            run(std::string(WEFT_BINARY) + " sim " + file + " --kernel " + kernel + " --dim " + dim + " --report json", &code);
        ASSERT_EQ(code, 0) << name << ": " << sim.substr(0, 400);
        size_t timing = sim.find("\"timing\"");
        EXPECT_EQ(json_int(sim, "shared_requests", timing), requests) << name;
        EXPECT_EQ(json_int(sim, "shared_wavefronts", timing), wavefronts) << name;
        EXPECT_EQ(json_int(sim, "shared_ideal_wavefronts", timing), ideal) << name;
    }
    std::filesystem::remove_all(dir);
}

// The resources check computes occupancy with the figures of the --arch file: every file is
// accepted (a100 too), each gets its own limits (gpusim/arch/occupancy.h with that file), and
// the PTX target follows the file's compute capability.
TEST(AuditCli, ResourcesUseTheArchitectureFile) {
    const std::string file = kCorpus + "/clean_bounds_shared_tile.py --dim 256";
    for (const char* name : {"h200", "h100", "a100", "rtx4090", "v100"}) {
        int code = 0;
        const std::string out = run(std::string(WEFT_BINARY) + " audit " + file + " --arch " + name, &code);
        EXPECT_EQ(code, 0) << name << "\n" << out;
        const weft::gpusim::ArchSpec arch = weft::gpusim::builtin_arch(name);
        std::smatch m;
        int regs = 32, smem = 0;
        if (std::regex_search(out, m,
                              std::regex(R"((\d+) registers, (\d+) bytes shared memory per block.* on (\S+) \((sm_\d+)\))"))) {
            regs = std::stoi(m[1]);
            smem = std::stoi(m[2]);
            EXPECT_EQ(m[3], name);
            EXPECT_EQ(m[4], arch.sm_target());
        } else {
            ASSERT_TRUE(std::regex_search(out, m, std::regex(R"((\d+) bytes static shared memory per block on (\S+);)"))) << out;
            smem = std::stoi(m[1]);
            EXPECT_EQ(m[2], name);
        }
        ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(block of (\d+) threads)"))) << out;
        const weft::gpusim::Occupancy o = weft::gpusim::occupancy(arch, std::stoi(m[1]), regs, static_cast<uint32_t>(smem));
        const std::string limits = "limits in blocks per SM: warps " + std::to_string(o.limit_warps) + ", blocks " +
                                   std::to_string(o.limit_blocks) + ", registers " + std::to_string(o.limit_registers) +
                                   ", shared memory " + std::to_string(o.limit_shared);
        EXPECT_NE(out.find(limits), std::string::npos) << name << ": expected '" << limits << "'\n" << out;
    }
}
