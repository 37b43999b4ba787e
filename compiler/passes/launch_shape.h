// launch_shape: what a kernel's use of wp.tid() requires of the launch that runs it.
//
// Two compile-time facts the runtime checks before a launch (runtime/launch_checks.h), so that a
// launch that could only read or write past its arrays is refused with a message instead of
// crashing or returning garbage:
//
//   tid_ndim      how many dimensions the kernel's thread index has: `i = wp.tid()` is a 1-D
//                 index, `i, j = wp.tid()` a 2-D one (the kernel's own body and every func it
//                 calls). A launch must have exactly that many; 0 means the kernel never calls
//                 wp.tid() and any launch shape fits.
//   tid_indexed   the array parameters that the kernel indexes with a component of wp.tid()
//                 unchanged (`a[i]`, `m[i, j]`) in a statement that every thread runs: a
//                 statement of the kernel's top-level body before any statement that may
//                 return, outside the branches of a conditional expression and the right
//                 operand of `and`/`or`. Such an access is out of range for some thread unless
//                 the array's extent along that axis is at least the launch's extent along the
//                 tid component. Guarded accesses (`if i < a.shape[0]:`) are never listed.
//
// A local counts as a tid component when every assignment to it in the kernel is `= wp.tid()`
// (or the same position of `= wp.tid()` unpacked). The analysis is syntactic and conservative:
// what it lists is certainly executed with that index.
#pragma once

#include <vector>

#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

struct TidIndexedAccess {
    size_t param = 0;  // index of the array parameter
    int axis = 0;      // which index of the access
    int tid_dim = 0;   // which component of wp.tid(): 0..3 (a 1-D index is component 0)
    SourceLoc loc;     // the access
};

struct LaunchShape {
    int tid_ndim = 0;  // 0: no wp.tid(); else the number of launch dimensions the kernel expects
    std::vector<TidIndexedAccess> tid_indexed;
};

LaunchShape launch_shape(const ir::Function& kernel);

}  // namespace weft::compiler::passes
