// runtime/recorder.h: the hook through which a Tape (tape/tape.h) sees launches and array writes.
//
// The runtime knows nothing about differentiation; it only tells the recorder that is active on
// the calling thread what it just did: a forward launch (after it succeeded), a device copy, or an
// overwrite of an array's contents that is not a launch (zero(), fill(), a copy from the host).
// Backward launches, allocations and the zeroing of new arrays are not reported.
//
//     ScopedRecorder scope(&my_tape);   // active on this thread until scope ends
//
// Scopes nest; a null recorder suspends recording (the Tape does this while it runs backward).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::runtime {

class Array;
class Kernel;
struct LaunchArg;
struct LaunchOptions;

class Recorder {
public:
    virtual ~Recorder() = default;
    virtual void on_launch(const Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& args,
                           const LaunchOptions& options) = 0;
    virtual void on_copy(const Array& dst, const Array& src) = 0;            // dst = src (wp.copy, assign)
    virtual void on_overwrite(const Array& dst, const char* operation) = 0;  // "zero", "fill", "copy from host"
};

// The recorder active on this thread, or null.
Recorder* active_recorder();

class ScopedRecorder {
public:
    explicit ScopedRecorder(Recorder* r);
    ~ScopedRecorder();
    ScopedRecorder(const ScopedRecorder&) = delete;
    ScopedRecorder& operator=(const ScopedRecorder&) = delete;

private:
    Recorder* previous_;
};

// Sets the active recorder without a scope (for bindings whose scopes are Python `with` blocks);
// returns the previous one, which the caller restores.
Recorder* exchange_recorder(Recorder* r);

}  // namespace weft::runtime
