// The audit corpus: every tests/compiler/audit/corpus/*.py states its launch (`# audit: --dim N
// --shape a=AxB`) and its expected findings (`# expect: check-id[, check-id]` on the flagged
// line). The audit must report exactly those warnings and errors: nothing missed on the seeded
// kernels, nothing extra on the clean look-alikes. Notes (conditions under which an access is
// safe) are not part of the comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/audit/audit.h"
#include "compiler/driver.h"

#ifdef WEFT_AUDIT_MACHINE_CODE
#include <unistd.h>

#include "gpusim/sass/sass_map.h"
#include "runtime/cuda/ptx.h"
#endif

namespace weft::compiler::audit {
namespace {

namespace fs = std::filesystem;

struct CorpusFile {
    std::string path, text;
    AuditOptions options;
    std::set<std::pair<std::string, int>> expected;  // (check id, line)
};

std::vector<int64_t> numbers(const std::string& s, char sep) {
    std::vector<int64_t> out;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, sep)) out.push_back(std::stoll(part));
    return out;
}

CorpusFile load(const fs::path& p) {
    CorpusFile c;
    c.path = p.string();
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    c.text = ss.str();
    std::istringstream lines(c.text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
        if (line.rfind("# audit:", 0) == 0) {
            std::istringstream opts(line.substr(8));
            std::string opt, value;
            while (opts >> opt >> value) {
                if (opt == "--dim")
                    c.options.dims = numbers(value, ',');
                else if (opt == "--arg")
                    c.options.args[value.substr(0, value.find('='))] = std::stoll(value.substr(value.find('=') + 1));
                else if (opt == "--max-constant-bytes")
                    c.options.max_constant_bytes = std::stoll(value);
                else if (opt == "--block-dim")
                    c.options.block_dim = static_cast<int>(std::stoll(value));
                else if (opt == "--shape")
                    c.options.shapes[value.substr(0, value.find('='))] = numbers(value.substr(value.find('=') + 1), 'x');
                else
                    ADD_FAILURE() << c.path << ": unknown audit option " << opt;
            }
        }
        auto e = line.find("# expect:");
        if (e == std::string::npos || line.rfind("# expect:", 0) == 0) continue;
        std::stringstream ids(line.substr(e + 9));
        std::string id;
        while (std::getline(ids, id, ',')) {
            id.erase(0, id.find_first_not_of(' '));
            id.erase(id.find_last_not_of(' ') + 1);
            Check check;
            EXPECT_TRUE(check_from_id(id, &check)) << c.path << ":" << n << ": unknown check '" << id << "'";
            c.expected.insert({id, n});
        }
    }
    return c;
}

// The kernels' machine code, as `weft audit` reads it (apps/cmd_audit.cpp): NVRTC's PTX, ptxas
// -lineinfo, the SASS's shared loads and stores mapped to source lines. Empty without CUDA.
std::map<std::string, CompiledShared> machine_code(CompiledModule& m, const std::string& path) {
    std::map<std::string, CompiledShared> out;
#ifdef WEFT_AUDIT_MACHINE_CODE
    generate_code(m, {});
    std::string ptx = runtime::generate_ptx(m, "sm_90", compiler::CodePart::Forward);
    fs::path dir = fs::temp_directory_path() / ("weft-audit-corpus-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "m.ptx") << ptx;
    std::string cmd =
        "/usr/local/cuda/bin/ptxas -lineinfo -arch=sm_90 -o " + (dir / "m.cubin").string() + " " + (dir / "m.ptx").string();
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::stringstream cubin;
    cubin << std::ifstream(dir / "m.cubin", std::ios::binary).rdbuf();
    fs::remove_all(dir);
    gpusim::SassMap sass = gpusim::read_sass_map(cubin.str());
    auto lines = ptx_source_lines(ptx, path);
    for (const auto& f : m.ir->functions) {
        auto it = sass.kernels.find(f->name + "_cuda");
        if (f->kind != ir::FunctionKind::Kernel || it == sass.kernels.end()) continue;
        std::vector<SassWord> words;
        for (const auto& w : it->second.code) words.push_back({w.lo, w.hi, w.ptx_line});
        out[f->name] = compiled_shared_ops(words, lines);
    }
#else
    (void)m;
    (void)path;
#endif
    return out;
}

std::vector<fs::path> corpus() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(WEFT_AUDIT_CORPUS))
        if (e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(AuditCorpus, EveryFileGetsExactlyItsExpectedFindings) {
    auto files = corpus();
    ASSERT_GE(files.size(), 60u);
    std::map<std::string, int> seeded_files;  // check id -> files seeding it
    int clean_files = 0, kernels = 0;
    double slowest = 0, total = 0;
    std::string slowest_name;
    for (const auto& p : files) {
        CorpusFile c = load(p);
        DiagnosticEngine diags;
        auto m = analyze_module({{c.path, c.text, 0}}, {}, diags);
        ASSERT_FALSE(diags.has_errors()) << diags.format_all();
        // Shared-memory kernels are audited with their machine code where this build has CUDA
        // (ptxas may merge accesses); a file whose findings depend on it says so.
        if (c.text.find("wp.shared_array") != std::string::npos) c.options.machine_code = machine_code(*m, c.path);
        if (c.options.machine_code.empty() && c.text.find("# machine-code: required") != std::string::npos) {
            std::cout << "[ SKIPPED  ] " << c.path << ": needs the machine code (no CUDA in this build)\n";
            continue;
        }
        std::set<std::pair<std::string, int>> got;
        std::string report;
        for (const auto& f : m->ir->functions) {
            if (f->kind != ir::FunctionKind::Kernel) continue;
            auto start = std::chrono::steady_clock::now();
            auto findings = audit_kernel(*m->ir, *f, c.options);
            double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            EXPECT_LT(seconds, 1.0) << c.path << ": kernel " << f->name << " took " << seconds << " s";
            ++kernels, total += seconds;
            if (seconds > slowest) slowest = seconds, slowest_name = p.filename().string();
            for (const auto& x : findings) {
                if (x.severity == FindingSeverity::Note) continue;
                got.insert({check_id(x.check), x.loc.line});
                report += format_text(x);
            }
        }
        EXPECT_EQ(got, c.expected) << c.path << ":\n" << report;
        std::set<std::string> kinds;
        for (const auto& [id, line] : c.expected) kinds.insert(id);
        for (const auto& k : kinds) seeded_files[k]++;
        if (p.filename().string().rfind("clean_", 0) == 0) ++clean_files;
    }
    for (const char* id : {"bounds", "divergence", "barrier-divergence", "shared-race", "bank-conflict", "uncoalesced",
                           "oversize-constant", "warp-sync-divergence"})
        EXPECT_GE(seeded_files[id], 5) << "fewer than 5 corpus files seed " << id;
    EXPECT_GE(clean_files, 20);
    RecordProperty("kernels", kernels);
    printf("audited %d corpus kernels in %.1f ms (slowest: %s, %.2f ms)\n", kernels, 1e3 * total, slowest_name.c_str(),
           1e3 * slowest);
}

TEST(AuditCorpus, WitnessesNameThreadsAddressesAndLines) {
    auto run = [](const std::string& name) {
        CorpusFile c = load(fs::path(WEFT_AUDIT_CORPUS) / name);
        DiagnosticEngine diags;
        auto m = analyze_module({{c.path, c.text, 0}}, {}, diags);
        std::string text;
        for (const auto& f : m->ir->functions)
            if (f->kind == ir::FunctionKind::Kernel)
                for (const auto& x : audit_kernel(*m->ir, *f, c.options)) text += format_text(x);
        return text;
    };
    std::string race = run("race_neighbor.py");
    EXPECT_NE(race.find("data race on shared array 's': threads 1 and 0 access s[1]"), std::string::npos) << race;
    EXPECT_NE(race.find("thread 1 writes s[1] at line 9"), std::string::npos) << race;
    EXPECT_NE(race.find("thread 0 reads s[1] at line 10"), std::string::npos) << race;

    std::string bank = run("bank_tile_column.py");
    EXPECT_NE(bank.find("32-way bank conflict on shared array 'tile': 32.00 wavefronts per request (ideal 1.00)"),
              std::string::npos)
        << bank;
    EXPECT_NE(bank.find("wp.shared_array(shape=(32, 33), ...) makes this access conflict-free"), std::string::npos) << bank;

    std::string bounds = run("bounds_plus_one.py");
    EXPECT_NE(bounds.find("error: [bounds] out-of-bounds access: 'a[i + 1]' reads index 100 of 'a' (size 100)"),
              std::string::npos)
        << bounds;
    EXPECT_NE(bounds.find("witness: thread 99 of block 0 (tid 99)"), std::string::npos) << bounds;

    std::string barrier = run("barrier_after_return.py");
    EXPECT_NE(barrier.find("wp.sync_threads() is reached by 48 of the 64 threads of block 0"), std::string::npos) << barrier;
    EXPECT_NE(barrier.find("thread 48 skips it: returned (line 10)"), std::string::npos) << barrier;

    std::string warp = run("warp_shfl_in_branch.py");
    EXPECT_NE(warp.find("warp_shfl_in_branch.py:10:14: error: [warp-sync-divergence] wp.shfl_down_sync with the full mask "
                        "0xffffffff is reached by 16 of the 32 lanes of warp 0 in block 0; the others never arrive"),
              std::string::npos)
        << warp;
    EXPECT_NE(warp.find("        v += wp.shfl_down_sync(0xffffffff, v, 16)  # expect: warp-sync-divergence\n"
                        "                 ^~~~~~~~~~~~~~~~~"),
              std::string::npos)
        << warp;
    EXPECT_NE(warp.find("note: lane 16 skips it: the condition is false for it (line 9)"), std::string::npos) << warp;
    std::string exited = run("warp_vote_partial_launch.py");
    EXPECT_NE(exited.find("warning: [warp-sync-divergence] wp.ballot_sync with the full mask 0xffffffff is reached by 8 of "
                          "the 8 lanes of warp 1 in block 0; the others have exited"),
              std::string::npos)
        << exited;
    EXPECT_NE(exited.find("lane 8 does not exist (the block's threads end at 40)"), std::string::npos) << exited;

    std::string div = run("div_first_quarter.py");
    EXPECT_NE(div.find("divergent branch: 't < 16' differs between the lanes of a warp"), std::string::npos) << div;
    EXPECT_NE(div.find("warp 0 with 16 lanes taking it and 16 not"), std::string::npos) << div;

    std::string in_func = run("func_bounds_second_call_site.py");
    EXPECT_NE(in_func.find("out-of-bounds access: 'a[i + k]' reads index 64 of 'a' (size 64)"), std::string::npos) << in_func;
    EXPECT_NE(in_func.find("witness: thread 61 of block 0 (tid 61)"), std::string::npos) << in_func;
    EXPECT_NE(in_func.find("note: in the func called at line 12"), std::string::npos) << in_func;
    EXPECT_NE(in_func.find("at(a, i, 3)"), std::string::npos) << in_func;  // the call site's line is shown

    std::string func_race = run("func_race_shared_arg.py");
    EXPECT_NE(func_race.find("threads 1 and 0 access s[1]"), std::string::npos) << func_race;
    EXPECT_NE(func_race.find("note: in the func called at line 14"), std::string::npos) << func_race;

    std::string func_bar = run("func_barrier_divergent_call.py");
    EXPECT_NE(func_bar.find("reached by 32 of the 64 threads of block 0"), std::string::npos) << func_bar;
    EXPECT_NE(func_bar.find("note: in the func called at line 16"), std::string::npos) << func_bar;

    std::string big = run("const_mat44d.py");
    EXPECT_NE(big.find("warning: [oversize-constant] constant 'FRAME' (mat44d) is 128 bytes, over the limit of 64: its value "
                       "occupies 32 registers"),
              std::string::npos)
        << big;
    EXPECT_NE(big.find("note: 'FRAME' is defined here"), std::string::npos) << big;
    std::string table = run("clean_const_table_indexed.py");
    EXPECT_NE(table.find("note: [oversize-constant] constant 'WEIGHTS' (36 bytes) indexed with a value that is not a literal"),
              std::string::npos)
        << table;
    std::string big_table = run("const_mat44d_indexed.py");
    EXPECT_NE(
        big_table.find("warning: [oversize-constant] constant 'TABLE' (128 bytes) indexed with a value that is not a literal"),
        std::string::npos)
        << big_table;

    std::string coal = run("coal_struct_field.py");
    EXPECT_NE(coal.find("consecutive threads are 28 bytes apart; each uses 4 bytes of a 28-byte element"), std::string::npos)
        << coal;

    // A barrier kernel runs every thread of its last block: the witness is past dim, and says why.
    std::string last = run("bounds_barrier_last_block.py");
    EXPECT_NE(last.find("out-of-bounds access: 'a[i]' reads index 100 of 'a' (size 100)"), std::string::npos) << last;
    EXPECT_NE(last.find("out-of-bounds access: 'out[i]' writes index 100 of 'out' (size 100)"), std::string::npos) << last;
    EXPECT_NE(last.find("witness: thread 36 of block 1 (tid 100)"), std::string::npos) << last;
    EXPECT_NE(last.find("tid 100 is past the launch's 100 threads, yet runs: a kernel that calls wp.sync_threads() runs every "
                        "thread of its last block (128 threads); guard the access with `if i < n:`"),
              std::string::npos)
        << last;
    const std::string launch_note =
        "note: [bounds] launch of 100 threads is not a whole number of blocks of 64: wp.launch rejects it for a kernel that "
        "calls wp.sync_threads(); audited as 2 blocks (128 threads)";
    EXPECT_NE(last.find(launch_note), std::string::npos) << last;
    std::string guarded = run("clean_bounds_barrier_guarded.py");
    EXPECT_EQ(guarded.find("out-of-bounds"), std::string::npos) << guarded;
    EXPECT_NE(guarded.find(launch_note), std::string::npos) << guarded;
    std::string whole = run("clean_bounds_barrier_whole_blocks.py");
    EXPECT_EQ(whole.find("whole number of blocks"), std::string::npos) << whole;
    // Without barriers the threads past dim return early: no such note, and the witness is below dim.
    EXPECT_EQ(bounds.find("whole number of blocks"), std::string::npos) << bounds;
}

TEST(AuditCorpus, SymbolicShapesGiveConditions) {
    CorpusFile c = load(fs::path(WEFT_AUDIT_CORPUS) / "clean_bounds_symbolic.py");
    DiagnosticEngine diags;
    auto m = analyze_module({{c.path, c.text, 0}}, {}, diags);
    std::string text;
    for (const auto& x : audit_kernel(*m->ir, *m->ir->find("k"), c.options)) text += format_text(x);
    EXPECT_NE(text.find("note: [bounds] bounds of 'b[i]' not proven: safe if n <= b.shape[0]"), std::string::npos) << text;
    EXPECT_NE(text.find("safe if n <= a.shape[0]"), std::string::npos) << text;

    // A guard inside a func proves the func's access; the caller's unguarded write gets a condition.
    CorpusFile g = load(fs::path(WEFT_AUDIT_CORPUS) / "clean_func_guarded_symbolic.py");
    auto mg = analyze_module({{g.path, g.text, 0}}, {}, diags);
    std::string tg;
    for (const auto& x : audit_kernel(*mg->ir, *mg->ir->find("k"), g.options)) tg += format_text(x);
    EXPECT_EQ(tg.find("'a[i]' not proven"), std::string::npos) << tg;
    EXPECT_NE(tg.find("bounds of 'dst[i]' not proven: safe if dim <= dst.shape[0]"), std::string::npos) << tg;

    AuditOptions o;  // no --dim: tid-relative index
    std::string src = "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = 0.0\n";
    auto m2 = analyze_module({{"sym.py", src, 0}}, {}, diags);
    std::string t2;
    for (const auto& x : audit_kernel(*m2->ir, *m2->ir->find("k"), o)) t2 += format_text(x);
    EXPECT_NE(t2.find("safe if dim <= a.shape[0]"), std::string::npos) << t2;
}

}  // namespace
}  // namespace weft::compiler::audit
