// Scalar builtins (compiler/native/math.h) and the arithmetic operators as named builtins
// (add, sub, mul, div, neg: what `+ - * / -x` resolve to, for every operand-type combination
// compiler/native supports).
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

void register_math_builtins(BuiltinTable& t) {
    struct Unary {
        const char* name;
        const char* doc;
        unsigned flags;
    };
    const Unary float_unary[] = {
        {"sqrt", "The square root of x.", kDiff},
        {"cbrt", "The cube root of x.", kDiff},
        {"exp", "e raised to the power x.", kDiff},
        {"log", "The natural logarithm of x.", kDiff},
        {"log2", "The base-2 logarithm of x.", kDiff},
        {"log10", "The base-10 logarithm of x.", kDiff},
        {"sin", "The sine of x (radians).", kDiff},
        {"cos", "The cosine of x (radians).", kDiff},
        {"tan", "The tangent of x (radians).", kDiff},
        {"asin", "The arc sine of x, in [-pi/2, pi/2].", kDiff},
        {"acos", "The arc cosine of x, in [0, pi].", kDiff},
        {"atan", "The arc tangent of x, in [-pi/2, pi/2].", kDiff},
        {"sinh", "The hyperbolic sine of x.", kDiff},
        {"cosh", "The hyperbolic cosine of x.", kDiff},
        {"tanh", "The hyperbolic tangent of x.", kDiff},
        {"degrees", "x converted from radians to degrees.", kDiff},
        {"radians", "x converted from degrees to radians.", kDiff},
        {"abs", "The absolute value of x.", kDiff},
        {"floor", "The largest integer value not greater than x.", 0},
        {"ceil", "The smallest integer value not less than x.", 0},
        {"round", "x rounded to the nearest integer value, halves away from zero.", 0},
        {"trunc", "x rounded toward zero to an integer value.", 0},
        {"rint", "x rounded to the nearest integer value, halves to even.", 0},
        {"frac", "The fractional part of x, x - trunc(x) (the sign of x).", kDiff},
        {"sign", "-1 if x < 0, 1 otherwise.", 0},
        {"step", "1 if x < 0, 0 otherwise.", 0},
    };
    for (ScalarKind s : kFloatKinds) {
        const Type f = sc(s);
        for (const Unary& u : float_unary) t.add(u.name, f, {p("x", f)}, "math", u.doc, u.flags);
        t.add("nonzero", f, {p("x", f)}, "math", "1 if x != 0, 0 otherwise.");
        t.add("isnan", bool_type(), {p("x", f)}, "math", "True if x is NaN.");
        t.add("isinf", bool_type(), {p("x", f)}, "math", "True if x is positive or negative infinity.");
        t.add("isfinite", bool_type(), {p("x", f)}, "math", "True if x is neither infinite nor NaN.");
        t.add("pow", f, {p("x", f), p("y", f)}, "math", "x raised to the power y.", kDiff);
        t.add("atan2", f, {p("y", f), p("x", f)}, "math", "The angle of the point (x, y), in [-pi, pi].", kDiff);
        t.add("min", f, {p("a", f), p("b", f)}, "math", "The smaller of a and b.", kDiff);
        t.add("max", f, {p("a", f), p("b", f)}, "math", "The larger of a and b.", kDiff);
        t.add("clamp", f, {p("x", f), p("low", f), p("high", f)}, "math", "x limited to [low, high].", kDiff);
        t.add("lerp", f, {p("a", f), p("b", f), p("t", f)}, "math", "Linear interpolation a + t (b - a).", kDiff);
        t.add("smoothstep", f, {p("edge0", f), p("edge1", f), p("x", f)}, "math",
              "Hermite interpolation from 0 at edge0 to 1 at edge1.", kDiff);
        t.add("mod", f, {p("a", f), p("b", f)}, "math", "The remainder of a / b with the sign of a (C fmod).", kDiff);
        t.add("floordiv", f, {p("a", f), p("b", f)}, "math", "Python's a // b: the floor of a / b.");
        t.add("pymod", f, {p("a", f), p("b", f)}, "math", "Python's a % b: the remainder with the sign of b.", kDiff);
        t.add("pow_int", f, {p("x", f), p("n", int32_type())}, "math",
              "x raised to an integer power n (the ** operator with an int exponent).", kDiff);
    }
    for (ScalarKind s : {ScalarKind::Int32, ScalarKind::Int64}) {
        const Type i = sc(s);
        t.add("abs", i, {p("x", i)}, "math", "The absolute value of x.");
        t.add("sign", i, {p("x", i)}, "math", "-1 if x < 0, 1 otherwise.");
        t.add("step", i, {p("x", i)}, "math", "1 if x < 0, 0 otherwise.");
        t.add("pow_int", i, {p("x", i), p("n", int32_type())}, "math",
              "x raised to a non-negative integer power n (0 for n < 0 unless x is 1 or -1).");
    }
    for (ScalarKind s : {ScalarKind::Int32, ScalarKind::UInt32, ScalarKind::Int64, ScalarKind::UInt64}) {
        const Type i = sc(s);
        t.add("nonzero", i, {p("x", i)}, "math", "1 if x != 0, 0 otherwise.");
        t.add("min", i, {p("a", i), p("b", i)}, "math", "The smaller of a and b.");
        t.add("max", i, {p("a", i), p("b", i)}, "math", "The larger of a and b.");
        t.add("clamp", i, {p("x", i), p("low", i), p("high", i)}, "math", "x limited to [low, high].");
        t.add("mod", i, {p("a", i), p("b", i)}, "math", "The remainder of a / b with the sign of a (C %); 0 if b is 0.");
        t.add("floordiv", i, {p("a", i), p("b", i)}, "math", "Python's a // b: floor division; 0 if b is 0.");
        t.add("pymod", i, {p("a", i), p("b", i)}, "math", "Python's a % b: the remainder with the sign of b; 0 if b is 0.");
    }
}

void register_operator_builtins(BuiltinTable& t) {
    const char* g = "operator";
    // Scalars.
    for (ScalarKind s : {ScalarKind::Int32, ScalarKind::UInt32, ScalarKind::Int64, ScalarKind::UInt64, ScalarKind::Float32,
                         ScalarKind::Float64}) {
        const Type a = sc(s);
        const unsigned d = is_float_kind(s) ? kDiff : 0;
        t.add("add", a, {p("a", a), p("b", a)}, g, "a + b.", d);
        t.add("sub", a, {p("a", a), p("b", a)}, g, "a - b.", d);
        t.add("mul", a, {p("a", a), p("b", a)}, g, "a * b.", d);
        t.add("div", a, {p("a", a), p("b", a)}, g, "a / b (truncating for integers).", d);
        t.add("neg", a, {p("a", a)}, g, "-a.", d);
    }
    // Vectors (including spatial vectors) and integer vectors.
    for (ScalarKind s : {ScalarKind::Int32, ScalarKind::Float32, ScalarKind::Float64}) {
        const unsigned d = is_float_kind(s) ? kDiff : 0;
        for (int n : {2, 3, 4, 6}) {
            const Type v = vec(n, s), f = sc(s);
            t.add("add", v, {p("a", v), p("b", v)}, g, "Component-wise a + b.", d);
            t.add("sub", v, {p("a", v), p("b", v)}, g, "Component-wise a - b.", d);
            t.add("neg", v, {p("a", v)}, g, "Component-wise -a.", d);
            t.add("mul", v, {p("a", v), p("s", f)}, g, "Vector times scalar.", d);
            t.add("mul", v, {p("s", f), p("a", v)}, g, "Scalar times vector.", d);
            if (is_float_kind(s)) t.add("div", v, {p("a", v), p("s", f)}, g, "Vector divided by scalar.", d);
            if (is_float_kind(s)) t.add("div", v, {p("s", f), p("a", v)}, g, "Scalar divided by each component.", d);
            t.add("mod", v, {p("a", v), p("b", v)}, g, "Component-wise a % b (the scalar rule per component).", d);
        }
    }
    // Matrices (including spatial matrices).
    for (ScalarKind s : kFloatKinds) {
        for (int n : {2, 3, 4, 6}) {
            const Type m = mat(n, s), v = vec(n, s), f = sc(s);
            t.add("add", m, {p("a", m), p("b", m)}, g, "Element-wise a + b.", kDiff);
            t.add("sub", m, {p("a", m), p("b", m)}, g, "Element-wise a - b.", kDiff);
            t.add("neg", m, {p("a", m)}, g, "Element-wise -a.", kDiff);
            t.add("mul", m, {p("a", m), p("s", f)}, g, "Matrix times scalar.", kDiff);
            t.add("mul", m, {p("s", f), p("a", m)}, g, "Scalar times matrix.", kDiff);
            t.add("div", m, {p("a", m), p("s", f)}, g, "Matrix divided by scalar.", kDiff);
            t.add("mul", v, {p("a", m), p("b", v)}, g, "Matrix times column vector (a @ b).", kDiff);
            t.add("mul", v, {p("a", v), p("b", m)}, g, "Row vector times matrix (a @ b).", kDiff);
            t.add("mul", m, {p("a", m), p("b", m)}, g, "Matrix product (a @ b).", kDiff);
        }
        // Quaternions and transforms.
        const Type q = quat(s), f = sc(s), x = xform(s);
        t.add("add", q, {p("a", q), p("b", q)}, g, "Component-wise a + b.", kDiff);
        t.add("sub", q, {p("a", q), p("b", q)}, g, "Component-wise a - b.", kDiff);
        t.add("neg", q, {p("a", q)}, g, "Component-wise -a.", kDiff);
        t.add("mul", q, {p("a", q), p("s", f)}, g, "Quaternion times scalar.", kDiff);
        t.add("mul", q, {p("s", f), p("a", q)}, g, "Scalar times quaternion.", kDiff);
        t.add("div", q, {p("a", q), p("s", f)}, g, "Quaternion divided by scalar.", kDiff);
        t.add("mul", q, {p("a", q), p("b", q)}, g, "Quaternion (Hamilton) product: rotation b, then a.", kDiff);
        t.add("mul", x, {p("a", x), p("b", x)}, g, "Transform composition: b, then a.", kDiff);
    }
}

}  // namespace weft::compiler
