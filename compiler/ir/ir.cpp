// IR construction helpers, the printer (`weft compile --emit ir`, WEFT_DUMP_IR) and the verifier.
#include "compiler/ir/ir.h"

#include "compiler/ir/ir_visitor.h"

#include <set>
#include <sstream>

namespace weft::compiler::ir {

const char* unary_text(UnaryOp op) {
    switch (op) {
        case UnaryOp::Neg: return "-";
        case UnaryOp::Not: return "not ";
        case UnaryOp::BitNot: return "~";
    }
    return "?";
}

const char* binary_text(BinaryOp op) {
    switch (op) {
        case BinaryOp::Add: return "+";
        case BinaryOp::Sub: return "-";
        case BinaryOp::Mul: return "*";
        case BinaryOp::Div: return "/";
        case BinaryOp::FloorDiv: return "//";
        case BinaryOp::Mod: return "%";
        case BinaryOp::Pow: return "**";
        case BinaryOp::MatMul: return "@";
        case BinaryOp::BitAnd: return "&";
        case BinaryOp::BitOr: return "|";
        case BinaryOp::BitXor: return "^";
        case BinaryOp::Shl: return "<<";
        case BinaryOp::Shr: return ">>";
    }
    return "?";
}

const char* compare_text(CompareOp op) {
    switch (op) {
        case CompareOp::Lt: return "<";
        case CompareOp::Le: return "<=";
        case CompareOp::Gt: return ">";
        case CompareOp::Ge: return ">=";
        case CompareOp::Eq: return "==";
        case CompareOp::Ne: return "!=";
    }
    return "?";
}

const char* atomic_name(AtomicOp op) {
    switch (op) {
        case AtomicOp::Add: return "atomic_add";
        case AtomicOp::Sub: return "atomic_sub";
        case AtomicOp::Min: return "atomic_min";
        case AtomicOp::Max: return "atomic_max";
        case AtomicOp::Exch: return "atomic_exch";
        case AtomicOp::Cas: return "atomic_cas";
    }
    return "?";
}

Var* Function::new_var(const std::string& n, Type t, VarKind k, SourceLoc l) {
    auto v = std::make_unique<Var>();
    v->name = n;
    v->type = t;
    v->kind = k;
    v->loc = l;
    v->id = static_cast<int>(vars.size());
    vars.push_back(std::move(v));
    return vars.back().get();
}

const Function* Module::find(const std::string& n) const {
    for (const auto& f : functions)
        if (f->name == n) return f.get();
    return nullptr;
}

namespace {
std::shared_ptr<Expr> node(ExprKind k, Type t, SourceLoc l) { return std::make_shared<Expr>(k, t, l); }
}  // namespace

ExprPtr make_int(int64_t v, Type t, SourceLoc loc) {
    auto e = node(ExprKind::Const, t, loc);
    e->int_value = v;
    e->float_value = static_cast<double>(v);
    return e;
}
ExprPtr make_float(double v, Type t, SourceLoc loc) {
    auto e = node(ExprKind::Const, t, loc);
    e->float_value = v;
    return e;
}
ExprPtr make_bool(bool v, SourceLoc loc) { return make_int(v ? 1 : 0, bool_type(), loc); }
ExprPtr make_var(const Var* v, SourceLoc loc) {
    auto e = node(ExprKind::VarRef, v->type, loc);
    e->var = v;
    return e;
}
ExprPtr make_unary(UnaryOp op, ExprPtr a, Type t, SourceLoc loc) {
    auto e = node(ExprKind::Unary, t, loc);
    e->op = static_cast<int>(op);
    e->args = {std::move(a)};
    return e;
}
ExprPtr make_binary(BinaryOp op, ExprPtr a, ExprPtr b, Type t, SourceLoc loc) {
    auto e = node(ExprKind::Binary, t, loc);
    e->op = static_cast<int>(op);
    e->args = {std::move(a), std::move(b)};
    return e;
}
ExprPtr make_compare(CompareOp op, ExprPtr a, ExprPtr b, SourceLoc loc) {
    auto e = node(ExprKind::Compare, bool_type(), loc);
    e->op = static_cast<int>(op);
    e->args = {std::move(a), std::move(b)};
    return e;
}
ExprPtr make_logical(LogicalOp op, ExprPtr a, ExprPtr b, SourceLoc loc) {
    auto e = node(ExprKind::Logical, bool_type(), loc);
    e->op = static_cast<int>(op);
    e->args = {std::move(a), std::move(b)};
    return e;
}
ExprPtr make_select(ExprPtr c, ExprPtr a, ExprPtr b, SourceLoc loc) {
    auto e = node(ExprKind::Select, a->type, loc);
    e->args = {std::move(c), std::move(a), std::move(b)};
    return e;
}
ExprPtr make_call(const BuiltinOverload* o, std::vector<ExprPtr> args, SourceLoc loc) {
    auto e = node(ExprKind::Call, o->ret, loc);
    e->builtin = o;
    e->args = std::move(args);
    return e;
}
ExprPtr make_call_func(const Function* f, std::vector<ExprPtr> args, SourceLoc loc) {
    auto e = node(ExprKind::CallFunc, f->ret, loc);
    e->func = f;
    e->args = std::move(args);
    return e;
}
ExprPtr make_cast(ExprPtr a, Type to, SourceLoc loc) {
    if (a->type == to) return a;
    auto e = node(ExprKind::Cast, to, loc);
    e->args = {std::move(a)};
    return e;
}
ExprPtr make_construct(Type t, std::vector<ExprPtr> args, SourceLoc loc) {
    auto e = node(ExprKind::Construct, t, loc);
    e->args = std::move(args);
    return e;
}
ExprPtr make_load(ExprPtr array, std::vector<ExprPtr> indices, SourceLoc loc) {
    auto e = node(ExprKind::Load, array->type->elem, loc);
    e->args.push_back(std::move(array));
    for (auto& i : indices) e->args.push_back(std::move(i));
    return e;
}
ExprPtr make_shape(ExprPtr array, int dim, SourceLoc loc) {
    auto e = node(ExprKind::Shape, int32_type(), loc);
    e->int_value = dim;
    e->args = {std::move(array)};
    return e;
}
ExprPtr make_extract(ExprPtr value, std::vector<ExprPtr> indices, Type t, SourceLoc loc) {
    auto e = node(ExprKind::Extract, t, loc);
    e->args.push_back(std::move(value));
    for (auto& i : indices) e->args.push_back(std::move(i));
    return e;
}
ExprPtr make_field(ExprPtr value, int field, SourceLoc loc) {
    Type st = value->type;
    auto e = node(ExprKind::Field, st->fields[static_cast<size_t>(field)].type, loc);
    e->int_value = field;
    e->args = {std::move(value)};
    return e;
}
ExprPtr make_tuple_get(ExprPtr tuple, int index, SourceLoc loc) {
    auto e = node(ExprKind::TupleGet, tuple->type->items[static_cast<size_t>(index)], loc);
    e->int_value = index;
    e->args = {std::move(tuple)};
    return e;
}
ExprPtr make_tuple(std::vector<ExprPtr> items, SourceLoc loc) {
    std::vector<Type> types;
    for (auto& i : items) types.push_back(i->type);
    auto e = node(ExprKind::MakeTuple, tuple_type(types), loc);
    e->args = std::move(items);
    return e;
}
ExprPtr make_atomic(AtomicOp op, ExprPtr array, std::vector<ExprPtr> indices, std::vector<ExprPtr> values, SourceLoc loc) {
    auto e = node(ExprKind::Atomic, array->type->elem, loc);
    e->op = static_cast<int>(op);
    e->int_value = static_cast<int64_t>(indices.size());
    e->args.push_back(std::move(array));
    for (auto& i : indices) e->args.push_back(std::move(i));
    for (auto& v : values) e->args.push_back(std::move(v));
    return e;
}
ExprPtr make_intrinsic(IntrinsicOp op, Type t, SourceLoc loc, int64_t arg) {
    auto e = node(ExprKind::Intrinsic, t, loc);
    e->op = static_cast<int>(op);
    e->int_value = arg;
    return e;
}

bool is_const(const ExprPtr& e) { return e->kind == ExprKind::Const; }

namespace {

// Asks `pred` of every expression below the visited statements, until one answers yes.
class AnyExpr : public IRVisitor {
public:
    explicit AnyExpr(const std::function<bool(const Expr&)>& pred) : pred_(pred) {}
    bool found = false;

    void visit_expr(const ExprPtr& e) override {
        if (found || !e) return;
        if (pred_(*e)) {
            found = true;
            return;
        }
        IRVisitor::visit_expr(e);
    }

private:
    const std::function<bool(const Expr&)>& pred_;
};

}  // namespace

bool any_expr(const Block& block, const std::function<bool(const Expr&)>& pred) {
    AnyExpr a(pred);
    a.visit_block(block);
    return a.found;
}

// ---- printer ----
namespace {

class Printer : public IRVisitor {
public:
    explicit Printer(std::ostream& os) : os_(os) {}

    void block(const Block& b, int indent) {
        int outer = indent_;
        indent_ = indent;
        if (b.empty()) os_ << pad() << "pass\n";
        for (const auto& s : b) {
            os_ << pad();
            visit(*s);
        }
        indent_ = outer;
    }

protected:
    std::string pad() const { return std::string(static_cast<size_t>(indent_) * 2, ' '); }

    void args(const std::vector<ExprPtr>& a, size_t from = 0, size_t to = SIZE_MAX) {
        for (size_t i = from; i < a.size() && i < to; ++i) {
            if (i > from) os_ << ", ";
            visit(*a[i]);
        }
    }

    void infix(const Expr& e, const char* op) {
        os_ << "(";
        visit(*e.args[0]);
        os_ << op;
        visit(*e.args[1]);
        os_ << ")";
    }

    void path(const std::vector<PathStep>& steps) {
        for (const auto& p : steps) {
            if (p.kind == PathStep::Field) {
                os_ << ".f" << p.field;
            } else {
                os_ << "{";
                args(p.indices);
                os_ << "}";
            }
        }
    }

    // ---- expressions ----
    void visit_Const(const Expr& e) override {
        if (is_float(e.type)) {
            std::ostringstream s;
            s.precision(17);
            s << e.float_value;
            os_ << s.str() << ":" << type_name(e.type);
        } else if (e.type->scalar == ScalarKind::Bool) {
            os_ << (e.int_value ? "True" : "False");
        } else {
            os_ << e.int_value << ":" << type_name(e.type);
        }
    }
    void visit_VarRef(const Expr& e) override { os_ << e.var->name << "." << e.var->id; }
    void visit_Unary(const Expr& e) override {
        os_ << "(" << unary_text(static_cast<UnaryOp>(e.op));
        visit(*e.args[0]);
        os_ << ")";
    }
    void visit_Binary(const Expr& e) override {
        infix(e, (std::string(" ") + binary_text(static_cast<BinaryOp>(e.op)) + " ").c_str());
    }
    void visit_Compare(const Expr& e) override {
        infix(e, (std::string(" ") + compare_text(static_cast<CompareOp>(e.op)) + " ").c_str());
    }
    void visit_Logical(const Expr& e) override { infix(e, static_cast<LogicalOp>(e.op) == LogicalOp::And ? " and " : " or "); }
    void visit_Select(const Expr& e) override {
        os_ << "select(";
        args(e.args);
        os_ << ")";
    }
    void visit_Call(const Expr& e) override {
        os_ << e.builtin->name << "(";
        args(e.args);
        os_ << ")";
    }
    void visit_CallFunc(const Expr& e) override {
        os_ << e.func->name << "(";
        args(e.args);
        os_ << ")";
    }
    void visit_Cast(const Expr& e) override {
        os_ << type_name(e.type) << "(";
        visit(*e.args[0]);
        os_ << ")";
    }
    void visit_Construct(const Expr& e) override {
        os_ << type_name(e.type) << "{";
        args(e.args);
        os_ << "}";
    }
    void visit_Load(const Expr& e) override {
        visit(*e.args[0]);
        os_ << "[";
        args(e.args, 1);
        os_ << "]";
    }
    void visit_Shape(const Expr& e) override {
        visit(*e.args[0]);
        os_ << ".shape[" << e.int_value << "]";
    }
    void visit_Extract(const Expr& e) override {
        visit(*e.args[0]);
        os_ << "{";
        args(e.args, 1);
        os_ << "}";
    }
    void visit_Field(const Expr& e) override {
        visit(*e.args[0]);
        os_ << "." << e.args[0]->type->fields[static_cast<size_t>(e.int_value)].name;
    }
    void visit_TupleGet(const Expr& e) override {
        visit(*e.args[0]);
        os_ << "#" << e.int_value;
    }
    void visit_MakeTuple(const Expr& e) override {
        os_ << "tuple(";
        args(e.args);
        os_ << ")";
    }
    void visit_Atomic(const Expr& e) override {
        size_t nidx = static_cast<size_t>(e.int_value);
        os_ << atomic_name(static_cast<AtomicOp>(e.op)) << "(";
        visit(*e.args[0]);
        os_ << "[";
        args(e.args, 1, 1 + nidx);
        os_ << "], ";
        args(e.args, 1 + nidx);
        os_ << ")";
    }
    void visit_Intrinsic(const Expr& e) override {
        static const char* names[] = {"tid", "tid_dim", "block_dim", "block_idx", "thread_idx", "lane_id", "grid_dim", "print"};
        os_ << names[e.op] << "(";
        if (static_cast<IntrinsicOp>(e.op) == IntrinsicOp::TidDim) os_ << e.int_value;
        if (static_cast<IntrinsicOp>(e.op) == IntrinsicOp::Print) args(e.args);
        os_ << ")";
    }

    // ---- statements (the caller has written the indentation) ----
    void visit_Assign(const Stmt& s) override {
        os_ << s.var->name << "." << s.var->id;
        path(s.path);
        os_ << " = ";
        visit(*s.value);
        os_ << "\n";
    }
    void visit_Store(const Stmt& s) override {
        visit(*s.array);
        os_ << "[";
        args(s.indices);
        os_ << "]";
        path(s.path);
        os_ << " = ";
        visit(*s.value);
        os_ << "\n";
    }
    void visit_Eval(const Stmt& s) override {
        visit(*s.value);
        os_ << "\n";
    }
    void visit_If(const Stmt& s) override {
        os_ << "if ";
        visit(*s.value);
        os_ << ":\n";
        block(s.body, indent_ + 1);
        if (!s.orelse.empty()) {
            os_ << pad() << "else:\n";
            block(s.orelse, indent_ + 1);
        }
    }
    void visit_For(const Stmt& s) override {
        os_ << "for " << s.var->name << "." << s.var->id << " in range(";
        visit(*s.start);
        os_ << ", ";
        visit(*s.stop);
        os_ << ", ";
        visit(*s.step);
        os_ << "):\n";
        block(s.body, indent_ + 1);
    }
    void visit_While(const Stmt& s) override {
        os_ << "while ";
        visit(*s.value);
        os_ << ":\n";
        block(s.body, indent_ + 1);
    }
    void visit_Break(const Stmt&) override { os_ << "break\n"; }
    void visit_Continue(const Stmt&) override { os_ << "continue\n"; }
    void visit_Return(const Stmt& s) override {
        os_ << "return";
        if (s.value) {
            os_ << " ";
            visit(*s.value);
        }
        os_ << "\n";
    }
    void visit_Sync(const Stmt&) override { os_ << "sync_threads()\n"; }

private:
    std::ostream& os_;
    int indent_ = 0;
};

std::string print_function(const Function& f, const Block& body, const std::vector<std::unique_ptr<Var>>* added) {
    std::ostringstream os;
    os << (f.kind == FunctionKind::Kernel ? "kernel " : "func ") << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i)
        os << (i ? ", " : "") << f.params[i]->name << "." << f.params[i]->id << ": " << type_name(f.params[i]->type);
    os << ") -> " << type_name(f.ret);
    if (f.block_dim) os << " block_dim=" << f.block_dim;
    if (f.shared_bytes) os << " shared=" << f.shared_bytes;
    os << ":\n";
    auto declare = [&](const Var& v) {
        if (v.kind != VarKind::Param)
            os << "  var " << v.name << "." << v.id << ": " << type_name(v.type)
               << (v.kind == VarKind::Shared ? " shared@" + std::to_string(v.shared_offset) : "") << "\n";
    };
    for (const auto& v : f.vars) declare(*v);
    if (added)
        for (const auto& v : *added) declare(*v);
    Printer(os).block(body, 1);
    return os.str();
}

}  // namespace

std::string print(const Expr& e) {
    std::ostringstream os;
    Printer(os).visit(e);
    return os.str();
}

std::string print(const Function& f) { return print_function(f, f.body, nullptr); }

std::string print(const Function& f, const Block& body, const std::vector<std::unique_ptr<Var>>& added) {
    return print_function(f, body, &added);
}

std::string print(const Module& m) {
    std::ostringstream os;
    for (Type s : m.structs) {
        os << "struct " << type_name(s) << " {";
        for (size_t i = 0; i < s->fields.size(); ++i)
            os << (i ? ", " : " ") << s->fields[i].name << ": " << type_name(s->fields[i].type);
        os << " }\n";
    }
    for (const auto& f : m.functions) os << print(*f);
    return os.str();
}

// ---- verifier ----
namespace {

class Verifier : public IRVisitor {
public:
    Verifier(const Function& f, const std::vector<std::unique_ptr<Var>>* added) : f_(f) {
        for (const auto& v : f.vars) vars_.insert(v.get());
        if (added)
            for (const auto& v : *added) vars_.insert(v.get());
    }
    std::string run(const Block& body) {
        visit_block(body);
        return error_;
    }

    // Every operand and every value the statements below visit is required.
    void visit_expr(const ExprPtr& e) override {
        if (!e) return fail("null expression");
        if (!e->type) return fail("expression without a type: " + print(*e));
        visit(*e);
    }

protected:
    void fail(const std::string& what) {
        if (error_.empty()) error_ = "in " + f_.name + ": " + what;
    }

    // ---- expressions: operands first, then the node ----
    void visit_VarRef(const Expr& e) override {
        if (!vars_.count(e.var)) fail("reference to a variable of another function: " + e.var->name);
        if (e.type != e.var->type) fail("variable reference with a wrong type: " + e.var->name);
    }
    void two_operands(const Expr& e) {
        visit_args(e);
        if (e.args.size() != 2) fail("binary node without two operands");
    }
    void visit_Binary(const Expr& e) override { two_operands(e); }
    void visit_Compare(const Expr& e) override { two_operands(e); }
    void visit_Logical(const Expr& e) override { two_operands(e); }
    void visit_Call(const Expr& e) override {
        visit_args(e);
        if (!e.builtin)
            fail("call without a builtin");
        else if (e.builtin->params.size() != e.args.size())
            fail("call of " + e.builtin->name + " with wrong arity");
        else
            for (size_t i = 0; i < e.args.size(); ++i)
                if (e.args[i]->type != e.builtin->params[i].type)
                    fail("argument " + std::to_string(i) + " of " + e.builtin->name + " has type " + type_name(e.args[i]->type) +
                         ", expected " + type_name(e.builtin->params[i].type));
    }
    void visit_CallFunc(const Expr& e) override {
        visit_args(e);
        if (!e.func)
            fail("call without a function");
        else if (e.func->params.size() != e.args.size())
            fail("call of " + e.func->name + " with wrong arity");
        else
            for (size_t i = 0; i < e.args.size(); ++i)
                if (e.args[i]->type != e.func->params[i]->type)
                    fail("argument " + std::to_string(i) + " of " + e.func->name + " has a wrong type");
    }
    void visit_Load(const Expr& e) override {
        visit_args(e);
        if (!is_array(e.args[0]->type))
            fail("load from a non-array");
        else if (static_cast<int>(e.args.size()) - 1 != e.args[0]->type->ndim)
            fail("load with wrong index count");
    }
    void visit_Select(const Expr& e) override {
        visit_args(e);
        if (e.args[1]->type != e.args[2]->type) fail("select of two types");
    }

    // ---- statements ----
    void visit_Assign(const Stmt& s) override {
        if (!vars_.count(s.var)) fail("assignment to a foreign variable");
        visit_expr(s.value);
        if (s.path.empty() && s.value && s.value->type != s.var->type)
            fail("assignment of " + type_name(s.value->type) + " to " + s.var->name + ": " + type_name(s.var->type));
        if (!s.path.empty() && s.value && s.value->type != s.path.back().type)
            fail("component assignment with a wrong type to " + s.var->name);
    }
    void visit_Store(const Stmt& s) override {
        visit_expr(s.array);
        for (auto& i : s.indices) visit_expr(i);
        visit_expr(s.value);
    }
    void visit_Eval(const Stmt& s) override { visit_expr(s.value); }
    void visit_If(const Stmt& s) override {
        visit_expr(s.value);
        visit_block(s.body);
        visit_block(s.orelse);
    }
    void visit_For(const Stmt& s) override {
        visit_expr(s.start);
        visit_expr(s.stop);
        visit_expr(s.step);
        ++loop_depth_;
        visit_block(s.body);
        --loop_depth_;
    }
    void visit_While(const Stmt& s) override {
        visit_expr(s.value);
        ++loop_depth_;
        visit_block(s.body);
        --loop_depth_;
    }
    void visit_Break(const Stmt&) override {
        if (loop_depth_ == 0) fail("break/continue outside a loop");
    }
    void visit_Continue(const Stmt&) override {
        if (loop_depth_ == 0) fail("break/continue outside a loop");
    }
    void visit_Return(const Stmt& s) override {
        if (s.value) {
            visit_expr(s.value);
            if (s.value->type != f_.ret) fail("return of a wrong type");
        } else if (f_.ret->kind != TypeKind::Void) {
            fail("return without a value");
        }
    }
    void visit_Sync(const Stmt&) override {}

private:
    const Function& f_;
    std::set<const Var*> vars_;
    std::string error_;
    int loop_depth_ = 0;
};

}  // namespace

std::string verify(const Function& f) { return Verifier(f, nullptr).run(f.body); }

std::string verify(const Function& f, const Block& body, const std::vector<std::unique_ptr<Var>>& added) {
    return Verifier(f, &added).run(body);
}

}  // namespace weft::compiler::ir
