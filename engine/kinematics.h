// engine/kinematics.h: forward and inverse kinematics of articulations (Warp's eval_fk and
// eval_ik), from a model's reduced coordinates to its bodies' poses and back (kernels/articulation.py
// holds the conventions: each joint's coordinates and velocities in its parent's joint frame).
//
//   eval_fk(model, model.joint_q, model.joint_qd, state);   // place the bodies from joint_q
//   eval_ik(model, state, joint_q, joint_qd);               // read joint_q back from body_q
//
// Both are kernels on the model's device. eval_ik is recorded by a Tape like any launch and is
// differentiable; eval_fk places a tree parent first in one thread (it reads poses it wrote), which
// the Tape's adjoint cannot replay, so it refuses to run while a Tape records.
#pragma once

#include "engine/model.h"

namespace weft::engine {

// body_q / body_qd of `state` from joint_q (float, model.joint_coord_count) and joint_qd (float,
// model.joint_dof_count). `mask` (int32, one per articulation; nullable) skips the articulations
// whose entry is 0; their bodies keep their values. Throws runtime::RuntimeError naming the array
// for a wrong size, type or device, and under an active Tape.
void eval_fk(const Model& model, const Array& joint_q, const Array& joint_qd, State& state, const Array* mask = nullptr);

// joint_q / joint_qd (as above) from the bodies of `state`. Throws as eval_fk does.
void eval_ik(const Model& model, const State& state, Array& joint_q, Array& joint_qd);

// The launch eval_fk makes, without its checks and its refusal under a Tape: body_q / body_qd from
// joint_q / joint_qd (`mask`: int32 per articulation, or null). For integrators, whose steps are
// recorded as a whole (engine/featherstone.cpp).
void launch_fk(const Model& model, const Array& joint_q, const Array& joint_qd, const Array& body_q, const Array& body_qd,
               const Array* mask = nullptr);

}  // namespace weft::engine
