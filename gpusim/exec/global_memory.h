// gpusim/exec/global_memory.h — the buffers a launch may touch in global memory, so that a read or
// write past an array's end is a SimError naming the array instead of a read of whatever host
// memory lies there (or a crash).
//
// Global memory is host memory (address_space.h). Without a map, global accesses are checked
// only for the null page; with one (LaunchOptions::global_memory), every global access must lie
// inside one of its ranges. The sim device builds the map from its live allocations and the
// launch's array arguments (runtime/sim/sim_backend.cpp), naming each range after the kernel
// parameter that points into it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::gpusim {

struct GlobalRange {
    uint64_t base = 0;
    uint64_t bytes = 0;
    std::string name;  // the array's name, or "" for an allocation no argument points into
};

class GlobalMemoryMap {
public:
    // Ranges may overlap (an array and the allocation it views); empty ranges are ignored.
    void add(uint64_t base, uint64_t bytes, std::string name = "");
    // Whether [addr, addr + size) lies inside one range.
    bool contains(uint64_t addr, uint32_t size) const {
        auto it = std::upper_bound(cover_.begin(), cover_.end(), addr, [](uint64_t a, const Span& s) { return a < s.begin; });
        if (it == cover_.begin()) return false;
        --it;
        return addr + size <= it->end && addr + size >= addr;
    }
    // Where a bad address lies relative to the nearest named range: "8 bytes past the end of
    // array 'x' (4096 bytes at 0x...)" or "16 bytes before array 'x' (...)".
    std::string describe(uint64_t addr) const;
    bool empty() const { return ranges_.empty(); }

private:
    struct Span {
        uint64_t begin, end;
    };
    std::vector<GlobalRange> ranges_;
    std::vector<Span> cover_;  // the union of the ranges, sorted and disjoint
};

}  // namespace weft::gpusim
