// tests/engine/engine_test_util.h: helpers of the engine tests: host copies of state arrays,
// rollouts with either integrator and their Tape gradients, the CPU-availability skip, momentum,
// volume and state hashes, and the models that several integrators' tests share.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/model_builder.h"
#include "engine/semi_implicit.h"
#include "engine/xpbd.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::engine::test {

constexpr double kG = 9.80665;  // standard gravity, m/s^2 (ModelBuilder's default)
constexpr double kPi = 3.14159265358979323846;

// A loss kernel over body poses, body_x_loss(body_q, loss): loss[0] += x + z / 2 of every body
// (the rigid-body gradient tests' target).
inline const char* kBodyLoss = R"(
import weft as wp

@wp.kernel
def body_x_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    b = wp.tid()
    p = wp.transform_get_translation(body_q[b])
    wp.atomic_add(loss, 0, p[0] + 0.5 * p[2])
)";

// A frame at (x, y, z), unrotated.
inline ModelBuilder::Xform at(float x, float y, float z) { return {Vec3(x, y, z), Quat::Identity()}; }

#define REQUIRE_CPU() \
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT"

inline std::vector<std::array<float, 3>> host_vec3(const runtime::Array& a) {
    std::vector<std::array<float, 3>> out(size_t(a.size()));
    a.copy_to_host(out.data(), out.size() * sizeof(out[0]));
    return out;
}

// Runs `steps` steps of `step(model, in, out)` with two ping-pong states; `each` (optional) sees the
// state after every step. Returns the final state.
template <class Integrator>
State rollout(const Model& model, Integrator& integrator, int steps, float dt,
              const std::function<void(int, const State&)>& each = nullptr) {
    State a = model.state(), b = model.state();
    for (int s = 0; s < steps; ++s) {
        integrator.simulate(model, a, b, dt, nullptr);
        std::swap(a, b);
        if (each) each(s + 1, a);
    }
    return a;
}

// The Tape's gradient of a scalar loss after a rollout (the gradient tests against central
// differences): records `steps` steps of `integrator` of dt from model.state() (a model finalized
// with requires_grad) and then `loss_of(last state, loss)`, the launches that write the
// one-element `loss`; runs the backward pass and returns the first State, whose arrays' grad()
// hold the gradients.
inline State rollout_gradient(const Model& model, Integrator& integrator, int steps, float dt,
                              const std::function<void(const State&, const runtime::Array&)>& loss_of) {
    tape::Tape tape;
    State s0 = model.state();
    runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, model.device, true);
    {
        runtime::ScopedRecorder rec(&tape);
        std::vector<State> states{s0};
        for (int k = 0; k < steps; ++k) {
            states.push_back(model.state());
            integrator.simulate(model, states[size_t(k)], states[size_t(k) + 1], dt);
        }
        loss_of(states.back(), loss);
    }
    tape.backward(loss);
    return s0;
}

// Launches a loss kernel of the form k(body_q, loss) over the model's bodies (kBodyLoss's body_x_loss).
inline void launch_body_loss(const runtime::Kernel& k, const Model& model, const State& s, const runtime::Array& loss) {
    runtime::LaunchOptions o;
    o.device = model.device;
    runtime::launch(k, {model.body_count}, {runtime::LaunchArg::of(s.body_q), runtime::LaunchArg::of(loss)}, o);
}

// A body's pose and velocities read back from a State (double precision for the comparisons).
struct BodyState {
    Eigen::Vector3d p;     // frame origin, world
    Eigen::Quaterniond q;  // frame rotation
    Eigen::Vector3d w, v;  // angular velocity, centre-of-mass velocity (world)
};

inline std::vector<BodyState> bodies_of(const State& s) {
    std::vector<float> q(size_t(s.body_count) * 7), qd(size_t(s.body_count) * 6);
    s.body_q.copy_to_host(q.data(), q.size() * sizeof(float));
    s.body_qd.copy_to_host(qd.data(), qd.size() * sizeof(float));
    std::vector<BodyState> out;
    for (int b = 0; b < s.body_count; ++b) {
        const float* t = &q[size_t(7 * b)];
        const float* d = &qd[size_t(6 * b)];
        out.push_back({Eigen::Vector3d(t[0], t[1], t[2]), Eigen::Quaterniond(t[6], t[3], t[4], t[5]),
                       Eigen::Vector3d(d[0], d[1], d[2]), Eigen::Vector3d(d[3], d[4], d[5])});
    }
    return out;
}

// The message of what `f` throws, or "(no error)".
inline std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) { return e.what(); }
    return "(no error)";
}

// Total momentum of a state (kg m/s), from the builder's masses.
inline std::array<double, 3> momentum(const State& s, const std::vector<float>& mass) {
    auto v = host_vec3(s.particle_qd);
    std::array<double, 3> p{0, 0, 0};
    for (size_t i = 0; i < v.size(); ++i)
        for (int k = 0; k < 3; ++k) p[size_t(k)] += double(mass[i]) * v[i][size_t(k)];
    return p;
}

// The summed signed volume of the builder's tetrahedra at the state's positions.
inline double soft_volume(const ModelBuilder& b, const State& s) {
    auto q = host_vec3(s.particle_q);
    double vol = 0;
    for (const auto& t : b.tet_indices) {
        Eigen::Vector3d x0(q[size_t(t[0])][0], q[size_t(t[0])][1], q[size_t(t[0])][2]);
        Eigen::Matrix3d D;
        for (int c = 0; c < 3; ++c)
            D.col(c) =
                Eigen::Vector3d(q[size_t(t[size_t(c + 1)])][0], q[size_t(t[size_t(c + 1)])][1], q[size_t(t[size_t(c + 1)])][2]) -
                x0;
        vol += D.determinant() / 6.0;
    }
    return vol;
}

// FNV-1a of a state's positions and velocities: equal hashes, equal bits.
inline uint64_t hash_state(const State& s) {
    auto q = host_vec3(s.particle_q);
    auto v = host_vec3(s.particle_qd);
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
        const unsigned char* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    };
    mix(q.data(), q.size() * 12);
    mix(v.data(), v.size() * 12);
    return h;
}

// Two triangles sharing the edge 2-3 (particles k, l fixed), flat at rest, opened by 60 degrees:
// the bending test of both integrators, with bending stiffness ke.
inline ModelBuilder bent_hinge(float ke) {
    ModelBuilder b(0.0f);
    b.ground = false;
    int i = b.add_particle(Vec3(0, 0, -0.5f), Vec3::Zero(), 0.1f);
    int j = b.add_particle(Vec3(0, 0, 0.5f), Vec3::Zero(), 0.1f);
    int k = b.add_particle(Vec3(-0.5f, 0, 0), Vec3::Zero(), 0.0f);
    int l = b.add_particle(Vec3(0.5f, 0, 0), Vec3::Zero(), 0.0f);
    b.add_edge(i, j, k, l, NAN, ke, 0.5f);
    b.particle_q[size_t(j)] = Vec3(0, 0.5f * std::sin(float(M_PI) / 3), 0.5f * std::cos(float(M_PI) / 3));
    return b;
}

// The hinge's opening angle: 0 when the elevations of the two wings above their half planes cancel.
inline double hinge_angle(const State& s) {
    auto q = host_vec3(s.particle_q);
    return std::atan2(q[1][1], q[1][2]) + std::atan2(q[0][1], -q[0][2]);
}

// A 2 x 2 x 2-cell soft block squashed to 0.8 of its height: the volume test of both integrators.
// A floating box (free joint) with a capsule on a hinge about z and a sphere on a ball joint, on
// the ground: one articulation of 10 dofs, at rest (the Featherstone integrator's tests).
inline ModelBuilder limbed_box() {
    ModelBuilder b;
    ShapeParams p;
    p.density = 500.0f;
    const int base = b.add_body(Vec3(0, 0.3f, 0));
    b.add_shape_box(base, Vec3::Zero(), Quat::Identity(), 0.2f, 0.1f, 0.1f, p);
    const int arm = b.add_body(Vec3(0.4f, 0.3f, 0));
    b.add_shape_capsule(arm, Vec3::Zero(), Quat::Identity(), 0.05f, 0.15f, p);
    const int tip = b.add_body(Vec3(0.6f, 0.3f, 0));
    b.add_shape_sphere(tip, Vec3::Zero(), Quat::Identity(), 0.05f, p);
    b.add_joint_free(base, {Vec3(0, 0.3f, 0), Quat::Identity()});
    JointAxisDef axis;
    axis.axis = Vec3(0, 0, 1);
    b.add_joint_revolute(base, arm, {Vec3(0.2f, 0, 0), Quat::Identity()}, {Vec3(-0.2f, 0, 0), Quat::Identity()}, axis);
    b.add_joint_ball(arm, tip, {Vec3(0.2f, 0, 0), Quat::Identity()}, {Vec3::Zero(), Quat::Identity()});
    return b;
}

inline ModelBuilder squashed_block() {
    ModelBuilder b(0.0f);
    b.ground = false;
    SoftGridDef d;
    d.dim_x = d.dim_y = d.dim_z = 2;
    d.cell_x = d.cell_y = d.cell_z = 0.1f;
    d.density = 100.0f;
    d.k_mu = 2e3f;
    d.k_lambda = 1e4f;
    d.k_damp = 2.0f;
    b.add_soft_grid(d);
    for (auto& p : b.particle_q) p.y() *= 0.8f;  // squash along y
    return b;
}

}  // namespace weft::engine::test
