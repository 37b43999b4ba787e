// engine/xpbd_bodies.cpp: the rigid-body launch sequence of the XPBD integrator (xpbd.h,
// kernels/xpbd_joints.py for the method; xpbd_common.py, xpbd_contacts.py, xpbd_restitution.py).
#include <algorithm>
#include <tuple>
#include <vector>

#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "engine/xpbd.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "runtime/recorder.h"

namespace weft::engine {

void XPBDIntegrator::simulate_bodies(const Model& m, const State& in, State& out, float dt, const Control* control) {
    using namespace args;
    using runtime::NamedArgs;
    if (m.particle_count > 0 && m.shape_count > 0 && coupling_checked_ != m.shape_body.data()) {
        std::vector<int> shape_body(size_t(m.shape_count));
        m.shape_body.copy_to_host(shape_body.data(), shape_body.size() * sizeof(int));
        for (int s = 0; s < m.shape_count; ++s)
            if (shape_body[size_t(s)] >= 0)
                throw runtime::RuntimeError(
                    "simulate: the xpbd integrator does not couple particles with shapes on bodies (shape " + std::to_string(s) +
                    " is on body " + std::to_string(shape_body[size_t(s)]) +
                    "); use semi_implicit for particles that touch moving bodies");
        coupling_checked_ = m.shape_body.data();
    }
    runtime::LaunchOptions o;
    o.device = m.device;
    // Each pass is a module group of its own (engine/solver_kernels.cpp), compiled at its first use:
    // a model without joints never compiles the joint pass, nor one without restitution that pass.
    auto launch = [&](const char* group, const char* name, NamedArgs named, std::vector<int64_t> dim = {}) {
        const runtime::Kernel k = solver_kernel(group, name);
        runtime::launch(k, dim.empty() ? std::vector<int64_t>{int64_t(m.body_count)} : dim, std::move(named).bind(k), o);
    };
    const int64_t nb = m.body_count;
    // A body's joints and their two bodies.
    auto joint_args = [&](NamedArgs& a_) {
        add_body_joint_args(a_, m);
        a_.add("joint_parent", a(m.joint_parent)).add("joint_child", a(m.joint_child));
    };
    // The slots' tests (find_contact_slots): the shapes at the step's start, their distance grids
    // and filters, the ground, the worlds and the bodies' thread order.
    auto slot_args = [&](NamedArgs& a_) {
        a_.add("body_q0", a(in.body_q))
            .add("body_shape_start", a(m.body_shape_start))
            .add("body_shape_list", a(m.body_shape_list));
        add_shape_args(a_, m);
        add_shape_filter_args(a_, m);
        add_shape_point_args(a_, m);
        a_.add("ground", i(m.ground ? 1 : 0)).add("ground_plane", v4(m.ground_plane));
        joint_args(a_);
        a_.add("joint_collision_filter", a(m.joint_collision_filter))
            .add("shape_world", a(m.shape_world))
            .add("body_world", a(m.body_world))
            .add("world_shape_start", a(m.world_shape_start))
            .add("world_shape_list", a(m.world_shape_list))
            .add("num_worlds", i(m.num_worlds))
            .add("body_order", a(m.body_order))
            .add("margin", f(rigid_contact_margin));
        body_candidates_.add_args(a_, m);
    };
    // A thread per (slot, body), slot-major, the bodies in Model::body_order: the ground, each
    // candidate shape, each candidate's points on the body (kernels/xpbd_contacts.py). Which slots
    // hold a contact this step is found once, from the step's start poses, where contacts are
    // found; the iterations and the restitution pass skip the others.
    // With the broad phase, slot 1 + k takes the k-th shape of the body's list (C = the lists'
    // capacity: memory and threads O(bodies), not O(bodies x shapes)); a body that walks every
    // shape takes candidates k, k + C, ... in that slot, in order (the same contacts; their sum
    // associates differently from the walk's, so its last bits can differ from a step without the
    // broad phase). Without it, C is the most shapes a body walks, one candidate a slot.
    const int64_t C =
        m.body_broad_phase ? std::min(m.max_shape_candidates, std::max(m.body_candidate_capacity, 1)) : m.max_shape_candidates;
    const int64_t slots = 2 * C + 1;
    const bool contacts = m.ground || m.shape_count > 0;
    Array slot_active;
    if (contacts || enable_restitution) {
        // The broad phase at the step's start poses, within the contact margin (engine/broad_phase.h):
        // each body's slots walk its candidates instead of every shape of its world.
        body_candidates_.build(m, in.body_q, rigid_contact_margin, m.requires_grad || runtime::active_recorder() != nullptr);
        slot_active = body_scratch_.get(m, "contact_slot_active", compiler::int32_type(), {slots, nb});
        NamedArgs fa;
        slot_args(fa);
        fa.add("slots", i(int(slots))).add("slot_active", a(slot_active));
        launch("xpbd_contacts", "find_contact_slots", std::move(fa), {slots, nb});
    }
    // What solve_contact_slots and solve_restitution_slots read besides: the poses being solved,
    // the masses, the shapes' distance grids and materials, the active slots.
    auto contact_args = [&](NamedArgs& a_, const Array& q) {
        slot_args(a_);
        a_.add("body_q", a(q))
            .add("body_com", a(m.body_com))
            .add("body_inv_mass", a(m.body_inv_mass))
            .add("body_inv_inertia", a(m.body_inv_inertia))
            .add("shape_materials", a(m.shape_materials))
            .add("slots", i(int(slots)))
            .add("slot_active", a(slot_active));
    };

    // The prediction's wrenches, then the prediction.
    const bool ext = control && control->body_f.valid();
    const Array body_f = body_scratch_.get(m, "body_f", spatial_vector_type(), nb);
    NamedArgs actions{{"body_q", a(in.body_q)},
                      {"external_f", a(ext ? control->body_f : in.body_qd)},
                      {"has_external_f", i(ext ? 1 : 0)},
                      {"joint_type", a(m.joint_type)},
                      {"joint_X_p", a(m.joint_X_p)},
                      {"joint_axis_start", a(m.joint_axis_start)},
                      {"joint_axis_dim", a(m.joint_axis_dim)},
                      {"joint_axis", a(m.joint_axis)},
                      {"joint_mode", a(m.joint_mode)},
                      {"joint_act", a(joint_act(m, control))},
                      {"body_f", a(body_f)}};
    joint_args(actions);
    launch("xpbd_bodies", "eval_body_actions", std::move(actions));

    const bool joints = m.joint_count > 0;
    const int passes = iterations * (int(joints) + int(contacts));
    // Pass k reads the poses of pass k - 1 and writes its own: two scratch pairs in turn, the last
    // pass state_out (its velocities a scratch array when restitution follows).
    int pass = 0;
    auto next = [&]() {
        const bool last = pass == passes;
        const int slot = pass % 2;
        ++pass;
        Array q = last ? out.body_q : body_scratch_.get(m, "q" + std::to_string(slot), transform_type(), nb);
        Array qd = last && !enable_restitution ? out.body_qd
                                               : body_scratch_.get(m, "qd" + std::to_string(slot), spatial_vector_type(), nb);
        return std::pair<Array, Array>{q, qd};
    };
    Array q, qd;
    std::tie(q, qd) = next();
    launch("xpbd_bodies", "integrate_bodies",
           {{"body_q", a(in.body_q)},
            {"body_qd", a(in.body_qd)},
            {"body_f", a(body_f)},
            {"body_com", a(m.body_com)},
            {"body_inertia", a(m.body_inertia)},
            {"body_inv_mass", a(m.body_inv_mass)},
            {"body_inv_inertia", a(m.body_inv_inertia)},
            {"gravity", v3(m.gravity)},
            {"angular_damping", f(angular_damping)},
            {"dt", f(dt)},
            {"body_q_new", a(q)},
            {"body_qd_new", a(qd)}});
    auto apply = [&](const Array& deltas, const Array& counts, bool weighted) {
        Array q1, qd1;
        std::tie(q1, qd1) = next();
        launch("xpbd_bodies", "apply_body_deltas",
               {{"body_q", a(q)},
                {"body_qd", a(qd)},
                {"body_com", a(m.body_com)},
                {"body_inv_mass", a(m.body_inv_mass)},
                {"body_inv_inertia", a(m.body_inv_inertia)},
                {"deltas", a(deltas)},
                {"contact_count", a(counts)},
                {"weighted", i(weighted ? 1 : 0)},
                {"dt", f(dt)},
                {"body_q_new", a(q1)},
                {"body_qd_new", a(qd1)}});
        q = q1;
        qd = qd1;
    };
    for (int it = 0; it < iterations; ++it) {
        if (joints) {  // a thread per joint, then a thread per body sums its joints
            const int64_t nj = m.joint_count;
            const Array impulse = body_scratch_.get(m, "joint_impulse", spatial_vector_type(), nj);
            const Array x_p = body_scratch_.get(m, "joint_x_p", vec3_type(), nj);
            const Array x_c = body_scratch_.get(m, "joint_x_c", vec3_type(), nj);
            NamedArgs ja{{"body_q", a(q)},
                         {"body_qd", a(qd)},
                         {"body_com", a(m.body_com)},
                         {"body_inv_mass", a(m.body_inv_mass)},
                         {"body_inv_inertia", a(m.body_inv_inertia)},
                         {"linear_relaxation", f(joint_linear_relaxation)},
                         {"angular_relaxation", f(joint_angular_relaxation)},
                         {"dt", f(dt)},
                         {"joint_impulse", a(impulse)},
                         {"joint_x_p", a(x_p)},
                         {"joint_x_c", a(x_c)},
                         {"joint_linear_compliance", a(m.joint_linear_compliance)},
                         {"joint_angular_compliance", a(m.joint_angular_compliance)}};
            add_joint_frame_args(ja, m);
            add_joint_drive_args(ja, m, joint_act(m, control));
            launch("xpbd_joints", "solve_joints", std::move(ja), {nj});
            const Array deltas = body_scratch_.get(m, "joint_deltas", spatial_vector_type(), nb);
            NamedArgs sa{{"body_q", a(q)},      {"body_com", a(m.body_com)}, {"joint_impulse", a(impulse)},
                         {"joint_x_p", a(x_p)}, {"joint_x_c", a(x_c)},       {"deltas", a(deltas)}};
            joint_args(sa);
            launch("xpbd_joints", "sum_body_joints", std::move(sa));
            apply(deltas, body_scratch_.get(m, "contact_count", compiler::float32_type(), nb), false);
        }
        if (contacts) {
            // The slots (above), then a thread per body sums its slots.
            const Array slot_deltas = body_scratch_.get(m, "contact_slot_deltas", spatial_vector_type(), {slots, nb});
            const Array slot_counts = body_scratch_.get(m, "contact_slot_counts", compiler::float32_type(), {slots, nb});
            NamedArgs ca;
            contact_args(ca, q);
            ca.add("ground_mu", f(m.ground_mu))
                .add("relaxation", f(rigid_contact_relaxation))
                .add("slot_deltas", a(slot_deltas))
                .add("slot_counts", a(slot_counts));
            launch("xpbd_contacts", "solve_contact_slots", std::move(ca), {slots, nb});
            const Array deltas = body_scratch_.get(m, "contact_deltas", spatial_vector_type(), nb);
            const Array counts = body_scratch_.get(m, "contact_count", compiler::float32_type(), nb);
            launch("xpbd_contacts", "sum_contact_slots",
                   {{"slot_deltas", a(slot_deltas)},
                    {"slot_counts", a(slot_counts)},
                    {"slots", i(int(slots))},
                    {"deltas", a(deltas)},
                    {"contact_count", a(counts)}});
            apply(deltas, counts, rigid_contact_con_weighting);
        }
    }
    if (enable_restitution) {  // in the contact pass's slots, then a thread per body
        const Array slot_impulses = body_scratch_.get(m, "restitution_slot_impulses", spatial_vector_type(), {slots, nb});
        const Array slot_counts = body_scratch_.get(m, "restitution_slot_counts", compiler::float32_type(), {slots, nb});
        NamedArgs ra;
        contact_args(ra, q);
        ra.add("body_qd0", a(in.body_qd))
            .add("body_qd", a(qd))
            .add("ground_restitution", f(m.ground_restitution))
            .add("gravity", v3(m.gravity))
            .add("dt", f(dt))
            .add("slot_impulses", a(slot_impulses))
            .add("slot_counts", a(slot_counts));
        launch("xpbd_restitution", "solve_restitution_slots", std::move(ra), {slots, nb});
        launch("xpbd_restitution", "apply_restitution_slots",
               {{"body_q", a(q)},
                {"body_qd", a(qd)},
                {"body_inv_mass", a(m.body_inv_mass)},
                {"body_inv_inertia", a(m.body_inv_inertia)},
                {"slot_impulses", a(slot_impulses)},
                {"slot_counts", a(slot_counts)},
                {"slots", i(int(slots))},
                {"body_qd_new", a(out.body_qd)}});
    }
}

}  // namespace weft::engine
