"""A uniform hash grid of particles, built by kernels each step, for particle-particle contact.

Cells have the side `cell_size` (at least the largest contact distance, 2 max radius); cell
(cx, cy, cz) goes to bucket hash(cx, cy, cz) mod nbucket. Each bucket holds up to `capacity`
particle indices, sorted ascending by `sort_grid_buckets` so that neighbour loops visit
particles in the same order whatever the thread count (float sums are then deterministic).
A bucket that overflows keeps its count (> capacity): the host can read how many were dropped.
These kernels produce integers only and have no adjoint.
"""
import weft as wp


@wp.func
def grid_cell(p: wp.vec3, inv_cell_size: float) -> wp.vec3i:
    return wp.vec3i(int(wp.floor(p[0] * inv_cell_size)), int(wp.floor(p[1] * inv_cell_size)), int(wp.floor(p[2] * inv_cell_size)))


@wp.func
def grid_bucket(c: wp.vec3i, w: int, nbucket: int) -> int:
    """The bucket of cell c of world w (worlds.py). World -1 (a model without worlds) hashes the cell
    alone; world w >= 0 mixes its number in, so that the cells of worlds that overlap in space (a
    scene's worlds all at one place) spread over the buckets instead of crowding into one."""
    h = (wp.uint32(c[0]) * wp.uint32(73856093)) ^ (wp.uint32(c[1]) * wp.uint32(19349663)) ^ (wp.uint32(c[2]) * wp.uint32(83492791))
    if w >= 0:
        h = h ^ (wp.uint32(w + 1) * wp.uint32(2654435761))
    return int(h % wp.uint32(nbucket))


@wp.func
def grid_cell_neighbor(i: int, j: int, xj: wp.vec3, c: wp.vec3i, inv_cell_size: float, wi: int, wj: int) -> bool:
    """Whether particle j (at xj, of world wj), found in the bucket of cell c, is another particle
    than i (of world wi) that lies in cell c itself and in i's world: another cell, or another
    world's cell, may share the bucket, and j counts only in its own. The neighbour test of both
    contact solvers (contact.py, xpbd.py)."""
    cj = grid_cell(xj, inv_cell_size)
    return j != i and wj == wi and cj[0] == c[0] and cj[1] == c[1] and cj[2] == c[2]


@wp.kernel(enable_backward=False)
def build_grid(
    x: wp.array(dtype=wp.vec3),
    particle_world: wp.array(dtype=int),
    inv_cell_size: float,
    nbucket: int,
    capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_particles: wp.array(dtype=int),
):
    i = wp.tid()
    b = grid_bucket(grid_cell(x[i], inv_cell_size), particle_world[i], nbucket)
    slot = wp.atomic_add(bucket_count, b, 1)
    if slot < capacity:
        bucket_particles[b * capacity + slot] = i


@wp.kernel(enable_backward=False)
def sort_grid_buckets(capacity: int, bucket_count: wp.array(dtype=int), bucket_particles: wp.array(dtype=int)):
    b = wp.tid()
    n = wp.min(bucket_count[b], capacity)
    base = b * capacity
    for s in range(1, n):
        key = bucket_particles[base + s]
        t = s - 1
        while t >= 0 and bucket_particles[base + t] > key:
            bucket_particles[base + t + 1] = bucket_particles[base + t]
            t = t - 1
        bucket_particles[base + t + 1] = key
