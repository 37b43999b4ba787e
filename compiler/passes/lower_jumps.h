// lower_jumps: rewrites `break`, `continue` and `return` into assignments of boolean flags, so
// that a function body has only structured control flow (if / for / while, each entered at the
// top and left at the bottom).
//
// The adjoint needs this: its reverse sweep walks a block backwards, which is only meaningful if
// every statement of the block either ran to completion or did not run at all. After this pass
// that holds, because every statement that follows a possible jump is guarded:
//
//   for i in range(n):               for i in range(n):            (a for with break or return
//       if x[i] < 0:                     cont = false                becomes a while over an
//           continue                     if x[i] < 0:                explicit counter, whose
//       s += x[i]              ==>           cont = true             condition tests the flags)
//                                        if not cont:
//                                            s += x[i]
//
// `return v` becomes `ret_value = v; ret = true`. The pass does not modify its input: it
// returns a new body (sharing the unchanged statements) and owns the variables it adds.
#pragma once

#include <memory>
#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

struct JumpFreeBody {
    ir::Block body;
    std::vector<std::unique_ptr<ir::Var>> vars;  // flags, counters and the return value it added
    const ir::Var* ret_value = nullptr;          // funcs that return a value: holds it at the end
    bool changed = false;                        // whether the input had any jump to lower
};

// Lowers the jumps of `f`'s body. New variables get ids above every id of `f`.
JumpFreeBody lower_jumps(const ir::Function& f);

}  // namespace weft::compiler::passes
