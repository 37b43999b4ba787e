// Generic functions and kernels (Warp's `typing.Any` parameters) and overload sets of funcs.
//
// A parameter annotation is generic when it says "some type" instead of naming one:
//
//     a: Any                              any value type (typing.Any too)
//     a: wp.array(dtype=Any)              an array of any dtype (ndim as written, default 1)
//     a: wp.array()                       the same: an array without dtype
//     v: wp.vec(length=Any, dtype=float)  a float32 vector of any length
//     m: wp.mat(shape=(Any, Any), dtype=Any), q: wp.quaternion(dtype=Any) ...
//     x: wp.Int / wp.Float / wp.Scalar    any integer / float / numeric scalar (Warp's constraints)
//
// A generic func is not lowered by itself: each call lowers an instance whose parameters take the
// types of the call's arguments (memoised per type list, so one instance per distinct signature).
// A generic kernel is lowered only when the compile names the types of its parameters
// (CompileOptions::kernel_arg_types: the Python side passes a launch's argument types, or those of
// wp.overload); otherwise it is a template and produces no code.
//
// Several @wp.func definitions of one name form an overload set. A call picks, as Warp does, the
// first concrete definition whose parameter types equal the arguments' types, else the first
// generic definition the arguments match, else (Weft's implicit conversions, as for a single def)
// the first concrete definition the arguments convert to.
#include <algorithm>

#include "compiler/sema/sema_context.h"

namespace weft::compiler::sema_detail {

namespace {

bool is_any_name(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Name) return e.id == "Any";
    return e.kind == ast::ExprKind::Attribute && e.id == "Any" && e.value->kind == ast::ExprKind::Name && e.value->id == "typing";
}

const ast::Expr* keyword(const ast::Expr& call, const char* name) {
    for (const auto& k : call.keywords)
        if (k.name == name) return k.value.get();
    return nullptr;
}

// keyword `name`, else positional argument i
const ast::Expr* argument(const ast::Expr& call, const char* name, size_t i) {
    if (const ast::Expr* k = keyword(call, name)) return k;
    return i < call.args.size() ? call.args[i].get() : nullptr;
}

std::string callee_name(const ast::Expr& call) {
    const ast::Expr& f = *call.value;
    return f.kind == ast::ExprKind::Attribute || f.kind == ast::ExprKind::Name ? f.id : "";
}

bool is_array_ctor(const std::string& n) {
    return n == "array" || n == "array1d" || n == "array2d" || n == "array3d" || n == "array4d";
}

}  // namespace

// wp.Int, wp.Float, wp.Scalar (or bare Int/Float/Scalar that no global defines): "" if none.
std::string Sema::constraint_name(const ast::Expr& e) {
    static const char* names[] = {"Int", "Float", "Scalar"};
    for (const char* n : names) {
        if (e.id != n) continue;
        if (e.kind == ast::ExprKind::Name && !find_global(e.id)) return n;
        if (e.kind == ast::ExprKind::Attribute && e.value->kind == ast::ExprKind::Name) {
            const Global* g = find_global(e.value->id);
            if ((g && g->kind == Global::WeftModule) || is_weft_types_module(*e.value)) return n;
        }
    }
    return "";
}

bool Sema::is_generic_annotation(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Name && find_global(e.id)) return false;  // a user's own `Any` type alias
    if (is_any_name(e) || !constraint_name(e).empty()) return true;
    if (e.kind == ast::ExprKind::Tuple)
        return std::any_of(e.args.begin(), e.args.end(), [&](const auto& a) { return is_generic_annotation(*a); });
    if (e.kind != ast::ExprKind::Call) return false;
    std::string n = callee_name(e);
    if (is_array_ctor(n) && !argument(e, "dtype", 0)) return true;  // wp.array(): any dtype
    return std::any_of(e.args.begin(), e.args.end(), [&](const auto& a) { return is_generic_annotation(*a); }) ||
           std::any_of(e.keywords.begin(), e.keywords.end(), [&](const auto& k) { return is_generic_annotation(*k.value); });
}

bool Sema::is_generic_def(const ast::FunctionDef& def) {
    return std::any_of(def.params.begin(), def.params.end(),
                       [&](const ast::Param& p) { return p.annotation && is_generic_annotation(*p.annotation); });
}

bool Sema::matches_annotation(const ast::Expr& e, Type t) {
    if (!t || t == void_type() || is_tuple(t)) return false;
    if (!is_generic_annotation(e)) {
        Type want = resolve_type(e);
        return want && want == t;
    }
    if (is_any_name(e)) return true;
    if (std::string c = constraint_name(e); !c.empty()) {
        if (c == "Int") return is_int(t);
        if (c == "Float") return is_float(t);
        return is_numeric(t);
    }
    if (e.kind != ast::ExprKind::Call) return false;
    std::string n = callee_name(e);
    // a size: Any, or a literal that must equal `have`
    auto size_matches = [&](const ast::Expr* s, int have) {
        if (!s || is_any_name(*s)) return true;
        return s->kind == ast::ExprKind::Int && s->int_value == have;
    };
    // a scalar dtype: absent (the constructor's float32 default), Any, a constraint or a scalar
    auto scalar_matches = [&](const ast::Expr* d, ScalarKind have) {
        if (!d) return have == ScalarKind::Float32;
        return matches_annotation(*d, scalar_type(have));
    };
    if (is_array_ctor(n)) {
        if (!is_array(t)) return false;
        int ndim = n == "array" ? 1 : n[5] - '0';
        if (const ast::Expr* nd = keyword(e, "ndim")) {
            if (nd->kind != ast::ExprKind::Int) return false;
            ndim = static_cast<int>(nd->int_value);
        }
        const ast::Expr* dt = argument(e, "dtype", 0);
        return t->ndim == ndim && (!dt || matches_annotation(*dt, t->elem));
    }
    if (n == "vec" || n == "vector")
        return t->kind == TypeKind::Vector && size_matches(argument(e, "length", 0), t->rows) &&
               scalar_matches(argument(e, "dtype", 1), t->scalar);
    if (n == "mat" || n == "matrix") {
        const ast::Expr* shape = argument(e, "shape", 0);
        if (t->kind != TypeKind::Matrix) return false;
        if (shape && !is_any_name(*shape)) {
            if (shape->kind != ast::ExprKind::Tuple || shape->args.size() != 2) return false;
            if (!size_matches(shape->args[0].get(), t->rows) || !size_matches(shape->args[1].get(), t->cols)) return false;
        }
        return scalar_matches(argument(e, "dtype", 1), t->scalar);
    }
    if (n == "quaternion" || n == "quat") return t->kind == TypeKind::Quat && scalar_matches(argument(e, "dtype", 0), t->scalar);
    if (n == "transformation" || n == "transform")
        return t->kind == TypeKind::Transform && scalar_matches(argument(e, "dtype", 0), t->scalar);
    return false;
}

const ast::FunctionDef* Sema::pick_overload(const Global& g, const std::vector<ExprPtr>& args,
                                            const std::vector<std::pair<std::string, ExprPtr>>& keywords) {
    // The parameter of `def` that each argument binds to; false when some argument has none.
    auto bind = [&](const ast::FunctionDef& def, std::vector<std::pair<const ast::Param*, ExprPtr>>& out) {
        if (args.size() > def.params.size()) return false;
        std::vector<bool> given(def.params.size());
        for (size_t i = 0; i < args.size(); ++i) {
            out.push_back({&def.params[i], args[i]});
            given[i] = true;
        }
        for (const auto& [name, value] : keywords) {
            auto it = std::find_if(def.params.begin(), def.params.end(), [&](const ast::Param& p) { return p.name == name; });
            if (it == def.params.end() || given[static_cast<size_t>(it - def.params.begin())]) return false;
            given[static_cast<size_t>(it - def.params.begin())] = true;
            out.push_back({&*it, value});
        }
        for (size_t i = 0; i < def.params.size(); ++i)
            if (!given[i] && !def.params[i].default_value) return false;
        return std::all_of(out.begin(), out.end(), [](const auto& b) { return b.first->annotation != nullptr; });
    };
    enum Pass { Exact, Generic, Convert };
    for (Pass pass : {Exact, Generic, Convert}) {
        for (const ast::FunctionDef* def : g.overloads) {
            bool generic = is_generic_def(*def);
            if (generic != (pass == Generic)) continue;
            std::vector<std::pair<const ast::Param*, ExprPtr>> bound;
            if (!bind(*def, bound)) continue;
            bool ok = std::all_of(bound.begin(), bound.end(), [&](const auto& b) {
                const ast::Expr& ann = *b.first->annotation;
                if (pass == Generic) return matches_annotation(ann, b.second->type);
                Type want = resolve_type(ann);
                if (!want) return false;
                return pass == Exact ? b.second->type == want : implicit_convert(b.second, want) != nullptr;
            });
            if (ok) return def;
        }
    }
    return nullptr;
}

}  // namespace weft::compiler::sema_detail
