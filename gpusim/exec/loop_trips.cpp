// gpusim/exec/loop_trips.cpp — per-lane trip counts of PTX loops (loop_trips.h says why).
#include "gpusim/exec/loop_trips.h"

#include <algorithm>
#include <bit>

namespace weft::gpusim {

void LoopTripLog::backward_branch(std::vector<LoopPass>& passes, int32_t pc, int32_t target, uint32_t active, uint32_t taken) {
    LoopPass* p = nullptr;
    for (LoopPass& q : passes)
        if (q.branch == pc) p = &q;
    if (!p) {
        passes.push_back(LoopPass{});
        p = &passes.back();
        p->branch = pc;
    }
    for (uint32_t m = taken; m; m &= m - 1) ++p->iter[std::countr_zero(m)];
    p->going = (p->going | taken) & ~(active & ~taken);
    for (uint32_t m = active & ~taken; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        const uint32_t trips = p->iter[l] + 1;
        p->iter[l] = 0;
        auto it = std::lower_bound(p->trips.begin(), p->trips.end(), trips);
        if (it == p->trips.end() || *it != trips) p->trips.insert(it, trips);
    }
    if (p->going == 0) {
        LoopTrips& t = loops_[pc];
        t.branch = pc;
        t.header = target;
        ++t.passes[p->trips];
        p->trips.clear();
    }
}

void LoopTripLog::merge(const LoopTripLog& other) {
    for (const auto& [pc, t] : other.loops_) {
        LoopTrips& mine = loops_[pc];
        mine.branch = t.branch;
        mine.header = t.header;
        for (const auto& [trips, n] : t.passes) mine.passes[trips] += n;
    }
}

std::vector<LoopTrips> LoopTripLog::loops() const {
    std::vector<LoopTrips> out;
    for (const auto& [pc, t] : loops_) out.push_back(t);
    return out;
}

}  // namespace weft::gpusim
