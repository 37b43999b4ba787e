// compiler/native/random.h: the kernel language's random numbers: one PCG32 generator, integer
// arithmetic only, so that every device draws the same sequence from the same seed.
//
// The state is one uint32 that each call advances (Warp's rand API: `state = wp.rand_init(seed,
// tid)`, then `wp.randf(state)`). The generator is PCG-RXS-M-XS with 32-bit state (O'Neill,
// "PCG: A Family of Simple Fast Space-Efficient Statistically Good Algorithms", 2014):
//
//   advance:  state = state * 747796405 + 2891336453           (mod 2^32)
//   output:   word  = ((state >> ((state >> 28) + 4)) ^ state) * 277803737
//             out   = (word >> 22) ^ word
//
// Every draw advances first, then outputs the new state. rand_init hashes its seed with one
// advance+output step, rand_init(seed, offset) hashes seed + hash(offset), so neighbouring
// threads' streams are decorrelated. The float samplers are built from randf only; their values
// agree across devices up to the last bit of the device's sin/cos/log.
#pragma once

#include "math.h"
#include "vec.h"

namespace wp {

WP_FUNC uint32 pcg_advance(uint32 state) { return state * 747796405u + 2891336453u; }
WP_FUNC uint32 pcg_output(uint32 state) {
    const uint32 word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}
WP_FUNC uint32 pcg_hash(uint32 x) { return pcg_output(pcg_advance(x)); }

WP_FUNC uint32 rand_init(int32 seed) { return pcg_hash(static_cast<uint32>(seed)); }
WP_FUNC uint32 rand_init(int32 seed, int32 offset) {
    return pcg_hash(static_cast<uint32>(seed) + pcg_hash(static_cast<uint32>(offset)));
}

// A uniformly distributed uint32.
WP_FUNC uint32 randu(uint32& state) {
    state = pcg_advance(state);
    return pcg_output(state);
}
// Uniform over [lo, hi) by modulo (hi > lo).
WP_FUNC uint32 randu(uint32& state, uint32 lo, uint32 hi) { return lo + randu(state) % (hi - lo); }
// A uniformly distributed int32 (the bits of randu).
WP_FUNC int32 randi(uint32& state) { return static_cast<int32>(randu(state)); }
// Uniform over [lo, hi) by modulo (hi > lo).
WP_FUNC int32 randi(uint32& state, int32 lo, int32 hi) {
    return lo + static_cast<int32>(randu(state) % static_cast<uint32>(hi - lo));
}
// Uniform over [0, 1): the top 24 bits, so every value is exact in float32.
WP_FUNC float32 randf(uint32& state) { return static_cast<float32>(randu(state) >> 8) * (1.0f / 16777216.0f); }
WP_FUNC float32 randf(uint32& state, float32 lo, float32 hi) { return lo + (hi - lo) * randf(state); }
// Standard normal by Box-Muller (one value per two draws; 1 - u keeps the log finite).
WP_FUNC float32 randn(uint32& state) {
    const float32 u1 = 1.0f - randf(state);
    const float32 u2 = randf(state);
    return sqrt(-2.0f * log(u1)) * cos(2.0f * constants<float32>::pi * u2);
}

// [SECTION] geometric samplers
// Uniform in [-0.5, 0.5]^2.
WP_FUNC vec_t<2, float32> sample_unit_square(uint32& state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    return vec_t<2, float32>(x, y);
}
// Uniform in [-0.5, 0.5]^3.
WP_FUNC vec_t<3, float32> sample_unit_cube(uint32& state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    const float32 z = randf(state) - 0.5f;
    return vec_t<3, float32>(x, y, z);
}
// Uniform on the unit circle.
WP_FUNC vec_t<2, float32> sample_unit_ring(uint32& state) {
    const float32 t = 2.0f * constants<float32>::pi * randf(state);
    return vec_t<2, float32>(cos(t), sin(t));
}
// Uniform in the unit disk (radius sqrt(u) for uniform area).
WP_FUNC vec_t<2, float32> sample_unit_disk(uint32& state) {
    const float32 r = sqrt(randf(state));
    const float32 t = 2.0f * constants<float32>::pi * randf(state);
    return vec_t<2, float32>(r * cos(t), r * sin(t));
}
// Uniform on the unit sphere (z uniform in [-1, 1], azimuth uniform).
WP_FUNC vec_t<3, float32> sample_unit_sphere_surface(uint32& state) {
    const float32 z = 1.0f - 2.0f * randf(state);
    const float32 r = sqrt(max(0.0f, 1.0f - z * z));
    const float32 t = 2.0f * constants<float32>::pi * randf(state);
    return vec_t<3, float32>(r * cos(t), r * sin(t), z);
}
// Uniform in the unit ball (a surface point scaled by cbrt(u)).
WP_FUNC vec_t<3, float32> sample_unit_sphere(uint32& state) {
    const vec_t<3, float32> d = sample_unit_sphere_surface(state);
    return d * cbrt(randf(state));
}
// Uniform on the upper (z >= 0) unit hemisphere.
WP_FUNC vec_t<3, float32> sample_unit_hemisphere_surface(uint32& state) {
    const float32 z = randf(state);
    const float32 r = sqrt(max(0.0f, 1.0f - z * z));
    const float32 t = 2.0f * constants<float32>::pi * randf(state);
    return vec_t<3, float32>(r * cos(t), r * sin(t), z);
}
// Uniform in the upper unit half ball.
WP_FUNC vec_t<3, float32> sample_unit_hemisphere(uint32& state) {
    const vec_t<3, float32> d = sample_unit_hemisphere_surface(state);
    return d * cbrt(randf(state));
}

}  // namespace wp
