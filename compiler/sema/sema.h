// Semantic analysis: ast::Module -> ir::Module.
//
// Resolves names (locals, parameters, module constants, structs, funcs, the weft module's
// builtins and types), infers the type of every local from its first assignment, resolves
// overloads against the builtin table, folds constants, and lowers every statement and
// expression to the typed IR. Errors go to the DiagnosticEngine; analysis continues after an
// error where that is sensible, so one run reports several problems.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "compiler/ast/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/ir/ir.h"

namespace weft::compiler {

struct SemaOptions {
    std::string module_key = "module";  // distinguishes structs of different modules
    // Generic kernels to instantiate: kernel name -> the type of each parameter (nullptr: as
    // annotated). A generic kernel not named here is a template and is not lowered.
    std::map<std::string, std::vector<Type>> kernel_arg_types;
};

// Returns the IR module; it is complete only when `diags.has_errors()` is false.
std::unique_ptr<ir::Module> analyze(const ast::Module& module, DiagnosticEngine& diags, const SemaOptions& options);

}  // namespace weft::compiler
