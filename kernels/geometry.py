"""Signed distances of the static collision shapes, in the shape's own frame, and their gradients.

Shape types follow Warp's GEO_* numbering: 0 sphere (scale.x = radius), 1 box (scale = half
extents), 2 capsule (scale.x = radius, scale.y = half height, axis along local y), 3 plane
(infinite, normal along local +y). Gradients are unit outward normals.
"""
import weft as wp

GEO_SPHERE = wp.constant(0)
GEO_BOX = wp.constant(1)
GEO_CAPSULE = wp.constant(2)
GEO_PLANE = wp.constant(3)


@wp.func
def box_sdf(upper: wp.vec3, p: wp.vec3) -> float:
    qx = wp.abs(p[0]) - upper[0]
    qy = wp.abs(p[1]) - upper[1]
    qz = wp.abs(p[2]) - upper[2]
    e = wp.vec3(wp.max(qx, 0.0), wp.max(qy, 0.0), wp.max(qz, 0.0))
    return wp.length(e) + wp.min(wp.max(qx, wp.max(qy, qz)), 0.0)


@wp.func
def box_sdf_grad(upper: wp.vec3, p: wp.vec3) -> wp.vec3:
    qx = wp.abs(p[0]) - upper[0]
    qy = wp.abs(p[1]) - upper[1]
    qz = wp.abs(p[2]) - upper[2]
    if qx > 0.0 or qy > 0.0 or qz > 0.0:
        c = wp.vec3(wp.clamp(p[0], -upper[0], upper[0]), wp.clamp(p[1], -upper[1], upper[1]), wp.clamp(p[2], -upper[2], upper[2]))
        return wp.normalize(p - c)
    if qx > qy and qx > qz:
        return wp.vec3(wp.sign(p[0]), 0.0, 0.0)
    if qy > qz:
        return wp.vec3(0.0, wp.sign(p[1]), 0.0)
    return wp.vec3(0.0, 0.0, wp.sign(p[2]))


@wp.func
def capsule_closest(radius: float, half_height: float, p: wp.vec3) -> wp.vec3:
    return wp.vec3(0.0, wp.clamp(p[1], -half_height, half_height), 0.0)


@wp.func
def shape_sdf(geo_type: int, scale: wp.vec3, p: wp.vec3) -> float:
    if geo_type == GEO_SPHERE:
        return wp.length(p) - scale[0]
    if geo_type == GEO_BOX:
        return box_sdf(scale, p)
    if geo_type == GEO_CAPSULE:
        return wp.length(p - capsule_closest(scale[0], scale[1], p)) - scale[0]
    return p[1]


@wp.func
def shape_sdf_grad(geo_type: int, scale: wp.vec3, p: wp.vec3) -> wp.vec3:
    if geo_type == GEO_SPHERE:
        return wp.normalize(p)
    if geo_type == GEO_BOX:
        return box_sdf_grad(scale, p)
    if geo_type == GEO_CAPSULE:
        return wp.normalize(p - capsule_closest(scale[0], scale[1], p))
    return wp.vec3(0.0, 1.0, 0.0)
