// gpusim/exec/launch.h — running a kernel of a Module: the functional SIMT executor's entry point.
//
// [SECTION] Geometry and options   Dim3, LaunchOptions
// [SECTION] Results                LaunchResult (counts per launch, source line, instruction)
// [SECTION] Launch                 launch(), ParamPacker, write_json()
//
// Memory model: global memory IS host memory. A .global or generic address found in a
// parameter (or computed from one) is a host pointer and is dereferenced directly, so the
// caller passes host arrays. Module .global/.const variables live in storage the Module owns.
// Shared memory is per block, local memory per thread, parameters per launch; those three are
// bounds-checked, and an access outside them is a SimError naming kernel, block, thread, PTX
// line and source line. Global pointers are checked only for the null page and the simulator's
// own shared/local address windows (see address_space.h).
//
// Scheduling: a block's threads form warps of 32 (the last one partial). A warp runs a quantum
// of instructions, then the next warp of the block; warps only wait for each other at bar.sync.
// Divergent branches split the warp on a SIMT stack and reconverge at the branch's immediate
// post-dominator (reconvergence.h). Blocks run in index order on one host thread, or are handed
// to LaunchOptions::threads host threads; per-block results do not depend on the thread count.
//
// Barriers (bar.sync / barrier.sync a{, b}): a warp's active lanes arrive and the warp waits.
// Barrier a completes when the arrived threads reach b, or, without b, all threads of the block
// that have not exited. Exited threads never hold a barrier up. A barrier error is raised when
// the block cannot progress: every warp that has not finished is waiting at a barrier and no
// barrier can complete. That covers a __syncthreads() that some threads skip while others go
// on to a different barrier or are parked on another path of a divergent branch (the error
// lists, per waiting warp, the barrier, its PTX and source line and how many lanes arrived).
//
// Atomics: with threads == 1 they apply in a fixed order (blocks in order, warps round-robin,
// lanes in lane order). With more threads, global atomics are real host atomics: correct, in
// an unspecified order across blocks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpusim/exec/loop_trips.h"
#include "gpusim/exec/counters.h"
#include "gpusim/errors.h"
#include "gpusim/exec/global_memory.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

// ---------------------------------------------------------------------------------------------
// [SECTION] Geometry and options
struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t count() const { return uint64_t{x} * y * z; }
};

struct LaunchOptions {
    int threads = 1;                                     // host threads running blocks (>= 1)
    uint32_t dynamic_shared_bytes = 0;                   // size of the extern .shared array, bytes
    uint32_t stack_bytes = 16384;                        // per-thread frame stack if recursion is reachable, bytes
    uint64_t max_warp_instructions = uint64_t{1} << 36;  // per launch; exceeding it is a SimError
    uint32_t warp_quantum = 256;                         // instructions a warp runs before the next warp's turn
    uint32_t sm_count = 132;                             // %nsmid; %smid is the block index modulo this
    bool count = true;                                   // keep per-instruction counts (per-launch totals always)
    const GlobalMemoryMap* global_memory = nullptr;      // nullable: the buffers global accesses must hit
    const std::atomic<int>* cancel = nullptr;            // nullable: when non-zero, the launch stops (a SimError)
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Results
struct LaunchResult {
    std::string kernel;
    Dim3 grid, block;
    Counters total;                                    // the whole launch
    std::vector<LineCounters> per_line;                // by (file, line); lines that ran
    std::vector<InstructionCounters> per_instruction;  // instructions that ran, in PTX order
    std::vector<LoopTrips> loops;                      // per backward branch that ran: its lanes' trip counts (loop_trips.h)
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch

// Runs `kernel` of `module` over `grid` x `block`. `params` are the kernel's parameters packed
// as its .param declarations lay them out: each at the next multiple of its alignment (a
// scalar's size, or N of ".align N"), in declaration order; Function::params gives the offsets
// and Function::param_bytes the total. Throws SimError for an unknown kernel, a parameter size
// mismatch, bad launch geometry, and any fault of the kernel.
LaunchResult launch(const Module& module, std::string_view kernel, Dim3 grid, Dim3 block, std::span<const std::byte> params,
                    const LaunchOptions& options = {});

// Packs kernel parameters in .param layout: add() aligns to the value's size (or `align`).
class ParamPacker {
public:
    template <typename T>
    ParamPacker& add(const T& value, size_t align = alignof(T)) {
        static_assert(std::is_trivially_copyable_v<T>);
        return add_bytes(&value, sizeof(T), align);
    }
    ParamPacker& add_bytes(const void* data, size_t size, size_t align) {
        size_t offset = (bytes_.size() + align - 1) / align * align;
        bytes_.resize(offset + size);
        std::memcpy(bytes_.data() + offset, data, size);
        return *this;
    }
    std::span<const std::byte> bytes() const { return bytes_; }

private:
    std::vector<std::byte> bytes_;
};

// Writes a LaunchResult as JSON: {"kernel", "grid", "block", "total", "lines", "instructions"}.
void write_json(std::ostream& out, const LaunchResult& result);
std::string to_json(const LaunchResult& result);

}  // namespace weft::gpusim
