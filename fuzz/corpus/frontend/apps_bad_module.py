import weft as wp


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), velocity: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    x[i] = x[i] + veloctiy[i] * dt
