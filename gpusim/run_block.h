// gpusim/run_block.h — runs one thread block to completion (internal header).
//
// Warps take turns of LaunchOptions::warp_quantum instructions in warp order. After each
// round, barriers whose arrivals reached their expected count release their warps. If a round
// ends with no warp able to run and some warp unfinished, the block is deadlocked at its
// barriers: run_block throws a SimError describing every waiting warp (see launch.h for the
// barrier semantics).
#pragma once

#include "gpusim/warp.h"

namespace weft::gpusim {

// ctx must have module, kernel, code, geometry, memory and counters set; run_block creates
// the warps (registers in `regs`, resized as needed) and runs them.
void run_block(BlockContext& ctx, std::vector<uint64_t>& regs);

}  // namespace weft::gpusim
