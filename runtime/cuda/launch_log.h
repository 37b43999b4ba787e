// runtime/cuda/launch_log.h: which launches a GPU fault can belong to, so that its error names
// the kernel and not whatever driver call happened to notice it.
//
// A kernel that faults (illegal address, trap, misaligned access) does not fail its own
// cuLaunchKernel(Ex): launches are asynchronous, and the fault surfaces as a "sticky" error from
// some later driver call, after which the context is unusable. Weft's guarantee:
//
//   * WEFT_CUDA_SYNC=1, or debug mode (WEFT_DEBUG=1 / config().debug, or a debug launch): every
//     launch is followed by a synchronisation of its stream, so a fault raises RuntimeError from
//     that very launch, naming it exactly:
//       kernel 'scatter' (dim (1024,), block_dim 256, device cuda:0) faulted: CUDA_ERROR_ILLEGAL_ADDRESS ...
//   * otherwise (the default, no per-launch cost beyond one small record): the launches since
//     the device's last successful synchronisation are kept (the last kMaxPending of them); the
//     first driver call that sees the sticky error raises RuntimeError naming them. With one
//     launch in flight that is exact; with several the message lists them, most recent last, and
//     says to rerun with WEFT_CUDA_SYNC=1 to pin it down. Synchronising (a copy to the host,
//     synchronize(), Stream::synchronize, Event::synchronize) empties the list.
//
// After a fault every later call on that device raises RuntimeError saying so (CUDA cannot
// recover a context in which a kernel faulted; restart the process).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include <cuda.h>

namespace weft::runtime {

// True for the errors after which the CUDA context is unusable (a kernel faulted).
bool is_sticky_cuda_error(CUresult r);

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"
std::string describe_cuda_error(CUresult r);

// What a kernel is called in messages; made once per kernel when its module is loaded, shared
// by every record of its launches (recording a launch copies no strings).
struct KernelLabel {
    std::string name;   // kernel name
    std::string where;  // "examples/saxpy.py:13", or "" when unknown
};

struct LaunchRecord {
    std::shared_ptr<const KernelLabel> kernel;
    int ndim = 1;
    long long shape[4] = {0, 0, 0, 0};
    int block_dim = 0;
    uint64_t sequence = 0;  // 1, 2, ... launches on this device
};

class LaunchLog {
public:
    static constexpr size_t kMaxPending = 16;

    explicit LaunchLog(std::string device) : device_(std::move(device)) {}

    void record(LaunchRecord r);  // assigns r.sequence
    void clear();                 // after a successful synchronisation: nothing is in flight

    // One launch, named as a fault message names it: "kernel 'k' (examples/k.py:3, dim (8,),
    // block_dim 256, device cuda:0)".
    std::string describe(const LaunchRecord& r) const;

    // The error for a sticky `code` noticed by driver call `during` ("cuMemcpyDtoHAsync").
    // `exact` is the launch known to have faulted (synchronous mode), or null.
    std::string fault_message(CUresult code, const char* during, const LaunchRecord* exact) const;

private:
    std::string device_;
    mutable std::mutex mu_;
    std::deque<LaunchRecord> pending_;
    uint64_t sequence_ = 0;
    uint64_t dropped_ = 0;  // launches in flight not kept (beyond kMaxPending)
};

}  // namespace weft::runtime
