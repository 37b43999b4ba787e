// The thread's active recorder. See recorder.h.
#include "runtime/recorder.h"

namespace weft::runtime {
namespace {
thread_local Recorder* g_active = nullptr;
}

Recorder* active_recorder() { return g_active; }

Recorder* exchange_recorder(Recorder* r) {
    Recorder* old = g_active;
    g_active = r;
    return old;
}

ScopedRecorder::ScopedRecorder(Recorder* r) : previous_(exchange_recorder(r)) {}
ScopedRecorder::~ScopedRecorder() { exchange_recorder(previous_); }

}  // namespace weft::runtime
