// runtime/launch_checks.h: a launch's shape against what the kernel's wp.tid() requires.
//
// Before anything runs, launch() (module.h) refuses a launch that could only go out of range:
//
//   - its number of dimensions differs from the kernel's use of wp.tid(): `i = wp.tid()` is a
//     1-D index and needs a 1-D launch; `i, j = wp.tid()` needs a 2-D one. (Warp gives a 1-D
//     index the linear thread number of a multi-dimensional launch; Weft refuses the launch,
//     since a kernel written for one dimension indexes its arrays with it.)
//   - an array that every thread indexes with a tid component unchanged (`a[i]` before any
//     statement that may return, compiler/passes/launch_shape.h) is shorter along that axis
//     than the launch along that component: some thread would read or write past its end.
//
// Both come from compile-time facts (KernelInfo::tid_ndim, tid_indexed), so the check costs a
// few comparisons per launch and runs always, on every device, debug or not.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/codegen/cpp_codegen.h"
#include "runtime/array.h"

namespace weft::runtime {

// Throws RuntimeError naming the kernel, the array, its shape and the launch's dim. `arrays[i]`
// is the array given for parameter i (an invalid Array for other parameters).
void check_launch_shape(const compiler::KernelInfo& k, const std::vector<int64_t>& dim, const std::vector<Array>& arrays);

}  // namespace weft::runtime
