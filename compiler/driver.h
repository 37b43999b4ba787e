// The compile driver: source text -> C++ source, as a list of passes (like Halide's Lower.cpp).
//
//   parse                 source text -> syntax tree                      frontend/parser.h
//   sema                  syntax tree -> typed IR                         sema/sema.h
//   check_differentiable  missing adjoints are errors                     passes/check_differentiable.h
//   param_access          which arrays each kernel reads and writes       passes/param_access.h
//   lower_jumps           break/continue/return -> flags, in every body   passes/lower_jumps.h
//                         an adjoint reverses
//   codegen               forward and adjoint C++, one translation unit   codegen/cpp_codegen.h
//
//   auto m = compile_module({{"kernels/foo.py", text}}, {});
//   m->ir       typed IR (audits and the adjoint read it)
//   m->gen.cpp  the C++ translation unit; m->gen.kernels the kernels' launch metadata
//
// Errors raise CompileError carrying every diagnostic of the run, formatted clang-style.
//
// WEFT_DUMP_IR=<pass>[,<pass>...] (or =all) prints to stderr what a pass made: the syntax tree after
// parse, the IR after sema and check_differentiable, the arrays read and written after
// param_access, the jump-free bodies after lower_jumps, the C++ after codegen. An unknown name is an
// error (std::invalid_argument) that lists the passes. The IR verifier (ir::verify) runs after
// every pass that leaves IR when WEFT_VERIFY_IR=1 is set, and always in debug builds of the
// compiler; a failure is an internal error (std::logic_error) naming the pass. docs/compiler.md
// describes the pipeline.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/codegen/cpp_codegen.h"
#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"

namespace weft::compiler {

struct ModuleSource {
    std::string path;  // shown in diagnostics and #line directives
    std::string text;
    int line_offset = 0;  // the text starts at line (line_offset + 1) of `path`
};

struct CompileOptions {
    bool debug = false;             // bounds-checked array accesses in the generated code
    std::string module_key;         // default: the first source's path
    int adjoint_tape_bytes = 4096;  // per-thread tape of backward kernels (docs/autodiff.md)
    // Generic kernels (Warp's `Any` parameters) to instantiate: kernel name -> each parameter's
    // type (nullptr: as annotated). Unnamed generic kernels are templates and produce no code.
    std::map<std::string, std::vector<Type>> kernel_arg_types;
    // Not part of the output (nor of any cache key):
    std::string dump_ir;              // passes to dump after, as WEFT_DUMP_IR; default: $WEFT_DUMP_IR
    std::ostream* dump_to = nullptr;  // where dumps go; default std::cerr
    bool verify_ir = false;           // verify after every pass; also on with WEFT_VERIFY_IR=1
};

struct CompiledModule {
    ast::Module ast;  // owns the source files that locations point into
    std::unique_ptr<ir::Module> ir;
    PassResults passes;  // param_access and lower_jumps, for codegen
    GeneratedSource gen;
    std::vector<Diagnostic> warnings;
    const KernelInfo* find_kernel(const std::string& name) const;
};

// The whole pipeline. Throws CompileError on bad source.
std::shared_ptr<CompiledModule> compile_module(const std::vector<ModuleSource>& sources, const CompileOptions& options);

// The pipeline in three parts, for `weft compile --emit`, `weft audit` and the fuzzers:
// parse and sema (never throws on bad input; diagnostics are left in `diags`) ...
std::shared_ptr<CompiledModule> analyze_module(const std::vector<ModuleSource>& sources, const CompileOptions& options,
                                               DiagnosticEngine& diags);
// ... the checks that only report (check_differentiable) ...
void check_module(CompiledModule& m, const CompileOptions& options, DiagnosticEngine& diags);
// ... and, on a module without errors, param_access, lower_jumps and codegen (fills m.passes, m.gen).
void generate_code(CompiledModule& m, const CompileOptions& options);

// The names WEFT_DUMP_IR accepts besides `all`, in pipeline order.
const std::vector<std::string>& pass_names();

// Version string of the compiler; part of every cache key.
const char* compiler_version();

}  // namespace weft::compiler
