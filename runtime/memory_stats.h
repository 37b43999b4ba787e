// runtime/memory_stats.h: how many bytes the arrays of this process hold, now and at the peak.
//
// Counts the memory Array::empty allocates (every owned array, on every device), not memory that
// arrays wrap. Used to measure what a Tape or a checkpointed rollout keeps alive.
#pragma once

#include <cstddef>

namespace weft::runtime {

struct MemoryStats {
    size_t live_bytes = 0;  // held by arrays alive now
    size_t peak_bytes = 0;  // highest live_bytes since the last reset_peak_memory()
};

MemoryStats memory_stats();
void reset_peak_memory();  // peak := live

// Called by the array allocator.
void note_allocated(size_t bytes);
void note_freed(size_t bytes);

}  // namespace weft::runtime
