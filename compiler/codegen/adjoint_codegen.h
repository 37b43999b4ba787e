// Code generation of adjoints (reverse mode), called by the C++ code generator for every func
// reached from a differentiable kernel and for every kernel that has an adjoint
// (passes::has_adjoint). docs/autodiff.md describes the method; in short, a backward body is
//
//   forward sweep   the kernel's statements once more, without memory side effects (no stores,
//                   atomics read instead of write), pushing on a per-thread tape the value each
//                   assignment overwrites, the branch each `if` takes and each loop's trip count
//   reverse sweep   the statements backwards: pop to restore the variables to the state before
//                   the statement, recompute the statement's right-hand side from them, and apply
//                   each expression node's adjoint rule (adjoint_expr.cpp)
//
// so it is exact for any control flow, including loop-carried values of dynamic loops. It reverses
// the jump-free body that passes::lower_jumps made (the driver runs it before code generation), so
// that every block is reversed as a whole.
//
// For kernel K it emits
//   struct K_args_adj { K_args primal; wp::array_t<..> adj_<p>...; wp::array_t<int32> status_; }
//   K_body_backward, and the entries K_cuda_backward / K_cpu_range_backward / K_cpu_thread_backward
// with the same signatures as the forward entries. For func f: adj_wpf_f(ctx, bounds, tape,
// params..., adj_params&..., adj_ret) and replay_wpf_f (f without memory side effects).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "compiler/codegen/cpp_codegen.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/lower_jumps.h"

namespace weft::compiler {

// What the adjoint emitter borrows from the forward code generator. Expressions are printed in
// replay mode: calls of funcs go to their replay_ variant, atomics only read.
class CppExprPrinter {
public:
    virtual ~CppExprPrinter() = default;
    virtual std::string expr(const ir::ExprPtr& e) = 0;
    // `wp::address(array, i, j)` or its checked form in debug builds.
    virtual std::string address(const std::string& array, const std::vector<std::string>& indices, SourceLoc loc) = 0;
    virtual std::string path_ref(std::string base, Type t, const std::vector<ir::PathStep>& path) = 0;
    virtual std::string line_directive(const SourceLoc& loc) = 0;  // a #line directive, or ""
};

struct AdjointOptions {
    int tape_bytes = 4096;  // capacity of the per-thread tape of a backward thread
};

std::string cpp_var_name(const ir::Var* v);
std::string cpp_func_name(const ir::Function* f);
std::string cpp_sanitize(const std::string& s);

// `adj_accum` overloads for a struct (emitted once per struct, after its definition).
void emit_adjoint_struct(std::ostream& os, Type s);
// The module-wide tape type; emitted once before any adjoint.
void emit_adjoint_prelude(std::ostream& os, const AdjointOptions& o);
// adj_wpf_f for func f (its replay_ variant is emitted by the forward code generator); not for a
// func with a @wp.func_grad, whose callers call that instead.
// `lowered` is lower_jumps' body of the function.
void emit_adjoint_func(std::ostream& os, CppExprPrinter& p, const ir::Function& f, const passes::JumpFreeBody& lowered);
// K_args_adj, K_body_backward and the backward entries; fills the backward fields of `info`.
void emit_adjoint_kernel(std::ostream& os, CppExprPrinter& p, const ir::Function& k, const passes::JumpFreeBody& lowered,
                         KernelInfo& info, const AdjointOptions& o);

}  // namespace weft::compiler
