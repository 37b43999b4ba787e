// engine/featherstone.cpp: the launch sequence described in featherstone.h.
#include "engine/featherstone.h"

#include <algorithm>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/kinematics.h"
#include "engine/launch_args.h"
#include "engine/rigid_forces.h"
#include "engine/solver_kernels.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "runtime/recorder.h"

namespace weft::engine {

namespace {

IntegratorInfo make_info() {
    IntegratorInfo i;
    i.name = "featherstone";
    i.summary =
        "Featherstone: articulations in reduced coordinates (joint_q, joint_qd), exact joints, semi-implicit Euler or RK4";
    i.kernels = {{"articulation", "eval_articulation_fk"},
                 {"rigid", "eval_body_forces"},
                 {"broad_phase", "build_shape_grid"},
                 {"broad_phase", "find_body_candidates"},
                 {"featherstone", "eval_featherstone_bias"},
                 {"featherstone", "eval_featherstone_tau"},
                 {"featherstone", "eval_featherstone_mass"},
                 {"featherstone", "eval_featherstone_solve"},
                 {"featherstone", "integrate_featherstone_euler"},
                 {"featherstone", "integrate_featherstone_stage"},
                 {"featherstone", "integrate_featherstone_rk4"}};
    i.caps = IntegratorCaps_GraphCapture | IntegratorCaps_Differentiable;
    i.state_reads = {"joint_q", "joint_qd"};
    i.state_writes = {"joint_q", "joint_qd", "body_q", "body_qd", "body_f"};
    i.options = {
        {"rk4", OptionSpec::Type::Integer, 0, 0, 1, false,
         "0: semi-implicit Euler (one evaluation per step, Warp's); 1: classical Runge-Kutta 4 (four)"},
        {"angular_damping", OptionSpec::Type::Number, 0.0, 0.0, 1e3, false,
         "1/s, rotational joint velocities are scaled by (1 - angular_damping dt) each step"},
    };
    return i;
}

}  // namespace

IntegratorEntry featherstone_entry() {
    return {make_info(), [](const IntegratorOptions& o) { return std::make_unique<FeatherstoneIntegrator>(o); }};
}

const IntegratorInfo& FeatherstoneIntegrator::info() const {
    static const IntegratorInfo i = make_info();
    return i;
}

FeatherstoneIntegrator::FeatherstoneIntegrator(bool rk4_, float angular_damping_) : rk4(rk4_), angular_damping(angular_damping_) {
    if (!(angular_damping >= 0.0f))
        throw runtime::RuntimeError("FeatherstoneIntegrator: angular_damping must be >= 0, got " +
                                    std::to_string(angular_damping));
}

FeatherstoneIntegrator::FeatherstoneIntegrator(const IntegratorOptions& o)
    : FeatherstoneIntegrator(o.integer("rk4") != 0, float(o.number("angular_damping"))) {}

void FeatherstoneIntegrator::simulate(const Model& m, const State& in, State& out, float dt, const Control* control) {
    using namespace args;
    using runtime::NamedArgs;
    check_step(m, in, out, dt, control);
    if (m.particle_count > 0)
        throw runtime::RuntimeError("simulate: the featherstone integrator steps articulations only, and the model has " +
                                    std::to_string(m.particle_count) + " particles; use semi_implicit or xpbd for them");
    if (m.body_count == 0) return;
    refuse_distance_joints(m, "featherstone");
    for (const auto& [s, which] : {std::pair<const State*, const char*>{&in, "state_in"}, {&out, "state_out"}})
        if (!s->joint_q.valid() || !s->joint_qd.valid())
            throw runtime::RuntimeError(std::string("simulate: ") + which +
                                        " has no joint_q / joint_qd; the featherstone integrator steps reduced coordinates: "
                                        "make states with model.state()");
    if (checked_ != m.body_parent_joint.data()) {
        std::vector<int> parent_joint(size_t(std::max(m.body_count, 1)));
        m.body_parent_joint.copy_to_host(parent_joint.data(), parent_joint.size() * sizeof(int));
        for (int b = 0; b < m.body_count; ++b)
            if (parent_joint[size_t(b)] < 0)
                throw runtime::RuntimeError("simulate: body " + std::to_string(b) +
                                            " is the child of no joint; the featherstone integrator moves bodies through "
                                            "their joints: give a floating body a free joint (add_joint_free)");
        checked_ = m.body_parent_joint.data();
    }

    runtime::LaunchOptions o;
    o.device = m.device;
    auto launch = [&](const char* group, const char* name, int64_t n, NamedArgs named) {
        const runtime::Kernel k = solver_kernel(group, name);
        runtime::launch(k, {n}, std::move(named).bind(k), o);
    };
    const int64_t nb = m.body_count, nd = std::max(m.joint_dof_count, 1), nj = m.joint_count, na = m.articulation_count;
    const Array& act = joint_act(m, control);
    auto fk = [&](const Array& q, const Array& qd, const Array& body_q, const Array& body_qd) {
        launch_fk(m, q, qd, body_q, body_qd);
    };
    Array last_wrench;  // the first evaluation's wrench
    // qdd of the articulations at (q, qd); the evaluation's contact wrench goes to `wrench_out`
    // (scratch when null).
    auto evaluate = [&](const std::string& tag, const Array& q, const Array& qd, const Array* wrench_out) {
        const Array body_q = scratch_.get(m, tag + "body_q", transform_type(), nb);
        const Array body_qd = scratch_.get(m, tag + "body_qd", spatial_vector_type(), nb);
        const Array wrench = wrench_out ? *wrench_out : scratch_.get(m, tag + "wrench", spatial_vector_type(), nb);
        if (tag == "s1.") last_wrench = wrench;
        fk(q, qd, body_q, body_qd);
        candidates_.build(m, body_q, 0.0f, m.requires_grad || runtime::active_recorder() != nullptr);
        launch("rigid", "eval_body_forces", nb,
               body_force_args(m, body_q, body_qd, control, Array(), 0, false, candidates_, wrench));
        const Array S = scratch_.get(m, tag + "S", spatial_vector_type(), nd);
        const Array v = scratch_.get(m, tag + "v", spatial_vector_type(), nb);
        const Array acc = scratch_.get(m, tag + "a", spatial_vector_type(), nb);
        const Array fb = scratch_.get(m, tag + "fb", spatial_vector_type(), nb);
        const Array h = scratch_.get(m, tag + "h", vec3_type(), nb);
        const Array Ib = scratch_.get(m, tag + "Ib", mat33_type(), nb);
        NamedArgs bias{{"articulation_start", a(m.articulation_start)},
                       {"joint_q_start", a(m.joint_q_start)},
                       {"joint_qd_start", a(m.joint_qd_start)},
                       {"joint_q", a(q)},
                       {"joint_qd", a(qd)},
                       {"body_q", a(body_q)},
                       {"body_com", a(m.body_com)},
                       {"body_mass", a(m.body_mass)},
                       {"body_inertia", a(m.body_inertia)},
                       {"body_wrench", a(wrench)},
                       {"gravity", v3(m.gravity)},
                       {"joint_S", a(S)},
                       {"body_v", a(v)},
                       {"body_a", a(acc)},
                       {"body_fb", a(fb)},
                       {"body_h", a(h)},
                       {"body_Ib", a(Ib)}};
        add_joint_frame_args(bias, m);
        launch("featherstone", "eval_featherstone_bias", na, std::move(bias));
        const Array sub_f = scratch_.get(m, tag + "sub_f", spatial_vector_type(), nb);
        const Array sub_m = scratch_.get(m, tag + "sub_m", compiler::float32_type(), nb);
        const Array sub_h = scratch_.get(m, tag + "sub_h", vec3_type(), nb);
        const Array sub_Ib = scratch_.get(m, tag + "sub_Ib", mat33_type(), nb);
        const Array tau = scratch_.get(m, tag + "tau", compiler::float32_type(), nd);
        NamedArgs tau_args{{"articulation_start", a(m.articulation_start)},
                           {"joint_q_start", a(m.joint_q_start)},
                           {"joint_qd_start", a(m.joint_qd_start)},
                           {"joint_q", a(q)},
                           {"joint_qd", a(qd)},
                           {"joint_type", a(m.joint_type)},
                           {"joint_parent", a(m.joint_parent)},
                           {"joint_child", a(m.joint_child)},
                           {"joint_axis_start", a(m.joint_axis_start)},
                           {"joint_axis_dim", a(m.joint_axis_dim)},
                           {"joint_limit_ke", a(m.joint_limit_ke)},
                           {"joint_limit_kd", a(m.joint_limit_kd)},
                           {"body_mass", a(m.body_mass)},
                           {"joint_S", a(S)},
                           {"body_fb", a(fb)},
                           {"body_h", a(h)},
                           {"body_Ib", a(Ib)},
                           {"sub_f", a(sub_f)},
                           {"sub_m", a(sub_m)},
                           {"sub_h", a(sub_h)},
                           {"sub_Ib", a(sub_Ib)},
                           {"joint_tau", a(tau)}};
        add_joint_drive_args(tau_args, m, act);
        launch("featherstone", "eval_featherstone_tau", na, std::move(tau_args));
        const Array M = scratch_.get(m, tag + "M", compiler::float32_type(), m.articulation_mass_size);
        launch("featherstone", "eval_featherstone_mass", na,
               {{"articulation_start", a(m.articulation_start)},
                {"articulation_mass_start", a(m.articulation_mass_start)},
                {"joint_qd_start", a(m.joint_qd_start)},
                {"joint_parent", a(m.joint_parent)},
                {"joint_child", a(m.joint_child)},
                {"dof_joint", a(m.dof_joint)},
                {"body_parent_joint", a(m.body_parent_joint)},
                {"joint_armature", a(m.joint_armature)},
                {"joint_S", a(S)},
                {"sub_m", a(sub_m)},
                {"sub_h", a(sub_h)},
                {"sub_Ib", a(sub_Ib)},
                {"mass_matrix", a(M)}});
        const Array L = scratch_.get(m, tag + "L", compiler::float32_type(), m.articulation_mass_size);
        const Array y = scratch_.get(m, tag + "y", compiler::float32_type(), nd);
        const Array qdd = scratch_.get(m, tag + "qdd", compiler::float32_type(), nd);
        launch("featherstone", "eval_featherstone_solve", na,
               {{"articulation_start", a(m.articulation_start)},
                {"articulation_mass_start", a(m.articulation_mass_start)},
                {"joint_qd_start", a(m.joint_qd_start)},
                {"mass_matrix", a(M)},
                {"joint_tau", a(tau)},
                {"cholesky", a(L)},
                {"forward", a(y)},
                {"joint_qdd", a(qdd)}});
        return qdd;
    };
    auto coordinates = [&](const std::string& tag) {
        return std::pair<Array, Array>{scratch_.get(m, tag + "q", compiler::float32_type(), std::max(m.joint_coord_count, 1)),
                                       scratch_.get(m, tag + "qd", compiler::float32_type(), nd)};
    };
    auto joint_args = [&]() {
        return NamedArgs{{"joint_type", a(m.joint_type)},
                         {"joint_q_start", a(m.joint_q_start)},
                         {"joint_qd_start", a(m.joint_qd_start)},
                         {"joint_q", a(in.joint_q)},
                         {"joint_qd", a(in.joint_qd)}};
    };

    // The first evaluation's wrench is state_out.body_f. That array has no gradient (an output for
    // the user, as particle_f), so under requires_grad the evaluation reads a scratch copy with one
    // (contact gradients flow through it) and body_f receives a copy of it.
    const Array* first_wrench = m.requires_grad || !out.body_f.valid() ? nullptr : &out.body_f;

    if (!rk4) {
        const Array qdd = evaluate("s1.", in.joint_q, in.joint_qd, first_wrench);
        launch("featherstone", "integrate_featherstone_euler", nj,
               joint_args()
                   .add("joint_axis_dim", a(m.joint_axis_dim))
                   .add("joint_qdd", a(qdd))
                   .add("dt", f(dt))
                   .add("angular_damping", f(angular_damping))
                   .add("joint_qd_new", a(out.joint_qd))
                   .add("joint_q_new", a(out.joint_q)));
    } else {
        // k1 at (q, qd); k2 at half a step along k1; k3 at half a step along k2; k4 a whole step along k3.
        Array rates_qd[4], rates_qdd[4];
        rates_qd[0] = in.joint_qd;
        rates_qdd[0] = evaluate("s1.", in.joint_q, in.joint_qd, first_wrench);
        for (int s = 1; s < 4; ++s) {
            const std::string tag = "s" + std::to_string(s + 1) + ".";
            auto [q, qd] = coordinates(tag);
            launch("featherstone", "integrate_featherstone_stage", nj,
                   joint_args()
                       .add("stage_qd", a(rates_qd[s - 1]))
                       .add("stage_qdd", a(rates_qdd[s - 1]))
                       .add("h", f(s == 3 ? dt : 0.5 * dt))
                       .add("joint_q_new", a(q))
                       .add("joint_qd_new", a(qd)));
            rates_qd[s] = qd;
            rates_qdd[s] = evaluate(tag, q, qd, nullptr);
        }
        launch("featherstone", "integrate_featherstone_rk4", nj,
               joint_args()
                   .add("joint_axis_dim", a(m.joint_axis_dim))
                   .add("qd1", a(rates_qd[0]))
                   .add("qd2", a(rates_qd[1]))
                   .add("qd3", a(rates_qd[2]))
                   .add("qd4", a(rates_qd[3]))
                   .add("qdd1", a(rates_qdd[0]))
                   .add("qdd2", a(rates_qdd[1]))
                   .add("qdd3", a(rates_qdd[2]))
                   .add("qdd4", a(rates_qdd[3]))
                   .add("dt", f(dt))
                   .add("angular_damping", f(angular_damping))
                   .add("rate", a(scratch_.get(m, "rk4.rate", compiler::float32_type(), nd)))
                   .add("joint_q_new", a(out.joint_q))
                   .add("joint_qd_new", a(out.joint_qd)));
    }
    if (!first_wrench && out.body_f.valid()) out.body_f.assign(last_wrench);
    fk(out.joint_q, out.joint_qd, out.body_q, out.body_qd);
}

}  // namespace weft::engine
