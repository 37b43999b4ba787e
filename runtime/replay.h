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
//
// With ReplayOptions::launch_list, on a device with Capability::PersistentLaunch (cuda, sim), the
// work's launches are first collected into a runtime::LaunchList, and run() runs that one
// launch; where the list cannot hold the work (launch_list.h says what), the Replay is a graph
// (or eager) as without the option, and why_not_listed() says why.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runtime/device.h"

namespace weft::runtime {

struct ReplayOptions {
    bool launch_list = false;  // try a LaunchList first (see above)
    int list_max_blocks = 0;   // LaunchListOptions::max_blocks
};

class LaunchList;

class Replay {
public:
    Replay() = default;
    Replay(const Device& device, std::function<void()> work, const ReplayOptions& options = {});
    ~Replay();
    Replay(Replay&&) noexcept;
    Replay& operator=(Replay&&) noexcept;

    void run() const;  // throws RuntimeError when empty
    bool valid() const { return bool(work_); }
    bool is_graph() const { return graph_ != nullptr; }
    bool is_launch_list() const { return list_ != nullptr; }
    const std::string& why_not_listed() const { return why_not_listed_; }  // with options.launch_list
    size_t node_count() const;                                             // operations in the graph (0 when not a graph)

private:
    struct Graph;
    Device device_;
    std::function<void()> work_;
    std::shared_ptr<Graph> graph_;  // shared_ptr: Graph is incomplete here
    std::shared_ptr<LaunchList> list_;
    std::string why_not_listed_;
};

}  // namespace weft::runtime
