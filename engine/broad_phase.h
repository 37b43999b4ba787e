// engine/broad_phase.h: the body broad phase (kernels/broad_phase.py). From the poses of one contact
// evaluation it lists, for every body, the shapes it may touch, found through a hash grid of the
// shapes' bounding spheres; the body contact passes (kernels/rigid.py's eval_body_forces, XPBD's
// contact passes) walk that list instead of every shape of the body's world, and produce the same
// bits. A model has it when finalize turned Model::body_broad_phase on (engine/model.h).
//
//   BodyCandidates candidates;
//   candidates.build(m, in.body_q, 0.0f, tape != nullptr);   // before the contact launch
//   candidates.add_args(args, m);                              // broad_phase, body_candidate_*, capacity
#pragma once

#include <vector>

#include "engine/model.h"
#include "runtime/named_args.h"

namespace weft::engine {

class BodyCandidates {
public:
    // Lists the candidates of the bodies at `body_q` for contacts within `margin` (m; XPBD's contact
    // margin, 0 for penalty contact). Does nothing when the model's broad phase is off. With `fresh`
    // the lists go to new arrays, so that a recorded evaluation keeps its own for the backward pass
    // (and the tape sees no array overwritten); otherwise this object's are reused. The launches are
    // not recorded by an active Tape (they have no adjoint; the grid is reused scratch).
    void build(const Model& m, const Array& body_q, float margin, bool fresh);

    // The kernels' arguments broad_phase, body_candidate_count, body_candidate_list and
    // candidate_capacity, for the lists of the last build (broad_phase 0 when the model has none).
    void add_args(runtime::NamedArgs& args, const Model& m) const;

    // The lists the last build wrote (for a step's tape record); empty when the broad phase is off.
    std::vector<Array> written() const;

    // int32 (body_count): the candidates of each body, -1 where it walks every shape of its world.
    const Array& count() const { return count_; }
    // int32 (body_count x Model::body_candidate_capacity): their positions in that walk, ascending.
    const Array& list() const { return list_; }

private:
    Array bucket_count_, bucket_shapes_, count_, list_;
};

}  // namespace weft::engine
