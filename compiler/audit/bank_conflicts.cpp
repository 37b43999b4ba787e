// Shared-memory bank conflicts: for every shared access the interpreter could evaluate, the byte
// address of each lane of each warp goes through gpusim's bank model (shared_requests.h: the rule
// Nsight Compute counts by, one implementation for the simulator and the audit), giving
// wavefronts and the excess over the ideal per request. Accesses wider than 16 bytes or of odd
// widths (vec3: 12 bytes) are issued as 4-byte accesses, one request per word.
//
// The suggestion: for a 2-D tile [R][C], the smallest padding p that makes this access
// conflict-free with rows of C + p elements (the classic [32][32] -> [32][33]); for a 1-D array,
// the stride between lanes and the advice to make it odd.
//
// The accesses are those the machine code issues (merged_accesses.h): where ptxas merged two
// 4-byte stores of a thread into one STS.64, the cost is that 8-byte request's, reported at the
// line of the instruction with a note naming the merged lines. Without the machine code (no
// CUDA toolkit), each access is costed as written and the finding says so.
#include <algorithm>
#include <map>
#include <numeric>

#include "compiler/audit/audit.h"
#include "compiler/audit/merged_accesses.h"
#include "compiler/audit/shared_requests.h"

namespace weft::compiler::audit {

namespace {

struct Stats {
    const AccessEvent* first = nullptr;
    int64_t requests = 0, wavefronts = 0, ideal = 0;
    int worst_excess = -1;
    int worst_warp = 0;
    SharedRequest worst;
    BankCost worst_cost;
    const AccessEvent* worst_event = nullptr;
    const IssuedAccess* merged = nullptr;  // a merged access at this location, if any
};

int event_excess(const AccessEvent& ev, int warps, const std::vector<int>* shape) {
    int worst = 0;
    for (int w = 0; w < warps; ++w)
        for (const SharedRequest& r : warp_requests(ev, w, shape))
            worst = std::max(worst, static_cast<int>(request_cost(r).excess()));
    return worst;
}

}  // namespace

std::vector<Finding> audit_bank_conflicts(const ir::Function&, const std::vector<Trace>& traces, const CompiledShared* compiled,
                                          const std::string& no_machine_code) {
    std::map<std::pair<int, int>, Stats> by_loc;
    std::map<std::pair<int, int>, std::vector<const AccessEvent*>> events_of;
    std::vector<IssuedShared> issued;
    for (const Trace& tr : traces) issued.push_back(issued_shared_accesses(tr, compiled));
    for (size_t b = 0; b < traces.size(); ++b) {
        const Trace& tr = traces[b];
        int warps = (tr.block_dim + kWarpSize - 1) / kWarpSize;
        for (const IssuedAccess& ia : issued[b].accesses) {
            const AccessEvent& ev = ia.ev;
            if (ev.atomic) continue;
            auto key = std::make_pair(ev.loc.line, ev.loc.col);
            Stats& st = by_loc[key];
            if (!st.first) st.first = &ev;
            if (!ia.lines.empty() && !st.merged) st.merged = &ia;
            events_of[key].push_back(&ev);
            for (int w = 0; w < warps; ++w)
                for (const SharedRequest& r : warp_requests(ev, w)) {
                    BankCost c = request_cost(r);
                    st.requests++, st.wavefronts += c.wavefronts, st.ideal += c.ideal;
                    if (static_cast<int>(c.excess()) > st.worst_excess)
                        st.worst_excess = static_cast<int>(c.excess()), st.worst_warp = w, st.worst = r, st.worst_cost = c,
                        st.worst_event = &ev;
                }
        }
    }
    std::vector<Finding> out;
    for (const auto& [key, st] : by_loc) {
        if (st.wavefronts <= st.ideal || !st.first) continue;
        const AccessEvent& ev = *st.first;
        Finding f;
        f.check = Check::BankConflict;
        f.severity = FindingSeverity::Warning;
        f.loc = capture_loc(ev.loc);
        char buf[256];
        snprintf(
            buf, sizeof buf,
            "%d-way bank conflict on shared array '%s': %.2f wavefronts per request (ideal %.2f), %lld excess in %lld requests",
            static_cast<int>((st.worst_cost.wavefronts + st.worst_cost.ideal - 1) / std::max(1u, st.worst_cost.ideal)),
            ev.array->name.c_str(), double(st.wavefronts) / double(st.requests), double(st.ideal) / double(st.requests),
            static_cast<long long>(st.wavefronts - st.ideal), static_cast<long long>(st.requests));
        f.message = buf;
        // Witness: two lanes of the worst warp that need different words of one bank.
        std::map<uint64_t, std::vector<std::pair<int, uint64_t>>> bank;
        for (int lane = 0; lane < kWarpSize; ++lane)
            if (st.worst.active >> lane & 1) {
                uint64_t word = st.worst.addr[static_cast<size_t>(lane)] / 4;
                bank[word % 32].push_back({lane, word});
            }
        // Lanes of one phase (gpusim's H200 rule): the warp up to 8 bytes, half-warps for 16.
        const int phase_lanes = st.worst.width <= 8 ? 32 : 16;
        for (const auto& entry : bank) {
            const auto b = entry.first;
            const auto& lanes = entry.second;  // a plain reference: lambdas cannot capture structured bindings in C++17/clang 14
            auto other =
                std::find_if(lanes.begin(), lanes.end(), [&](const auto& p) { return p.second != lanes.front().second; });
            if (other == lanes.end()) continue;
            if (lanes.front().first / phase_lanes != other->first / phase_lanes) continue;
            f.notes.push_back({{},
                               "warp " + std::to_string(st.worst_warp) + ": lanes " + std::to_string(lanes.front().first) +
                                   " and " + std::to_string(other->first) + " both use bank " + std::to_string(b) + " (bytes " +
                                   std::to_string(lanes.front().second * 4 - ev.array->shared_offset) + " and " +
                                   std::to_string(other->second * 4 - ev.array->shared_offset) + " of '" + ev.array->name +
                                   "')"});
            break;
        }
        const auto& shape = ev.array->shared_shape;
        if (shape.size() == 2) {
            int warps = (ev.active.size() + kWarpSize - 1) / kWarpSize;
            for (int p = 1; p <= 32; ++p) {
                std::vector<int> padded = {shape[0], shape[1] + p};
                bool ok = true;
                for (const AccessEvent* e : events_of[key])
                    if (event_excess(*e, warps, &padded) > 0) {
                        ok = false;
                        break;
                    }
                if (ok) {
                    f.notes.push_back({{},
                                       "pad the rows: wp.shared_array(shape=(" + std::to_string(shape[0]) + ", " +
                                           std::to_string(shape[1] + p) + "), ...) makes this access conflict-free"});
                    break;
                }
            }
        } else if (!ev.indices.empty()) {
            const LaneVal& v = ev.indices.back();
            if (v.known.size() > 1 && v.known[0] && v.known[1]) {
                int64_t stride = v.off[1] - v.off[0];
                if (stride != 0)
                    f.notes.push_back({{},
                                       "consecutive threads are " + std::to_string(stride) +
                                           " elements apart; an odd stride (in elements of 4, 8 or 16 bytes) is conflict-free"});
            }
        }
        if (st.merged) {
            std::string lines;
            for (size_t i = 0; i < st.merged->lines.size(); ++i)
                lines += (i == 0 ? "" : i + 1 == st.merged->lines.size() ? " and " : ", ") + std::to_string(st.merged->lines[i]);
            f.notes.push_back({{},
                               "ptxas merged the accesses of lines " + lines + " into one " +
                                   std::to_string(st.merged->ev.width_bytes) + "-byte instruction per thread (" + st.merged->op +
                                   "); costed as that instruction"});
        } else if (!compiled || !compiled->available) {
            f.notes.push_back({{},
                               "access widths as the source writes them: the machine code was not read (" + no_machine_code +
                                   "), so accesses ptxas may merge into wider instructions are costed one by one"});
        }
        if (st.worst_event) add_call_notes(f, st.worst_event->call_sites);
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace weft::compiler::audit
