// runtime/cpu/crash_report.h: what a kernel that crashes the process on the CPU says first.
//
// A release launch has no bounds checks, so an out-of-range index in a CPU kernel writes or
// reads wherever it points. When that faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) inside a worker
// running a kernel, the handler installed here writes one line naming the kernel and the
// signal, suggests WEFT_DEBUG=1 (which finds the access: kernel, file:line, index, shape) and
// exits with code 70 (EX_SOFTWARE): the process cannot continue, its memory may be corrupt.
// When the crash comes later, outside any kernel (glibc's "double free or corruption" abort after
// an out-of-range write damaged the heap), the handler adds a note naming the last kernel that
// ran without bounds checks and then lets the signal take its previous course.
//
// Only async-signal-safe calls run in the handler (write, _exit, sigaction, raise).
#pragma once

namespace weft::runtime {

// Installs the handlers (once per process; idempotent). Called by the CPU device's first launch.
void install_crash_report();

// Marks the calling thread as running `kernel` (nullptr: none) for the handler. The name must
// outlive the launch. `checked`: a debug launch (bounds-checked).
void set_running_kernel(const char* kernel, bool checked);

}  // namespace weft::runtime
