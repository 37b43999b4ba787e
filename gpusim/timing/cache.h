// gpusim/timing/cache.h — a sectored, set-associative cache of tags (LRU or a CachePolicy) (no data: the
// functional executor owns the data). Used for each SM's L1 and for the shared L2.
//
// A line of line_bytes holds line_bytes/sector_bytes sectors, each valid on its own: a miss
// fills only the sectors that were asked for, as NVIDIA's L1 and L2 do. Sets are chosen by a
// multiplicative hash of the line address, standing in for the GPUs' undocumented address
// hashing (plain modulo indexing would make power-of-two strides thrash unrealistically).
//
// Sets are initialised when first touched: the H200's L2 has 491,520 ways, and filling them
// with empty tags on every launch cost more than a short launch's simulation. The ways are
// allocated uninitialised (untouched pages are never faulted in); `touched_` says which sets
// hold ways yet.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpusim/timing/policies.h"

namespace weft::gpusim {

class SectoredCache;
// Every launch starts with empty caches, and the tag stores are large (the H200's L2: 15 MB of
// ways): launches take theirs from a process-wide pool and give them back, so that their pages
// are faulted in once per process rather than per launch. A taken cache is empty (cleared).
SectoredCache take_cache(uint64_t size_bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc,
                         const CachePolicy* policy = nullptr);
void give_cache(SectoredCache&& cache);

class SectoredCache {
public:
    SectoredCache() = default;
    // size_bytes may be 0 (a cache that always misses).
    // `policy` chooses victims; null: LRU (the built-in fast path). Not owned; must outlive the cache.
    SectoredCache(uint64_t size_bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc,
                  const CachePolicy* policy = nullptr);

    // Is the sector of `addr` present? (no state change: safe to call from several threads)
    bool probe(uint64_t addr) const;
    // Looks the sector up; on a miss fills it (allocating the line, evicting LRU). Returns hit.
    // `dirty`: mark the sector written. `evicted_dirty_sectors` += dirty sectors thrown out.
    bool access(uint64_t addr, bool dirty, uint64_t* evicted_dirty_sectors = nullptr);
    void clear();
    uint64_t size_bytes() const { return uint64_t{sets_} * assoc_ * line_bytes_; }
    bool same_shape(uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc, uint32_t sets) const {
        return line_bytes_ == line_bytes && sector_bytes_ == sector_bytes && assoc_ == assoc && sets_ == sets;
    }
    void set_policy(const CachePolicy* policy) { policy_ = policy; }
    bool holds_ways() const { return ways_ != nullptr && sets_ > 0; }  // false: empty, or moved from

private:
    struct Way {         // trivial: allocated uninitialised, set up per set by touch()
        uint64_t tag;    // line address; ~0 = empty
        uint32_t valid;  // sector bits
        uint32_t dirty;
        uint64_t stamp;  // LRU
        uint64_t filled;
    };
    uint32_t set_of(uint64_t line) const { return static_cast<uint32_t>(((line * 0x9E3779B97F4A7C15ull) >> 20) % sets_); }
    // The ways of `set`, emptied on first use.
    Way* touch(uint32_t set);

    uint32_t line_bytes_ = 128, sector_bytes_ = 32, assoc_ = 1, sets_ = 0;
    uint64_t clock_ = 0;
    const CachePolicy* policy_ = nullptr;
    std::unique_ptr<Way[]> ways_;   // [set][assoc]; a set's ways are valid once touched_[set]
    std::vector<uint8_t> touched_;  // per set
};

}  // namespace weft::gpusim
