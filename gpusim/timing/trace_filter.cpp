// gpusim/timing/trace_filter.cpp — the JSONL trace's filter: checking a filter before the
// launch (so a typo in an opcode is an error, not an empty trace) and matching opcodes.
#include <string>

#include "gpusim/errors.h"
#include "gpusim/ptx/instruction.h"
#include "gpusim/timing/timing.h"

namespace weft::gpusim {

namespace {

// The instruction's full opcode: the first token after an optional "@p" / "@!p" guard.
std::string_view opcode_of(std::string_view text) {
    size_t i = text.find_first_not_of(" \t");
    if (i == std::string_view::npos) return {};
    if (text[i] == '@') {
        i = text.find_first_of(" \t", i);
        if (i == std::string_view::npos) return {};
        i = text.find_first_not_of(" \t", i);
        if (i == std::string_view::npos) return {};
    }
    const size_t e = text.find_first_of(" \t;", i);
    return text.substr(i, e == std::string_view::npos ? std::string_view::npos : e - i);
}

}  // namespace

bool trace_opcode_matches(std::string_view text, std::string_view filter) {
    if (filter.empty()) return true;
    const std::string_view op = opcode_of(text);
    if (op.size() < filter.size() || op.compare(0, filter.size(), filter) != 0) return false;
    return op.size() == filter.size() || op[filter.size()] == '.';
}

void check_trace_filter(const TraceFilter& f) {
    if (!f.opcode.empty()) {
        const std::string head = f.opcode.substr(0, f.opcode.find('.'));
        bool known = false;
        for (int i = 0; i < static_cast<int>(Op::kCount) && !known; ++i) known = head == op_mnemonic(static_cast<Op>(i));
        if (!known || f.opcode.back() == '.')
            throw SimError("trace filter: opcode '" + f.opcode +
                           "' is not a PTX instruction the simulator knows (e.g. ld, ld.shared, bar, fma.rn)");
    }
    if (f.first_cycle > f.last_cycle)
        throw SimError("trace filter: the cycle window " + std::to_string(f.first_cycle) + ".." + std::to_string(f.last_cycle) +
                       " is empty");
    if (f.sm < -1 || f.warp < -1 || f.block < -1 || f.source_line < -1)
        throw SimError("trace filter: SM, block, warp and line must be >= 0 (or -1 for all)");
}

}  // namespace weft::gpusim
