// engine/rollout_gradient.h: the gradient of a loss of a rollout's final State with respect to
// everything the rollout read (initial State, Model arrays), by the Tape, and the same loss run
// forward only, for finite differences (`weft gradcheck`, docs/gradient-testing.md).
//
//   initial ──step──> s1 ──step──> ... ──step──> final ──LossExpr (host, float64)──> loss
//      ^                                             |
//      └──────────── Tape::backward <── seeds d loss / d final.particle_q, particle_qd
//
// A rollout of up to `checkpoint_above` steps records one State per step; a longer one runs under
// tape::checkpoint (O(sqrt N) states, one extra forward pass), with the same gradients.
//
// When something is not finite, the diagnoses say where it started: the forward step and the
// kernel that first wrote a NaN/Inf (each launch checked, as WEFT_VERIFY_FINITE=1 does), or the
// step whose backward first made a gradient non-finite (each step's adjoint run on its own).
#pragma once

#include <string>

#include "engine/integrator.h"
#include "engine/loss_expr.h"

namespace weft::engine {

struct Rollout {
    const Model* model = nullptr;  // with requires_grad
    Integrator* integrator = nullptr;
    float dt = 0.0f;
    int steps = 1;
    int checkpoint_above = 100;  // steps; longer rollouts are checkpointed
};

struct RolloutGradient {
    double loss = 0.0;
    double loss_scale = 0.0;  // LossValue::scale
    bool checkpointed = false;
    int segment = 0;  // checkpoint segment length (steps)
};

// Runs the rollout from `initial` under a Tape and backward from the loss. The gradients of
// `initial`'s arrays and of the model's arrays are zeroed first and hold d loss / d x afterwards.
RolloutGradient rollout_gradient(const Rollout& r, const State& initial, const LossExpr& loss);

// The loss of the rollout from `initial`, forward only (no Tape).
double rollout_loss(const Rollout& r, const State& initial, const LossExpr& loss);

// "" when the rollout from `initial` stays finite; else "step K of N: launch of kernel 'X' left a
// non-finite value ..." for the first launch that wrote a NaN/Inf.
std::string diagnose_forward(const Rollout& r, const State& initial);

// "" when every step's backward stays finite; else "step K of N (the backward of the recorded
// function 'semi-implicit step'): non-finite gradient of ..." for the first step, newest first,
// whose adjoint made one (a step of several records names its last).
std::string diagnose_backward(const Rollout& r, const State& initial, const LossExpr& loss);

// Zeroes the gradient of every Model array that has one.
void zero_model_gradients(const Model& model);

}  // namespace weft::engine
