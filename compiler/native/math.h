// compiler/native/math.h: scalar builtins (abs … smoothstep, Python floor division and modulo)
// and their adjoints.
//
// Floating-point functions exist for float32 and float64 as plain overloads, so that the exact
// argument types the code generator emits pick one without template deduction. On the host they
// call the compiler's __builtin_* (which lower to libm: no declaration and no system header is
// needed); in CUDA device code they call CUDA's device math, which NVRTC provides without
// includes. isnan/isinf/isfinite use IEEE identities, identical on every device.
//
// Adjoints follow Warp's convention, adj_f(inputs…, adj_inputs&…, adj_ret), and accumulate (+=).
// Each sits right below its forward function with the derivative in a comment.
#pragma once

#include "core.h"
#include "tuple.h"

#if WP_DEVICE_CODE
#define WP_LIBM(f) ::f
#else
#define WP_LIBM(f) __builtin_##f
#endif

namespace wp {

// [SECTION] constants
template <typename T>
struct constants {
    static constexpr T pi = T(3.14159265358979323846);
    static constexpr T ln2 = T(0.69314718055994530942);
    static constexpr T ln10 = T(2.30258509299404568402);
};

// [SECTION] scalar arithmetic as named functions (the adjoint pass calls adj_add & co.)
// Concrete overloads, not templates, so that they never compete with the vector/matrix ones.
#define WP_SCALAR_OPS(T)                                  \
    WP_FUNC T add(T a, T b) { return a + b; }             \
    WP_FUNC T sub(T a, T b) { return a - b; }             \
    WP_FUNC T mul(T a, T b) { return a * b; }             \
    WP_FUNC T div(T a, T b) { return a / b; }             \
    WP_FUNC T neg(T a) { return T(0) - a; }
WP_SCALAR_OPS(int32)
WP_SCALAR_OPS(uint32)
WP_SCALAR_OPS(int64)
WP_SCALAR_OPS(uint64)
WP_SCALAR_OPS(float32)
WP_SCALAR_OPS(float64)
#undef WP_SCALAR_OPS

// d(a + b) = da + db;  d(a - b) = da - db;  d(a b) = b da + a db;  d(a / b) = da / b - a db / b^2;
// d(-a) = -da
#define WP_SCALAR_OP_ADJOINTS(T)                                                                 \
    WP_FUNC void adj_add(T a, T b, T& adj_a, T& adj_b, T adj_ret) {                              \
        adj_a += adj_ret;                                                                        \
        adj_b += adj_ret;                                                                        \
    }                                                                                            \
    WP_FUNC void adj_sub(T a, T b, T& adj_a, T& adj_b, T adj_ret) {                              \
        adj_a += adj_ret;                                                                        \
        adj_b -= adj_ret;                                                                        \
    }                                                                                            \
    WP_FUNC void adj_mul(T a, T b, T& adj_a, T& adj_b, T adj_ret) {                              \
        adj_a += b * adj_ret;                                                                    \
        adj_b += a * adj_ret;                                                                    \
    }                                                                                            \
    WP_FUNC void adj_div(T a, T b, T& adj_a, T& adj_b, T adj_ret) {                              \
        adj_a += adj_ret / b;                                                                    \
        adj_b -= a * adj_ret / (b * b);                                                          \
    }                                                                                            \
    WP_FUNC void adj_neg(T a, T& adj_a, T adj_ret) { adj_a -= adj_ret; }
WP_SCALAR_OP_ADJOINTS(float32)
WP_SCALAR_OP_ADJOINTS(float64)
#undef WP_SCALAR_OP_ADJOINTS

// [SECTION] libm wrappers: NAME(float32), NAME(float64)
#define WP_LIBM_UNARY(name, f32, f64)                                  \
    WP_FUNC float32 name(float32 x) { return WP_LIBM(f32)(x); }       \
    WP_FUNC float64 name(float64 x) { return WP_LIBM(f64)(x); }

WP_LIBM_UNARY(sqrt, sqrtf, sqrt)
WP_LIBM_UNARY(cbrt, cbrtf, cbrt)
WP_LIBM_UNARY(exp, expf, exp)
WP_LIBM_UNARY(log, logf, log)
WP_LIBM_UNARY(log2, log2f, log2)
WP_LIBM_UNARY(log10, log10f, log10)
WP_LIBM_UNARY(sin, sinf, sin)
WP_LIBM_UNARY(cos, cosf, cos)
WP_LIBM_UNARY(tan, tanf, tan)
WP_LIBM_UNARY(asin, asinf, asin)
WP_LIBM_UNARY(acos, acosf, acos)
WP_LIBM_UNARY(atan, atanf, atan)
WP_LIBM_UNARY(sinh, sinhf, sinh)
WP_LIBM_UNARY(cosh, coshf, cosh)
WP_LIBM_UNARY(tanh, tanhf, tanh)
WP_LIBM_UNARY(floor, floorf, floor)
WP_LIBM_UNARY(ceil, ceilf, ceil)
WP_LIBM_UNARY(round, roundf, round)  // halves away from zero, as Warp
WP_LIBM_UNARY(trunc, truncf, trunc)
WP_LIBM_UNARY(rint, rintf, rint)  // halves to even (Warp's rint, numpy's rint)
#undef WP_LIBM_UNARY

WP_FUNC float32 pow(float32 x, float32 y) { return WP_LIBM(powf)(x, y); }
WP_FUNC float64 pow(float64 x, float64 y) { return WP_LIBM(pow)(x, y); }
WP_FUNC float32 atan2(float32 y, float32 x) { return WP_LIBM(atan2f)(y, x); }
WP_FUNC float64 atan2(float64 y, float64 x) { return WP_LIBM(atan2)(y, x); }
WP_FUNC float32 fmod(float32 x, float32 y) { return WP_LIBM(fmodf)(x, y); }
WP_FUNC float64 fmod(float64 x, float64 y) { return WP_LIBM(fmod)(x, y); }

// [SECTION] classification (no adjoint)
template <typename T>
WP_FUNC bool isnan(T x) {
    return x != x;
}
template <typename T>
WP_FUNC bool isinf(T x) {
    return x == x && (x - x) != (x - x);
}
template <typename T>
WP_FUNC bool isfinite(T x) {
    return (x - x) == (x - x);
}

// [SECTION] abs, sign, min, max, clamp (ints and floats)
WP_FUNC int32 abs(int32 x) { return x < 0 ? -x : x; }
WP_FUNC int64 abs(int64 x) { return x < 0 ? -x : x; }
WP_FUNC float32 abs(float32 x) { return WP_LIBM(fabsf)(x); }
WP_FUNC float64 abs(float64 x) { return WP_LIBM(fabs)(x); }
// d|x| = sign(x) dx (0 at x == 0)
template <typename T>
WP_FUNC void adj_abs(T x, T& adj_x, T adj_ret) {
    if (x > T(0))
        adj_x += adj_ret;
    else if (x < T(0))
        adj_x -= adj_ret;
}

// -1 if x < 0, 1 otherwise (Warp). No adjoint.
template <typename T>
WP_FUNC T sign(T x) {
    return x < T(0) ? T(-1) : T(1);
}

template <typename T>
WP_FUNC T min(T a, T b) {
    return a < b ? a : b;
}
template <typename T>
WP_FUNC T max(T a, T b) {
    return a > b ? a : b;
}
// d min(a, b) = da where a < b, else db
template <typename T>
WP_FUNC void adj_min(T a, T b, T& adj_a, T& adj_b, T adj_ret) {
    if (a < b)
        adj_a += adj_ret;
    else
        adj_b += adj_ret;
}
// d max(a, b) = da where a > b, else db
template <typename T>
WP_FUNC void adj_max(T a, T b, T& adj_a, T& adj_b, T adj_ret) {
    if (a > b)
        adj_a += adj_ret;
    else
        adj_b += adj_ret;
}

template <typename T>
WP_FUNC T clamp(T x, T lo, T hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}
// d clamp(x, lo, hi) = dlo below, dhi above, dx inside
template <typename T>
WP_FUNC void adj_clamp(T x, T lo, T hi, T& adj_x, T& adj_lo, T& adj_hi, T adj_ret) {
    if (x < lo)
        adj_lo += adj_ret;
    else if (x > hi)
        adj_hi += adj_ret;
    else
        adj_x += adj_ret;
}

// [SECTION] roots, exponentials, powers
// d sqrt(x) = dx / (2 sqrt(x)); 0 at x <= 0 (no gradient through the kink, as Warp)
template <typename T>
WP_FUNC void adj_sqrt(T x, T& adj_x, T adj_ret) {
    if (x > T(0)) adj_x += adj_ret / (T(2) * sqrt(x));
}
// d cbrt(x) = dx / (3 cbrt(x)^2); 0 at x == 0
template <typename T>
WP_FUNC void adj_cbrt(T x, T& adj_x, T adj_ret) {
    const T c = cbrt(x);
    if (c != T(0)) adj_x += adj_ret / (T(3) * c * c);
}
// d exp(x) = exp(x) dx
template <typename T>
WP_FUNC void adj_exp(T x, T& adj_x, T adj_ret) {
    adj_x += exp(x) * adj_ret;
}
// d log(x) = dx / x
template <typename T>
WP_FUNC void adj_log(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret / x;
}
// d log2(x) = dx / (x ln 2)
template <typename T>
WP_FUNC void adj_log2(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret / (x * constants<T>::ln2);
}
// d log10(x) = dx / (x ln 10)
template <typename T>
WP_FUNC void adj_log10(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret / (x * constants<T>::ln10);
}
// d x^y = y x^(y-1) dx + ln(x) x^y dy (the dy term only where x > 0)
template <typename T>
WP_FUNC void adj_pow(T x, T y, T& adj_x, T& adj_y, T adj_ret) {
    if (x != T(0) || y >= T(1)) adj_x += y * pow(x, y - T(1)) * adj_ret;
    if (x > T(0)) adj_y += log(x) * pow(x, y) * adj_ret;
}

// x^n for an integer exponent by repeated squaring (the `**` operator with an int exponent).
// Integer bases with a negative exponent give 0 unless the base is 1 or -1.
template <typename T>
WP_FUNC T pow_int(T x, int32 n) {
    if (n < 0) {
        if constexpr (T(1) / T(2) == T(0)) {  // integer base
            if (x == T(1)) return T(1);
            if (x == T(-1)) return (n & 1) ? T(-1) : T(1);
            return T(0);
        } else {
            return T(1) / pow_int(x, -n);
        }
    }
    T r = T(1);
    T b = x;
    while (n) {
        if (n & 1) r *= b;
        b *= b;
        n >>= 1;
    }
    return r;
}
// d x^n = n x^(n-1) dx (the integer exponent has no adjoint)
template <typename T>
WP_FUNC void adj_pow_int(T x, int32 n, T& adj_x, int32& adj_n, T adj_ret) {
    if (n != 0) adj_x += T(n) * pow_int(x, n - 1) * adj_ret;
}

// [SECTION] trigonometry
// d sin(x) = cos(x) dx
template <typename T>
WP_FUNC void adj_sin(T x, T& adj_x, T adj_ret) {
    adj_x += cos(x) * adj_ret;
}
// d cos(x) = -sin(x) dx
template <typename T>
WP_FUNC void adj_cos(T x, T& adj_x, T adj_ret) {
    adj_x -= sin(x) * adj_ret;
}
// d tan(x) = (1 + tan(x)^2) dx
template <typename T>
WP_FUNC void adj_tan(T x, T& adj_x, T adj_ret) {
    const T t = tan(x);
    adj_x += (T(1) + t * t) * adj_ret;
}
// The derivative of asin/acos is infinite at |x| = 1; like Warp, keep it finite by flooring
// 1 - x^2 at a small epsilon.
template <typename T>
WP_FUNC T asin_acos_denominator(T x) {
    return sqrt(max(T(1) - x * x, T(1e-7)));
}
// d asin(x) = dx / sqrt(1 - x^2)
template <typename T>
WP_FUNC void adj_asin(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret / asin_acos_denominator(x);
}
// d acos(x) = -dx / sqrt(1 - x^2)
template <typename T>
WP_FUNC void adj_acos(T x, T& adj_x, T adj_ret) {
    adj_x -= adj_ret / asin_acos_denominator(x);
}
// d atan(x) = dx / (1 + x^2)
template <typename T>
WP_FUNC void adj_atan(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret / (T(1) + x * x);
}
// d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
template <typename T>
WP_FUNC void adj_atan2(T y, T x, T& adj_y, T& adj_x, T adj_ret) {
    const T d = x * x + y * y;
    if (d > T(0)) {
        adj_y += x / d * adj_ret;
        adj_x -= y / d * adj_ret;
    }
}
// d sinh(x) = cosh(x) dx
template <typename T>
WP_FUNC void adj_sinh(T x, T& adj_x, T adj_ret) {
    adj_x += cosh(x) * adj_ret;
}
// d cosh(x) = sinh(x) dx
template <typename T>
WP_FUNC void adj_cosh(T x, T& adj_x, T adj_ret) {
    adj_x += sinh(x) * adj_ret;
}
// d tanh(x) = (1 - tanh(x)^2) dx
template <typename T>
WP_FUNC void adj_tanh(T x, T& adj_x, T adj_ret) {
    const T t = tanh(x);
    adj_x += (T(1) - t * t) * adj_ret;
}

template <typename T>
WP_FUNC T degrees(T x) {
    return x * (T(180) / constants<T>::pi);
}
// d degrees(x) = 180/pi dx
template <typename T>
WP_FUNC void adj_degrees(T x, T& adj_x, T adj_ret) {
    adj_x += (T(180) / constants<T>::pi) * adj_ret;
}
template <typename T>
WP_FUNC T radians(T x) {
    return x * (constants<T>::pi / T(180));
}
// d radians(x) = pi/180 dx
template <typename T>
WP_FUNC void adj_radians(T x, T& adj_x, T adj_ret) {
    adj_x += (constants<T>::pi / T(180)) * adj_ret;
}

// [SECTION] interpolation
template <typename T>
WP_FUNC T lerp(T a, T b, T t) {
    return a + t * (b - a);
}
// d lerp = (1 - t) da + t db + (b - a) dt
template <typename T>
WP_FUNC void adj_lerp(T a, T b, T t, T& adj_a, T& adj_b, T& adj_t, T adj_ret) {
    adj_a += (T(1) - t) * adj_ret;
    adj_b += t * adj_ret;
    adj_t += (b - a) * adj_ret;
}

// s = clamp((x - e0) / (e1 - e0), 0, 1); smoothstep = s^2 (3 - 2 s)
template <typename T>
WP_FUNC T smoothstep(T e0, T e1, T x) {
    const T s = clamp((x - e0) / (e1 - e0), T(0), T(1));
    return s * s * (T(3) - T(2) * s);
}
// d smoothstep = 6 s (1 - s) ds where 0 < s < 1;
// ds = dx / (e1 - e0) + (x - e1) de0 / (e1 - e0)^2 - (x - e0) de1 / (e1 - e0)^2
template <typename T>
WP_FUNC void adj_smoothstep(T e0, T e1, T x, T& adj_e0, T& adj_e1, T& adj_x, T adj_ret) {
    const T w = e1 - e0;
    const T s = (x - e0) / w;
    if (!(s > T(0) && s < T(1))) return;
    const T adj_s = T(6) * s * (T(1) - s) * adj_ret;
    adj_x += adj_s / w;
    adj_e0 += adj_s * (x - e1) / (w * w);
    adj_e1 -= adj_s * (x - e0) / (w * w);
}

// 1 if x != 0, 0 otherwise (Warp's nonzero). No adjoint: piecewise constant.
template <typename T>
WP_FUNC T nonzero(T x) {
    return x == T(0) ? T(0) : T(1);
}

// The fractional part with the sign of x, x - trunc(x) (Warp's frac, numpy's modf(x)[0]).
template <typename T>
WP_FUNC T frac(T x) {
    return x - trunc(x);
}
// d frac = dx (trunc is piecewise constant). Warp's adjoint of frac is zero; this one is the derivative.
template <typename T>
WP_FUNC void adj_frac(T x, T& adj_x, T adj_ret) {
    adj_x += adj_ret;
}

// 1 if x < 0, 0 otherwise (Warp's step). No adjoint.
template <typename T>
WP_FUNC T step(T x) {
    return x < T(0) ? T(1) : T(0);
}

// [SECTION] division and remainder
// wp.mod: C semantics (the result has the sign of the dividend), fmod for floats. Integer
// division by zero gives 0 instead of trapping.
WP_FUNC int32 mod(int32 a, int32 b) { return b == 0 ? 0 : a % b; }
WP_FUNC int64 mod(int64 a, int64 b) { return b == 0 ? 0 : a % b; }
WP_FUNC uint32 mod(uint32 a, uint32 b) { return b == 0 ? 0 : a % b; }
WP_FUNC uint64 mod(uint64 a, uint64 b) { return b == 0 ? 0 : a % b; }
WP_FUNC float32 mod(float32 a, float32 b) { return fmod(a, b); }
WP_FUNC float64 mod(float64 a, float64 b) { return fmod(a, b); }
// fmod(a, b) = a - trunc(a / b) b: d = da - trunc(a / b) db
template <typename T>
WP_FUNC void adj_mod(T a, T b, T& adj_a, T& adj_b, T adj_ret) {
    adj_a += adj_ret;
    adj_b -= trunc(a / b) * adj_ret;
}

// Python's a // b (floor division) and a % b (the remainder takes the divisor's sign).
template <typename T>
WP_FUNC T floordiv_int(T a, T b) {
    if (b == 0) return 0;
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
template <typename T>
WP_FUNC T pymod_int(T a, T b) {
    if (b == 0) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
WP_FUNC int32 floordiv(int32 a, int32 b) { return floordiv_int(a, b); }
WP_FUNC int64 floordiv(int64 a, int64 b) { return floordiv_int(a, b); }
WP_FUNC uint32 floordiv(uint32 a, uint32 b) { return b == 0 ? 0u : a / b; }
WP_FUNC uint64 floordiv(uint64 a, uint64 b) { return b == 0 ? 0ull : a / b; }
WP_FUNC int32 pymod(int32 a, int32 b) { return pymod_int(a, b); }
WP_FUNC int64 pymod(int64 a, int64 b) { return pymod_int(a, b); }
WP_FUNC uint32 pymod(uint32 a, uint32 b) { return b == 0 ? 0u : a % b; }
WP_FUNC uint64 pymod(uint64 a, uint64 b) { return b == 0 ? 0ull : a % b; }

template <typename T>
WP_FUNC T pymod_float(T a, T b) {
    T r = fmod(a, b);
    if (r != T(0)) {
        if ((r < T(0)) != (b < T(0))) r += b;
    } else {
        r = b < T(0) ? T(-0.0) : T(0.0);  // Python: 0.0 with the divisor's sign
    }
    return r;
}
// As CPython's float floor division: from fmod, so that a == (a // b) * b + a % b holds as
// closely as floating point allows.
template <typename T>
WP_FUNC T floordiv_float(T a, T b) {
    T m = fmod(a, b);
    T div = (a - m) / b;
    if (m != T(0) && ((b < T(0)) != (m < T(0)))) div -= T(1);
    if (div == T(0)) return (a / b < T(0)) ? T(-0.0) : T(0.0);  // signed zero, as Python
    T f = floor(div);
    if (div - f > T(0.5)) f += T(1);
    return f;
}
WP_FUNC float32 floordiv(float32 a, float32 b) { return floordiv_float(a, b); }
WP_FUNC float64 floordiv(float64 a, float64 b) { return floordiv_float(a, b); }
WP_FUNC float32 pymod(float32 a, float32 b) { return pymod_float(a, b); }
WP_FUNC float64 pymod(float64 a, float64 b) { return pymod_float(a, b); }
// pymod(a, b) = a - floor(a / b) b: d = da - floor(a / b) db (away from the jumps)
template <typename T>
WP_FUNC void adj_pymod(T a, T b, T& adj_a, T& adj_b, T adj_ret) {
    adj_a += adj_ret;
    adj_b -= floor(a / b) * adj_ret;
}

}  // namespace wp
