// The reverse of one expression: forward temporaries, then the adjoint rule of each node in
// reverse order. See adjoint_expr.h.
//
// Nodes of a differentiable type (and calls of funcs, which may write arrays) get a temporary for
// their value and one for their adjoint; other nodes are leaves: their value is computed whole
// (they carry no adjoint: comparisons, integer arithmetic, casts from integers). Variables are
// not copied: a variable's adjoint receives its contributions directly. Each rule below states
// its math; `A` is the adjoint of the node's result, `a_k` that of its k-th operand, and every
// rule accumulates (+=), because an operand may be used more than once.
#include "compiler/codegen/adjoint_expr.h"

#include "compiler/ir/ir_visitor.h"
#include "compiler/passes/check_differentiable.h"

namespace weft::compiler {

using ir::ExprKind;
using ir::ExprPtr;
using passes::is_differentiable;

std::string adj_var_name(const ir::Var* v) { return "adj_" + cpp_var_name(v); }

const ir::Var* TempPool::make(Type t) {
    auto v = std::make_unique<ir::Var>();
    v->name = "t";
    v->type = t;
    v->id = next_id++;
    vars.push_back(std::move(v));
    return vars.back().get();
}

bool holds_arrays(Type t) {
    if (!t || !is_struct(t)) return false;
    for (const auto& f : t->fields)
        if (is_array(f.type) || holds_arrays(f.type)) return true;
    return false;
}

// The gradient array of an array-valued expression: a variable's adjoint, or for an array field
// of a struct variable (`p.x`, `p.inner.x`) the same field of the struct's adjoint, whose array
// fields hold the gradient arrays (a kernel's struct parameter gets them from the runtime).
std::string AdjointExpr::adjoint_array(const ExprPtr& e) {
    if (e->kind == ExprKind::VarRef && e->var->kind != ir::VarKind::Shared) return adj_var_name(e->var);
    if (e->kind == ExprKind::Field && is_struct(e->args[0]->type)) {
        std::string base = e->args[0]->kind == ExprKind::Field ? adjoint_array(e->args[0])
                           : e->args[0]->kind == ExprKind::VarRef && e->args[0]->var->kind != ir::VarKind::Shared
                               ? adj_var_name(e->args[0]->var)
                               : "";
        if (base.empty()) return "";
        return base + "." + cpp_sanitize(e->args[0]->type->fields[static_cast<size_t>(e->int_value)].name);
    }
    return "";
}

std::string AdjointExpr::reverse() const {
    std::string s;
    for (auto it = rev_.rbegin(); it != rev_.rend(); ++it) s += *it;
    return s;
}

AdjointExpr::Value AdjointExpr::linearize(const ExprPtr& e) {
    if (e->kind == ExprKind::Const || e->kind == ExprKind::VarRef) return leaf(e);
    if (e->kind == ExprKind::CallFunc) return node(e);
    if (is_differentiable(e->type) && !is_array(e->type)) return e->kind == ExprKind::Select ? select(e) : node(e);
    return leaf(e);
}

AdjointExpr::Value AdjointExpr::leaf(const ExprPtr& e) {
    Value v;
    if (e->kind == ExprKind::Const) {
        v.val = p_.expr(e);
        return v;
    }
    if (e->kind == ExprKind::VarRef) {
        v.val = cpp_var_name(e->var);
        v.var = e->var;
        if (is_array(e->type))
            v.adjarr = adjoint_array(e);
        else if (is_differentiable(e->type) || holds_arrays(e->type))
            v.adj = adj_var_name(e->var);  // (a struct's adjoint carries its arrays' gradients to funcs)
        return v;
    }
    if (e->type == void_type()) return v;  // print(): not repeated in the reverse sweep
    const ir::Var* t = temps_.make(e->type);
    decl_ << cpp_type_name(e->type) << " " << cpp_var_name(t) << "{};\n";
    fwd_ << cpp_var_name(t) << " = " << p_.expr(e) << ";\n";
    v.val = cpp_var_name(t);
    v.var = t;
    if (is_array(e->type)) v.adjarr = adjoint_array(e);
    return v;
}

AdjointExpr::Value AdjointExpr::node(const ExprPtr& e) {
    std::vector<Value> in;
    for (const auto& a : e->args) in.push_back(linearize(a));
    auto copy = std::make_shared<ir::Expr>(*e);
    for (size_t i = 0; i < in.size(); ++i)
        if (in[i].var) copy->args[i] = ir::make_var(in[i].var, e->args[i]->loc);
    Value out;
    if (e->type != void_type()) {
        const ir::Var* t = temps_.make(e->type);
        std::string tn = cpp_type_name(e->type);
        decl_ << tn << " " << cpp_var_name(t) << "{};\n";
        decl_ << tn << " " << adj_var_name(t) << "{};\n";
        fwd_ << cpp_var_name(t) << " = " << p_.expr(copy) << ";\n";
        out.val = cpp_var_name(t);
        out.adj = adj_var_name(t);
        out.var = t;
    }
    rev_.push_back(rule(e, in, out));
    return out;
}

// Select: only the branch taken is evaluated (the other may index out of range), so both the
// forward values and the reverse rules sit under the condition.
// d (c ? a : b) = c ? da : db
AdjointExpr::Value AdjointExpr::select(const ExprPtr& e) {
    Value c = linearize(e->args[0]);
    AdjointExpr a(p_, temps_), b(p_, temps_);
    Value va = a.linearize(e->args[1]), vb = b.linearize(e->args[2]);
    const ir::Var* t = temps_.make(e->type);
    std::string tn = cpp_type_name(e->type), tv = cpp_var_name(t), ta = adj_var_name(t);
    decl_ << a.decl_.str() << b.decl_.str();
    decl_ << tn << " " << tv << "{};\n" << tn << " " << ta << "{};\n";
    fwd_ << "if (" << c.val << ") {\n"
         << a.fwd_.str() << tv << " = " << va.val << ";\n} else {\n"
         << b.fwd_.str() << tv << " = " << vb.val << ";\n}\n";
    std::string r = "if (" + c.val + ") {\n";
    if (!va.adj.empty()) r += "wp::adj_accum(" + va.adj + ", " + ta + ");\n";
    r += a.reverse() + "} else {\n";
    if (!vb.adj.empty()) r += "wp::adj_accum(" + vb.adj + ", " + ta + ");\n";
    r += b.reverse() + "}\n";
    rev_.push_back(r);
    return {tv, ta, "", t};
}

std::string AdjointExpr::adj_or_dummy(const Value& v, Type t) {
    if (!v.adj.empty()) return v.adj;
    const ir::Var* d = temps_.make(t);
    decl_ << cpp_type_name(t) << " " << adj_var_name(d) << "{};\n";
    return adj_var_name(d);
}

namespace {
const char* binary_adjoint(ir::BinaryOp op) {
    switch (op) {
        case ir::BinaryOp::Add: return "adj_add";     // d(a + b) = da + db
        case ir::BinaryOp::Sub: return "adj_sub";     // d(a - b) = da - db
        case ir::BinaryOp::Mul: return "adj_mul";     // d(a b) = da b + a db (matrix, quaternion and transform products alike)
        case ir::BinaryOp::MatMul: return "adj_mul";  // d(A @ B) = dA B + A dB
        case ir::BinaryOp::Div: return "adj_div";     // d(a / b) = da / b - a db / b^2
        case ir::BinaryOp::Mod: return "adj_mod";     // d(a % b) = da - trunc(a / b) db (C fmod, per component on vectors)
        case ir::BinaryOp::Pow: return "adj_pow";     // d(a^b) = b a^(b-1) da + ln(a) a^b db
        default: return nullptr;                      // floor division, bit operations: piecewise constant
    }
}
}  // namespace

// The adjoint rule of each node kind, as C++ statements; `A` is out.adj, the adjoint of the
// node's result. Kinds without a rule carry no adjoint.
class AdjointExpr::Rules : public ir::ExprFunctor<std::string(const ExprPtr&, const std::vector<Value>&, const Value&)> {
public:
    explicit Rules(AdjointExpr& x) : x_(x) {}

protected:
    using In = std::vector<Value>;

    // The operands' values, then their adjoints, then (for a call) A: the adj_ calling convention.
    std::string args(const ExprPtr& e, const In& in, const std::string& A, bool with_adj_ret) {
        std::string s;
        for (size_t i = 0; i < in.size(); ++i) s += (i ? ", " : "") + in[i].val;
        for (size_t i = 0; i < in.size(); ++i) s += ", " + x_.adj_or_dummy(in[i], e->args[i]->type);
        if (with_adj_ret) s += ", " + A;
        return s;
    }

    // Leaves, and values that carry no adjoint: booleans, shapes, thread indices. A select is
    // linearized on its own (AdjointExpr::select).
    std::string visit_Const(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_VarRef(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_Compare(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_Logical(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_Select(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_Shape(const ExprPtr&, const In&, const Value&) override { return ""; }
    std::string visit_Intrinsic(const ExprPtr&, const In&, const Value&) override { return ""; }

    std::string visit_Unary(const ExprPtr& e, const In& in, const Value& out) override {  // d(-a) = -da
        if (static_cast<ir::UnaryOp>(e->op) == ir::UnaryOp::Neg) return "wp::adj_neg(" + args(e, in, out.adj, true) + ");\n";
        return "";
    }
    std::string visit_Binary(const ExprPtr& e, const In& in, const Value& out) override {
        const char* f = binary_adjoint(static_cast<ir::BinaryOp>(e->op));
        return f ? std::string("wp::") + f + "(" + args(e, in, out.adj, true) + ");\n" : "";
    }
    // The builtin's own adjoint (compiler/native), checked against finite differences.
    std::string visit_Call(const ExprPtr& e, const In& in, const Value& out) override {
        if (!(e->builtin->flags & BuiltinFlags_Differentiable)) return "";
        const char* ctx = (e->builtin->flags & BuiltinFlags_Warp) ? "ctx, " : "";  // warp collectives: the context first
        return "wp::adj_" + e->builtin->cpp_name + "(" + ctx + args(e, in, out.adj, e->type != void_type()) + ");\n";
    }
    std::string visit_CallFunc(const ExprPtr& e, const In& in, const Value& out) override {
        const std::string& A = out.adj;
        const ir::Function* f = e->func;
        if (f->custom_grad) {
            // @wp.func_grad g(inputs..., adj_ret) returns the adjoints of the non-array inputs.
            std::string s = "{\nconst auto g_ = " + cpp_func_name(f->custom_grad) + "<WpC>(ctx, bounds";
            for (const auto& v : in) s += ", " + v.val;
            s += ", " + A + ");\n";
            std::vector<size_t> idx;
            for (size_t i = 0; i < in.size(); ++i)
                if (!is_array(e->args[i]->type)) idx.push_back(i);
            for (size_t k = 0; k < idx.size(); ++k) {
                std::string g = idx.size() == 1 ? "g_" : "g_.template get<" + std::to_string(k) + ">()";
                s += "wp::adj_accum(" + x_.adj_or_dummy(in[idx[k]], e->args[idx[k]]->type) + ", " + g + ");\n";
            }
            return s + "}\n";
        }
        std::string s = "adj_" + cpp_func_name(f) + "<WpC>(ctx, bounds, tape_";
        for (const auto& v : in) s += ", " + v.val;
        for (size_t i = 0; i < in.size(); ++i) {
            Type t = e->args[i]->type;
            if (is_array(t))
                s += ", " + (in[i].adjarr.empty() ? cpp_type_name(t) + "{}" : in[i].adjarr);
            else
                s += ", " + x_.adj_or_dummy(in[i], t);
        }
        if (e->type != void_type()) s += ", " + A;
        return s + ");\n";
    }
    std::string visit_Cast(const ExprPtr& e, const In& in, const Value& out) override {
        // d(T(a)) = T'(da): the adjoint converts back to the operand's type
        Type from = e->args[0]->type;
        if (!is_differentiable(from) || in[0].adj.empty()) return "";
        std::string back = is_scalar(from) ? "static_cast<" + cpp_type_name(from) + ">(" + out.adj + ")"
                                           : cpp_type_name(from) + "(" + out.adj + ")";
        return "wp::adj_accum(" + in[0].adj + ", " + back + ");\n";
    }
    std::string visit_Construct(const ExprPtr& e, const In& in, const Value& out) override {
        return x_.construct_rule(e, in, out);
    }
    std::string visit_Load(const ExprPtr& e, const In& in, const Value& out) override {
        // d(a[i]) -> grad_a[i] += A (atomically: other threads may read a[i])
        // (a struct element: each differentiable field, by the struct's adj_atomic_accum)
        if (in[0].adjarr.empty() || out.adj.empty()) return "";
        std::vector<std::string> idx;
        for (size_t i = 1; i < in.size(); ++i) idx.push_back(in[i].val);
        return "if ((" + in[0].adjarr + ").data) wp::adj_atomic_accum(" + x_.p_.address(in[0].adjarr, idx, e->loc) + ", " +
               out.adj + ");\n";
    }
    std::string visit_Extract(const ExprPtr& e, const In& in, const Value& out) override {  // d(v[i]) -> dv[i] += A
        Type bt = e->args[0]->type;
        std::string a0 = x_.adj_or_dummy(in[0], bt), c;
        if (bt->kind == TypeKind::Transform && !is_scalar(e->type))  // .p / .q; t[i] is a component
            c = "(" + a0 + (e->args[1]->int_value == 0 ? ").p" : ").q");
        else if (in.size() == 3)
            c = "(" + a0 + ")(" + in[1].val + ", " + in[2].val + ")";
        else
            c = "(" + a0 + ")[" + in[1].val + "]";
        return "wp::adj_accum(" + c + ", " + out.adj + ");\n";
    }
    std::string visit_Field(const ExprPtr& e, const In& in, const Value& out) override {  // d(s.f) -> ds.f += A
        Type st = e->args[0]->type;
        return "wp::adj_accum((" + x_.adj_or_dummy(in[0], st) + ")." +
               cpp_sanitize(st->fields[static_cast<size_t>(e->int_value)].name) + ", " + out.adj + ");\n";
    }
    std::string visit_TupleGet(const ExprPtr& e, const In& in, const Value& out) override {  // d(t[k]) -> dt[k] += A
        return "wp::adj_accum((" + x_.adj_or_dummy(in[0], e->args[0]->type) + ").template get<" + std::to_string(e->int_value) +
               ">(), " + out.adj + ");\n";
    }
    std::string visit_MakeTuple(const ExprPtr& e, const In& in, const Value& out) override {
        // d(a, b, ...) -> da += A[0], db += A[1], ...
        std::string s;
        for (size_t k = 0; k < in.size(); ++k)
            if (is_differentiable(e->args[k]->type))
                s += "wp::adj_accum(" + x_.adj_or_dummy(in[k], e->args[k]->type) + ", (" + out.adj + ").template get<" +
                     std::to_string(k) + ">());\n";
        return s;
    }
    std::string visit_Atomic(const ExprPtr& e, const In& in, const Value&) override {
        // atomic_add(a, i, v): a[i] += v, so dv += grad_a[i]; atomic_sub: dv -= grad_a[i];
        // atomic_min/max: dv += grad_a[i] where v is the value that a[i] holds afterwards.
        size_t nidx = static_cast<size_t>(e->int_value);
        if (in[0].adjarr.empty()) return "";
        std::vector<std::string> idx;
        for (size_t i = 1; i <= nidx; ++i) idx.push_back(in[i].val);
        size_t vi = 1 + nidx;
        if (vi >= in.size() || !is_differentiable(e->args[vi]->type)) return "";
        Type vt = e->args[vi]->type;
        std::string g = "(*" + x_.p_.address(in[0].adjarr, idx, e->loc) + ")";
        std::string av = x_.adj_or_dummy(in[vi], vt), guard = "if ((" + in[0].adjarr + ").data) ";
        switch (static_cast<ir::AtomicOp>(e->op)) {
            case ir::AtomicOp::Add: return guard + "wp::adj_accum(" + av + ", " + g + ");\n";
            case ir::AtomicOp::Sub:
                return guard + "{ const " + cpp_type_name(vt) + " z_{}; wp::adj_accum(" + av + ", z_ - " + g + "); }\n";
            case ir::AtomicOp::Min:
            case ir::AtomicOp::Max:
                if (!is_scalar(vt)) return "";
                return guard + "if ((*" + x_.p_.address(in[0].val, idx, e->loc) + ") == " + in[vi].val + ") wp::adj_accum(" + av +
                       ", " + g + ");\n";
            default: return "";
        }
    }

private:
    AdjointExpr& x_;
};

std::string AdjointExpr::rule(const ExprPtr& e, const std::vector<Value>& in, const Value& out) {
    return Rules(*this).visit(e, in, out);
}

// Constructors: each argument receives the part of A it was copied into.
//   vec(x, y, z):        dx += A[0] ...          vec(s) (broadcast): ds += sum_k A[k]
//   mat(elements):       d m_rc += A(r, c)       mat(rows):          d row_r += A[r]
//   transform(p, q):     dp += A.p, dq += A.q    struct(fields):     d f += A.f
//   T(x) of another precision: dx += T'(A)
std::string AdjointExpr::construct_rule(const ExprPtr& e, const std::vector<Value>& in, const Value& out) {
    Type t = e->type;
    const std::string& A = out.adj;
    size_t n = in.size();
    std::string s;
    auto acc = [&](size_t k, const std::string& part) {
        if (is_differentiable(e->args[k]->type))
            s += "wp::adj_accum(" + adj_or_dummy(in[k], e->args[k]->type) + ", " + part + ");\n";
    };
    auto idx = [](int k) { return std::to_string(k); };
    if (n == 0) return "";
    if (is_struct(t)) {
        for (size_t k = 0; k < n && k < t->fields.size(); ++k) acc(k, "(" + A + ")." + cpp_sanitize(t->fields[k].name));
        return s;
    }
    if (n == 1) {
        Type a = e->args[0]->type;
        if (a == t)
            acc(0, A);
        else if (is_scalar(a) && (t->kind == TypeKind::Vector || t->kind == TypeKind::Quat))
            for (int k = 0; k < component_count(t); ++k) acc(0, "(" + A + ")[" + idx(k) + "]");
        else if (a->kind == t->kind && !is_scalar(a))
            acc(0, cpp_type_name(a) + "(" + A + ")");
        return s;
    }
    if ((t->kind == TypeKind::Vector || t->kind == TypeKind::Quat) && static_cast<int>(n) == component_count(t)) {
        for (size_t k = 0; k < n; ++k) acc(k, "(" + A + ")[" + idx(static_cast<int>(k)) + "]");
    } else if (is_matrix(t) && static_cast<int>(n) == t->rows * t->cols) {
        for (size_t k = 0; k < n; ++k)
            acc(k, "(" + A + ")(" + idx(static_cast<int>(k) / t->cols) + ", " + idx(static_cast<int>(k) % t->cols) + ")");
    } else if (is_matrix(t) && static_cast<int>(n) == t->rows) {
        for (size_t k = 0; k < n; ++k) acc(k, "(" + A + ")[" + idx(static_cast<int>(k)) + "]");
    } else if (t->kind == TypeKind::Transform && n == 7) {
        for (size_t k = 0; k < 3; ++k) acc(k, "(" + A + ").p[" + idx(static_cast<int>(k)) + "]");
        for (size_t k = 3; k < 7; ++k) acc(k, "(" + A + ").q[" + idx(static_cast<int>(k - 3)) + "]");
    } else if (t->kind == TypeKind::Transform && n == 2) {
        acc(0, "(" + A + ").p");
        acc(1, "(" + A + ").q");
    }
    return s;
}

}  // namespace weft::compiler
