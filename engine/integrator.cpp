// engine/integrator.cpp: see integrator.h.
#include "engine/integrator.h"

#include <algorithm>

#include "engine/solver_kernels.h"
#include "runtime/capture_check.h"
#include "runtime/config.h"
#include "runtime/errors.h"

namespace weft::engine {

namespace {

// An array a step reads or writes must have the shape, element type and device the model gives
// it: a kernel indexes it by particle (or bucket) without bounds checks in release builds.
void check_array(const Array& a, const std::string& name, const compiler::Type& dtype, int64_t size, const Model& m,
                 bool optional) {
    if (!a.valid()) {
        if (optional) return;
        throw runtime::RuntimeError("simulate: " + name + " is empty; the model needs array(" + compiler::type_name(dtype) +
                                    ", shape=(" + std::to_string(size) + ",), device=" + m.device.str() + ")");
    }
    if (a.shape() != std::vector<int64_t>{size} || compiler::type_name(a.dtype()) != compiler::type_name(dtype) ||
        !(a.device() == m.device))
        throw runtime::RuntimeError("simulate: " + name + " is " + a.describe() + "; the model needs array(" +
                                    compiler::type_name(dtype) + ", shape=(" + std::to_string(size) +
                                    ",), device=" + m.device.str() + ")");
}

void check_state(const Model& m, const State& s, const std::string& which) {
    const int64_t n = m.particle_count;
    check_array(s.particle_q, which + ".particle_q", vec3_type(), n, m, false);
    check_array(s.particle_qd, which + ".particle_qd", vec3_type(), n, m, false);
    check_array(s.particle_f, which + ".particle_f", vec3_type(), n, m, true);
    if (m.body_count > 0) {
        check_array(s.body_q, which + ".body_q", transform_type(), m.body_count, m, false);
        check_array(s.body_qd, which + ".body_qd", spatial_vector_type(), m.body_count, m, false);
        check_array(s.body_f, which + ".body_f", spatial_vector_type(), m.body_count, m, true);
    }
    if (m.joint_count > 0) {  // optional: only reduced-coordinate integrators use them (and require them)
        check_array(s.joint_q, which + ".joint_q", compiler::float32_type(), std::max(m.joint_coord_count, 1), m, true);
        check_array(s.joint_qd, which + ".joint_qd", compiler::float32_type(), std::max(m.joint_dof_count, 1), m, true);
    }
    if (m.mpm_particle_count > 0) {
        check_array(s.mpm_F, which + ".mpm_F", mat33_type(), n, m, false);
        check_array(s.mpm_C, which + ".mpm_C", mat33_type(), n, m, false);
        check_array(s.mpm_Jp, which + ".mpm_Jp", compiler::float32_type(), n, m, false);
    }
    if (m.particle_contact && m.particle_grid_buckets > 0) {
        check_array(s.grid_bucket_count, which + ".grid_bucket_count", compiler::int32_type(), m.particle_grid_buckets, m, false);
        check_array(s.grid_bucket_particles, which + ".grid_bucket_particles", compiler::int32_type(),
                    int64_t(m.particle_grid_buckets) * m.particle_grid_capacity, m, false);
    }
}

}  // namespace

void check_step(const Model& m, const State& in, const State& out, float dt, const Control* control) {
    if (in.particle_count != m.particle_count || out.particle_count != m.particle_count)
        throw runtime::RuntimeError("simulate: the states do not belong to this model (" + std::to_string(in.particle_count) +
                                    " and " + std::to_string(out.particle_count) + " particles, the model has " +
                                    std::to_string(m.particle_count) + ")");
    if (!(dt > 0.0f)) throw runtime::RuntimeError("simulate: dt must be > 0, got " + std::to_string(dt));
    check_state(m, in, "state_in");
    check_state(m, out, "state_out");
    if (control) {
        check_array(control->particle_f, "control.particle_f", vec3_type(), m.particle_count, m, true);
        check_array(control->body_f, "control.body_f", spatial_vector_type(), m.body_count, m, true);
        check_array(control->joint_act, "control.joint_act", compiler::float32_type(), m.joint_axis_count, m, true);
    }
}

runtime::Array ScratchArrays::get(const Model& m, const std::string& name, const compiler::Type& type, int64_t size) {
    return get(m, name, type, std::vector<int64_t>{size});
}

runtime::Array ScratchArrays::get(const Model& m, const std::string& name, const compiler::Type& type,
                                  std::vector<int64_t> shape) {
    for (int64_t& e : shape) e = std::max<int64_t>(e, 1);
    if (m.requires_grad) return runtime::Array::zeros(type, shape, m.device, true);
    runtime::Array& s = arrays_[name];
    if (!s.valid() || s.shape() != shape || !(s.device() == m.device) ||
        compiler::type_name(s.dtype()) != compiler::type_name(type))
        s = runtime::zeros_outside_capture(type, shape, m.device);
    return s;
}

void load_kernels(const IntegratorInfo& info, const runtime::Device& device, bool backward) {
    for (const KernelRef& k : info.kernels) {
        solver_kernel(k.group, k.name);  // the name is checked, not only the group
        solver_module(k.group)->loaded(device, runtime::config().debug);
        if (backward) solver_module(k.group)->loaded(device, runtime::config().debug, true);
    }
}

}  // namespace weft::engine
