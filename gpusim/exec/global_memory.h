// gpusim/exec/global_memory.h — the buffers a launch may touch in global memory, so that a read or
// write past an array's end is a SimError naming the array instead of a read of whatever host
// memory lies there (or a crash).
//
// Global memory is host memory (address_space.h). Without a map, global accesses are checked
// only for the null page; with one (LaunchOptions::global_memory), every global access must lie
// inside one of its ranges. The sim device builds the map from its live allocations and the
// launch's array arguments (runtime/sim/sim_backend.cpp), naming each range after the kernel
// parameter that points into it.
//
// The map also gives each buffer a simulated device address (device_address), which the timing
// model uses instead of the host address for sectors, cache sets and L2 slices. Host addresses
// change from run to run (ASLR, malloc's choices), and cache sets hashed from them made the same
// launch report different cycles on every run; device addresses are chosen by the caller (the
// sim device's allocator, in allocation order) or assigned here in the order ranges are added,
// so the same program gives the same report, bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::gpusim {

struct GlobalRange {
    uint64_t base = 0;
    uint64_t bytes = 0;
    std::string name;     // the array's name, or "" for an allocation no argument points into
    uint64_t device = 0;  // simulated device address of `base`
};

// Where buffers without a device address of their own are placed, and how: each at the next
// boundary of kDeviceAlignment (cudaMalloc's allocations are at least 256-byte aligned).
inline constexpr uint64_t kForeignDeviceBase = uint64_t{0x7e} << 40;
inline constexpr uint64_t kDeviceAlignment = 512;

class GlobalMemoryMap {
public:
    // Ranges may overlap (an array and the allocation it views); empty ranges are ignored.
    // A range given a device address (an allocation) places itself and every later range inside
    // it; one without (an array outside every allocation) is placed after the previous such range.
    void add(uint64_t base, uint64_t bytes, std::string name = "");
    void add(uint64_t base, uint64_t bytes, std::string name, uint64_t device);
    // The simulated device address of a host address: inside an allocation added with a device
    // address, that allocation's device address plus the offset; else inside a range without one,
    // its assigned address plus the offset; else (no map, or outside it) the host address itself.
    uint64_t device_address(uint64_t host) const;
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
    std::vector<Span> cover_;           // the union of the ranges, sorted and disjoint
    std::vector<GlobalRange> placed_;   // ranges added with a device address, sorted by base
    std::vector<GlobalRange> foreign_;  // ranges added without, in the order added
    uint64_t next_foreign_ = kForeignDeviceBase;
};

}  // namespace weft::gpusim
