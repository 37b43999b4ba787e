// runtime/write_versions.h: a version number per watched allocation, bumped by every write the
// runtime makes to it, for the Tape's check of writes made outside its recording (tape/tape.h).
//
// A Tape watches the allocations its records touch. Each write through the runtime to a watched
// allocation then bumps its version and remembers what wrote it: a forward launch that stores to
// it ("launch of kernel 'scale'"), Array::assign / wp.copy ("copy"), zero, fill, and copies from
// the host (numpy data given to assign). The Tape compares versions with those it saw when it
// recorded, so a write it did not record (a launch outside the `with wp.Tape()` block, an assign
// between two recorded launches, or one after the recording) is found at backward().
//
// Not seen (no runtime call happens): stores through a numpy view of host memory (`a.numpy()[i] =
// v` on cpu and sim), DLPack consumers writing into the memory, and writes into a different array
// wrapping the same memory by raw pointer. Writes by *_unrecorded calls (a Tape's own bookkeeping)
// and backward launches are not counted either.
//
// Unwatched allocations cost one atomic load per write; nothing is stored for them.
#pragma once

#include <cstdint>
#include <string>

namespace weft::runtime {

class Array;

// The allocation an array's memory belongs to (views of one buffer share it).
const void* allocation_of(const Array& a);

// Reference-counted: an allocation stays watched until every watch() is matched by unwatch().
void watch_writes(const void* allocation);
void unwatch_writes(const void* allocation);
// True while some watch_writes(allocation) is not matched (a live Tape's record touched it).
bool writes_watched(const void* allocation);

// A write to `a`'s allocation made by `what` ("zero", "launch of kernel 'k'"): bumps its version
// when watched.
void note_write(const Array& a, const char* what);
// The same for a forward launch of `kernel` that stores to `a` ("launch of kernel 'k'"); the text
// is only built for a watched allocation, so an unwatched launch costs one atomic load per array.
void note_launch_write(const Array& a, const std::string& kernel);

struct WriteVersion {
    uint64_t version = 0;  // 0 until the first write while watched
    std::string last;      // what made the last counted write
};
WriteVersion write_version(const void* allocation);

}  // namespace weft::runtime
