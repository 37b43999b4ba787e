// runtime/cuda/stream.h: streams, events and CUDA graphs of the cuda device, as a plain C++ API.
//
// [SECTION] Stream, Event          ordered queues of GPU work and the markers between them
// [SECTION] ScopedStream           make a stream the current one of this thread (RAII)
// [SECTION] Graph capture          record a sequence of launches once, replay it cheaply
// [SECTION] synchronize
//
// Every cuda device has a default stream of its own. Each thread has a *current stream* per
// device: everything Weft does on that device from that thread (runtime::launch, array
// allocation, copies, memsets) is queued on it, in order. Work on two streams runs in any order
// unless an Event orders it:
//
//     Stream a(dev), b(dev);
//     { ScopedStream use(a); launch(k1, ...); }       // k1 queued on a
//     b.wait(a.record());                             // b waits for everything queued on a so far
//     { ScopedStream use(b); launch(k2, ...); }       // k2 starts after k1
//
// Graphs: begin_capture(stream) makes `stream` current on this thread and starts recording;
// launches, copies between device arrays and memsets made until end_capture() are recorded, not
// run. end_capture() returns a Graph that can be replayed any number of times; each replay runs
// the recorded work with the same arguments (array contents are read when it runs, so update
// arrays in place between replays, never reallocate them):
//
//     Stream s(dev);
//     begin_capture(s);
//     for (int i = 0; i < 100; ++i) launch(step, {n}, {x, v, dt}, {dev});
//     Graph g = end_capture();
//     g.launch();  g.launch();                        // 200 steps, one driver call each 100
//     s.synchronize();
//
// Not capturable (runtime/capture_check.h has the full table; those the runtime sees raise an error
// naming the operation): debug-mode launches (they read a record back after each launch), copies to
// or from host memory, synchronisation, module loading (launch each kernel once before capturing).
// Allocation during capture is recorded as a graph allocation; allocate before capturing. Memory
// freed during a capture that was allocated before it is freed when the capture ends.
//
// All types are move-only handles; errors raise runtime::RuntimeError. The handles of a device
// that faulted (launch_log.h) raise on use and release nothing on destruction.
#pragma once

#include <cstddef>

#include <cuda.h>

#include "runtime/capture_check.h"
#include "runtime/device.h"

namespace weft::runtime {

// [SECTION] Stream, Event

class Event;

class Stream {
public:
    explicit Stream(const Device& device);               // a new stream on a cuda device
    static Stream default_stream(const Device& device);  // the device's own (not owned)
    static Stream current(const Device& device);         // this thread's current one (not owned)
    // A stream made elsewhere (the CUDA runtime, another library) on the same device's primary
    // context; not owned: never destroyed by Weft.
    static Stream borrow(const Device& device, CUstream s);
    ~Stream();
    Stream(Stream&& o) noexcept;
    Stream& operator=(Stream&& o) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    const Device& device() const { return device_; }
    CUstream handle() const { return stream_; }
    void synchronize() const;         // waits for all work queued so far
    bool done() const;                // true when all queued work has finished
    Event record() const;             // a new event, recorded here now
    void wait(const Event& e) const;  // later work waits for e (no host wait)

private:
    Stream(const Device& device, CUstream s, bool owned) : device_(device), stream_(s), owned_(owned) {}
    Device device_;
    CUstream stream_ = nullptr;
    bool owned_ = false;
};

class Event {
public:
    explicit Event(const Device& device, bool timing = false);  // timing: usable by elapsed_ms
    ~Event();
    Event(Event&& o) noexcept;
    Event& operator=(Event&& o) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    const Device& device() const { return device_; }
    CUevent handle() const { return event_; }
    void record(const Stream& s);  // marks the point reached by s's queue now
    void synchronize() const;      // host waits until that point has run
    bool done() const;
    // Milliseconds between this event and `end` (both recorded with timing=true, both done).
    float elapsed_ms(const Event& end) const;

private:
    Device device_;
    CUevent event_ = nullptr;
};

// [SECTION] ScopedStream

// Makes `s` the current stream of its device on this thread until destroyed; nests.
class ScopedStream {
public:
    explicit ScopedStream(const Stream& s);
    ~ScopedStream();
    ScopedStream(const ScopedStream&) = delete;
    ScopedStream& operator=(const ScopedStream&) = delete;

private:
    int ordinal_;
    CUstream previous_;
};

// [SECTION] Graph capture

class Graph {
public:
    Graph() = default;
    ~Graph();
    Graph(Graph&& o) noexcept;
    Graph& operator=(Graph&& o) noexcept;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    bool valid() const { return exec_ != nullptr; }
    const Device& device() const { return device_; }
    size_t node_count() const;  // operations recorded (launches, copies, ...)
    // On the device's current stream of this thread. Each launch marks the deferred checks of the
    // captured work (runtime/capture_check.h: a backward pass's status words) pending: the next
    // synchronising point runs them and raises their error.
    void launch() const;
    void launch(const Stream& s) const;

private:
    friend Graph end_capture(const Stream& s);
    Device device_;
    CUgraph graph_ = nullptr;
    CUgraphExec exec_ = nullptr;
    size_t nodes_ = 0;
    CaptureKeep keep_;  // deferred checks of the captured work, and the status memory they read
};

// Starts recording on `s` (thread-local capture mode: other threads are unaffected) and makes it
// this thread's current stream for its device. Throws if a capture is already under way on s.
void begin_capture(const Stream& s);
// Ends the capture this thread began last, restores the previous current stream and returns the
// graph, instantiated and ready to launch. Throws when no capture is under way, or when the
// captured work was invalid (the message says which call broke it).
Graph end_capture();
Graph end_capture(const Stream& s);

// [SECTION] synchronize

// Waits for all work on every stream of the device (cuCtxSynchronize).
void synchronize(const Device& device);

}  // namespace weft::runtime
