// gpusim/arch/bank_model.h — NVIDIA's shared-memory bank rule as Nsight Compute counts it, as one
// dependency-free function (only <cstdint>), so the simulator and the static audit
// (compiler/audit) can share a single implementation.
//
// A warp's shared-memory request is split into phases by access width. Two variants:
//   kNsightDoc (the documented rule: shared/reference/gpu-facts.md)
//     <= 4 bytes: 1 phase of 32 lanes; 8 bytes: 2 phases of 16 lanes; 16 bytes: 4 phases of 8
//   kH200Measured (default; what the H200 did in gpusim/validation's sweep)
//     <= 8 bytes: 1 phase of 32 lanes; 16 bytes: 2 phases of 16 lanes
// The two agree on every strided pattern (each phase then has the same bank profile); they
// differ when lanes share data across phases: 16 lanes x 8 bytes read twice (pair broadcast)
// is 1 wavefront on the H200, 2 by the documented rule. The measured rule was derived from the
// sweep it is scored on (docs/gpusim.md says so).
// Within a phase, memory is 32 banks of 4-byte words (bank = word % 32). Lanes that touch the
// same word are served by one broadcast; the phase needs as many wavefronts as the largest
// number of distinct words any one bank must deliver. A phase with no active lane costs
// nothing. A phase's ideal is its bytes over the 128-byte data path (at least 1, at most what
// it took); Nsight Compute reports excess wavefronts ("bank conflicts") as wavefronts - ideal.
//
//   lane:  0    1    2  ...            words: 0  32  64 ...  (stride 32) -> bank 0 x32
//   bank:  0    1    2  ...  31               -> 32 wavefronts, 31 excess
#pragma once

#include <cstdint>

namespace weft::gpusim {

struct BankCost {
    uint32_t wavefronts = 0;  // data-stage passes the request needs
    uint32_t ideal = 0;       // passes with no conflicts
    uint32_t excess() const { return wavefronts - ideal; }
};

enum class BankRule : uint8_t { kH200Measured, kNsightDoc };

// `addr[lane]`: byte offset of the lane's access in shared memory (read only for lanes set in
// `active`); `bytes`: access width per lane (1, 2, 4, 8 or 16). Addresses are assumed aligned
// to `bytes`, as PTX requires.
inline BankCost shared_bank_cost(const uint32_t addr[32], uint32_t active, uint32_t bytes,
                                 BankRule rule = BankRule::kH200Measured) {
    BankCost cost;
    if (active == 0) return cost;
    const uint32_t lanes_per_phase = rule == BankRule::kH200Measured ? (bytes <= 8 ? 32u : 16u)
                                                                     : (bytes <= 4   ? 32u
                                                                        : bytes == 8 ? 16u
                                                                                     : 8u);
    const uint32_t words_per_lane = bytes <= 4 ? 1u : bytes / 4;
    for (uint32_t first = 0; first < 32; first += lanes_per_phase) {
        const uint32_t phase_mask = (lanes_per_phase == 32 ? 0xffffffffu : ((1u << lanes_per_phase) - 1)) << first;
        if ((active & phase_mask) == 0) continue;
        // Distinct words per bank: at most 32 lanes x 4 words = 128 words per phase.
        uint32_t words[128];
        uint32_t nwords = 0;
        for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane) {
            if (!(active >> lane & 1)) continue;
            for (uint32_t k = 0; k < words_per_lane; ++k) {
                const uint32_t w = addr[lane] / 4 + k;
                bool seen = false;
                for (uint32_t i = 0; i < nwords; ++i) seen |= words[i] == w;
                if (!seen) words[nwords++] = w;
            }
        }
        uint32_t per_bank[32] = {};
        uint32_t worst = 0;
        for (uint32_t i = 0; i < nwords; ++i) {
            const uint32_t c = ++per_bank[words[i] % 32];
            if (c > worst) worst = c;
        }
        cost.wavefronts += worst;
        // Ideal: the phase's bytes over the 128-byte data path, at least one pass.
        const uint32_t lanes = static_cast<uint32_t>(__builtin_popcount(active & phase_mask));
        const uint32_t need = (lanes * (bytes < 4 ? 4 : bytes) + 127) / 128;
        const uint32_t ideal = need ? need : 1;
        cost.ideal += ideal < worst ? ideal : worst;
    }
    return cost;
}

}  // namespace weft::gpusim
