// Input points for checking builtin adjoints against finite differences: for each overload of the
// builtin table, argument values inside the builtin's domain (positive for sqrt/log, |x| < 0.8 for
// asin/acos, non-singular matrices, unit quaternions, rotation matrices for quat_from_matrix) and
// away from its kinks and branch switches (abs, min/max, clamp, mod, floor, Shepperd's branches,
// slerp's short-arc flip) by more than the largest finite-difference stencil reach, 2h = 1/32.
//
// Every value is a multiple of 2^-20 and below 8 in magnitude, so it is exact in float32 and so
// are x ± h and x ± 2h for the power-of-two steps the check uses: the stencil is symmetric in
// either precision.
#pragma once

#include <random>
#include <vector>

#include "compiler/builtins/builtin_table.h"

namespace weft::test {

constexpr int kDomainPoints = 4;  // points per overload; clamp uses them for inside/below/above/inside

// The components of each argument of `o` at point `e` (0 .. kDomainPoints-1), flattened in memory
// order (matrices row by row, quaternions x y z w, transforms p then q). Integer arguments
// (pow_int's exponent) are whole numbers.
std::vector<std::vector<double>> domain_point(const compiler::BuiltinOverload& o, int e, std::mt19937& rng);

}  // namespace weft::test
