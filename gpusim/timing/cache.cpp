// gpusim/timing/cache.cpp — SectoredCache (cache.h).
#include "gpusim/timing/cache.h"

#include <algorithm>
#include <mutex>
#include <span>

namespace weft::gpusim {

SectoredCache::SectoredCache(uint64_t size_bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc,
                             const CachePolicy* policy)
    : line_bytes_(line_bytes), sector_bytes_(sector_bytes), assoc_(assoc), policy_(policy) {
    sets_ = static_cast<uint32_t>(size_bytes / (uint64_t{line_bytes} * assoc));
    ways_.reset(new Way[uint64_t{sets_} * assoc_]);
    touched_.assign(sets_, 0);
}

SectoredCache::Way* SectoredCache::touch(uint32_t set) {
    Way* ways = &ways_[uint64_t{set} * assoc_];
    if (!touched_[set]) {
        for (uint32_t w = 0; w < assoc_; ++w) ways[w] = Way{~uint64_t{0}, 0, 0, 0, 0};
        touched_[set] = 1;
    }
    return ways;
}

bool SectoredCache::probe(uint64_t addr) const {
    if (sets_ == 0) return false;
    const uint64_t line = addr / line_bytes_;
    const uint32_t bit = 1u << ((addr % line_bytes_) / sector_bytes_);
    const uint32_t s = set_of(line);
    if (!touched_[s]) return false;
    const Way* set = &ways_[uint64_t{s} * assoc_];
    for (uint32_t w = 0; w < assoc_; ++w)
        if (set[w].tag == line) return (set[w].valid & bit) != 0;
    return false;
}

bool SectoredCache::access(uint64_t addr, bool dirty, uint64_t* evicted_dirty_sectors) {
    if (sets_ == 0) return false;
    const uint64_t line = addr / line_bytes_;
    const uint32_t bit = 1u << ((addr % line_bytes_) / sector_bytes_);
    Way* set = touch(set_of(line));
    ++clock_;
    Way* victim = &set[0];
    for (uint32_t w = 0; w < assoc_; ++w) {
        Way& way = set[w];
        if (way.tag == line) {
            const bool hit = (way.valid & bit) != 0;
            way.valid |= bit;
            if (dirty) way.dirty |= bit;
            way.stamp = clock_;
            return hit;
        }
        if (way.stamp < victim->stamp) victim = &way;
    }
    if (policy_ && victim->tag != ~uint64_t{0}) {
        // Every way is in use (an empty way has stamp 0 and would have been chosen): ask the policy.
        CacheWayInfo info[64];
        const uint32_t n = assoc_ < 64 ? assoc_ : 64;
        for (uint32_t w = 0; w < n; ++w) info[w] = {set[w].tag, set[w].stamp, set[w].filled, set[w].valid, set[w].dirty};
        const uint32_t v = policy_->victim(std::span<const CacheWayInfo>(info, n));
        if (v < n) victim = &set[v];
    }
    if (evicted_dirty_sectors && victim->tag != ~uint64_t{0})
        *evicted_dirty_sectors += static_cast<uint64_t>(__builtin_popcount(victim->dirty));
    victim->tag = line;
    victim->valid = bit;
    victim->dirty = dirty ? bit : 0;
    victim->stamp = clock_;
    victim->filled = clock_;
    return false;
}

namespace {
std::mutex g_caches_mu;
std::vector<SectoredCache> g_caches;
constexpr size_t kMaxPooledCaches = 300;  // an L2 and 132 L1s, for two launches at a time
}  // namespace

SectoredCache take_cache(uint64_t size_bytes, uint32_t line_bytes, uint32_t sector_bytes, uint32_t assoc,
                         const CachePolicy* policy) {
    const uint32_t sets = static_cast<uint32_t>(size_bytes / (uint64_t{line_bytes} * assoc));
    {
        std::lock_guard<std::mutex> lock(g_caches_mu);
        for (size_t i = 0; i < g_caches.size(); ++i)
            if (g_caches[i].same_shape(line_bytes, sector_bytes, assoc, sets)) {
                SectoredCache c = std::move(g_caches[i]);
                g_caches[i] = std::move(g_caches.back());
                g_caches.pop_back();
                c.clear();
                c.set_policy(policy);
                return c;
            }
    }
    return SectoredCache(size_bytes, line_bytes, sector_bytes, assoc, policy);
}

void give_cache(SectoredCache&& cache) {
    if (!cache.holds_ways()) return;
    std::lock_guard<std::mutex> lock(g_caches_mu);
    if (g_caches.size() < kMaxPooledCaches) g_caches.push_back(std::move(cache));
}

void SectoredCache::clear() {
    std::fill(touched_.begin(), touched_.end(), 0);
    clock_ = 0;
}

}  // namespace weft::gpusim
