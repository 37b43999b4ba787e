// Array memory counters. See memory_stats.h.
#include "runtime/memory_stats.h"

#include <mutex>

namespace weft::runtime {
namespace {
std::mutex g_mu;
MemoryStats g_stats;
}  // namespace

MemoryStats memory_stats() {
    std::lock_guard<std::mutex> lock(g_mu);
    return g_stats;
}

void reset_peak_memory() {
    std::lock_guard<std::mutex> lock(g_mu);
    g_stats.peak_bytes = g_stats.live_bytes;
}

void note_allocated(size_t bytes) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_stats.live_bytes += bytes;
    if (g_stats.live_bytes > g_stats.peak_bytes) g_stats.peak_bytes = g_stats.live_bytes;
}

void note_freed(size_t bytes) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_stats.live_bytes -= bytes;
}

}  // namespace weft::runtime
