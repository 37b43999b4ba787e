// gpusim/timing/instr_class.h — what the timing model needs to know about one PTX instruction,
// decoded once per launch: its pipe class (arch.h PipeClass), the registers it reads and
// writes (for the scoreboard), and whether ptxas folds it away.
//
// Folding: NVRTC's PTX carries instructions that SASS does not have — ld.param of a kernel
// parameter becomes a constant-bank operand, cvta.to.global and integer widening cvt become
// part of the address arithmetic, register moves are renamed away. The model executes them
// (they are real for the functional semantics) but they take no issue slot and no latency.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusim/arch/arch.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

struct InstrClass {
    PipeClass pipe = PipeClass::Alu;
    bool folded = false;   // no issue slot, no latency
    bool memory = false;   // ld/st/atom/red: pipe decided per issue from where it went
    int8_t expanded = -1;  // an ExpandedOp: its latency is the arch's expanded_latency, not the pipe's
    uint8_t nsrc = 0, ndst = 0;
    int32_t src[10] = {};  // registers read (guard and address registers included)
    int32_t dst[5] = {};   // registers written
};

// One entry per instruction of the module.
std::vector<InstrClass> classify_instructions(const Module& module);

}  // namespace weft::gpusim
