// gpusim/timing/timing_report.cpp — TimingResult as JSON (the launch JSON of report_json.cpp
// with "timing" objects added) and as a Chrome trace / Perfetto timeline.
//
// TIMING (per kernel, line and instruction):
//   {"issued": n, "cycles": n, "stalls": {"selected": n, "not_selected": n, "wait": n, ...},
//    "shared_requests": n,
//    "shared_wavefronts": n, "shared_ideal_wavefronts": n, "shared_excess_wavefronts": n,
//    "global_requests": n, "global_sectors": n, "sectors_per_request": x,
//    "l1_hit_rate": x, "l2_hit_rate": x, "avg_memory_latency": x}
// "cycles" there is warp-cycles: the cycles warps spent at the line or instruction, issuing or
// stalled (what Nsight Compute's warp-state sampling estimates); their share of the kernel's
// warp-cycles is the share of its time. The kernel-level object adds the kernel's cycles,
// time_us, ipc, occupancy and DRAM bytes.
//
// The Chrome trace puts each SM in a process (pid = SM), block slots and warps on threads.
#include <ostream>
#include <set>

#include "gpusim/timing/timing.h"
#include "support/json.h"

namespace weft::gpusim {
namespace json_detail {
void write_counts(std::ostream& out, const Counters& k);
void write_dim(std::ostream& out, Dim3 d);
}  // namespace json_detail

namespace {
using namespace json_detail;

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

void write_timing(std::ostream& out, const TimingCounters& t, const Counters& c) {
    out << "{\"issued\": " << t.issue_cycles() << ", \"cycles\": " << t.warp_cycles() << ", \"stalls\": {";
    for (int i = 0; i < kNumStalls; ++i)
        out << (i ? ", " : "") << "\"" << stall_name(static_cast<Stall>(i)) << "\": " << t.stall_cycles[i];
    out << "}, \"shared_requests\": " << c.shared_requests << ", \"shared_wavefronts\": " << t.shared_wavefronts
        << ", \"shared_ideal_wavefronts\": " << t.shared_ideal_wavefronts
        << ", \"shared_excess_wavefronts\": " << t.shared_excess_wavefronts() << ", \"global_requests\": " << t.global_requests
        << ", \"global_sectors\": " << t.global_sectors
        << ", \"sectors_per_request\": " << ratio(t.global_sectors, t.global_requests)
        << ", \"l1_hit_rate\": " << ratio(t.l1_hits, t.l1_hits + t.l1_misses)
        << ", \"l2_hit_rate\": " << ratio(t.l2_hits, t.l2_hits + t.l2_misses)
        << ", \"avg_memory_latency\": " << ratio(t.memory_latency_cycles, t.global_requests) << "}";
}

}  // namespace

void write_timing_json(std::ostream& out, const TimingResult& r) {
    const LaunchResult& l = r.counts;
    const Occupancy& o = r.occupancy;
    out << "{\"kernel\": ";
    support::write_json_string(out, l.kernel);
    out << ", \"grid\": ";
    write_dim(out, l.grid);
    out << ", \"block\": ";
    write_dim(out, l.block);
    out << ",\n \"timing\": {\"arch\": ";
    support::write_json_string(out, r.arch);
    out << ", \"cycles\": " << r.cycles << ", \"time_us\": " << r.time_us << ", \"ipc\": " << r.ipc
        << ", \"sass_instructions\": " << r.sass_instructions << ", \"achieved_occupancy\": " << r.achieved_occupancy
        << ", \"sm_active_cycles\": " << r.sm_active_cycles << ", \"dram_read_bytes\": " << r.dram_read_bytes
        << ", \"dram_write_bytes\": " << r.dram_write_bytes << ", \"scheduler\": \"" << r.scheduler << "\", \"shared_model\": \""
        << r.shared_model << "\", \"l1_policy\": \"" << r.l1_policy << "\", \"l2_policy\": \"" << r.l2_policy << "\""
        << ",\n  \"occupancy\": {\"registers_per_thread\": " << o.registers_per_thread
        << ", \"shared_per_block\": " << o.shared_per_block << ", \"blocks_per_sm\": " << o.blocks_per_sm
        << ", \"limit_warps\": " << o.limit_warps << ", \"limit_blocks\": " << o.limit_blocks
        << ", \"limit_registers\": " << o.limit_registers << ", \"limit_shared\": " << o.limit_shared << ", \"limiter\": \""
        << occupancy_limit_name(o.limiter) << "\", \"theoretical\": " << o.theoretical << "},\n  \"total\": ";
    write_timing(out, r.total, l.total);
    out << "},\n \"total\": ";
    write_counts(out, l.total);
    out << ",\n \"lines\": [";
    for (size_t i = 0; i < l.per_line.size(); ++i) {
        const LineCounters& lc = l.per_line[i];
        out << (i ? ",\n  " : "\n  ") << "{\"file\": ";
        support::write_json_string(out, lc.file_name);
        out << ", \"file_index\": " << lc.file << ", \"line\": " << lc.line << ", \"counts\": ";
        write_counts(out, lc.counts);
        out << ", \"timing\": ";
        write_timing(out, r.per_line[i], lc.counts);
        out << "}";
    }
    out << "],\n \"instructions\": [";
    for (size_t i = 0; i < l.per_instruction.size(); ++i) {
        const InstructionCounters& ic = l.per_instruction[i];
        out << (i ? ",\n  " : "\n  ") << "{\"index\": " << ic.index << ", \"ptx_line\": " << ic.ptx_line << ", \"text\": ";
        support::write_json_string(out, ic.text);
        out << ", \"file_index\": " << ic.file << ", \"line\": " << ic.line << ", \"counts\": ";
        write_counts(out, ic.counts);
        out << ", \"timing\": ";
        write_timing(out, r.per_instruction[i], ic.counts);
        out << "}";
    }
    out << "]}\n";
}

void write_chrome_trace(std::ostream& out, const TimingResult& r) {
    const TimingResult* one = &r;
    write_chrome_trace(out, std::span<const TimingResult* const>(&one, 1));
}

void write_chrome_trace(std::ostream& out, std::span<const TimingResult* const> launches, double gap_us) {
    out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
    bool first = true;
    auto sep = [&] {
        out << (first ? "\n" : ",\n");
        first = false;
    };
    // Name every SM process and every track once, over all launches.
    std::set<int32_t> sms;
    std::set<std::pair<int32_t, int64_t>> tracks;
    for (const TimingResult* r : launches) {
        for (const BlockSpan& b : r->blocks) {
            sms.insert(b.sm);
            tracks.insert({b.sm, b.slot});
        }
        for (const WarpSpan& w : r->warps) tracks.insert({w.sm, 1000 + int64_t{w.slot} * 100 + w.warp});
    }
    for (int32_t sm : sms) {
        sep();
        out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << sm << ", \"args\": {\"name\": \"SM " << sm << "\"}}";
        sep();
        out << "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " << sm << ", \"args\": {\"sort_index\": " << sm
            << "}}";
    }
    for (const auto& [sm, tid] : tracks) {
        sep();
        out << "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " << sm << ", \"tid\": " << tid
            << ", \"args\": {\"name\": \"";
        if (tid < 1000)
            out << "block slot " << tid;
        else
            out << "slot " << (tid - 1000) / 100 << " warp " << (tid - 1000) % 100;
        out << "\"}}";
    }
    double t0 = 0;  // µs where the current launch starts
    for (const TimingResult* rp : launches) {
        const TimingResult& r = *rp;
        const double mhz = r.cycles && r.time_us > 0 ? static_cast<double>(r.cycles) / r.time_us : 1.0;
        for (const BlockSpan& b : r.blocks) {
            sep();
            out << "{\"name\": ";
            support::write_json_string(out, r.counts.kernel + " block " + std::to_string(b.block));
            out << ", \"cat\": \"block\", \"ph\": \"X\", \"pid\": " << b.sm << ", \"tid\": " << b.slot
                << ", \"ts\": " << t0 + static_cast<double>(b.start) / mhz
                << ", \"dur\": " << static_cast<double>(b.end - b.start) / mhz << ", \"args\": {\"kernel\": ";
            support::write_json_string(out, r.counts.kernel);
            out << ", \"block\": " << b.block << ", \"start_cycle\": " << b.start << ", \"end_cycle\": " << b.end << "}}";
        }
        for (const WarpSpan& w : r.warps) {
            sep();
            out << "{\"name\": ";
            support::write_json_string(out, r.counts.kernel + " b" + std::to_string(w.block) + " w" + std::to_string(w.warp));
            out << ", \"cat\": \"warp\", \"ph\": \"X\", \"pid\": " << w.sm
                << ", \"tid\": " << 1000 + int64_t{w.slot} * 100 + w.warp
                << ", \"ts\": " << t0 + static_cast<double>(w.start) / mhz
                << ", \"dur\": " << static_cast<double>(w.end - w.start) / mhz << ", \"args\": {\"block\": " << w.block
                << ", \"warp\": " << w.warp << ", \"scheduler\": " << w.scheduler << ", \"issued\": " << w.issued
                << ", \"ipc\": " << ratio(w.issued, w.end - w.start) << "}}";
        }
        t0 += r.time_us + gap_us;
    }
    out << "\n]}\n";
}

}  // namespace weft::gpusim
