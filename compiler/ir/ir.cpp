// IR construction helpers, the printer (`weft compile --emit ir`, WEFT_DUMP_IR) and the verifier.
#include "compiler/ir/ir.h"

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
ExprPtr make_atomic(AtomicOp op, ExprPtr array, std::vector<ExprPtr> indices, std::vector<ExprPtr> values,
                    SourceLoc loc) {
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
bool any_in(const ExprPtr& e, const std::function<bool(const Expr&)>& pred) {
    if (!e) return false;
    if (pred(*e)) return true;
    for (const auto& a : e->args)
        if (any_in(a, pred)) return true;
    return false;
}
}  // namespace

bool any_expr(const Block& block, const std::function<bool(const Expr&)>& pred) {
    for (const auto& st : block) {
        if (any_in(st->value, pred) || any_in(st->array, pred) || any_in(st->start, pred) || any_in(st->stop, pred) ||
            any_in(st->step, pred))
            return true;
        for (const auto& i : st->indices)
            if (any_in(i, pred)) return true;
        for (const auto& p : st->path)
            for (const auto& i : p.indices)
                if (any_in(i, pred)) return true;
        if (any_expr(st->body, pred) || any_expr(st->orelse, pred)) return true;
    }
    return false;
}

// ---- printer ----
namespace {

void print_expr(std::ostream& os, const Expr& e);

void print_args(std::ostream& os, const std::vector<ExprPtr>& args, size_t from = 0, size_t to = SIZE_MAX) {
    for (size_t i = from; i < args.size() && i < to; ++i) {
        if (i > from) os << ", ";
        print_expr(os, *args[i]);
    }
}

void print_expr(std::ostream& os, const Expr& e) {
    switch (e.kind) {
        case ExprKind::Const:
            if (is_float(e.type)) {
                std::ostringstream s;
                s.precision(17);
                s << e.float_value;
                os << s.str() << ":" << type_name(e.type);
            } else if (e.type->scalar == ScalarKind::Bool) {
                os << (e.int_value ? "True" : "False");
            } else {
                os << e.int_value << ":" << type_name(e.type);
            }
            break;
        case ExprKind::VarRef: os << e.var->name << "." << e.var->id; break;
        case ExprKind::Unary: os << "(" << unary_text(static_cast<UnaryOp>(e.op)); print_expr(os, *e.args[0]); os << ")"; break;
        case ExprKind::Binary:
            os << "(";
            print_expr(os, *e.args[0]);
            os << " " << binary_text(static_cast<BinaryOp>(e.op)) << " ";
            print_expr(os, *e.args[1]);
            os << ")";
            break;
        case ExprKind::Compare:
            os << "(";
            print_expr(os, *e.args[0]);
            os << " " << compare_text(static_cast<CompareOp>(e.op)) << " ";
            print_expr(os, *e.args[1]);
            os << ")";
            break;
        case ExprKind::Logical:
            os << "(";
            print_expr(os, *e.args[0]);
            os << (static_cast<LogicalOp>(e.op) == LogicalOp::And ? " and " : " or ");
            print_expr(os, *e.args[1]);
            os << ")";
            break;
        case ExprKind::Select:
            os << "select(";
            print_args(os, e.args);
            os << ")";
            break;
        case ExprKind::Call: os << e.builtin->name << "("; print_args(os, e.args); os << ")"; break;
        case ExprKind::CallFunc: os << e.func->name << "("; print_args(os, e.args); os << ")"; break;
        case ExprKind::Cast: os << type_name(e.type) << "("; print_expr(os, *e.args[0]); os << ")"; break;
        case ExprKind::Construct: os << type_name(e.type) << "{"; print_args(os, e.args); os << "}"; break;
        case ExprKind::Load:
            print_expr(os, *e.args[0]);
            os << "[";
            print_args(os, e.args, 1);
            os << "]";
            break;
        case ExprKind::Shape: print_expr(os, *e.args[0]); os << ".shape[" << e.int_value << "]"; break;
        case ExprKind::Extract:
            print_expr(os, *e.args[0]);
            os << "{";
            print_args(os, e.args, 1);
            os << "}";
            break;
        case ExprKind::Field:
            print_expr(os, *e.args[0]);
            os << "." << e.args[0]->type->fields[static_cast<size_t>(e.int_value)].name;
            break;
        case ExprKind::TupleGet: print_expr(os, *e.args[0]); os << "#" << e.int_value; break;
        case ExprKind::MakeTuple: os << "tuple("; print_args(os, e.args); os << ")"; break;
        case ExprKind::Atomic: {
            size_t nidx = static_cast<size_t>(e.int_value);
            os << atomic_name(static_cast<AtomicOp>(e.op)) << "(";
            print_expr(os, *e.args[0]);
            os << "[";
            print_args(os, e.args, 1, 1 + nidx);
            os << "], ";
            print_args(os, e.args, 1 + nidx);
            os << ")";
            break;
        }
        case ExprKind::Intrinsic: {
            static const char* names[] = {"tid", "tid_dim", "block_dim", "block_idx", "thread_idx", "lane_id",
                                          "grid_dim", "print"};
            os << names[e.op] << "(";
            if (static_cast<IntrinsicOp>(e.op) == IntrinsicOp::TidDim) os << e.int_value;
            if (static_cast<IntrinsicOp>(e.op) == IntrinsicOp::Print) print_args(os, e.args);
            os << ")";
            break;
        }
    }
}

void print_path(std::ostream& os, const std::vector<PathStep>& path) {
    for (const auto& p : path) {
        if (p.kind == PathStep::Field) {
            os << ".f" << p.field;
        } else {
            os << "{";
            print_args(os, p.indices);
            os << "}";
        }
    }
}

void print_block(std::ostream& os, const Block& b, int indent);

void print_stmt(std::ostream& os, const Stmt& s, int indent) {
    std::string pad(static_cast<size_t>(indent) * 2, ' ');
    os << pad;
    switch (s.kind) {
        case StmtKind::Assign:
            os << s.var->name << "." << s.var->id;
            print_path(os, s.path);
            os << " = ";
            print_expr(os, *s.value);
            break;
        case StmtKind::Store:
            print_expr(os, *s.array);
            os << "[";
            print_args(os, s.indices);
            os << "]";
            print_path(os, s.path);
            os << " = ";
            print_expr(os, *s.value);
            break;
        case StmtKind::Eval: print_expr(os, *s.value); break;
        case StmtKind::If:
            os << "if ";
            print_expr(os, *s.value);
            os << ":\n";
            print_block(os, s.body, indent + 1);
            if (!s.orelse.empty()) {
                os << pad << "else:\n";
                print_block(os, s.orelse, indent + 1);
            }
            return;
        case StmtKind::For:
            os << "for " << s.var->name << "." << s.var->id << " in range(";
            print_expr(os, *s.start);
            os << ", ";
            print_expr(os, *s.stop);
            os << ", ";
            print_expr(os, *s.step);
            os << "):\n";
            print_block(os, s.body, indent + 1);
            return;
        case StmtKind::While:
            os << "while ";
            print_expr(os, *s.value);
            os << ":\n";
            print_block(os, s.body, indent + 1);
            return;
        case StmtKind::Break: os << "break"; break;
        case StmtKind::Continue: os << "continue"; break;
        case StmtKind::Return:
            os << "return";
            if (s.value) {
                os << " ";
                print_expr(os, *s.value);
            }
            break;
        case StmtKind::Sync: os << "sync_threads()"; break;
    }
    os << "\n";
}

void print_block(std::ostream& os, const Block& b, int indent) {
    if (b.empty()) os << std::string(static_cast<size_t>(indent) * 2, ' ') << "pass\n";
    for (const auto& s : b) print_stmt(os, *s, indent);
}

}  // namespace

std::string print(const Expr& e) {
    std::ostringstream os;
    print_expr(os, e);
    return os.str();
}

std::string print(const Function& f) {
    std::ostringstream os;
    os << (f.kind == FunctionKind::Kernel ? "kernel " : "func ") << f.name << "(";
    for (size_t i = 0; i < f.params.size(); ++i)
        os << (i ? ", " : "") << f.params[i]->name << "." << f.params[i]->id << ": " << type_name(f.params[i]->type);
    os << ") -> " << type_name(f.ret);
    if (f.block_dim) os << " block_dim=" << f.block_dim;
    if (f.shared_bytes) os << " shared=" << f.shared_bytes;
    os << ":\n";
    for (const auto& v : f.vars)
        if (v->kind != VarKind::Param)
            os << "  var " << v->name << "." << v->id << ": " << type_name(v->type)
               << (v->kind == VarKind::Shared ? " shared@" + std::to_string(v->shared_offset) : "") << "\n";
    print_block(os, f.body, 1);
    return os.str();
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

class Verifier {
public:
    explicit Verifier(const Function& f) : f_(f) {
        for (const auto& v : f.vars) vars_.insert(v.get());
    }
    std::string run() {
        block(f_.body, 0);
        return error_;
    }

private:
    void fail(const std::string& what) {
        if (error_.empty()) error_ = "in " + f_.name + ": " + what;
    }
    void expr(const ExprPtr& e) {
        if (!e) return fail("null expression");
        if (!e->type) return fail("expression without a type: " + print(*e));
        for (const auto& a : e->args) expr(a);
        switch (e->kind) {
            case ExprKind::VarRef:
                if (!vars_.count(e->var)) fail("reference to a variable of another function: " + e->var->name);
                if (e->type != e->var->type) fail("variable reference with a wrong type: " + e->var->name);
                break;
            case ExprKind::Binary:
            case ExprKind::Compare:
            case ExprKind::Logical:
                if (e->args.size() != 2) fail("binary node without two operands");
                break;
            case ExprKind::Call:
                if (!e->builtin) fail("call without a builtin");
                else if (e->builtin->params.size() != e->args.size()) fail("call of " + e->builtin->name + " with wrong arity");
                else
                    for (size_t i = 0; i < e->args.size(); ++i)
                        if (e->args[i]->type != e->builtin->params[i].type)
                            fail("argument " + std::to_string(i) + " of " + e->builtin->name + " has type " +
                                 type_name(e->args[i]->type) + ", expected " + type_name(e->builtin->params[i].type));
                break;
            case ExprKind::CallFunc:
                if (!e->func) fail("call without a function");
                else if (e->func->params.size() != e->args.size()) fail("call of " + e->func->name + " with wrong arity");
                else
                    for (size_t i = 0; i < e->args.size(); ++i)
                        if (e->args[i]->type != e->func->params[i]->type)
                            fail("argument " + std::to_string(i) + " of " + e->func->name + " has a wrong type");
                break;
            case ExprKind::Load:
                if (!is_array(e->args[0]->type)) fail("load from a non-array");
                else if (static_cast<int>(e->args.size()) - 1 != e->args[0]->type->ndim) fail("load with wrong index count");
                break;
            case ExprKind::Select:
                if (e->args[1]->type != e->args[2]->type) fail("select of two types");
                break;
            default: break;
        }
    }
    void block(const Block& b, int loop_depth) {
        for (const auto& s : b) stmt(*s, loop_depth);
    }
    void stmt(const Stmt& s, int loop_depth) {
        switch (s.kind) {
            case StmtKind::Assign:
                if (!vars_.count(s.var)) fail("assignment to a foreign variable");
                expr(s.value);
                if (s.path.empty() && s.value && s.value->type != s.var->type)
                    fail("assignment of " + type_name(s.value->type) + " to " + s.var->name + ": " +
                         type_name(s.var->type));
                if (!s.path.empty() && s.value && s.value->type != s.path.back().type)
                    fail("component assignment with a wrong type to " + s.var->name);
                break;
            case StmtKind::Store:
                expr(s.array);
                for (auto& i : s.indices) expr(i);
                expr(s.value);
                break;
            case StmtKind::Eval: expr(s.value); break;
            case StmtKind::If:
                expr(s.value);
                block(s.body, loop_depth);
                block(s.orelse, loop_depth);
                break;
            case StmtKind::For:
                expr(s.start);
                expr(s.stop);
                expr(s.step);
                block(s.body, loop_depth + 1);
                break;
            case StmtKind::While:
                expr(s.value);
                block(s.body, loop_depth + 1);
                break;
            case StmtKind::Break:
            case StmtKind::Continue:
                if (loop_depth == 0) fail("break/continue outside a loop");
                break;
            case StmtKind::Return:
                if (s.value) {
                    expr(s.value);
                    if (s.value->type != f_.ret) fail("return of a wrong type");
                } else if (f_.ret->kind != TypeKind::Void) {
                    fail("return without a value");
                }
                break;
            case StmtKind::Sync: break;
        }
    }

    const Function& f_;
    std::set<const Var*> vars_;
    std::string error_;
};

}  // namespace

std::string verify(const Function& f) { return Verifier(f).run(); }

}  // namespace weft::compiler::ir
