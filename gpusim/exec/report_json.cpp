// gpusim/exec/report_json.cpp — LaunchResult as JSON (write_json / to_json in launch.h).
//
// Shape: {"kernel": str, "grid": [x,y,z], "block": [x,y,z], "total": COUNTS,
//         "lines": [{"file": str, "file_index": n, "line": n, "counts": COUNTS}],
//         "instructions": [{"index": n, "ptx_line": n, "text": str, "file_index": n,
//                           "line": n, "counts": COUNTS}]}
// where COUNTS has one integer per Counters field plus "active_lane_ratio".
#include <ostream>
#include <sstream>

#include "gpusim/exec/launch.h"
#include "support/json.h"

namespace weft::gpusim {
namespace json_detail {

void write_counts(std::ostream& out, const Counters& k) {
    out << "{\"warp_instructions\": " << k.warp_instructions << ", \"thread_instructions\": " << k.thread_instructions
        << ", \"active_lane_ratio\": " << k.active_lane_ratio() << ", \"global_loads\": " << k.global_loads
        << ", \"global_stores\": " << k.global_stores << ", \"shared_loads\": " << k.shared_loads
        << ", \"shared_stores\": " << k.shared_stores << ", \"shared_requests\": " << k.shared_requests
        << ", \"local_loads\": " << k.local_loads << ", \"local_stores\": " << k.local_stores << ", \"atomics\": " << k.atomics
        << ", \"branches\": " << k.branches << ", \"divergent_branches\": " << k.divergent_branches << "}";
}

void write_dim(std::ostream& out, Dim3 d) { out << "[" << d.x << ", " << d.y << ", " << d.z << "]"; }

}  // namespace json_detail
using namespace json_detail;

void write_json(std::ostream& out, const LaunchResult& r) {
    out << "{\"kernel\": ";
    support::write_json_string(out, r.kernel);
    out << ", \"grid\": ";
    write_dim(out, r.grid);
    out << ", \"block\": ";
    write_dim(out, r.block);
    out << ",\n \"total\": ";
    write_counts(out, r.total);
    out << ",\n \"lines\": [";
    for (size_t i = 0; i < r.per_line.size(); ++i) {
        const LineCounters& l = r.per_line[i];
        out << (i ? ",\n  " : "\n  ") << "{\"file\": ";
        support::write_json_string(out, l.file_name);
        out << ", \"file_index\": " << l.file << ", \"line\": " << l.line << ", \"counts\": ";
        write_counts(out, l.counts);
        out << "}";
    }
    out << "],\n \"instructions\": [";
    for (size_t i = 0; i < r.per_instruction.size(); ++i) {
        const InstructionCounters& ic = r.per_instruction[i];
        out << (i ? ",\n  " : "\n  ") << "{\"index\": " << ic.index << ", \"ptx_line\": " << ic.ptx_line << ", \"text\": ";
        support::write_json_string(out, ic.text);
        out << ", \"file_index\": " << ic.file << ", \"line\": " << ic.line << ", \"counts\": ";
        write_counts(out, ic.counts);
        out << "}";
    }
    out << "]}\n";
}

std::string to_json(const LaunchResult& r) {
    std::ostringstream s;
    write_json(s, r);
    return s.str();
}

}  // namespace weft::gpusim
