// Tokenizer for kernel modules. See lexer.h.
#include "compiler/frontend/lexer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace weft::compiler {
namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c & 0x80); }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
public:
    Lexer(const SourceFile& f, DiagnosticEngine& d) : file_(f), src_(f.text), diags_(d) {}

    std::vector<Token> run() {
        indents_.push_back(0);
        bool at_line_start = true;
        while (pos_ < src_.size()) {
            if (at_line_start && depth_.empty()) {
                if (!handle_indentation()) continue;  // blank or comment line
                at_line_start = false;
            }
            char c = src_[pos_];
            if (c == '\n') {
                if (depth_.empty()) {
                    if (!out_.empty() && out_.back().kind != Tok::Newline && out_.back().kind != Tok::Indent &&
                        out_.back().kind != Tok::Dedent)
                        push(Tok::Newline, "\n", 1);
                    at_line_start = true;
                }
                advance_line();
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                ++pos_;
                ++col_;
                continue;
            }
            if (c == '#') {
                while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
                continue;
            }
            if (c == '\\') {
                size_t p = pos_ + 1;
                while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\r')) ++p;
                if (p < src_.size() && src_[p] == '\n') {
                    pos_ = p;
                    advance_line();
                    continue;
                }
                error_here(DiagId::err_lex_bad_char, "\\");
                ++pos_;
                ++col_;
                continue;
            }
            if (is_ident_start(c)) {
                if (string_prefix()) continue;
                lex_name();
                continue;
            }
            if (is_digit(c) || (c == '.' && pos_ + 1 < src_.size() && is_digit(src_[pos_ + 1]))) {
                lex_number();
                continue;
            }
            if (c == '"' || c == '\'') {
                lex_string(pos_, col_);
                continue;
            }
            lex_op();
        }
        if (!out_.empty() && out_.back().kind != Tok::Newline && out_.back().kind != Tok::Dedent &&
            out_.back().kind != Tok::Indent)
            push(Tok::Newline, "", 0);
        for (auto& open : depth_) {
            SourceLoc l{&file_, open.line, open.col, 1};
            diags_.report(DiagId::err_lex_unclosed, l, {open.ch});
        }
        while (indents_.size() > 1) {
            indents_.pop_back();
            push(Tok::Dedent, "", 0);
        }
        push(Tok::End, "", 0);
        return std::move(out_);
    }

private:
    struct Open {
        std::string ch;
        int line, col;
    };

    void advance_line() {
        ++pos_;
        ++line_;
        col_ = 1;
    }

    SourceLoc loc(int col, int len) const { return SourceLoc{&file_, line_, col, len}; }

    void push(Tok k, std::string text, int len, int col = -1) {
        Token t;
        t.kind = k;
        t.text = std::move(text);
        t.loc = loc(col < 0 ? col_ : col, len);
        out_.push_back(std::move(t));
    }

    void error_here(DiagId id, std::string arg) { diags_.report(id, loc(col_, 1), {std::move(arg)}); }

    // Returns false if the line is blank or a comment (and consumes it).
    bool handle_indentation() {
        int width = 0;
        size_t p = pos_;
        bool tabs = false, spaces = false;
        while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\f')) {
            if (src_[p] == '\t') {
                tabs = true;
                width = (width / 8 + 1) * 8;
            } else if (src_[p] == ' ') {
                spaces = true;
                ++width;
            }
            ++p;
        }
        if (p >= src_.size() || src_[p] == '\n' || src_[p] == '#' || src_[p] == '\r') {
            while (p < src_.size() && src_[p] != '\n') ++p;
            pos_ = p;
            if (pos_ < src_.size()) advance_line();
            return false;
        }
        col_ += static_cast<int>(p - pos_);
        pos_ = p;
        if (tabs && spaces && width != indents_.back()) {
            diags_.report(DiagId::err_lex_tab_space_mix, loc(1, col_ - 1 > 0 ? col_ - 1 : 1), {});
        }
        if (width > indents_.back()) {
            indents_.push_back(width);
            push(Tok::Indent, "", 1, 1);
        } else {
            while (width < indents_.back()) {
                indents_.pop_back();
                push(Tok::Dedent, "", 1, col_);
            }
            if (width != indents_.back()) {
                diags_.report(DiagId::err_lex_bad_indent, loc(col_, 1), {});
                indents_.push_back(width);  // recover: treat as a new level
            }
        }
        return true;
    }

    bool string_prefix() {
        size_t p = pos_;
        while (p < src_.size() && p - pos_ < 2 && strchr("rRbBuUfF", src_[p])) ++p;
        if (p > pos_ && p < src_.size() && (src_[p] == '"' || src_[p] == '\'')) {
            bool raw = false;
            for (size_t i = pos_; i < p; ++i) raw |= (src_[i] == 'r' || src_[i] == 'R');
            int start_col = col_;
            size_t start = pos_;
            col_ += static_cast<int>(p - pos_);
            pos_ = p;
            lex_string(start, start_col, raw);
            return true;
        }
        return false;
    }

    void lex_name() {
        size_t start = pos_;
        int c0 = col_;
        while (pos_ < src_.size() && is_ident_char(src_[pos_])) {
            ++pos_;
            ++col_;
        }
        push(Tok::Name, src_.substr(start, pos_ - start), static_cast<int>(pos_ - start), c0);
    }

    void lex_number() {
        size_t start = pos_;
        int c0 = col_;
        bool is_float = false;
        int base = 10;
        if (src_[pos_] == '0' && pos_ + 1 < src_.size() && strchr("xXoObB", src_[pos_ + 1])) {
            char b = static_cast<char>(src_[pos_ + 1] | 0x20);
            base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
            pos_ += 2;
            while (pos_ < src_.size() && (isxdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) ++pos_;
        } else {
            while (pos_ < src_.size() && (is_digit(src_[pos_]) || src_[pos_] == '_')) ++pos_;
            if (pos_ < src_.size() && src_[pos_] == '.') {
                is_float = true;
                ++pos_;
                while (pos_ < src_.size() && (is_digit(src_[pos_]) || src_[pos_] == '_')) ++pos_;
            }
            if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
                size_t p = pos_ + 1;
                if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
                if (p < src_.size() && is_digit(src_[p])) {
                    is_float = true;
                    pos_ = p;
                    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
                }
            }
        }
        // A number running straight into letters ("12abc") is malformed.
        size_t end = pos_;
        while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
        std::string text = src_.substr(start, pos_ - start);
        col_ += static_cast<int>(pos_ - start);
        Token t;
        t.loc = SourceLoc{&file_, line_, c0, static_cast<int>(text.size())};
        t.text = text;
        std::string digits;
        for (size_t i = start + (base != 10 ? 2 : 0); i < end; ++i)
            if (src_[i] != '_') digits += src_[i];
        bool bad = pos_ != end || digits.empty() || src_[end - 1] == '_';
        if (!bad && is_float) {
            errno = 0;
            char* e = nullptr;
            t.float_value = std::strtod(digits.c_str(), &e);
            bad = *e != 0;
            t.kind = Tok::Float;
        } else if (!bad) {
            errno = 0;
            char* e = nullptr;
            unsigned long long v = std::strtoull(digits.c_str(), &e, base);
            bad = *e != 0;
            t.int_overflow = errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX);
            t.int_value = static_cast<int64_t>(v);
            t.kind = Tok::Int;
        }
        if (bad) {
            diags_.report(DiagId::err_lex_bad_number, t.loc, {text});
            t.kind = Tok::Int;
            t.int_value = 0;
        }
        out_.push_back(std::move(t));
    }

    void lex_string(size_t start, int c0, bool raw = false) {
        char q = src_[pos_];
        bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == q && src_[pos_ + 2] == q;
        int start_line = line_;
        size_t p = pos_ + (triple ? 3 : 1);
        int col = col_ + (triple ? 3 : 1);
        std::string value;
        bool closed = false;
        while (p < src_.size()) {
            char c = src_[p];
            if (c == '\\' && p + 1 < src_.size()) {
                char n = src_[p + 1];
                if (raw) {
                    value += c;
                    value += n;
                } else {
                    switch (n) {
                        case 'n': value += '\n'; break;
                        case 't': value += '\t'; break;
                        case '\\': value += '\\'; break;
                        case '\'': value += '\''; break;
                        case '"': value += '"'; break;
                        case '\n': break;
                        default:
                            value += '\\';
                            value += n;
                            break;
                    }
                }
                if (n == '\n') {
                    ++line_;
                    col = 1;
                } else {
                    col += 2;
                }
                p += 2;
                continue;
            }
            if (c == q && (!triple || (p + 2 < src_.size() && src_[p + 1] == q && src_[p + 2] == q))) {
                p += triple ? 3 : 1;
                col += triple ? 3 : 1;
                closed = true;
                break;
            }
            if (c == '\n') {
                if (!triple) break;
                ++line_;
                col = 1;
            } else {
                ++col;
            }
            value += c;
            ++p;
        }
        Token t;
        t.kind = Tok::String;
        t.text = value;
        t.loc = SourceLoc{&file_, start_line, c0, static_cast<int>(std::max<size_t>(1, p - start))};
        if (!closed) diags_.report(DiagId::err_lex_unterminated_string, t.loc, {});
        out_.push_back(std::move(t));
        pos_ = p;
        col_ = col;
    }

    void lex_op() {
        static const char* ops[] = {"**=", "//=", ">>=", "<<=", "->", "**", "//", "<<", ">>", "<=", ">=", "==",
                                    "!=",  "+=",  "-=",  "*=",  "/=", "%=", "@=", "&=", "|=", "^=", ":=", "+",
                                    "-",   "*",   "/",   "%",   "@",  "<",  ">",  "=",  "(",  ")",  "[",  "]",
                                    "{",   "}",   ",",   ":",   ".",  ";",  "~",  "&",  "|",  "^",  "!"};
        for (const char* op : ops) {
            size_t n = strlen(op);
            if (src_.compare(pos_, n, op) == 0) {
                std::string s(op);
                if (s == "!") break;
                if (s == "(" || s == "[" || s == "{") {
                    depth_.push_back({s, line_, col_});
                } else if (s == ")" || s == "]" || s == "}") {
                    const char* want = s == ")" ? "(" : s == "]" ? "[" : "{";
                    if (depth_.empty() || depth_.back().ch != want) {
                        error_here(DiagId::err_lex_unbalanced, s);
                        pos_ += n;
                        col_ += static_cast<int>(n);
                        return;
                    }
                    depth_.pop_back();
                }
                push(Tok::Op, s, static_cast<int>(n));
                pos_ += n;
                col_ += static_cast<int>(n);
                return;
            }
        }
        // Unknown byte: report it (as UTF-8 sequence if multi-byte) and skip.
        unsigned char c = static_cast<unsigned char>(src_[pos_]);
        std::string shown(1, static_cast<char>(c));
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            snprintf(buf, sizeof buf, "\\x%02x", c);
            shown = buf;
        }
        error_here(DiagId::err_lex_bad_char, shown);
        ++pos_;
        ++col_;
    }

    const SourceFile& file_;
    const std::string& src_;
    DiagnosticEngine& diags_;
    size_t pos_ = 0;
    int line_ = 1;
    int col_ = 1;
    std::vector<int> indents_;
    std::vector<Open> depth_;
    std::vector<Token> out_;
};

}  // namespace

std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags) { return Lexer(file, diags).run(); }

const char* tok_kind_name(Tok k) {
    switch (k) {
        case Tok::Name: return "name";
        case Tok::Int: return "integer";
        case Tok::Float: return "float";
        case Tok::String: return "string";
        case Tok::Op: return "operator";
        case Tok::Newline: return "newline";
        case Tok::Indent: return "indent";
        case Tok::Dedent: return "dedent";
        case Tok::End: return "end of file";
    }
    return "?";
}

std::string describe_token(const Token& t) {
    switch (t.kind) {
        case Tok::Newline: return "end of line";
        case Tok::Indent: return "an indented block";
        case Tok::Dedent: return "end of block";
        case Tok::End: return "end of file";
        case Tok::String: return "a string";
        default: return "'" + t.text + "'";
    }
}

}  // namespace weft::compiler
