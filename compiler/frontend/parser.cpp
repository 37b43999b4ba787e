// Recursive-descent parser for kernel modules, module level and statements (parser_internal.h
// declares the parser; parser_expr.cpp has the expressions). See parser.h.
#include "compiler/frontend/parser.h"

#include "compiler/frontend/parser_internal.h"
#include "support/closest_name.h"

namespace weft::compiler {
namespace parse_detail {

// ---- module level ----

void Parser::top_level() {
    if (at_name("import")) return import_stmt();
    if (at_name("from")) return from_import_stmt();
    if (at_op("@")) return decorated();
    if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_constant_call(pos_ + 2)) { return constant_def(); }
    if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_literal_number(pos_ + 2)) {
        return literal_constant_def();
    }
    if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_type_alias_rhs(pos_ + 2)) { return type_alias_def(); }
    if (at(Tok::Name) && peek().kind == Tok::Op && peek().text.size() >= 1 && peek().text.back() == '=' && peek().text != "==" &&
        peek().text != "<=" && peek().text != ">=" && peek().text != "!=") {
        forget_literal_constant(cur().text);  // NAME = <anything else>, NAME += ...: its value is not known here
    }
    skip_statement();
}

// `-`? number, or True/False, then the end of the line.
bool Parser::is_literal_number(size_t p) const {
    auto tok = [&](size_t i) -> const Token& { return toks_[std::min(i, toks_.size() - 1)]; };
    if (tok(p).kind == Tok::Op && tok(p).text == "-") ++p;
    bool lit = tok(p).kind == Tok::Int || tok(p).kind == Tok::Float ||
               (tok(p).kind == Tok::Name && (tok(p).text == "True" || tok(p).text == "False") && tok(p - 1).text != "-");
    return lit && (tok(p + 1).kind == Tok::Newline || tok(p + 1).kind == Tok::End);
}

// A module-level `COEF = 3.0`: kernels use its value, as Warp captures module globals by value
// (the Python package does the same for the kernels it compiles). The last literal assignment
// of a name wins; any other assignment of it removes it.
void Parser::literal_constant_def() {
    Token name = toks_[pos_];
    pos_ += 2;  // NAME =
    ExprPtr v = expr();
    expect_newline();
    forget_literal_constant(name.text);
    literal_constants_.insert(name.text);
    mod_.constants.push_back({name.text, name.loc, std::move(v)});
}

// `wp.NAME` or `wp.types.NAME`, optionally called with balanced parentheses, then the end of
// the line: the shape of a type alias (sema decides whether NAME is a type).
bool Parser::is_type_alias_rhs(size_t p) const {
    auto tok = [&](size_t i) -> const Token& { return toks_[std::min(i, toks_.size() - 1)]; };
    if (tok(p).kind != Tok::Name || !is_weft_alias(tok(p).text) || tok(p + 1).text != "." || tok(p + 2).kind != Tok::Name)
        return false;
    p += 3;
    if (tok(p - 1).text == "types" && tok(p).text == "." && tok(p + 1).kind == Tok::Name) p += 2;
    if (tok(p).kind == Tok::Op && tok(p).text == "(") {
        // only the type constructors are parsed: other calls are host code the parser may not take
        static const std::set<std::string> ctors = {"vec", "mat", "vector", "matrix"};
        if (!ctors.count(tok(p - 1).text)) return false;
        int depth = 0;
        for (; p < toks_.size(); ++p) {
            if (tok(p).kind == Tok::Newline || tok(p).kind == Tok::End) return false;
            if (tok(p).kind == Tok::Op && (tok(p).text == "(" || tok(p).text == "[")) ++depth;
            if (tok(p).kind == Tok::Op && (tok(p).text == ")" || tok(p).text == "]") && --depth == 0) break;
        }
        ++p;
    }
    return tok(p).kind == Tok::Newline || tok(p).kind == Tok::End;
}

void Parser::type_alias_def() {
    Token name = toks_[pos_];
    pos_ += 2;  // NAME =
    ExprPtr v = expr();
    expect_newline();
    forget_literal_constant(name.text);
    mod_.type_aliases.push_back({name.text, name.loc, std::move(v)});
}

void Parser::forget_literal_constant(const std::string& name) {
    auto& ta = mod_.type_aliases;
    ta.erase(std::remove_if(ta.begin(), ta.end(), [&](const ast::TypeAliasDef& a) { return a.name == name; }), ta.end());
    if (!literal_constants_.erase(name)) return;
    auto& cs = mod_.constants;
    cs.erase(std::remove_if(cs.begin(), cs.end(), [&](const ast::ConstantDef& c) { return c.name == name; }), cs.end());
}

bool Parser::is_constant_call(size_t p) const {
    const Token& a = toks_[std::min(p, toks_.size() - 1)];
    const Token& dot = toks_[std::min(p + 1, toks_.size() - 1)];
    const Token& c = toks_[std::min(p + 2, toks_.size() - 1)];
    return a.kind == Tok::Name && is_weft_alias(a.text) && dot.text == "." && c.text == "constant";
}

void Parser::import_stmt() {
    ++pos_;
    do {
        Token first = expect_name("a module name");
        std::string name = first.text;
        while (accept_op(".")) name += "." + expect_name("a module name").text;
        std::string alias = name.substr(0, name.find('.'));
        if (accept_name("as")) alias = expect_name().text;
        mod_.imports.push_back({name, alias, first.loc});
        if (name == "weft" || name == "warp") weft_aliases_.insert(alias);
    } while (accept_op(","));
    expect_newline();
}

void Parser::from_import_stmt() {
    // `from x import y` binds names Python resolves; kernels do not use them. Skip.
    skip_statement();
}

void Parser::constant_def() {
    Token name = toks_[pos_];
    pos_ += 2;  // NAME =
    pos_ += 3;  // alias . constant
    expect_op("(");
    ExprPtr v = expr();
    expect_op(")");
    expect_newline();
    mod_.constants.push_back({name.text, name.loc, std::move(v)});
}

void Parser::decorated() {
    SourceLoc at_loc = cur().loc;
    ++pos_;  // @
    Token base = expect_name("a decorator");
    std::string attr;
    SourceLoc attr_loc = base.loc;
    int parts = 1;
    while (accept_op(".")) {
        Token a = expect_name("a decorator name");
        attr = a.text;
        attr_loc = a.loc;
        ++parts;
    }
    if (parts > 2) attr.clear();  // a.b.c: not the weft module's decorator
    std::vector<Keyword> dargs;
    ExprPtr pos_arg;
    if (accept_op("(")) {
        while (!at_op(")")) {
            if (at(Tok::Name) && peek().text == "=") {
                Token k = toks_[pos_];
                pos_ += 2;
                dargs.push_back({k.text, k.loc, expr()});
            } else {
                pos_arg = expr();
            }
            if (!accept_op(",")) break;
        }
        expect_op(")");
    }
    expect_newline();
    if (!is_weft_alias(base.text) || attr.empty() || attr == "overload") {
        // Somebody else's decorator: skip the decorated definition (and further decorators).
        // @wp.overload declares the types of a generic's instance: host code, like wp.overload(k, [...]).
        while (at_op("@")) skip_statement();
        skip_statement();
        return;
    }
    static const std::vector<std::string> known = {"kernel", "func", "struct", "func_grad"};
    if (attr != "kernel" && attr != "func" && attr != "struct" && attr != "func_grad") {
        SourceLoc l = attr_loc;
        l.len = static_cast<int>(attr.size());
        diags_.report(DiagId::err_bad_decorator, l, {base.text + "." + attr});
        std::string near = support::closest_name(attr, known);
        if (!near.empty()) diags_.note(DiagId::note_did_you_mean, {}, {base.text + "." + near});
        skip_statement();
        return;
    }
    (void)at_loc;
    if (attr == "struct") {
        if (!at_name("class")) fail_expected("'class' after @" + base.text + ".struct");
        return struct_def();
    }
    if (!at_name("def")) fail_expected("'def' after @" + base.text + "." + attr);
    FunctionDef fn;
    fn.kind = attr == "kernel" ? DefKind::Kernel : attr == "func" ? DefKind::Func : DefKind::FuncGrad;
    fn.decorator_args = std::move(dargs);
    if (fn.kind == DefKind::FuncGrad) {
        if (!pos_arg || pos_arg->kind != ExprKind::Name) fail_expected("@" + base.text + ".func_grad(<func name>)");
        fn.grad_of = pos_arg->id;
    }
    function_def(fn);
    mod_.functions.push_back(std::move(fn));
}

void Parser::struct_def() {
    ++pos_;  // class
    Token name = expect_name("a struct name");
    StructDef s;
    s.name = name.text;
    s.loc = name.loc;
    if (accept_op("(")) {
        while (!at_op(")") && !at(Tok::End)) ++pos_;
        expect_op(")");
    }
    expect_op(":");
    expect_newline();
    if (!accept_kind(Tok::Indent)) fail_expected("an indented block");
    while (!at(Tok::Dedent) && !at(Tok::End)) {
        if (accept_kind(Tok::Newline)) continue;
        try {
            if (at(Tok::String)) {
                if (s.docstring.empty()) s.docstring = cur().text;
                ++pos_;
                expect_newline();
                continue;
            }
            if (accept_name("pass")) {
                expect_newline();
                continue;
            }
            if (at(Tok::Name) && peek().text == ":") {
                Token f = toks_[pos_];
                pos_ += 2;
                StructField field;
                field.name = f.text;
                field.loc = f.loc;
                field.annotation = expr();
                if (accept_op("=")) field.default_value = expr();
                expect_newline();
                s.fields.push_back(std::move(field));
                continue;
            }
            diags_.report(DiagId::err_struct_field, cur().loc, {describe_token(cur())});
            throw ParseAbort{};
        } catch (const ParseAbort&) { skip_statement(); }
    }
    accept_kind(Tok::Dedent);
    mod_.structs.push_back(std::move(s));
}

void Parser::function_def(FunctionDef& fn) {
    ++pos_;  // def
    Token name = expect_name("a function name");
    fn.name = name.text;
    fn.loc = name.loc;
    expect_op("(");
    while (!at_op(")")) {
        if (at_op("*") || at_op("**")) unsupported("variadic parameters", cur().loc);
        Token p = expect_name("a parameter name");
        Param param;
        param.name = p.text;
        param.loc = p.loc;
        if (accept_op(":")) param.annotation = expr();
        if (accept_op("=")) param.default_value = expr();
        fn.params.push_back(std::move(param));
        if (!accept_op(",")) break;
    }
    expect_op(")");
    if (accept_op("->")) fn.returns = expr();
    expect_op(":");
    fn.body = block(&fn.docstring);
}

// ---- statements ----

Body Parser::block(std::string* docstring) {
    DepthGuard guard(*this);
    Body body;
    if (!at(Tok::Newline)) {  // `if x: y = 1` on one line
        simple_statements(body);
        return body;
    }
    ++pos_;
    if (!accept_kind(Tok::Indent)) fail_expected("an indented block");
    bool first = true;
    while (!at(Tok::Dedent) && !at(Tok::End) && !diags_.stopped()) {
        if (accept_kind(Tok::Newline)) continue;
        if (first && docstring && at(Tok::String) && (peek().kind == Tok::Newline || peek().kind == Tok::Dedent)) {
            *docstring = cur().text;
            ++pos_;
            accept_kind(Tok::Newline);
            first = false;
            continue;
        }
        first = false;
        size_t before = pos_;
        try {
            statement(body);
        } catch (const ParseAbort&) { skip_statement(); }
        if (pos_ == before) ++pos_;
    }
    accept_kind(Tok::Dedent);
    return body;
}

void Parser::statement(Body& body) {
    const Token& t = cur();
    if (t.kind == Tok::Name) {
        if (t.text == "if") return body.push_back(if_stmt());
        if (t.text == "for") return body.push_back(for_stmt());
        if (t.text == "while") return body.push_back(while_stmt());
        if (t.text == "def" || t.text == "class") unsupported("nested definitions", t.loc);
        if (t.text == "with") unsupported("'with' statements", t.loc);
        if (t.text == "try") {
            diags_.report(DiagId::err_unsupported_syntax, t.loc, {"exception handling"});
            skip_statement();
            while (at_name("except") || at_name("finally") || at_name("else")) skip_statement();
            return;
        }
        if (t.text == "async") unsupported("async code", t.loc);
    }
    if (t.kind == Tok::Op && t.text == "@") unsupported("nested definitions", t.loc);
    if (t.kind == Tok::Indent) {
        diags_.report(DiagId::err_lex_bad_indent, t.loc, {});
        ++pos_;
        throw ParseAbort{};
    }
    simple_statements(body);
}

void Parser::simple_statements(Body& body) {
    body.push_back(simple_statement());
    while (accept_op(";")) {
        if (at(Tok::Newline) || at(Tok::End)) break;
        body.push_back(simple_statement());
    }
    expect_newline();
}

StmtPtr Parser::simple_statement() {
    const Token& t = cur();
    SourceLoc loc = t.loc;
    if (t.kind == Tok::Name) {
        if (t.text == "pass") {
            ++pos_;
            return std::make_unique<Stmt>(StmtKind::Pass, loc);
        }
        if (t.text == "break" || t.text == "continue") {
            ++pos_;
            return std::make_unique<Stmt>(t.text == "break" ? StmtKind::Break : StmtKind::Continue, loc);
        }
        if (t.text == "return") {
            ++pos_;
            auto s = std::make_unique<Stmt>(StmtKind::Return, loc);
            if (!at(Tok::Newline) && !at(Tok::End) && !at_op(";")) s->value = expr_list();
            return s;
        }
        static const std::set<std::string> no = {"global", "nonlocal", "del",  "assert", "raise",
                                                 "yield",  "import",   "from", "await"};
        if (no.count(t.text)) unsupported("'" + t.text + "' statements", loc);
    }
    ExprPtr first = expr_list();
    if (accept_op("=")) {
        auto s = std::make_unique<Stmt>(StmtKind::Assign, loc);
        s->target = std::move(first);
        s->value = expr_list();
        if (at_op("=")) unsupported("chained assignment", cur().loc);
        return s;
    }
    if (at_op(":")) {
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::AnnAssign, loc);
        s->target = std::move(first);
        s->annotation = expr();
        if (accept_op("=")) s->value = expr_list();
        return s;
    }
    static const std::pair<const char*, BinOp> aug[] = {
        {"+=", BinOp::Add},    {"-=", BinOp::Sub},     {"*=", BinOp::Mul},    {"/=", BinOp::Div},    {"//=", BinOp::FloorDiv},
        {"%=", BinOp::Mod},    {"**=", BinOp::Pow},    {"@=", BinOp::MatMul}, {"&=", BinOp::BitAnd}, {"|=", BinOp::BitOr},
        {"^=", BinOp::BitXor}, {"<<=", BinOp::LShift}, {">>=", BinOp::RShift}};
    for (auto& [op, b] : aug) {
        if (accept_op(op)) {
            auto s = std::make_unique<Stmt>(StmtKind::AugAssign, loc);
            s->target = std::move(first);
            s->op = b;
            s->value = expr();
            return s;
        }
    }
    if (at_op(":=")) unsupported("assignment expressions", cur().loc);
    auto s = std::make_unique<Stmt>(StmtKind::ExprStmt, loc);
    s->value = std::move(first);
    return s;
}

StmtPtr Parser::if_stmt() {
    SourceLoc loc = cur().loc;
    ++pos_;  // if / elif
    auto s = std::make_unique<Stmt>(StmtKind::If, loc);
    s->value = expr();
    expect_op(":");
    s->body = block();
    if (at_name("elif")) {
        s->orelse.push_back(if_stmt());
    } else if (accept_name("else")) {
        expect_op(":");
        s->orelse = block();
    }
    return s;
}

StmtPtr Parser::for_stmt() {
    SourceLoc loc = cur().loc;
    ++pos_;
    auto s = std::make_unique<Stmt>(StmtKind::For, loc);
    s->target = target_list();
    if (!accept_name("in")) fail_expected("'in'");
    s->value = expr();
    expect_op(":");
    s->body = block();
    if (at_name("else")) unsupported("'else' clauses on loops", cur().loc);
    return s;
}

StmtPtr Parser::while_stmt() {
    SourceLoc loc = cur().loc;
    ++pos_;
    auto s = std::make_unique<Stmt>(StmtKind::While, loc);
    s->value = expr();
    expect_op(":");
    s->body = block();
    if (at_name("else")) unsupported("'else' clauses on loops", cur().loc);
    return s;
}

ExprPtr Parser::target_list() {
    SourceLoc loc = cur().loc;
    ExprPtr first = bitor_expr();
    if (!at_op(",")) return first;
    auto t = std::make_unique<Expr>(ExprKind::Tuple, loc);
    t->args.push_back(std::move(first));
    while (accept_op(",")) {
        if (at_name("in")) break;
        t->args.push_back(bitor_expr());
    }
    return t;
}

}  // namespace parse_detail

void parse_into(ast::Module& module, std::unique_ptr<SourceFile> file, DiagnosticEngine& diags) {
    const SourceFile* f = file.get();
    module.files.push_back(std::move(file));
    parse_detail::Parser(module, *f, diags).parse_module();
}

ast::Module parse_module(const std::string& path, const std::string& text, DiagnosticEngine& diags) {
    ast::Module m;
    auto f = std::make_unique<SourceFile>();
    f->path = path;
    f->text = text;
    parse_into(m, std::move(f), diags);
    return m;
}

}  // namespace weft::compiler
