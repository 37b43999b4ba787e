// runtime/cuda/cuda_backend.h: the `cuda:N` device.
//
// Memory comes from the device's stream-ordered pool (cuMemAllocAsync on the thread's current
// stream, released to the pool by cuMemFreeAsync and reused, see cuda_context.h). A module is
// compiled by NVRTC for the device's exact architecture (ptx.h: PTX with line info and a cubin,
// both in the disk cache) and loaded with cuModuleLoadData. A launch of a kernel over `size`
// threads runs ceil(size / block_dim) blocks of block_dim threads on the current stream; its
// parameters are the launch bounds, the argument block (the kernel's K_args, by value) and the
// device address of an oob_record (null unless the launch is in debug mode).
//
// Debug mode (the bounds-checked build): the oob_record is zeroed before the launch and read back
// after it, raising the same message as the CPU device (runtime/oob_report.h). Debug launches and
// WEFT_CUDA_SYNC=1 synchronise after each launch; see launch_log.h for what a fault raises.
//
// During a graph capture (runtime/capture_check.h): allocations are graph allocations (tracked, so
// that freeing them stays inside the graph), frees of other memory wait for the end of the capture,
// and allocate_outside_capture sets the capture aside (relaxed capture mode) for a cuMemAlloc whose
// memory outlives the graph.
#pragma once

#include <memory>

#include "runtime/device.h"

namespace weft::runtime {

// True when the CUDA driver loads and device `ordinal` exists. Never throws.
bool cuda_device_available(int ordinal);

// The backend of cuda:<ordinal>. Throws RuntimeError when the device is not available.
std::unique_ptr<DeviceBackend> make_cuda_backend(int ordinal);

// Memory freed on this thread during a graph capture that the capture did not allocate is freed
// here, when the capture has ended (end_capture calls it): a graph cannot free memory it did not
// allocate, and a free inside the capture would invalidate it.
void free_after_capture(int ordinal);

}  // namespace weft::runtime
