// tape/checkpoint.h: N steps of a rollout under the Tape in O(√N) memory.
//
// Recording every step of a long rollout keeps every intermediate state alive until backward: N
// states. checkpoint() runs the N steps without recording them and keeps only every S-th state
// (S = segment, ⌈√N⌉ by default), then records ONE entry on the active tape. Its backward replays
// the segments newest first: from a saved state it recomputes the segment's S steps under a
// private tape (S + 1 states alive), seeds the last state's gradient with the gradient flowing in,
// runs that tape backward and carries the first state's gradient to the previous segment. Peak
// memory is about (N / S + S + 2) states, 2√N + 2 at the default, against N + 1 for a plain tape;
// the price is one extra forward pass. Gradients equal the plain tape's (the same kernels run on
// the same values; float atomics may sum in another order).
//
//     tape::checkpoint([&](int k, const StateArrays& in, StateArrays& out) { step(model, in, out); },
//                      n_steps, state_in, state_out);
//
// Anything else the steps read (model parameters with requires_grad) receives its gradient
// directly from the recomputed launches.
#pragma once

#include <functional>
#include <vector>

#include "runtime/array.h"

namespace weft::tape {

// A state: the arrays one step reads and the next writes, in a fixed order.
using StateArrays = std::vector<runtime::Array>;
// Writes step k's result into `out` (same dtypes and shapes as `in`) from `in`; must launch
// kernels or copy arrays only (no host reads of `in` that decide what to launch).
using StepFn = std::function<void(int k, const StateArrays& in, StateArrays& out)>;

struct CheckpointStats {
    int segment = 0;      // steps per segment used
    int checkpoints = 0;  // states saved during the forward pass
};

// Runs `n_steps` steps from `state_in` into `state_out` (allocated by the caller, same dtypes and
// shapes). Under an active Tape, records one entry whose backward is described above. segment 0:
// ⌈√n_steps⌉. Throws RuntimeError on mismatched states or n_steps < 1.
CheckpointStats checkpoint(const StepFn& step, int n_steps, const StateArrays& state_in, StateArrays& state_out, int segment = 0);

}  // namespace weft::tape
