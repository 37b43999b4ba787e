// runtime/sim/allocations.cpp: live sim allocations and a launch's global buffers (allocations.h).
#include "runtime/sim/allocations.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace weft::runtime {

namespace {

// Live allocations of every sim device: host base -> (bytes, simulated device address).
struct Allocation {
    uint64_t bytes, device;
};
std::mutex g_alloc_mu;
std::map<uint64_t, Allocation> g_allocations;
std::map<uint64_t, uint64_t> g_device_used;  // simulated device address -> bytes taken

// Where the simulated allocator starts, and its rules: cudaMalloc-like, first fit, each
// allocation at a 512-byte boundary and allocations of 2 MiB or more at a 2 MiB one (a page of
// the GPU's virtual memory), so that a program that frees and allocates the same sizes gets the
// same addresses back, as it would from the driver.
constexpr uint64_t kDeviceBase = uint64_t{0x7f} << 40;
constexpr uint64_t kLargePage = uint64_t{2} << 20;

uint64_t place(uint64_t bytes) {
    const uint64_t align = bytes >= kLargePage ? kLargePage : gpusim::kDeviceAlignment;
    const uint64_t size =
        (std::max<uint64_t>(bytes, 1) + gpusim::kDeviceAlignment - 1) / gpusim::kDeviceAlignment * gpusim::kDeviceAlignment;
    uint64_t at = kDeviceBase;
    for (const auto& [base, taken] : g_device_used) {
        at = (at + align - 1) / align * align;
        if (at + size <= base) break;
        at = std::max(at, base + taken);
    }
    at = (at + align - 1) / align * align;
    g_device_used[at] = size;
    return at;
}

}  // namespace

void sim_allocation_added(const void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    g_allocations[reinterpret_cast<uint64_t>(p)] = {bytes, place(bytes)};
}

void sim_allocation_removed(const void* p) {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    auto it = g_allocations.find(reinterpret_cast<uint64_t>(p));
    if (it == g_allocations.end()) return;
    g_device_used.erase(it->second.device);
    g_allocations.erase(it);
}

gpusim::GlobalMemoryMap sim_global_buffers(const compiler::KernelInfo& k, const LaunchRequest& req, const void* oob) {
    gpusim::GlobalMemoryMap map = sim_global_buffers({{&k, &req}});
    if (oob) map.add(reinterpret_cast<uint64_t>(oob), sizeof(wp::oob_record), "oob_record");
    return map;
}

gpusim::GlobalMemoryMap sim_global_buffers(
    const std::vector<std::pair<const compiler::KernelInfo*, const LaunchRequest*>>& launches) {
    gpusim::GlobalMemoryMap map;
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    // The allocations first, so that the arrays inside them take their device addresses.
    for (const auto& [base, a] : g_allocations) map.add(base, a.bytes, "", a.device);
    for (const auto& [kp, rp] : launches) {
        const compiler::KernelInfo& k = *kp;
        const LaunchRequest& req = *rp;
        auto add_array = [&](const std::string& name, size_t offset) {
            if (offset + 64 > req.args.size()) return;
            uint64_t data;
            int32_t shape[4], ndim;
            int64_t strides[4];
            std::memcpy(&data, req.args.data() + offset, 8);
            std::memcpy(shape, req.args.data() + offset + 8, 16);
            std::memcpy(strides, req.args.data() + offset + 24, 32);
            std::memcpy(&ndim, req.args.data() + offset + 56, 4);
            if (data == 0) return;
            auto it = g_allocations.upper_bound(data);
            if (it != g_allocations.begin() && data < std::prev(it)->first + std::prev(it)->second.bytes) {
                map.add(std::prev(it)->first, std::prev(it)->second.bytes, name);
                return;
            }
            uint64_t extent = 0;
            for (int d = 0; d < std::clamp(ndim, 1, 4); ++d) {
                if (shape[d] <= 0) return;
                extent += static_cast<uint64_t>(shape[d] - 1) * static_cast<uint64_t>(std::abs(strides[d]));
            }
            extent += static_cast<uint64_t>(std::abs(strides[std::clamp(ndim, 1, 4) - 1]));
            map.add(data, extent, name);
        };
        for (const auto& p : k.params)
            if (compiler::is_array(p.type)) add_array(p.name, p.offset);
        if (req.adjoint) {
            for (const auto& p : k.adj_params)
                if (compiler::is_array(p.type)) add_array("adj_" + p.name, p.offset);
            add_array("status", k.adj_status_offset);
        }
    }
    return map;
}

}  // namespace weft::runtime
