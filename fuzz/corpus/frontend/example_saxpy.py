"""A first kernel module: y = a * x + y, and a few things kernels can do."""
import weft as wp

SCALE = wp.constant(2.0)


@wp.func
def axpy(a: float, x: float, y: float) -> float:
    return a * x + y


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = axpy(a, x[i], y[i])


@wp.kernel
def rotate(points: wp.array(dtype=wp.vec3), angle: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), angle)
    out[i] = wp.quat_rotate(q, points[i]) * SCALE


@wp.kernel(block_dim=64)
def block_sum(values: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = values[wp.tid()]
    wp.sync_threads()
    stride = 32
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        sums[wp.block_idx()] = s[0]


if __name__ == "__main__":
    import numpy as np
    x = wp.array(np.arange(8, dtype=np.float32))
    y = wp.zeros(8, dtype=float)
    wp.launch(saxpy, dim=8, inputs=[x, y, 3.0])
    print(y.numpy())
