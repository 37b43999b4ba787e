// Recursive-descent parser for kernel modules. See parser.h.
#include "compiler/frontend/parser.h"

#include <algorithm>
#include <set>

#include "compiler/frontend/lexer.h"
#include "support/closest_name.h"

namespace weft::compiler {
namespace {

using namespace ast;

struct ParseAbort {};  // thrown to resynchronise at the next statement

class Parser {
public:
    Parser(Module& m, const SourceFile& f, DiagnosticEngine& d) : mod_(m), file_(f), diags_(d) {
        size_t before = d.diagnostics().size();
        toks_ = tokenize(f, d);
        for (size_t i = before; i < d.diagnostics().size(); ++i)
            if (d.diagnostics()[i].id == DiagId::err_lex_unclosed) lex_unclosed_ = true;
        for (const auto& imp : m.imports)
            if (imp.module == "weft" || imp.module == "warp") weft_aliases_.insert(imp.alias);
    }

    void parse_module() {
        while (!at(Tok::End) && !diags_.stopped()) {
            if (accept_kind(Tok::Newline) || accept_kind(Tok::Indent) || accept_kind(Tok::Dedent)) continue;
            size_t before = pos_;
            try {
                top_level();
            } catch (const ParseAbort&) { skip_statement(); }
            if (pos_ == before) ++pos_;  // guarantee progress on any input
        }
    }

private:
    // ---- token helpers ----
    const Token& cur() const { return toks_[pos_]; }
    const Token& peek(size_t k = 1) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
    bool at(Tok k) const { return cur().kind == k; }
    bool at_op(const char* op) const { return cur().kind == Tok::Op && cur().text == op; }
    bool at_name(const char* n) const { return cur().kind == Tok::Name && cur().text == n; }
    bool accept_kind(Tok k) {
        if (!at(k)) return false;
        ++pos_;
        return true;
    }
    bool accept_op(const char* op) {
        if (!at_op(op)) return false;
        ++pos_;
        return true;
    }
    bool accept_name(const char* n) {
        if (!at_name(n)) return false;
        ++pos_;
        return true;
    }
    [[noreturn]] void fail_expected(const std::string& what) {
        // After an unclosed bracket the lexer has joined the rest of the file into one line:
        // "expected ')' at end of file" would only repeat its error.
        bool at_end = cur().kind == Tok::End || cur().kind == Tok::Newline;
        if (!(at_end && lex_unclosed_)) diags_.report(DiagId::err_expected, cur().loc, {what, describe_token(cur())});
        throw ParseAbort{};
    }
    void expect_op(const char* op) {
        if (!accept_op(op)) fail_expected(std::string("'") + op + "'");
    }
    Token expect_name(const char* what = "a name") {
        if (!at(Tok::Name) || is_keyword(cur().text)) fail_expected(what);
        return toks_[pos_++];
    }
    void expect_newline() {
        if (accept_kind(Tok::Newline) || at(Tok::End) || at(Tok::Dedent)) return;
        if (accept_op(";")) {
            if (accept_kind(Tok::Newline) || at(Tok::End)) return;
        }
        fail_expected("end of line");
    }
    [[noreturn]] void unsupported(const std::string& what, SourceLoc loc) {
        diags_.report(DiagId::err_unsupported_syntax, loc, {what});
        throw ParseAbort{};
    }
    static bool is_keyword(const std::string& s) {
        static const std::set<std::string> kw = {"and",      "as",       "assert", "async", "await",  "break",  "class",
                                                 "continue", "def",      "del",    "elif",  "else",   "except", "finally",
                                                 "for",      "from",     "global", "if",    "import", "in",     "is",
                                                 "lambda",   "nonlocal", "not",    "or",    "pass",   "raise",  "return",
                                                 "try",      "while",    "with",   "yield", "True",   "False",  "None"};
        return kw.count(s) > 0;
    }

    // Skips the rest of the current logical line and any block that belongs to it.
    void skip_statement() {
        while (!at(Tok::End) && !at(Tok::Newline)) {
            if (at(Tok::Indent)) break;
            if (at(Tok::Dedent)) return;
            ++pos_;
        }
        accept_kind(Tok::Newline);
        if (at(Tok::Indent)) skip_block();
    }
    void skip_block() {
        int depth = 0;
        do {
            if (at(Tok::Indent)) ++depth;
            if (at(Tok::Dedent)) --depth;
            if (at(Tok::End)) return;
            ++pos_;
        } while (depth > 0);
    }

    // ---- module level ----
    void top_level() {
        if (at_name("import")) return import_stmt();
        if (at_name("from")) return from_import_stmt();
        if (at_op("@")) return decorated();
        if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_constant_call(pos_ + 2)) {
            return constant_def();
        }
        if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_literal_number(pos_ + 2)) {
            return literal_constant_def();
        }
        if (at(Tok::Name) && peek().kind == Tok::Op && peek().text == "=" && is_type_alias_rhs(pos_ + 2)) {
            return type_alias_def();
        }
        if (at(Tok::Name) && peek().kind == Tok::Op && peek().text.size() >= 1 && peek().text.back() == '=' &&
            peek().text != "==" && peek().text != "<=" && peek().text != ">=" && peek().text != "!=") {
            forget_literal_constant(cur().text);  // NAME = <anything else>, NAME += ...: its value is not known here
        }
        skip_statement();
    }

    // `-`? number, or True/False, then the end of the line.
    bool is_literal_number(size_t p) const {
        auto tok = [&](size_t i) -> const Token& { return toks_[std::min(i, toks_.size() - 1)]; };
        if (tok(p).kind == Tok::Op && tok(p).text == "-") ++p;
        bool lit = tok(p).kind == Tok::Int || tok(p).kind == Tok::Float ||
                   (tok(p).kind == Tok::Name && (tok(p).text == "True" || tok(p).text == "False") && tok(p - 1).text != "-");
        return lit && (tok(p + 1).kind == Tok::Newline || tok(p + 1).kind == Tok::End);
    }

    // A module-level `COEF = 3.0`: kernels use its value, as Warp captures module globals by value
    // (the Python package does the same for the kernels it compiles). The last literal assignment
    // of a name wins; any other assignment of it removes it.
    void literal_constant_def() {
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
    bool is_type_alias_rhs(size_t p) const {
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

    void type_alias_def() {
        Token name = toks_[pos_];
        pos_ += 2;  // NAME =
        ExprPtr v = expr();
        expect_newline();
        forget_literal_constant(name.text);
        mod_.type_aliases.push_back({name.text, name.loc, std::move(v)});
    }

    void forget_literal_constant(const std::string& name) {
        auto& ta = mod_.type_aliases;
        ta.erase(std::remove_if(ta.begin(), ta.end(), [&](const ast::TypeAliasDef& a) { return a.name == name; }), ta.end());
        if (!literal_constants_.erase(name)) return;
        auto& cs = mod_.constants;
        cs.erase(std::remove_if(cs.begin(), cs.end(), [&](const ast::ConstantDef& c) { return c.name == name; }), cs.end());
    }

    bool is_weft_alias(const std::string& s) const { return weft_aliases_.count(s) > 0; }

    bool is_constant_call(size_t p) const {
        const Token& a = toks_[std::min(p, toks_.size() - 1)];
        const Token& dot = toks_[std::min(p + 1, toks_.size() - 1)];
        const Token& c = toks_[std::min(p + 2, toks_.size() - 1)];
        return a.kind == Tok::Name && is_weft_alias(a.text) && dot.text == "." && c.text == "constant";
    }

    void import_stmt() {
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

    void from_import_stmt() {
        // `from x import y` binds names Python resolves; kernels do not use them. Skip.
        skip_statement();
    }

    void constant_def() {
        Token name = toks_[pos_];
        pos_ += 2;  // NAME =
        pos_ += 3;  // alias . constant
        expect_op("(");
        ExprPtr v = expr();
        expect_op(")");
        expect_newline();
        mod_.constants.push_back({name.text, name.loc, std::move(v)});
    }

    void decorated() {
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
        if (!is_weft_alias(base.text) || attr.empty()) {
            // Somebody else's decorator: skip the decorated definition (and further decorators).
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

    void struct_def() {
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

    void function_def(FunctionDef& fn) {
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
    Body block(std::string* docstring = nullptr) {
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

    void statement(Body& body) {
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

    void simple_statements(Body& body) {
        body.push_back(simple_statement());
        while (accept_op(";")) {
            if (at(Tok::Newline) || at(Tok::End)) break;
            body.push_back(simple_statement());
        }
        expect_newline();
    }

    StmtPtr simple_statement() {
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

    StmtPtr if_stmt() {
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

    StmtPtr for_stmt() {
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

    StmtPtr while_stmt() {
        SourceLoc loc = cur().loc;
        ++pos_;
        auto s = std::make_unique<Stmt>(StmtKind::While, loc);
        s->value = expr();
        expect_op(":");
        s->body = block();
        if (at_name("else")) unsupported("'else' clauses on loops", cur().loc);
        return s;
    }

    ExprPtr target_list() {
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

    // ---- expressions ----
    ExprPtr expr_list() {
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

    // Bounds recursion so that no input, however deeply nested, overflows the stack.
    struct DepthGuard {
        Parser& p;
        explicit DepthGuard(Parser& parser) : p(parser) {
            if (++p.depth_ > kMaxDepth) {
                p.diags_.report(DiagId::err_nesting_depth, p.cur().loc, {std::to_string(kMaxDepth)});
                --p.depth_;
                throw ParseAbort{};
            }
        }
        ~DepthGuard() { --p.depth_; }
    };
    static constexpr int kMaxDepth = 100;

    // A chain of binary operators (`x + 1.0 + 1.0 ...`), comparisons, calls or subscripts is
    // parsed by a loop, not by recursion, so the DepthGuard above does not bound it; but the tree
    // it builds is as deep as the chain is long, and sema, the passes, the audit and the code
    // generator all recurse on it, and the C++ compilers bound the brackets of what codegen emits
    // (Clang: -fbracket-depth). Every tree is therefore measured as it grows and capped at
    // kMaxExprHeight levels, with a located error, before anything recurses on it.
    static constexpr int kMaxExprHeight = 256;

    // The height of `e`, from its children's (memoised). Trees are measured as they grow (every
    // step of a chain, every expr()), so this descends only through the few levels built since.
    static int height_of(Expr& e) {
        if (e.height) return e.height;
        int h = 0;
        if (e.value) h = std::max(h, height_of(*e.value));
        for (auto& a : e.args) h = std::max(h, height_of(*a));
        for (auto& k : e.keywords)
            if (k.value) h = std::max(h, height_of(*k.value));
        return e.height = h + 1;
    }
    ExprPtr measured(ExprPtr e, SourceLoc where) {
        if (height_of(*e) > kMaxExprHeight) {
            diags_.report(DiagId::err_expr_too_deep, where, {std::to_string(kMaxExprHeight)});
            throw ParseAbort{};
        }
        return e;
    }

    ExprPtr expr() {
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

    ExprPtr or_expr() {
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

    ExprPtr and_expr() {
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

    ExprPtr not_expr() {
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

    ExprPtr comparison() {
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

    ExprPtr binary(ExprPtr left, BinOp op, ExprPtr right) {
        auto e = std::make_unique<Expr>(ExprKind::BinOp, left->loc);
        e->binop = op;
        SourceLoc where = right->loc;
        e->args.push_back(std::move(left));
        e->args.push_back(std::move(right));
        return measured(std::move(e), where);
    }

    ExprPtr bitor_expr() {
        ExprPtr l = bitxor_expr();
        while (at_op("|")) {
            SourceLoc oploc = cur().loc;
            ++pos_;
            l = binary(std::move(l), BinOp::BitOr, bitxor_expr());
            (void)oploc;
        }
        return l;
    }
    ExprPtr bitxor_expr() {
        ExprPtr l = bitand_expr();
        while (accept_op("^")) l = binary(std::move(l), BinOp::BitXor, bitand_expr());
        return l;
    }
    ExprPtr bitand_expr() {
        ExprPtr l = shift_expr();
        while (accept_op("&")) l = binary(std::move(l), BinOp::BitAnd, shift_expr());
        return l;
    }
    ExprPtr shift_expr() {
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
    ExprPtr arith_expr() {
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
    ExprPtr term() {
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
    ExprPtr factor() {
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
    ExprPtr power() {
        ExprPtr base = primary();
        if (accept_op("**")) return binary(std::move(base), BinOp::Pow, factor());
        return base;
    }

    ExprPtr primary() {
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

    ExprPtr atom() {
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

    Module& mod_;
    const SourceFile& file_;
    DiagnosticEngine& diags_;
    std::vector<Token> toks_;
    size_t pos_ = 0;
    std::set<std::string> weft_aliases_;
    std::set<std::string> literal_constants_;  // module-level NAME = <number> definitions (literal_constant_def)
    int depth_ = 0;
    bool lex_unclosed_ = false;
};

}  // namespace

void parse_into(ast::Module& module, std::unique_ptr<SourceFile> file, DiagnosticEngine& diags) {
    const SourceFile* f = file.get();
    module.files.push_back(std::move(file));
    Parser(module, *f, diags).parse_module();
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
