// Recursive-descent parser for kernel modules: expressions (parser_internal.h declares the
// parser; parser.cpp has the module level and statements). See parser.h.
#include "compiler/frontend/parser_internal.h"

namespace weft::compiler::parse_detail {

// ---- expressions ----

ExprPtr Parser::expr_list() {
    SourceLoc loc = cur().loc;
    ExprPtr first = expr();
    if (!at_op(",")) return first;
    auto t = std::make_unique<Expr>(ExprKind::Tuple, loc);
    t->args.push_back(std::move(first));
    while (accept_op(",")) {
        if (at(Tok::Newline) || at_op("=") || at_op(")") || at(Tok::End)) break;
        t->args.push_back(expr());
    }
    return t;
}

// The height of `e`, from its children's (memoised). Trees are measured as they grow (every
// step of a chain, every expr()), so this descends only through the few levels built since.
int Parser::height_of(Expr& e) {
    if (e.height) return e.height;
    int h = 0;
    if (e.value) h = std::max(h, height_of(*e.value));
    for (auto& a : e.args) h = std::max(h, height_of(*a));
    for (auto& k : e.keywords)
        if (k.value) h = std::max(h, height_of(*k.value));
    return e.height = h + 1;
}

ExprPtr Parser::measured(ExprPtr e, SourceLoc where) {
    if (height_of(*e) > kMaxExprHeight) {
        diags_.report(DiagId::err_expr_too_deep, where, {std::to_string(kMaxExprHeight)});
        throw ParseAbort{};
    }
    return e;
}

ExprPtr Parser::expr() {
    DepthGuard guard(*this);
    if (at_name("lambda")) unsupported("lambda expressions", cur().loc);
    if (at_name("yield")) unsupported("'yield'", cur().loc);
    ExprPtr body = or_expr();
    if (at_name("if")) {
        SourceLoc loc = cur().loc;
        ++pos_;
        auto e = std::make_unique<Expr>(ExprKind::IfExp, body->loc);
        e->value = or_expr();
        if (!accept_name("else")) fail_expected("'else' in conditional expression");
        e->args.push_back(std::move(body));
        e->args.push_back(expr());
        (void)loc;
        return measured(std::move(e), loc);
    }
    return measured(std::move(body), cur().loc);
}

ExprPtr Parser::or_expr() {
    ExprPtr left = and_expr();
    while (at_name("or")) {
        ++pos_;
        auto e = std::make_unique<Expr>(ExprKind::BoolOp, left->loc);
        e->boolop = BoolOpKind::Or;
        e->args.push_back(std::move(left));
        e->args.push_back(and_expr());
        SourceLoc where = e->args.back()->loc;
        left = measured(std::move(e), where);
    }
    return left;
}

ExprPtr Parser::and_expr() {
    ExprPtr left = not_expr();
    while (at_name("and")) {
        ++pos_;
        auto e = std::make_unique<Expr>(ExprKind::BoolOp, left->loc);
        e->boolop = BoolOpKind::And;
        e->args.push_back(std::move(left));
        e->args.push_back(not_expr());
        SourceLoc where = e->args.back()->loc;
        left = measured(std::move(e), where);
    }
    return left;
}

ExprPtr Parser::not_expr() {
    if (at_name("not")) {
        SourceLoc loc = cur().loc;
        ++pos_;
        auto e = std::make_unique<Expr>(ExprKind::UnaryOp, loc);
        e->unop = UnaryOp::Not;
        e->value = not_expr();
        return e;
    }
    return comparison();
}

ExprPtr Parser::comparison() {
    ExprPtr left = bitor_expr();
    std::unique_ptr<Expr> cmp;
    while (true) {
        CmpOp op;
        if (at_op("<"))
            op = CmpOp::Lt;
        else if (at_op("<="))
            op = CmpOp::Le;
        else if (at_op(">"))
            op = CmpOp::Gt;
        else if (at_op(">="))
            op = CmpOp::Ge;
        else if (at_op("=="))
            op = CmpOp::Eq;
        else if (at_op("!="))
            op = CmpOp::Ne;
        else if (at_name("in") || (at_name("not") && peek().text == "in"))
            unsupported("'in' tests", cur().loc);
        else if (at_name("is"))
            unsupported("'is' tests", cur().loc);
        else
            break;
        ++pos_;
        if (!cmp) {
            cmp = std::make_unique<Expr>(ExprKind::Compare, left->loc);
            cmp->args.push_back(std::move(left));
        }
        cmp->cmpops.push_back(op);
        cmp->args.push_back(bitor_expr());
    }
    if (!cmp) return left;
    // sema lowers `a < b < c ...` to a chain of `and`s, one level per comparison
    int h = 0;
    for (auto& a : cmp->args) h = std::max(h, height_of(*a));
    cmp->height = h + static_cast<int>(cmp->cmpops.size());
    SourceLoc where = cmp->args.back()->loc;
    return measured(std::move(cmp), where);
}

ExprPtr Parser::binary(ExprPtr left, BinOp op, ExprPtr right) {
    auto e = std::make_unique<Expr>(ExprKind::BinOp, left->loc);
    e->binop = op;
    SourceLoc where = right->loc;
    e->args.push_back(std::move(left));
    e->args.push_back(std::move(right));
    return measured(std::move(e), where);
}

ExprPtr Parser::bitor_expr() {
    ExprPtr l = bitxor_expr();
    while (at_op("|")) {
        SourceLoc oploc = cur().loc;
        ++pos_;
        l = binary(std::move(l), BinOp::BitOr, bitxor_expr());
        (void)oploc;
    }
    return l;
}

ExprPtr Parser::bitxor_expr() {
    ExprPtr l = bitand_expr();
    while (accept_op("^")) l = binary(std::move(l), BinOp::BitXor, bitand_expr());
    return l;
}

ExprPtr Parser::bitand_expr() {
    ExprPtr l = shift_expr();
    while (accept_op("&")) l = binary(std::move(l), BinOp::BitAnd, shift_expr());
    return l;
}

ExprPtr Parser::shift_expr() {
    ExprPtr l = arith_expr();
    while (true) {
        if (accept_op("<<"))
            l = binary(std::move(l), BinOp::LShift, arith_expr());
        else if (accept_op(">>"))
            l = binary(std::move(l), BinOp::RShift, arith_expr());
        else
            return l;
    }
}

ExprPtr Parser::arith_expr() {
    ExprPtr l = term();
    while (true) {
        if (accept_op("+"))
            l = binary(std::move(l), BinOp::Add, term());
        else if (accept_op("-"))
            l = binary(std::move(l), BinOp::Sub, term());
        else
            return l;
    }
}

ExprPtr Parser::term() {
    ExprPtr l = factor();
    while (true) {
        if (accept_op("*"))
            l = binary(std::move(l), BinOp::Mul, factor());
        else if (accept_op("/"))
            l = binary(std::move(l), BinOp::Div, factor());
        else if (accept_op("//"))
            l = binary(std::move(l), BinOp::FloorDiv, factor());
        else if (accept_op("%"))
            l = binary(std::move(l), BinOp::Mod, factor());
        else if (accept_op("@"))
            l = binary(std::move(l), BinOp::MatMul, factor());
        else
            return l;
    }
}

ExprPtr Parser::factor() {
    DepthGuard guard(*this);
    SourceLoc loc = cur().loc;
    UnaryOp op;
    if (at_op("-"))
        op = UnaryOp::Neg;
    else if (at_op("+"))
        op = UnaryOp::Pos;
    else if (at_op("~"))
        op = UnaryOp::Invert;
    else
        return power();
    ++pos_;
    auto e = std::make_unique<Expr>(ExprKind::UnaryOp, loc);
    e->unop = op;
    e->value = factor();
    return e;
}

ExprPtr Parser::power() {
    ExprPtr base = primary();
    if (accept_op("**")) return binary(std::move(base), BinOp::Pow, factor());
    return base;
}

ExprPtr Parser::primary() {
    ExprPtr e = atom();
    while (true) {
        if (at_op("(")) {
            SourceLoc loc = e->loc;
            ++pos_;
            auto call = std::make_unique<Expr>(ExprKind::Call, loc);
            call->value = std::move(e);
            while (!at_op(")")) {
                if (at_op("*") || at_op("**")) unsupported("argument unpacking", cur().loc);
                if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=") {
                    Token k = toks_[pos_];
                    pos_ += 2;
                    call->keywords.push_back({k.text, k.loc, expr()});
                } else {
                    if (!call->keywords.empty()) fail_expected("a keyword argument (positional after keyword)");
                    call->args.push_back(expr());
                    if (at_name("for")) unsupported("generator expressions", cur().loc);
                }
                if (!accept_op(",")) break;
            }
            expect_op(")");
            e = measured(std::move(call), loc);
        } else if (at_op("[")) {
            SourceLoc loc = e->loc;
            ++pos_;
            auto sub = std::make_unique<Expr>(ExprKind::Subscript, loc);
            sub->value = std::move(e);
            while (!at_op("]")) {
                if (at_op(":")) unsupported("slices", cur().loc);
                sub->args.push_back(expr());
                if (at_op(":")) unsupported("slices", cur().loc);
                if (!accept_op(",")) break;
            }
            if (sub->args.empty()) fail_expected("an index");
            expect_op("]");
            // a[(i, j)] is a[i, j]
            if (sub->args.size() == 1 && sub->args[0]->kind == ExprKind::Tuple) {
                auto items = std::move(sub->args[0]->args);
                sub->args = std::move(items);
            }
            e = measured(std::move(sub), loc);
        } else if (at_op(".")) {
            ++pos_;
            Token a = expect_name("an attribute name");
            auto at = std::make_unique<Expr>(ExprKind::Attribute, e->loc);
            at->loc.len = a.loc.line == e->loc.line ? a.loc.col + a.loc.len - e->loc.col : e->loc.len;
            at->value = std::move(e);
            at->id = a.text;
            e = measured(std::move(at), a.loc);
        } else {
            return e;
        }
    }
}

ExprPtr Parser::atom() {
    const Token& t = cur();
    SourceLoc loc = t.loc;
    switch (t.kind) {
        case Tok::Int: {
            auto e = std::make_unique<Expr>(ExprKind::Int, loc);
            e->int_value = t.int_value;
            e->id = t.text;
            ++pos_;
            return e;
        }
        case Tok::Float: {
            auto e = std::make_unique<Expr>(ExprKind::Float, loc);
            e->float_value = t.float_value;
            e->id = t.text;
            ++pos_;
            return e;
        }
        case Tok::String: {
            auto e = std::make_unique<Expr>(ExprKind::String, loc);
            while (at(Tok::String)) e->id += toks_[pos_++].text;
            return e;
        }
        case Tok::Name: {
            if (t.text == "True" || t.text == "False") {
                auto e = std::make_unique<Expr>(ExprKind::Bool, loc);
                e->bool_value = t.text == "True";
                ++pos_;
                return e;
            }
            if (t.text == "None") {
                ++pos_;
                return std::make_unique<Expr>(ExprKind::None, loc);
            }
            if (t.text == "lambda") unsupported("lambda expressions", loc);
            if (is_keyword(t.text)) fail_expected("an expression");
            auto e = std::make_unique<Expr>(ExprKind::Name, loc);
            e->id = t.text;
            ++pos_;
            return e;
        }
        case Tok::Op: {
            if (t.text == "(") {
                ++pos_;
                if (accept_op(")")) return std::make_unique<Expr>(ExprKind::Tuple, loc);
                ExprPtr first = expr();
                if (at_name("for")) unsupported("generator expressions", cur().loc);
                if (accept_op(")")) return first;
                auto tup = std::make_unique<Expr>(ExprKind::Tuple, loc);
                tup->args.push_back(std::move(first));
                while (accept_op(",")) {
                    if (at_op(")")) break;
                    tup->args.push_back(expr());
                }
                expect_op(")");
                return tup;
            }
            if (t.text == "[") {
                ++pos_;
                auto list = std::make_unique<Expr>(ExprKind::List, loc);
                while (!at_op("]")) {
                    list->args.push_back(expr());
                    if (at_name("for")) unsupported("list comprehensions", cur().loc);
                    if (!accept_op(",")) break;
                }
                expect_op("]");
                return list;
            }
            if (t.text == "{") unsupported("dict and set displays", loc);
            break;
        }
        default: break;
    }
    fail_expected("an expression");
}

}  // namespace weft::compiler::parse_detail
