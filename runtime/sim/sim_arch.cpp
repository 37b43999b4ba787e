// runtime/sim/sim_arch.cpp: which ARCH names `sim:ARCH` accepts (sim_backend.h, [SECTION]
// Architectures): gpusim's built-in architecture files, plus files registered in this process
// under their "name". Names, files and the unknown-name message are gpusim's
// (gpusim/arch/resolve_arch.h), so `sim:ARCH` and `--arch` mean the same thing.
#include <map>
#include <mutex>

#include "gpusim/arch/resolve_arch.h"
#include "runtime/errors.h"
#include "runtime/sim/sim_backend.h"

namespace weft::runtime {

namespace {

std::mutex g_arch_mu;
std::map<std::string, gpusim::ArchSpec>& arch_table() {
    static std::map<std::string, gpusim::ArchSpec> t = [] {
        std::map<std::string, gpusim::ArchSpec> m;
        for (const std::string& n : gpusim::builtin_arch_names()) m[n] = gpusim::builtin_arch(n);
        return m;
    }();
    return t;
}

}  // namespace

bool sim_arch_known(const std::string& arch) {
    std::lock_guard<std::mutex> lock(g_arch_mu);
    return arch_table().count(arch) > 0;
}

std::vector<std::string> sim_arch_names() {
    std::lock_guard<std::mutex> lock(g_arch_mu);
    std::vector<std::string> v;
    for (const auto& [k, a] : arch_table()) v.push_back(k);
    return v;
}

const gpusim::ArchSpec& sim_arch(const std::string& arch) {
    {
        std::lock_guard<std::mutex> lock(g_arch_mu);
        auto it = arch_table().find(arch);
        if (it != arch_table().end()) return it->second;  // std::map nodes are stable
    }
    throw RuntimeError(gpusim::unknown_arch_message(arch, sim_arch_names()));
}

std::string sim_ptx_arch(const std::string& arch) { return sim_arch(arch).sm_target(); }

std::string register_sim_arch(const gpusim::ArchSpec& a, const std::string& source) {
    if (a.name.empty() || a.name.find_first_of(": \t/") != std::string::npos)
        throw RuntimeError(source + ": the architecture's \"name\" must be a plain word to use as sim:NAME; got '" + a.name +
                           "'");
    std::lock_guard<std::mutex> lock(g_arch_mu);
    arch_table()[a.name] = a;
    return a.name;
}

std::string register_sim_arch_file(const std::string& path) {
    gpusim::ArchSpec a;
    try {
        a = gpusim::load_arch(path);
    } catch (const gpusim::ArchError& e) { throw RuntimeError(e.what()); }
    return register_sim_arch(a, path);
}

}  // namespace weft::runtime
