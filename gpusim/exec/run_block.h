// gpusim/exec/run_block.h — runs one thread block to completion (internal header).
//
// Warps take turns of LaunchOptions::warp_quantum instructions in warp order. After each
// round, barriers whose arrivals reached their expected count release their warps. If a round
// ends with no warp able to run and some warp unfinished, the block is deadlocked at its
// barriers: run_block throws a SimError describing every waiting warp (see launch.h for the
// barrier semantics).
#pragma once

#include "gpusim/exec/warp.h"

namespace weft::gpusim {

// ctx must have module, kernel, code, geometry, memory and counters set; run_block creates
// the warps (registers in `regs`, resized as needed) and runs them.
void run_block(BlockContext& ctx, RegisterFile& regs);

// The two halves of run_block that the timing model drives itself (it issues one instruction
// at a time): creating the warps (barrier counts reset), and releasing every barrier whose
// arrivals are complete (returns whether any was released; released warps become Ready, or
// Done when their stack is empty).
void init_block_warps(BlockContext& ctx, RegisterFile& regs);
bool release_barriers(BlockContext& ctx);
// Throws the SimError run_block throws when no warp of the block can progress.
[[noreturn]] void throw_barrier_deadlock(const BlockContext& ctx);

// A register file holds a row for every register of the module in each warp of a block, most
// never touched, and the timing model keeps one per block slot of each SM: allocating them anew
// per launch made a frame of short launches fault the same pages in again and again. Slots take
// theirs from this process-wide pool (any thread) when they first hold a block, and give them back
// when the launch ends; a file from the pool holds stale rows, which init_block_warps clears as it
// clears a reused one. take_register_file: the smallest pooled file of at least `elements`
// (block_register_elements), or an empty one (init_block_warps allocates it).
size_t block_register_elements(const BlockContext& ctx);
RegisterFile take_register_file(size_t elements);
void give_register_file(RegisterFile&& file);

}  // namespace weft::gpusim
