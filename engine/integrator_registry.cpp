// engine/integrator_registry.cpp: see integrator_registry.h. The built-in entries come from
// engine/integrators.def, read twice: once to declare each entry function, once to call it.
#include "engine/integrator_registry.h"

#include <map>
#include <mutex>

#include "support/closest_name.h"
#include "runtime/errors.h"

namespace weft::engine {

#define WEFT_INTEGRATOR(entry) IntegratorEntry entry();
#include "engine/integrators.def"
#undef WEFT_INTEGRATOR

namespace {

struct Registry {
    std::mutex mu;
    std::map<std::string, IntegratorEntry> entries;
};

void add(Registry& r, IntegratorEntry entry) {
    const std::string name = entry.info.name;
    if (name.empty()) throw runtime::RuntimeError("register_integrator: the integrator has no name");
    if (!entry.make) throw runtime::RuntimeError("register_integrator: integrator '" + name + "' has no factory");
    if (!r.entries.emplace(name, std::move(entry)).second)
        throw runtime::RuntimeError("register_integrator: an integrator named '" + name + "' is already registered");
}

Registry& registry() {
    static Registry* r = [] {
        auto* reg = new Registry();  // never destroyed: integrators may be made at exit
#define WEFT_INTEGRATOR(entry) add(*reg, entry());
#include "engine/integrators.def"
#undef WEFT_INTEGRATOR
        return reg;
    }();
    return *r;
}

std::vector<std::string> names_of(const Registry& r) {
    std::vector<std::string> names;
    for (const auto& [name, e] : r.entries) names.push_back(name);
    return names;
}

std::string unknown_message(const std::vector<std::string>& names, const std::string& name) {
    std::string msg = "unknown integrator '" + name + "'";
    std::string near = support::closest_name(name, names);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    msg += "; the integrators are";
    for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", '" : " '") + names[i] + "'";
    return msg;
}

// With r.mu held.
const IntegratorEntry& find(Registry& r, const std::string& name) {
    auto it = r.entries.find(name);
    if (it == r.entries.end()) throw runtime::RuntimeError(unknown_message(names_of(r), name));
    return it->second;
}

}  // namespace

std::vector<std::string> integrator_names() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    return names_of(r);
}

std::string unknown_integrator_message(const std::string& name) { return unknown_message(integrator_names(), name); }

const IntegratorInfo& integrator_info(const std::string& name) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    return find(r, name).info;  // entries are never removed: the reference stays valid
}

std::unique_ptr<Integrator> create_integrator(const std::string& name, const IntegratorOptions& options) {
    Registry& r = registry();
    std::function<std::unique_ptr<Integrator>(const IntegratorOptions&)> make;
    IntegratorOptions resolved;
    {
        std::lock_guard<std::mutex> lock(r.mu);
        const IntegratorEntry& e = find(r, name);
        resolved = resolve_options(name, e.info.options, options);
        make = e.make;
    }
    return make(resolved);
}

void register_integrator(IntegratorEntry entry) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    add(r, std::move(entry));
}

}  // namespace weft::engine
