// Expressions: names, literals, operators, indexing, attributes and the typing rules between them.
//
// Typing follows NVIDIA Warp: operands of an arithmetic operator have the same type, except that
// a literal adapts to the other operand (`x * 2` with x: float64 multiplies by 2.0 in float64);
// int `/` truncates as in C, `//` floors and `%` takes the sign of the dividend (C fmod), as
// Warp's `floordiv` and `mod` do. Calls are in sema_call.cpp.
#include <cmath>

#include "compiler/sema/sema_context.h"

namespace weft::compiler::sema_detail {

namespace {

bool all_const(const std::vector<ExprPtr>& args) {
    for (const auto& a : args)
        if (!ir::is_const(a)) return false;
    return true;
}

ExprPtr const_of(Type t, double f, int64_t i, SourceLoc loc) {
    if (is_float(t)) return ir::make_float(f, t, loc);
    return ir::make_int(i, t, loc);
}

// Wraps an integer into the range of the type, as the machine would.
int64_t wrap_int(int64_t v, ScalarKind s) {
    switch (s) {
        case ScalarKind::Bool: return v != 0;
        case ScalarKind::Int8: return static_cast<int8_t>(v);
        case ScalarKind::UInt8: return static_cast<uint8_t>(v);
        case ScalarKind::Int16: return static_cast<int16_t>(v);
        case ScalarKind::UInt16: return static_cast<uint16_t>(v);
        case ScalarKind::Int32: return static_cast<int32_t>(v);
        case ScalarKind::UInt32: return static_cast<uint32_t>(v);
        default: return v;
    }
}

}  // namespace

ExprPtr fold(const ExprPtr& e) {
    if (!e || !all_const(e->args) || e->args.empty() || !is_scalar(e->type)) return e;
    using K = ir::ExprKind;
    Type t = e->type;
    SourceLoc loc = e->loc;
    auto fl = [](const ExprPtr& x) { return is_float(x->type) ? x->float_value : static_cast<double>(x->int_value); };
    bool unsigned_op = !e->args.empty() && is_int(e->args[0]->type) && !is_signed_int(e->args[0]->type);
    switch (e->kind) {
        case K::Cast: {
            const ExprPtr& a = e->args[0];
            if (t->scalar == ScalarKind::Bool) return ir::make_bool(fl(a) != 0.0, loc);
            if (is_float(t)) {
                double v = fl(a);
                if (t->scalar == ScalarKind::Float32) v = static_cast<float>(v);
                return ir::make_float(v, t, loc);
            }
            if (is_float(a->type)) {
                double v = a->float_value;
                if (!std::isfinite(v) || std::fabs(v) > 9.2e18) return e;  // leave UB-ish casts to run time
                return ir::make_int(wrap_int(static_cast<int64_t>(v), t->scalar), t, loc);
            }
            return ir::make_int(wrap_int(a->int_value, t->scalar), t, loc);
        }
        case K::Unary: {
            const ExprPtr& a = e->args[0];
            switch (static_cast<ir::UnaryOp>(e->op)) {
                case ir::UnaryOp::Neg:
                    return is_float(t) ? ir::make_float(-a->float_value, t, loc)
                                       : ir::make_int(wrap_int(-a->int_value, t->scalar), t, loc);
                case ir::UnaryOp::Not: return ir::make_bool(a->int_value == 0, loc);
                case ir::UnaryOp::BitNot: return ir::make_int(wrap_int(~a->int_value, t->scalar), t, loc);
            }
            return e;
        }
        case K::Binary: {
            const ExprPtr &a = e->args[0], &b = e->args[1];
            auto op = static_cast<ir::BinaryOp>(e->op);
            if (is_float(t)) {
                double x = a->float_value, y = b->float_value, r;
                switch (op) {
                    case ir::BinaryOp::Add: r = x + y; break;
                    case ir::BinaryOp::Sub: r = x - y; break;
                    case ir::BinaryOp::Mul: r = x * y; break;
                    case ir::BinaryOp::Div: r = x / y; break;
                    case ir::BinaryOp::Pow: r = std::pow(x, y); break;
                    case ir::BinaryOp::FloorDiv: r = std::floor(x / y); break;
                    case ir::BinaryOp::Mod: r = std::fmod(x, y); break;
                    default: return e;
                }
                if (t->scalar == ScalarKind::Float32) r = static_cast<float>(r);
                return ir::make_float(r, t, loc);
            }
            int64_t x = a->int_value, y = b->int_value, r;
            uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
            switch (op) {
                case ir::BinaryOp::Add: r = static_cast<int64_t>(ux + uy); break;
                case ir::BinaryOp::Sub: r = static_cast<int64_t>(ux - uy); break;
                case ir::BinaryOp::Mul: r = static_cast<int64_t>(ux * uy); break;
                case ir::BinaryOp::Div:
                case ir::BinaryOp::FloorDiv:
                case ir::BinaryOp::Mod:
                    if (y == 0) return e;  // reported by the caller
                    if (unsigned_op) {
                        r = static_cast<int64_t>(op == ir::BinaryOp::Mod ? ux % uy : ux / uy);
                    } else if (op == ir::BinaryOp::Mod) {
                        r = x % y;
                    } else {
                        r = x / y;
                        if (op == ir::BinaryOp::FloorDiv && (x % y != 0) && ((x < 0) != (y < 0))) --r;
                    }
                    break;
                case ir::BinaryOp::BitAnd: r = x & y; break;
                case ir::BinaryOp::BitOr: r = x | y; break;
                case ir::BinaryOp::BitXor: r = x ^ y; break;
                case ir::BinaryOp::Shl: r = y >= 0 && y < 64 ? static_cast<int64_t>(ux << y) : 0; break;
                case ir::BinaryOp::Shr: r = y >= 0 && y < 64 ? (unsigned_op ? static_cast<int64_t>(ux >> y) : x >> y) : 0; break;
                case ir::BinaryOp::Pow: {
                    if (y < 0) return e;
                    r = 1;
                    for (int64_t k = 0; k < y && k < 64; ++k) r = static_cast<int64_t>(static_cast<uint64_t>(r) * ux);
                    break;
                }
                default: return e;
            }
            return ir::make_int(wrap_int(r, t->scalar), t, loc);
        }
        case K::Compare: {
            const ExprPtr &a = e->args[0], &b = e->args[1];
            bool fp = is_float(a->type);
            double x = fl(a), y = fl(b);
            int64_t i = a->int_value, j = b->int_value;
            bool r = false;
            switch (static_cast<ir::CompareOp>(e->op)) {
                case ir::CompareOp::Lt: r = fp ? x < y : i < j; break;
                case ir::CompareOp::Le: r = fp ? x <= y : i <= j; break;
                case ir::CompareOp::Gt: r = fp ? x > y : i > j; break;
                case ir::CompareOp::Ge: r = fp ? x >= y : i >= j; break;
                case ir::CompareOp::Eq: r = fp ? x == y : i == j; break;
                case ir::CompareOp::Ne: r = fp ? x != y : i != j; break;
            }
            return ir::make_bool(r, loc);
        }
        case K::Logical: {
            bool x = e->args[0]->int_value != 0, y = e->args[1]->int_value != 0;
            return ir::make_bool(static_cast<ir::LogicalOp>(e->op) == ir::LogicalOp::And ? (x && y) : (x || y), loc);
        }
        case K::Select: return e->args[0]->int_value ? e->args[1] : e->args[2];
        default: return e;
    }
    (void)const_of;
}

ExprPtr Sema::implicit_convert(ExprPtr e, Type t) {
    if (!e || !t) return nullptr;
    if (e->type == t) return e;
    if (!literals_.count(e)) return nullptr;
    // A literal adapts: int literal -> any numeric scalar; float literal -> any float scalar.
    if (is_scalar(t) && is_numeric(e->type)) {
        if (is_float(e->type) && !is_float(t)) return nullptr;
        ExprPtr c = fold(ir::make_cast(e, t, e->loc));
        literals_.insert(c);
        return c;
    }
    // A scalar literal where a vector is expected is not a conversion (avoid surprises).
    return nullptr;
}

ExprPtr Sema::convert_or_report(ExprPtr e, Type t, SourceLoc loc) {
    if (!e) return nullptr;
    if (ExprPtr c = implicit_convert(e, t)) return c;
    error(DiagId::err_type_mismatch, loc, {type_name(t), type_name(e->type)});
    return nullptr;
}

ExprPtr Sema::to_condition(ExprPtr e) {
    if (!e) return nullptr;
    if (e->type == bool_type()) return e;
    if (is_numeric(e->type)) {
        return fold(
            ir::make_compare(ir::CompareOp::Ne, e, fold(ir::make_cast(ir::make_int(0, int32_type()), e->type, e->loc)), e->loc));
    }
    error(DiagId::err_condition_type, e->loc, {type_name(e->type)});
    return nullptr;
}

int64_t Sema::const_int(const ast::Expr& e, const char* what, bool* ok) {
    ExprPtr v = lower_expr(e);  // locals are visible so that using one is reported as non-constant
    if (!v) {
        *ok = false;
        return 0;
    }
    if (!ir::is_const(v) || !is_int(v->type)) {
        error(DiagId::err_constant_eval, e.loc, {std::string(what) + " must be a constant integer"});
        *ok = false;
        return 0;
    }
    return v->int_value;
}

Operand Sema::global_operand(const std::string& name, const Global& g, SourceLoc loc) {
    Operand r;
    r.loc = loc;
    switch (g.kind) {
        case Global::Constant:
            if (!g.value) return r;  // its definition failed and was reported
            r.kind = Operand::Value;
            r.value = g.value;
            return r;
        case Global::Struct:
        case Global::TypeAlias:
            r.kind = Operand::TypeName;
            r.type = g.type;
            if (!r.type) r.kind = Operand::Invalid;
            return r;
        case Global::Func:
        case Global::Kernel:
            r.kind = Operand::UserFunc;
            r.name = name;
            return r;
        case Global::WeftModule:
        case Global::OtherModule:
            r.kind = Operand::Module;
            r.weft = g.kind == Global::WeftModule;
            r.name = name;
            return r;
    }
    return r;
}

namespace {
const std::map<std::string, double>& weft_constants() {
    static const std::map<std::string, double> consts = {
        {"pi", M_PI},    {"tau", 2 * M_PI},           {"half_pi", M_PI / 2}, {"e", M_E},           {"inf", INFINITY},
        {"nan", NAN},    {"phi", 1.6180339887498949}, {"log2e", M_LOG2E},    {"log10e", M_LOG10E}, {"ln2", M_LN2},
        {"ln10", M_LN10}};
    return consts;
}

// Builtins that sema lowers itself (lower_builtin_call) rather than through the builtin table.
const std::set<std::string>& special_builtins() {
    static const std::set<std::string> special = {
        "tid",           "block_dim",          "block_idx",  "thread_idx",       "lane_id",
        "shared_array",  "sync_threads",       "atomic_add", "atomic_sub",       "atomic_min",
        "atomic_max",    "atomic_exch",        "atomic_cas", "printf",           "select",
        "where",         "identity",           "constant",   "matrix_from_rows", "matrix_from_cols",
        "quat_identity", "transform_identity", "quaternion", "transformation"};
    return special;
}
}  // namespace

bool Sema::is_weft_member_name(const std::string& name) {
    return type_from_name(name).has_value() || weft_constants().count(name) || builtin_table().has_name(name) ||
           special_builtins().count(name);
}

Operand Sema::weft_member(const std::string& name, SourceLoc loc) {
    Operand r;
    r.loc = loc;
    if (auto t = type_from_name(name)) {
        r.kind = Operand::TypeName;
        r.type = *t;
        return r;
    }
    if (auto c = weft_constants().find(name); c != weft_constants().end()) {
        r.kind = Operand::Value;
        r.value = ir::make_float(c->second, float32_type(), loc);
        literals_.insert(r.value);
        return r;
    }
    r.kind = Operand::Builtin;
    r.name = name;
    r.weft = true;
    return r;
}

Operand Sema::lower_operand(const ast::Expr& e) {
    Operand r;
    r.loc = e.loc;
    if (e.kind == ast::ExprKind::Name) {
        if (scope_) {
            auto it = scope_->locals.find(e.id);
            if (it != scope_->locals.end()) {
                if (!it->second) return r;  // a parameter whose type failed: already reported
                r.kind = Operand::Value;
                r.value = ir::make_var(it->second, e.loc);
                return r;
            }
        }
        if (const Global* g = find_global(e.id)) return global_operand(e.id, *g, e.loc);
        static const std::set<std::string> py_types = {"float", "int", "bool"};
        if (py_types.count(e.id)) {
            r.kind = Operand::TypeName;
            r.type = *type_from_name(e.id);
            return r;
        }
        static const std::set<std::string> py_builtins = {"abs", "min", "max", "round", "pow", "print", "len", "range"};
        if (py_builtins.count(e.id)) {
            r.kind = Operand::Builtin;
            r.name = e.id;
            return r;
        }
        // As Warp: a name that is no local, global or Python builtin may be a member of the weft
        // module used without `wp.` (`vec3(...)`, `expect_eq(...)`, `pi`).
        if (is_weft_member_name(e.id)) return weft_member(e.id, e.loc);
        SourceLoc l = e.loc;
        l.len = static_cast<int>(e.id.size());
        error(DiagId::err_undeclared_name, l, {e.id});
        std::vector<std::string> cands = global_names();
        if (scope_)
            for (const auto& [k, v] : scope_->locals) cands.push_back(k);
        for (const char* b : {"float", "int", "bool", "abs", "min", "max", "round", "pow", "print", "len", "range"})
            cands.push_back(b);
        suggest(e.id, cands);
        return r;
    }
    bool is_local_or_global = e.kind == ast::ExprKind::Call && e.value->kind == ast::ExprKind::Name &&
                              ((scope_ && scope_->locals.count(e.value->id)) || find_global(e.value->id));
    if (e.kind == ast::ExprKind::Call && e.value->kind == ast::ExprKind::Name && e.value->id == "type" && !is_local_or_global &&
        e.args.size() == 1 && e.keywords.empty()) {
        // Python's type(x): the type of a value, as generic code uses it (`type(a)(0)`, `type(a).dtype`)
        ExprPtr v = lower_expr(*e.args[0]);
        if (!v) return r;
        r.kind = Operand::TypeName;
        r.type = v->type;
        return r;
    }
    if (e.kind == ast::ExprKind::Attribute && e.id == "dtype") {
        // `a.dtype` of an array, `T.dtype` of a type: the element type (vectors, matrices: their scalar)
        Operand base = lower_operand(*e.value);
        Type t = base.kind == Operand::TypeName ? base.type : base.kind == Operand::Value ? base.value->type : nullptr;
        if (t && (is_array(t) || base.kind == Operand::TypeName)) {
            Type elem = is_array(t) ? t->elem : is_scalar(t) || is_struct(t) ? nullptr : scalar_type(t->scalar);
            if (elem) {
                r.kind = Operand::TypeName;
                r.type = elem;
                return r;
            }
        }
        if (base.kind == Operand::Invalid) return r;
    }
    if (e.kind == ast::ExprKind::Attribute) {
        // Only module attributes and `a.shape` need the operand view; values go through lower_expr.
        if (e.value->kind == ast::ExprKind::Name) {
            bool is_local = scope_ && scope_->locals.count(e.value->id);
            const Global* g = is_local ? nullptr : find_global(e.value->id);
            if (g && g->kind == Global::WeftModule) return weft_member(e.id, e.loc);
            if (g && g->kind == Global::OtherModule) {
                // The module's global `name`, never a local of this function (module_member).
                const Global* m = module_member(e.value->id, *g, e);
                if (!m) return r;
                return global_operand(e.id, *m, e.loc);
            }
        }
        ExprPtr base = lower_expr(*e.value);
        if (!base) return r;
        if (is_array(base->type) && e.id == "shape") {
            r.kind = Operand::Shape;
            r.value = base;
            return r;
        }
        r.kind = Operand::Value;
        r.value = lower_attribute_value(base, e);
        if (!r.value) r.kind = Operand::Invalid;
        return r;
    }
    r.value = lower_expr(e);
    r.kind = r.value ? Operand::Value : Operand::Invalid;
    return r;
}

ExprPtr Sema::lower_attribute_value(ExprPtr base, const ast::Expr& e) {
    Type t = base->type;
    SourceLoc loc = e.loc;
    if (is_vector(t) || t->kind == TypeKind::Quat) {
        static const char* comps = "xyzw";
        for (int k = 0; k < 4; ++k) {
            if (e.id.size() == 1 && e.id[0] == comps[k] && k < component_count(t)) {
                return ir::make_extract(base, {ir::make_int(k, int32_type(), loc)}, scalar_type(t->scalar), loc);
            }
        }
    }
    if (t->kind == TypeKind::Transform && (e.id == "p" || e.id == "q")) {
        Type ft = e.id == "p" ? vector_type(3, t->scalar) : quat_type(t->scalar);
        return ir::make_extract(base, {ir::make_int(e.id == "p" ? 0 : 1, int32_type(), loc)}, ft, loc);
    }
    if (is_struct(t)) {
        for (size_t i = 0; i < t->fields.size(); ++i)
            if (t->fields[i].name == e.id) return ir::make_field(base, static_cast<int>(i), loc);
        error(DiagId::err_unknown_attribute, loc, {type_name(t), e.id});
        std::vector<std::string> names;
        for (const auto& f : t->fields) names.push_back(f.name);
        suggest(e.id, names);
        return nullptr;
    }
    error(DiagId::err_unknown_attribute, loc, {type_name(t), e.id});
    if (is_array(t)) suggest(e.id, {"shape"});
    return nullptr;
}

ExprPtr Sema::lower_subscript(const ast::Expr& e) {
    SourceLoc loc = e.loc;
    // a.shape[k]
    Operand base_op = lower_operand(*e.value);
    if (base_op.kind == Operand::Shape) {
        if (e.args.size() != 1) {
            error(DiagId::err_index_count, loc, {"shape", "1", std::to_string(e.args.size())});
            return nullptr;
        }
        bool ok = true;
        int64_t k = const_int(*e.args[0], "the shape index", &ok);
        if (!ok) return nullptr;
        if (k < 0 || k >= base_op.value->type->ndim) {
            error(DiagId::err_index_range, e.args[0]->loc, {std::to_string(k), "the shape of " + type_name(base_op.value->type)});
            return nullptr;
        }
        return ir::make_shape(base_op.value, static_cast<int>(k), loc);
    }
    if (base_op.kind != Operand::Value) {
        if (base_op.kind != Operand::Invalid) error(DiagId::err_not_indexable, e.value->loc, {"this name"});
        return nullptr;
    }
    ExprPtr base = base_op.value;
    Type t = base->type;
    std::vector<ExprPtr> idx;
    for (const auto& a : e.args) {
        ExprPtr i = lower_expr(*a);
        if (!i) return nullptr;
        if (!is_int(i->type)) {
            error(DiagId::err_index_type, a->loc, {type_name(i->type)});
            return nullptr;
        }
        idx.push_back(i);
    }
    if (is_array(t)) {
        if (static_cast<int>(idx.size()) != t->ndim) {
            error(DiagId::err_index_count, loc, {type_name(t), std::to_string(t->ndim), std::to_string(idx.size())});
            return nullptr;
        }
        return ir::make_load(base, idx, loc);
    }
    auto check_static = [&](const ExprPtr& i, int n, SourceLoc l) {
        if (ir::is_const(i) && (i->int_value < 0 || i->int_value >= n)) {
            error(DiagId::err_index_range, l, {std::to_string(i->int_value), type_name(t)});
            return false;
        }
        return true;
    };
    if (is_vector(t) || t->kind == TypeKind::Quat || t->kind == TypeKind::Transform) {  // t[i]: p0..p2, q0..q3
        if (idx.size() != 1) {
            error(DiagId::err_index_count, loc, {type_name(t), "1", std::to_string(idx.size())});
            return nullptr;
        }
        if (!check_static(idx[0], component_count(t), e.args[0]->loc)) return nullptr;
        return ir::make_extract(base, idx, scalar_type(t->scalar), loc);
    }
    if (is_matrix(t)) {
        if (idx.size() == 1) {
            if (!check_static(idx[0], t->rows, e.args[0]->loc)) return nullptr;
            return ir::make_extract(base, idx, vector_type(t->cols, t->scalar), loc);
        }
        if (idx.size() == 2) {
            if (!check_static(idx[0], t->rows, e.args[0]->loc) || !check_static(idx[1], t->cols, e.args[1]->loc)) return nullptr;
            return ir::make_extract(base, idx, scalar_type(t->scalar), loc);
        }
        error(DiagId::err_index_count, loc, {type_name(t), "1 or 2", std::to_string(idx.size())});
        return nullptr;
    }
    if (is_tuple(t)) {
        if (idx.size() != 1 || !ir::is_const(idx[0])) {
            error(DiagId::err_constant_eval, loc, {"tuple indices must be constant integers"});
            return nullptr;
        }
        if (!check_static(idx[0], static_cast<int>(t->items.size()), e.args[0]->loc)) return nullptr;
        return ir::make_tuple_get(base, static_cast<int>(idx[0]->int_value), loc);
    }
    error(DiagId::err_not_indexable, e.value->loc, {type_name(t)});
    return nullptr;
}

ExprPtr Sema::lower_binary(ast::BinOp op, ExprPtr a, ExprPtr b, SourceLoc loc) {
    if (!a || !b) return nullptr;
    using B = ir::BinaryOp;
    static const B map[] = {B::Add,    B::Sub,    B::Mul,   B::Div,    B::FloorDiv, B::Mod, B::Pow,
                            B::MatMul, B::BitAnd, B::BitOr, B::BitXor, B::Shl,      B::Shr};
    B bop = map[static_cast<int>(op)];
    Type ta = a->type, tb = b->type;
    auto fail = [&]() -> ExprPtr {
        error(DiagId::err_binary_operands, loc, {ast::binop_text(op), type_name(ta), type_name(tb)});
        if (op == ast::BinOp::Mul && is_vector(ta) && ta == tb)
            note(DiagId::note_hint, {}, {"for a component-wise product use wp.cw_mul(a, b); for the dot product wp.dot(a, b)"});
        if (is_numeric(ta) && is_numeric(tb) && ta != tb)
            note(DiagId::note_hint, {},
                 {"convert one operand explicitly, e.g. " + type_name(ta) + "(x) or " + type_name(tb) + "(x)"});
        return nullptr;
    };
    // Scalars
    if (is_numeric(ta) && is_numeric(tb)) {
        if (ta != tb) {
            if (ExprPtr c = implicit_convert(b, ta))
                b = c;
            else if (ExprPtr c2 = implicit_convert(a, tb))
                a = c2;
            else
                return fail();
        }
        Type t = a->type;
        bool int_only = bop == B::BitAnd || bop == B::BitOr || bop == B::BitXor || bop == B::Shl || bop == B::Shr;
        if (int_only && !is_int(t)) return fail();
        if (bop == B::MatMul) return fail();
        if (is_int(t) && (bop == B::Div || bop == B::FloorDiv || bop == B::Mod) && ir::is_const(b) && b->int_value == 0) {
            error(DiagId::err_division_by_zero, loc);
            return nullptr;
        }
        bool both_lit = literals_.count(a) && literals_.count(b);
        ExprPtr r = fold(ir::make_binary(bop, a, b, t, loc));
        if (both_lit && ir::is_const(r)) literals_.insert(r);
        return r;
    }
    if (ta == bool_type() && tb == bool_type() && (bop == B::BitAnd || bop == B::BitOr || bop == B::BitXor))
        return fold(ir::make_binary(bop, a, b, ta, loc));
    auto is_linalg = [](Type t) { return is_vector(t) || is_matrix(t) || t->kind == TypeKind::Quat; };
    // aggregate (+|-) aggregate of the same type
    if ((bop == B::Add || bop == B::Sub) && ta == tb && (is_linalg(ta) || ta->kind == TypeKind::Transform))
        return ir::make_binary(bop, a, b, ta, loc);
    // transform * scalar, scalar * transform: component-wise, as Warp's
    if (bop == B::Mul &&
        ((ta->kind == TypeKind::Transform && is_scalar(tb)) || (is_scalar(ta) && tb->kind == TypeKind::Transform))) {
        bool t_first = ta->kind == TypeKind::Transform;
        Type tt = t_first ? ta : tb;
        ExprPtr s = t_first ? b : a;
        if (s->type->scalar != tt->scalar) s = implicit_convert(s, scalar_type(tt->scalar));
        if (!s) return fail();
        return t_first ? ir::make_binary(bop, a, s, tt, loc) : ir::make_binary(bop, s, b, tt, loc);
    }
    // aggregate * scalar, scalar * aggregate, aggregate / scalar
    if (is_linalg(ta) && is_scalar(tb) && (bop == B::Mul || bop == B::Div)) {
        ExprPtr s = b->type->scalar == ta->scalar ? b : implicit_convert(b, scalar_type(ta->scalar));
        if (!s) return fail();
        return ir::make_binary(bop, a, s, ta, loc);
    }
    if (is_scalar(ta) && is_linalg(tb) && bop == B::Mul) {
        ExprPtr s = a->type->scalar == tb->scalar ? a : implicit_convert(a, scalar_type(tb->scalar));
        if (!s) return fail();
        return ir::make_binary(bop, s, b, tb, loc);
    }
    if (is_scalar(ta) && is_vector(tb) && bop == B::Div) {
        ExprPtr s = a->type->scalar == tb->scalar ? a : implicit_convert(a, scalar_type(tb->scalar));
        if (!s) return fail();
        return ir::make_binary(bop, s, b, tb, loc);
    }
    // Matrix products (* and @)
    if ((bop == B::Mul || bop == B::MatMul) && ta->scalar == tb->scalar) {
        if (is_matrix(ta) && is_vector(tb) && ta->cols == tb->rows)
            return ir::make_binary(B::MatMul, a, b, vector_type(ta->rows, ta->scalar), loc);
        if (is_vector(ta) && is_matrix(tb) && ta->rows == tb->rows)
            return ir::make_binary(B::MatMul, a, b, vector_type(tb->cols, ta->scalar), loc);
        if (is_matrix(ta) && is_matrix(tb) && ta->cols == tb->rows)
            return ir::make_binary(B::MatMul, a, b, matrix_type(ta->rows, tb->cols, ta->scalar), loc);
        if (ta->kind == TypeKind::Quat && ta == tb) return ir::make_binary(B::Mul, a, b, ta, loc);
        if (ta->kind == TypeKind::Transform && ta == tb) return ir::make_binary(B::Mul, a, b, ta, loc);
    }
    if (bop == B::Mod && is_vector(ta) && ta == tb) return ir::make_binary(bop, a, b, ta, loc);
    return fail();
}

ExprPtr Sema::lower_compare(ast::CmpOp op, ExprPtr a, ExprPtr b, SourceLoc loc) {
    if (!a || !b) return nullptr;
    static const ir::CompareOp map[] = {ir::CompareOp::Lt, ir::CompareOp::Le, ir::CompareOp::Gt,
                                        ir::CompareOp::Ge, ir::CompareOp::Eq, ir::CompareOp::Ne};
    ir::CompareOp cop = map[static_cast<int>(op)];
    Type ta = a->type, tb = b->type;
    if (ta != tb) {
        if (ExprPtr c = implicit_convert(b, ta))
            b = c;
        else if (ExprPtr c2 = implicit_convert(a, tb))
            a = c2;
    }
    if (a->type == b->type) {
        bool ordered = cop != ir::CompareOp::Eq && cop != ir::CompareOp::Ne;
        if (is_numeric(a->type) || (a->type == bool_type() && !ordered) ||
            (!ordered && (is_vector(a->type) || is_matrix(a->type) || a->type->kind == TypeKind::Quat)))
            return fold(ir::make_compare(cop, a, b, loc));
    }
    error(DiagId::err_binary_operands, loc, {ast::cmpop_text(op), type_name(ta), type_name(tb)});
    return nullptr;
}

ExprPtr Sema::lower_expr(const ast::Expr& e) {
    SourceLoc loc = e.loc;
    switch (e.kind) {
        case ast::ExprKind::Int: {
            bool fits32 = e.int_value >= INT32_MIN && e.int_value <= INT32_MAX;
            ExprPtr c = ir::make_int(e.int_value, fits32 ? int32_type() : int64_type(), loc);
            literals_.insert(c);
            return c;
        }
        case ast::ExprKind::Float: {
            ExprPtr c = ir::make_float(static_cast<float>(e.float_value), float32_type(), loc);
            // keep the exact value: a float64 context re-reads it from the literal
            auto exact = std::make_shared<ir::Expr>(*c);
            exact->float_value = e.float_value;
            exact->text = e.id;
            literals_.insert(exact);
            return exact;
        }
        case ast::ExprKind::Bool: {
            ExprPtr c = ir::make_bool(e.bool_value, loc);
            return c;
        }
        case ast::ExprKind::None:
        case ast::ExprKind::String:
            error(DiagId::err_type_mismatch, loc, {"a value", e.kind == ast::ExprKind::None ? "None" : "a string"});
            return nullptr;
        case ast::ExprKind::Name:
        case ast::ExprKind::Attribute: {
            Operand op = lower_operand(e);
            if (op.kind == Operand::Value) return op.value;
            if (op.kind == Operand::Invalid) return nullptr;
            if (op.kind == Operand::Builtin && op.weft && !builtin_table().has_name(op.name)) {
                if (!special_builtins().count(op.name)) {
                    SourceLoc l = loc;
                    error(DiagId::err_unknown_builtin, l, {op.name});
                    std::vector<std::string> names = builtin_table().names();
                    suggest(op.name, names);
                    return nullptr;
                }
            }
            std::string what = op.kind == Operand::TypeName ? "a type"
                               : op.kind == Operand::Module ? "a module"
                               : op.kind == Operand::Shape  ? "a shape (index it: a.shape[0])"
                                                            : "a function";
            error(DiagId::err_type_mismatch, loc, {"a value", what});
            return nullptr;
        }
        case ast::ExprKind::Subscript: return lower_subscript(e);
        case ast::ExprKind::Call: return lower_call(e);
        case ast::ExprKind::BinOp: {
            ExprPtr a = lower_expr(*e.args[0]);
            ExprPtr b = lower_expr(*e.args[1]);
            return lower_binary(e.binop, a, b, loc);
        }
        case ast::ExprKind::UnaryOp: {
            ExprPtr a = lower_expr(*e.value);
            if (!a) return nullptr;
            bool lit = literals_.count(a) > 0;
            ExprPtr r;
            switch (e.unop) {
                case ast::UnaryOp::Pos: return a;
                case ast::UnaryOp::Neg:
                    if (is_numeric(a->type) || is_vector(a->type) || is_matrix(a->type) || a->type->kind == TypeKind::Quat) {
                        if (is_float(a->type) && lit) {  // keep the exact literal value
                            auto c = std::make_shared<ir::Expr>(*a);
                            c->float_value = -a->float_value;
                            literals_.insert(c);
                            return c;
                        }
                        r = fold(ir::make_unary(ir::UnaryOp::Neg, a, a->type, loc));
                    }
                    break;
                case ast::UnaryOp::Not:
                    a = to_condition(a);
                    if (!a) return nullptr;
                    return fold(ir::make_unary(ir::UnaryOp::Not, a, bool_type(), loc));
                case ast::UnaryOp::Invert:
                    if (is_int(a->type)) r = fold(ir::make_unary(ir::UnaryOp::BitNot, a, a->type, loc));
                    break;
            }
            if (!r) {
                error(DiagId::err_unary_operand, loc, {ast::unaryop_text(e.unop), type_name(a->type)});
                return nullptr;
            }
            if (lit && ir::is_const(r)) literals_.insert(r);
            return r;
        }
        case ast::ExprKind::BoolOp: {
            ExprPtr a = to_condition(lower_expr(*e.args[0]));
            ExprPtr b = to_condition(lower_expr(*e.args[1]));
            if (!a || !b) return nullptr;
            return fold(ir::make_logical(e.boolop == ast::BoolOpKind::And ? ir::LogicalOp::And : ir::LogicalOp::Or, a, b, loc));
        }
        case ast::ExprKind::Compare: {
            // a < b < c  ->  (a < b) and (b < c); b is evaluated once in Python, and it is
            // side-effect free here unless it calls a func, in which case it is computed twice
            // (documented in docs/kernel-language.md).
            std::vector<ExprPtr> operands;
            for (const auto& a : e.args) operands.push_back(lower_expr(*a));
            ExprPtr result;
            for (size_t i = 0; i < e.cmpops.size(); ++i) {
                ExprPtr c = lower_compare(e.cmpops[i], operands[i], operands[i + 1], loc);
                if (!c) return nullptr;
                result = result ? fold(ir::make_logical(ir::LogicalOp::And, result, c, loc)) : c;
            }
            return result;
        }
        case ast::ExprKind::IfExp: {
            ExprPtr c = to_condition(lower_expr(*e.value));
            ExprPtr a = lower_expr(*e.args[0]);
            ExprPtr b = lower_expr(*e.args[1]);
            if (!c || !a || !b) return nullptr;
            if (a->type != b->type) {
                if (ExprPtr x = implicit_convert(b, a->type))
                    b = x;
                else if (ExprPtr y = implicit_convert(a, b->type))
                    a = y;
                else {
                    error(DiagId::err_type_mismatch, e.args[1]->loc, {type_name(a->type), type_name(b->type)});
                    return nullptr;
                }
            }
            return fold(ir::make_select(c, a, b, loc));
        }
        case ast::ExprKind::Tuple: {
            std::vector<ExprPtr> items;
            for (const auto& a : e.args) {
                ExprPtr v = lower_expr(*a);
                if (!v) return nullptr;
                items.push_back(v);
            }
            if (items.empty()) {
                error(DiagId::err_type_mismatch, loc, {"a value", "an empty tuple"});
                return nullptr;
            }
            return ir::make_tuple(items, loc);
        }
        case ast::ExprKind::List: error(DiagId::err_unsupported_syntax, loc, {"lists"}); return nullptr;
    }
    return nullptr;
}

}  // namespace weft::compiler::sema_detail
