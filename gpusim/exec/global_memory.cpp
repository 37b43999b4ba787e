// gpusim/exec/global_memory.cpp — GlobalMemoryMap (global_memory.h).
#include "gpusim/exec/global_memory.h"

#include <algorithm>
#include <cstdio>

namespace weft::gpusim {
namespace {

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string what(const GlobalRange& r) {
    return (r.name.empty() ? std::string("an unnamed allocation") : "array '" + r.name + "'") + " (" + std::to_string(r.bytes) +
           " bytes at " + hex(r.base) + ")";
}

}  // namespace

void GlobalMemoryMap::add(uint64_t base, uint64_t bytes, std::string name, uint64_t device) {
    if (bytes == 0) return;
    const GlobalRange r{base, bytes, name, device};
    placed_.insert(std::upper_bound(placed_.begin(), placed_.end(), r,
                                    [](const GlobalRange& x, const GlobalRange& y) { return x.base < y.base; }),
                   r);
    add(base, bytes, std::move(name));
}

uint64_t GlobalMemoryMap::device_address(uint64_t host) const {
    auto it = std::upper_bound(placed_.begin(), placed_.end(), host, [](uint64_t a, const GlobalRange& r) { return a < r.base; });
    if (it != placed_.begin() && host - std::prev(it)->base < std::prev(it)->bytes)
        return std::prev(it)->device + (host - std::prev(it)->base);
    for (const GlobalRange& r : foreign_)
        if (host >= r.base && host - r.base < r.bytes) return r.device + (host - r.base);
    return host;
}

void GlobalMemoryMap::add(uint64_t base, uint64_t bytes, std::string name) {
    if (bytes == 0) return;
    auto inside =
        std::upper_bound(placed_.begin(), placed_.end(), base, [](uint64_t a, const GlobalRange& r) { return a < r.base; });
    if (inside == placed_.begin() || base - std::prev(inside)->base >= std::prev(inside)->bytes) {
        bool known = false;
        for (const GlobalRange& r : foreign_) known |= base >= r.base && base - r.base < r.bytes;
        if (!known) {
            foreign_.push_back({base, bytes, name, next_foreign_});
            next_foreign_ += (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
        }
    }
    ranges_.push_back({base, bytes, std::move(name)});
    std::vector<Span> spans;
    for (const GlobalRange& r : ranges_) spans.push_back({r.base, r.base + r.bytes});
    std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.begin < y.begin; });
    cover_.clear();
    for (const Span& s : spans) {
        if (!cover_.empty() && s.begin <= cover_.back().end)
            cover_.back().end = std::max(cover_.back().end, s.end);
        else
            cover_.push_back(s);
    }
}

std::string GlobalMemoryMap::describe(uint64_t addr) const {
    // The nearest range, preferring named ones (an array over the allocation it lies in).
    const GlobalRange* best = nullptr;
    uint64_t best_gap = UINT64_MAX;
    for (const GlobalRange& r : ranges_) {
        const uint64_t gap = addr >= r.base + r.bytes ? addr - (r.base + r.bytes) : addr < r.base ? r.base - addr : 0;
        if (!best || gap < best_gap || (gap == best_gap && best->name.empty() && !r.name.empty())) {
            best = &r;
            best_gap = gap;
        }
    }
    if (!best) return "no buffers are known";
    if (addr >= best->base + best->bytes)
        return std::to_string(addr - (best->base + best->bytes)) + " bytes past the end of " + what(*best);
    if (addr < best->base) return std::to_string(best->base - addr) + " bytes before " + what(*best);
    return "straddling the end of " + what(*best);
}

}  // namespace weft::gpusim
