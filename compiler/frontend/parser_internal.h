// compiler/frontend/parser_internal.h: the recursive-descent parser of kernel modules (parser.h's
// parse_into), shared by its two halves: parser.cpp (module level and statements) and
// parser_expr.cpp (expressions). Internal to compiler/frontend.
#pragma once

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser.h"

namespace weft::compiler::parse_detail {

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

    bool is_weft_alias(const std::string& s) const { return weft_aliases_.count(s) > 0; }
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

    void top_level();
    // `-`? number, or True/False, then the end of the line.
    bool is_literal_number(size_t p) const;
    // A module-level `COEF = 3.0`: kernels use its value, as Warp captures module globals by value
    // (the Python package does the same for the kernels it compiles). The last literal assignment
    // of a name wins; any other assignment of it removes it.
    void literal_constant_def();
    // `wp.NAME` or `wp.types.NAME`, optionally called with balanced parentheses, then the end of
    // the line: the shape of a type alias (sema decides whether NAME is a type).
    bool is_type_alias_rhs(size_t p) const;
    void type_alias_def();
    void forget_literal_constant(const std::string& name);
    bool is_constant_call(size_t p) const;
    void import_stmt();
    void from_import_stmt();
    void constant_def();
    void decorated();
    void struct_def();
    void function_def(FunctionDef& fn);
    Body block(std::string* docstring = nullptr);
    void statement(Body& body);
    void simple_statements(Body& body);
    StmtPtr simple_statement();
    StmtPtr if_stmt();
    StmtPtr for_stmt();
    StmtPtr while_stmt();
    ExprPtr target_list();
    ExprPtr expr_list();
    // The height of `e`, from its children's (memoised). Trees are measured as they grow (every
    // step of a chain, every expr()), so this descends only through the few levels built since.
    static int height_of(Expr& e);
    ExprPtr measured(ExprPtr e, SourceLoc where);
    ExprPtr expr();
    ExprPtr or_expr();
    ExprPtr and_expr();
    ExprPtr not_expr();
    ExprPtr comparison();
    ExprPtr binary(ExprPtr left, BinOp op, ExprPtr right);
    ExprPtr bitor_expr();
    ExprPtr bitxor_expr();
    ExprPtr bitand_expr();
    ExprPtr shift_expr();
    ExprPtr arith_expr();
    ExprPtr term();
    ExprPtr factor();
    ExprPtr power();
    ExprPtr primary();
    ExprPtr atom();

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

}  // namespace weft::compiler::parse_detail
