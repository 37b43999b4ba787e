// runtime/sim/allocations.h: the live allocations of every sim device, and the global buffers a
// launch may touch (internal to runtime/sim).
//
// gpusim dereferences global addresses directly in host memory, so a read past an array's end
// would read whatever the host has there. A launch therefore gets the map of what it may touch:
// every live allocation, named after the array parameter that points into it, and an array
// outside every allocation (foreign memory) by its own extent. An access outside the map is a
// simulator error naming the nearest buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/native/launch.h"
#include "gpusim/exec/global_memory.h"
#include "runtime/device.h"

namespace weft::runtime {

void sim_allocation_added(const void* p, size_t bytes);
void sim_allocation_removed(const void* p);

// The launch's global buffers (oob: the debug build's out-of-bounds record, or null).
gpusim::GlobalMemoryMap sim_global_buffers(const compiler::KernelInfo& k, const LaunchRequest& req, const void* oob);
// The global buffers of several launches run as one (a launch list): every one's arrays.
gpusim::GlobalMemoryMap sim_global_buffers(
    const std::vector<std::pair<const compiler::KernelInfo*, const LaunchRequest*>>& launches);

}  // namespace weft::runtime
