// Statements: assignment (names, tuples, array elements, components and fields), augmented
// assignment (`a[i] += x` on an array is an atomic add, as in Warp), if/for/while, break,
// continue, return, shared-array declarations and barriers.
#include <algorithm>

#include "compiler/sema/sema_context.h"
#include "gpusim/arch/arch.h"

namespace weft::compiler::sema_detail {

namespace {

bool is_weft_call(const ast::Expr& e, const Sema& s, const char* name) {
    if (e.kind != ast::ExprKind::Call) return false;
    const ast::Expr& f = *e.value;
    if (f.kind == ast::ExprKind::Attribute && f.id == name && f.value->kind == ast::ExprKind::Name) {
        const Global* g = s.find_global(f.value->id);
        return g && g->kind == Global::WeftModule;
    }
    return false;
}

}  // namespace

ir::Var* Sema::new_temp(Type t, SourceLoc loc) {
    return scope_->fn->new_var("tmp" + std::to_string(scope_->temp_counter++), t, ir::VarKind::Local, loc);
}

void Sema::lower_body(const ast::Body& body, ir::Block& out) {
    for (const auto& s : body) {
        if (diags_.stopped()) return;
        lower_stmt(*s, out);
    }
}

void Sema::assign_name(const std::string& name, SourceLoc name_loc, ExprPtr value, ir::Block& out) {
    if (!value) return;
    if (value->type == void_type()) {
        error(DiagId::err_type_mismatch, value->loc, {"a value", "None (the call returns nothing)"});
        return;
    }
    auto it = scope_->locals.find(name);
    if (it == scope_->locals.end()) {
        if (const Global* g = find_global(name); g && (g->kind == Global::Func || g->kind == Global::Kernel))
            ;  // shadowing a func by a local is allowed, as in Python
        ir::Var* v = scope_->fn->new_var(name, value->type, ir::VarKind::Local, name_loc);
        scope_->locals[name] = v;
        scope_->first_assign[v] = name_loc;
        auto s = std::make_shared<ir::Stmt>(ir::StmtKind::Assign, name_loc);
        s->var = v;
        s->value = value;
        out.push_back(s);
        return;
    }
    ir::Var* v = it->second;
    if (!v) return;  // poisoned by an earlier error
    if (v->kind == ir::VarKind::Shared || (v->kind == ir::VarKind::Param && is_array(v->type))) {
        error(DiagId::err_array_assign, name_loc);
        return;
    }
    ExprPtr c = implicit_convert(value, v->type);
    if (!c) {
        SourceLoc l = name_loc;
        l.len = static_cast<int>(name.size());
        error(DiagId::err_type_change, l, {name, type_name(v->type), type_name(value->type)});
        note(DiagId::note_first_assignment, scope_->first_assign[v], {name, type_name(v->type)});
        return;
    }
    auto s = std::make_shared<ir::Stmt>(ir::StmtKind::Assign, name_loc);
    s->var = v;
    s->value = c;
    out.push_back(s);
}

void Sema::lower_assign(const ast::Expr& target, ExprPtr value, SourceLoc loc, ir::Block& out) {
    if (!value) return;
    if (target.kind == ast::ExprKind::Name) return assign_name(target.id, target.loc, value, out);
    if (target.kind == ast::ExprKind::Tuple) {
        if (!is_tuple(value->type) || value->type->items.size() != target.args.size()) {
            error(DiagId::err_unpack_count, loc,
                  {is_tuple(value->type) ? std::to_string(value->type->items.size()) : "1", std::to_string(target.args.size())});
            return;
        }
        // Evaluate the right side once, then assign the parts (a, b = b, a swaps).
        std::vector<ExprPtr> parts;
        if (value->kind == ir::ExprKind::MakeTuple) {
            for (const auto& item : value->args) {
                ir::Var* t = new_temp(item->type, item->loc);
                auto s = std::make_shared<ir::Stmt>(ir::StmtKind::Assign, loc);
                s->var = t;
                s->value = item;
                out.push_back(s);
                parts.push_back(ir::make_var(t, item->loc));
            }
        } else {
            ir::Var* t = new_temp(value->type, loc);
            auto s = std::make_shared<ir::Stmt>(ir::StmtKind::Assign, loc);
            s->var = t;
            s->value = value;
            out.push_back(s);
            for (size_t i = 0; i < target.args.size(); ++i)
                parts.push_back(ir::make_tuple_get(ir::make_var(t, loc), static_cast<int>(i), loc));
        }
        for (size_t i = 0; i < target.args.size(); ++i) lower_assign(*target.args[i], parts[i], loc, out);
        return;
    }
    if (target.kind != ast::ExprKind::Subscript && target.kind != ast::ExprKind::Attribute) {
        error(DiagId::err_bad_assign_target, target.loc, {"this expression"});
        return;
    }
    // Walk down to the root: a local variable, or an array element.
    std::vector<const ast::Expr*> chain;
    const ast::Expr* root = &target;
    ExprPtr array;
    std::vector<ExprPtr> array_idx;
    while (true) {
        if (root->kind == ast::ExprKind::Name) break;
        if (root->kind == ast::ExprKind::Subscript) {
            ExprPtr base = lower_expr(*root->value);
            if (!base) return;
            if (is_array(base->type)) {
                array = base;
                for (const auto& a : root->args) {
                    ExprPtr i = lower_expr(*a);
                    if (!i) return;
                    if (!is_int(i->type)) {
                        error(DiagId::err_index_type, a->loc, {type_name(i->type)});
                        return;
                    }
                    array_idx.push_back(i);
                }
                if (static_cast<int>(array_idx.size()) != base->type->ndim) {
                    error(DiagId::err_index_count, root->loc,
                          {type_name(base->type), std::to_string(base->type->ndim), std::to_string(array_idx.size())});
                    return;
                }
                break;
            }
            chain.push_back(root);
            root = root->value.get();
            continue;
        }
        if (root->kind == ast::ExprKind::Attribute) {
            chain.push_back(root);
            root = root->value.get();
            continue;
        }
        error(DiagId::err_bad_assign_target, root->loc, {"this expression"});
        return;
    }
    Type cur;
    ir::Var* var = nullptr;
    if (array) {
        cur = array->type->elem;
    } else {
        auto it = scope_->locals.find(root->id);
        if (it == scope_->locals.end()) {
            if (find_global(root->id))
                error(DiagId::err_assign_readonly, root->loc, {"module-level name '" + root->id + "'"});
            else {
                error(DiagId::err_undeclared_name, root->loc, {root->id});
                std::vector<std::string> cands;
                for (const auto& [k, v] : scope_->locals) cands.push_back(k);
                suggest(root->id, cands);
            }
            return;
        }
        var = it->second;
        if (!var) return;
        cur = var->type;
        if (var->kind == ir::VarKind::Shared ||
            (is_array(var->type) && !chain.empty() && chain.back()->kind != ast::ExprKind::Subscript)) {
            error(DiagId::err_assign_readonly, root->loc, {"'" + root->id + "'"});
            return;
        }
    }
    std::vector<ir::PathStep> path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const ast::Expr& step = **it;
        ir::PathStep p;
        if (step.kind == ast::ExprKind::Attribute) {
            if (is_struct(cur)) {
                auto f = std::find_if(cur->fields.begin(), cur->fields.end(),
                                      [&](const StructField& sf) { return sf.name == step.id; });
                if (f == cur->fields.end()) {
                    error(DiagId::err_unknown_attribute, step.loc, {type_name(cur), step.id});
                    return;
                }
                p.kind = ir::PathStep::Field;
                p.field = static_cast<int>(f - cur->fields.begin());
                p.type = f->type;
            } else if ((is_vector(cur) || cur->kind == TypeKind::Quat) && step.id.size() == 1 &&
                       std::string("xyzw").find(step.id[0]) < static_cast<size_t>(component_count(cur))) {
                p.indices = {ir::make_int(static_cast<int64_t>(std::string("xyzw").find(step.id[0])), int32_type(), step.loc)};
                p.type = scalar_type(cur->scalar);
            } else if (cur->kind == TypeKind::Transform && (step.id == "p" || step.id == "q")) {
                p.indices = {ir::make_int(step.id == "p" ? 0 : 1, int32_type(), step.loc)};
                p.type = step.id == "p" ? vector_type(3, cur->scalar) : quat_type(cur->scalar);
            } else {
                error(DiagId::err_unknown_attribute, step.loc, {type_name(cur), step.id});
                return;
            }
        } else {
            for (const auto& a : step.args) {
                ExprPtr i = lower_expr(*a);
                if (!i) return;
                if (!is_int(i->type)) {
                    error(DiagId::err_index_type, a->loc, {type_name(i->type)});
                    return;
                }
                p.indices.push_back(i);
            }
            if ((is_vector(cur) || cur->kind == TypeKind::Quat || cur->kind == TypeKind::Transform) && p.indices.size() == 1) {
                p.type = scalar_type(cur->scalar);
            } else if (is_matrix(cur) && p.indices.size() == 1) {
                p.type = vector_type(cur->cols, cur->scalar);
            } else if (is_matrix(cur) && p.indices.size() == 2) {
                p.type = scalar_type(cur->scalar);
            } else {
                error(DiagId::err_not_indexable, step.loc, {type_name(cur)});
                return;
            }
        }
        path.push_back(p);
        cur = p.type;
    }
    ExprPtr v = implicit_convert(value, cur);
    if (!v) {
        error(DiagId::err_type_mismatch, value->loc, {type_name(cur), type_name(value->type)});
        return;
    }
    auto s = std::make_shared<ir::Stmt>(array ? ir::StmtKind::Store : ir::StmtKind::Assign, loc);
    s->var = var;
    s->array = array;
    s->indices = array_idx;
    s->path = path;
    s->value = v;
    out.push_back(s);
}

void Sema::lower_aug_assign(const ast::Stmt& s, ir::Block& out) {
    const ast::Expr& t = *s.target;
    // a[i] += x and a[i] -= x on arrays are atomic, as in Warp.
    if (t.kind == ast::ExprKind::Subscript && (s.op == ast::BinOp::Add || s.op == ast::BinOp::Sub)) {
        ExprPtr base = lower_expr(*t.value);
        if (!base) return;
        if (is_array(base->type)) {
            std::vector<ExprPtr> idx;
            for (const auto& a : t.args) {
                ExprPtr i = lower_expr(*a);
                if (!i) return;
                if (!is_int(i->type)) {
                    error(DiagId::err_index_type, a->loc, {type_name(i->type)});
                    return;
                }
                idx.push_back(i);
            }
            if (static_cast<int>(idx.size()) != base->type->ndim) {
                error(DiagId::err_index_count, t.loc,
                      {type_name(base->type), std::to_string(base->type->ndim), std::to_string(idx.size())});
                return;
            }
            ExprPtr v = lower_expr(*s.value);
            if (!v) return;
            v = convert_or_report(v, base->type->elem, s.value->loc);
            if (!v) return;
            Type elem = base->type->elem;
            if (!(is_numeric(elem) || is_vector(elem) || is_matrix(elem)) || scalar_bits(elem->scalar) < 32) {
                error(DiagId::err_type_mismatch, t.loc,
                      {"an array of 32- or 64-bit numbers or vectors for '+='", type_name(base->type)});
                return;
            }
            auto e = ir::make_atomic(s.op == ast::BinOp::Add ? ir::AtomicOp::Add : ir::AtomicOp::Sub, base, idx, {v}, s.loc);
            auto st = std::make_shared<ir::Stmt>(ir::StmtKind::Eval, s.loc);
            st->value = e;
            out.push_back(st);
            return;
        }
    }
    ExprPtr cur = lower_expr(t);
    ExprPtr rhs = lower_expr(*s.value);
    if (!cur || !rhs) return;
    ExprPtr v = lower_binary(s.op, cur, rhs, s.loc);
    if (!v) return;
    lower_assign(t, v, s.loc, out);
}

void Sema::lower_for(const ast::Stmt& s, ir::Block& out) {
    const ast::Expr& iter = *s.value;
    bool is_range = iter.kind == ast::ExprKind::Call &&
                    ((iter.value->kind == ast::ExprKind::Name && iter.value->id == "range" && !(scope_->locals.count("range"))) ||
                     is_weft_call(iter, *this, "range"));
    if (!is_range) {
        error(DiagId::err_for_target, iter.loc, {"another iterable"});
        return;
    }
    if (s.target->kind != ast::ExprKind::Name) {
        error(DiagId::err_bad_assign_target, s.target->loc, {"this loop target; use a name"});
        return;
    }
    std::vector<ExprPtr> args = lower_args(iter);
    if (args.size() != iter.args.size()) return;
    if (args.empty() || args.size() > 3) {
        error(DiagId::err_range_args, iter.loc, {std::to_string(args.size()) + " argument(s)"});
        return;
    }
    Type t = int32_type();
    for (auto& a : args) {
        if (!is_int(a->type)) {
            error(DiagId::err_range_args, a->loc, {type_name(a->type)});
            return;
        }
        if (!literals_.count(a) && a->type != int32_type()) t = a->type;
    }
    for (auto& a : args) {
        ExprPtr c = implicit_convert(a, t);
        if (!c) c = ir::make_cast(a, t, a->loc);
        a = c;
    }
    ExprPtr start = args.size() >= 2 ? args[0] : ir::make_int(0, t, iter.loc);
    ExprPtr stop = args.size() >= 2 ? args[1] : args[0];
    ExprPtr step = args.size() == 3 ? args[2] : ir::make_int(1, t, iter.loc);
    if (ir::is_const(step) && step->int_value == 0) {
        error(DiagId::err_range_zero_step, args[2]->loc);
        return;
    }
    const std::string& name = s.target->id;
    ir::Var* v;
    auto it = scope_->locals.find(name);
    if (it != scope_->locals.end()) {
        v = it->second;
        if (!v) return;
        if (v->type != t) {
            error(DiagId::err_type_change, s.target->loc, {name, type_name(v->type), type_name(t)});
            note(DiagId::note_first_assignment, scope_->first_assign[v], {name, type_name(v->type)});
            return;
        }
    } else {
        v = scope_->fn->new_var(name, t, ir::VarKind::Local, s.target->loc);
        scope_->locals[name] = v;
        scope_->first_assign[v] = s.target->loc;
    }
    auto st = std::make_shared<ir::Stmt>(ir::StmtKind::For, s.loc);
    st->var = v;
    st->start = start;
    st->stop = stop;
    st->step = step;
    ++scope_->loop_depth;
    lower_body(s.body, st->body);
    --scope_->loop_depth;
    out.push_back(st);
}

// The most static shared memory (`__shared__` arrays, which is what wp.shared_array becomes) one
// block may have: the smallest default per-block limit of gpusim's architecture files (48 KiB on
// all of them; more needs dynamic shared memory and an opt-in, which Weft does not use), with
// the architectures it comes from.
static std::pair<size_t, std::string> static_shared_limit() {
    static const std::pair<size_t, std::string> limit = [] {
        size_t bytes = SIZE_MAX;
        for (const std::string& name : gpusim::builtin_arch_names())
            bytes = std::min(bytes, static_cast<size_t>(gpusim::builtin_arch(name).shared_per_block_default));
        std::string archs;
        for (const std::string& name : gpusim::builtin_arch_names())
            if (static_cast<size_t>(gpusim::builtin_arch(name).shared_per_block_default) == bytes)
                archs += (archs.empty() ? "" : ", ") + name;
        return std::pair<size_t, std::string>{bytes, "gpusim/arch: " + archs};
    }();
    return limit;
}

void Sema::lower_stmt(const ast::Stmt& s, ir::Block& out) {
    switch (s.kind) {
        case ast::StmtKind::Assign: {
            const ast::Expr& value = *s.value;
            // i, j = wp.tid() in a 2-D launch
            if (is_weft_call(value, *this, "tid") && value.args.empty()) {
                if (s.target->kind == ast::ExprKind::Tuple) {
                    size_t n = s.target->args.size();
                    if (n < 2 || n > 4) {
                        error(DiagId::err_unpack_count, s.loc, {"2 to 4", std::to_string(n)});
                        return;
                    }
                    for (size_t k = 0; k < n; ++k)
                        lower_assign(
                            *s.target->args[k],
                            ir::make_intrinsic(ir::IntrinsicOp::TidDim, int32_type(), value.loc, static_cast<int64_t>(k)), s.loc,
                            out);
                    return;
                }
            }
            if (is_weft_call(value, *this, "shared_array")) {
                if (scope_->fn->kind != ir::FunctionKind::Kernel) {
                    error(DiagId::err_shared_in_func, value.loc);
                    // Declare the name anyway (as a plain local of unknown use) to avoid follow-on errors.
                    if (s.target->kind == ast::ExprKind::Name && !scope_->locals.count(s.target->id)) {
                        ir::Var* v =
                            scope_->fn->new_var(s.target->id, array_type(float32_type(), 1), ir::VarKind::Shared, s.target->loc);
                        scope_->locals[s.target->id] = v;
                    }
                    return;
                }
                if (s.target->kind != ast::ExprKind::Name || scope_->locals.count(s.target->id)) {
                    error(DiagId::err_shared_array, s.target->loc, {"assign it to a new local name"});
                    return;
                }
                const ast::Expr* shape = nullptr;
                const ast::Expr* dtype = nullptr;
                for (const auto& k : value.keywords) {
                    if (k.name == "shape")
                        shape = k.value.get();
                    else if (k.name == "dtype")
                        dtype = k.value.get();
                    else {
                        error(DiagId::err_keyword_arg, k.loc, {k.name, "wp.shared_array"});
                        return;
                    }
                }
                if (!shape && !value.args.empty()) shape = value.args[0].get();
                if (!dtype && value.args.size() > 1) dtype = value.args[1].get();
                if (!shape || !dtype) {
                    error(DiagId::err_shared_array, value.loc, {std::string("missing ") + (!shape ? "shape" : "dtype")});
                    return;
                }
                std::vector<int> dims;
                std::vector<const ast::Expr*> dim_exprs;
                if (shape->kind == ast::ExprKind::Tuple || shape->kind == ast::ExprKind::List)
                    for (const auto& a : shape->args) dim_exprs.push_back(a.get());
                else
                    dim_exprs.push_back(shape);
                for (const ast::Expr* d : dim_exprs) {
                    bool ok = true;
                    int64_t n = const_int(*d, "a shared array dimension", &ok);
                    if (!ok) return;
                    if (n < 1 || n > (1 << 20)) {
                        error(DiagId::err_shared_array, d->loc, {"dimension " + std::to_string(n) + " is out of range"});
                        return;
                    }
                    dims.push_back(static_cast<int>(n));
                }
                if (dims.empty() || dims.size() > 2) {
                    error(DiagId::err_shared_array, shape->loc, {"shared arrays have 1 or 2 dimensions"});
                    return;
                }
                Type elem = resolve_type(*dtype);
                if (!elem) return;
                if (is_array(elem) || is_tuple(elem)) {
                    error(DiagId::err_shared_array, dtype->loc, {"dtype must be a value type"});
                    return;
                }
                ir::Function* fn = scope_->fn;
                ir::Var* v = fn->new_var(s.target->id, array_type(elem, static_cast<int>(dims.size())), ir::VarKind::Shared,
                                         s.target->loc);
                v->shared_shape = dims;
                const auto [limit, limit_source] = static_shared_limit();
                size_t count = 1;
                for (int d : dims) count = std::min<size_t>(count * static_cast<size_t>(d), limit + 1);  // no overflow
                size_t align = std::max<size_t>(16, type_align(elem));
                fn->shared_bytes = (fn->shared_bytes + align - 1) / align * align;
                v->shared_offset = fn->shared_bytes;
                fn->shared_bytes += count * type_size(elem);
                if (fn->shared_bytes > limit) {
                    // A user error, found here rather than by NVRTC (or never, on the cpu device).
                    error(DiagId::err_shared_too_large, s.target->loc,
                          {fn->name,
                           fn->shared_bytes > limit * 2 ? "more than " + std::to_string(limit * 2)
                                                        : std::to_string(fn->shared_bytes),
                           s.target->id, std::to_string(limit), limit_source});
                    fn->shared_bytes = 0;
                }
                scope_->locals[s.target->id] = v;
                scope_->first_assign[v] = s.target->loc;
                return;
            }
            ExprPtr v = lower_expr(value);
            if (!v) return;
            lower_assign(*s.target, v, s.loc, out);
            return;
        }
        case ast::StmtKind::AnnAssign: {
            if (s.target->kind != ast::ExprKind::Name) {
                error(DiagId::err_bad_assign_target, s.target->loc, {"an annotated non-name"});
                return;
            }
            Type t = resolve_type(*s.annotation);
            if (!t) return;
            ExprPtr v;
            if (s.value) {
                v = lower_expr(*s.value);
                if (!v) return;
                ExprPtr c = implicit_convert(v, t);
                if (!c && is_numeric(v->type) && is_numeric(t)) c = ir::make_cast(v, t, v->loc);
                if (!c) {
                    error(DiagId::err_type_mismatch, s.value->loc, {type_name(t), type_name(v->type)});
                    return;
                }
                v = fold(c);
            } else {
                v = is_float(t)    ? ir::make_float(0, t, s.loc)
                    : is_scalar(t) ? ir::make_int(0, t, s.loc)
                                   : ir::make_construct(t, {}, s.loc);
            }
            if (!scope_->locals.count(s.target->id)) {
                ir::Var* var = scope_->fn->new_var(s.target->id, t, ir::VarKind::Local, s.target->loc);
                scope_->locals[s.target->id] = var;
                scope_->first_assign[var] = s.target->loc;
            }
            assign_name(s.target->id, s.target->loc, v, out);
            return;
        }
        case ast::StmtKind::AugAssign: return lower_aug_assign(s, out);
        case ast::StmtKind::If: {
            ExprPtr c = to_condition(lower_expr(*s.value));
            auto st = std::make_shared<ir::Stmt>(ir::StmtKind::If, s.loc);
            st->value = c;
            lower_body(s.body, st->body);
            lower_body(s.orelse, st->orelse);
            if (!c) return;
            // A constant condition keeps only the live branch (after both were checked).
            if (ir::is_const(c)) {
                const ir::Block& live = c->int_value ? st->body : st->orelse;
                out.insert(out.end(), live.begin(), live.end());
                return;
            }
            out.push_back(st);
            return;
        }
        case ast::StmtKind::For: return lower_for(s, out);
        case ast::StmtKind::While: {
            ExprPtr c = to_condition(lower_expr(*s.value));
            auto st = std::make_shared<ir::Stmt>(ir::StmtKind::While, s.loc);
            st->value = c;
            ++scope_->loop_depth;
            lower_body(s.body, st->body);
            --scope_->loop_depth;
            if (c) out.push_back(st);
            return;
        }
        case ast::StmtKind::Break:
        case ast::StmtKind::Continue:
            if (scope_->loop_depth == 0) {
                error(DiagId::err_break_outside_loop, s.loc, {s.kind == ast::StmtKind::Break ? "break" : "continue"});
                return;
            }
            out.push_back(
                std::make_shared<ir::Stmt>(s.kind == ast::StmtKind::Break ? ir::StmtKind::Break : ir::StmtKind::Continue, s.loc));
            return;
        case ast::StmtKind::Return: {
            auto st = std::make_shared<ir::Stmt>(ir::StmtKind::Return, s.loc);
            if (s.value) {
                if (scope_->fn->kind == ir::FunctionKind::Kernel) {
                    error(DiagId::err_return_in_kernel, s.value->loc);
                    return;
                }
                ExprPtr v = lower_expr(*s.value);
                if (!v) return;
                if (!scope_->ret) {
                    // The first return fixes the type; a lone literal takes its default type.
                    scope_->ret = v->type;
                } else if (*scope_->ret != v->type) {
                    ExprPtr c = implicit_convert(v, *scope_->ret);
                    if (!c && is_tuple(v->type) && is_tuple(*scope_->ret) && v->kind == ir::ExprKind::MakeTuple &&
                        v->type->items.size() == (*scope_->ret)->items.size()) {
                        std::vector<ExprPtr> items;
                        for (size_t i = 0; i < v->args.size(); ++i) {
                            ExprPtr ci = implicit_convert(v->args[i], (*scope_->ret)->items[i]);
                            if (!ci) break;
                            items.push_back(ci);
                        }
                        if (items.size() == v->args.size()) c = ir::make_tuple(items, v->loc);
                    }
                    if (!c) {
                        error(scope_->ret_declared ? DiagId::err_type_mismatch : DiagId::err_return_type, s.value->loc,
                              scope_->ret_declared ? std::vector<std::string>{type_name(*scope_->ret), type_name(v->type)}
                                                   : std::vector<std::string>{type_name(v->type), type_name(*scope_->ret)});
                        return;
                    }
                    v = c;
                }
                st->value = v;
            } else if (scope_->ret && *scope_->ret != void_type()) {
                error(DiagId::err_type_mismatch, s.loc, {"a return value of type " + type_name(*scope_->ret), "a bare return"});
                return;
            } else if (!scope_->ret && scope_->fn->kind == ir::FunctionKind::Func) {
                scope_->ret = void_type();
            }
            out.push_back(st);
            return;
        }
        case ast::StmtKind::Pass: return;
        case ast::StmtKind::ExprStmt: {
            const ast::Expr& e = *s.value;
            if (e.kind == ast::ExprKind::String) return;  // a docstring-like string: nothing to do
            if (is_weft_call(e, *this, "sync_threads")) {
                if (!e.args.empty()) {
                    error(DiagId::err_arg_count, e.loc, {"sync_threads", "0", std::to_string(e.args.size())});
                    return;
                }
                out.push_back(std::make_shared<ir::Stmt>(ir::StmtKind::Sync, s.loc));
                return;
            }
            ExprPtr v = lower_expr(e);
            if (!v) return;
            auto st = std::make_shared<ir::Stmt>(ir::StmtKind::Eval, s.loc);
            st->value = v;
            out.push_back(st);
            return;
        }
    }
}

}  // namespace weft::compiler::sema_detail
