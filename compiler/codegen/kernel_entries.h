// compiler/codegen/kernel_entries.h: the entry points of a kernel's generated code, the functions
// the runtime looks up by KernelInfo's symbols:
//
//   K_cuda / K_cuda_backward                 __global__, one thread per launch index (forward: a
//                                            grid-stride loop unless the kernel synchronises)
//   K_cpu_range / K_cpu_range_contig         the CPU backend's loop over [begin, end) of the launch
//   K_cpu_range_backward                     (contig: every array dense row-major)
//   K_cpu_thread / K_cpu_thread_backward     one index, for kernels with barriers (a fibre each)
//
// Each calls the kernel's body template (K_body<WpC>, K_body_backward) that cpp_codegen.cpp and
// adjoint_codegen.cpp emit before it.
#pragma once

#include <ostream>

#include "compiler/codegen/cpp_codegen.h"
#include "compiler/ir/ir.h"

namespace weft::compiler {

// The forward entries of kernel `f`, whose metadata (`info`) names them.
void emit_forward_entries(std::ostream& os, const ir::Function& f, const KernelInfo& info);

// The backward entries of a kernel with an adjoint (info.*_backward_symbol set).
void emit_backward_entries(std::ostream& os, const KernelInfo& info);

// The first lines of every CUDA entry, forward and backward: compiled for sm_90 or newer, the
// entry waits (`griddepcontrol.wait`) until the grids ahead of it in the stream have finished and
// their memory is visible. The runtime launches with programmatic stream serialisation there
// (runtime/cuda/README.md, "Launches"), so an entry may start before its predecessor has ended;
// nothing the entry does before this wait may touch memory. Launched without that attribute, or
// with nothing ahead of it, the wait returns at once. Older architectures compile none of it, so
// their PTX is unchanged; the disk cache keys on this text and on the architecture.
extern const char* const kCudaEntryGridWait;

}  // namespace weft::compiler
