// runtime/cuda/grid_policy.cpp: see grid_policy.h.
#include "runtime/cuda/grid_policy.h"

#include <cstdlib>
#include <string>

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

int grid_waves_from_env(int fallback) {
    const char* waves = std::getenv("WEFT_CUDA_GRID_WAVES");
    if (!waves || !*waves) return fallback;
    return std::string(waves) == "auto" ? kGridWavesAuto : std::atoi(waves);
}

}  // namespace weft::runtime
