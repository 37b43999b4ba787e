# gpusim/validation/weft_kernels.py: the Weft-language half of gpusim's validation suite.
#
# These kernels go through Weft's own compiler (kernel language -> C++ -> NVRTC -> PTX), the
# path every solver kernel takes, so the validation scores gpusim on the PTX Weft makes, not only
# on nvcc's (kernels.cu). bench/gpusim/weft_validate.cpp launches them with the inputs of its
# case table, on cuda:0 under Nsight Compute (gpusim/validation/run_h200.sh) and on sim:h200;
# gpusim/validation/compare.py scores them with kernels.cu's.
#
# Kinds: streaming (saxpy, axpy_f64), physics-shaped particle updates (integrate_aos /
# integrate_soa, collide_sdf), gathers and scattered atomics (spring_forces, neighbor_gather,
# hash_cells, histogram), wide loads and arithmetic (mat33_apply, quat_rotate, transcendental,
# rng_fill), data-dependent loops (newton_sqrt), a 2-D launch (laplace_2d) and shared memory with
# barriers (transpose_tiled, reduce_block). Variant pairs (gpusim must order each as the H200 does):
# integrate_aos / integrate_soa, transpose_naive / transpose_tiled, reduce_atomic / reduce_block.
import weft as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def axpy_f64(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), a: wp.float64):
    i = wp.tid()
    y[i] = a * x[i] + y[i] * wp.float64(0.5)


# Semi-implicit Euler on an array of vec3 (12-byte elements: each component load is strided).
@wp.kernel
def integrate_aos(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3),
                  inv_mass: wp.array(dtype=float), g: wp.vec3, dt: float):
    i = wp.tid()
    vi = v[i] + (f[i] * inv_mass[i] + g) * dt
    v[i] = vi
    x[i] = x[i] + vi * dt


# The same update on one float array per component (every load unit-stride).
@wp.kernel
def integrate_soa(px: wp.array(dtype=float), py: wp.array(dtype=float), pz: wp.array(dtype=float),
                  vx: wp.array(dtype=float), vy: wp.array(dtype=float), vz: wp.array(dtype=float),
                  fx: wp.array(dtype=float), fy: wp.array(dtype=float), fz: wp.array(dtype=float),
                  inv_mass: wp.array(dtype=float), gy: float, dt: float):
    i = wp.tid()
    w = inv_mass[i]
    ux = vx[i] + fx[i] * w * dt
    uy = vy[i] + (fy[i] * w + gy) * dt
    uz = vz[i] + fz[i] * w * dt
    vx[i] = ux
    vy[i] = uy
    vz[i] = uz
    px[i] = px[i] + ux * dt
    py[i] = py[i] + uy * dt
    pz[i] = pz[i] + uz * dt


# Particles against a sphere and the ground: two data-dependent branches.
@wp.kernel
def collide_sdf(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), center: wp.vec3, radius: float):
    i = wp.tid()
    p = x[i]
    vi = v[i]
    d = p - center
    dist = wp.length(d)
    if dist < radius:
        n = d / wp.max(dist, 1.0e-6)
        p = center + n * radius
        vn = wp.dot(vi, n)
        if vn < 0.0:
            vi = vi - n * (1.5 * vn)
    if p[1] < 0.1:
        p = wp.vec3(p[0], 0.1, p[2])
        vi = wp.vec3(vi[0] * 0.9, wp.abs(vi[1]) * 0.5, vi[2] * 0.9)
    x[i] = p
    v[i] = vi


# Damped springs of a cloth grid: gathers of both ends, then scattered vec3 atomics.
@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), springs: wp.array(dtype=int),
                  rest: wp.array(dtype=float), ke: float, kd: float, f: wp.array(dtype=wp.vec3)):
    s = wp.tid()
    a = springs[2 * s]
    b = springs[2 * s + 1]
    d = x[b] - x[a]
    dist = wp.length(d)
    dir = d / wp.max(dist, 1.0e-6)
    vrel = wp.dot(v[b] - v[a], dir)
    fs = dir * (ke * (dist - rest[s]) + kd * vrel)
    wp.atomic_add(f, a, fs)
    wp.atomic_sub(f, b, fs)


# k random neighbours per particle: dependent, uncoalesced gathers in a runtime-length loop.
@wp.kernel
def neighbor_gather(x: wp.array(dtype=wp.vec3), nbr: wp.array(dtype=int), out: wp.array(dtype=float), k: int):
    i = wp.tid()
    p = x[i]
    acc = float(0.0)
    for j in range(k):
        q = x[nbr[i * k + j]]
        d = q - p
        acc = acc + wp.exp(-10.0 * wp.dot(d, d))
    out[i] = acc


# A hash grid's counting pass: cell of each particle, one int atomic per particle.
@wp.kernel
def hash_cells(x: wp.array(dtype=wp.vec3), inv_cell: float, counts: wp.array(dtype=int), mask: int):
    i = wp.tid()
    p = x[i] * inv_cell
    cx = int(wp.floor(p[0]))
    cy = int(wp.floor(p[1]))
    cz = int(wp.floor(p[2]))
    h = cx * 73 + cy * 1031 + cz * 65537
    wp.atomic_add(counts, h & mask, 1)


# 64 bins for a million values: heavily contended int atomics.
@wp.kernel
def histogram(values: wp.array(dtype=float), bins: wp.array(dtype=int)):
    i = wp.tid()
    b = wp.min(int(values[i] * 64.0), 63)
    wp.atomic_add(bins, b, 1)


@wp.kernel
def mat33_apply(m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = m[i]
    out[i] = a * v[i] + wp.transpose(a) * (a * v[i])


@wp.kernel
def quat_rotate(q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    r = wp.normalize(q[i])
    out[i] = wp.quat_rotate(r, v[i]) + wp.quat_rotate_inv(r, v[i])


@wp.kernel
def transcendental(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    out[i] = wp.sin(s) * wp.cos(2.0 * s) + wp.exp(-s) + wp.log(s + 1.0) + wp.sqrt(s)


@wp.kernel
def rng_fill(out: wp.array(dtype=float), seed: int):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    a = wp.randf(state)
    b = wp.randf(state)
    c = wp.randn(state)
    out[i] = a + b * c


# Square roots by Newton's method: 0-20 iterations per thread, decided by the data (divergence).
@wp.kernel
def newton_sqrt(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = a[i] * 1000.0 + 0.001
    x = s
    k = int(0)
    while wp.abs(x * x - s) > 1.0e-4 * s and k < 64:
        x = 0.5 * (x + s / x)
        k = k + 1
    out[i] = x + float(k)


# 5-point Laplacian over a 2-D launch.
@wp.kernel
def laplace_2d(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    n = u.shape[0]
    m = u.shape[1]
    if i > 0 and i < n - 1 and j > 0 and j < m - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


# n x n transpose, one element per thread: coalesced reads, 4-byte writes n floats apart.
@wp.kernel
def transpose_naive(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    b[j, i] = a[i, j]


# The same through a padded 32 x 33 shared tile: 256 threads move a 32 x 32 tile, 4 rows each.
# Launch n * n / 4 threads (n a multiple of 32): one block per tile.
@wp.kernel(block_dim=256)
def transpose_tiled(a: wp.array(dtype=float), b: wp.array(dtype=float), n: int):
    tile = wp.shared_array(shape=(32, 33), dtype=float)
    t = wp.thread_idx()
    tx = t % 32
    ty = t // 32
    tiles = n // 32
    blk = wp.block_idx()
    bx = blk % tiles
    by = blk // tiles
    for r in range(4):
        tile[ty + 8 * r, tx] = a[(by * 32 + ty + 8 * r) * n + bx * 32 + tx]
    wp.sync_threads()
    for r in range(4):
        b[(bx * 32 + ty + 8 * r) * n + by * 32 + tx] = tile[tx, ty + 8 * r]


# A sum of n floats: every thread adds into one word...
@wp.kernel
def reduce_atomic(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i])


# ... and a shared-memory tree per block, then one atomic per block.
@wp.kernel(block_dim=256)
def reduce_block(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    s[t] = x[wp.tid()]
    wp.sync_threads()
    stride = 128
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        wp.atomic_add(out, 0, s[0])
