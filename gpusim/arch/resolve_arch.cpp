// gpusim/arch/resolve_arch.cpp — --arch as a name or a path (resolve_arch.h). The did-you-mean
// is computed here rather than taken from the rest of Weft: gpusim depends on nothing of it.
#include "gpusim/arch/resolve_arch.h"

#include <algorithm>

namespace weft::gpusim {

namespace {

// Levenshtein distance, case-sensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The known name closest to `name`, if it is close (at most a third of its letters differ).
std::string closest(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  size_t best_d = std::max<size_t>(1, (name.size() + 2) / 3) + 1;
  for (const std::string& k : known) {
    const size_t d = edit_distance(name, k);
    if (d < best_d) best = k, best_d = d;
  }
  return best;
}

}  // namespace

bool is_arch_path(std::string_view arg) {
  return arg.find('/') != std::string_view::npos || (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
}

std::string unknown_arch_message(const std::string& name, const std::vector<std::string>& known) {
  std::vector<std::string> sorted = known;
  std::sort(sorted.begin(), sorted.end());
  std::string list;
  for (const std::string& n : sorted) list += (list.empty() ? "" : ", ") + n;
  const std::string near = closest(name, sorted);
  return "unknown architecture '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") + " known: " + list +
         " (the files in gpusim/arch/), or the path of an architecture file (FILE.json)";
}

ArchSpec resolve_arch(const std::string& arg) {
  if (is_arch_path(arg)) return load_arch(arg);
  const std::vector<std::string> names = builtin_arch_names();
  if (std::find(names.begin(), names.end(), arg) == names.end()) throw ArchError(unknown_arch_message(arg, names));
  return builtin_arch(arg);
}

}  // namespace weft::gpusim
