// The lexer of kernel modules: Python's token rules for the subset Weft reads.
//
// Produces NEWLINE / INDENT / DEDENT tokens from indentation as CPython's tokenizer does,
// joins lines inside brackets and after a backslash, skips comments, reads int (decimal, hex,
// octal, binary, with underscores), float and string literals (single, double and triple
// quotes, prefixes r/b/f/u). Errors are reported to the DiagnosticEngine and the lexer keeps
// going, so the parser always receives a well-formed token stream ending in END.
#pragma once

#include <string>
#include <vector>

#include "compiler/diagnostics.h"

namespace weft::compiler {

enum class Tok {
    Name,
    Int,
    Float,
    String,
    Op,  // operators and delimiters; text holds the spelling
    Newline,
    Indent,
    Dedent,
    End,
};

struct Token {
    Tok kind;
    std::string text;
    SourceLoc loc;
    int64_t int_value = 0;
    double float_value = 0.0;
    bool int_overflow = false;
};

std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags);

const char* tok_kind_name(Tok k);
// "'foo'", "newline", "end of file", ... as used in "expected X, found Y".
std::string describe_token(const Token& t);

}  // namespace weft::compiler
