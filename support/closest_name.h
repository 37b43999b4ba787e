// support/closest_name.h: the did-you-mean of every layer. The compiler suggests the near name of
// an undeclared variable or attribute, the runtime the near kernel name, the scene loader the near
// key or value, the command line the near command or option: all with one rule, so that a typo is
// caught the same way everywhere.
//
//   closest_name("veloctiy", {"velocity", "position"})  ->  "velocity"
//   closest_name("mass", {"velocity"})                  ->  ""   (nothing close enough)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace weft::support {

// The candidate nearest to `name` by optimal-string-alignment distance (insert, delete,
// substitute, transpose two adjacent characters), if that distance is at most max(1, |name|/3);
// "" when nothing is close enough. A candidate equal to `name` is skipped; on a tie the first
// candidate wins.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace weft::support
