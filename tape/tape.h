// tape/tape.h: the Tape. It records forward launches and array copies while it is active, and
// replays their adjoints in reverse order on backward().
//
//     tape::Tape tape;
//     {
//         runtime::ScopedRecorder rec(&tape);       // Python: `with wp.Tape() as tape:`
//         runtime::launch(step, {n}, {x, v, x1}, o);
//         runtime::launch(loss_kernel, {n}, {x1, loss}, o);
//     }
//     tape.backward(loss);                         // loss.grad = 1, then adjoints in reverse
//     x.grad() ...                                 // dloss/dx
//
// What a backward pass does with each record, newest first:
//
//   launch k(args)            the kernel's adjoint with the same arguments (docs/autodiff.md):
//                             gradients of what it wrote flow into gradients of what it read
//   copy dst <- src           src.grad += dst.grad; then dst.grad = 0 if an earlier record wrote
//                             dst (that value ended here); otherwise dst.grad stays to be read
//   zero / fill / host write  dst.grad = 0 if an earlier record wrote dst, as above
//   func (record_func)        the user's backward callback
//
// The check Warp does not make. A launch's adjoint re-reads the arrays it read forward, so it is
// only right if they still hold what that launch saw. backward() first walks the records in order
// and, when an array that one record read was later overwritten by another record (a launch that
// stores to it or updates it atomically, a copy into it, a zero or fill), raises an error naming
// the array and both records instead of returning wrong gradients. Which parameters a kernel reads
// and writes is known statically (compiler/passes/param_access.h).
//
// Writes the tape did not record are found too: the tape watches the allocations its records
// touch (runtime/write_versions.h), and a write to one of them between two records or after the
// last (an assign or zero outside the `with` block, a launch while the tape was inactive) that
// follows a record reading it is refused the same way, naming the array, the reading record and
// what wrote it. Stores through numpy views of host memory are not seen (docs/autodiff.md).
// backward(loss) also refuses a loss that no record wrote: its gradient would reach nothing and
// every gradient would silently stay zero.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/module.h"
#include "runtime/recorder.h"

namespace weft::tape {

// One array a record read or wrote, with a name for messages ("argument 'x'").
struct Access {
    runtime::Array array;
    std::string label;
    bool read = false;
    bool written = false;
};

struct Record {
    enum Kind { Launch, Copy, Overwrite, Func } kind = Launch;
    // Launch
    runtime::Kernel kernel;
    std::vector<int64_t> dim;
    std::vector<runtime::LaunchArg> args;
    runtime::LaunchOptions options;
    // Copy (dst <- src), Overwrite (dst)
    runtime::Array dst, src;
    std::string operation;  // "zero", "fill", "copy from host"
    // Func
    std::string name;
    std::function<void()> backward;
    std::vector<Access> accesses;  // every kind: what it read and wrote

    std::string describe() const;  // "launch of kernel 'integrate' (particles.py:12)"
};

class Tape : public runtime::Recorder {
public:
    Tape() = default;
    ~Tape() override;
    Tape(const Tape&) = delete;
    Tape& operator=(const Tape&) = delete;

    // Recorder: called by the runtime while this tape is active.
    void on_launch(const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<runtime::LaunchArg>& args,
                   const runtime::LaunchOptions& options) override;
    void on_copy(const runtime::Array& dst, const runtime::Array& src) override;
    void on_overwrite(const runtime::Array& dst, const char* operation) override;

    // A step whose backward the caller provides (Warp's tape.record_func). `accesses` names what
    // it reads and writes, for the overwrite check and visualize().
    void record_func(const std::string& name, std::function<void()> backward, std::vector<Access> accesses);

    // Seeds loss.grad with 1 (loss: one float element with a gradient) and runs the adjoints.
    void backward(const runtime::Array& loss);
    // Seeds each array's gradient with the given array (copied), then runs the adjoints. With no
    // seeds, runs the adjoints on the gradients as they are.
    void backward(const std::vector<std::pair<runtime::Array, runtime::Array>>& grads);
    // Both (Warp's backward(loss=, grads=)): the gradients of `grads` seeded, loss.grad set to 1,
    // then one pass of the adjoints.
    void backward(const runtime::Array& loss, const std::vector<std::pair<runtime::Array, runtime::Array>>& grads);

    void zero();   // zeroes the gradient of every array a record touched
    void reset();  // forgets every record (gradients are zeroed first)

    // Every array a record touched that has a gradient, with that gradient, in first-use order.
    std::vector<std::pair<runtime::Array, runtime::Array>> gradients() const;
    const std::vector<Record>& records() const { return records_; }

    // Graphviz: one node per record and per array, edges for reads and writes; overwrites that
    // make backward() fail are drawn in red. Throws RuntimeError when the file cannot be written.
    std::string dot() const;
    void visualize(const std::string& path) const;

    // The overwrite check backward() runs: "" when the recording can be differentiated, else the
    // error message.
    std::string check_overwrites() const;

private:
    // A record that read an array and a later record that overwrote it.
    struct Conflict {
        size_t reader;
        const Access* read;
        size_t writer;
        const Access* write;
    };
    std::vector<Conflict> conflicts(bool first_only) const;  // in recording order
    void run_backward();
    // Writes made outside the recording: found at the next record that touches the allocation
    // (before_record = its index) or, for the writes after the last record, at the check.
    struct OutsideWrite {
        const void* allocation;
        size_t before_record;
        std::string what;
        runtime::Array array;
        size_t last_use;  // writes found at the check: the last record that touched the allocation
    };
    void push(Record r);                               // watches its arrays, notes outside writes
    std::vector<OutsideWrite> outside_writes() const;  // foreign_ and those since the last record
    std::string check_outside_writes() const;          // "" or the error
    void refresh_versions();                           // expected_ = the current versions
    std::vector<Record> records_;
    std::unordered_map<const void*, uint64_t> expected_;  // watched allocation -> version after the last record
    std::vector<OutsideWrite> foreign_;
};

// The arrays a launch of `k` with `args` reads and writes (its array arguments, as the kernel's
// parameters are read or written), labelled as a Launch record's are. For record_func callers
// that run launches themselves.
std::vector<Access> launch_accesses(const runtime::Kernel& k, const std::vector<runtime::LaunchArg>& args);

// During a Tape's backward pass on this thread: a status array for one backward launch of `k` on
// `device` (LaunchOptions::adjoint_status) that the pass checks once at its end, with the same
// error, so that the launches a record_func callback makes are not synchronised one by one.
// Outside a backward pass: an empty array (the launch then checks its own status at once).
runtime::Array deferred_adjoint_status(const runtime::Kernel& k, const runtime::Device& device);

// grad += other, element-wise, for arrays of one float-based dtype (float16/32/64 scalars,
// vectors, matrices, quaternions, transforms) and the same shape, on any device. Used by the
// Tape and by checkpointing; runs a small kernel compiled once per dtype.
void accumulate(runtime::Array& grad, const runtime::Array& other);

}  // namespace weft::tape
