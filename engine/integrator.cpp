// engine/integrator.cpp: see integrator.h.
#include "engine/integrator.h"

#include "engine/solver_kernels.h"
#include "runtime/config.h"
#include "runtime/errors.h"

namespace weft::engine {

void check_step(const Model& m, const State& in, const State& out, float dt) {
    if (in.particle_count != m.particle_count || out.particle_count != m.particle_count)
        throw runtime::RuntimeError("simulate: the states do not belong to this model (" + std::to_string(in.particle_count) +
                                    " and " + std::to_string(out.particle_count) + " particles, the model has " +
                                    std::to_string(m.particle_count) + ")");
    if (!(dt > 0.0f)) throw runtime::RuntimeError("simulate: dt must be > 0, got " + std::to_string(dt));
}

void load_kernels(const IntegratorInfo& info, const runtime::Device& device) {
    for (const KernelRef& k : info.kernels) {
        solver_kernel(k.group, k.name);  // the name is checked, not only the group
        solver_module(k.group)->loaded(device, runtime::config().debug);
    }
}

}  // namespace weft::engine
