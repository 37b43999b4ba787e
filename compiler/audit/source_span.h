// Source text for findings: what an access or a condition looks like as written.
//
// The IR's locations point at one token (a Compare's location is its operator or left operand;
// a Load's is the array's name), while a finding wants to quote and underline the whole
// expression: `s[t + stride]`, `i < n`. These helpers widen a location over the line it is on.
#pragma once

#include <string>

#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::audit {

// Source text under a location ("t + stride"), or "" without one.
std::string source_text(const SourceLoc& loc);
// An array access as written, from the array's name to its closing bracket ("a[i + 1]").
std::string access_text(const SourceLoc& loc);
// The location covering a whole expression on its first line (operands included): a Compare's
// own location is its operator or left operand only.
SourceLoc expr_span(const ir::Expr& e);

}  // namespace weft::compiler::audit
