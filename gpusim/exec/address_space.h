// gpusim/exec/address_space.h — how generic addresses map onto the state spaces.
//
// Global memory is host memory: a global or generic address that falls in no window below is
// a host pointer and is dereferenced directly. Shared and local memory get windows above the
// 47-bit user address range of x86-64/AArch64 Linux, so no host pointer can fall into them:
// cvta.shared adds kSharedWindow to a shared-space offset; cvta.to.shared subtracts it.
#pragma once

#include <cstdint>

namespace weft::gpusim {

inline constexpr uint64_t kSharedWindow = uint64_t{1} << 48;
inline constexpr uint64_t kLocalWindow = uint64_t{2} << 48;
inline constexpr uint64_t kWindowSize = uint64_t{1} << 40;

inline bool in_shared_window(uint64_t a) { return a - kSharedWindow < kWindowSize; }
inline bool in_local_window(uint64_t a) { return a - kLocalWindow < kWindowSize; }

}  // namespace weft::gpusim
