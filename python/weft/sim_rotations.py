"""Warp's wp.sim.quat_from_euler: Euler angles about a chosen axis sequence to a quaternion.

A @wp.func, so kernels call it and Python calls it alike (Python runs the same body on host
values). i, j, k pick which components of e are the angles about x, y and z (Warp's definition);
(0, 1, 2) is the roll-pitch-yaw of wp.quat_rpy. Quaternions are (x, y, z, w).
"""

from __future__ import annotations  # annotations stay kernel-language text (wp.vec3 is defined after sim)

import weft as wp  # the func below is kernel-language source: it names `wp`


@wp.func
def quat_from_euler(e: wp.vec3, i: int, j: int, k: int) -> wp.quat:
    # Warp's formula, from the half angles of the three axes; for (0, 1, 2) it is wp.quat_rpy(e)
    h = e * 0.5
    cr = wp.cos(h[i])
    sr = wp.sin(h[i])
    cp = wp.cos(h[j])
    sp = wp.sin(h[j])
    cy = wp.cos(h[k])
    sy = wp.sin(h[k])
    return wp.quat(cy * sr * cp - sy * cr * sp, cy * cr * sp + sy * sr * cp, sy * cr * cp - cy * sr * sp,
                   cy * cr * cp + sy * sr * sp)
