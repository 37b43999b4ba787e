// Out-of-range access messages. See oob_report.h.
#include "runtime/oob_report.h"

namespace weft::runtime {

std::string format_oob(const compiler::KernelInfo& k, const wp::oob_record& r) {
    std::string file = k.loc.file ? k.loc.file->path : "?";
    if (r.dim < 0)  // checked_divisor (compiler/native/array.h)
        return "kernel '" + k.name + "' (" + file + ":" + std::to_string(r.line) +
               "): integer division by zero (`/`, `//` or `%` with a zero divisor; it gives 0 without --debug)";
    std::string idx = "(", shape = "(";
    for (int d = 0; d < r.ndim; ++d) {
        idx += std::to_string(r.index[d]) + (r.ndim == 1 || d + 1 < r.ndim ? "," : "");
        shape += std::to_string(r.shape[d]) + (r.ndim == 1 || d + 1 < r.ndim ? "," : "");
    }
    idx += ")";
    shape += ")";
    return "kernel '" + k.name + "' (" + file + ":" + std::to_string(r.line) + "): index " + std::to_string(r.index[r.dim]) +
           " is out of range for dimension " + std::to_string(r.dim) + " of an array of shape " + shape + " (indices " + idx +
           ")";
}

}  // namespace weft::runtime
