// The shared accesses of a trace as the machine code issues them: where ptxas merged accesses
// of one thread into one wider instruction (compiled_shared.h), the IR accesses it merged become
// one access of that width.
//
// The machine code says *that* line L has, say, only 8-byte stores where the source stores 4
// bytes; the trace says *which* accesses those are. An IR access e on line L is merged when
//   - every shared instruction of e's kind on L is W bytes wide, W > e's width (a line with
//     both widths is ambiguous: predicted per access, and the prediction is marked inexact);
//   - for every thread, the W-byte block at e's address rounded down to W is filled by e and
//     other accesses of the same array, kind, width, barrier interval and threads, each at the
//     same offset in the block for every thread (the only accesses one W-byte instruction can
//     have moved), on lines with no narrower instruction of that kind.
// Anything else (an index the audit cannot evaluate, a block it cannot fill) keeps the access as
// written and says why in `inexact`. Without machine code (`compiled` null or unavailable) the
// accesses are the IR's, unchanged.
#pragma once

#include <string>
#include <vector>

#include "compiler/audit/compiled_shared.h"
#include "compiler/audit/simt_eval.h"

namespace weft::compiler::audit {

struct IssuedAccess {
    AccessEvent ev;          // width_bytes / offset_bytes describe the issued instruction
    int elements = 1;        // consecutive elements it covers (more than 1: merged)
    std::vector<int> lines;  // the source lines of the accesses merged into it (empty: not merged)
    std::string op;          // the instruction ("STS.64") when merged
};

struct IssuedShared {
    std::vector<IssuedAccess> accesses;  // the trace's shared accesses (atomics included), in order
    std::string inexact;                 // the first access the machine code could not be mapped onto
};

IssuedShared issued_shared_accesses(const Trace& trace, const CompiledShared* compiled);

}  // namespace weft::compiler::audit
