// check_differentiable: reports, before any code is generated, what would make a kernel's adjoint
// wrong: a builtin without an adjoint on a differentiable path (a float value flowing in and a
// float value flowing out), and a @wp.func_grad whose signature does not follow the calling
// convention (docs/autodiff.md). Missing adjoints are compile errors, never silently-zero
// gradients.
//
// It also decides which kernels get an adjoint at all (`has_adjoint`): those declared with
// enable_backward (the default) that use no shared memory and no barrier.
#pragma once

#include <set>

#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::passes {

// Float-valued (float32/float64 scalars and the vectors, matrices, quaternions, transforms, structs
// and tuples built from them): the types that carry an adjoint.
bool is_differentiable(Type t);

// The type a @wp.func_grad of `f` must return: the adjoint of each non-array parameter in order
// (one value, or a tuple of them when there are several).
Type custom_grad_return_type(const ir::Function& f);

// Whether the code generator emits an adjoint for kernel `k`, and why not when it does not.
bool has_adjoint(const ir::Function& k, std::string* why_not = nullptr);

// The funcs reached (directly or through other funcs) from the kernels that have an adjoint: the
// code generator emits their replay_ and adj_ variants.
std::set<const ir::Function*> differentiated_funcs(const ir::Module& m);

// Reports err_no_adjoint / err_custom_grad_signature for every kernel that has an adjoint.
// Returns whether it reported anything.
bool check_differentiable(const ir::Module& m, DiagnosticEngine& diags);

}  // namespace weft::compiler::passes
