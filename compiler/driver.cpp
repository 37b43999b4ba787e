// The compile driver: the pipeline, pass by pass. See driver.h.
//
// Each step is one call, followed by `after(<pass>)`, which prints what the pass made when
// WEFT_DUMP_IR names it and runs the IR verifier when verification is on. Read top to bottom,
// analyze_module, check and generate_code are the whole compiler.
#include "compiler/driver.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "compiler/frontend/parser.h"
#include "compiler/passes/check_differentiable.h"
#include "compiler/passes/lower_jumps.h"
#include "compiler/passes/param_access.h"
#include "compiler/sema/sema.h"

namespace weft::compiler {

const KernelInfo* CompiledModule::find_kernel(const std::string& name) const {
    for (const auto& k : gen.kernels)
        if (k.name == name) return &k;
    return nullptr;
}

const char* compiler_version() { return "weft-compiler 0.1.0"; }

const std::vector<std::string>& pass_names() {
    static const std::vector<std::string> names = {"parse",        "sema",        "check_differentiable",
                                                   "param_access", "lower_jumps", "codegen"};
    return names;
}

namespace {

// Debug builds of the compiler verify after every pass; others when asked to.
#ifdef WEFT_VERIFY_IR
constexpr bool kVerifyAlways = true;
#else
constexpr bool kVerifyAlways = false;
#endif

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0;
}

// Dumping and verifying between passes.
class PassLog {
public:
    PassLog(const CompiledModule& m, const CompileOptions& o) : m_(m) {
        std::string spec = !o.dump_ir.empty() ? o.dump_ir : std::getenv("WEFT_DUMP_IR") ? std::getenv("WEFT_DUMP_IR") : "";
        std::stringstream list(spec);
        for (std::string name; std::getline(list, name, ',');) {
            if (name.empty()) continue;
            bool known = name == "all";
            for (const auto& n : pass_names()) known = known || n == name;
            if (!known) {
                std::string valid;
                for (const auto& n : pass_names()) valid += n + ", ";
                throw std::invalid_argument("WEFT_DUMP_IR: unknown pass '" + name + "'; the passes are " + valid +
                                            "and 'all' prints after each of them");
            }
            dump_.push_back(name);
        }
        out_ = o.dump_to ? o.dump_to : &std::cerr;
        verify_ = kVerifyAlways || o.verify_ir || env_on("WEFT_VERIFY_IR");
    }

    void after(const std::string& pass, bool ir_valid = true) {
        if (dumps(pass)) *out_ << "; after " << pass << "\n" << text_after(pass);
        if (verify_ && ir_valid) verify(pass);
    }

private:
    bool dumps(const std::string& pass) const {
        for (const auto& d : dump_)
            if (d == pass || d == "all") return true;
        return false;
    }

    // What a pass made: the syntax tree, the IR, an analysis' result, the jump-free bodies, C++.
    std::string text_after(const std::string& pass) const {
        if (pass == "parse") return ast::dump(m_.ast);
        if (pass == "codegen") return m_.gen.cpp;
        if (pass == "param_access") {
            std::string s;
            for (const auto& f : m_.ir->functions) {
                auto it = m_.passes.param_access.find(f.get());
                if (it == m_.passes.param_access.end()) continue;
                const std::vector<passes::ParamAccess>& access = it->second;
                for (size_t i = 0; i < access.size(); ++i)
                    if (access[i].read || access[i].written)
                        s += f->name + "." + f->params[i]->name + ":" + (access[i].read ? " read" : "") +
                             (access[i].written ? " written" : "") + "\n";
            }
            return s;
        }
        if (pass == "lower_jumps") {
            std::string s;
            for (const auto& f : m_.ir->functions)
                if (auto it = m_.passes.jump_free.find(f.get()); it != m_.passes.jump_free.end())
                    s += ir::print(*f, it->second.body, it->second.vars);
            return s;
        }
        return m_.ir ? ir::print(*m_.ir) : "";
    }

    void verify(const std::string& pass) const {
        if (!m_.ir || pass == "parse" || pass == "codegen") return;  // no IR before sema; codegen makes C++
        for (const auto& f : m_.ir->functions) {
            std::string err = ir::verify(*f);
            if (err.empty() && pass == "lower_jumps")
                if (auto it = m_.passes.jump_free.find(f.get()); it != m_.passes.jump_free.end())
                    err = ir::verify(*f, it->second.body, it->second.vars);
            if (!err.empty()) throw std::logic_error("internal error: the IR verifier failed after " + pass + ": " + err);
        }
    }

    const CompiledModule& m_;
    std::vector<std::string> dump_;
    std::ostream* out_ = nullptr;
    bool verify_ = false;
};

}  // namespace

std::shared_ptr<CompiledModule> analyze_module(const std::vector<ModuleSource>& sources, const CompileOptions& options,
                                               DiagnosticEngine& diags) {
    auto m = std::make_shared<CompiledModule>();
    PassLog log(*m, options);

    // parse: source text -> syntax tree, one file after another into one module
    for (const auto& s : sources) {
        auto f = std::make_unique<SourceFile>();
        f->path = s.path;
        f->text = s.text;
        f->line_offset = s.line_offset;
        parse_into(m->ast, std::move(f), diags);
    }
    log.after("parse");

    // sema: syntax tree -> typed IR (names resolved, overloads chosen, constants folded)
    SemaOptions so;
    so.kernel_arg_types = options.kernel_arg_types;
    so.module_key = !options.module_key.empty() ? options.module_key : sources.empty() ? "module" : sources[0].path;
    m->ir = analyze(m->ast, diags, so);
    log.after("sema", !diags.has_errors());
    return m;
}

void check_module(CompiledModule& m, const CompileOptions& options, DiagnosticEngine& diags) {
    PassLog log(m, options);

    // check_differentiable: a builtin without an adjoint on a differentiable path is an error
    if (!diags.has_errors() && m.ir) passes::check_differentiable(*m.ir, diags);
    log.after("check_differentiable", !diags.has_errors());
}

void generate_code(CompiledModule& m, const CompileOptions& options) {
    PassLog log(m, options);
    m.passes = {};

    // param_access: which arrays each kernel reads and writes (launch metadata; the Tape's check)
    for (const auto& f : m.ir->functions)
        if (f->kind == ir::FunctionKind::Kernel) m.passes.param_access[f.get()] = passes::param_access(*f);
    log.after("param_access");

    // lower_jumps: break / continue / return -> flags, in every body an adjoint reverses
    std::set<const ir::Function*> differentiated = passes::differentiated_funcs(*m.ir);
    for (const auto& f : m.ir->functions) {
        bool reversed =
            f->kind == ir::FunctionKind::Kernel ? passes::has_adjoint(*f) : differentiated.count(f.get()) && !f->custom_grad;
        if (reversed) m.passes.jump_free.emplace(f.get(), passes::lower_jumps(*f));
    }
    log.after("lower_jumps");

    // codegen: forward and adjoint C++ of every kernel and func, one translation unit
    CodegenOptions co;
    co.debug = options.debug;
    co.adjoint_tape_bytes = options.adjoint_tape_bytes;
    m.gen = generate_cpp(*m.ir, m.passes, co);
    log.after("codegen");
}

std::shared_ptr<CompiledModule> compile_module(const std::vector<ModuleSource>& sources, const CompileOptions& options) {
    DiagnosticEngine diags;
    auto m = analyze_module(sources, options, diags);
    check_module(*m, options, diags);
    if (diags.has_errors()) throw CompileError(diags.format_all(), diags.diagnostics());
    for (const auto& d : diags.diagnostics())
        if (d.severity == Severity::Warning) m->warnings.push_back(d);
    generate_code(*m, options);
    return m;
}

}  // namespace weft::compiler
