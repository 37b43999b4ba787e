// Which builtin overloads the adjoint sweep (builtin_adjoint_test.cpp) checks, and how.
//
// Every typed overload of the builtin table falls in exactly one class:
//
//   Adjoint      flagged Differentiable: its adjoint (compiler/native) is checked against
//                central finite differences of the forward kernel, through the whole pipeline
//   ZeroAdjoint  piecewise constant (floor, ceil, round, trunc, sign, step, floordiv): not flagged,
//                accepted by check_differentiable, and its adjoint must be exactly zero, as its
//                finite difference is away from the jumps
//   NoAdjoint    a float argument and a float result but no adjoint: a kernel differentiating
//                through it must fail to compile with err_no_adjoint naming it
//   Skipped      no differentiable path at all (integer or boolean result, no float argument),
//                or a special form that semantic analysis resolves itself
//
// The kernels are generated from the table, so a new builtin is checked without touching the test.
#pragma once

#include <string>
#include <vector>

#include "compiler/builtins/builtin_table.h"

namespace weft::test {

enum class AdjointClass { Adjoint, ZeroAdjoint, NoAdjoint, Skipped };

struct Classified {
    AdjointClass cls = AdjointClass::Skipped;
    std::string why_skipped;  // Skipped only: a short reason, shared by similar overloads
};

Classified classify(const compiler::BuiltinOverload& o);

// How a kernel of the sweep reaches an overload. Each form runs a different path of the adjoint
// code generator: builtin calls on loaded values (temporaries), operators (their own adjoint
// rules in adjoint_expr.cpp), and one variable passed as every argument (the argument adjoints
// are the same accumulator).
enum class Form {
    Call,      // out[i] = wp.f(in0[i], in1[i])
    Operator,  // out[i] = in0[i] * in1[i]  (add + | sub - | mul * | div / | neg -x | mod % | floordiv // | pow **)
    MatMul,    // out[i] = in0[i] @ in1[i]  (mul of a matrix and a vector or matrix)
    Aliased,   // v = in0[i]; out[i] = wp.f(v, v)  (every parameter of the same type)
};

struct Variant {
    size_t overload;  // index in builtin_table().overloads()
    Form form;
};

// The Adjoint and ZeroAdjoint overloads in table order, each in every form it supports.
std::vector<Variant> sweep_variants();

// The parameters whose values come from the kernel's arrays (in0, in1, ...): all of them, except
// for Aliased (parameter 0 only, passed as every argument).
std::vector<size_t> array_params(const Variant& v);

// Whether the sweep can feed the overload from arrays: every parameter and the result are
// float32/float64 scalars, vectors, matrices, quaternions or transforms (integer scalar
// parameters are passed but not differentiated).
bool sweepable(const compiler::BuiltinOverload& o);

// The kernel-language spelling of a value type: wp.vec3f, wp.spatial_matrixd, wp.int32.
std::string spelling(compiler::Type t);

// The kernel's name, "k<overload>_<form>", and its source: it reads its arguments from arrays at
// wp.tid() and stores the result in `out`.
std::string kernel_name(const Variant& v);
std::string sweep_kernel(const Variant& v);

const char* form_name(Form f);

}  // namespace weft::test
