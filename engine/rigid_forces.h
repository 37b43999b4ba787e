// engine/rigid_forces.h: the launch of kernels/rigid.py's eval_body_forces, shared by the
// integrators that move rigid bodies (semi-implicit in maximal coordinates, Featherstone in
// reduced ones).
//
//   candidates.build(m, in.body_q, 0.0f, fresh);
//   launch(solver_kernel("rigid", "eval_body_forces"), {m.body_count},
//          body_force_args(m, in.body_q, in.body_qd, control, wrench, chunks, true, candidates, out.body_f));
#pragma once

#include "engine/broad_phase.h"
#include "engine/model.h"
#include "runtime/named_args.h"

namespace weft::engine {

// The arguments of eval_body_forces: every contact wrench on each body of the bodies at
// (body_q, body_qd) (shapes, ground, particles' reactions summed in `particle_wrench`, chunks of
// `particle_chunks`; any array when 0), the control's external wrench, and with `joint_wrenches`
// the joints' penalty wrenches (maximal coordinates; a reduced-coordinate solver passes false and
// keeps the joints exact). `candidates`, built from the same body_q, are the shapes each body walks
// (the broad phase; an unbuilt one walks every shape). Written to `body_f` (torque about the
// centre of mass, force; world).
runtime::NamedArgs body_force_args(const Model& m, const Array& body_q, const Array& body_qd, const Control* control,
                                   const Array& particle_wrench, int particle_chunks, bool joint_wrenches,
                                   const BodyCandidates& candidates, const Array& body_f);

// Throws RuntimeError naming the integrator and the joint when the model has a distance joint,
// which only the xpbd integrator simulates (Model::distance_joint).
void refuse_distance_joints(const Model& m, const char* integrator);

}  // namespace weft::engine
