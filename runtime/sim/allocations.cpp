// runtime/sim/allocations.cpp: live sim allocations and a launch's global buffers (allocations.h).
#include "runtime/sim/allocations.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace weft::runtime {

namespace {

// Live allocations of every sim device (base -> bytes).
std::mutex g_alloc_mu;
std::map<uint64_t, uint64_t> g_allocations;

}  // namespace

void sim_allocation_added(const void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    g_allocations[reinterpret_cast<uint64_t>(p)] = bytes;
}

void sim_allocation_removed(const void* p) {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    g_allocations.erase(reinterpret_cast<uint64_t>(p));
}

gpusim::GlobalMemoryMap sim_global_buffers(const compiler::KernelInfo& k, const LaunchRequest& req, const void* oob) {
    gpusim::GlobalMemoryMap map;
    std::lock_guard<std::mutex> lock(g_alloc_mu);
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
        if (it != g_allocations.begin() && data < std::prev(it)->first + std::prev(it)->second) {
            map.add(std::prev(it)->first, std::prev(it)->second, name);
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
    for (const auto& [base, bytes] : g_allocations) map.add(base, bytes);
    if (oob) map.add(reinterpret_cast<uint64_t>(oob), sizeof(wp::oob_record), "oob_record");
    return map;
}

}  // namespace weft::runtime
