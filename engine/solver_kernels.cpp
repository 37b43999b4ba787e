// engine/solver_kernels.cpp: compiles the embedded kernel files into modules on first use and
// keeps them for the life of the process.
#include "engine/solver_kernels.h"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "runtime/errors.h"

namespace weft::engine {

const std::map<std::string, std::vector<std::string>>& solver_module_groups() {
    static const std::map<std::string, std::vector<std::string>> groups = {
        {"particles", {"particles.py"}},
        {"springs", {"springs.py"}},
        {"triangles", {"triangles.py"}},
        {"bending", {"bending.py"}},
        {"tetrahedra", {"tetrahedra.py"}},
        {"hash_grid", {"hash_grid.py"}},
        {"contact", {"geometry.py", "worlds.py", "soft_contact.py", "hash_grid.py", "contact.py"}},
        {"xpbd", {"geometry.py", "worlds.py", "hash_grid.py", "bending.py", "xpbd.py"}},
        {"broad_phase", {"worlds.py", "hash_grid.py", "broad_phase.py"}},
        {"rigid",
         {"geometry.py", "worlds.py", "hash_grid.py", "broad_phase.py", "soft_contact.py", "joints.py", "rigid_common.py",
          "rigid.py"}},
        {"xpbd_bodies", {"geometry.py", "worlds.py", "joints.py", "rigid_common.py", "xpbd_common.py"}},
        {"xpbd_joints", {"geometry.py", "worlds.py", "joints.py", "rigid_common.py", "xpbd_common.py", "xpbd_joints.py"}},
        {"xpbd_contacts",
         {"geometry.py", "worlds.py", "hash_grid.py", "broad_phase.py", "joints.py", "rigid_common.py", "xpbd_common.py",
          "xpbd_contacts.py"}},
        {"xpbd_restitution",
         {"geometry.py", "worlds.py", "hash_grid.py", "broad_phase.py", "joints.py", "rigid_common.py", "xpbd_common.py",
          "xpbd_restitution.py"}},
        {"articulation", {"joints.py", "articulation.py"}},
        {"featherstone", {"joints.py", "featherstone.py"}},
        {"smoke", {"smoke.py"}},
        {"mpm", {"geometry.py", "mpm.py"}},
    };
    return groups;
}

namespace {

std::string kernel_text(const std::string& file) {
    std::string path = "kernels/" + file;
    if (const char* dir = std::getenv("WEFT_KERNELS_DIR"); dir && *dir) {
        std::ifstream in(std::string(dir) + "/" + file);
        if (!in) throw runtime::RuntimeError("WEFT_KERNELS_DIR: cannot read " + std::string(dir) + "/" + file);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    const auto& all = embedded_kernel_sources();
    auto it = all.find(path);
    if (it == all.end()) throw runtime::RuntimeError("no embedded kernel file " + path);
    return it->second;
}

}  // namespace

std::shared_ptr<runtime::Module> solver_module(const std::string& group) {
    static std::mutex mu;
    static std::map<std::string, std::shared_ptr<runtime::Module>> modules;
    std::lock_guard<std::mutex> lock(mu);
    auto it = modules.find(group);
    if (it != modules.end()) return it->second;
    const auto& groups = solver_module_groups();
    auto g = groups.find(group);
    if (g == groups.end()) throw runtime::RuntimeError("no solver module group '" + group + "'");
    std::vector<compiler::ModuleSource> sources;
    for (const auto& file : g->second) sources.push_back({"kernels/" + file, kernel_text(file)});
    compiler::CompileOptions options;
    options.module_key = "kernels/" + group;
    // A body's thread loops over every shape of the model (contacts) and its joints, so the values
    // those loops overwrite, which its backward thread keeps on its per-thread tape, grow with the
    // model: 4 KiB (the default) overflowed at three jointed boxes. 32 KiB holds about twenty boxes'
    // contacts per body; on a GPU it is local memory of the backward launch only.
    // An articulation's thread loops over its joints (eval_fk) and, in Featherstone's kernels, over
    // pairs of its dofs and the Cholesky factorisation's triples: 14 dofs (an ant) push about 6 KiB,
    // 27 (a humanoid) about 30 KiB.
    // XPBD's joint, contact and restitution passes keep, per body, their loops' overwritten values too.
    if (group == "rigid" || group == "articulation" || group == "xpbd_joints" || group == "xpbd_contacts" ||
        group == "xpbd_restitution")
        options.adjoint_tape_bytes = 32 * 1024;
    if (group == "featherstone") options.adjoint_tape_bytes = 64 * 1024;
    auto m = runtime::Module::compile(sources, options);
    modules.emplace(group, m);
    return m;
}

runtime::Kernel solver_kernel(const std::string& group, const std::string& name) { return solver_module(group)->kernel(name); }

}  // namespace weft::engine
