// gpusim/arch/ptxas.cpp — running ptxas and reading its resource report (ptxas.h).
#include "gpusim/arch/ptxas.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace weft::gpusim {

std::string ptxas_path() {
    const char* env = std::getenv("WEFT_PTXAS");
    return env && *env ? env : "/usr/local/cuda/bin/ptxas";
}

PtxasOutput run_ptxas(const std::string& ptx, const ArchSpec& arch, const PtxasOptions& options) {
    char tmpl[] = "/tmp/gpusim-ptxas-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) throw PtxasError("run_ptxas: cannot create a temporary file", "");
    close(fd);
    const std::string base = tmpl, ptx_path = base + ".ptx", cubin_path = base + ".cubin", log_path = base + ".log";
    std::remove(tmpl);
    std::ofstream(ptx_path, std::ios::binary) << ptx;
    const std::string cmd = "'" + options.ptxas + "'" + (options.verbose ? " -v" : "") + (options.lineinfo ? " -lineinfo" : "") +
                            " -arch=" + arch.sm_target() + " '" + ptx_path + "' -o '" + cubin_path + "' > '" + log_path +
                            "' 2>&1";
    const int rc = std::system(cmd.c_str());
    PtxasOutput out;
    std::stringstream log, cubin;
    log << std::ifstream(log_path).rdbuf();
    {
        std::ifstream f(cubin_path, std::ios::binary);
        if (f) cubin << f.rdbuf();
    }
    std::remove(ptx_path.c_str());
    std::remove(cubin_path.c_str());
    std::remove(log_path.c_str());
    out.log = log.str();
    out.cubin = cubin.str();
    if (rc != 0) throw PtxasError("ptxas failed (" + cmd + "):\n" + out.log, out.log);
    return out;
}

// ptxas -v prints, per function:
//   ptxas info    : Compiling entry function 'k' for 'sm_90'
//   ptxas info    : Function properties for k
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, 512 bytes smem, 360 bytes cmem[0]
// and "Function properties for f" for device functions, whose lines belong to f, not to the
// entry compiled before it.
std::map<std::string, KernelResources> parse_ptxas_report(const std::string& text) {
    std::map<std::string, KernelResources> out;
    static const std::regex entry_re("Compiling entry function '([^']+)'");
    static const std::regex props_re("Function properties for (\\S+)");
    static const std::regex used_re("Used ([0-9]+) registers");
    static const std::regex smem_re("([0-9]+) bytes smem");
    static const std::regex stack_re("([0-9]+) bytes stack frame");
    static const std::regex spill_re("([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
    std::istringstream log(text);
    std::string line, current;
    while (std::getline(log, line)) {
        std::smatch m;
        if (std::regex_search(line, m, entry_re)) {
            current = m[1];
            out[current];
        } else if (std::regex_search(line, m, props_re)) {
            current = m[1];
        }
        auto it = out.find(current);
        if (it == out.end()) continue;  // a device function's lines
        KernelResources& r = it->second;
        if (std::regex_search(line, m, used_re)) r.registers = std::stoi(m[1]);
        if (std::regex_search(line, m, smem_re)) r.shared_bytes = static_cast<uint32_t>(std::stoul(m[1]));
        if (std::regex_search(line, m, stack_re)) r.stack_bytes = static_cast<uint32_t>(std::stoul(m[1]));
        if (std::regex_search(line, m, spill_re)) {
            r.spill_stores = static_cast<uint32_t>(std::stoul(m[1]));
            r.spill_loads = static_cast<uint32_t>(std::stoul(m[2]));
        }
    }
    return out;
}

std::map<std::string, KernelResources> ptxas_resources(const std::string& ptx, const ArchSpec& arch, const std::string& ptxas) {
    PtxasOptions o;
    o.ptxas = ptxas;
    return parse_ptxas_report(run_ptxas(ptx, arch, o).log);
}

}  // namespace weft::gpusim
