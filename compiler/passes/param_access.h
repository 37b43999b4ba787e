// param_access: which array parameters a kernel (or func) reads and which it writes.
//
// The Tape needs this to check its recording: an array that one recorded launch read and a later
// launch overwrote cannot be differentiated (the backward pass of the first launch would see the new
// values), and `backward` reports it instead of returning wrong gradients. The answer is
// syntactic and conservative: an array counts as read when any path loads from it (an atomic reads
// and writes, except an atomic add or subtract used as a statement: its result is unused and its
// adjoint never reads the array, so it only writes), as written when any path stores to it,
// whether or not that path runs. Arrays passed
// to funcs are followed into the func's body; an array assigned to a local follows the local.
// Arrays inside struct parameters are not tracked (they carry no gradient either).
#pragma once

#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

struct ParamAccess {
    bool read = false;
    bool written = false;
};

// One entry per parameter of `f`, in order. Non-array parameters get {false, false}.
std::vector<ParamAccess> param_access(const ir::Function& f);

}  // namespace weft::compiler::passes
