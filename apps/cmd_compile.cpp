// `weft compile`: check a kernel module and print one of its forms.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>

#include "apps/arch_option.h"
#include "apps/cli.h"
#include "compiler/frontend/parser.h"
#include "compiler/driver.h"
#include "compiler/ir/ir.h"
#include "support/closest_name.h"

#if __has_include("runtime/cuda/ptx.h") && WEFT_HAVE_CUDA
#include "runtime/cuda/ptx.h"
#define WEFT_CLI_PTX 1
#endif

namespace weft::apps {

std::string read_source(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<compiler::ModuleSource> module_sources(const std::string& path) {
    namespace fs = std::filesystem;
    std::vector<compiler::ModuleSource> out;
    std::set<std::string> seen;
    // Depth first, imports before importers; a file is added once (import cycles end there).
    std::function<void(const std::string&)> add = [&](const std::string& file) {
        const std::string key = fs::weakly_canonical(file).string();
        if (!seen.insert(key).second) return;
        std::string text = read_source(file);
        compiler::DiagnosticEngine ignored;  // the real compile reports any syntax error
        compiler::ast::Module parsed = compiler::parse_module(file, text, ignored);
        for (const auto& imp : parsed.imports) {
            fs::path sibling = fs::path(file).parent_path() / (imp.module + ".py");
            if (imp.module != "weft" && imp.module != "warp" && fs::is_regular_file(sibling))
                add(sibling.lexically_normal().string());
        }
        out.push_back({file, std::move(text), 0});
    };
    add(path);
    return out;
}

int cmd_compile(const std::vector<std::string>& argv) {
    Args args(argv, {"kernel", "emit", "arch", "part"}, {"debug", "help"});
    if (args.flag("help")) {
        printf(
            "usage: weft compile MODULE.py [--kernel NAME] [--emit ast|ir|cpp|ptx] [--part all|forward|backward]\n"
            "                  [--arch h200|FILE.json] [--debug]\n"
            "Checks the module and prints diagnostics; with --emit, prints that form of it. --emit ptx\n"
            "targets the architecture file's sm_XX (h200: sm_90; the files are gpusim/arch/*.json).\n"
            "--part (with --emit cpp or ptx): the whole module (all, the default; what the cpu device\n"
            "compiles), or the half that the cuda and sim devices compile at a first forward launch\n"
            "(forward) or at a first backward launch (backward).\n");
        return 0;
    }
    if (args.positional().size() != 1)
        throw UsageError("expected one MODULE.py, got " + std::to_string(args.positional().size()));
    std::string path = args.positional()[0];
    const gpusim::ArchSpec arch = arch_option(args);
    std::string emit = args.get_or("emit", "");
    if (!emit.empty() && emit != "ast" && emit != "ir" && emit != "cpp" && emit != "ptx")
        throw UsageError("--emit takes ast, ir, cpp or ptx; got '" + emit + "'");
    const std::string part_name = args.get_or("part", "all");
    compiler::CodePart part = compiler::CodePart::All;
    if (part_name == "forward")
        part = compiler::CodePart::Forward;
    else if (part_name == "backward")
        part = compiler::CodePart::Backward;
    else if (part_name != "all")
        throw UsageError("--part takes all, forward or backward; got '" + part_name + "'");
    if (args.get("part") && emit != "cpp" && emit != "ptx") throw UsageError("--part goes with --emit cpp or --emit ptx");
    compiler::CompileOptions opts;
    opts.debug = args.flag("debug");
    std::vector<compiler::ModuleSource> sources = module_sources(path);
    compiler::DiagnosticEngine diags;
    auto m = compiler::analyze_module(sources, opts, diags);
    std::string text = diags.format_all();
    if (!text.empty()) fputs(text.c_str(), stderr);
    if (diags.has_errors()) return 1;
    std::string kernel = args.get_or("kernel", "");
    if (!kernel.empty() && !m->ir->find(kernel)) {
        std::vector<std::string> names;
        for (const auto& f : m->ir->functions) names.push_back(f->name);
        std::string near = support::closest_name(kernel, names);
        throw UsageError("module '" + path + "' has no kernel or func '" + kernel + "'" +
                         (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    if (emit == "ast") {
        std::cout << compiler::ast::dump(m->ast);
    } else if (emit == "ir") {
        if (!kernel.empty())
            std::cout << compiler::ir::print(*m->ir->find(kernel));
        else
            std::cout << compiler::ir::print(*m->ir);
    } else if (emit == "cpp" || emit == "ptx") {
        compiler::generate_code(*m, opts);
        if (part == compiler::CodePart::Backward && m->gen.backward_cpp.empty())
            throw UsageError("module '" + path +
                             "' has no backward entries (no kernel has an adjoint): --part backward is empty");
        if (emit == "cpp") {
            std::cout << m->gen.source(part);
        } else {
#ifdef WEFT_CLI_PTX
            std::cout << runtime::generate_ptx(*m, arch.sm_target(), part);
#else
            throw UsageError("--emit ptx needs a build with CUDA (NVRTC); this one has none");
#endif
        }
    } else {
        size_t nk = 0, nf = 0;
        for (const auto& f : m->ir->functions) (f->kind == compiler::ir::FunctionKind::Kernel ? nk : nf)++;
        printf("%s: %zu kernel(s), %zu func(s), %zu struct(s): OK\n", path.c_str(), nk, nf, m->ir->structs.size());
    }
    return 0;
}

}  // namespace weft::apps
