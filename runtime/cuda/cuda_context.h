// runtime/cuda/cuda_context.h: one CUDA device as the runtime uses it.
//
// Per device Weft keeps one CudaContext, created on first use and never destroyed (arrays may be
// freed during static destruction): the device's primary context (the one the CUDA runtime and
// other libraries share, so pointers can be exchanged with them), its compute capability as an
// NVRTC architecture ("sm_90"), a default stream of its own (not the legacy NULL stream, which
// cannot be captured into a graph), the stream-ordered memory pool set to keep freed memory for
// reuse, and the LaunchLog that turns a sticky fault into an error naming its kernel.
//
// Streams: each thread has a current stream per device, the default stream unless a ScopedStream
// (stream.h) or a graph capture set another. Allocations, frees, copies, memsets and launches go
// to the current stream, in order; work on different streams is ordered only by events.
//
// Every driver call goes through check(), which raises RuntimeError with a plain sentence; see
// launch_log.h for what a kernel fault raises and when.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <cuda.h>

#include "runtime/cuda/launch_log.h"
#include "runtime/device.h"

namespace weft::runtime {

class CudaContext {
public:
    static constexpr int kMaxDevices = 64;
    static constexpr int kDefaultGridWaves = -1;  // kGridWavesAuto (grid_policy.h)

    // True when the driver loads and device `ordinal` exists. Never throws.
    static bool exists(int ordinal);
    // The device's context, created on first use. Throws RuntimeError when it is not available.
    static CudaContext& get(int ordinal);

    int ordinal() const { return ordinal_; }
    Device device() const { return Device{DeviceKind::Cuda, ordinal_, {}}; }
    const std::string& name() const { return name_; }  // "NVIDIA H200"
    const std::string& arch() const { return arch_; }  // "sm_90"
    int sm_count() const { return sm_count_; }
    bool uses_mem_pool() const { return mem_pool_; }  // cuMemAllocAsync available

    // Makes the primary context current on the calling thread (cheap when it already is).
    void bind();

    CUstream default_stream() const { return default_stream_; }
    CUstream current_stream() const;          // this thread's
    CUstream set_current_stream(CUstream s);  // nullptr: the default; returns the previous

    // Throws RuntimeError when r is not CUDA_SUCCESS: "cuda:0: <what> failed: NAME (text)", or,
    // for a sticky error, the fault message of the launches in flight.
    void check(CUresult r, const char* what);
    // As check, for the launch `rec` just made and synchronised: names it as the faulting one.
    void check_launch(CUresult r, const LaunchRecord& rec);
    // Throws when an earlier fault made the context unusable.
    void ensure_usable() const;

    void synchronize_stream(CUstream s);  // and forget the launches in flight
    void synchronize();                   // the whole device
    bool capturing(CUstream s);           // a graph capture is under way on s

    // Synchronise after every launch: WEFT_CUDA_SYNC=1 or config().debug.
    bool sync_every_launch() const;

    // Grid size of launches whose entry loops over a grid stride (kernels without
    // wp.sync_threads(), forward entries): W > 0 caps the grid at W x the blocks that fit on the
    // device at once; 0 launches one block per block_dim threads (the full grid); -1
    // (kGridWavesAuto, the default) chooses per kernel (grid_policy.h, with the measurement behind
    // it). WEFT_CUDA_GRID_WAVES=auto|W sets it at start-up.
    int grid_waves() const { return grid_waves_.load(std::memory_order_relaxed); }
    void set_grid_waves(int waves) { grid_waves_.store(waves < 0 ? -1 : waves, std::memory_order_relaxed); }

    // Programmatic dependent launch (PDL): on devices of compute capability 9.0 or newer, launches
    // carry CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, so a kernel may be scheduled
    // while the one ahead of it in the stream is still finishing; every CUDA entry first waits
    // (griddepcontrol.wait, cpp_codegen.h kCudaEntryGridWait) until its predecessors have ended
    // and their memory is visible. Eager launches and launches captured into a graph both use it.
    // Enabled by default; WEFT_CUDA_PDL=0|1 sets it at start-up, set_pdl_enabled at any time (a
    // graph keeps what its launches were captured with).
    bool pdl_supported() const { return pdl_supported_; }  // cc >= 9.0
    bool pdl_enabled() const { return pdl_enabled_.load(std::memory_order_relaxed); }
    void set_pdl_enabled(bool enabled) { pdl_enabled_.store(enabled, std::memory_order_relaxed); }
    bool uses_pdl() const { return pdl_supported_ && pdl_enabled(); }  // launches use it now

    LaunchLog& log() { return log_; }

private:
    explicit CudaContext(int ordinal);
    [[noreturn]] void raise_fault(CUresult r, const char* what, const LaunchRecord* exact);

    int ordinal_;
    CUdevice device_ = 0;
    CUcontext context_ = nullptr;
    CUstream default_stream_ = nullptr;
    std::string name_;
    std::string arch_;
    int sm_count_ = 0;
    bool mem_pool_ = false;
    bool sync_env_ = false;
    std::atomic<int> grid_waves_{kDefaultGridWaves};
    bool pdl_supported_ = false;
    std::atomic<bool> pdl_enabled_{true};
    LaunchLog log_;
    std::atomic<bool> faulted_{false};
    std::string fault_;  // the first fault's message, set once before faulted_
};

}  // namespace weft::runtime
