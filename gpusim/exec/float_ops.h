// gpusim/exec/float_ops.h — IEEE helpers with PTX's semantics: rounding modes, flush-to-zero,
// saturation, canonical NaN, and f16/bf16 conversions.
//
// Round-to-nearest-even is the host's default, so the common case is plain C++ arithmetic
// inline here. Directed roundings (.rz/.rm/.rp) go to float_ops.cpp, which switches the host's
// rounding mode around the one operation and is compiled with -frounding-math so the compiler
// neither folds nor moves the operation across the switch.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "gpusim/ptx/instruction.h"

namespace weft::gpusim {

inline float f32_of(uint64_t bits) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
inline double f64_of(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}
inline uint64_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline uint64_t bits_of(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

// NVIDIA GPUs return this NaN from arithmetic whose result is NaN.
inline constexpr uint32_t kCanonicalNanF32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNanF64 = 0x7fffffffffffffffull;
inline uint64_t canon(float f) { return f != f ? kCanonicalNanF32 : bits_of(f); }
inline uint64_t canon(double d) { return d != d ? kCanonicalNanF64 : bits_of(d); }

// .ftz: subnormal inputs and results become zero of the same sign.
inline float ftz(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }
// .sat: clamp to [0, 1]; NaN becomes 0.
inline float sat(float f) { return f != f ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f; }
inline double sat(double d) { return d != d ? 0.0 : d < 0.0 ? 0.0 : d > 1.0 ? 1.0 : d; }

inline bool is_directed(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp; }

// Directed-rounding versions (float_ops.cpp). `r` is Rz, Rm or Rp.
float add_rounded(float a, float b, Round r);
double add_rounded(double a, double b, Round r);
float mul_rounded(float a, float b, Round r);
double mul_rounded(double a, double b, Round r);
float fma_rounded(float a, float b, float c, Round r);
double fma_rounded(double a, double b, double c, Round r);
float div_rounded(float a, float b, Round r);
double div_rounded(double a, double b, Round r);
float sqrt_rounded(float a, Round r);
double sqrt_rounded(double a, Round r);
float rcp_rounded(float a, Round r);
double rcp_rounded(double a, Round r);
// Conversions under any rounding mode (Rn/None/Rz/Rm/Rp; Rna = nearest, ties away).
float f32_from_f64(double d, Round r);
float f32_from_i64(int64_t v, Round r);
float f32_from_u64(uint64_t v, Round r);
double f64_from_i64(int64_t v, Round r);
double f64_from_u64(uint64_t v, Round r);
// Round to an integral value: Rni (even), Rzi, Rmi, Rpi.
double round_integral(double d, Round r);
float round_integral(float f, Round r);

// Half precision (IEEE binary16) and bfloat16, round-to-nearest-even (or per `r`).
uint16_t f16_from_f32(float f, Round r);
float f32_from_f16(uint16_t h);
uint16_t bf16_from_f32(float f, Round r);
float f32_from_bf16(uint16_t h);

}  // namespace weft::gpusim
