// gpusim/ptx/reconvergence.h — where divergent lanes of a warp meet again.
//
// For each function, builds the control-flow graph of its basic blocks and computes immediate
// post-dominators (Cooper, Harvey & Kennedy's iterative algorithm on the reversed graph, with a
// virtual exit node that every ret/exit reaches). A branch's reconvergence point is the first
// instruction of its block's immediate post-dominator; the SIMT stack (warp.h) pops a divergent
// path when it reaches that point. Branches whose paths only meet at the function's exit (or
// never, in an infinite loop) get rpc = -1: their lanes wait until the other path has left.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusim/ptx/instruction.h"

namespace weft::gpusim {

// Fills Instr::rpc of every bra in code[begin, end). Branch targets must already be resolved.
void compute_reconvergence(std::vector<Instr>& code, int32_t begin, int32_t end);

}  // namespace weft::gpusim
