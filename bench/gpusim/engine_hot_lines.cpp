// bench/gpusim/engine_hot_lines.cpp: the engine's solver kernels on gpusim, per source line, for
// the check of gpusim's hot lines against Nsight Compute's source view (issue 21; what the
// viewer's frame profile shows).
//
//   engine_hot_lines SCENE.toml [--launches N] [--device sim:ARCH]
//
// Runs the scene's first N launches (default 48: one frame's substeps, one by one, no graph) on
// the sim device, exactly as `weft run --no-graph` launches them on cuda:0 under ncu
// (scripts/h200-heldout), and prints one JSON line per kernel symbol:
//   {"kernel": SYMBOL, "launches": K, "lines": [[FILE, LINE, WARP_CYCLES], ...],
//    "sass": [[FILE, LINE] or null, ...], "ops": [OPCODE, ...]}
// `lines`: the warp-cycles gpusim spent at each source line (issued plus stalled, summed over
// the kernel's launches); `sass`: for each SASS instruction of the kernel's machine code (ptxas
// on the module's sm_90 PTX, the code the H200 ran), the source line gpusim attributes the PTX
// instruction it came from to, so that ncu's per-SASS-instruction warp samples can be summed
// per source line (gpusim/validation/hot_lines.py compares the two). `ops`: each of those SASS
// instructions' 12-bit opcode, for aligning this code with the one the GPU ran when the two differ.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "engine/solver_kernels.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_map.h"
#include "runtime/cuda/ptx.h"
#include "runtime/sim/sim_backend.h"
#include "support/json.h"

using namespace weft;

namespace {

struct KernelLines {
    int launches = 0;
    std::map<std::pair<std::string, int>, uint64_t> cycles;  // (file, line) -> warp-cycles
    std::map<int32_t, std::pair<std::string, int>> by_ptx_line;
};

// A solver module's SASS, and the source line of every PTX line (from its .loc directives, the
// call site for inlined code, as the reports attribute: also for instructions no launch ran).
struct ModuleSass {
    gpusim::SassMap sass;
    std::map<int32_t, std::pair<std::string, int>> lines;
};

// The SASS of `symbol` in one of the solver modules (the first whose PTX has it), and its module.
const gpusim::KernelSass* find_sass(const std::string& symbol, const gpusim::ArchSpec& arch,
                                    std::map<std::string, ModuleSass>& maps, const ModuleSass** module) {
    for (const auto& [group, files] : engine::solver_module_groups()) {
        (void)files;
        auto it = maps.find(group);
        if (it == maps.end()) {
            const std::string ptx =
                runtime::generate_ptx(engine::solver_module(group)->compiled(), arch.sm_target(), compiler::CodePart::Forward);
            ModuleSass m;
            m.sass = gpusim::map_sass(ptx, arch);
            const gpusim::Module parsed = gpusim::parse_ptx(ptx, group + ".ptx");
            for (const gpusim::Instr& in : parsed.instructions()) {
                if (in.loc < 0) continue;
                const gpusim::SourceLoc& loc = parsed.locations()[static_cast<size_t>(in.loc)];
                const int32_t f = loc.report_file();
                if (f >= 0 && static_cast<size_t>(f) < parsed.files().size() && loc.report_line() > 0)
                    m.lines[in.ptx_line] = {parsed.files()[static_cast<size_t>(f)], loc.report_line()};
            }
            it = maps.emplace(group, std::move(m)).first;
        }
        auto k = it->second.sass.kernels.find(symbol);
        if (k != it->second.sass.kernels.end()) {
            *module = &it->second;
            return &k->second;
        }
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s SCENE.toml [--launches N] [--device sim:ARCH]\n", argv[0]);
        return 2;
    }
    int launches = 48;
    std::string device = "sim:h200";
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--launches" && i + 1 < argc)
            launches = std::stoi(argv[++i]);
        else if (a == "--device" && i + 1 < argc)
            device = argv[++i];
        else {
            std::fprintf(stderr, "engine_hot_lines: unknown option '%s'\n", a.c_str());
            return 2;
        }
    }
    try {
        engine::Scene scene = engine::load_scene(argv[1]);
        const runtime::Device dev = runtime::parse_device(device);
        if (dev.kind != runtime::DeviceKind::Sim) throw std::runtime_error("--device must be a sim device, got " + device);
        engine::Model model = scene.builder.finalize(device);
        engine::State a = model.state(), b = model.state();
        auto integrator = engine::create_integrator(scene.solver, scene.solver_options);
        const uint64_t mark = runtime::sim_report_mark();
        for (int s = 0; s < scene.substeps && runtime::sim_report_mark() - mark < static_cast<uint64_t>(launches); ++s) {
            integrator->simulate(model, a, b, scene.dt());
            std::swap(a, b);
        }
        std::map<std::string, KernelLines> kernels;
        std::vector<std::string> order;
        for (const auto& r : runtime::sim_reports_since(mark)) {
            if (r->sequence - mark >= static_cast<uint64_t>(launches)) break;
            KernelLines& k = kernels[r->symbol];
            if (k.launches++ == 0) order.push_back(r->symbol);
            std::map<int32_t, std::string> file_names;
            const auto& counts = r->result.counts;
            for (size_t i = 0; i < counts.per_line.size(); ++i) {
                file_names[counts.per_line[i].file] = counts.per_line[i].file_name;
                k.cycles[{counts.per_line[i].file_name, counts.per_line[i].line}] += r->result.per_line[i].warp_cycles();
            }
            for (const auto& in : counts.per_instruction)
                if (in.line > 0) k.by_ptx_line[in.ptx_line] = {file_names[in.file], in.line};
        }
        std::map<std::string, ModuleSass> maps;
        const gpusim::ArchSpec& arch = runtime::sim_arch(dev.arch);
        for (const std::string& sym : order) {
            const KernelLines& k = kernels[sym];
            std::string out = "{\"kernel\": " + ("\"" + support::json_escape(sym) + "\"") +
                              ", \"launches\": " + std::to_string(k.launches) + ", \"lines\": [";
            bool first = true;
            for (const auto& [where, cycles] : k.cycles) {
                out += std::string(first ? "" : ", ") + "[" + ("\"" + support::json_escape(where.first) + "\"") + ", " +
                       std::to_string(where.second) + ", " + std::to_string(cycles) + "]";
                first = false;
            }
            out += "], \"sass\": [";
            std::string ops;
            const ModuleSass* module = nullptr;
            if (const gpusim::KernelSass* ks = find_sass(sym, arch, maps, &module))
                for (size_t i = 0; i < ks->code.size(); ++i) {
                    // The line the reports gave the PTX instruction, or for one no launch ran, its .loc's.
                    const std::pair<std::string, int>* where = nullptr;
                    if (auto at = k.by_ptx_line.find(ks->code[i].ptx_line); at != k.by_ptx_line.end())
                        where = &at->second;
                    else if (auto lo = module->lines.find(ks->code[i].ptx_line); lo != module->lines.end())
                        where = &lo->second;
                    out += i ? ", " : "";
                    out += where == nullptr ? "null"
                                            : "[" + ("\"" + support::json_escape(where->first) + "\"") + ", " +
                                                  std::to_string(where->second) + "]";
                    ops += (i ? ", " : "") + std::to_string(ks->code[i].lo & 0xfff);
                }
            out += "], \"ops\": [" + ops + "]}";
            std::printf("%s\n", out.c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "engine_hot_lines: %s\n", e.what());
        return 1;
    }
    return 0;
}
