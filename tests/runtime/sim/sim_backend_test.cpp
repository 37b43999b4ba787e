// tests/runtime/sim/sim_backend_test.cpp — the sim:ARCH device runs launches through the timing model:
// per-line reports of a kernel with known bank conflicts (expected wavefronts worked out by
// hand from NVIDIA's bank rule), reports and hotspots since a mark, determinism across host
// threads, the machine-code settings of the validated model (same cycles as a direct
// launch_timed, also from the disk cache) and architecture files with errors. `weft sim` is
// tested in sim_cli_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/native/launch.h"
#include "gpusim/arch/json_reader.h"
#include "gpusim/arch/occupancy.h"
#include "gpusim/arch/ptxas.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_map.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "runtime/module.h"
#include "runtime/module_cache.h"
#include "runtime/sim/sim_backend.h"
#include "tests/runtime/sim/sim_test_util.h"

namespace weft {
namespace {

// Runs column_store over `n` threads (n / 32 one-warp blocks) on sim:h200; returns the reports.
std::vector<std::shared_ptr<const runtime::SimLaunchReport>> run_column_store(int64_t n, int launches = 1) {
    static auto m = runtime::Module::compile({{kKernels, read_file(kKernels), 0}});
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    runtime::Array values = runtime::Array::zeros(f32, {n}, dev), out = runtime::Array::zeros(f32, {n}, dev);
    runtime::LaunchOptions o;
    o.device = dev;
    const uint64_t mark = runtime::sim_report_mark();
    for (int i = 0; i < launches; ++i)
        runtime::launch(m->kernel("column_store"), {n}, {runtime::LaunchArg::of(values), runtime::LaunchArg::of(out)}, o);
    return runtime::sim_reports_since(mark);
}

// gpusim/arch/h200.json renamed to `name`, with the value of `key` (the first after `section`)
// set to `value`, written to a temporary file; returns its path.
std::string h200_variant(const std::string& name, const std::string& section, const std::string& key, const std::string& value) {
    std::string text = read_file(std::string(WEFT_SOURCE_DIR) + "/gpusim/arch/h200.json");
    const size_t at = text.find("\"name\"");
    const size_t q1 = text.find('"', text.find(':', at)), q2 = text.find('"', q1 + 1);
    text.replace(q1, q2 - q1 + 1, "\"" + name + "\"");
    const size_t k = text.find(key, text.find(section));
    const size_t c = text.find(':', k), e = text.find_first_of(",}\n", c);
    text.replace(c + 1, e - c - 1, " " + value);
    const std::string path = ::testing::TempDir() + "/" + name + ".json";
    std::ofstream(path) << text;
    return path;
}

const gpusim::TimingCounters* line_timing(const gpusim::TimingResult& r, int line) {
    for (size_t i = 0; i < r.counts.per_line.size(); ++i)
        if (r.counts.per_line[i].line == line && r.counts.per_line[i].file_name.find("bank_conflict.py") != std::string::npos)
            return &r.per_line[i];
    return nullptr;
}

TEST(SimDevice, PerLineReportHasTheBankConflictsOfEachLine) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const auto reports = run_column_store(256);
    ASSERT_EQ(reports.size(), 1u);
    const runtime::SimLaunchReport& rep = *reports[0];
    ASSERT_TRUE(rep.timed);
    EXPECT_EQ(rep.device, "sim:h200");
    const gpusim::TimingResult& r = rep.result;
    EXPECT_EQ(r.counts.kernel, "column_store");
    const uint64_t blocks = 8;  // 256 threads, block_dim 32
    // line 10, s[t * 32] = ...: 32 lanes on 32 words of bank 0 -> 32 wavefronts, ideal 1.
    const gpusim::TimingCounters* l10 = line_timing(r, 10);
    ASSERT_NE(l10, nullptr);
    EXPECT_EQ(l10->shared_wavefronts, blocks * 32);
    EXPECT_EQ(l10->shared_excess_wavefronts(), blocks * 31);
    // Its global load: 32 consecutive floats = 128 bytes = 4 sectors per request.
    EXPECT_EQ(l10->global_requests, blocks);
    EXPECT_EQ(l10->global_sectors, blocks * 4);
    // line 12: the load as line 10 (32), the store at stride 33 words hits 32 banks (1).
    const gpusim::TimingCounters* l12 = line_timing(r, 12);
    ASSERT_NE(l12, nullptr);
    EXPECT_EQ(l12->shared_wavefronts, blocks * 33);
    EXPECT_EQ(l12->shared_excess_wavefronts(), blocks * 31);
    // line 14: s[t] (conflict-free) and s[0] (one word, broadcast): 1 + 1.
    const gpusim::TimingCounters* l14 = line_timing(r, 14);
    ASSERT_NE(l14, nullptr);
    EXPECT_EQ(l14->shared_wavefronts, blocks * 2);
    EXPECT_EQ(l14->shared_excess_wavefronts(), 0u);
    // Kernel-level numbers hang together.
    EXPECT_GT(r.cycles, 0u);
    EXPECT_NEAR(r.time_us, static_cast<double>(r.cycles) / runtime::sim_arch("h200").sm_clock_mhz, 1e-9);
    EXPECT_NEAR(r.ipc, static_cast<double>(r.counts.total.warp_instructions) / static_cast<double>(r.sm_active_cycles), 1e-12);
    EXPECT_EQ(r.occupancy.blocks_per_sm, 32);  // one-warp blocks: the 32-blocks limit binds
    uint64_t line_cycles = 0;
    for (const auto& t : r.per_line) line_cycles += t.warp_cycles();
    EXPECT_EQ(line_cycles, r.total.warp_cycles());
    // The conflicted line waits longest on shared memory (short scoreboard) among the shared lines.
    EXPECT_GT(l12->stall_cycles[static_cast<int>(gpusim::Stall::ShortScoreboard)],
              l14->stall_cycles[static_cast<int>(gpusim::Stall::ShortScoreboard)]);
}

TEST(SimDevice, HotspotsSinceAMarkSumTheFrame) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const uint64_t mark = runtime::sim_report_mark();
    const auto reports = run_column_store(1024, 3);
    ASSERT_EQ(reports.size(), 3u);
    EXPECT_EQ(reports[0]->sequence, mark);
    double time = 0;
    for (const auto& r : reports) time += r->result.time_us;
    const gpusim::Hotspots h = runtime::sim_hotspots_since(mark, 5);
    EXPECT_EQ(h.launches, 3u);
    EXPECT_NEAR(h.time_us, time, 1e-9);
    ASSERT_EQ(h.kernels.size(), 1u);
    EXPECT_EQ(h.kernels[0].kernel, "column_store");
    EXPECT_EQ(h.kernels[0].launches, 3u);
    EXPECT_NEAR(h.kernels[0].share, 1.0, 1e-12);
    ASSERT_FALSE(h.lines.empty());
    EXPECT_LE(h.lines.size(), 5u);
    double share = 0;
    for (size_t i = 0; i < h.lines.size(); ++i) {
        share += h.lines[i].share;
        if (i) EXPECT_GE(h.lines[i - 1].time_us, h.lines[i].time_us);
    }
    EXPECT_LE(share, 1.0 + 1e-9);
    // The hottest line is the conflicted store behind the global load; its counters are the
    // three launches' sum.
    EXPECT_EQ(h.lines[0].line, 10);
    EXPECT_EQ(h.lines[0].shared_wavefronts, 3u * 32 * 32);
    EXPECT_EQ(h.lines[0].shared_excess_wavefronts, 3u * 32 * 31);
    // Nothing since a fresh mark.
    EXPECT_EQ(runtime::sim_hotspots_since(runtime::sim_report_mark()).launches, 0u);
}

TEST(SimDevice, CopiesAreTimedOverPcie) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const int64_t n = 1 << 20;
    runtime::Array a = runtime::Array::empty(compiler::float32_type(), {n}, dev);
    std::vector<float> host(static_cast<size_t>(n), 1.5f);
    const uint64_t mark = runtime::sim_report_mark();
    a.copy_from_host(host.data(), host.size() * 4);
    a.copy_to_host(host.data(), host.size() * 4);
    const auto copies = runtime::sim_copies_since(mark);
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_EQ(copies[0].kind, runtime::SimCopyReport::Kind::HostToDevice);
    EXPECT_EQ(copies[1].kind, runtime::SimCopyReport::Kind::DeviceToHost);
    EXPECT_EQ(copies[0].sequence + 1, copies[1].sequence);
    EXPECT_EQ(copies[0].bytes, uint64_t(n) * 4);
    // 4 MiB over the H200 file's PCIe figure, in microseconds.
    EXPECT_NEAR(copies[0].time_us, 4.0 * (1 << 20) / (runtime::sim_arch("h200").pcie_gbs * 1e3), 1e-9);
    const gpusim::Hotspots h = runtime::sim_hotspots_since(mark);
    EXPECT_EQ(h.copies, 2u);
    EXPECT_EQ(h.copy_bytes, uint64_t(n) * 8);
    EXPECT_NEAR(h.copy_time_us, copies[0].time_us + copies[1].time_us, 1e-9);
    EXPECT_EQ(h.launches, 0u);
}

TEST(SimDevice, SameCyclesOnOneAndFourHostThreads) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    runtime::set_cpu_threads(1);
    const auto one = run_column_store(32 * 300);
    runtime::set_cpu_threads(4);
    const auto four = run_column_store(32 * 300);
    runtime::set_cpu_threads(0);
    std::ostringstream a, b;
    gpusim::write_timing_json(a, one[0]->result);
    gpusim::write_timing_json(b, four[0]->result);
    EXPECT_EQ(one[0]->result.cycles, four[0]->result.cycles);
    EXPECT_EQ(a.str(), b.str());
}

// The host threads a launch is simulated with come from SimSettings::threads (`weft sim --threads`),
// else WEFT_SIM_THREADS, else the CPU pool's size; the report is the same for each, and a value
// that is not a positive count is an error that names where it came from.
TEST(SimDevice, HostThreadsAreASettingAndLeaveTheReportAlone) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const runtime::SimSettings saved = runtime::sim_settings();
    auto report_with = [&](int threads) {
        runtime::SimSettings s = saved;
        s.threads = threads;
        runtime::set_sim_settings(s);
        const auto r = run_column_store(32 * 300);
        std::ostringstream json;
        gpusim::write_timing_json(json, r[0]->result);
        return json.str();
    };
    const std::string one = report_with(1), two = report_with(2);
    runtime::set_sim_settings(saved);
    EXPECT_EQ(one, two);

    runtime::SimSettings s;
    s.threads = 3;
    EXPECT_EQ(runtime::sim_threads(s), 3);
    s.threads = 0;
    ::unsetenv("WEFT_SIM_THREADS");
    EXPECT_EQ(runtime::sim_threads(s), runtime::cpu_threads());
    ::setenv("WEFT_SIM_THREADS", "5", 1);
    EXPECT_EQ(runtime::sim_threads(s), 5);
    for (const char* bad : {"0", "-2", "four", "3x"}) {
        ::setenv("WEFT_SIM_THREADS", bad, 1);
        try {
            runtime::sim_threads(s);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_EQ(std::string(e.what()), std::string("WEFT_SIM_THREADS must be a positive integer (the host threads gpusim "
                                                         "simulates with); got '") +
                                                 bad + "'");
        }
    }
    ::unsetenv("WEFT_SIM_THREADS");
    s.threads = -1;
    try {
        runtime::set_sim_settings(s);
        ADD_FAILURE() << "threads -1 was accepted";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("threads must be >= 1, or 0 for the default"), std::string::npos) << e.what();
    }
}

// The same launch gives the same report, bit for bit, wherever the host allocator puts its
// arrays: the timing model sees the sim device's own (deterministic) device addresses. Before,
// cache sets hashed from host addresses made cycles differ from run to run.
TEST(SimDevice, SameReportWhereverTheHostPutsTheArrays) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/tests/runtime/sim/kernels/gather.py";
    static auto m = runtime::Module::compile({{path, read_file(path), 0}});
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const int64_t n = 8192, table = int64_t{1} << 20;
    std::vector<int32_t> index(static_cast<size_t>(n * 8));
    uint32_t x = 12345;
    for (int32_t& v : index) v = static_cast<int32_t>((x = x * 1664525u + 1013904223u) >> 12) % static_cast<int32_t>(table);
    auto run = [&](int64_t pad_floats) {
        // A host allocation of its own before the launch's arrays, changing where they land.
        std::vector<float> pad(static_cast<size_t>(pad_floats), 1.0f);
        std::vector<float> filler(static_cast<size_t>(pad_floats) * 3 + 17);
        runtime::Array t = runtime::Array::zeros(compiler::float32_type(), {table}, dev);
        runtime::Array i = runtime::Array::zeros(compiler::int32_type(), {n * 8}, dev);
        i.copy_from_host(index.data(), index.size() * 4);
        runtime::Array o = runtime::Array::zeros(compiler::float32_type(), {n}, dev);
        runtime::LaunchOptions lo;
        lo.device = dev;
        const uint64_t mark = runtime::sim_report_mark();
        runtime::launch(m->kernel("gather8"), {n},
                        {runtime::LaunchArg::of(t), runtime::LaunchArg::of(i), runtime::LaunchArg::of(o)}, lo);
        const auto reps = runtime::sim_reports_since(mark);
        std::ostringstream json;
        gpusim::write_timing_json(json, reps.at(0)->result);
        return json.str();
    };
    const std::string a = run(1), b = run(100003), c = run(7);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
}

// Without debug mode, a read past an array's end is still an error naming the kernel, the
// address and the array (the sim device maps the launch's buffers), not a read of host memory.
TEST(SimDevice, ReadPastAnArrayIsAnErrorWithoutDebug) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/tests/runtime/sim/kernels/read_past_end.py";
    auto m = runtime::Module::compile({{path, read_file(path), 0}});
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    runtime::Array values = runtime::Array::zeros(f32, {64}, dev), out = runtime::Array::zeros(f32, {64}, dev);
    runtime::LaunchOptions o;
    o.device = dev;
    // 63 threads stay inside.
    runtime::launch(m->kernel("read_next"), {63}, {runtime::LaunchArg::of(values), runtime::LaunchArg::of(out)}, o);
    std::string msg;
    try {
        runtime::launch(m->kernel("read_next"), {64}, {runtime::LaunchArg::of(values), runtime::LaunchArg::of(out)}, o);
    } catch (const runtime::RuntimeError& e) { msg = e.what(); }
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx",
                  static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(values.data()) + 64 * 4));
    EXPECT_EQ(msg.rfind("kernel 'read_next' failed on the simulator: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("thread (63,0,0): global read of 4 bytes at " + std::string(addr) +
                       " is outside every buffer of the launch: 0 bytes past the end of array 'values' (256 bytes at "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("read_past_end.py:9"), std::string::npos) << msg;
}

// The front end's static shared-memory limit (48 KiB a block, a located error above it:
// tests/compiler/sema) is the one NVRTC and ptxas keep: a block with exactly 48 KiB of shared
// arrays compiles through NVRTC to sm_90 and runs on the simulator with the right values.
TEST(SimDevice, FortyEightKibOfSharedArraysCompileThroughNvrtcAndRun) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    auto source = [](int floats) {
        return "import weft as wp\n@wp.kernel(block_dim=128)\ndef fill_shared(out: wp.array(dtype=float)):\n"
               "    i = wp.tid()\n    t = wp.thread_idx()\n    s = wp.shared_array(shape=" +
               std::to_string(floats) +
               ", dtype=float)\n    for k in range(96):\n        s[t * 96 + k] = float(t * 96 + k)\n"
               "    wp.sync_threads()\n    out[i] = s[12287 - t * 96]\n";
    };
    auto m = runtime::Module::compile({{"shared48.py", source(12288), 0}});
    const runtime::Device dev = runtime::parse_device("sim:h200");
    runtime::Array out = runtime::Array::zeros(compiler::float32_type(), {256}, dev);
    runtime::LaunchOptions o;
    o.device = dev;
    runtime::launch(m->kernel("fill_shared"), {256}, {runtime::LaunchArg::of(out)}, o);
    std::vector<float> got(256);
    out.copy_to_host(got.data(), got.size() * sizeof(float));
    for (int i = 0; i < 256; ++i) ASSERT_EQ(got[size_t(i)], float(12287 - 96 * (i % 128))) << "thread " << i;
    // 4 bytes more is the front end's error, before NVRTC sees it
    std::string msg;
    try {
        runtime::Module::compile({{"shared48.py", source(12289), 0}});
    } catch (const std::exception& e) { msg = e.what(); }
    EXPECT_NE(msg.find("shared48.py:6:5: error: the shared arrays of kernel 'fill_shared' need 49156 bytes per block with 's'; "
                       "a block may have at most 49152 bytes of static shared memory"),
              std::string::npos)
        << msg;
}

// The launch the sim device makes, made by hand: the PTX NVRTC makes for sm_90, ptxas's
// registers, and the machine-code settings gpusim_validate uses (gpusim/validation/
// sim_validate.cpp), each from its own sass_map.h function: issue weights, shared accesses as
// ptxas merged them, loads where ptxas scheduled them. `machine_code` false: weights only (what
// the sim device did before it passed the other two).
gpusim::TimingResult direct_launch(const runtime::Kernel& k, int64_t n, const std::vector<runtime::LaunchArg>& args,
                                   bool machine_code) {
    const std::string ptx = runtime::generate_ptx(k.module()->compiled(false), "sm_90", compiler::CodePart::Forward);
    const gpusim::Module m = gpusim::parse_ptx(ptx, "module.ptx");
    const gpusim::ArchSpec& arch = runtime::sim_arch("h200");
    const gpusim::SassMap map = gpusim::map_sass(ptx, arch);
    const std::string& symbol = k.info().cuda_symbol;
    gpusim::TimingOptions o;
    o.arch = arch;
    const gpusim::KernelResources res = gpusim::ptxas_resources(ptx, arch).at(symbol);
    o.registers_per_thread = res.registers;
    o.static_shared_bytes = res.shared_bytes;
    o.issue_weights = gpusim::sass_weights(map, m, symbol);
    if (machine_code) {
        o.shared_issue = gpusim::sass_shared_issue(map, m, symbol);
        o.load_hoist = gpusim::sass_load_hoist(map, m, symbol, o.issue_weights);
    }
    // The CUDA entry's parameters: launch bounds, the argument block, the (null) oob record.
    const int block_dim = k.info().block_dim;
    wp::launch_bounds_t bounds{};
    bounds.shape[0] = static_cast<wp::int32>(n);
    bounds.shape[1] = bounds.shape[2] = bounds.shape[3] = 1;
    bounds.ndim = 1;
    bounds.size = n;
    const std::vector<std::byte> block = runtime::pack_arguments(k, args, runtime::parse_device("sim:h200"));
    gpusim::ParamPacker pk;
    pk.add(bounds, 8);
    pk.add_bytes(block.data(), block.size(), std::max<size_t>(k.info().args_align, 1));
    pk.add(static_cast<void*>(nullptr));
    const uint32_t blocks = static_cast<uint32_t>((n + block_dim - 1) / block_dim);
    return gpusim::launch_timed(m, symbol, {blocks, 1, 1}, {static_cast<uint32_t>(block_dim), 1, 1}, pk.bytes(), o);
}

// The sim device times kernels as the model scored against the H200 does: with shared accesses
// as ptxas issues them and loads where ptxas scheduled them (tile_row_sum's row of LDS.128,
// tile_matmul's tile loop), its cycles equal a direct launch_timed with those settings, and
// differ from one with the issue weights only (what the device did before). A second module
// object (a fresh process would do the same) reads the machine code back from the disk cache
// and gets the same cycles, which it could not if the cache held only line counts (no words:
// nothing decoded, no load moved).
TEST(SimDevice, TimesKernelsAsTheValidatedModelDoes) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    // A cache of our own, so that the first run assembles with ptxas and the second reads it back.
    const char* old_cache = std::getenv("WEFT_CACHE_DIR");
    const std::string saved = old_cache ? old_cache : "";
    const std::string dir = ::testing::TempDir() + "/sim-sass-cache-" + std::to_string(::getpid());
    std::filesystem::remove_all(dir);
    setenv("WEFT_CACHE_DIR", dir.c_str(), 1);
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/tests/runtime/sim/kernels/shared_tile.py";
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    const int64_t n = 4096, side = 64;  // tile_matmul: 64 x 64 matrices, 16 blocks of 16 x 16
    runtime::Array values = runtime::Array::zeros(f32, {n}, dev), out = runtime::Array::zeros(f32, {n}, dev);
    runtime::Array a = runtime::Array::zeros(f32, {side, side}, dev), b = runtime::Array::zeros(f32, {side, side}, dev),
                   c = runtime::Array::zeros(f32, {side, side}, dev);
    std::vector<float> host(n);
    for (int64_t i = 0; i < n; ++i) host[static_cast<size_t>(i)] = static_cast<float>(i % 13);
    for (runtime::Array* x : {&values, &a, &b}) x->copy_from_host(host.data(), host.size() * 4);
    auto args_of = [&](const std::string& kernel) {
        if (kernel == "tile_matmul")
            return std::vector<runtime::LaunchArg>{runtime::LaunchArg::of(a), runtime::LaunchArg::of(b),
                                                   runtime::LaunchArg::of(c), runtime::LaunchArg::integer_of(side)};
        return std::vector<runtime::LaunchArg>{runtime::LaunchArg::of(values), runtime::LaunchArg::of(out)};
    };
    // Runs both kernels on a new module object (its own SimModule: ptxas or the disk cache).
    auto run_device = [&]() {
        auto m = runtime::Module::compile({{path, read_file(path), 0}});
        runtime::LaunchOptions o;
        o.device = dev;
        o.debug = 0;
        const uint64_t mark = runtime::sim_report_mark();
        for (const char* name : {"tile_row_sum", "tile_matmul"}) runtime::launch(m->kernel(name), {n}, args_of(name), o);
        const auto reports = runtime::sim_reports_since(mark);
        EXPECT_EQ(reports.size(), 2u);
        return std::make_pair(m, reports);
    };
    const auto [module, first] = run_device();
    ASSERT_EQ(first.size(), 2u);
    bool stored = false;
    for (const auto& e : std::filesystem::directory_iterator(dir)) stored = stored || e.path().extension() == ".sassmap";
    EXPECT_TRUE(stored) << "no machine-code map in " << dir;
    const char* names[] = {"tile_row_sum", "tile_matmul"};
    // The machine code differs from the PTX: ptxas moved loads up, and the shared accesses were
    // decoded from its words. (NVVM already vectorizes these rows: Weft's shared arrays are
    // 16-byte aligned, so ptxas has nothing left to merge; tests/gpusim/sass/sass_map_test.cpp covers merging.)
    {
        const std::string ptx = runtime::generate_ptx(module->compiled(false), "sm_90", compiler::CodePart::Forward);
        const gpusim::Module m = gpusim::parse_ptx(ptx, "module.ptx");
        const gpusim::SassMap map = gpusim::map_sass(ptx, runtime::sim_arch("h200"));
        for (const char* name : names) {
            const std::string symbol = module->kernel(name).info().cuda_symbol;
            int decoded = 0, hoisted = 0;
            for (const gpusim::SharedIssue& s : gpusim::sass_shared_issue(map, m, symbol)) decoded += s.requests >= 0;
            for (const gpusim::LoadHoist& h : gpusim::sass_load_hoist(map, m, symbol, gpusim::sass_weights(map, m, symbol)))
                hoisted += h.offset >= 0;
            EXPECT_GT(decoded, 0) << name << ": no shared access decoded from ptxas's words";
            EXPECT_GT(hoisted, 0) << name << ": ptxas moved none of its loads";
        }
    }
    for (int i = 0; i < 2; ++i) {
        const runtime::Kernel k = module->kernel(names[i]);
        const gpusim::TimingResult direct = direct_launch(k, n, args_of(names[i]), true);
        const gpusim::TimingResult weights_only = direct_launch(k, n, args_of(names[i]), false);
        const gpusim::TimingResult& device = first[static_cast<size_t>(i)]->result;
        EXPECT_EQ(device.cycles, direct.cycles) << names[i];
        EXPECT_EQ(device.issued_instructions, direct.issued_instructions) << names[i];
        EXPECT_EQ(device.total.shared_wavefronts, direct.total.shared_wavefronts) << names[i];
        for (int r = 0; r < gpusim::kNumStalls; ++r)
            EXPECT_EQ(device.total.stall_cycles[r], direct.total.stall_cycles[r]) << names[i] << " stall " << r;
        EXPECT_NE(device.cycles, weights_only.cycles) << names[i] << ": the machine-code settings change nothing here";
        // The report names the PTX entry and carries the SASS instruction estimate of the launch
        // (what Nsight Compute's smsp__inst_executed counts), as sass_map.h computes it directly.
        const std::string ptx = runtime::generate_ptx(module->compiled(false), "sm_90", compiler::CodePart::Forward);
        const gpusim::Module pm = gpusim::parse_ptx(ptx, "module.ptx");
        const gpusim::SassMap map = gpusim::map_sass(ptx, runtime::sim_arch("h200"));
        EXPECT_EQ(first[static_cast<size_t>(i)]->symbol, k.info().cuda_symbol);
        EXPECT_EQ(first[static_cast<size_t>(i)]->result.sass_instructions,
                  gpusim::estimate_sass_instructions(map, pm, k.info().cuda_symbol, direct.counts))
            << names[i];
        EXPECT_GT(first[static_cast<size_t>(i)]->result.sass_instructions, 0u) << names[i];
    }
    // From the disk cache: nothing is assembled again (no cache misses), same cycles.
    const runtime::CacheStats before = runtime::cache_stats();
    const auto [module2, second] = run_device();
    const runtime::CacheStats after = runtime::cache_stats();
    EXPECT_EQ(after.misses, before.misses);
    EXPECT_GT(after.hits, before.hits);
    ASSERT_EQ(second.size(), 2u);
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(second[static_cast<size_t>(i)]->result.cycles, first[static_cast<size_t>(i)]->result.cycles) << names[i];
        EXPECT_EQ(second[static_cast<size_t>(i)]->result.total.shared_wavefronts,
                  first[static_cast<size_t>(i)]->result.total.shared_wavefronts)
            << names[i];
    }
    if (old_cache)
        setenv("WEFT_CACHE_DIR", saved.c_str(), 1);
    else
        unsetenv("WEFT_CACHE_DIR");
    std::filesystem::remove_all(dir);
}

// The Weft half of gpusim's H200 validation, gpusim/validation/weft_kernels.py, compiled.
auto validation_kernels() {
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/gpusim/validation/weft_kernels.py";
    return runtime::Module::compile({{path, read_file(path), 0}});
}

// The Weft half of gpusim's H200 validation (gpusim/validation/weft_kernels.py, scored by
// compare.py) computes what it says on the sim device: small launches against exact answers.
TEST(SimDevice, ValidationKernelsComputeWhatTheySay) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    auto m = validation_kernels();
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    runtime::LaunchOptions o;
    o.device = dev;
    const int64_t n = 64;
    std::vector<float> host(n * n), back(n * n);
    for (int64_t i = 0; i < n * n; ++i) host[size_t(i)] = float(i);
    auto read = [&](const runtime::Array& a) {
        a.copy_to_host(back.data(), back.size() * 4);
        return back;
    };
    // Transposes: b[j][i] == a[i][j], through the 2-D launch and through the shared tile.
    runtime::Array a2 = runtime::Array::zeros(f32, {n, n}, dev), b2 = runtime::Array::zeros(f32, {n, n}, dev);
    runtime::Array a1 = runtime::Array::zeros(f32, {n * n}, dev), b1 = runtime::Array::zeros(f32, {n * n}, dev);
    a2.copy_from_host(host.data(), host.size() * 4);
    a1.copy_from_host(host.data(), host.size() * 4);
    runtime::launch(m->kernel("transpose_naive"), {n, n}, {runtime::LaunchArg::of(a2), runtime::LaunchArg::of(b2)}, o);
    runtime::launch(m->kernel("transpose_tiled"), {n * n / 4},
                    {runtime::LaunchArg::of(a1), runtime::LaunchArg::of(b1), runtime::LaunchArg::integer_of(n)}, o);
    for (const runtime::Array* b : {&b2, &b1}) {
        const auto out = read(*b);
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) ASSERT_EQ(out[size_t(j * n + i)], host[size_t(i * n + j)]) << i << " " << j;
    }
    // wp.tid()'s split of a 2-D launch keeps the shape and the indices in registers: no local
    // memory in the entry (a run-time-indexed loop put both there, 31% of transpose_naive's
    // cycles on the H200: docs/gpusim.md, run 7).
    {
        const std::string ptx = runtime::generate_ptx(m->compiled(false), "sm_90", compiler::CodePart::Forward);
        const std::string symbol = m->kernel("transpose_naive").info().cuda_symbol;
        const size_t at = ptx.find(".entry " + symbol);
        ASSERT_NE(at, std::string::npos);
        const std::string body = ptx.substr(at, ptx.find("\n}", at) - at);
        EXPECT_EQ(body.find(".local"), std::string::npos) << body.substr(0, 2000);
    }
    // Laplacian of i^2 + j^2 is 4 inside, and the border is left alone.
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) host[size_t(i * n + j)] = float(i * i + j * j);
    a2.copy_from_host(host.data(), host.size() * 4);
    runtime::Array lap = runtime::Array::zeros(f32, {n, n}, dev);
    runtime::launch(m->kernel("laplace_2d"), {n, n}, {runtime::LaunchArg::of(a2), runtime::LaunchArg::of(lap)}, o);
    const auto l = read(lap);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const bool inside = i > 0 && j > 0 && i < n - 1 && j < n - 1;
            ASSERT_EQ(l[size_t(i * n + j)], inside ? 4.0f : 0.0f) << i << " " << j;
        }
    // Both sums: small integers, so every order of addition gives the exact total.
    double total = 0;
    for (int64_t i = 0; i < n * n; ++i) total += host[size_t(i)] = float(i % 13);
    a1.copy_from_host(host.data(), host.size() * 4);
    for (const char* k : {"reduce_block", "reduce_atomic"}) {
        runtime::Array out = runtime::Array::zeros(f32, {1}, dev);
        runtime::launch(m->kernel(k), {n * n}, {runtime::LaunchArg::of(a1), runtime::LaunchArg::of(out)}, o);
        float r = 0;
        out.copy_to_host(&r, 4);
        EXPECT_EQ(r, total) << k;
    }
}

// The SASS estimate each sim launch reports, on three of the Weft validation kernels, against
// the H200's smsp__inst_executed (run 4, bench/results/gpusim-h200/2026-12-03-run4-weft/
// ncu_weft.csv) per warp, at smaller sizes whose warps run the same SASS:
//   saxpy: 3,211,264 / 32,768 warps = 98 per warp (the grid-stride loop's 32-bit division and
//     remainder loop; ptxas hoists the loop's parameter loads and copies the `ret` into EXITs);
//   transpose_tiled: 1,392,640 / 8,192 = 170 (ptxas turns the floor division's special cases
//     into a BRX jump table; every block takes the general case);
//   laplace_2d (1024 x 1024, 32,768 warps; run 7, 2026-12-03-run7-weft-tid/, since wp.tid()'s
//     split keeps the shape in registers): the warps of rows 0 and 1023 (64) run none of the
//     interior stencil (63 SASS instructions), the 2 x 1022 warps holding a border column split
//     at its branch and reach the BSYNC behind it as two groups (ncu: the stencil 32,704 times,
//     the BSYNC 34,812); the rest is (5,732,412 - 63 x 32,704 - 34,812) / 32,768 = 111 per
//     warp. At 64 x 64 (128 warps): 4 border-row warps, 124 split warps:
//     111 x 128 + 63 x 124 + (128 + 124) = 22,272.
TEST(SimDevice, SassEstimateOfValidationKernelsMatchesTheH200PerWarp) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    auto m = validation_kernels();
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    runtime::LaunchOptions o;
    o.device = dev;
    o.debug = 0;
    const int64_t n = 64;
    std::vector<float> host(n * n);
    for (int64_t i = 0; i < n * n; ++i) host[size_t(i)] = float(i % 17);
    runtime::Array a1 = runtime::Array::zeros(f32, {n * n}, dev), b1 = runtime::Array::zeros(f32, {n * n}, dev);
    runtime::Array a2 = runtime::Array::zeros(f32, {n, n}, dev), b2 = runtime::Array::zeros(f32, {n, n}, dev);
    a1.copy_from_host(host.data(), host.size() * 4);
    a2.copy_from_host(host.data(), host.size() * 4);
    const float alpha = 2.5f;
    const uint64_t mark = runtime::sim_report_mark();
    runtime::launch(m->kernel("saxpy"), {n * n},
                    {runtime::LaunchArg::of(a1), runtime::LaunchArg::of(b1), runtime::LaunchArg::value(f32, &alpha)}, o);
    runtime::launch(m->kernel("transpose_tiled"), {n * n / 4},
                    {runtime::LaunchArg::of(a1), runtime::LaunchArg::of(b1), runtime::LaunchArg::integer_of(n)}, o);
    runtime::launch(m->kernel("laplace_2d"), {n, n}, {runtime::LaunchArg::of(a2), runtime::LaunchArg::of(b2)}, o);
    const auto reports = runtime::sim_reports_since(mark);
    ASSERT_EQ(reports.size(), 3u);
    EXPECT_EQ(reports[0]->result.sass_instructions, 98u * (n * n / 32)) << "saxpy";
    EXPECT_EQ(reports[1]->result.sass_instructions, 170u * (n * n / 4 / 32)) << "transpose_tiled";
    EXPECT_EQ(reports[2]->result.sass_instructions, 22272u) << "laplace_2d";
}

// Every thread of reduce_atomic (gpusim/validation/weft_kernels.py) adds into one word: the
// H200 serialises them at its L2 slice, 3,649,502 cycles for 2^20 threads (run 7,
// bench/results/gpusim-h200/2026-12-03-run7-weft-tid/ncu_weft.csv), 3.48 cycles per add. The sim
// device, which hands the timing model device addresses (not the host's), must serialise them
// too: a quarter of the threads within 15% of a quarter of that time. (The model once compared a
// device line with host word addresses, found no word in common and timed the adds as if spread:
// 46,798 cycles at 2^20, -98.7%.)
TEST(SimDevice, AtomicsOnOneWordAreSerialisedAsOnTheH200) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    auto m = validation_kernels();
    const runtime::Device dev = runtime::parse_device("sim:h200");
    const compiler::Type f32 = compiler::float32_type();
    runtime::LaunchOptions o;
    o.device = dev;
    o.debug = 0;
    const int64_t n = int64_t{1} << 18;
    std::vector<float> host(size_t(n), 1.0f);
    runtime::Array x = runtime::Array::zeros(f32, {n}, dev), out = runtime::Array::zeros(f32, {1}, dev);
    x.copy_from_host(host.data(), host.size() * 4);
    const uint64_t mark = runtime::sim_report_mark();
    runtime::launch(m->kernel("reduce_atomic"), {n}, {runtime::LaunchArg::of(x), runtime::LaunchArg::of(out)}, o);
    const auto reports = runtime::sim_reports_since(mark);
    ASSERT_EQ(reports.size(), 1u);
    float sum = 0;
    out.copy_to_host(&sum, 4);
    EXPECT_EQ(sum, static_cast<float>(n));
    const double h200 = 3649502.0 * static_cast<double>(n) / static_cast<double>(int64_t{1} << 20);
    EXPECT_NEAR(static_cast<double>(reports[0]->result.cycles), h200, 0.15 * h200);
}

TEST(SimDevice, SettingsAndArchitectureFilesAreChecked) {
    runtime::SimSettings s;
    s.scheduler = "fifo";
    try {
        runtime::set_sim_settings(s);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "unknown warp scheduler 'fifo'; known: gto, lrr, two-level, latency-hiding");
    }
    s.scheduler = "two-level";
    s.trace_filter.opcode = "lod";
    try {
        runtime::set_sim_settings(s);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("opcode 'lod' is not a PTX instruction"), std::string::npos) << e.what();
    }
    runtime::set_sim_settings({});
    // A malformed architecture file: the error names file:line:col and the key.
    std::string text = read_file(std::string(WEFT_SOURCE_DIR) + "/gpusim/arch/h200.json");
    const size_t at = text.find("\"hit_latency\"");
    ASSERT_NE(at, std::string::npos);
    const size_t colon = text.find(':', at), end = text.find_first_of(",}\n", colon);
    text.replace(colon + 1, end - colon - 1, " \"fast\"");
    const std::string path = ::testing::TempDir() + "/bad_arch.json";
    std::ofstream(path) << text;
    try {
        runtime::register_sim_arch_file(path);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("bad_arch.json:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'l1.hit_latency': expected a number, found a string"), std::string::npos)
            << e.what();
    }
}

TEST(SimDevice, ArchitectureFileBecomesADevice) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    // Ten times the shared-memory latency: the conflicted kernel must get slower.
    const std::string path = h200_variant("h200_slow_smem", "\"latency\"", "\"shared\"", "230");
    EXPECT_EQ(runtime::register_sim_arch_file(path), "h200_slow_smem");
    EXPECT_EQ(runtime::sim_ptx_arch("h200_slow_smem"), "sm_90");
    Cmd fast = weft("sim " + kKernels + " --kernel column_store --dim 64 --report json");
    Cmd slow = weft("sim " + kKernels + " --kernel column_store --dim 64 --report json --arch " + path);
    ASSERT_EQ(fast.code, 0) << fast.out;
    ASSERT_EQ(slow.code, 0) << slow.out;
    auto cycles = [](const std::string& json) {
        return gpusim::parse_json(json, "report").find("timing")->find("cycles")->number;
    };
    EXPECT_GT(cycles(slow.out), cycles(fast.out) + 200);
    EXPECT_NE(slow.out.find("\"arch\": \"h200_slow_smem\""), std::string::npos);
}

// The sim device launches the grid the cuda device would (runtime/cuda/grid_policy.h): a light
// streaming kernel (a copy reads 4 bytes per thread) gets at most 8 waves of the blocks the GPU
// holds at once, and its grid-stride loop still covers every element; WEFT_CUDA_GRID_WAVES=0
// gives the full grid. On a 2-SM copy of the H200 (8 blocks of 256 per SM): 128 blocks.
TEST(SimDevice, LaunchesTheGridTheCudaDeviceWould) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed (no register count, no occupancy)";
    const std::string path = h200_variant("h200_two_sms", "\"sm\"", "\"count\"", "2");
    ASSERT_EQ(runtime::register_sim_arch_file(path), "h200_two_sms");
    const char* src =
        "import weft as wp\n\n@wp.kernel\ndef copy(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    i = wp.tid()\n    "
        "y[i] = x[i]\n";
    auto m = runtime::Module::compile({{"grid_copy.py", src, 0}});
    const runtime::Device dev = runtime::parse_device("sim:h200_two_sms");
    const int64_t n = 256 * 300;
    std::vector<float> host(n);
    for (int64_t i = 0; i < n; ++i) host[size_t(i)] = float(i % 1000);
    runtime::Array x = runtime::Array::zeros(compiler::float32_type(), {n}, dev),
                   y = runtime::Array::zeros(compiler::float32_type(), {n}, dev);
    x.copy_from_host(host.data(), host.size() * 4);
    runtime::LaunchOptions o;
    o.device = dev;
    o.debug = 0;
    const char* old = std::getenv("WEFT_CUDA_GRID_WAVES");
    const std::string saved = old ? old : "";
    auto blocks = [&](const char* setting) {
        if (setting)
            setenv("WEFT_CUDA_GRID_WAVES", setting, 1);
        else
            unsetenv("WEFT_CUDA_GRID_WAVES");
        y.copy_from_host(std::vector<float>(n, -1.0f).data(), n * 4);
        const uint64_t mark = runtime::sim_report_mark();
        runtime::launch(m->kernel("copy"), {n}, {runtime::LaunchArg::of(x), runtime::LaunchArg::of(y)}, o);
        std::vector<float> back(n);
        y.copy_to_host(back.data(), back.size() * 4);
        EXPECT_EQ(back, host) << (setting ? setting : "auto");
        const auto reports = runtime::sim_reports_since(mark);
        return reports.empty() ? 0u : reports.back()->result.counts.grid.x;
    };
    EXPECT_EQ(blocks(nullptr), 128u);  // auto: 8 waves x 8 blocks x 2 SMs
    EXPECT_EQ(blocks("0"), 300u);      // the full grid
    EXPECT_EQ(blocks("1"), 16u);       // one wave
    if (old)
        setenv("WEFT_CUDA_GRID_WAVES", saved.c_str(), 1);
    else
        unsetenv("WEFT_CUDA_GRID_WAVES");
}

}  // namespace
}  // namespace weft
