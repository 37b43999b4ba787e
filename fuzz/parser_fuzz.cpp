// libFuzzer target: the kernel-module lexer and parser on arbitrary bytes. Any crash, hang or
// sanitizer report is a bug: malformed input must only produce diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/ast/ast.h"
#include "compiler/frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    weft::compiler::DiagnosticEngine diags;
    weft::compiler::ast::Module m = weft::compiler::parse_module("fuzz.py", text, diags);
    (void)weft::compiler::ast::dump(m);
    (void)diags.format_all();
    return 0;
}
