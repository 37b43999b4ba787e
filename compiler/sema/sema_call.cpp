// Calls: builtins resolved against the builtin table, the forms sema handles itself (wp.tid(),
// atomics on arrays, print, select/where, identity), constructors and casts, and user funcs.
#include <algorithm>

#include "compiler/sema/sema_context.h"

namespace weft::compiler::sema_detail {

namespace {

std::string arg_types(const std::vector<ExprPtr>& args) {
    std::string s;
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + type_name(args[i]->type);
    return s;
}

const ast::Expr* keyword(const ast::Expr& call, const char* name) {
    for (const auto& k : call.keywords)
        if (k.name == name) return k.value.get();
    return nullptr;
}

// The first keyword of `call` that is not in `allowed`, or null.
const ast::Keyword* unknown_keyword(const ast::Expr& call, std::initializer_list<const char*> allowed) {
    for (const auto& k : call.keywords)
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k.name == a; })) return &k;
    return nullptr;
}

}  // namespace

std::vector<ExprPtr> Sema::lower_args(const ast::Expr& call) {
    std::vector<ExprPtr> out;
    for (const auto& a : call.args) {
        ExprPtr v = lower_expr(*a);
        if (!v) return {};
        out.push_back(v);
    }
    return out;
}

const BuiltinOverload* Sema::resolve_overload(const std::string& name, std::vector<ExprPtr>& args, SourceLoc loc) {
    std::vector<const BuiltinOverload*> all = builtin_table().find(name);
    const BuiltinOverload* best = nullptr;
    int best_exact = -1;
    bool ambiguous = false;
    for (const BuiltinOverload* o : all) {
        if (o->flags & BuiltinFlags_Special) continue;
        if (o->params.size() != args.size()) continue;
        int exact = 0;
        bool ok = true;
        for (size_t i = 0; i < args.size() && ok; ++i) {
            if (args[i]->type == o->params[i].type)
                ++exact;
            else if (!implicit_convert(args[i], o->params[i].type))
                ok = false;
        }
        if (!ok) continue;
        if (exact > best_exact) {
            best = o;
            best_exact = exact;
            ambiguous = false;
        } else if (exact == best_exact) {
            ambiguous = true;
        }
    }
    if (best && ambiguous) {
        // Prefer float32 (the language's default) when only literals decide.
        const BuiltinOverload* f32 = nullptr;
        int count = 0;
        for (const BuiltinOverload* o : all) {
            if ((o->flags & BuiltinFlags_Special) || o->params.size() != args.size()) continue;
            int exact = 0;
            bool ok = true;
            for (size_t i = 0; i < args.size() && ok; ++i) {
                if (args[i]->type == o->params[i].type)
                    ++exact;
                else if (!implicit_convert(args[i], o->params[i].type))
                    ok = false;
            }
            if (!ok || exact != best_exact) continue;
            bool is_f32 = o->ret->scalar == ScalarKind::Float32 || o->ret->scalar == ScalarKind::Int32;
            if (is_f32) {
                f32 = o;
                ++count;
            }
        }
        if (f32 && count == 1) {
            best = f32;
            ambiguous = false;
        }
    }
    if (!best || ambiguous) {
        error(ambiguous ? DiagId::err_ambiguous_call : DiagId::err_no_overload, loc, {name, arg_types(args)});
        int shown = 0;
        int arity_match = 0;
        for (const BuiltinOverload* o : all)
            if (!(o->flags & BuiltinFlags_Special) && o->params.size() == args.size()) ++arity_match;
        for (const BuiltinOverload* o : all) {
            if (o->flags & BuiltinFlags_Special) continue;
            if (arity_match > 0 && o->params.size() != args.size()) continue;
            if (shown == 6) break;
            note(DiagId::note_candidate, {}, {signature_text(*o)});
            ++shown;
        }
        int total = arity_match > 0 ? arity_match : static_cast<int>(all.size());
        if (total > shown) note(DiagId::note_more_candidates, {}, {std::to_string(total - shown)});
        return nullptr;
    }
    for (size_t i = 0; i < args.size(); ++i) {
        args[i] = implicit_convert(args[i], best->params[i].type);
        if (best->params[i].inout && args[i]->kind != ir::ExprKind::VarRef) {
            error(DiagId::err_type_mismatch, args[i]->loc,
                  {"a variable for in-out parameter '" + best->params[i].name + "'", "an expression"});
            return nullptr;
        }
    }
    return best;
}

ExprPtr Sema::lower_call(const ast::Expr& call) {
    Operand f = lower_operand(*call.value);
    SourceLoc loc = call.loc;
    switch (f.kind) {
        case Operand::Invalid: return nullptr;
        case Operand::TypeName: return lower_construct(f.type, call);
        case Operand::Builtin: return lower_builtin_call(f.name, call, f.weft);
        case Operand::UserFunc: {
            const Global* g = find_global(f.name);
            if (g->kind == Global::Kernel) {
                error(DiagId::err_kernel_call, loc, {f.name});
                return nullptr;
            }
            std::vector<ExprPtr> args = lower_args(call);
            if (args.size() != call.args.size()) return nullptr;
            std::vector<std::pair<std::string, ExprPtr>> keywords;
            for (const auto& kw : call.keywords) {
                ExprPtr v = lower_expr(*kw.value);
                if (!v) return nullptr;
                keywords.push_back({kw.name, v});
            }
            // One concrete definition: checked below with implicit conversions. Overloads and
            // generic definitions: the one the arguments select (sema_generics.cpp).
            const ast::FunctionDef* def = g->def;
            if (g->overloads.size() > 1 || is_generic_def(*def)) {
                def = pick_overload(*g, args, keywords);
                if (!def) {
                    std::vector<ExprPtr> all = args;
                    for (const auto& kw : keywords) all.push_back(kw.second);
                    error(DiagId::err_no_overload, loc, {f.name, arg_types(all)});
                    for (const ast::FunctionDef* o : g->overloads) note(DiagId::note_func_candidate, o->loc, {f.name});
                    return nullptr;
                }
            }
            std::vector<Type> bound;  // a generic def's parameter types, from the arguments
            ir::Function* fn = nullptr;
            if (!is_generic_def(*def)) {
                fn = lower_function(*def);
                if (!fn) return nullptr;
            }
            const auto& params = def->params;
            // keyword arguments by parameter name
            std::vector<ExprPtr> ordered(params.size());
            for (size_t i = 0; i < args.size() && i < ordered.size(); ++i) ordered[i] = args[i];
            for (const auto& [name, v] : keywords) {
                auto it = std::find_if(params.begin(), params.end(), [&](const ast::Param& p) { return p.name == name; });
                if (it == params.end()) {
                    const ast::Keyword& kw = *std::find_if(call.keywords.begin(), call.keywords.end(),
                                                           [&](const ast::Keyword& k) { return k.name == name; });
                    error(DiagId::err_keyword_arg, kw.loc, {name, "'" + def->name + "'"});
                    return nullptr;
                }
                ordered[static_cast<size_t>(it - params.begin())] = v;
            }
            size_t given = args.size() + call.keywords.size();
            // Parameters left out take their defaults, lowered here as written in the def: in a
            // scope without the caller's locals, so a default names only module-level values.
            size_t required = 0;
            while (required < params.size() && !params[required].default_value) ++required;
            for (size_t i = 0; i < ordered.size() && given <= ordered.size(); ++i) {
                if (ordered[i] || i >= params.size() || !params[i].default_value) continue;
                FuncScope defaults;
                defaults.fn = scope_->fn;
                defaults.def = scope_->def;
                defaults.temp_counter = scope_->temp_counter;
                FuncScope* caller = scope_;
                scope_ = &defaults;
                ordered[i] = lower_expr(*params[i].default_value);
                scope_ = caller;
                scope_->temp_counter = defaults.temp_counter;
                if (!ordered[i]) return nullptr;
            }
            if (given > params.size() || std::any_of(ordered.begin(), ordered.end(), [](const ExprPtr& p) { return !p; })) {
                std::string takes = required == params.size() ? std::to_string(params.size())
                                                              : std::to_string(required) + " to " + std::to_string(params.size());
                error(DiagId::err_arg_count, loc, {def->name, takes, std::to_string(given)});
                return nullptr;
            }
            if (!fn) {
                // the instance of the generic def for these argument types
                for (size_t i = 0; i < params.size(); ++i)
                    bound.push_back(params[i].annotation && is_generic_annotation(*params[i].annotation) ? ordered[i]->type
                                                                                                         : nullptr);
                fn = lower_function(*def, bound);
                if (!fn) return nullptr;
            }
            if (fn->params.size() != params.size()) return nullptr;  // a parameter's type was reported
            for (size_t i = 0; i < ordered.size(); ++i) {
                ExprPtr c = implicit_convert(ordered[i], fn->params[i]->type);
                if (!c) {
                    error(DiagId::err_type_mismatch, ordered[i]->loc,
                          {type_name(fn->params[i]->type) + " for parameter '" + fn->params[i]->name + "' of '" + fn->name + "'",
                           type_name(ordered[i]->type)});
                    return nullptr;
                }
                ordered[i] = c;
            }
            return ir::make_call_func(fn, ordered, loc);
        }
        case Operand::Value:
        case Operand::Module:
        case Operand::Shape: {
            std::string what = call.value->kind == ast::ExprKind::Name ? call.value->id : "expression";
            error(DiagId::err_not_callable, call.value->loc, {what});
            return nullptr;
        }
    }
    return nullptr;
}

ExprPtr Sema::lower_builtin_call(const std::string& name, const ast::Expr& call, bool weft_qualified) {
    SourceLoc loc = call.loc;
    auto intrinsic = [&](ir::IntrinsicOp op) -> ExprPtr {
        if (!call.args.empty() || !call.keywords.empty()) {
            error(DiagId::err_arg_count, loc, {name, "0", std::to_string(call.args.size() + call.keywords.size())});
            return nullptr;
        }
        return ir::make_intrinsic(op, int32_type(), loc);
    };
    if (name == "tid") {
        if (!call.args.empty()) {
            error(DiagId::err_tid_args, loc);
            return nullptr;
        }
        return ir::make_intrinsic(ir::IntrinsicOp::Tid, int32_type(), loc);
    }
    if (name == "block_dim") return intrinsic(ir::IntrinsicOp::BlockDim);
    if (name == "block_idx") return intrinsic(ir::IntrinsicOp::BlockIdx);
    if (name == "thread_idx") return intrinsic(ir::IntrinsicOp::ThreadIdx);
    if (name == "lane_id") return intrinsic(ir::IntrinsicOp::LaneId);
    if (name == "warp_size") {  // a constant: 32 lanes on every device (gpusim's and CUDA's warps, the CPU's fibers)
        if (!call.args.empty() || !call.keywords.empty()) {
            error(DiagId::err_arg_count, loc, {name, "0", std::to_string(call.args.size() + call.keywords.size())});
            return nullptr;
        }
        return ir::make_int(32, int32_type(), loc);
    }
    if (name == "sync_threads") {
        error(DiagId::err_type_mismatch, loc, {"wp.sync_threads() as a statement of its own", "it inside an expression"});
        return nullptr;
    }
    if (name == "shared_array") {
        error(DiagId::err_shared_array, loc, {"assign it to a local name: s = wp.shared_array(shape=(256,), dtype=float)"});
        return nullptr;
    }
    if (name == "constant" && call.args.size() == 1) return lower_expr(*call.args[0]);
    if (name == "range") {
        error(DiagId::err_for_target, loc, {"range() outside a for statement"});
        return nullptr;
    }
    if (name == "len") {
        std::vector<ExprPtr> args = lower_args(call);
        if (args.size() != 1) {
            if (args.size() == call.args.size())
                error(DiagId::err_arg_count, loc, {"len", "1", std::to_string(call.args.size())});
            return nullptr;
        }
        Type t = args[0]->type;
        if (is_array(t)) return ir::make_shape(args[0], 0, loc);
        if (is_vector(t) || is_matrix(t) || t->kind == TypeKind::Quat)
            return ir::make_int(is_matrix(t) ? t->rows : component_count(t), int32_type(), loc);
        error(DiagId::err_type_mismatch, args[0]->loc, {"an array, vector or matrix", type_name(t)});
        return nullptr;
    }
    if (name == "print" || name == "printf") {
        std::vector<ExprPtr> args;
        std::string fmt;
        size_t first = 0;
        if (name == "printf") {
            if (call.args.empty() || call.args[0]->kind != ast::ExprKind::String) {
                error(DiagId::err_print_args, loc, {"printf needs a format string first"});
                return nullptr;
            }
            fmt = call.args[0]->id;
            first = 1;
        }
        auto e = std::make_shared<ir::Expr>(ir::ExprKind::Intrinsic, void_type(), loc);
        e->op = static_cast<int>(ir::IntrinsicOp::Print);
        e->int_value = name == "printf";
        for (size_t i = first; i < call.args.size(); ++i) {
            const ast::Expr& a = *call.args[i];
            if (a.kind == ast::ExprKind::String) {
                // strings print as themselves: carried as a constant with the text
                auto s = std::make_shared<ir::Expr>(ir::ExprKind::Const, void_type(), a.loc);
                s->text = a.id;
                e->args.push_back(s);
                continue;
            }
            ExprPtr v = lower_expr(a);
            if (!v) return nullptr;
            if (is_array(v->type) || is_struct(v->type) || is_tuple(v->type)) {
                error(DiagId::err_print_args, a.loc, {"a value of type " + type_name(v->type)});
                return nullptr;
            }
            e->args.push_back(v);
        }
        e->text = fmt;
        return e;
    }
    // Warp's test builtins: wp.expect_eq(a, b), wp.expect_neq(a, b), wp.expect_near(a, b, tolerance=1e-6)
    // print "Error, expect_eq() failed:" and both values when the check fails, and go on. They
    // lower to a Print intrinsic guarded by the failure condition (int_value 2: args[0] is the guard).
    if (name == "expect_eq" || name == "expect_neq" || name == "expect_near") {
        std::vector<ExprPtr> args = lower_args(call);
        if (args.size() != call.args.size()) return nullptr;
        const bool near = name == "expect_near";
        for (const auto& k : call.keywords) {
            if (!near || k.name != "tolerance" || args.size() != 2) {
                error(DiagId::err_arg_count, k.loc,
                      {name, near ? "2 or 3" : "2", std::to_string(args.size() + call.keywords.size())});
                return nullptr;
            }
            ExprPtr v = lower_expr(*k.value);
            if (!v) return nullptr;
            args.push_back(v);
        }
        if (args.size() != 2 && !(near && args.size() == 3)) {
            error(DiagId::err_arg_count, loc, {name, near ? "2 or 3" : "2", std::to_string(args.size())});
            return nullptr;
        }
        ExprPtr a = args[0], b = args[1], fail;
        if (!near) {
            fail = lower_compare(name == "expect_eq" ? ast::CmpOp::Ne : ast::CmpOp::Eq, a, b, loc);
        } else {
            // |a - b| > tolerance, per component of a vector
            ExprPtr tol = args.size() == 3 ? args[2] : ir::make_float(1e-6, float32_type(), loc);
            if (a->type != b->type || !(is_scalar(a->type) || is_vector(a->type)) || !is_float_kind(a->type->scalar)) {
                error(DiagId::err_type_mismatch, loc,
                      {"two float scalars or vectors of one type", type_name(a->type) + " and " + type_name(b->type)});
                return nullptr;
            }
            Type st = scalar_type(a->type->scalar);
            if (ExprPtr c = implicit_convert(tol, st)) tol = c;
            if (tol->type != st) {
                error(DiagId::err_type_mismatch, tol->loc, {type_name(st), type_name(tol->type)});
                return nullptr;
            }
            const int n = is_vector(a->type) ? component_count(a->type) : 1;
            for (int k = 0; k < n; ++k) {
                auto part = [&](const ExprPtr& v) {
                    return n == 1 ? v : ir::make_extract(v, {ir::make_int(k, int32_type(), loc)}, st, loc);
                };
                ExprPtr d = ir::make_binary(ir::BinaryOp::Sub, part(a), part(b), st, loc);
                ExprPtr far = ir::make_logical(
                    ir::LogicalOp::Or, ir::make_compare(ir::CompareOp::Gt, d, tol, loc),
                    ir::make_compare(ir::CompareOp::Lt, d, ir::make_unary(ir::UnaryOp::Neg, tol, st, loc), loc), loc);
                fail = fail ? ir::make_logical(ir::LogicalOp::Or, fail, far, loc) : far;
            }
        }
        if (!fail) return nullptr;
        auto text = [&](const std::string& t) {
            auto c = std::make_shared<ir::Expr>(ir::ExprKind::Const, void_type(), loc);
            c->text = t;
            return c;
        };
        auto e = std::make_shared<ir::Expr>(ir::ExprKind::Intrinsic, void_type(), loc);
        e->op = static_cast<int>(ir::IntrinsicOp::Print);
        e->int_value = 2;
        e->args = {fail, text("Error, " + name + "() failed:\n\t"), a, text(near ? "!~" : name == "expect_eq" ? "!=" : "=="), b};
        return e;
    }
    static const std::pair<const char*, ir::AtomicOp> atomics[] = {
        {"atomic_add", ir::AtomicOp::Add}, {"atomic_sub", ir::AtomicOp::Sub},   {"atomic_min", ir::AtomicOp::Min},
        {"atomic_max", ir::AtomicOp::Max}, {"atomic_exch", ir::AtomicOp::Exch}, {"atomic_cas", ir::AtomicOp::Cas}};
    for (auto& [aname, aop] : atomics) {
        if (name != aname) continue;
        std::vector<ExprPtr> args = lower_args(call);
        if (args.size() != call.args.size()) return nullptr;
        if (args.empty() || !is_array(args[0]->type)) {
            error(DiagId::err_type_mismatch, args.empty() ? loc : args[0]->loc,
                  {"an array as the first argument of " + name, args.empty() ? "nothing" : type_name(args[0]->type)});
            return nullptr;
        }
        Type at = args[0]->type;
        size_t nvals = aop == ir::AtomicOp::Cas ? 2 : 1;
        if (args.size() != 1 + static_cast<size_t>(at->ndim) + nvals) {
            error(DiagId::err_arg_count, loc, {name, std::to_string(1 + at->ndim + nvals), std::to_string(args.size())});
            note(DiagId::note_hint, {},
                 {"the array has " + std::to_string(at->ndim) + " dimension(s): pass one index per dimension, then the value"});
            return nullptr;
        }
        std::vector<ExprPtr> idx(args.begin() + 1, args.begin() + 1 + at->ndim), vals(args.begin() + 1 + at->ndim, args.end());
        for (auto& i : idx)
            if (!is_int(i->type)) {
                error(DiagId::err_index_type, i->loc, {type_name(i->type)});
                return nullptr;
            }
        for (auto& v : vals) {
            v = convert_or_report(v, at->elem, v->loc);
            if (!v) return nullptr;
        }
        Type elem = at->elem;
        bool ok_type =
            is_numeric(elem) || ((is_vector(elem) || is_matrix(elem)) && (aop == ir::AtomicOp::Add || aop == ir::AtomicOp::Sub ||
                                                                          aop == ir::AtomicOp::Min || aop == ir::AtomicOp::Max));
        if (!ok_type || elem->scalar == ScalarKind::Float16 || scalar_bits(elem->scalar) < 32) {
            error(DiagId::err_type_mismatch, args[0]->loc,
                  {"an array of 32- or 64-bit numbers or vectors for " + name, type_name(at)});
            return nullptr;
        }
        return ir::make_atomic(aop, args[0], idx, vals, loc);
    }
    if (name == "select" || name == "where") {
        std::vector<ExprPtr> args = lower_args(call);
        if (args.size() != 3) {
            if (args.size() == call.args.size()) error(DiagId::err_arg_count, loc, {name, "3", std::to_string(call.args.size())});
            return nullptr;
        }
        ExprPtr c = to_condition(args[0]);
        if (!c) return nullptr;
        // Warp: select(cond, value_if_false, value_if_true); where(cond, value_if_true, value_if_false)
        ExprPtr t = name == "where" ? args[1] : args[2], f = name == "where" ? args[2] : args[1];
        if (t->type != f->type) {
            if (ExprPtr x = implicit_convert(f, t->type))
                f = x;
            else if (ExprPtr y = implicit_convert(t, f->type))
                t = y;
            else {
                error(DiagId::err_type_mismatch, args[2]->loc, {type_name(args[1]->type), type_name(args[2]->type)});
                return nullptr;
            }
        }
        return fold(ir::make_select(c, t, f, loc));
    }
    if (name == "identity") {
        if (const ast::Keyword* k = unknown_keyword(call, {"n", "dtype"})) {
            error(DiagId::err_keyword_arg, k->loc, {k->name, "builtin 'identity'"});
            return nullptr;
        }
        const ast::Expr* n = keyword(call, "n");
        const ast::Expr* dt = keyword(call, "dtype");
        if (!n && !call.args.empty()) n = call.args[0].get();
        if (!n) {
            error(DiagId::err_expected, loc, {"n=... in wp.identity(n=3, dtype=float)", "none"});
            return nullptr;
        }
        bool ok = true;
        int64_t size = const_int(*n, "n", &ok);
        if (!ok) return nullptr;
        Type s = dt ? resolve_type(*dt) : float32_type();
        if (!s) return nullptr;
        if (size < 1 || size > 16 || !is_float(s)) {
            error(DiagId::err_type_mismatch, loc,
                  {"a size between 1 and 16 and a float dtype", std::to_string(size) + ", " + type_name(s)});
            return nullptr;
        }
        Type mt = matrix_type(static_cast<int>(size), static_cast<int>(size), s->scalar);
        std::vector<ExprPtr> elems;
        for (int64_t i = 0; i < size * size; ++i)
            elems.push_back(ir::make_float(i / size == i % size ? 1.0 : 0.0, scalar_type(s->scalar), loc));
        return ir::make_construct(mt, elems, loc);
    }
    if (name == "quat_identity" || name == "transform_identity") {
        // (0, 0, 0, 1); the transform's translation is zero. dtype= picks the scalar (float32 by default).
        if (const ast::Keyword* k = unknown_keyword(call, {"dtype"})) {
            error(DiagId::err_keyword_arg, k->loc, {k->name, "builtin '" + name + "'"});
            return nullptr;
        }
        const ast::Expr* dt = keyword(call, "dtype");
        if (!call.args.empty()) {
            error(DiagId::err_arg_count, loc, {name, "0 (and dtype=)", std::to_string(call.args.size())});
            return nullptr;
        }
        Type s = dt ? resolve_type(*dt) : float32_type();
        if (!s) return nullptr;
        if (!is_float(s) || !is_scalar(s)) {
            error(DiagId::err_type_mismatch, dt ? dt->loc : loc, {"a float dtype", type_name(s)});
            return nullptr;
        }
        Type st = scalar_type(s->scalar);
        std::vector<ExprPtr> elems;
        int zeros = name == "quat_identity" ? 3 : 6;
        for (int i = 0; i < zeros; ++i) elems.push_back(ir::make_float(0.0, st, loc));
        elems.push_back(ir::make_float(1.0, st, loc));
        return ir::make_construct(name == "quat_identity" ? quat_type(s->scalar) : transform_type(s->scalar), elems, loc);
    }
    if (name == "matrix_from_rows" || name == "matrix_from_cols") {
        std::vector<ExprPtr> args = lower_args(call);
        if (args.empty() || args.size() != call.args.size()) {
            if (args.size() == call.args.size()) error(DiagId::err_arg_count, loc, {name, "1 or more", "0"});
            return nullptr;
        }
        Type vt = args[0]->type;
        for (auto& a : args)
            if (a->type != vt || !is_vector(vt)) {
                error(DiagId::err_type_mismatch, a->loc, {"vectors of one type", type_name(a->type)});
                return nullptr;
            }
        int n = static_cast<int>(args.size()), len = vt->rows;
        bool rows = name == "matrix_from_rows";
        Type mt = matrix_type(rows ? n : len, rows ? len : n, vt->scalar);
        std::vector<ExprPtr> elems;
        for (int r = 0; r < mt->rows; ++r)
            for (int c = 0; c < mt->cols; ++c) {
                const ExprPtr& v = args[static_cast<size_t>(rows ? r : c)];
                elems.push_back(
                    ir::make_extract(v, {ir::make_int(rows ? c : r, int32_type(), loc)}, scalar_type(vt->scalar), loc));
            }
        return ir::make_construct(mt, elems, loc);
    }
    (void)weft_qualified;
    if (name == "quaternion" || name == "transformation") return lower_generic_construct(name, call);
    if (!builtin_table().has_name(name)) {
        error(DiagId::err_unknown_builtin, call.value->loc, {name});
        suggest(name, builtin_table().names());
        return nullptr;
    }
    if (!call.keywords.empty()) {
        error(DiagId::err_keyword_arg, call.keywords[0].loc, {call.keywords[0].name, "builtin '" + name + "'"});
        return nullptr;
    }
    std::vector<ExprPtr> args = lower_args(call);
    if (args.size() != call.args.size()) return nullptr;
    const BuiltinOverload* o = resolve_overload(name, args, loc);
    if (!o) return nullptr;
    return ir::make_call(o, args, loc);
}

ExprPtr Sema::lower_construct(Type t, const ast::Expr& call) {
    std::vector<ExprPtr> args = lower_args(call);
    if (args.size() != call.args.size()) return nullptr;
    if (!call.keywords.empty()) {
        error(DiagId::err_keyword_arg, call.keywords[0].loc, {call.keywords[0].name, type_name(t) + "(...)"});
        return nullptr;
    }
    return construct_value(t, args, call.loc);
}

ExprPtr Sema::lower_generic_construct(const std::string& name, const ast::Expr& call) {
    // Warp's wp.quaternion(..., dtype=None) and wp.transformation(..., dtype=None): the type's
    // constructor, with the scalar type from dtype= or else from the first non-literal float
    // argument (float32 when there is none).
    const ast::Expr* dtype = nullptr;
    for (const auto& k : call.keywords) {
        if (k.name != "dtype") {
            error(DiagId::err_keyword_arg, k.loc, {k.name, "wp." + name});
            return nullptr;
        }
        dtype = k.value.get();
    }
    std::vector<ExprPtr> args = lower_args(call);
    if (args.size() != call.args.size()) return nullptr;
    ScalarKind s = ScalarKind::Float32;
    if (dtype) {
        Type d = resolve_type(*dtype);
        if (!d) return nullptr;
        if (!is_scalar(d) || !is_float_kind(d->scalar)) {
            error(DiagId::err_type_mismatch, dtype->loc, {"a float dtype", type_name(d)});
            return nullptr;
        }
        s = d->scalar;
    } else {
        for (const auto& a : args)
            if (a->type && a->type->kind != TypeKind::Struct && is_float_kind(a->type->scalar) && !literals_.count(a)) {
                s = a->type->scalar;
                break;
            }
    }
    return construct_value(name == "quaternion" ? quat_type(s) : transform_type(s), args, call.loc);
}

ExprPtr Sema::construct_value(Type t, std::vector<ExprPtr> args, SourceLoc loc) {
    auto to_scalar = [&](ExprPtr a, ScalarKind s) -> ExprPtr {
        // Constructor arguments convert like explicit casts between numeric scalars.
        if (!is_numeric(a->type) && a->type != bool_type()) {
            error(DiagId::err_cast, a->loc, {type_name(a->type), std::string(scalar_name(s))});
            return nullptr;
        }
        if (ExprPtr c = implicit_convert(a, scalar_type(s))) return c;
        return fold(ir::make_cast(a, scalar_type(s), a->loc));
    };
    if (is_struct(t)) {
        if (!args.empty()) {
            error(DiagId::err_struct_ctor, loc, {type_name(t)});
            return nullptr;
        }
        return ir::make_construct(t, {}, loc);
    }
    if (is_scalar(t)) {
        if (args.empty()) return is_float(t) ? ir::make_float(0, t, loc) : ir::make_int(0, t, loc);
        if (args.size() != 1) {
            error(DiagId::err_arg_count, loc, {type_name(t), "1", std::to_string(args.size())});
            return nullptr;
        }
        ExprPtr a = args[0];
        if (t == bool_type()) return to_condition(a);
        if (!is_numeric(a->type) && a->type != bool_type()) {
            error(DiagId::err_cast, a->loc, {type_name(a->type), type_name(t)});
            return nullptr;
        }
        bool lit = literals_.count(a) > 0;
        ExprPtr r = fold(ir::make_cast(a, t, loc));
        if (lit && ir::is_const(r) && a->kind == ir::ExprKind::Const && is_float(a->type) && is_float(t)) {
            // wp.float64(0.1) keeps the literal's exact value, not its float32 rounding
            auto c = std::make_shared<ir::Expr>(*r);
            c->float_value = a->float_value;
            if (t->scalar == ScalarKind::Float32) c->float_value = static_cast<float>(a->float_value);
            return c;
        }
        return r;
    }
    int n = component_count(t);
    if (args.empty()) return ir::make_construct(t, {}, loc);
    if (is_vector(t) || t->kind == TypeKind::Quat || is_matrix(t)) {
        if (args.size() == 1 && args[0]->type == t) return args[0];
        if (args.size() == 1 && with_scalar(args[0]->type, t->scalar) == t) return ir::make_cast(args[0], t, loc);
        if (args.size() == 1 && is_scalar(args[0]->type) && t->kind != TypeKind::Quat) {
            ExprPtr s = to_scalar(args[0], t->scalar);
            if (!s) return nullptr;
            return ir::make_construct(t, {s}, loc);  // splat
        }
        if (static_cast<int>(args.size()) == n) {
            std::vector<ExprPtr> elems;
            for (auto& a : args) {
                ExprPtr s = to_scalar(a, t->scalar);
                if (!s) return nullptr;
                elems.push_back(s);
            }
            return ir::make_construct(t, elems, loc);
        }
        if (t->kind == TypeKind::Quat && args.size() == 2 && args[0]->type == vector_type(3, t->scalar)) {
            // Warp's quat(ijk: vec3, real): the imaginary part, then the real part
            ExprPtr w = to_scalar(args[1], t->scalar);
            if (!w) return nullptr;
            std::vector<ExprPtr> elems;
            for (int i = 0; i < 3; ++i)
                elems.push_back(ir::make_extract(args[0], {ir::make_int(i, int32_type(), loc)}, scalar_type(t->scalar), loc));
            elems.push_back(w);
            return ir::make_construct(t, elems, loc);
        }
        if (is_matrix(t) && static_cast<int>(args.size()) == t->cols) {
            // Vectors are the matrix's columns, as Warp's matrix constructor takes them.
            std::vector<ExprPtr> elems;
            for (auto& a : args)
                if (a->type != vector_type(t->rows, t->scalar)) {
                    error(DiagId::err_type_mismatch, a->loc,
                          {type_name(vector_type(t->rows, t->scalar)) + " column", type_name(a->type)});
                    return nullptr;
                }
            for (int r = 0; r < t->rows; ++r)
                for (int c = 0; c < t->cols; ++c)
                    elems.push_back(ir::make_extract(args[static_cast<size_t>(c)], {ir::make_int(r, int32_type(), loc)},
                                                     scalar_type(t->scalar), loc));
            return ir::make_construct(t, elems, loc);
        }
        error(DiagId::err_arg_count, loc, {type_name(t), "0, 1 or " + std::to_string(n), std::to_string(args.size())});
        return nullptr;
    }
    if (t->kind == TypeKind::Transform) {
        if (args.size() == 2 && args[0]->type == vector_type(3, t->scalar) && args[1]->type == quat_type(t->scalar))
            return ir::make_construct(t, args, loc);
        if (args.size() == 1 && with_scalar(args[0]->type, t->scalar) == t) return ir::make_cast(args[0], t, loc);
        if (static_cast<int>(args.size()) == 7) {
            std::vector<ExprPtr> elems;
            for (auto& a : args) {
                ExprPtr s = to_scalar(a, t->scalar);
                if (!s) return nullptr;
                elems.push_back(s);
            }
            return ir::make_construct(t, elems, loc);
        }
        error(DiagId::err_no_overload, loc, {type_name(t), arg_types(args)});
        note(DiagId::note_candidate, {},
             {type_name(t) + "(p: " + type_name(vector_type(3, t->scalar)) + ", q: " + type_name(quat_type(t->scalar)) + ")"});
        return nullptr;
    }
    error(DiagId::err_cast, loc, {arg_types(args), type_name(t)});
    return nullptr;
}

}  // namespace weft::compiler::sema_detail
