// The compile driver. See driver.h.
#include "compiler/driver.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "compiler/frontend/parser.h"
#include "compiler/passes/check_differentiable.h"
#include "compiler/sema/sema.h"

namespace weft::compiler {

const KernelInfo* CompiledModule::find_kernel(const std::string& name) const {
    for (const auto& k : gen.kernels)
        if (k.name == name) return &k;
    return nullptr;
}

const char* compiler_version() { return "weft-compiler 0.1.0"; }

std::shared_ptr<CompiledModule> analyze_module(const std::vector<ModuleSource>& sources, const CompileOptions& options,
                                               DiagnosticEngine& diags) {
    auto m = std::make_shared<CompiledModule>();
    for (const auto& s : sources) {
        auto f = std::make_unique<SourceFile>();
        f->path = s.path;
        f->text = s.text;
        f->line_offset = s.line_offset;
        parse_into(m->ast, std::move(f), diags);
    }
    SemaOptions so;
    so.module_key = !options.module_key.empty() ? options.module_key : sources.empty() ? "module" : sources[0].path;
    m->ir = analyze(m->ast, diags, so);
    const char* dump = std::getenv("WEFT_DUMP_IR");
    if (dump && (!strcmp(dump, "sema") || !strcmp(dump, "all")) && m->ir)
        std::cerr << "; IR after sema\n" << ir::print(*m->ir);
    return m;
}

std::shared_ptr<CompiledModule> compile_module(const std::vector<ModuleSource>& sources, const CompileOptions& options) {
    DiagnosticEngine diags;
    auto m = analyze_module(sources, options, diags);
    if (!diags.has_errors() && m->ir) passes::check_differentiable(*m->ir, diags);
    if (diags.has_errors()) throw CompileError(diags.format_all(), diags.diagnostics());
    for (const auto& d : diags.diagnostics())
        if (d.severity == Severity::Warning) m->warnings.push_back(d);
    CodegenOptions co;
    co.debug = options.debug;
    co.adjoint_tape_bytes = options.adjoint_tape_bytes;
    m->gen = generate_cpp(*m->ir, co);
    return m;
}

}  // namespace weft::compiler
