// runtime/cuda/grid_policy.cpp: see grid_policy.h.
#include "runtime/cuda/grid_policy.h"

#include "compiler/types.h"

namespace weft::runtime {

size_t streamed_bytes_per_thread(const compiler::KernelInfo& k) {
    size_t bytes = 0;
    for (const auto& p : k.params)
        if (p.read && p.type && compiler::is_array(p.type) && p.type->elem) bytes += compiler::type_size(p.type->elem);
    return bytes;
}

int grid_waves_for(const compiler::KernelInfo& k, int setting) {
    if (setting != kGridWavesAuto) return setting < 0 ? 0 : setting;
    return streamed_bytes_per_thread(k) < kStreamedBytesThreshold ? kAutoWaves : 0;
}

}  // namespace weft::runtime
