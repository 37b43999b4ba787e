// adjoint_accumulators: Warp's way of writing a custom gradient, rewritten into Weft's.
//
// In Warp, a @wp.func_grad body adds into `wp.adjoint[x]` for each input x:
//
//     @wp.func_grad(sq)
//     def sq_grad(a: float, adj_ret: float):
//         wp.adjoint[a] += 2.0 * a * adj_ret
//
// Weft's convention is that the custom adjoint returns the inputs' adjoints (docs/autodiff.md).
// rewrite_adjoint_accumulators turns the first form into the second on the AST: one local per
// non-array input, `adj__a = a - a` (a zero of a's type), every `wp.adjoint[a]` replaced by that
// local, and `return adj__a` (a tuple for several inputs) appended. Bodies that do not use
// `wp.adjoint` are left alone. A body that uses both `wp.adjoint` and `return v` is reported by
// sema (the return then has the wrong type).
#pragma once

#include <deque>
#include <functional>
#include <string>

#include "compiler/ast/ast.h"

namespace weft::compiler::sema {

// `is_weft_module(name)`: whether `name` is an alias of the weft module (`wp`). Returns `def` itself
// when there is nothing to rewrite, else a rewritten copy stored in `storage`.
const ast::FunctionDef* rewrite_adjoint_accumulators(const ast::FunctionDef& def, std::deque<ast::FunctionDef>& storage,
                                                     const std::function<bool(const std::string&)>& is_weft_module);

}  // namespace weft::compiler::sema
