// runtime/launch_checks.cpp: see launch_checks.h.
#include "runtime/launch_checks.h"

#include "runtime/errors.h"

namespace weft::runtime {
namespace {

std::string tuple_text(const std::vector<int64_t>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + (v.size() == 1 ? ",)" : ")");
}

std::string where(const compiler::SourceLoc& loc) {
    if (!loc.valid()) return "";
    return loc.file->path + ":" + std::to_string(loc.display_line()) + ":" + std::to_string(loc.col) + ": ";
}

const char* kNames[] = {"i", "j", "k", "l"};

std::string tid_form(int n) {
    if (n == 1) return "i = wp.tid()";
    std::string s;
    for (int d = 0; d < n; ++d) s += std::string(d ? ", " : "") + kNames[d];
    return s + " = wp.tid()";
}

}  // namespace

void check_launch_shape(const compiler::KernelInfo& k, const std::vector<int64_t>& dim, const std::vector<Array>& arrays) {
    const int n = static_cast<int>(dim.size());
    if (k.tid_ndim > 0 && k.tid_ndim != n)
        throw RuntimeError(where(k.loc) + "launch of kernel '" + k.name + "' with dim=" + tuple_text(dim) + " (" +
                           std::to_string(n) + "-D): the kernel reads a " + std::to_string(k.tid_ndim) + "-D thread index (`" +
                           tid_form(k.tid_ndim) + "`), so its launch needs " + std::to_string(k.tid_ndim) +
                           " dimension(s); launch it with " + std::to_string(k.tid_ndim) + " or read `" + tid_form(n) + "`");
    for (const compiler::passes::TidIndexedAccess& a : k.tid_indexed) {
        if (a.param >= arrays.size() || !arrays[a.param].valid() || a.tid_dim >= n) continue;
        const Array& arr = arrays[a.param];
        if (a.axis >= arr.ndim()) continue;
        const int64_t extent = arr.shape()[static_cast<size_t>(a.axis)];
        const int64_t need = dim[static_cast<size_t>(a.tid_dim)];
        if (extent >= need) continue;
        const std::string comp = k.tid_ndim > 1 ? std::string(kNames[a.tid_dim]) : "i";
        throw RuntimeError(where(a.loc) + "launch of kernel '" + k.name + "' with dim=" + tuple_text(dim) + ": array '" +
                           k.params[a.param].name + "' has shape " + tuple_text(arr.shape()) +
                           ", but every thread indexes its axis " + std::to_string(a.axis) + " with the thread index " + comp +
                           " (0 to " + std::to_string(need - 1) + "), unguarded; pass an array of at least " +
                           std::to_string(need) + " along axis " + std::to_string(a.axis) + ", launch " + std::to_string(extent) +
                           " threads along it, or guard the access (`if " + comp + " < " + k.params[a.param].name + ".shape[" +
                           std::to_string(a.axis) + "]:`)");
    }
}

}  // namespace weft::runtime
