// runtime/cuda/pinned.h: page-locked ("pinned") host arrays.
//
// A pinned array is a cpu array whose memory the GPU can reach by DMA (cuMemHostAlloc, portable
// to every context): copies between it and cuda arrays run asynchronously on the current stream
// and at full PCIe/NVLink speed, where pageable memory is first staged by the driver. Such a copy
// returns before it has run: wait (Stream::synchronize, an Event, runtime::synchronize) before
// reading the destination on the host or overwriting the pinned source. The array reports
// device "cpu" and is used like any other cpu array; its memory is freed (cuMemFreeHost) when
// its last handle goes. Needs a CUDA driver (not a GPU-less build).
#pragma once

#include <vector>

#include "runtime/array.h"

namespace weft::runtime {

// A new, zeroed, pinned cpu array. Throws RuntimeError when CUDA is not available here.
Array pinned_zeros(compiler::Type dtype, const std::vector<int64_t>& shape, bool requires_grad = false);

// True when `a`'s memory was allocated by pinned_zeros (asks the driver; false without CUDA).
bool is_pinned(const Array& a);

}  // namespace weft::runtime
