// The syntax tree of a kernel module: the Python subset that kernels, funcs, structs and
// constants are written in, each node carrying its source location.
//
// The tree is untyped and close to Python's own `ast` module (same node names where they
// overlap), so that the parser stays a plain recursive descent and all meaning is decided by
// semantic analysis (sema/), which lowers it to the typed IR (ir/).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diagnostics.h"

namespace weft::compiler::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class ExprKind {
    Name,   // id
    Int,    // int_value
    Float,  // float_value (text kept for diagnostics)
    Bool,   // bool_value
    None,
    String,     // str_value
    Attribute,  // value.attr
    Subscript,  // value[indices...]
    Call,       // func(args..., keywords...)
    BinOp,      // left op right
    UnaryOp,    // op operand
    BoolOp,     // a and b / a or b
    Compare,    // left op0 c0 op1 c1 ...
    IfExp,      // body if test else orelse
    Tuple,      // (a, b, ...)
    List,       // [a, b, ...] (shape arguments only)
};

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr, BitXor, LShift, RShift };
enum class UnaryOp { Neg, Pos, Not, Invert };
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne };
enum class BoolOpKind { And, Or };

const char* binop_text(BinOp op);
const char* unaryop_text(UnaryOp op);
const char* cmpop_text(CmpOp op);

struct Keyword {
    std::string name;
    SourceLoc loc;
    ExprPtr value;
};

struct Expr {
    ExprKind kind;
    SourceLoc loc;
    std::string id;  // Name: identifier; Attribute: attr; String: value; Float: literal text
    int64_t int_value = 0;
    double float_value = 0.0;
    bool bool_value = false;
    BinOp binop = BinOp::Add;
    UnaryOp unop = UnaryOp::Neg;
    BoolOpKind boolop = BoolOpKind::And;
    std::vector<CmpOp> cmpops;
    ExprPtr value;                  // Attribute/Subscript: base; UnaryOp: operand; IfExp: test
    std::vector<ExprPtr> args;      // Call: args; Subscript: indices; BinOp/BoolOp: [left, right];
                                    // Compare: [left, comparators...]; IfExp: [body, orelse]; Tuple/List: items
    std::vector<Keyword> keywords;  // Call only
    int height = 0;                 // levels of the tree below and including this node (a leaf is 1;
                                    // 0: not measured yet). The parser bounds it (kMaxExprHeight).

    Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
};

enum class StmtKind {
    Assign,     // targets[0] = value (a Tuple target unpacks)
    AugAssign,  // target op= value
    AnnAssign,  // target: annotation = value
    If,         // if test: body else: orelse (elif is a nested If in orelse)
    For,        // for target in iter: body
    While,      // while test: body
    Break,
    Continue,
    Return,  // return value?
    Pass,
    ExprStmt,  // value
};

struct Stmt {
    StmtKind kind;
    SourceLoc loc;
    ExprPtr target;         // Assign/AugAssign/AnnAssign/For
    ExprPtr value;          // Assign/AugAssign/AnnAssign/Return/ExprStmt; If/While: test; For: iter
    ExprPtr annotation;     // AnnAssign
    BinOp op = BinOp::Add;  // AugAssign
    Body body;
    Body orelse;

    Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

struct Param {
    std::string name;
    SourceLoc loc;
    ExprPtr annotation;     // may be null only for diagnostics
    ExprPtr default_value;  // `b: float = 2.0` (funcs only; sema refuses one on a kernel); may be null
};

enum class DefKind { Kernel, Func, FuncGrad };

struct FunctionDef {
    DefKind kind = DefKind::Func;
    std::string name;
    SourceLoc loc;  // the name
    std::vector<Param> params;
    ExprPtr returns;  // may be null
    Body body;
    std::string docstring;
    std::vector<Keyword> decorator_args;  // @wp.kernel(block_dim=N, enable_backward=...)
    std::string grad_of;                  // FuncGrad: name of the func it replaces the adjoint of
};

struct StructField {
    std::string name;
    SourceLoc loc;
    ExprPtr annotation;
    ExprPtr default_value;  // may be null
};

struct StructDef {
    std::string name;
    SourceLoc loc;
    std::vector<StructField> fields;
    std::string docstring;
};

struct ConstantDef {
    std::string name;
    SourceLoc loc;
    ExprPtr value;  // the argument of wp.constant(...)
};

// A module-level `NAME = wp.vec3` or `NAME = wp.vec(length=5, dtype=wp.float64)`: a name for a
// type (the Python package writes one for each dtype a kernel captures from its closure, as
// Warp's generic test kernels do). Sema keeps the ones whose right side is a static type.
struct TypeAliasDef {
    std::string name;
    SourceLoc loc;
    ExprPtr value;  // wp.<type name>, or wp.vec/mat/vector/matrix(...) (wp.types.* also)
};

struct Import {
    std::string module;  // "weft", "warp", "mymod"
    std::string alias;   // name bound in the module
    SourceLoc loc;
};

// A whole kernel module. Top-level Python that is none of these (host code, other imports,
// undecorated functions) is skipped by the parser: it is Python's business, not ours.
struct Module {
    std::vector<std::unique_ptr<SourceFile>> files;  // owned sources (a module may be several chunks)
    std::vector<Import> imports;
    std::vector<ConstantDef> constants;
    std::vector<TypeAliasDef> type_aliases;
    std::vector<StructDef> structs;
    std::vector<FunctionDef> functions;  // kernels, funcs and func_grads in source order
};

// Debug printing (weft compile --emit ast).
std::string dump(const Module& m);

}  // namespace weft::compiler::ast
