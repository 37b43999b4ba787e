// The typed, structured IR of kernels and funcs.
//
// Semantic analysis lowers the syntax tree to this form; audits, the adjoint transform and the
// code generator read it. Every expression has an exact type; every call names the builtin
// overload or the func it calls; every variable is a `Var` object with one type for its whole
// life (declared at function scope, as Python scopes locals). Control flow stays structured
// (if / for / while / break / continue / return), which is what the adjoint needs and what C++
// and PTX reconverge on.
//
//   Function
//     params: Var*             kernel or func parameters
//     body:   Block            statements
//   Stmt:  Assign(var, path, value)   Store(array, indices, path, value)   Eval(expr)
//          If(cond, then, else)       For(var, start, stop, step, body)    While(cond, body)
//          Break   Continue           Return(value?)                       Sync
//   Expr:  Const  VarRef  Unary  Binary  Compare  Logical  Select  Call  CallFunc  Cast
//          Construct  Load  Shape  Extract  Field  TupleGet  MakeTuple  Atomic  Intrinsic
//
// Node kinds are listed once in the X-macros below; `make()` helpers build nodes; ir_visitor.h
// walks and rewrites them (the only switch over node kinds).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/builtins/builtin_table.h"
#include "compiler/diagnostics.h"
#include "compiler/types.h"

namespace weft::compiler::ir {

#define WEFT_FOR_EACH_IR_EXPR(X) \
    X(Const)                     \
    X(VarRef)                    \
    X(Unary)                     \
    X(Binary)                    \
    X(Compare)                   \
    X(Logical)                   \
    X(Select)                    \
    X(Call)                      \
    X(CallFunc)                  \
    X(Cast)                      \
    X(Construct)                 \
    X(Load)                      \
    X(Shape)                     \
    X(Extract)                   \
    X(Field)                     \
    X(TupleGet)                  \
    X(MakeTuple)                 \
    X(Atomic)                    \
    X(Intrinsic)

#define WEFT_FOR_EACH_IR_STMT(X) \
    X(Assign)                    \
    X(Store)                     \
    X(Eval)                      \
    X(If)                        \
    X(For)                       \
    X(While)                     \
    X(Break)                     \
    X(Continue)                  \
    X(Return)                    \
    X(Sync)

enum class ExprKind {
#define X(n) n,
    WEFT_FOR_EACH_IR_EXPR(X)
#undef X
};
enum class StmtKind {
#define X(n) n,
    WEFT_FOR_EACH_IR_STMT(X)
#undef X
};

enum class UnaryOp { Neg, Not, BitNot };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, Shl, Shr };
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };
enum class LogicalOp { And, Or };
enum class AtomicOp { Add, Sub, Min, Max, Exch, Cas };
// Thread and block indices. Tid is the linear launch index; TidDim k is the k-th component.
enum class IntrinsicOp { Tid, TidDim, BlockDim, BlockIdx, ThreadIdx, LaneId, GridDim, Print };

const char* unary_text(UnaryOp op);
const char* binary_text(BinaryOp op);
const char* compare_text(CompareOp op);
const char* atomic_name(AtomicOp op);

enum class VarKind { Param, Local, Shared };

struct Var {
    std::string name;
    Type type = nullptr;
    VarKind kind = VarKind::Local;
    SourceLoc loc;
    int id = 0;  // unique within its function
    // Shared arrays: element shape and byte offset in the block's shared memory.
    std::vector<int> shared_shape;
    size_t shared_offset = 0;
};

struct Function;
struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
    ExprKind kind;
    Type type = nullptr;
    SourceLoc loc;
    std::vector<ExprPtr> args;  // operands in order (see make helpers)
    // Payload, by kind:
    int64_t int_value = 0;     // Const (integers, bool); Extract/Field/TupleGet: static index (-1 = dynamic, in args)
    double float_value = 0.0;  // Const (floats)
    const Var* var = nullptr;  // VarRef
    int op = 0;                // Unary/Binary/Compare/Logical/Atomic/Intrinsic op
    const BuiltinOverload* builtin = nullptr;  // Call
    const Function* func = nullptr;            // CallFunc
    std::string text;                          // Intrinsic Print: format; Const float: literal text

    Expr(ExprKind k, Type t, SourceLoc l) : kind(k), type(t), loc(l) {}
};

// An assignment target below a variable or an array element: v[0], m[i, j], s.field.x …
struct PathStep {
    enum Kind { Index, Field } kind = Index;
    std::vector<ExprPtr> indices;  // Index: one (vector component / matrix row) or two (matrix element)
    int field = 0;                 // Field: struct field index
    Type type = nullptr;           // type of the value after this step
};

struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct Stmt {
    StmtKind kind;
    SourceLoc loc;
    const Var* var = nullptr;      // Assign target; For loop variable
    std::vector<PathStep> path;    // Assign/Store: component path below the target
    ExprPtr array;                 // Store: the array
    std::vector<ExprPtr> indices;  // Store: element indices
    ExprPtr value;                 // Assign/Store/Eval/Return (may be null); If/While: condition
    ExprPtr start, stop, step;     // For
    Block body;                    // If then / For / While
    Block orelse;                  // If else

    Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

enum class FunctionKind { Kernel, Func };

struct Function {
    FunctionKind kind = FunctionKind::Func;
    std::string name;
    std::string cpp_suffix;  // funcs: tells apart the C++ names of overloads and generic instances ("_1")
    SourceLoc loc;
    std::vector<Var*> params;
    Type ret = nullptr;                      // void for kernels
    std::vector<std::unique_ptr<Var>> vars;  // every Var of the function (params, locals, shared)
    Block body;
    std::string docstring;
    // Kernels:
    int block_dim = 0;            // @wp.kernel(block_dim=N); 0 = launch default
    bool uses_sync = false;       // calls wp.sync_threads() (directly or through funcs)
    bool uses_warp_sync = false;  // calls a warp collective, wp.shfl_sync ... (directly or through funcs)
    size_t shared_bytes = 0;      // static shared memory per block
    bool enable_backward = true;
    const Function* custom_grad = nullptr;  // @wp.func_grad replacement (funcs)

    Var* new_var(const std::string& name, Type t, VarKind kind, SourceLoc loc);
};

// A module-level `NAME = wp.constant(value)`. Every use in a function refers to `value` itself
// (the same node), so analyses can tell a constant's uses apart from equal literals.
struct Constant {
    std::string name;
    SourceLoc loc;
    ExprPtr value;  // a Const, or a Construct of Consts
};

struct Module {
    std::string name;                                  // module key (path or Python module name)
    std::vector<Type> structs;                         // in dependency order
    std::vector<Constant> constants;                   // in source order (those that folded)
    std::vector<std::unique_ptr<Function>> functions;  // funcs before their callers, then kernels
    const Function* find(const std::string& name) const;
};

// ---- construction helpers ----
ExprPtr make_int(int64_t v, Type t, SourceLoc loc = {});
ExprPtr make_float(double v, Type t, SourceLoc loc = {});
ExprPtr make_bool(bool v, SourceLoc loc = {});
ExprPtr make_var(const Var* v, SourceLoc loc = {});
ExprPtr make_unary(UnaryOp op, ExprPtr a, Type t, SourceLoc loc);
ExprPtr make_binary(BinaryOp op, ExprPtr a, ExprPtr b, Type t, SourceLoc loc);
ExprPtr make_compare(CompareOp op, ExprPtr a, ExprPtr b, SourceLoc loc);
ExprPtr make_logical(LogicalOp op, ExprPtr a, ExprPtr b, SourceLoc loc);
ExprPtr make_select(ExprPtr cond, ExprPtr a, ExprPtr b, SourceLoc loc);
ExprPtr make_call(const BuiltinOverload* o, std::vector<ExprPtr> args, SourceLoc loc);
ExprPtr make_call_func(const Function* f, std::vector<ExprPtr> args, SourceLoc loc);
ExprPtr make_cast(ExprPtr a, Type to, SourceLoc loc);
ExprPtr make_construct(Type t, std::vector<ExprPtr> args, SourceLoc loc);
ExprPtr make_load(ExprPtr array, std::vector<ExprPtr> indices, SourceLoc loc);
ExprPtr make_shape(ExprPtr array, int dim, SourceLoc loc);
// Component of a vector/quat (one index), row of a matrix (one index) or matrix element (two).
ExprPtr make_extract(ExprPtr value, std::vector<ExprPtr> indices, Type t, SourceLoc loc);
ExprPtr make_field(ExprPtr value, int field, SourceLoc loc);
ExprPtr make_tuple_get(ExprPtr tuple, int index, SourceLoc loc);
ExprPtr make_tuple(std::vector<ExprPtr> items, SourceLoc loc);
ExprPtr make_atomic(AtomicOp op, ExprPtr array, std::vector<ExprPtr> indices, std::vector<ExprPtr> values, SourceLoc loc);
ExprPtr make_intrinsic(IntrinsicOp op, Type t, SourceLoc loc, int64_t arg = 0);

bool is_const(const ExprPtr& e);

// True when `pred` holds for some expression of the block, at any depth: operands, indices,
// assignment paths, loop bounds and nested blocks (not the bodies of called funcs).
bool any_expr(const Block& block, const std::function<bool(const Expr&)>& pred);

// ---- printing and checking ----
std::string print(const Function& f);
std::string print(const Module& m);
std::string print(const Expr& e);
// Checks structural invariants (types present, operands well-typed, vars owned by the function,
// break/continue inside loops). Returns a description of the first violation, or "" if none.
std::string verify(const Function& f);
// The same for `f` with another body: a pass's result that stands beside f's own (lower_jumps'
// jump-free bodies), with the variables `added` that the pass owns.
std::string print(const Function& f, const Block& body, const std::vector<std::unique_ptr<Var>>& added);
std::string verify(const Function& f, const Block& body, const std::vector<std::unique_ptr<Var>>& added);

}  // namespace weft::compiler::ir
