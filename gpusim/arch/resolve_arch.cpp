// gpusim/arch/resolve_arch.cpp — --arch as a name or a path (resolve_arch.h). The did-you-mean is
// support/'s, the one rule of every layer.
#include "gpusim/arch/resolve_arch.h"

#include <algorithm>

#include "support/closest_name.h"

namespace weft::gpusim {

bool is_arch_path(std::string_view arg) {
    return arg.find('/') != std::string_view::npos || (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
}

std::string unknown_arch_message(const std::string& name, const std::vector<std::string>& known) {
    std::vector<std::string> sorted = known;
    std::sort(sorted.begin(), sorted.end());
    std::string list;
    for (const std::string& n : sorted) list += (list.empty() ? "" : ", ") + n;
    const std::string near = support::closest_name(name, sorted);
    return "unknown architecture '" + name + "'" + (near.empty() ? ";" : "; did you mean '" + near + "'?") + " known: " + list +
           " (the files in gpusim/arch/), or the path of an architecture file (FILE.json)";
}

ArchSpec resolve_arch(const std::string& arg) {
    if (is_arch_path(arg)) return load_arch(arg);
    const std::vector<std::string> names = builtin_arch_names();
    if (std::find(names.begin(), names.end(), arg) != names.end()) return builtin_arch(arg);
    // `--arch sm_90` (a PTX target, as nvcc spells it) names the files of that target.
    std::string same_target;
    for (const std::string& n : names)
        if (builtin_arch(n).sm_target() == arg) same_target += (same_target.empty() ? "" : ", ") + n;
    if (!same_target.empty())
        throw ArchError("'" + arg + "' is a PTX target, not an architecture; --arch takes an architecture file: " + same_target +
                        " target " + arg);
    throw ArchError(unknown_arch_message(arg, names));
}

}  // namespace weft::gpusim
