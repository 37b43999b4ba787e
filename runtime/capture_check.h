// runtime/capture_check.h: what may happen while work is recorded into a CUDA graph, a checker that
// enforces it on any device, and status checks deferred to after a replay.
//
// [SECTION] capturing            is this thread's work on a device being recorded, not run?
// [SECTION] CaptureCheck         the same rules on cpu and sim, so capture-safety is testable there
// [SECTION] deferred checks      device status words read back after a replay, not inside the capture
// [SECTION] uncaptured memory    arrays a capture creates that must outlive the graph
//
// While a thread captures (runtime/cuda/stream.h begin_capture), its work on that device is recorded,
// not run: nothing may wait for it or read its results back. What cannot be recorded, and what the
// runtime does about it:
//
//   operation                               during a capture
//   copy to the host (Array::copy_to_host)  refused: RuntimeError naming the array
//   copy from host memory                   refused (the graph would copy whatever the host buffer
//                                           holds at replay time, if the driver took it at all)
//   loading a module (a kernel's first      refused, naming the kernel: launch it once before
//     launch on the device)                 capturing
//   debug-mode launch, verify_finite        refused (they read a record back after each launch)
//   backward launch without a deferred      refused: its status is read back at once; the Tape
//     adjoint_status                        passes one (tape::deferred_adjoint_status)
//   freeing memory made before the capture  deferred to the end of the capture (cuda)
//
// A CaptureCheck applies the same rules to a cpu or sim device, where the work runs eagerly as it is
// recorded: a test can show that a sequence (a recorded rollout and its backward pass) would capture,
// without a GPU. It also refuses what CUDA would accept but replay wrongly: an array allocated during
// the capture that is still alive at its end (a graph allocation that outlives its graph blocks the
// next replay).
//
// Deferred checks: work that reports failures through device status words (a backward pass's
// per-thread tape overflow) registers a check with the capture. The check is kept by the graph (or
// the CaptureCheck); each replay marks it pending, and the next synchronising point on the device
// (a copy to the host, wp.synchronize, a stream, event or device synchronize) runs it and raises its
// error, naming the kernel.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/types.h"
#include "runtime/device.h"

namespace weft::runtime {

class Array;

// [SECTION] capturing

// True while this thread's work on `d` is recorded instead of run: a CUDA graph capture on its
// current stream of `d`, or a CaptureCheck of `d` active on this thread.
bool capturing(const Device& d);
// Throws RuntimeError "<what> during a graph capture on <device>: <why>" when capturing(d).
void refuse_in_capture(const Device& d, const std::string& what, const std::string& why);

// [SECTION] CaptureCheck

// While alive, this thread's work on `device` follows the rules of a CUDA graph capture (the table
// above); on a cuda device it adds the allocation rule to a real capture. end() closes the check:
// it throws when an array allocated during it is still alive, names it, and marks the deferred
// checks registered during it pending (the work ran already). Nests with other checks and captures.
class CaptureCheck {
public:
    explicit CaptureCheck(const Device& device);
    ~CaptureCheck();  // ends the check without throwing when end() was not called
    CaptureCheck(const CaptureCheck&) = delete;
    CaptureCheck& operator=(const CaptureCheck&) = delete;

    void end();
    const Device& device() const { return device_; }

private:
    Device device_;
    bool ended_ = false;
};

// True while a CaptureCheck of `d` is active on this thread.
bool capture_checked(const Device& d);

// [SECTION] deferred checks

// A check of device status words: "" when all is well, else the error message.
struct DeferredCheck {
    std::function<std::string()> check;
};

// The deferred checks registered by one capture (or CaptureCheck); a Graph keeps them, and what
// their checks hold (the status memory) lives as long as the graph.
struct CaptureKeep {
    Device device;
    std::vector<std::shared_ptr<DeferredCheck>> checks;
    void mark_pending() const;  // a replay ran: check at the next synchronising point
};

// Registers `check` with the innermost capture or CaptureCheck of `d` on this thread. Returns
// false (registering nothing) when there is none.
bool defer_check(const Device& d, std::function<std::string()> check);

// Capture bookkeeping for runtime/cuda/stream.cpp (begin_capture, end_capture) and CaptureCheck:
// open a frame of `d` on this thread; close the innermost frame of `d` and return what it kept.
void open_capture_frame(const Device& d);
CaptureKeep close_capture_frame(const Device& d);

// Runs the pending checks of `d` (none while `d` is capturing); throws RuntimeError with the first
// error. Called at every synchronising point; costs one atomic load when nothing is pending.
void run_deferred_checks(const Device& d);

// [SECTION] uncaptured memory

// A zeroed array whose memory is not a graph allocation even during a capture (on cuda it is
// allocated outside the capture, then zeroed by a memset that the capture records, so every replay
// starts from zero). For status words that a deferred check reads after the replays.
Array zeros_outside_capture(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device);

// For Array::empty and its deleter: an allocation or free of `p` on `d`, checked against an active
// CaptureCheck.
void note_capture_allocation(const Device& d, void* p, const std::string& what);
void note_capture_free(void* p);

}  // namespace weft::runtime
