// Quaternion, transform and spatial-algebra builtins (compiler/native/quat.h, transform.h,
// spatial.h).
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

void register_quat_builtins(BuiltinTable& t) {
    const char* g = "quaternion";
    for (ScalarKind s : kFloatKinds) {
        const Type q = quat(s), f = sc(s), v3 = vec(3, s), m3 = mat(3, s);
        t.add("quat_from_axis_angle", q, {p("axis", v3), p("angle", f)}, g,
              "The rotation by angle (radians) about axis (used as given, not normalized).", kDiff);
        t.add("quat_rpy", q, {p("roll", f), p("pitch", f), p("yaw", f)}, g,
              "The rotation by roll about x, then pitch about y, then yaw about z (radians).", kDiff);
        t.add("quat_to_axis_angle", tuple_type({v3, f}), {p("q", q)}, g,
              "The unit axis and the angle in [0, pi] of the rotation q, as a tuple.");
        t.add("quat_rotate", v3, {p("q", q), p("v", v3)}, g, "v rotated by the unit quaternion q.", kDiff);
        t.add("quat_rotate_inv", v3, {p("q", q), p("v", v3)}, g, "v rotated by the inverse of q.", kDiff);
        t.add("quat_inverse", q, {p("q", q)}, g, "The conjugate of q (the inverse of a unit quaternion).", kDiff);
        t.add("quat_to_matrix", m3, {p("q", q)}, g, "The 3x3 rotation matrix of the unit quaternion q.", kDiff);
        t.add("quat_from_matrix", q, {p("m", m3)}, g, "The unit quaternion of the rotation matrix m.", kDiff);
        t.add("quat_slerp", q, {p("q0", q), p("q1", q), p("t", f)}, g,
              "Spherical linear interpolation from q0 to q1 along the shorter arc.", kDiff);
        t.add("dot", f, {p("a", q), p("b", q)}, g, "The 4-D dot product of a and b.", kDiff);
        t.add("length", f, {p("q", q)}, g, "The 4-D length of q.", kDiff);
        t.add("length_sq", f, {p("q", q)}, g, "The squared 4-D length of q.", kDiff);
        t.add("normalize", q, {p("q", q)}, g, "q divided by its length; zero stays zero.", kDiff);
        t.add("lerp", q, {p("a", q), p("b", q), p("t", f)}, g, "Component-wise a + t (b - a).", kDiff);
    }
}

void register_transform_builtins(BuiltinTable& t) {
    const char* g = "transform";
    for (ScalarKind s : kFloatKinds) {
        const Type x = xform(s), q = quat(s), v3 = vec(3, s), m4 = mat(4, s), f = sc(s);
        t.add("transform_get_translation", v3, {p("t", x)}, g, "The translation of t.", kDiff);
        t.add("lerp", x, {p("a", x), p("b", x), p("t", f)}, g, "Component-wise a + t (b - a) of p and q (not a pose blend).",
              kDiff);
        t.add("transform_get_rotation", q, {p("t", x)}, g, "The rotation of t.", kDiff);
        t.add("transform_multiply", x, {p("a", x), p("b", x)}, g, "The composition a * b: b, then a.", kDiff);
        t.add("transform_point", v3, {p("t", x), p("point", v3)}, g, "point transformed by t (rotated, translated).", kDiff);
        t.add("transform_vector", v3, {p("t", x), p("vec", v3)}, g, "vec rotated by t (no translation).", kDiff);
        t.add("transform_point", v3, {p("m", m4), p("point", v3)}, g, "point transformed by the homogeneous matrix m (w = 1).",
              kDiff);
        t.add("transform_vector", v3, {p("m", m4), p("vec", v3)}, g, "vec transformed by the homogeneous matrix m (w = 0).",
              kDiff);
        t.add("transform_inverse", x, {p("t", x)}, g, "The inverse of the rigid transform t.", kDiff);
    }
}

void register_spatial_builtins(BuiltinTable& t) {
    const char* g = "spatial";
    for (ScalarKind s : kFloatKinds) {
        const Type sv = vec(6, s), v3 = vec(3, s), f = sc(s);
        t.add("spatial_dot", f, {p("a", sv), p("b", sv)}, g, "The dot product of two spatial vectors.", kDiff);
        t.add("spatial_cross", sv, {p("a", sv), p("b", sv)}, g, "The motion cross product (wa x wb, wa x vb + va x wb).", kDiff);
        t.add("spatial_cross_dual", sv, {p("a", sv), p("b", sv)}, g, "The force cross product (wa x wb + va x vb, wa x vb).",
              kDiff);
        t.add("spatial_adjoint", mat(6, s), {p("r", mat(3, s)), p("s", mat(3, s))}, g, "The 6x6 block matrix [[r, 0], [s, r]].",
              kDiff);
        t.add("spatial_top", v3, {p("a", sv)}, g, "The angular (top) 3 components of a.", kDiff);
        t.add("spatial_bottom", v3, {p("a", sv)}, g, "The linear (bottom) 3 components of a.", kDiff);
    }
}

}  // namespace weft::compiler
