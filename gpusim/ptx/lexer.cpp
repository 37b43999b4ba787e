// gpusim/ptx/lexer.cpp — the PTX tokenizer (see lexer.h).
#include "gpusim/ptx/lexer.h"

#include <cctype>

#include "gpusim/errors.h"

namespace weft::gpusim {
namespace {
bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

Lexer::Lexer(std::string_view text, std::string module_name) : text_(text), module_name_(std::move(module_name)) {}

void Lexer::fail(int line, int col, const std::string& message) const { throw PtxError(module_name_, line, col, message); }

void Lexer::advance() {
    if (pos_ < text_.size()) {
        if (text_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }
}

void Lexer::skip_space_and_comments() {
    for (;;) {
        const char c = peek();
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            advance();
        } else if (c == '/' && peek(1) == '/') {
            while (pos_ < text_.size() && peek() != '\n') advance();
        } else if (c == '/' && peek(1) == '*') {
            const int line = line_, col = col_;
            advance();
            advance();
            while (!(peek() == '*' && peek(1) == '/')) {
                if (pos_ >= text_.size()) fail(line, col, "unterminated /* comment");
                advance();
            }
            advance();
            advance();
        } else {
            return;
        }
    }
}

Token Lexer::next() {
    skip_space_and_comments();
    Token t;
    t.line = line_;
    t.col = col_;
    const size_t start = pos_;
    const char c = peek();
    if (pos_ >= text_.size()) {
        t.kind = TokKind::End;
        return t;
    }
    if (c == '"') {
        advance();
        const size_t body = pos_;
        while (peek() != '"') {
            if (pos_ >= text_.size() || peek() == '\n') fail(t.line, t.col, "unterminated string literal");
            if (peek() == '\\') advance();
            advance();
        }
        t.kind = TokKind::String;
        t.text = text_.substr(body, pos_ - body);
        advance();
        return t;
    }
    if (c == '.' && is_ident_start(peek(1))) {
        advance();
        while (is_ident_char(peek())) advance();
        t.kind = TokKind::Directive;
        t.text = text_.substr(start, pos_ - start);
        return t;
    }
    if (is_ident_start(c)) {
        advance();
        while (is_ident_char(peek())) advance();
        // Modifier suffixes: ".word" and "::word" glue onto the identifier.
        for (;;) {
            if (peek() == '.' && (is_ident_char(peek(1)))) {
                advance();
                while (is_ident_char(peek())) advance();
            } else if (peek() == ':' && peek(1) == ':' && is_ident_char(peek(2))) {
                advance();
                advance();
                while (is_ident_char(peek())) advance();
            } else {
                break;
            }
        }
        t.kind = TokKind::Ident;
        t.text = text_.substr(start, pos_ - start);
        if (t.text.size() == 1 && (c == '%' || c == '$'))
            fail(t.line, t.col, std::string("'") + c + "' must be followed by a name");
        return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
        const char c1 = peek(1);
        if (c == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
            const bool is_f32 = (c1 == 'f' || c1 == 'F');
            const int ndigits = is_f32 ? 8 : 16;
            advance();
            advance();
            uint64_t bits = 0;
            for (int i = 0; i < ndigits; ++i) {
                const int h = hex_value(peek());
                if (h < 0)
                    fail(t.line, t.col,
                         std::string("malformed ") + (is_f32 ? "0f" : "0d") + " float literal: expected " +
                             std::to_string(ndigits) + " hex digits");
                bits = bits * 16 + static_cast<uint64_t>(h);
                advance();
            }
            if (is_ident_char(peek())) fail(t.line, t.col, "malformed float literal: too many hex digits");
            t.kind = is_f32 ? TokKind::F32Bits : TokKind::F64Bits;
            t.bits = bits;
            t.text = text_.substr(start, pos_ - start);
            return t;
        }
        // Decimal float?
        size_t i = pos_;
        while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
        if (i < text_.size() && (text_[i] == '.' || text_[i] == 'e' || text_[i] == 'E') &&
            !(c == '0' && (c1 == 'x' || c1 == 'X'))) {
            std::string s;
            while (pos_ < text_.size() &&
                   (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == 'e' || peek() == 'E' ||
                    ((peek() == '+' || peek() == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
                s += peek();
                advance();
            }
            char* end = nullptr;
            t.decimal = std::strtod(s.c_str(), &end);
            if (end != s.c_str() + s.size()) fail(t.line, t.col, "malformed decimal float literal '" + s + "'");
            t.kind = TokKind::Decimal;
            t.text = text_.substr(start, pos_ - start);
            return t;
        }
        uint64_t value = 0;
        int base = 10;
        if (c == '0' && (c1 == 'x' || c1 == 'X')) {
            base = 16;
            advance();
            advance();
        } else if (c == '0' && (c1 == 'b' || c1 == 'B')) {
            base = 2;
            advance();
            advance();
        } else if (c == '0' && std::isdigit(static_cast<unsigned char>(c1))) {
            base = 8;
            advance();
        }
        int ndigits = 0;
        bool overflow = false;
        for (;;) {
            const int h = hex_value(peek());
            if (h < 0 || h >= base) break;
            const unsigned __int128 wide = static_cast<unsigned __int128>(value) * base + h;
            if (wide >> 64) overflow = true;
            value = static_cast<uint64_t>(wide);
            advance();
            ++ndigits;
        }
        if (base != 10 && base != 8 && ndigits == 0) fail(t.line, t.col, "malformed integer literal: no digits after the prefix");
        if (overflow) fail(t.line, t.col, "integer literal does not fit in 64 bits");
        if (peek() == 'U' || peek() == 'u') advance();
        if (is_ident_char(peek()))
            fail(t.line, t.col, "malformed integer literal '" + std::string(text_.substr(start, pos_ - start + 1)) + "'");
        t.kind = TokKind::Int;
        t.bits = value;
        t.text = text_.substr(start, pos_ - start);
        return t;
    }
    static const std::string_view kPunct = ",;:{}[]()+-!|<>=@*";
    if (kPunct.find(c) != std::string_view::npos) {
        advance();
        t.kind = TokKind::Punct;
        t.punct = c;
        t.text = text_.substr(start, 1);
        return t;
    }
    if (std::isprint(static_cast<unsigned char>(c))) fail(t.line, t.col, std::string("unexpected character '") + c + "'");
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned char>(c));
    fail(t.line, t.col, std::string("unexpected byte ") + buf);
}

std::string describe(const Token& t) {
    if (t.kind == TokKind::End) return "end of input";
    if (t.kind == TokKind::String) return "string \"" + std::string(t.text) + "\"";
    return "'" + std::string(t.text) + "'";
}

}  // namespace weft::gpusim
