// Random-number builtins (compiler/native/random.h): one PCG32 generator whose uint32 state the
// caller keeps and every draw advances (inout), so they are all SideEffect.
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

void register_random_builtins(BuiltinTable& t) {
    const char* g = "random";
    const Type u = uint32_type(), i = int32_type(), f = float32_type();
    const Type v2 = vec(2, ScalarKind::Float32), v3 = vec(3, ScalarKind::Float32);
    t.add("rand_init", u, {p("seed", i)}, g, "A generator state from a seed.", kSide);
    t.add("rand_init", u, {p("seed", i), p("offset", i)}, g,
          "A generator state from a seed and a stream offset (usually the thread index).", kSide);
    t.add("randu", u, {inout("state", u)}, g, "A uniform uint32.", kSide);
    t.add("randu", u, {inout("state", u), p("low", u), p("high", u)}, g, "A uniform uint32 in [low, high).", kSide);
    t.add("randi", i, {inout("state", u)}, g, "A uniform int32.", kSide);
    t.add("randi", i, {inout("state", u), p("low", i), p("high", i)}, g, "A uniform int32 in [low, high).", kSide);
    t.add("randf", f, {inout("state", u)}, g, "A uniform float32 in [0, 1).", kSide);
    t.add("randf", f, {inout("state", u), p("low", f), p("high", f)}, g, "A uniform float32 in [low, high).", kSide);
    t.add("randn", f, {inout("state", u)}, g, "A standard normal float32.", kSide);
    t.add("sample_unit_square", v2, {inout("state", u)}, g, "A uniform point in [-0.5, 0.5]^2.", kSide);
    t.add("sample_unit_cube", v3, {inout("state", u)}, g, "A uniform point in [-0.5, 0.5]^3.", kSide);
    t.add("sample_unit_ring", v2, {inout("state", u)}, g, "A uniform point on the unit circle.", kSide);
    t.add("sample_unit_disk", v2, {inout("state", u)}, g, "A uniform point in the unit disk.", kSide);
    t.add("sample_unit_sphere_surface", v3, {inout("state", u)}, g, "A uniform point on the unit sphere.", kSide);
    t.add("sample_unit_sphere", v3, {inout("state", u)}, g, "A uniform point in the unit ball.", kSide);
    t.add("sample_unit_hemisphere_surface", v3, {inout("state", u)}, g, "A uniform point on the unit hemisphere z >= 0.", kSide);
    t.add("sample_unit_hemisphere", v3, {inout("state", u)}, g, "A uniform point in the unit half ball z >= 0.", kSide);
}

}  // namespace weft::compiler
