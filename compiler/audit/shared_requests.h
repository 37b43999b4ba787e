// The warp-level shared-memory requests of one access, and what they cost in wavefronts.
//
// The cost rule is gpusim's (gpusim/arch/bank_model.h, `shared_bank_cost`): one implementation of the
// bank model for the simulator and the audit, as the issue asks. That header is dependency-free
// (<cstdint> only), so compiler/ includes it without depending on anything else of gpusim.
// This file only turns the interpreter's per-thread element indices into what the hardware
// issues: byte addresses per lane and an access width (1, 2, 4, 8 or 16 bytes; a value of
// another size, such as a 12-byte vec3, is issued as one 4-byte request per word).
//
//   AccessEvent (per-thread indices) ──warp_requests──> [SharedRequest] ──request_cost──> BankCost
//
// The rule itself (documented in gpusim/arch/bank_model.h and docs/audit.md): 32 banks of 4 bytes;
// lanes on one word are served by one broadcast; a phase costs the largest number of distinct
// words one bank must deliver; phases are the whole warp for accesses of up to 8 bytes and
// half-warps for 16-byte accesses (BankRule::kH200Measured, what the H200 did), or the
// documented half-/quarter-warp phases (BankRule::kNsightDoc). Both give the same counts on
// every strided pattern.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "compiler/audit/simt_eval.h"
#include "gpusim/arch/bank_model.h"

namespace weft::compiler::audit {

using BankCost = gpusim::BankCost;
using BankRule = gpusim::BankRule;

// One ld/st.shared of a warp: a byte address per lane (read only for lanes set in `active`).
struct SharedRequest {
    std::array<uint32_t, kWarpSize> addr{};
    uint32_t active = 0;  // bit l: lane l takes part
    uint32_t width = 4;   // bytes per lane: 1, 2, 4, 8 or 16
};

// The requests warp `warp` of the block issues for `ev` (empty if no lane is active or some
// active lane's address is unknown). `shape`, if given, replaces the shared array's shape (the
// padding search of bank_conflicts).
std::vector<SharedRequest> warp_requests(const AccessEvent& ev, int warp, const std::vector<int>* shape = nullptr);

// Wavefronts of one request under gpusim's bank model.
BankCost request_cost(const SharedRequest& r, BankRule rule = BankRule::kH200Measured);

}  // namespace weft::compiler::audit
