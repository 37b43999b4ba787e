// The parser of kernel modules: tokens -> ast::Module.
//
// A recursive-descent parser for the Python subset of ast.h. At module level it reads imports,
// `NAME = wp.constant(...)`, and definitions decorated with the weft module's kernel, func,
// struct and func_grad decorators; every other top-level statement is Python's own (host code,
// tests, `if __name__ == "__main__":`) and is skipped whole. Inside definitions every Python
// construct outside the kernel language gets a diagnostic naming it ("lambda expressions are not
// supported in kernels"). After an error the parser resynchronises at the next statement, so one
// run reports several independent errors.
#pragma once

#include <memory>

#include "compiler/ast/ast.h"
#include "compiler/diagnostics.h"

namespace weft::compiler {

// Parses `file` (whose ownership passes to the module) and appends its definitions to `module`.
// Several files (chunks handed over from Python) can be parsed into one module.
void parse_into(ast::Module& module, std::unique_ptr<SourceFile> file, DiagnosticEngine& diags);

// Convenience: a module from one source text.
ast::Module parse_module(const std::string& path, const std::string& text, DiagnosticEngine& diags);

}  // namespace weft::compiler
