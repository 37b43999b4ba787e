// `weft audit`: static checks of a module's kernels, with witnesses (docs/audit.md).
//
//   weft audit MODULE.py [--kernel K] [--dim N[,M]] [--shape name=AxB ...] [--block-dim B]
//                        [--arch h200|FILE.json] [--format text|json|sarif] [--dot DIR] [--werror]
//
// The IR checks are compiler/audit (bounds, divergence, barrier-divergence, shared-race,
// bank-conflict, uncoalesced). The `resources` check lives here because it needs the CUDA
// toolchain, which compiler/ must not depend on: the module's PTX comes from the runtime's
// generate_ptx (NVRTC, the PTX the cuda device runs) for the --arch file's target, ptxas -v
// reports registers, spills and shared memory per kernel (gpusim/arch/ptxas.h), and
// gpusim/arch/occupancy.h turns them into occupancy and a block size with the file's figures.
// Without NVRTC or ptxas the check reports occupancy from the static shared memory alone.
// The same ptxas run (with -lineinfo) gives the kernels' machine code: its shared loads and
// stores, with their widths and source lines (compiler/audit/compiled_shared.h, through
// gpusim/sass/sass_map's line table), so that bank conflicts and --counts cost the instructions
// ptxas actually emits (two 4-byte stores merged into one STS.64 are one request).
//
// Exit codes: 0 no errors (with --werror: no warnings either), 1 findings of that severity or
// compile errors, 2 usage.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "apps/arch_option.h"
#include "apps/cli.h"
#include "compiler/audit/audit.h"
#include "compiler/audit/shared_profile.h"
#include "compiler/driver.h"
#include "gpusim/arch/occupancy.h"
#include "gpusim/arch/ptxas.h"
#include "support/closest_name.h"
#include "support/json.h"

#if __has_include("runtime/cuda/ptx.h") && WEFT_HAVE_CUDA
#include "gpusim/sass/sass_map.h"
#include "runtime/cuda/ptx.h"
#define WEFT_AUDIT_PTX 1
#endif

namespace weft::apps {

namespace {

namespace audit = compiler::audit;

// "name=100", "name=100x3" -> (name, {100, 3}).
std::pair<std::string, std::vector<int64_t>> parse_shape(const std::string& s) {
    auto eq = s.find('=');
    auto bad = [&](const std::string& why) {
        return UsageError("invalid --shape '" + s + "': " + why + " (expected NAME=N or NAME=AxB, e.g. x=1024 or m=64x3)");
    };
    if (eq == std::string::npos || eq == 0) throw bad("no NAME=");
    std::string name = s.substr(0, eq), dims = s.substr(eq + 1);
    std::vector<int64_t> out;
    size_t pos = 0;
    while (true) {
        size_t x = dims.find('x', pos);
        std::string part = dims.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
            throw bad("'" + part + "' is not a positive integer");
        out.push_back(std::stoll(part));
        if (x == std::string::npos) break;
        pos = x + 1;
    }
    if (out.size() > 4) throw bad("at most 4 dimensions");
    return {name, out};
}

// ptxas -v -lineinfo on the module's PTX: each entry's resources, and each kernel's shared loads
// and stores into *code (by entry name). Empty map + reason on failure.
std::map<std::string, gpusim::KernelResources> ptxas_report(const compiler::CompiledModule& m, const gpusim::ArchSpec& arch,
                                                            const std::string& source_path,
                                                            std::map<std::string, audit::CompiledShared>* code,
                                                            std::string* why) {
    std::map<std::string, gpusim::KernelResources> info;
#ifdef WEFT_AUDIT_PTX
    std::string ptx;
    try {
        ptx = runtime::generate_ptx(m, arch.sm_target(), compiler::CodePart::Forward);  // what forward launches run
    } catch (const std::exception& e) {
        *why = std::string("no PTX: ") + e.what();
        return info;
    }
    gpusim::PtxasOptions options;
    options.lineinfo = true;
    if (!std::filesystem::exists(options.ptxas)) {
        *why = "ptxas not found at " + options.ptxas + " (set WEFT_PTXAS)";
        return info;
    }
    gpusim::PtxasOutput out;
    try {
        out = gpusim::run_ptxas(ptx, arch, options);
    } catch (const gpusim::PtxasError& e) {
        *why = "ptxas failed: " + e.log().substr(0, 400);
        return info;
    }
    try {
        gpusim::SassMap sass = gpusim::read_sass_map(out.cubin);
        std::map<int, int> lines = audit::ptx_source_lines(ptx, source_path);
        for (const auto& [entry, k] : sass.kernels) {
            std::vector<audit::SassWord> words;
            for (const auto& w : k.code) words.push_back({w.lo, w.hi, w.ptx_line});
            (*code)[entry] = audit::compiled_shared_ops(words, lines);
        }
    } catch (const std::exception& e) {
        *why = std::string("cannot read ptxas's machine code: ") + e.what();
        code->clear();
    }
    info = gpusim::parse_ptxas_report(out.log);
#else
    (void)m;
    (void)arch;
    (void)source_path;
    (void)code;
    *why = "this build has no CUDA (NVRTC), so registers are not known";
#endif
    return info;
}

// "shared memory" for the text, where occupancy_limit_name says "shared_memory".
std::string limit_text(gpusim::OccupancyLimit l) {
    std::string s = gpusim::occupancy_limit_name(l);
    for (char& c : s)
        if (c == '_') c = ' ';
    return s;
}

audit::Finding resources_finding(const compiler::ir::Function& k, const gpusim::ArchSpec& arch, int block,
                                 const std::map<std::string, gpusim::KernelResources>& ptxas, const std::string& why) {
    audit::Finding f;
    f.check = audit::Check::Resources;
    f.severity = audit::FindingSeverity::Note;
    f.kernel = k.name;
    f.loc = audit::capture_loc(k.loc);
    const gpusim::KernelResources* pi = nullptr;
    for (const auto& [name, p] : ptxas)
        if (name == k.name + "_cuda" || name.rfind(k.name + "_cuda", 0) == 0) {
            pi = &p;
            break;
        }
    int smem = pi ? static_cast<int>(pi->shared_bytes) : static_cast<int>(k.shared_bytes);
    int regs = pi ? pi->registers : 32;
    gpusim::Occupancy o = gpusim::occupancy(arch, block, regs, static_cast<uint32_t>(smem));
    char buf[400];
    if (pi) {
        snprintf(buf, sizeof buf,
                 "%d registers, %d bytes shared memory per block, %u bytes spilled (stores), %u bytes stack frame (local memory "
                 "per thread) on %s (%s)",
                 pi->registers, smem, pi->spill_stores, pi->stack_bytes, arch.name.c_str(), arch.sm_target().c_str());
        if (pi->spill_stores > 0 || pi->spill_loads > 0) f.severity = audit::FindingSeverity::Warning;
    } else {
        snprintf(buf, sizeof buf, "%d bytes static shared memory per block on %s; registers unknown (%s), 32 assumed", smem,
                 arch.name.c_str(), why.c_str());
    }
    f.message = buf;
    snprintf(buf, sizeof buf, "block of %d threads: %d blocks (%d warps) per SM, theoretical occupancy %.0f%%, limited by %s",
             block, o.blocks_per_sm, o.active_warps_per_sm, 100.0 * o.theoretical, limit_text(o.limiter).c_str());
    f.notes.push_back({{}, buf});
    snprintf(buf, sizeof buf, "limits in blocks per SM: warps %d, blocks %d, registers %d, shared memory %d", o.limit_warps,
             o.limit_blocks, o.limit_registers, o.limit_shared);
    f.notes.push_back({{}, buf});
    int rec = gpusim::recommended_block_size(arch, regs, static_cast<uint32_t>(smem));
    if (k.block_dim == 0 && rec != block) {
        gpusim::Occupancy r = gpusim::occupancy(arch, rec, regs, static_cast<uint32_t>(smem));
        snprintf(buf, sizeof buf, "recommended block size: %d (occupancy %.0f%%)", rec, 100.0 * r.theoretical);
        f.notes.push_back({{}, buf});
    }
    return f;
}

}  // namespace

int cmd_audit(const std::vector<std::string>& argv) {
    Args args(argv, {"kernel", "dim", "shape", "arch", "format", "dot", "block-dim", "max-constant-bytes", "counts", "arg"},
              {"werror", "help", "no-resources"});
    if (args.flag("help")) {
        printf(
            "usage: weft audit MODULE.py [--kernel K] [--dim N[,M]] [--shape name=AxB ...] [--block-dim B]\n"
            "                  [--arch h200|FILE.json] [--format text|json|sarif] [--dot DIR] [--werror] [--no-resources]\n"
            "                  [--arg NAME=VALUE ...] [--max-constant-bytes N (64)] [--counts FILE.json]\n"
            "Static checks of kernels: bounds, divergence, barrier-divergence, shared-race, bank-conflict,\n"
            "uncoalesced, oversize-constant, resources. Silence one on a line with '# weft: ignore[check-id]'.\n"
            "--counts writes the predicted shared-memory requests and wavefronts of the launch (per kernel).\n");
        return 0;
    }
    // --shape may repeat; Args keeps the last, so collect them from argv directly.
    std::map<std::string, std::vector<int64_t>> shapes;
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string value;
        if (argv[i] == "--shape" && i + 1 < argv.size())
            value = argv[++i];
        else if (argv[i].rfind("--shape=", 0) == 0)
            value = argv[i].substr(8);
        else
            continue;
        auto [name, dims] = parse_shape(value);
        shapes[name] = dims;
    }
    // --arg NAME=VALUE may repeat too: an int or bool parameter's value for the whole launch.
    std::map<std::string, int64_t> int_args;
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string value;
        if (argv[i] == "--arg" && i + 1 < argv.size())
            value = argv[++i];
        else if (argv[i].rfind("--arg=", 0) == 0)
            value = argv[i].substr(6);
        else
            continue;
        auto eq = value.find('=');
        std::string v = eq == std::string::npos ? "" : value.substr(eq + 1);
        size_t digits = v.rfind('-', 0) == 0 ? 1 : 0;
        if (eq == std::string::npos || eq == 0 || v.size() <= digits || v.size() > 18 ||
            v.find_first_not_of("0123456789", digits) != std::string::npos)
            throw UsageError("invalid --arg '" + value + "': expected NAME=INTEGER, e.g. n=1000");
        int_args[value.substr(0, eq)] = std::stoll(v);
    }
    if (args.positional().size() != 1)
        throw UsageError("expected one MODULE.py, got " + std::to_string(args.positional().size()));
    std::string path = args.positional()[0];
    std::string format = args.get_or("format", "text");
    if (format != "text" && format != "json" && format != "sarif")
        throw UsageError("--format takes text, json or sarif; got '" + format + "'");
    const gpusim::ArchSpec arch = arch_option(args);
    audit::AuditOptions options;
    if (auto d = args.get("dim")) options.dims = parse_dims(*d);
    options.shapes = shapes;
    options.args = int_args;
    if (auto b = args.get("block-dim")) {
        auto v = parse_dims(*b);
        if (v.size() != 1 || v[0] < 1 || v[0] > 1024) throw UsageError("invalid --block-dim '" + *b + "': expected 1 to 1024");
        options.block_dim = static_cast<int>(v[0]);
    }
    if (auto c = args.get("max-constant-bytes")) {
        if (c->empty() || c->size() > 9 || c->find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("invalid --max-constant-bytes '" + *c + "': expected a number of bytes");
        options.max_constant_bytes = std::stoll(*c);
    }

    compiler::DiagnosticEngine diags;
    std::vector<compiler::ModuleSource> sources = module_sources(path);
    auto m = compiler::analyze_module(sources, {}, diags);
    std::string text = diags.format_all();
    if (!text.empty()) fputs(text.c_str(), stderr);
    if (diags.has_errors()) return 1;

    std::vector<const compiler::ir::Function*> kernels;
    std::string only = args.get_or("kernel", "");
    // The kernels of the named file (not those of the modules it imports).
    auto own = [&](const compiler::ir::Function& f) { return !f.loc.file || f.loc.file->path == path; };
    for (const auto& f : m->ir->functions)
        if (f->kind == compiler::ir::FunctionKind::Kernel && own(*f) && (only.empty() || f->name == only))
            kernels.push_back(f.get());
    if (!only.empty() && kernels.empty()) {
        std::vector<std::string> names;
        for (const auto& f : m->ir->functions)
            if (f->kind == compiler::ir::FunctionKind::Kernel) names.push_back(f->name);
        std::string near = support::closest_name(only, names);
        throw UsageError("module '" + path + "' has no kernel '" + only + "'" +
                         (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    for (const auto& [name, dims] : shapes) {
        bool found = false;
        for (const auto* k : kernels)
            for (const auto* p : k->params)
                if (p->name == name && compiler::is_array(p->type)) {
                    found = true;
                    if (static_cast<int>(dims.size()) != p->type->ndim)
                        throw UsageError("--shape " + name + " has " + std::to_string(dims.size()) + " dimension(s), but '" +
                                         name + "' in kernel '" + k->name + "' has " + std::to_string(p->type->ndim));
                }
        if (!found) throw UsageError("--shape names '" + name + "', which is no array parameter of the audited kernel(s)");
    }

    for (const auto& [name, value] : int_args) {
        bool found = false;
        for (const auto* k : kernels)
            for (const auto* p : k->params)
                if (p->name == name && compiler::is_scalar(p->type) && !compiler::is_float(p->type)) found = true;
        if (!found) throw UsageError("--arg names '" + name + "', which is no int or bool parameter of the audited kernel(s)");
    }

    std::string dot_dir = args.get_or("dot", "");
    if (!dot_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dot_dir, ec);
        if (ec) throw UsageError("cannot create --dot directory '" + dot_dir + "': " + ec.message());
    }
    // ptxas runs for the resources check and for the machine code's shared access widths
    // (bank conflicts, --counts); --no-resources only drops the resources finding.
    std::map<std::string, gpusim::KernelResources> ptxas;
    std::map<std::string, audit::CompiledShared> code;  // by entry name (KERNEL_cuda)
    std::string ptxas_why;
    bool resources = !args.flag("no-resources");
    try {
        compiler::generate_code(*m, {});
        ptxas = ptxas_report(*m, arch, path, &code, &ptxas_why);
    } catch (const std::exception& e) { ptxas_why = e.what(); }
    options.no_machine_code = ptxas_why.empty() ? "ptxas made no code for the kernel" : ptxas_why;
    for (const auto* k : kernels)
        if (auto it = code.find(k->name + "_cuda"); it != code.end()) options.machine_code[k->name] = it->second;

    std::vector<audit::Finding> findings;
    for (const auto* k : kernels) {
        std::string dot;
        auto fs = audit::audit_kernel(*m->ir, *k, options, dot_dir.empty() ? nullptr : &dot);
        findings.insert(findings.end(), fs.begin(), fs.end());
        if (!dot_dir.empty()) {
            std::ofstream out(std::filesystem::path(dot_dir) / (k->name + ".dot"));
            out << dot;
        }
        if (resources) {
            int block = audit::launch_model(*k, options).block_dim;
            audit::Finding r = resources_finding(*k, arch, block, ptxas, ptxas_why);
            if (!audit::is_suppressed(r)) findings.push_back(std::move(r));
        }
    }
    if (auto counts = args.get("counts")) {
        std::ofstream out(*counts);
        if (!out) throw UsageError("cannot write --counts file '" + *counts + "'");
        out << "{\"module\": \"" << support::json_escape(path) << "\", \"kernels\": [";
        for (size_t i = 0; i < kernels.size(); ++i) {
            const auto* k = kernels[i];
            audit::LaunchModel lm = audit::launch_model(*k, options);
            audit::SharedProfile p = audit::shared_profile(*k, lm, audit::machine_code(*k, options));
            auto c = [](const audit::SharedCounters& x) {
                return "{\"requests\": " + std::to_string(x.requests) + ", \"wavefronts\": " + std::to_string(x.wavefronts) +
                       ", \"ideal\": " + std::to_string(x.ideal) + "}";
            };
            out << (i ? ", " : "") << "{\"kernel\": \"" << support::json_escape(k->name) << "\", \"block_dim\": " << lm.block_dim
                << ", \"blocks\": " << p.blocks << ", \"shared_bytes\": " << k->shared_bytes
                << ", \"exact\": " << (p.exact ? "true" : "false") << ", \"why\": \"" << support::json_escape(p.why)
                << "\", \"ld\": " << c(p.load) << ", \"st\": " << c(p.store) << ", \"ld_forwarded\": " << c(p.forwarded)
                << ", \"atomic_requests\": " << p.atomic_requests << ", \"widths\": \""
                << (p.from_machine_code ? "machine code" : "as written") << "\", \"merged_requests\": " << p.merged_requests
                << "}";
        }
        out << "]}\n";
    }
    int errors = 0, warnings = 0;
    for (const auto& f : findings) {
        if (f.severity == audit::FindingSeverity::Error) ++errors;
        if (f.severity == audit::FindingSeverity::Warning) ++warnings;
    }
    if (format == "json") {
        std::cout << audit::format_json(findings);
    } else if (format == "sarif") {
        std::cout << audit::format_sarif(findings, compiler::compiler_version());
    } else {
        for (const auto& f : findings) std::cout << audit::format_text(f);
        std::cout << path << ": " << kernels.size() << " kernel(s) audited: " << errors << " error(s), " << warnings
                  << " warning(s), " << (findings.size() - static_cast<size_t>(errors + warnings)) << " note(s)\n";
    }
    return (errors > 0 || (args.flag("werror") && warnings > 0)) ? 1 : 0;
}

}  // namespace weft::apps
