// Shared-memory bank model: how many wavefronts one warp-wide shared-memory request costs.
//
// This is the rule Nsight Compute counts by (l1tex__data_pipe_lsu_wavefronts_mem_shared):
//   - shared memory has `banks` banks (32) of `bank_width` bytes (4); word w lives in bank w % banks;
//   - lanes reading or writing the same word are served together (broadcast / merge);
//   - 64-bit accesses are processed per half-warp and 128-bit accesses per quarter-warp (phases);
//   - a phase costs the largest number of distinct words any single bank must deliver;
//     a request costs the sum over its phases (phases with no active lane cost nothing).
// The ideal cost of a request with every lane active is 1 (<= 4 bytes), 2 (8 bytes), 4 (16 bytes).
//
// The header is deliberately self-contained (standard library only, no compiler types), so that
// gpusim's timing model can include the same rule later and the audit and the simulator agree.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace weft::compiler::audit {

// Byte addresses of the 32 lanes of a warp; nullopt = lane inactive for this request.
using LaneAddresses = std::array<std::optional<uint64_t>, 32>;

struct BankCost {
    int wavefronts = 0;        // what the request costs
    int ideal = 0;             // what the same request costs with no bank conflict
    int excess() const { return wavefronts - ideal; }
};

// `width_bytes` is 1, 2, 4, 8 or 16 (one ld/st.shared of that size per lane). Other widths are
// the caller's to split (a vec3 is three 4-byte accesses). Addresses need not be aligned to the
// width; every bank word the access touches counts.
BankCost bank_wavefronts(const LaneAddresses& addresses, int width_bytes, int banks = 32, int bank_width = 4);

}  // namespace weft::compiler::audit
