// The compile driver: source text -> parse -> sema -> (verify) -> C++ source, as one call.
//
//   auto m = compile_module({{"kernels/foo.py", text}}, {});
//   m->ir       typed IR (audits and the adjoint read it)
//   m->gen.cpp  the C++ translation unit; m->gen.kernels the kernels' launch metadata
//
// Errors raise CompileError carrying every diagnostic of the run, formatted clang-style.
// Set WEFT_DUMP_IR=sema (or =all) to print the IR after analysis to stderr.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/codegen/cpp_codegen.h"
#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"

namespace weft::compiler {

struct ModuleSource {
    std::string path;       // shown in diagnostics and #line directives
    std::string text;
    int line_offset = 0;    // the text starts at line (line_offset + 1) of `path`
};

struct CompileOptions {
    bool debug = false;                // bounds-checked array accesses in the generated code
    std::string module_key;            // default: the first source's path
    int adjoint_tape_bytes = 4096;     // per-thread tape of backward kernels (docs/autodiff.md)
};

struct CompiledModule {
    ast::Module ast;                   // owns the source files that locations point into
    std::unique_ptr<ir::Module> ir;
    GeneratedSource gen;
    std::vector<Diagnostic> warnings;
    const KernelInfo* find_kernel(const std::string& name) const;
};

std::shared_ptr<CompiledModule> compile_module(const std::vector<ModuleSource>& sources, const CompileOptions& options);

// Front end only (for `weft compile --emit ast|ir` and the fuzzers): never throws on bad input;
// diagnostics are left in `diags`.
std::shared_ptr<CompiledModule> analyze_module(const std::vector<ModuleSource>& sources, const CompileOptions& options,
                                               DiagnosticEngine& diags);

// Version string of the compiler; part of every cache key.
const char* compiler_version();

}  // namespace weft::compiler
