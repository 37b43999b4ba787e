// gpusim/ptx/lexer.h — splits PTX text into tokens with line and column.
//
// PTX opcodes carry their modifiers after dots ("ld.global.nc.v2.f64", "%tid.x",
// "ld.shared::cta.u32"), so an identifier swallows ".word" and "::word" suffixes; a token that
// starts with '.' is a directive (".reg", ".align"). Numbers keep their PTX spelling's meaning:
// 0fXXXXXXXX is f32 bits, 0dXXXXXXXXXXXXXXXX f64 bits, 1.5 a decimal (double) literal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weft::gpusim {

enum class TokKind : uint8_t { End, Ident, Directive, Int, F32Bits, F64Bits, Decimal, String, Punct };

struct Token {
    TokKind kind = TokKind::End;
    std::string_view text;  // the spelling (for String: without the quotes)
    uint64_t bits = 0;      // Int: value (two's complement); F32Bits/F64Bits: the bits
    double decimal = 0;     // Decimal: value
    char punct = 0;         // Punct: the character
    int line = 1;
    int col = 1;
};

class Lexer {
public:
    Lexer(std::string_view text, std::string module_name);
    // Returns the next token; throws PtxError on a character that starts no token.
    Token next();

private:
    [[noreturn]] void fail(int line, int col, const std::string& message) const;
    void skip_space_and_comments();
    char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
    void advance();

    std::string_view text_;
    std::string module_name_;
    size_t pos_ = 0;
    int line_ = 1;
    int col_ = 1;
};

// Spelling of a token for messages: "'foo'", "end of input".
std::string describe(const Token& t);

}  // namespace weft::gpusim
