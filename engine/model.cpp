// engine/model.cpp: State and Control creation from a finalized Model.
#include "engine/model.h"

#include "runtime/recorder.h"
#include "runtime/write_versions.h"

namespace weft::engine {

compiler::Type vec3_type() { return compiler::vector_type(3, compiler::ScalarKind::Float32); }
compiler::Type vec4_type() { return compiler::vector_type(4, compiler::ScalarKind::Float32); }
compiler::Type transform_type() { return compiler::transform_type(compiler::ScalarKind::Float32); }
compiler::Type spatial_vector_type() { return compiler::vector_type(6, compiler::ScalarKind::Float32); }
compiler::Type mat33_type() { return compiler::matrix_type(3, 3, compiler::ScalarKind::Float32); }

namespace {

Array copy_of(const Array& a, bool requires_grad) {
    Array out = Array::empty(a.dtype(), a.shape(), a.device(), requires_grad);
    out.assign(a);
    return out;
}

}  // namespace

State Model::state(int requires_grad_opt) const {
    bool grad = requires_grad_opt < 0 ? requires_grad : requires_grad_opt != 0;
    State s;
    s.particle_count = particle_count;
    int64_t n = particle_count;
    s.particle_q = copy_of(particle_q, grad);
    s.particle_qd = copy_of(particle_qd, grad);
    // No gradient: the force is an output for the user (the integrators recompute it in backward).
    s.particle_f = Array::zeros(vec3_type(), {n}, device, false);
    s.body_count = body_count;
    if (body_count > 0) {
        s.body_q = copy_of(body_q, grad);
        s.body_qd = copy_of(body_qd, grad);
        s.body_f = Array::zeros(spatial_vector_type(), {int64_t(body_count)}, device, false);
    }
    if (joint_count > 0) {
        s.joint_q = copy_of(joint_q, grad);
        s.joint_qd = copy_of(joint_qd, grad);
    }
    if (mpm_particle_count > 0) {
        std::vector<float> F(size_t(n) * 9, 0.0f), Jp(size_t(n), 1.0f);
        for (int64_t p = 0; p < n; ++p) F[size_t(p) * 9] = F[size_t(p) * 9 + 4] = F[size_t(p) * 9 + 8] = 1.0f;
        s.mpm_F = Array::empty(mat33_type(), {n}, device, grad);
        s.mpm_F.copy_from_host(F.data(), F.size() * sizeof(float));
        s.mpm_C = Array::zeros(mat33_type(), {n}, device, grad);
        s.mpm_Jp = Array::empty(compiler::float32_type(), {n}, device, grad);
        s.mpm_Jp.copy_from_host(Jp.data(), Jp.size() * sizeof(float));
    }
    if (particle_grid_buckets > 0) {  // (also while particle_contact is off: Python's particle_grid.build() turns it on)
        s.grid_bucket_count = Array::zeros(compiler::int32_type(), {particle_grid_buckets}, device);
        s.grid_bucket_particles =
            Array::zeros(compiler::int32_type(), {int64_t(particle_grid_buckets) * particle_grid_capacity}, device);
    }
    init_smoke_state(*this, s, grad);
    return s;
}

Control Model::control() const {
    Control c;
    c.particle_f = Array::zeros(vec3_type(), {int64_t(particle_count)}, device, requires_grad);
    if (body_count > 0) c.body_f = Array::zeros(spatial_vector_type(), {int64_t(body_count)}, device, requires_grad);
    if (joint_count > 0) {
        c.joint_act = Array::empty(compiler::float32_type(), {int64_t(joint_axis_count)}, device, requires_grad);
        c.joint_act.assign(joint_act);
    }
    return c;
}

void State::clear_forces() {
    // Under a recorder (a Tape), this state's particle_f may be the force that a recorded step
    // wrote and its backward pass reads: zeroing it would falsify that gradient (the Tape would
    // refuse it). Such a force is left as it is: no integrator reads state_in.particle_f, so the
    // steps compute the same. Nothing is allocated or freed, so a recorded rollout can be
    // captured into a CUDA graph (docs/autodiff.md).
    for (Array* f : {&particle_f, &body_f}) {
        if (!f->valid()) continue;
        if (runtime::active_recorder() && runtime::writes_watched(runtime::allocation_of(*f))) continue;
        f->zero();
    }
}

}  // namespace weft::engine
