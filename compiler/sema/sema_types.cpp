// Type annotations: `float`, `wp.vec3`, `wp.array(dtype=wp.vec3, ndim=2)`, `wp.array2d(dtype=float)`,
// `wp.vec(length=3, dtype=wp.float64)`, `wp.mat(shape=(3, 3), dtype=float)`, struct names.
#include <algorithm>
#include <functional>
#include <set>

#include "compiler/sema/sema_context.h"

namespace weft::compiler::sema_detail {

std::optional<Type> Sema::type_of_operand_name(const std::string& n) { return type_from_name(n); }

bool Sema::is_weft_types_module(const ast::Expr& e) {
    if (e.kind != ast::ExprKind::Attribute || e.id != "types" || e.value->kind != ast::ExprKind::Name) return false;
    const Global* g = find_global(e.value->id);
    return g && g->kind == Global::WeftModule;
}

bool Sema::is_static_type_expr(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Attribute) {
        const Global* g = e.value->kind == ast::ExprKind::Name ? find_global(e.value->id) : nullptr;
        bool weft = (g && g->kind == Global::WeftModule) || is_weft_types_module(*e.value);
        return weft && type_from_name(e.id).has_value();
    }
    if (e.kind != ast::ExprKind::Call || e.value->kind != ast::ExprKind::Attribute) return false;
    static const std::set<std::string> ctors = {"vec", "mat", "vector", "matrix"};
    const ast::Expr& f = *e.value;
    const Global* g = f.value->kind == ast::ExprKind::Name ? find_global(f.value->id) : nullptr;
    if (!ctors.count(f.id) || !((g && g->kind == Global::WeftModule) || is_weft_types_module(*f.value))) return false;
    // literal sizes and scalar dtypes only: anything else is host code (a length from a variable)
    std::function<bool(const ast::Expr&)> is_static = [&](const ast::Expr& a) {
        if (a.kind == ast::ExprKind::Int) return true;
        if (a.kind == ast::ExprKind::Tuple)
            return std::all_of(a.args.begin(), a.args.end(), [&](const auto& x) { return is_static(*x); });
        if (a.kind == ast::ExprKind::Name) return a.id == "float" || a.id == "int" || a.id == "bool";
        return is_static_type_expr(a);
    };
    return std::all_of(e.args.begin(), e.args.end(), [&](const auto& a) { return is_static(*a); }) &&
           std::all_of(e.keywords.begin(), e.keywords.end(), [&](const auto& k) { return is_static(*k.value); });
}

Type Sema::resolve_type(const ast::Expr& e) {
    auto unknown = [&](const std::string& name, SourceLoc loc) -> Type {
        error(DiagId::err_unknown_type, loc, {name});
        std::vector<std::string> cands = value_type_names();
        cands.push_back("array");
        for (const auto& [k, g] : globals_)
            if (g.kind == Global::Struct) cands.push_back(k);
        suggest(name, cands);
        return nullptr;
    };
    switch (e.kind) {
        case ast::ExprKind::Name: {
            if (e.id == "float" || e.id == "int" || e.id == "bool") return *type_from_name(e.id);
            if (const Global* g = find_global(e.id)) {
                if (g->kind == Global::Struct) {
                    if (!g->type) error(DiagId::err_unknown_type, e.loc, {e.id + " (its definition has errors)"});
                    return g->type;
                }
                if (g->kind == Global::TypeAlias) return g->type;
            } else if (auto t = type_from_name(e.id)) {
                return *t;  // `v: vec3` without `wp.`, as Warp
            }
            return unknown(e.id, e.loc);
        }
        case ast::ExprKind::Attribute: {
            if (is_weft_types_module(*e.value)) {  // wp.types.vec3
                if (auto t = type_from_name(e.id)) return *t;
                return unknown(e.id, e.loc);
            }
            if (e.value->kind == ast::ExprKind::Name) {
                const Global* g = find_global(e.value->id);
                if (g && g->kind == Global::WeftModule) {
                    if (auto t = type_from_name(e.id)) return *t;
                    if (e.id == "array" || e.id.rfind("array", 0) == 0)
                        error(DiagId::err_shared_array, e.loc, {"array types need dtype=..., as in wp.array(dtype=float)"});
                    else
                        return unknown(e.id, e.loc);
                    return nullptr;
                }
                if (g && g->kind == Global::OtherModule) {
                    // othermod.Struct: the module's own global (Sema::module_member)
                    const Global* s = module_member(e.value->id, *g, e);
                    if (!s) return nullptr;
                    if (s->kind == Global::Struct) {
                        if (!s->type) error(DiagId::err_unknown_type, e.loc, {e.id + " (its definition has errors)"});
                        return s->type;
                    }
                }
            }
            return unknown(e.id, e.loc);
        }
        case ast::ExprKind::Call: {
            const ast::Expr& f = *e.value;
            std::string fname = f.kind == ast::ExprKind::Attribute ? f.id : f.kind == ast::ExprKind::Name ? f.id : "";
            auto kw = [&](const char* name) -> const ast::Expr* {
                for (const auto& k : e.keywords)
                    if (k.name == name) return k.value.get();
                return nullptr;
            };
            if (fname == "array" || fname == "array1d" || fname == "array2d" || fname == "array3d" || fname == "array4d") {
                const ast::Expr* dt = kw("dtype");
                if (!dt && !e.args.empty()) dt = e.args[0].get();
                if (!dt) {
                    error(DiagId::err_expected, e.loc, {"dtype=... in the array type", "none"});
                    return nullptr;
                }
                Type elem = resolve_type(*dt);
                if (!elem) return nullptr;
                if (is_array(elem) || is_tuple(elem)) {
                    error(DiagId::err_type_mismatch, dt->loc, {"a value type as array dtype", type_name(elem)});
                    return nullptr;
                }
                int ndim = fname == "array" ? 1 : fname[5] - '0';
                if (const ast::Expr* nd = kw("ndim")) {
                    bool ok = true;
                    int64_t n = const_int(*nd, "ndim", &ok);
                    if (!ok) return nullptr;
                    if (n < 1 || n > 4) {
                        error(DiagId::err_type_mismatch, nd->loc, {"ndim between 1 and 4", std::to_string(n)});
                        return nullptr;
                    }
                    ndim = static_cast<int>(n);
                }
                for (const auto& k : e.keywords)
                    if (k.name != "dtype" && k.name != "ndim" && k.name != "device")
                        error(DiagId::err_keyword_arg, k.loc, {k.name, "wp." + fname});
                return array_type(elem, ndim);
            }
            if (fname == "vector" || fname == "matrix") fname = fname == "vector" ? "vec" : "mat";  // wp.types.*
            if (fname == "vec" || fname == "mat") {
                // Warp's positional forms: vec(length, dtype), mat(shape, dtype)
                auto arg = [&](const char* name, size_t i) -> const ast::Expr* {
                    if (const ast::Expr* k = kw(name)) return k;
                    return i < e.args.size() ? e.args[i].get() : nullptr;
                };
                if (e.args.size() > 2) {
                    error(DiagId::err_expected, e.args[2]->loc,
                          {"at most 2 arguments in wp." + fname + "(...)", std::to_string(e.args.size())});
                    return nullptr;
                }
                for (const auto& k : e.keywords)
                    if (k.name != "dtype" && k.name != (fname == "vec" ? "length" : "shape"))
                        error(DiagId::err_keyword_arg, k.loc, {k.name, "wp." + fname});
                const ast::Expr* dt = arg("dtype", 1);
                Type s = dt ? resolve_type(*dt) : float32_type();
                if (!s) return nullptr;
                if (!is_scalar(s)) {
                    error(DiagId::err_type_mismatch, dt->loc, {"a scalar dtype", type_name(s)});
                    return nullptr;
                }
                bool ok = true;
                if (fname == "vec") {
                    const ast::Expr* len = arg("length", 0);
                    if (!len) {
                        error(DiagId::err_expected, e.loc, {"length=N in wp.vec(...)", "none"});
                        return nullptr;
                    }
                    int64_t n = const_int(*len, "length", &ok);
                    if (!ok) return nullptr;
                    if (n < 1 || n > 64) {
                        error(DiagId::err_type_mismatch, len->loc, {"a vector length between 1 and 64", std::to_string(n)});
                        return nullptr;
                    }
                    return vector_type(static_cast<int>(n), s->scalar);
                }
                const ast::Expr* shape = arg("shape", 0);
                if (!shape || shape->kind != ast::ExprKind::Tuple || shape->args.size() != 2) {
                    error(DiagId::err_expected, e.loc, {"shape=(rows, cols) in wp.mat(...)", "none"});
                    return nullptr;
                }
                int64_t r = const_int(*shape->args[0], "rows", &ok), c = const_int(*shape->args[1], "cols", &ok);
                if (!ok) return nullptr;
                if (r < 1 || r > 16 || c < 1 || c > 16) {
                    error(DiagId::err_type_mismatch, shape->loc, {"matrix dimensions between 1 and 16", "larger"});
                    return nullptr;
                }
                return matrix_type(static_cast<int>(r), static_cast<int>(c), s->scalar);
            }
            return unknown(fname.empty() ? "expression" : fname, e.loc);
        }
        case ast::ExprKind::None: return void_type();
        default: error(DiagId::err_unknown_type, e.loc, {"expression"}); return nullptr;
    }
}

}  // namespace weft::compiler::sema_detail
