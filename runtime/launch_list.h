// runtime/launch_list.h: a fixed sequence of launches run as one launch of a persistent grid.
//
//     LaunchList frame(device, [&] { for (int s = 0; s < 16; ++s) step(in, out); });
//     if (frame.valid())
//         frame.run();                       // the 48 launches of 16 substeps, as one
//     else
//         std::cerr << frame.why_not();      // what in the work a list cannot hold
//
// The constructor runs `work` on this thread with its launches collected instead of run:
// each is checked and its argument block packed exactly as launch() does, then kept as a step.
// The steps' kernels, from any modules, are compiled together into one entry
// (compiler/launch_list.h) that runs them in order with a barrier across the whole grid
// between two steps, and the steps (launch shapes and argument blocks) are copied to the device
// once. run() queues that one launch. Results are those of the launches, bit for bit.
//
// What it is for: short launches back to back, where a CUDA graph still pays a few microseconds
// per node (docs/engine.md, "Launch lists"). The grid is as large as the device holds at
// once (a cooperative launch on cuda), and no larger than the largest step needs; a grid barrier
// costs about as much as a graph node, so lists win where steps are short.
//
// Contract (as runtime::Replay's): the work only launches kernels on arrays that exist before
// the list is made and outlive it; every run reads and writes the same addresses with the same
// scalar arguments. Anything else makes the list invalid, with why_not() saying what, and leaves
// nothing done: a zero(), fill() or copy during the collection is not performed, a backward or
// debug-mode launch, a kernel with shared memory, barriers or warp collectives, a launch on
// another device, a Tape recording (it must see every launch), or a list the device cannot load
// (its entry's block does not fit an SM). Exceptions from the work propagate.
//
// Devices: cuda (cooperative launch, grid barrier) and sim (a step per simulated launch of the
// list's grid: gpusim runs blocks one after the other, and a grid barrier means every block has
// finished the step; runtime/sim/sim_module.h). The cpu device has no launch cost to save
// (Capability::PersistentLaunch is false there).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/module.h"

namespace weft::runtime {

// What a backend loads (compiler/launch_list.h): the entry's source, its distinct launches (the
// cases, as launch() would hand them to a backend; req.kernel is the KernelInfo of the module's
// non-debug build), the order they run in, and the entry's parameter block made of them.
struct LaunchListPlan {
    std::string source;  // compiler::launch_list_source
    std::vector<LaunchRequest> cases;
    std::vector<int32_t> sequence;          // a case per step
    std::vector<std::byte> params;          // weft_list_params: every case's bounds and arguments
    std::vector<std::string> source_files;  // the kernel files of its modules (gpusim's line counts)
    std::string label;                      // "launch list of 48 launches ('k1', 'k2')", for reports and faults
    int block_dim = 256;
    long long needed_blocks = 1;  // the blocks of block_dim threads the largest case needs
    int max_blocks = 0;           // 0: as many as the device holds at once (and needed_blocks)
};

struct LaunchListOptions {
    // At most this many blocks (0: no limit but the device's); 1 makes every barrier a block
    // barrier. WEFT_LAUNCH_LIST_BLOCKS overrides it when set.
    int max_blocks = 0;
    // Threads per block (0: the launches' own, which must then agree). A listed kernel has no
    // shared memory or barriers, so only one that reads wp.tid()'s block coordinates
    // (block_idx, thread_idx) can tell. WEFT_LAUNCH_LIST_BLOCK_DIM overrides it when set.
    int block_dim = 0;
};

class LaunchCollector;

class LaunchList {
public:
    LaunchList() = default;
    LaunchList(const Device& device, const std::function<void()>& work, const LaunchListOptions& options = {});
    ~LaunchList();
    LaunchList(LaunchList&&) noexcept;
    LaunchList& operator=(LaunchList&&) noexcept;

    bool valid() const { return loaded_ != nullptr; }
    const std::string& why_not() const { return why_not_; }  // "" when valid
    void run() const;                                        // throws RuntimeError when invalid
    size_t steps() const { return steps_; }
    size_t cases() const { return cases_; }  // distinct launches (kernel, shape, arguments)
    int blocks() const;                      // the grid of each run

private:
    friend class LaunchListRecording;
    LaunchList(LaunchCollector&& collected, const LaunchListOptions& options);
    std::string why_not_;
    size_t steps_ = 0;
    size_t cases_ = 0;
    std::vector<Kernel> kernels_;  // keep the modules alive
    std::unique_ptr<LoadedLaunchList> loaded_;
};

// Why `device` cannot record a launch list now ("" when it can): a device without
// Capability::PersistentLaunch, debug mode, a Tape recording on this thread.
std::string launch_list_unavailable(const Device& device);

// The same collection for work that is not one function (a Python `with` block): from the
// constructor on, this thread's launches are collected, not run, until finish() builds the list
// (invalid, with why_not(), where LaunchList's constructor would be) or the recording is
// destroyed (the launches are dropped). The constructor throws RuntimeError, with the reason,
// where launch_list_unavailable is not empty, or inside another recording.
class LaunchListRecording {
public:
    explicit LaunchListRecording(const Device& device);
    ~LaunchListRecording();
    LaunchListRecording(const LaunchListRecording&) = delete;
    LaunchListRecording& operator=(const LaunchListRecording&) = delete;
    LaunchList finish(const LaunchListOptions& options = {});

private:
    std::unique_ptr<LaunchCollector> collector_;
};

// ---- for the runtime: collection ----

// Where launch() puts launches while a LaunchList collects on this thread; null otherwise.
LaunchCollector* active_launch_collector();
// Called by launch() with a checked, packed forward or backward request (req.kernel unset).
void collect_launch(LaunchCollector& c, const Kernel& k, const LaunchOptions& options, LaunchRequest req);
// Called instead of every array operation that is not a launch (zero, fill, copies) while a list
// collects: the list is refused, naming `operation`, and the operation is skipped.
void refuse_collected(LaunchCollector& c, const std::string& operation);

}  // namespace weft::runtime
