// Coalescing of global accesses: how many 32-byte sectors one warp-wide request touches, against
// the fewest that could hold the bytes it uses. Lane addresses come from the interpreter's
// per-thread indices (a uniform unknown base, `a[i + off]`, cancels out between lanes), times the
// element size, plus the member's offset for `a[i].field`; multi-dimensional arrays are flattened
// row-major with the --shape extents (a large row length when unknown).
//
// Classified by the byte stride between consecutive lanes: 0 (broadcast), the access width
// (contiguous: a vec3 AoS read is a 12-byte stride and fine), larger (strided: a struct field read
// is the struct's size apart) or irregular. Reported when a request touches at least twice the
// ideal number of sectors (and at least two more).
#include <cstdio>
#include <map>
#include <set>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

constexpr int64_t kUnknownRow = int64_t{1} << 16;

struct Stats {
    const AccessEvent* first = nullptr;
    int64_t requests = 0, sectors = 0, ideal = 0;
    int64_t stride = 0;
    bool regular = true, have_stride = false;
};

}  // namespace

std::vector<Finding> audit_coalescing(const ir::Function&, const LaunchModel& launch, const std::vector<Trace>& traces) {
    std::map<std::pair<int, int>, Stats> by_loc;
    for (const Trace& tr : traces) {
        int warps = (tr.block_dim + kWarpSize - 1) / kWarpSize;
        for (const AccessEvent& ev : tr.accesses) {
            if (ev.shared) continue;
            std::vector<int64_t> extent(ev.indices.size(), kUnknownRow);
            auto it = launch.shapes.find(ev.array->name);
            if (it != launch.shapes.end())
                for (size_t k = 0; k < extent.size() && k < it->second.size(); ++k) extent[k] = it->second[k];
            Stats& st = by_loc[{ev.loc.line, ev.loc.col}];
            if (!st.first) st.first = &ev;
            for (int w = 0; w < warps; ++w) {
                std::set<int64_t> sectors, bytes;
                std::vector<int64_t> addr;
                bool ok = true;
                // The layout question is asked of the whole warp: lanes masked off by a branch are
                // counted where their index is known, so `if i % 2 == 0: a[i]` is not "strided".
                bool any_active = false;
                for (int lane = 0; lane < kWarpSize; ++lane) {
                    int t = w * kWarpSize + lane;
                    if (t < static_cast<int>(ev.active.size()) && ev.active[static_cast<size_t>(t)]) any_active = true;
                }
                if (!any_active) continue;
                for (int lane = 0; lane < kWarpSize && ok; ++lane) {
                    int t = w * kWarpSize + lane;
                    if (t >= static_cast<int>(ev.active.size()) || t >= tr.nthreads) continue;
                    bool known_all = true;
                    for (const LaneVal& v : ev.indices) known_all = known_all && v.known[static_cast<size_t>(t)];
                    if (!ev.active[static_cast<size_t>(t)] && !known_all) continue;
                    int64_t flat = 0;
                    for (size_t k = 0; k < ev.indices.size(); ++k) {
                        const LaneVal& v = ev.indices[k];
                        if (!v.known[static_cast<size_t>(t)]) {
                            ok = false;
                            break;
                        }
                        flat = flat * extent[k] + v.off[static_cast<size_t>(t)];
                    }
                    if (!ok) break;
                    int64_t a = flat * ev.elem_bytes + ev.offset_bytes;
                    addr.push_back(a);
                    for (int64_t b = a; b < a + ev.width_bytes; ++b) bytes.insert(b);
                    for (int64_t s = a >> 5; s <= (a + ev.width_bytes - 1) >> 5; ++s) sectors.insert(s);
                }
                if (!ok || addr.empty()) continue;
                st.requests++;
                st.sectors += static_cast<int64_t>(sectors.size());
                st.ideal += (static_cast<int64_t>(bytes.size()) + 31) / 32;
                for (size_t i = 1; i < addr.size(); ++i) {
                    int64_t d = addr[i] - addr[i - 1];
                    if (!st.have_stride)
                        st.stride = d, st.have_stride = true;
                    else if (d != st.stride)
                        st.regular = false;
                }
            }
        }
    }
    std::vector<Finding> out;
    for (const auto& [key, st] : by_loc) {
        if (st.requests == 0 || st.sectors < 2 * st.ideal || st.sectors < st.ideal + 2 * st.requests) continue;
        const AccessEvent& ev = *st.first;
        Finding f;
        f.check = Check::Uncoalesced;
        f.severity = FindingSeverity::Warning;
        f.loc = capture_loc(ev.loc);
        char buf[256];
        snprintf(buf, sizeof buf, "uncoalesced %s of '%s': %.1f sectors of 32 bytes per request, ideal %.1f",
                 ev.atomic  ? "atomic"
                 : ev.write ? "store"
                            : "load",
                 ev.array->name.c_str(), double(st.sectors) / double(st.requests), double(st.ideal) / double(st.requests));
        f.message = buf;
        if (st.regular && st.have_stride)
            f.notes.push_back({{},
                               "consecutive threads are " + std::to_string(st.stride) + " bytes apart; each uses " +
                                   std::to_string(ev.width_bytes) + " bytes" +
                                   (ev.width_bytes < ev.elem_bytes
                                        ? " of a " + std::to_string(ev.elem_bytes) +
                                              "-byte element (a field of an array of structs: consider a struct of arrays)"
                                        : "")});
        else
            f.notes.push_back({{}, "the addresses of consecutive threads follow no single stride"});
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace weft::compiler::audit
