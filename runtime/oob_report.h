// runtime/oob_report.h: the error a debug-mode launch raises for an out-of-range array access,
// shared by every backend so the message reads the same on cpu, cuda and sim:
//   kernel 'scale' (kernels/foo.py:12): index 7 is out of range for dimension 0 of an array of shape (5,)
#pragma once

#include <string>

#include "compiler/codegen/cpp_codegen.h"
#include "compiler/native/array.h"

namespace weft::runtime {

std::string format_oob(const compiler::KernelInfo& k, const wp::oob_record& r);

}  // namespace weft::runtime
