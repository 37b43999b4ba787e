// engine/integrator_registry.h: integrators by name.
//
//   for (const auto& name : integrator_names()) ...                  // "semi_implicit", "xpbd"
//   std::unique_ptr<Integrator> it = create_integrator("xpbd", {{"iterations", 4}});
//   const IntegratorInfo& info = integrator_info("xpbd");            // without making one
//
// Scenes (`solver = "..."`), `weft run`, the Python bindings and the benchmarks look integrators
// up here. The built-in ones are listed in engine/integrators.def (why a list: see there);
// register_integrator() adds others at run time (a plugin, a test).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/integrator.h"

namespace weft::engine {

struct IntegratorEntry {
    IntegratorInfo info;
    // Makes one from options already checked and completed by resolve_options().
    std::function<std::unique_ptr<Integrator>(const IntegratorOptions&)> make;
};

// Every registered name, sorted.
std::vector<std::string> integrator_names();

// The info of `name`. Throws runtime::RuntimeError for an unknown name, with a did-you-mean.
const IntegratorInfo& integrator_info(const std::string& name);

// A new integrator `name` with `options` (checked against its OptionSpecs; missing ones take their
// defaults). Throws runtime::RuntimeError for an unknown name (with a did-you-mean) or a bad option.
std::unique_ptr<Integrator> create_integrator(const std::string& name, const IntegratorOptions& options = {});

// Adds an integrator. Throws runtime::RuntimeError when its name is empty or already taken.
void register_integrator(IntegratorEntry entry);

// "unknown integrator 'xbpd' (did you mean 'xpbd'?); the integrators are 'semi_implicit', 'xpbd'".
std::string unknown_integrator_message(const std::string& name);

}  // namespace weft::engine
