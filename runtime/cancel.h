// runtime/cancel.h: interrupting a running launch (Ctrl-C).
//
// A kernel with an endless loop would otherwise hold its process until SIGKILL. While a launch
// runs on the cpu or sim device, an InterruptScope turns SIGINT into a request: the handler
// only sets cancel_flag(). CPU kernels poll the flag at every loop back-edge
// (wp::loop_poll, compiler/native/launch.h) and leave the launch; the CPU workers check it
// before each chunk of threads; gpusim checks it between the turns of warps. The launch then
// throws LaunchInterrupted, which `weft launch` turns into exit code 130 and the Python module
// into KeyboardInterrupt; the runtime stays usable (the flag is cleared).
//
// The cost: one volatile load and a never-taken branch per loop iteration on the CPU
// (bench/results/loop_poll.md has the measurement).
#pragma once

#include <atomic>
#include <string>

#include "runtime/errors.h"

namespace weft::runtime {

// A launch ended early because it was interrupted (SIGINT, or request_cancel()).
class LaunchInterrupted : public RuntimeError {
public:
    explicit LaunchInterrupted(const std::string& what) : RuntimeError(what) {}
};

// Non-zero once a running launch is asked to stop. Read by generated code through
// thread_ctx::cancel (as a volatile int) and by gpusim (LaunchOptions::cancel).
std::atomic<int>& cancel_flag();
void request_cancel();  // async-signal-safe

// While any scope is alive (on any thread), SIGINT calls request_cancel() instead of its
// previous action, which is restored when the last scope ends.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;
};

// Throws LaunchInterrupted naming the kernel when the flag is set, and clears it.
void throw_if_cancelled(const std::string& kernel);

}  // namespace weft::runtime
