// gpusim/sass/sass_decode.h — what gpusim reads out of a single sm_90 SASS instruction word.
//
// ptxas may issue fewer, wider shared-memory instructions than the PTX has: on the H200,
// bank_stride2's two 4-byte `st.shared` became one `STS.64`, and matmul_tiled's four broadcast
// `ld.shared.f32` of one row became one `LDS.128`. Both the timing model (sass_map.h,
// sass_shared_issue) and the static audit (compiler/audit/compiled_shared.h) need the width of
// each shared load and store of the machine code; this is the one decoder they share.
// Dependency-free, like bank_model.h, so the audit can include it without linking gpusim.
//
//   opcode (lo & 0xfff): 0x984 LDS, 0x388 STS
//   size: bits 73-75 (hi >> 9 & 7): 0 U8, 1 S8, 2 U16, 3 S16, 4 32-bit, 5 64-bit, 6 128-bit
//
// Read off ptxas's output for PTX ld/st.shared of every width on sm_90 (u8, u16, f32, v2.f32,
// v4.f32); tests/gpusim/sass/sass_map_test.cpp checks it against ptxas.
#pragma once

#include <cstdint>

namespace weft::gpusim {

inline constexpr uint64_t kSassOpcodeLds = 0x984;
inline constexpr uint64_t kSassOpcodeSts = 0x388;

// True for an LDS or STS word, with `store` and `width` (bytes per thread: 1, 2, 4, 8 or 16).
inline bool decode_shared_sass(uint64_t lo, uint64_t hi, bool* store, int* width) {
    const uint64_t opcode = lo & 0xfff;
    if (opcode != kSassOpcodeLds && opcode != kSassOpcodeSts) return false;
    static constexpr int kBytes[8] = {1, 1, 2, 2, 4, 8, 16, 16};
    *store = opcode == kSassOpcodeSts;
    *width = kBytes[(hi >> 9) & 7];
    return true;
}

}  // namespace weft::gpusim
