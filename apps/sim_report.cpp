// apps/sim_report.cpp: `weft sim`'s options and report (see sim_report.h).
//
// The text report is for a person: the kernel's cycles, time, IPC, occupancy, where the warps
// stalled, bank conflicts, sectors per request and hit rates, then one row per source line with
// its share of the kernel's warp-cycles and what it waited on. The JSON report is for tools:
// gpusim::write_timing_json of the launch (per line: line number, shared requests, wavefronts,
// excess wavefronts, sectors, stalls, cycles; docs/gpusim.md lists every field).
#include "apps/sim_report.h"

#include "apps/arch_option.h"
#include "apps/cli.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "gpusim/arch/resolve_arch.h"
#include "gpusim/timing/policy_names.h"
#include "runtime/errors.h"
#if WEFT_HAVE_SIM
#include "runtime/sim/sim_backend.h"
#endif

namespace weft::apps {

const std::vector<std::string>& sim_option_names() {
    static const std::vector<std::string> v = {"scheduler",    "threads",    "trace-jsonl", "trace-opcode",
                                               "trace-sm",     "trace-warp", "trace-block", "trace-line",
                                               "trace-cycles", "trace-max",  "chrome-trace"};
    return v;
}

std::string sim_options_usage() {
    // The names are gpusim's lists: its architecture files and its warp schedulers.
    auto list = [](const std::vector<std::string>& names, const std::string& dflt) {
        std::string out;
        for (const auto& n : names) out += (out.empty() ? "" : ", ") + n + (n == dflt ? " (default)" : "");
        return out;
    };
    return "  --arch NAME|FILE.json     GPU model: an architecture file's name (gpusim/arch/: " +
           list(gpusim::builtin_arch_names(), kDefaultArch) +
           ") or path\n"
           "  --report text|json        per-kernel and per-source-line report (json: for tools)\n"
           "  --scheduler POLICY        warp scheduler: " +
           list(gpusim::scheduler_names(), "gto") +
           "\n"
           "  --threads N               host threads simulating the SMs (default: WEFT_SIM_THREADS, else every core;\n"
           "                            the report is the same for any N)\n"
           "  --trace-jsonl FILE        write every issued warp instruction as one JSON line, filtered by:\n"
           "    --trace-opcode OP       opcode prefix at a '.' boundary (ld, ld.shared, bar, fma.rn)\n"
           "    --trace-sm N  --trace-warp N  --trace-block N  --trace-line N (kernel source line)\n"
           "    --trace-cycles A:B      cycle window (either end may be left out: 1000: or :500)\n"
           "    --trace-max N           at most N records (default 1000000)\n"
           "  --chrome-trace FILE       Chrome trace JSON (Perfetto): SMs as processes, block slots and warps as threads\n";
}

namespace {

[[maybe_unused]] int64_t int_option(const Args& args, const std::string& name, int64_t lo) {
    auto v = args.get(name);
    if (!v) return -1;
    try {
        size_t used = 0;
        long long x = std::stoll(*v, &used);
        if (used == v->size() && x >= lo) return x;
    } catch (const std::exception&) {}
    throw UsageError("--" + name + " takes an integer >= " + std::to_string(lo) + "; got '" + *v + "'");
}

[[maybe_unused]] uint64_t cycle_bound(const std::string& s, const std::string& whole, uint64_t dflt) {
    if (s.empty()) return dflt;
    try {
        size_t used = 0;
        unsigned long long x = std::stoull(s, &used);
        if (used == s.size() && s[0] != '-') return x;
    } catch (const std::exception&) {}
    throw UsageError("--trace-cycles takes FIRST:LAST cycles (either may be left out); got '" + whole + "'");
}

}  // namespace

#if !WEFT_HAVE_SIM
std::string configure_sim(const Args&) {
    throw UsageError("this build has no simulator (it needs NVRTC: configure with the CUDA toolkit)");
}
int print_sim_report(const Args&, const std::string&, uint64_t) {
    throw UsageError("this build has no simulator (it needs NVRTC: configure with the CUDA toolkit)");
}
#else

std::string configure_sim(const Args& args) {
    // --arch as every command reads it (apps/arch_option.h); a file is registered as sim:NAME.
    const std::string arg = args.get_or("arch", kDefaultArch);
    const gpusim::ArchSpec spec = arch_option(args);
    const std::string arch = gpusim::is_arch_path(arg) ? runtime::register_sim_arch(spec, arg) : arg;
    runtime::SimSettings s;
    s.scheduler = args.get_or("scheduler", "gto");
    try {
        runtime::sim_scheduler(s.scheduler);
    } catch (const runtime::RuntimeError& e) { throw UsageError(std::string("--scheduler: ") + e.what()); }
    if (args.get("threads")) s.threads = static_cast<int>(std::min<int64_t>(int_option(args, "threads", 1), 1024));
    gpusim::TraceFilter& f = s.trace_filter;
    f.sm = static_cast<int32_t>(int_option(args, "trace-sm", 0));
    f.warp = static_cast<int32_t>(int_option(args, "trace-warp", 0));
    f.block = int_option(args, "trace-block", 0);
    f.source_line = static_cast<int32_t>(int_option(args, "trace-line", 1));
    if (auto m = args.get("trace-max")) f.max_records = static_cast<uint64_t>(int_option(args, "trace-max", 1));
    f.opcode = args.get_or("trace-opcode", "");
    if (auto c = args.get("trace-cycles")) {
        const size_t colon = c->find(':');
        if (colon == std::string::npos)
            throw UsageError("--trace-cycles takes FIRST:LAST cycles (either may be left out); got '" + *c + "'");
        f.first_cycle = cycle_bound(c->substr(0, colon), *c, 0);
        f.last_cycle = cycle_bound(c->substr(colon + 1), *c, UINT64_MAX);
    }
    bool filtered = false;
    for (const char* o : {"trace-opcode", "trace-sm", "trace-warp", "trace-block", "trace-line", "trace-cycles", "trace-max"})
        filtered |= args.get(o).has_value();
    if (filtered && !args.get("trace-jsonl")) throw UsageError("the --trace-* filters need --trace-jsonl FILE");
    try {
        gpusim::check_trace_filter(f);
    } catch (const gpusim::SimError& e) {
        throw UsageError(std::string("--trace-") + (f.opcode.empty() ? "cycles" : "opcode") + ": " + e.what());
    }
    if (auto path = args.get("trace-jsonl")) {
        auto out = std::make_shared<std::ofstream>(*path, std::ios::binary);
        if (!*out) throw UsageError("--trace-jsonl: cannot write '" + *path + "'");
        s.trace = out;
    }
    s.timeline = args.get("chrome-trace").has_value();
    runtime::set_sim_settings(s);
    return "sim:" + arch;
}

namespace {

double pct(uint64_t a, uint64_t b) { return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0; }
double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

gpusim::Stall top_stall(const gpusim::TimingCounters& t) {
    int best = 1;
    for (int s = 2; s < gpusim::kNumStalls; ++s)
        if (t.stall_cycles[s] > t.stall_cycles[best]) best = s;
    return static_cast<gpusim::Stall>(best);
}

void print_kernel_summary(const runtime::SimLaunchReport& rep) {
    const gpusim::TimingResult& r = rep.result;
    const gpusim::Counters& c = r.counts.total;
    printf("kernel %s: grid %u x block %u on %s\n", r.counts.kernel.c_str(), r.counts.grid.x, r.counts.block.x,
           rep.device.c_str());
    if (rep.timed) {
        const gpusim::Occupancy& o = r.occupancy;
        const gpusim::TimingCounters& t = r.total;
        printf(
            "  cycles %llu (%.2f us), IPC %.2f, occupancy %.0f%% theoretical (%d blocks/SM, limited by %s, %d registers) / "
            "%.0f%% achieved\n",
            (unsigned long long)r.cycles, r.time_us, r.ipc, 100.0 * o.theoretical, o.blocks_per_sm,
            gpusim::occupancy_limit_name(o.limiter), o.registers_per_thread, 100.0 * r.achieved_occupancy);
        printf("  warp-cycles by state:");
        const uint64_t all = t.warp_cycles();
        for (int s = 0; s < gpusim::kNumStalls; ++s)
            if (t.stall_cycles[s])
                printf(" %s %.1f%%", gpusim::stall_name(static_cast<gpusim::Stall>(s)), pct(t.stall_cycles[s], all));
        printf(
            "\n  shared: %llu requests, %llu wavefronts (%llu excess from bank conflicts); global: %llu requests, %.2f "
            "sectors/request, "
            "L1 hit %.1f%%, L2 hit %.1f%%, DRAM %.1f KB read %.1f KB written\n",
            (unsigned long long)c.shared_requests, (unsigned long long)t.shared_wavefronts,
            (unsigned long long)t.shared_excess_wavefronts(), (unsigned long long)t.global_requests,
            ratio(t.global_sectors, t.global_requests), pct(t.l1_hits, t.l1_hits + t.l1_misses),
            pct(t.l2_hits, t.l2_hits + t.l2_misses), r.dram_read_bytes / 1e3, r.dram_write_bytes / 1e3);
    } else {
        printf("  (timing off: WEFT_SIM_TIMING=0)\n");
    }
    printf("  warp instructions %llu (PTX)", (unsigned long long)c.warp_instructions);
    if (rep.timed && rep.result.sass_instructions) printf(", about %llu SASS", (unsigned long long)rep.result.sass_instructions);
    printf(", thread instructions %llu, active lanes %.1f%%, divergent branches %llu\n\n",
           (unsigned long long)c.thread_instructions, 100.0 * c.active_lane_ratio(), (unsigned long long)c.divergent_branches);
}

}  // namespace

int print_sim_report(const Args& args, const std::string& path, uint64_t mark) {
    const auto reports = runtime::sim_reports_since(mark);
    if (reports.empty()) throw runtime::RuntimeError("the simulator reported no launch");
    if (auto chrome = args.get("chrome-trace")) {
        std::vector<const gpusim::TimingResult*> launches;
        for (const auto& r : reports)
            if (r->timed) launches.push_back(&r->result);
        std::ofstream f(*chrome, std::ios::binary);
        if (!f) throw UsageError("--chrome-trace: cannot write '" + *chrome + "'");
        const double gap = runtime::sim_arch(reports.back()->device.substr(4)).launch_overhead_us;
        gpusim::write_chrome_trace(f, launches, gap);
    }
    const runtime::SimLaunchReport& rep = *reports.back();
    const gpusim::TimingResult& r = rep.result;
    if (args.get_or("report", "text") == "json") {
        if (rep.timed)
            gpusim::write_timing_json(std::cout, r);
        else
            gpusim::write_json(std::cout, r.counts);
        std::cout << "\n";
        return 0;
    }
    std::vector<std::string> lines;
    {
        std::istringstream in(read_source(path));
        std::string l;
        while (std::getline(in, l)) lines.push_back(l);
    }
    print_kernel_summary(rep);
    printf("%6s %10s %7s %-16s %6s %8s %8s %8s %8s %6s %6s  %s\n", "line", "warp inst", "cycles", "top stall", "lanes", "gld/st",
           "shared", "wavefr", "excess", "sect/r", "diverg", "source");
    // The module's own lines first, in line order; then generated glue and builtins headers.
    auto is_ours = [&](const gpusim::LineCounters& lc) {
        return lc.file_name.empty() || lc.file_name.find(path) != std::string::npos ||
               path.find(lc.file_name) != std::string::npos;
    };
    std::vector<size_t> rows;
    for (size_t i = 0; i < r.counts.per_line.size(); ++i) rows.push_back(i);
    std::stable_sort(rows.begin(), rows.end(), [&](size_t ia, size_t ib) {
        const auto& a = r.counts.per_line[ia];
        const auto& b = r.counts.per_line[ib];
        bool oa = is_ours(a), ob = is_ours(b);
        if (oa != ob) return oa;
        if (a.file_name != b.file_name) return a.file_name < b.file_name;
        return a.line < b.line;
    });
    uint64_t all = 0;
    for (const auto& t : r.per_line) all += t.warp_cycles();
    for (size_t i : rows) {
        const gpusim::LineCounters& lc = r.counts.per_line[i];
        const gpusim::Counters& c = lc.counts;
        gpusim::TimingCounters t;
        if (rep.timed && i < r.per_line.size()) t = r.per_line[i];
        std::string src;
        if (is_ours(lc) && lc.line > 0 && lc.line <= static_cast<int>(lines.size()))
            src = lines[static_cast<size_t>(lc.line - 1)];
        if (!is_ours(lc)) src = "(" + lc.file_name + ")";
        char cyc[16] = "-", stall[24] = "-", sect[16] = "-";
        if (rep.timed) {
            snprintf(cyc, sizeof cyc, "%.1f%%", pct(t.warp_cycles(), all));
            if (t.total_stall_cycles()) snprintf(stall, sizeof stall, "%s", gpusim::stall_name(top_stall(t)));
            if (t.global_requests) snprintf(sect, sizeof sect, "%.2f", ratio(t.global_sectors, t.global_requests));
        }
        printf("%6d %10llu %7s %-16s %5.0f%% %8llu %8llu %8llu %8llu %6s %6llu  %s\n", lc.line,
               (unsigned long long)c.warp_instructions, cyc, stall, 100.0 * c.active_lane_ratio(),
               (unsigned long long)(c.global_loads + c.global_stores), (unsigned long long)c.shared_requests,
               (unsigned long long)t.shared_wavefronts, (unsigned long long)t.shared_excess_wavefronts(), sect,
               (unsigned long long)c.divergent_branches, src.c_str());
    }
    return 0;
}

#endif

}  // namespace weft::apps
