// engine/kinematics.cpp: the launches of eval_fk and eval_ik (engine/kinematics.h).
#include "engine/kinematics.h"

#include <algorithm>

#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "runtime/recorder.h"

namespace weft::engine {

namespace {

void check_coordinates(const char* call, const char* name, const Array& a, int64_t count, const Model& m) {
    const std::string c = call;
    if (!a.valid()) throw runtime::RuntimeError(c + ": " + name + " is not an array");
    if (a.dtype() != compiler::float32_type() || a.ndim() != 1 || a.size() < std::max<int64_t>(count, 1))
        throw runtime::RuntimeError(c + ": " + name + " must be a float32 array of " + std::to_string(count) +
                                    " entries (the model's joints have " + std::to_string(count) + "), got " + a.describe());
    if (a.device() != m.device)
        throw runtime::RuntimeError(c + ": " + name + " is on " + a.device().str() + ", the model on " + m.device.str());
}

void check_bodies(const char* call, const State& s, const Model& m) {
    if (s.body_count != m.body_count || !s.body_q.valid() || !s.body_qd.valid())
        throw runtime::RuntimeError(std::string(call) + ": the state has " + std::to_string(s.body_count) +
                                    " bodies, the model " + std::to_string(m.body_count));
}

}  // namespace

void eval_fk(const Model& m, const Array& joint_q, const Array& joint_qd, State& state, const Array* mask) {
    using namespace args;
    if (runtime::active_recorder())
        throw runtime::RuntimeError(
            "eval_fk: not differentiable yet, and a Tape is recording; call it before recording "
            "(or use eval_ik, which is)");
    check_coordinates("eval_fk", "joint_q", joint_q, m.joint_coord_count, m);
    check_coordinates("eval_fk", "joint_qd", joint_qd, m.joint_dof_count, m);
    check_bodies("eval_fk", state, m);
    if (mask && mask->valid() &&
        (mask->dtype() != compiler::int32_type() || mask->size() != std::max(m.articulation_count, 1) ||
         mask->device() != m.device))
        throw runtime::RuntimeError("eval_fk: mask must be an int32 array of " + std::to_string(m.articulation_count) +
                                    " entries (one per articulation) on " + m.device.str() + ", got " + mask->describe());
    launch_fk(m, joint_q, joint_qd, state.body_q, state.body_qd, mask);
}

void launch_fk(const Model& m, const Array& joint_q, const Array& joint_qd, const Array& body_q, const Array& body_qd,
               const Array* mask) {
    using namespace args;
    if (m.articulation_count == 0) return;
    const bool has_mask = mask && mask->valid();
    static const runtime::Kernel k = solver_kernel("articulation", "eval_articulation_fk");
    runtime::NamedArgs named{{"articulation_start", a(m.articulation_start)},
                             {"articulation_mask", a(has_mask ? *mask : m.articulation_start)},
                             {"has_mask", i(has_mask ? 1 : 0)},
                             {"joint_q_start", a(m.joint_q_start)},
                             {"joint_qd_start", a(m.joint_qd_start)},
                             {"joint_q", a(joint_q)},
                             {"joint_qd", a(joint_qd)},
                             {"body_com", a(m.body_com)},
                             {"body_q", a(body_q)},
                             {"body_qd", a(body_qd)}};
    add_joint_frame_args(named, m);
    runtime::LaunchOptions o;
    o.device = m.device;
    runtime::launch(k, {m.articulation_count}, std::move(named).bind(k), o);
}

void eval_ik(const Model& m, const State& state, Array& joint_q, Array& joint_qd) {
    using namespace args;
    check_coordinates("eval_ik", "joint_q", joint_q, m.joint_coord_count, m);
    check_coordinates("eval_ik", "joint_qd", joint_qd, m.joint_dof_count, m);
    check_bodies("eval_ik", state, m);
    if (m.joint_count == 0) return;
    static const runtime::Kernel k = solver_kernel("articulation", "eval_articulation_ik");
    runtime::NamedArgs named{{"joint_q_start", a(m.joint_q_start)},
                             {"joint_qd_start", a(m.joint_qd_start)},
                             {"body_com", a(m.body_com)},
                             {"body_q", a(state.body_q)},
                             {"body_qd", a(state.body_qd)},
                             {"joint_q", a(joint_q)},
                             {"joint_qd", a(joint_qd)}};
    add_joint_frame_args(named, m);
    runtime::LaunchOptions o;
    o.device = m.device;
    runtime::launch(k, {m.joint_count}, std::move(named).bind(k), o);
}

}  // namespace weft::engine
