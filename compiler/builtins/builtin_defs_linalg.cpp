// Vector and matrix builtins (compiler/native/vec.h, mat.h).
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

void register_vector_builtins(BuiltinTable& t) {
    const char* g = "vector";
    for (ScalarKind s : kFloatKinds) {
        const Type f = sc(s);
        for (int n : {2, 3, 4}) {
            const Type v = vec(n, s);
            t.add("dot", f, {p("a", v), p("b", v)}, g, "The dot product of a and b.", kDiff);
            t.add("length", f, {p("a", v)}, g, "The Euclidean length of a.", kDiff);
            t.add("length_sq", f, {p("a", v)}, g, "The squared Euclidean length of a.", kDiff);
            t.add("normalize", v, {p("a", v)}, g, "a divided by its length; the zero vector stays zero.", kDiff);
            t.add("cw_mul", v, {p("a", v), p("b", v)}, g, "The component-wise product of a and b.", kDiff);
            t.add("cw_div", v, {p("a", v), p("b", v)}, g, "The component-wise quotient of a and b.", kDiff);
            t.add("min", v, {p("a", v), p("b", v)}, g, "The component-wise minimum of a and b.", kDiff);
            t.add("max", v, {p("a", v), p("b", v)}, g, "The component-wise maximum of a and b.", kDiff);
            t.add("min", f, {p("a", v)}, g, "The smallest component of a.", kDiff);
            t.add("max", f, {p("a", v)}, g, "The largest component of a.", kDiff);
            t.add("abs", v, {p("a", v)}, g, "The component-wise absolute value of a.", kDiff);
            t.add("sign", v, {p("a", v)}, g, "Component-wise: -1 where a < 0, 1 otherwise.");
            t.add("lerp", v, {p("a", v), p("b", v), p("t", f)}, g, "Linear interpolation a + t (b - a).", kDiff);
            t.add("outer", mat(n, s), {p("a", v), p("b", v)}, g, "The outer product a b^T.", kDiff);
        }
        t.add("outer", mat(6, s), {p("a", vec(6, s)), p("b", vec(6, s))}, g, "The outer product a b^T.", kDiff);
        // spatial_vector: Warp's lerp takes every vector type
        t.add("lerp", vec(6, s), {p("a", vec(6, s)), p("b", vec(6, s)), p("t", f)}, g, "Linear interpolation a + t (b - a).",
              kDiff);
        const Type v3 = vec(3, s);
        t.add("cross", v3, {p("a", v3), p("b", v3)}, g, "The cross product of a and b.", kDiff);
    }
}

void register_matrix_builtins(BuiltinTable& t) {
    const char* g = "matrix";
    for (ScalarKind s : kFloatKinds) {
        const Type f = sc(s);
        for (int n : {2, 3, 4, 6}) {
            const Type m = mat(n, s), v = vec(n, s);
            t.add("transpose", m, {p("a", m)}, g, "The transpose of a.", kDiff);
            t.add("trace", f, {p("a", m)}, g, "The sum of the diagonal of a.", kDiff);
            t.add("diag", m, {p("d", v)}, g, "The diagonal matrix with diagonal d.", kDiff);
            t.add("get_diag", v, {p("a", m)}, g, "The diagonal of a.", kDiff);
            t.add("determinant", f, {p("a", m)}, g, "The determinant of a.", kDiff);
            t.add("inverse", m, {p("a", m)}, g, "The inverse of a; the zero matrix if a is singular.", kDiff);
            t.add("lerp", m, {p("a", m), p("b", m), p("t", f)}, g, "Element-wise a + t (b - a).", kDiff);
        }
        const Type v3 = vec(3, s);
        t.add("skew", mat(3, s), {p("v", v3)}, g, "The cross-product matrix: skew(v) @ w == cross(v, w).", kDiff);
    }
}

}  // namespace weft::compiler
