// gpusim/timing/policies.h — the replaceable parts of the timing model, as small interfaces
// with built-in implementations.
//
// [SECTION] WarpSchedulerPolicy   which eligible warp a scheduler issues (LRR, GTO, two-level,
//                                 latency-hiding built in)
// [SECTION] SharedMemoryModel     wavefronts of a shared-memory request (NVIDIA's bank rule)
// [SECTION] CachePolicy           which way of a set a cache miss evicts (LRU, FIFO built in)
//
// A policy object is used by one SM sub-partition at a time; the timing model asks the
// factory in TimingOptions for one per scheduler, so policies may keep state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "gpusim/arch/bank_model.h"

namespace weft::gpusim {

// ---------------------------------------------------------------------------------------------
// [SECTION] WarpSchedulerPolicy
// A warp as a scheduler sees it: `slot` indexes the scheduler's warp list (stable while the
// warp lives), `age` grows with the order warps were launched on the SM (lower = older).
struct SchedulerCandidate {
    int32_t slot = 0;
    uint64_t age = 0;
    int32_t pc = 0;             // the instruction it would issue
    bool long_latency = false;  // that instruction is a global/local load, store or atomic
};

class WarpSchedulerPolicy {
public:
    virtual ~WarpSchedulerPolicy() = default;
    // `eligible` is non-empty and sorted by slot. Returns the index into `eligible` to issue.
    virtual size_t pick(std::span<const SchedulerCandidate> eligible) = 0;
    // Called after the picked warp issued.
    virtual void issued(const SchedulerCandidate& c) { (void)c; }
    virtual const char* name() const = 0;
};

// Loose round-robin: the first eligible warp after the one that issued last.
class LooseRoundRobinPolicy final : public WarpSchedulerPolicy {
public:
    size_t pick(std::span<const SchedulerCandidate> eligible) override {
        for (size_t i = 0; i < eligible.size(); ++i)
            if (eligible[i].slot > last_) return i;
        return 0;
    }
    void issued(const SchedulerCandidate& c) override { last_ = c.slot; }
    const char* name() const override { return "lrr"; }

private:
    int32_t last_ = -1;
};

// Greedy-then-oldest: keep issuing the same warp while it is eligible, else the oldest.
class GreedyThenOldestPolicy final : public WarpSchedulerPolicy {
public:
    size_t pick(std::span<const SchedulerCandidate> eligible) override {
        size_t oldest = 0;
        for (size_t i = 0; i < eligible.size(); ++i) {
            if (eligible[i].slot == last_ && eligible[i].age == last_age_) return i;
            if (eligible[i].age < eligible[oldest].age) oldest = i;
        }
        return oldest;
    }
    void issued(const SchedulerCandidate& c) override {
        last_ = c.slot;
        last_age_ = c.age;
    }
    const char* name() const override { return "gto"; }

private:
    int32_t last_ = -1;
    uint64_t last_age_ = 0;
};

// Two-level (Narasiman et al., MICRO 2011): the scheduler round-robins among a small active
// group of warps; when no warp of the group can issue (they all wait on long-latency results),
// the group is refilled with the oldest eligible warps. Warps of a group reach their memory
// instructions at different times, so groups overlap each other's latency.
class TwoLevelPolicy final : public WarpSchedulerPolicy {
public:
    explicit TwoLevelPolicy(size_t group_size = 4) : group_size_(group_size < 1 ? 1 : group_size) {}
    size_t pick(std::span<const SchedulerCandidate> eligible) override {
        size_t best = eligible.size();
        for (size_t i = 0; i < eligible.size(); ++i) {
            if (!in_group(eligible[i])) continue;
            if (best == eligible.size()) best = i;  // first in the group, wrapping
            if (eligible[i].slot > last_) return i;
        }
        if (best != eligible.size()) return best;
        // Refill: the oldest eligible warps become the active group.
        std::vector<size_t> order(eligible.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return eligible[a].age < eligible[b].age; });
        group_.clear();
        for (size_t i = 0; i < order.size() && group_.size() < group_size_; ++i)
            group_.push_back({eligible[order[i]].slot, eligible[order[i]].age});
        return order[0];
    }
    void issued(const SchedulerCandidate& c) override { last_ = c.slot; }
    const char* name() const override { return "two-level"; }

private:
    bool in_group(const SchedulerCandidate& c) const {
        for (const auto& [slot, age] : group_)
            if (slot == c.slot && age == c.age) return true;
        return false;
    }
    size_t group_size_;
    std::vector<std::pair<int32_t, uint64_t>> group_;
    int32_t last_ = -1;
};

// Latency-hiding: issue the oldest warp whose next instruction starts a long-latency memory
// access first (so misses are in flight as early as possible, the way a compiler hoists
// loads), otherwise greedy-then-oldest.
class LatencyHidingPolicy final : public WarpSchedulerPolicy {
public:
    size_t pick(std::span<const SchedulerCandidate> eligible) override {
        size_t mem = eligible.size();
        for (size_t i = 0; i < eligible.size(); ++i)
            if (eligible[i].long_latency && (mem == eligible.size() || eligible[i].age < eligible[mem].age)) mem = i;
        if (mem != eligible.size()) return mem;
        return gto_.pick(eligible);
    }
    void issued(const SchedulerCandidate& c) override { gto_.issued(c); }
    const char* name() const override { return "latency-hiding"; }

private:
    GreedyThenOldestPolicy gto_;
};

using SchedulerFactory = std::function<std::unique_ptr<WarpSchedulerPolicy>()>;
inline SchedulerFactory lrr_scheduler() {
    return [] { return std::make_unique<LooseRoundRobinPolicy>(); };
}
inline SchedulerFactory gto_scheduler() {
    return [] { return std::make_unique<GreedyThenOldestPolicy>(); };
}
inline SchedulerFactory two_level_scheduler(size_t group_size = 4) {
    return [group_size] { return std::make_unique<TwoLevelPolicy>(group_size); };
}
inline SchedulerFactory latency_hiding_scheduler() {
    return [] { return std::make_unique<LatencyHidingPolicy>(); };
}

// ---------------------------------------------------------------------------------------------
// [SECTION] SharedMemoryModel
class SharedMemoryModel {
public:
    virtual ~SharedMemoryModel() = default;
    // addr[lane] for lanes in `active` (byte offsets in the block's shared memory); `bytes` per lane.
    virtual BankCost cost(const uint32_t addr[32], uint32_t active, uint32_t bytes) const = 0;
    virtual const char* name() const = 0;
};

// The default: shared_bank_cost of bank_model.h (32 banks x 4 bytes, broadcast, phases),
// with the H200-measured phase rule unless told otherwise.
class NvidiaBankModel final : public SharedMemoryModel {
public:
    explicit NvidiaBankModel(BankRule rule = BankRule::kH200Measured) : rule_(rule) {}
    BankCost cost(const uint32_t addr[32], uint32_t active, uint32_t bytes) const override {
        return shared_bank_cost(addr, active, bytes, rule_);
    }
    const char* name() const override { return rule_ == BankRule::kH200Measured ? "nvidia-banks-h200" : "nvidia-banks-doc"; }

private:
    BankRule rule_;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] CachePolicy
// What a set-associative cache knows about one way when it must evict.
struct CacheWayInfo {
    uint64_t line = 0;                              // line address
    uint64_t last_use = 0;                          // access counter value at the last hit or fill
    uint64_t filled = 0;                            // access counter value when the line was allocated
    uint32_t valid_sectors = 0, dirty_sectors = 0;  // bit masks
};

class CachePolicy {
public:
    virtual ~CachePolicy() = default;
    // All ways of the set hold lines; returns the index of the way to evict.
    virtual uint32_t victim(std::span<const CacheWayInfo> ways) const = 0;
    virtual const char* name() const = 0;
};

class LruCachePolicy final : public CachePolicy {
public:
    uint32_t victim(std::span<const CacheWayInfo> ways) const override {
        uint32_t v = 0;
        for (uint32_t i = 1; i < ways.size(); ++i)
            if (ways[i].last_use < ways[v].last_use) v = i;
        return v;
    }
    const char* name() const override { return "lru"; }
};

class FifoCachePolicy final : public CachePolicy {
public:
    uint32_t victim(std::span<const CacheWayInfo> ways) const override {
        uint32_t v = 0;
        for (uint32_t i = 1; i < ways.size(); ++i)
            if (ways[i].filled < ways[v].filled) v = i;
        return v;
    }
    const char* name() const override { return "fifo"; }
};

}  // namespace weft::gpusim
