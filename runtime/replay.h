// runtime/replay.h: record a fixed sequence of device work once, run it many times.
//
//     Replay frame(device, [&] { for (int s = 0; s < 16; ++s) step(); });
//     for (int f = 0; f < frames; ++f) frame.run();
//
// On a cuda device the constructor captures the work into a CUDA graph (runtime/cuda/stream.h)
// without running it, and run() replays the graph with one driver call on the calling thread's
// current stream. Everywhere else (cpu, sim), and on cuda when the work cannot be captured,
// run() calls the function again. Either way run() queues the same work in the same order.
//
// Not captured, run eagerly instead (is_graph() says which):
//   - debug mode (runtime/config.h): debug launches read a bounds record back after each launch;
//   - a Recorder (a Tape) active on this thread: it must see every launch of every run.
//
// The function must only queue device work (launches, memsets, copies between arrays of the
// device) on arrays that exist before the Replay is made and outlive it; a graph reads and writes
// the same addresses on every run. Launch each kernel once before recording, so that its module
// is compiled and loaded (capture records work; it cannot compile).
#pragma once

#include <functional>
#include <memory>

#include "runtime/device.h"

namespace weft::runtime {

class Replay {
public:
    Replay() = default;
    Replay(const Device& device, std::function<void()> work);
    ~Replay();
    Replay(Replay&&) noexcept;
    Replay& operator=(Replay&&) noexcept;

    void run() const;  // throws RuntimeError when empty
    bool valid() const { return bool(work_); }
    bool is_graph() const { return graph_ != nullptr; }
    size_t node_count() const;  // operations in the graph (0 when not a graph)

private:
    struct Graph;
    Device device_;
    std::function<void()> work_;
    std::shared_ptr<Graph> graph_;  // shared_ptr: Graph is incomplete here
};

}  // namespace weft::runtime
