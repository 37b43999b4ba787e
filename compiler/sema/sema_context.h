// Internal to sema/: the analysis state shared by the module, type, expression and statement
// parts of semantic analysis. One `Sema` object analyses one module; a `FuncScope` holds the
// state of the function being lowered.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/builtins/builtin_table.h"
#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/sema/sema.h"

namespace weft::compiler::sema_detail {

using ir::ExprPtr;

// What a name at module level means.
struct Global {
    enum Kind { Constant, Struct, Func, Kernel, WeftModule, OtherModule, TypeAlias } kind;
    SourceLoc loc;
    ExprPtr value;                                   // Constant: folded IR constant
    Type type = nullptr;                             // Struct; TypeAlias: the type it names
    const ast::FunctionDef* def = nullptr;           // Func / Kernel (a func's first definition)
    std::string module;                              // WeftModule / OtherModule: the module imported ("geometry")
    std::vector<const ast::FunctionDef*> overloads;  // Func: every definition of the name, in source order
};

// The result of lowering an expression that may denote something other than a value
// (a type, a module, a function) so that calls and attributes can interpret it.
struct Operand {
    enum Kind { Invalid, Value, TypeName, Module, Builtin, UserFunc, Shape } kind = Invalid;
    ExprPtr value;        // Value; Shape: the array
    Type type = nullptr;  // TypeName
    std::string name;     // Builtin / UserFunc / Module
    bool weft = false;    // Module: the weft module itself
    SourceLoc loc;
};

struct FuncScope {
    ir::Function* fn = nullptr;
    const ast::FunctionDef* def = nullptr;
    std::map<std::string, ir::Var*> locals;
    std::map<const ir::Var*, SourceLoc> first_assign;
    int loop_depth = 0;
    std::optional<Type> ret;  // inferred or declared return type
    bool ret_declared = false;
    int temp_counter = 0;
};

class Sema {
public:
    Sema(const ast::Module& m, DiagnosticEngine& d, const SemaOptions& o);
    std::unique_ptr<ir::Module> run();

    // ---- module level (sema_module.cpp) ----
    void collect_globals();
    void define_structs();
    void define_constants();
    // Memoised per (def, bound); detects recursion. `bound` gives the types of a generic def's
    // parameters (one per parameter; nullptr where the annotation is concrete).
    ir::Function* lower_function(const ast::FunctionDef& def, const std::vector<Type>& bound = {});
    const Global* find_global(const std::string& name) const;
    void report_duplicate_overloads();  // two concrete definitions of a func with one signature
    // `alias.name` where `alias` imports another kernel module: the global `name` of that module,
    // or nullptr after reporting. Never a local of the function being lowered.
    const Global* module_member(const std::string& alias, const Global& module, const ast::Expr& attr);
    std::vector<std::string> global_names() const;

    // ---- types (sema_types.cpp) ----
    // Resolves a type annotation; reports and returns nullptr on failure.
    Type resolve_type(const ast::Expr& e);
    std::optional<Type> type_of_operand_name(const std::string& weft_attr);  // "vec3" -> vec3f
    bool is_weft_member_name(const std::string& name);                       // vec3, expect_eq, pi: usable without `wp.`
    Operand weft_member(const std::string& name, SourceLoc loc);             // what `wp.<name>` denotes
    bool is_weft_types_module(const ast::Expr& e);                           // `wp.types`
    bool is_static_type_expr(const ast::Expr& e);                            // wp.vec3, wp.types.vector(3, dtype=wp.float64) ...

    // ---- generics and overload sets (sema_generics.cpp) ----
    std::string constraint_name(const ast::Expr& e);      // "Int", "Float", "Scalar" for wp.Int ...; else ""
    bool is_generic_annotation(const ast::Expr& e);       // Any, wp.array(dtype=Any), wp.vec(Any, float) ...
    bool is_generic_def(const ast::FunctionDef& def);     // some parameter's annotation is generic
    bool matches_annotation(const ast::Expr& e, Type t);  // `t` is a type the annotation allows
    // The definition of func `g` a call with these (lowered) arguments uses, or nullptr.
    const ast::FunctionDef* pick_overload(const Global& g, const std::vector<ExprPtr>& args,
                                          const std::vector<std::pair<std::string, ExprPtr>>& keywords);

    // ---- expressions (sema_expr.cpp) ----
    Operand lower_operand(const ast::Expr& e);
    Operand global_operand(const std::string& name, const Global& g, SourceLoc loc);
    ExprPtr lower_expr(const ast::Expr& e);  // a value, or nullptr after reporting
    ExprPtr lower_call(const ast::Expr& call);
    ExprPtr lower_builtin_call(const std::string& name, const ast::Expr& call, bool weft_qualified);
    ExprPtr lower_construct(Type t, const ast::Expr& call);
    ExprPtr lower_generic_construct(const std::string& name, const ast::Expr& call);  // wp.quaternion(.., dtype=)
    ExprPtr construct_value(Type t, std::vector<ExprPtr> args, SourceLoc loc);        // t(args), args lowered
    ExprPtr lower_subscript(const ast::Expr& e);
    ExprPtr lower_attribute_value(ExprPtr base, const ast::Expr& e);
    ExprPtr lower_binary(ast::BinOp op, ExprPtr a, ExprPtr b, SourceLoc loc);
    ExprPtr lower_compare(ast::CmpOp op, ExprPtr a, ExprPtr b, SourceLoc loc);
    ExprPtr to_condition(ExprPtr e);
    // Converts `e` to `t` where the language allows it implicitly (literals adapt to the other
    // operand's scalar type; int literals become floats). Returns nullptr if not allowed.
    ExprPtr implicit_convert(ExprPtr e, Type t);
    ExprPtr convert_or_report(ExprPtr e, Type t, SourceLoc loc);
    const BuiltinOverload* resolve_overload(const std::string& name, std::vector<ExprPtr>& args, SourceLoc loc);
    std::vector<ExprPtr> lower_args(const ast::Expr& call);
    int64_t const_int(const ast::Expr& e, const char* what, bool* ok);

    // ---- statements (sema_stmt.cpp) ----
    void lower_body(const ast::Body& body, ir::Block& out);
    void lower_stmt(const ast::Stmt& s, ir::Block& out);
    void lower_assign(const ast::Expr& target, ExprPtr value, SourceLoc loc, ir::Block& out);
    void assign_name(const std::string& name, SourceLoc name_loc, ExprPtr value, ir::Block& out);
    void lower_for(const ast::Stmt& s, ir::Block& out);
    void lower_aug_assign(const ast::Stmt& s, ir::Block& out);
    ir::Var* new_temp(Type t, SourceLoc loc);

    // ---- diagnostics helpers ----
    void error(DiagId id, SourceLoc loc, std::vector<std::string> args = {});
    void note(DiagId id, SourceLoc loc, std::vector<std::string> args = {});
    void suggest(const std::string& name, const std::vector<std::string>& candidates);

    const ast::Module& ast_;
    DiagnosticEngine& diags_;
    SemaOptions opts_;
    std::unique_ptr<ir::Module> out_;
    std::map<std::string, Global> globals_;
    std::map<std::pair<const ast::FunctionDef*, std::vector<Type>>, ir::Function*> lowered_;
    int instances_ = 0;  // generic instances and overloads lowered: their C++ names' suffixes
    std::set<const ast::FunctionDef*> in_progress_;
    std::map<std::string, const ast::FunctionDef*> func_grads_;  // func name -> @func_grad def
    std::deque<ast::FunctionDef> rewritten_grads_;               // func_grads_ rewritten from Warp's wp.adjoint[x] form
    FuncScope* scope_ = nullptr;                                 // the function being lowered
    std::set<ExprPtr> literals_;                                 // IR constants that came straight from a literal
};

bool is_weft_module_name(const std::string& m);
ExprPtr fold(const ExprPtr& e);  // constant folding of one node whose operands are folded

}  // namespace weft::compiler::sema_detail
