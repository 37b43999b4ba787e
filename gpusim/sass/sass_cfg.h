// gpusim/sass/sass_cfg.h — the control flow of a kernel's sm_90 machine code: its branches decoded
// from the raw instruction words, and the basic blocks and edges they make.
//
// Why: the SASS estimate (sass_map.h) counts how often each SASS instruction runs. Where the
// machine code has the PTX's shape that is the count of the PTX instruction it came from; where
// it does not (a 64-bit `rem` whose SASS holds a slow path the GPU never runs, a loop ptxas
// unrolled into a main body and a remainder), the count is one of the SASS block it sits in,
// and the blocks are read off the branches here. No disassembler is needed.
//
// Encodings, read off `cuobjdump -sass` of the validation kernels built by nvcc on the H200
// (bench/results/gpusim-h200/2026-12-03-run3/sass.txt.gz, 173 branch words, all decoded to the
// target the disassembler printed):
//   opcode (lo & 0xfff): 0x947 BRA, 0x94d EXIT, 0x944 CALL.REL.NOINC, 0x950 RET.REL.NODEC,
//                        0x945 BSSY, 0x941 BSYNC
//   guard predicate: bits 12-14 (7 = PT), bit 15 negates; `PT` unnegated: unconditional
//   BRA / CALL target: byte offset from the next instruction =
//                        (bits 32-81, signed) * 256 + (bits 16-23) * 4
//   BSSY reconvergence point: byte offset from the next instruction = bits 32-81, signed
#pragma once

#include <cstdint>
#include <vector>

namespace weft::gpusim {

struct SassInstruction;

enum class SassFlow {
    None,    // falls through
    Branch,  // BRA: to `target` (and, when conditional, to the next instruction)
    Exit,    // EXIT: ends the thread (conditional: the others fall through)
    Call,    // CALL: to the subroutine at `target`; returns to the next instruction
    Return,  // RET: back to the caller
    Bssy,    // BSSY: sets a reconvergence point (`target`); falls through
    Bsync,   // BSYNC: waits for the threads of its BSSY; falls through
};

struct SassControl {
    SassFlow flow = SassFlow::None;
    bool conditional = false;  // guarded by a predicate other than PT
    int64_t target = -1;       // instruction index of the branch/call target or reconvergence point
};

// Decodes instruction `index` (16 bytes each, from the start of the kernel's code).
SassControl decode_sass_control(uint64_t lo, uint64_t hi, int64_t index);

// True for an instruction under a guard predicate other than PT (`@P1 MOV`, `@!P0 DMUL`): code
// ptxas if-converted (it runs, as a warp instruction, as often as its block, whatever the
// guard says). Bits 12-15, as for branches.
inline bool sass_guarded(uint64_t lo) { return ((lo >> 12) & 0xf) != 7; }

// True for a load from a constant bank (opcode 0xb82 LDC, 0xab9 ULDC). ptxas attributes such a
// load to the PTX instruction that uses the value (a kernel parameter) but places it where it
// likes, often hoisted out of that instruction's block, so it says nothing about how often
// that instruction ran. Read off the Weft validation kernels' SASS (ncu's source view, run 4:
// 114 LDC and 164 ULDC words, no other instruction with either opcode).
bool sass_constant_load(uint64_t lo);

// ptxas's schedule of one instruction, from the control bits of its high word (hi >> 41), read
// off `cuobjdump -sass` of the H200 runs (bench/results/gpusim-h200/2026-12-03-run3/sass.txt.gz:
// an FFMA feeding the next one waits 4, an independent one 1; a MUFU.EX2 sets barrier 0 and its
// consumer waits on mask 0b1):
//   bits 0-3 stall: cycles before the warp's next instruction may issue (the fixed latencies
//            ptxas scheduled for); bit 4 yield; bits 5-7 the scoreboard barrier a
//            variable-latency instruction sets when its result is written (7: none); bits 8-10
//            the one set when its sources have been read; bits 11-16 the barriers it waits on.
struct SassSchedule {
    int stall = 0;
    int write_barrier = -1;  // -1: none
    int read_barrier = -1;
    uint32_t wait_mask = 0;
};
SassSchedule decode_sass_schedule(uint64_t hi);

struct SassBlock {
    int32_t begin = 0, end = 0;  // instructions [begin, end)
    std::vector<int32_t> succ;   // successor blocks (a conditional branch: taken first)
    std::vector<int32_t> pred;
    bool subroutine = false;  // reached only through a CALL (not from the entry by branches)
    bool bsync = false;       // the block is one BSYNC (its own block: it runs once per
                              // group of threads that arrives, not once per warp)
};

// Basic blocks: a branch or call target, the instruction after a BRA/EXIT/CALL/RET, and a
// BSYNC and the instruction after it start one. Edges: fall-through (not after an
// unconditional BRA or EXIT, nor after a RET), branch targets, call targets; a CALL also falls
// through to its return point. Targets outside the code are ignored.
struct SassCfg {
    std::vector<SassBlock> blocks;     // in address order; blocks[0] is the entry
    std::vector<int32_t> block_of;     // per instruction
    std::vector<SassControl> control;  // per instruction
};
SassCfg build_sass_cfg(const std::vector<SassInstruction>& code);

}  // namespace weft::gpusim
