// Checkpointed rollouts. See checkpoint.h.
#include "tape/checkpoint.h"

#include <cmath>
#include <memory>
#include <set>

#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::tape {

using runtime::Array;
using runtime::RuntimeError;

namespace {

StateArrays like(const StateArrays& s, bool requires_grad) {
    StateArrays out;
    out.reserve(s.size());
    for (const Array& a : s) {
        bool g = requires_grad && !compiler::is_struct(a.dtype()) && compiler::is_float_kind(a.dtype()->scalar);
        out.push_back(Array::zeros(a.dtype(), a.shape(), a.device(), g));
    }
    return out;
}

void assign(StateArrays& dst, const StateArrays& src) {
    for (size_t i = 0; i < dst.size(); ++i) dst[i].assign_unrecorded(src[i]);
}

// Collects what the steps read and write, for the one record on the outer tape (its overwrite
// check and visualize()), leaving out the checkpoint's own arrays.
class AccessCollector : public runtime::Recorder {
public:
    explicit AccessCollector(std::set<const void*> internal) : internal_(std::move(internal)) {}
    void on_launch(const runtime::Kernel& k, const std::vector<int64_t>&, const std::vector<runtime::LaunchArg>& args,
                   const runtime::LaunchOptions&) override {
        const auto& params = k.info().params;
        for (size_t i = 0; i < args.size() && i < params.size(); ++i)
            if (args[i].kind == runtime::LaunchArg::ArrayArg)
                add(args[i].array, "argument '" + params[i].name + "' of kernel '" + k.name() + "'", params[i].read,
                    params[i].written);
    }
    void on_copy(const Array& dst, const Array& src) override {
        add(src, "copy source", true, false);
        add(dst, "copy destination", false, true);
    }
    void on_overwrite(const Array& dst, const char* op) override { add(dst, op, false, true); }
    std::vector<Access> accesses;

    // Forgets the arrays nobody but this collector holds any more: temporaries a step made and
    // dropped. No later launch can write them, so the record needs them neither for its overwrite
    // check nor for visualize(), and holding them would keep every step's temporaries alive until
    // the backward pass (O(n_steps) memory instead of the checkpoints' O(sqrt(n_steps))).
    void drop_dead() {
        size_t kept = 0;
        for (size_t j = 0; j < accesses.size(); ++j) {
            if (accesses[j].array.owner().use_count() == 1) continue;
            accesses[kept] = std::move(accesses[j]);
            produced_[kept] = produced_[j];
            ++kept;
        }
        accesses.resize(kept);
        produced_.resize(kept);
    }

private:
    // An array the steps write before they read it (an integrator's scratch, a temporary) holds
    // values the steps made: reading it later is not an input of the record, so it stays a write
    // (otherwise two checkpoint records sharing such scratch would look like an overwrite).
    void add(const Array& a, const std::string& label, bool read, bool written) {
        if (internal_.count(a.owner().get())) return;
        for (size_t j = 0; j < accesses.size(); ++j) {
            Access& x = accesses[j];
            if (x.array.data() == a.data() && x.array.owner() == a.owner()) {
                x.read |= read && !produced_[j];
                x.written |= written;
                return;
            }
        }
        accesses.push_back({a, label, read, written});
        produced_.push_back(written && !read);
    }
    std::set<const void*> internal_;
    std::vector<bool> produced_;  // per access: first seen written, not read
};

}  // namespace

CheckpointStats checkpoint(const StepFn& step, int n_steps, const StateArrays& state_in, StateArrays& state_out, int segment) {
    if (n_steps < 1) throw RuntimeError("checkpoint: n_steps must be at least 1; got " + std::to_string(n_steps));
    if (segment < 0)
        throw RuntimeError("checkpoint: segment must be positive (or 0 for the square root of n_steps); got " +
                           std::to_string(segment));
    if (state_in.size() != state_out.size())
        throw RuntimeError("checkpoint: state_in has " + std::to_string(state_in.size()) + " arrays and state_out " +
                           std::to_string(state_out.size()));
    for (size_t i = 0; i < state_in.size(); ++i)
        if (state_in[i].dtype() != state_out[i].dtype() || state_in[i].shape() != state_out[i].shape())
            throw RuntimeError("checkpoint: state array " + std::to_string(i) + " is " + state_in[i].describe() +
                               " in state_in but " + state_out[i].describe() + " in state_out");
    const int seg = segment > 0 ? segment : std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n_steps)))));
    const int nseg = (n_steps + seg - 1) / seg;

    // Forward: two work states in turn; saved copies of the state at the start of each segment.
    auto saved = std::make_shared<std::vector<StateArrays>>();
    StateArrays a = like(state_in, false), b = like(state_in, false);
    std::set<const void*> internal;
    for (const StateArrays* s : {&a, &b})
        for (const Array& x : *s) internal.insert(x.owner().get());
    AccessCollector collector(internal);
    runtime::Recorder* outer = runtime::active_recorder();
    {
        runtime::ScopedRecorder scope(outer ? &collector : nullptr);
        assign(a, state_in);
        for (int k = 0; k < n_steps; ++k) {
            if (k % seg == 0) {
                saved->push_back(like(state_in, false));
                assign(saved->back(), a);
            }
            for (Array& x : b) x.zero_unrecorded();  // every step starts from zeros, as a fresh state does
            step(k, a, b);
            std::swap(a, b);
            collector.drop_dead();
        }
    }
    assign(state_out, a);
    CheckpointStats stats{seg, static_cast<int>(saved->size())};
    auto* tape = dynamic_cast<Tape*>(outer);
    if (!outer) return stats;
    if (!tape) throw RuntimeError("checkpoint: the active recorder is not a Tape");

    // The record: reads state_in and whatever the steps read; writes state_out.
    std::vector<Access> accesses;
    for (size_t i = 0; i < state_in.size(); ++i)
        accesses.push_back({state_in[i], "checkpoint state_in[" + std::to_string(i) + "]", true, false});
    for (Access& x : collector.accesses) accesses.push_back(x);
    for (size_t i = 0; i < state_out.size(); ++i)
        accesses.push_back({state_out[i], "checkpoint state_out[" + std::to_string(i) + "]", false, true});

    StateArrays in = state_in, out = state_out;
    tape->record_func(
        "checkpoint(" + std::to_string(n_steps) + " steps, segment " + std::to_string(seg) + ")",
        [step, n_steps, seg, nseg, saved, in, out]() {
            // The gradient flowing into the end of the segment being replayed.
            StateArrays carry = like(in, false);
            for (size_t i = 0; i < out.size(); ++i)
                if (out[i].grad()) carry[i].assign_unrecorded(*out[i].grad());
            for (int s = nseg - 1; s >= 0; --s) {
                int first = s * seg, len = std::min(seg, n_steps - first);
                std::vector<StateArrays> states;
                states.push_back(like(in, true));
                assign(states[0], (*saved)[static_cast<size_t>(s)]);
                Tape local;
                {
                    runtime::ScopedRecorder rec(&local);
                    for (int t = 0; t < len; ++t) {
                        states.push_back(like(in, true));
                        step(first + t, states[static_cast<size_t>(t)], states[static_cast<size_t>(t) + 1]);
                    }
                }
                std::vector<std::pair<Array, Array>> seeds;
                for (size_t i = 0; i < carry.size(); ++i)
                    if (states.back()[i].grad()) seeds.emplace_back(states.back()[i], carry[i]);
                local.backward(seeds);
                for (size_t i = 0; i < carry.size(); ++i)
                    if (states[0][i].grad()) carry[i].assign_unrecorded(*states[0][i].grad());
            }
            for (size_t i = 0; i < in.size(); ++i) {
                Array& x = const_cast<Array&>(in[i]);
                if (x.grad()) accumulate(*x.grad(), carry[i]);
            }
        },
        std::move(accesses));
    return stats;
}

}  // namespace weft::tape
