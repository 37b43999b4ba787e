// The shared-memory instructions a kernel's machine code executes, per source line.
//
// The audit predicts shared-memory traffic from the kernel's IR: one access per element, as the
// source writes it. The compiler may issue fewer, wider ones. On the H200, bank_stride2's
// `s[2*t] = x; s[2*t+1] = 0.0` measured 1 request of 2 wavefronts per warp, not 2 requests of 2
// wavefronts: NVRTC's PTX still has two `st.shared` (f32 and u32), and ptxas made one 64-bit
// `STS.64` of them. Which accesses get merged is ptxas's choice, so the audit does not guess it:
// it reads the SASS that ptxas makes, decodes each shared load/store's width, and follows
// ptxas's line table (SASS -> PTX line, gpusim/sass/sass_map.h) and the PTX's `.loc` directives
// (PTX line -> source line) back to the kernel's source lines. merged_accesses.h then maps the
// instructions onto the IR's accesses.
//
//   SASS word ──line table──> PTX line ──.loc (inlined_at)──> source line
//   the word's LDS/STS width: gpusim/sass/sass_decode.h (the decoder gpusim's timing model uses too)
//
// compiler/ does not depend on the CUDA toolchain: the caller (apps/cmd_audit.cpp, the audit
// tests) runs NVRTC and ptxas and passes the PTX text and the decoded instruction words here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft::compiler::audit {

// One SASS instruction: its 128-bit word and the PTX line ptxas's line table gives it (-1: none).
struct SassWord {
    uint64_t lo = 0, hi = 0;
    int32_t ptx_line = -1;
};

// One shared load or store of the machine code.
struct SharedOp {
    int line = 0;  // source line (1-based) of the kernel's file
    bool store = false;
    int width = 0;     // bytes per thread: 1, 2, 4, 8 or 16
    std::string text;  // "STS.64", "LDS.128"
};

// What the machine code of one kernel does with shared memory.
struct CompiledShared {
    bool available = false;  // false: no machine code was read (`why` says why)
    std::string why;
    std::vector<SharedOp> ops;

    // The instructions of one kind on one source line.
    std::vector<const SharedOp*> at(int line, bool store) const;
};

// PTX line -> source line of the file named like `source_path` (same file name), from `.loc`
// directives; code inlined from a header takes the kernel line it was inlined at.
std::map<int, int> ptx_source_lines(const std::string& ptx, const std::string& source_path);

// The shared loads and stores of `code` (one kernel) that map to a source line.
CompiledShared compiled_shared_ops(const std::vector<SassWord>& code, const std::map<int, int>& ptx_to_source);

}  // namespace weft::compiler::audit
