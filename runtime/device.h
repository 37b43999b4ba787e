// runtime/device.h: devices and the backend interface each kind of device implements.
//
// A Device is a value: "cpu", "cuda:N" (N defaults to 0) or "sim:ARCH" (ARCH defaults to h200).
// Everything device-specific sits behind DeviceBackend: memory, copies, loading a compiled module
// and launching its kernels. The CPU backend (runtime/cpu) compiles with the in-process Clang JIT,
// the CUDA backend (runtime/cuda) with NVRTC and the driver, the sim backend (runtime/sim) runs
// the PTX NVRTC makes on gpusim. Layers above (engine/, python/) see only this interface.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "compiler/driver.h"

namespace wp {
struct launch_bounds_t;
}

namespace weft::runtime {

enum class DeviceKind { Cpu, Cuda, Sim };

// What a device can do. Layers above the runtime ask a device for a capability instead of testing
// its kind, so that a new kind of device answers for itself (ARCHITECTURE.md: engine/ does not
// ask which device kind runs it).
enum class Capability {
    GraphCapture,      // a sequence of launches can be recorded once and replayed by one call (runtime/replay.h)
    GraphicsInterop,   // its memory can be copied into OpenGL buffers without the host (register_gl_buffer)
    PersistentLaunch,  // a sequence of launches can run as one launch of a persistent grid (runtime/launch_list.h)
};

struct Device {
    DeviceKind kind = DeviceKind::Cpu;
    int ordinal = 0;            // cuda:N
    std::string arch = "h200";  // sim:ARCH

    std::string str() const;                                          // "cpu", "cuda:0", "sim:h200"
    bool is_host_memory() const { return kind != DeviceKind::Cuda; }  // cpu and sim arrays live in host memory
    bool supports(Capability c) const;                                // see Capability
    bool operator==(const Device& o) const {
        return kind == o.kind && ordinal == o.ordinal && (kind != DeviceKind::Sim || arch == o.arch);
    }
    bool operator!=(const Device& o) const { return !(*this == o); }
};

// Parses "cpu", "cuda", "cuda:1", "sim", "sim:h100". Throws RuntimeError naming the string.
Device parse_device(const std::string& s);

// Launch geometry and arguments as a backend receives them (already checked by launch()).
struct LaunchRequest {
    const compiler::KernelInfo* kernel = nullptr;
    int ndim = 1;
    long long shape[4] = {1, 1, 1, 1};
    long long size = 0;  // product of shape
    int block_dim = 256;
    std::vector<std::byte> args;  // the kernel's argument block (KernelInfo layout)
    bool debug = false;           // bounds-checked build in use: report out-of-range accesses
    bool adjoint = false;         // run the backward entry; `args` is then the K_args_adj block
};

// The launch bounds (compiler/native/launch.h) every backend hands a kernel entry for `req`.
wp::launch_bounds_t launch_bounds(const LaunchRequest& req);

// A point in the queue of work one thread has given a device (cuda: an event recorded on the
// thread's current stream; DeviceBackend::mark_queue). Another thread can order its own work after
// it without waiting for what the first thread queued later.
class QueueMark {
public:
    virtual ~QueueMark() = default;
    virtual void wait() const = 0;  // the host waits until the work before the mark has run
};

// An OpenGL buffer object registered with a device (DeviceBackend::register_gl_buffer): the viewer
// copies State arrays into its vertex buffers this way on cuda (CUDA-OpenGL interop), with no host
// round trip. Destroy it while the GL context that made the buffer is current.
class GraphicsResource {
public:
    virtual ~GraphicsResource() = default;
    // Copies `bytes` of this device's memory at `src` to the buffer's start, after the work before
    // `after` (null: before the calling thread's current stream's work queued so far) and before
    // the graphics API's next use of the buffer; returns once the copy is done, so `src` may be
    // freed at once. The copy runs on a stream of its own: work queued after `after` (a
    // simulation running ahead) does not delay it.
    virtual void copy_from(const void* src, size_t bytes, const QueueMark* after = nullptr) = 0;
};

class LoadedModule {  // a compiled module made ready on one device
public:
    virtual ~LoadedModule() = default;
    virtual void launch(const LaunchRequest& req) = 0;
};

// A launch list made ready on one device (DeviceBackend::load_launch_list; runtime/launch_list.h).
struct LaunchListPlan;
class LoadedLaunchList {
public:
    virtual ~LoadedLaunchList() = default;
    virtual void run() = 0;          // queues the whole list as one launch on the calling thread's stream
    virtual int blocks() const = 0;  // the grid it launches
};

class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;
    virtual Device device() const = 0;
    virtual void* allocate(size_t bytes) = 0;  // zero-initialised? no: callers memset
    virtual void free(void* p) = 0;
    virtual void memset(void* dst, int value, size_t bytes) = 0;
    virtual void copy_to_host(void* dst, const void* src, size_t bytes) = 0;
    virtual void copy_from_host(void* dst, const void* src, size_t bytes) = 0;
    virtual void copy_within(void* dst, const void* src, size_t bytes) = 0;
    // Sets `count` elements of `element_size` bytes at dst to the bytes at `value`. The default
    // stages the pattern on the host and copies it; a device with pattern fills does it in place
    // (on cuda: memset nodes, so a fill can be captured into a graph, as Tape::backward's seed is).
    virtual void fill(void* dst, const void* value, size_t element_size, size_t count);
    virtual void synchronize() = 0;
    // True while the calling thread's current stream on this device is recording a graph: work
    // queued now is replayed later, and nothing may wait for it or read it back.
    virtual bool capturing() { return false; }
    // A mark after the work the calling thread has queued on this device so far; null on devices
    // that run work as it is given (cpu, sim: there is nothing to wait for).
    virtual std::shared_ptr<QueueMark> mark_queue() { return nullptr; }
    // Registers the buffer object `gl_buffer` of the OpenGL context current on the calling thread.
    // The default throws RuntimeError: the device cannot share memory with OpenGL.
    virtual std::unique_ptr<GraphicsResource> register_gl_buffer(unsigned gl_buffer);
    // Memory that is not a graph allocation even while this thread captures (on cuda: allocated
    // with the capture set aside, runtime/capture_check.h); elsewhere allocate/free.
    virtual void* allocate_outside_capture(size_t bytes) { return allocate(bytes); }
    virtual void free_outside_capture(void* p) { free(p); }
    // Compiles (or fetches from the disk cache) and loads one part of a module for this device
    // (compiler::CodePart; runtime/module.h, "Backward code on first use"): All on a device whose
    // loads_backward_separately() is false, else Forward or Backward.
    virtual std::unique_ptr<LoadedModule> load(const compiler::CompiledModule& m, bool debug, compiler::CodePart part) = 0;
    // True where a module's backward entries are compiled and loaded on the first backward launch
    // rather than with the forward ones (cuda and sim: NVRTC's time grows with the adjoints' size).
    virtual bool loads_backward_separately() const { return false; }
    // Compiles (or fetches from the disk cache) and loads a launch list's persistent entry and
    // copies its steps to the device (runtime/launch_list.h). The default throws RuntimeError:
    // only devices with Capability::PersistentLaunch run lists.
    virtual std::unique_ptr<LoadedLaunchList> load_launch_list(const LaunchListPlan& plan);
};

// The backend for a device, created on first use. Throws RuntimeError when the device is not
// available here (no GPU, a build without the CPU JIT, an unknown sim architecture).
DeviceBackend& backend(const Device& d);

// True when `backend(d)` would succeed.
bool device_available(const Device& d);

}  // namespace weft::runtime
