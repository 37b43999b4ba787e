// Printing of the syntax tree (`weft compile --emit ast`) and operator spellings.
#include "compiler/ast/ast.h"

#include <sstream>

namespace weft::compiler::ast {

const char* binop_text(BinOp op) {
    switch (op) {
        case BinOp::Add: return "+";
        case BinOp::Sub: return "-";
        case BinOp::Mul: return "*";
        case BinOp::Div: return "/";
        case BinOp::FloorDiv: return "//";
        case BinOp::Mod: return "%";
        case BinOp::Pow: return "**";
        case BinOp::MatMul: return "@";
        case BinOp::BitAnd: return "&";
        case BinOp::BitOr: return "|";
        case BinOp::BitXor: return "^";
        case BinOp::LShift: return "<<";
        case BinOp::RShift: return ">>";
    }
    return "?";
}

const char* unaryop_text(UnaryOp op) {
    switch (op) {
        case UnaryOp::Neg: return "-";
        case UnaryOp::Pos: return "+";
        case UnaryOp::Not: return "not";
        case UnaryOp::Invert: return "~";
    }
    return "?";
}

const char* cmpop_text(CmpOp op) {
    switch (op) {
        case CmpOp::Lt: return "<";
        case CmpOp::Le: return "<=";
        case CmpOp::Gt: return ">";
        case CmpOp::Ge: return ">=";
        case CmpOp::Eq: return "==";
        case CmpOp::Ne: return "!=";
    }
    return "?";
}

namespace {

void dump_expr(std::ostream& os, const Expr* e) {
    if (!e) {
        os << "<null>";
        return;
    }
    switch (e->kind) {
        case ExprKind::Name: os << e->id; break;
        case ExprKind::Int: os << e->int_value; break;
        case ExprKind::Float: os << e->id; break;
        case ExprKind::Bool: os << (e->bool_value ? "True" : "False"); break;
        case ExprKind::None: os << "None"; break;
        case ExprKind::String: os << '"' << e->id << '"'; break;
        case ExprKind::Attribute:
            dump_expr(os, e->value.get());
            os << "." << e->id;
            break;
        case ExprKind::Subscript:
            dump_expr(os, e->value.get());
            os << "[";
            for (size_t i = 0; i < e->args.size(); ++i) {
                if (i) os << ", ";
                dump_expr(os, e->args[i].get());
            }
            os << "]";
            break;
        case ExprKind::Call:
            dump_expr(os, e->value.get());
            os << "(";
            for (size_t i = 0; i < e->args.size(); ++i) {
                if (i) os << ", ";
                dump_expr(os, e->args[i].get());
            }
            for (size_t i = 0; i < e->keywords.size(); ++i) {
                if (i || !e->args.empty()) os << ", ";
                os << e->keywords[i].name << "=";
                dump_expr(os, e->keywords[i].value.get());
            }
            os << ")";
            break;
        case ExprKind::BinOp:
            os << "(";
            dump_expr(os, e->args[0].get());
            os << " " << binop_text(e->binop) << " ";
            dump_expr(os, e->args[1].get());
            os << ")";
            break;
        case ExprKind::UnaryOp:
            os << "(" << unaryop_text(e->unop) << (e->unop == UnaryOp::Not ? " " : "");
            dump_expr(os, e->value.get());
            os << ")";
            break;
        case ExprKind::BoolOp:
            os << "(";
            dump_expr(os, e->args[0].get());
            os << (e->boolop == BoolOpKind::And ? " and " : " or ");
            dump_expr(os, e->args[1].get());
            os << ")";
            break;
        case ExprKind::Compare:
            os << "(";
            dump_expr(os, e->args[0].get());
            for (size_t i = 0; i < e->cmpops.size(); ++i) {
                os << " " << cmpop_text(e->cmpops[i]) << " ";
                dump_expr(os, e->args[i + 1].get());
            }
            os << ")";
            break;
        case ExprKind::IfExp:
            os << "(";
            dump_expr(os, e->args[0].get());
            os << " if ";
            dump_expr(os, e->value.get());
            os << " else ";
            dump_expr(os, e->args[1].get());
            os << ")";
            break;
        case ExprKind::Tuple:
        case ExprKind::List:
            os << (e->kind == ExprKind::Tuple ? "(" : "[");
            for (size_t i = 0; i < e->args.size(); ++i) {
                if (i) os << ", ";
                dump_expr(os, e->args[i].get());
            }
            os << (e->kind == ExprKind::Tuple ? ")" : "]");
            break;
    }
}

void dump_body(std::ostream& os, const Body& body, int indent);

void dump_stmt(std::ostream& os, const Stmt& s, int indent) {
    std::string pad(static_cast<size_t>(indent) * 4, ' ');
    os << pad;
    switch (s.kind) {
        case StmtKind::Assign:
            dump_expr(os, s.target.get());
            os << " = ";
            dump_expr(os, s.value.get());
            break;
        case StmtKind::AugAssign:
            dump_expr(os, s.target.get());
            os << " " << binop_text(s.op) << "= ";
            dump_expr(os, s.value.get());
            break;
        case StmtKind::AnnAssign:
            dump_expr(os, s.target.get());
            os << ": ";
            dump_expr(os, s.annotation.get());
            if (s.value) {
                os << " = ";
                dump_expr(os, s.value.get());
            }
            break;
        case StmtKind::If:
            os << "if ";
            dump_expr(os, s.value.get());
            os << ":\n";
            dump_body(os, s.body, indent + 1);
            if (!s.orelse.empty()) {
                os << pad << "else:\n";
                dump_body(os, s.orelse, indent + 1);
            }
            return;
        case StmtKind::For:
            os << "for ";
            dump_expr(os, s.target.get());
            os << " in ";
            dump_expr(os, s.value.get());
            os << ":\n";
            dump_body(os, s.body, indent + 1);
            return;
        case StmtKind::While:
            os << "while ";
            dump_expr(os, s.value.get());
            os << ":\n";
            dump_body(os, s.body, indent + 1);
            return;
        case StmtKind::Break: os << "break"; break;
        case StmtKind::Continue: os << "continue"; break;
        case StmtKind::Return:
            os << "return";
            if (s.value) {
                os << " ";
                dump_expr(os, s.value.get());
            }
            break;
        case StmtKind::Pass: os << "pass"; break;
        case StmtKind::ExprStmt: dump_expr(os, s.value.get()); break;
    }
    os << "\n";
}

void dump_body(std::ostream& os, const Body& body, int indent) {
    for (const auto& s : body) dump_stmt(os, *s, indent);
}

}  // namespace

std::string dump(const Module& m) {
    std::ostringstream os;
    for (const auto& i : m.imports) os << "import " << i.module << " as " << i.alias << "\n";
    for (const auto& c : m.constants) {
        os << "constant " << c.name << " = ";
        dump_expr(os, c.value.get());
        os << "\n";
    }
    for (const auto& s : m.structs) {
        os << "struct " << s.name << ":\n";
        for (const auto& f : s.fields) {
            os << "    " << f.name << ": ";
            dump_expr(os, f.annotation.get());
            os << "\n";
        }
    }
    for (const auto& f : m.functions) {
        os << (f.kind == DefKind::Kernel ? "kernel " : f.kind == DefKind::Func ? "func " : "func_grad ") << f.name << "(";
        for (size_t i = 0; i < f.params.size(); ++i) {
            if (i) os << ", ";
            os << f.params[i].name << ": ";
            dump_expr(os, f.params[i].annotation.get());
        }
        os << ")";
        if (f.returns) {
            os << " -> ";
            dump_expr(os, f.returns.get());
        }
        os << ":\n";
        dump_body(os, f.body, 1);
    }
    return os.str();
}

}  // namespace weft::compiler::ast
