"""The broad phase of body contact: the shapes each body may touch at the poses of one contact
evaluation, found through a hash grid of the shapes' bounding spheres instead of a walk over every
shape of the body's world (worlds.py), which costs O(n^2) in a world of n bodies.

Reach. Shape s is held by a sphere about its frame's origin of radius shape_bound[s]
(Model::shape_bound; -1 for planes, unbounded). Its reach adds half its adhesion distance,
shape_bound + 0.5 |ka|, and half the evaluation's margin (XPBD's contact margin; 0 for the penalty
solvers): two shapes whose centres are further apart than their reaches' sum fail may_touch
(rigid.py) and may_touch_within (xpbd_common.py), so the pair gives nothing.

Grid. Shapes whose reach is at most R (Model::shape_grid_cell / 2, set by finalize; "gridded") go
into cells of side 2 R + margin, one bucket per cell and world (hash_grid.py's grid_bucket), by
build_shape_grid. Any two gridded shapes that may touch are then at most one cell apart along every
axis: a shape's 27 neighbouring cells hold every gridded shape it may touch. Planes and shapes of
larger reach ("large": Model::shape_large, grouped by world in world_large_start / world_large_list)
are not gridded; every body of their worlds tests their bounding spheres directly.

Candidates. find_body_candidates gives body b the shapes of other bodies and the static shapes, of
its world or shared, whose bounding spheres overlap one of its shapes' (with a relative slack of
1e-3, so that rounding in the centres never drops a pair that may_touch keeps). They are kept as
their positions in the walk of worlds.py (candidate k of body b's world), ascending and without
repeats, up to `capacity` of them. The contact kernels walk that list instead of every candidate:
the pairs they skip are pairs whose force or impulse is exactly zero, and the others are summed in
the same order, so the broad phase changes no bit of a step.

Walking every candidate. A body writes the count -1, and is walked as without the broad phase,
when its list would overflow, when a bucket it reads is full (a shape may be missing from it), when
one of its own shapes is large, and when it is a shared body (world -1) of a model with worlds.
These kernels write integers only and have no adjoint.
"""
import weft as wp
import hash_grid as hg
import worlds

# Relative and absolute slack of the sphere test (see the docstring).
SLACK_REL = wp.constant(1.001)
SLACK_ABS = wp.constant(1.0e-6)


@wp.func
def shape_center(s: int, body_q: wp.array(dtype=wp.transform), shape_body: wp.array(dtype=int),
                 shape_transform: wp.array(dtype=wp.transform)) -> wp.vec3:
    # The world position of shape s's frame (static shapes: their own transform).
    ob = shape_body[s]
    if ob < 0:
        return wp.transform_get_translation(shape_transform[s])
    return wp.transform_get_translation(body_q[ob] * shape_transform[s])


@wp.func
def shape_reach(s: int, shape_bound: wp.array(dtype=float), shape_materials: wp.array2d(dtype=float),
                margin: float) -> float:
    # The radius about the shape's centre within which another shape's reach must come for a
    # contact; below 0 for planes.
    r = shape_bound[s]
    if r < 0.0:
        return -1.0
    return r + 0.5 * wp.abs(shape_materials[s, 3]) + 0.5 * margin


@wp.func
def spheres_meet(xa: wp.vec3, ra: float, xb: wp.vec3, rb: float) -> bool:
    # Whether two reaches overlap (a plane's, below 0, meets everything).
    if ra < 0.0 or rb < 0.0:
        return True
    return wp.length(xa - xb) <= (ra + rb) * SLACK_REL + SLACK_ABS


@wp.func
def walk_position(s: int, wb: int, shape_world: wp.array(dtype=int), shape_world_pos: wp.array(dtype=int),
                  world_shape_start: wp.array(dtype=int)) -> int:
    # The position of shape s in the walk of a body of world wb (worlds.py's candidate order): its
    # index for world -1, else its place in its world's group, the shared group following.
    if wb < 0:
        return s
    if shape_world[s] == wb:
        return shape_world_pos[s]
    return (world_shape_start[wb + 1] - world_shape_start[wb]) + shape_world_pos[s]


@wp.func
def insert_sorted(lst: wp.array(dtype=int), base: int, n: int, capacity: int, pos: int) -> int:
    # Adds pos to the ascending list lst[base .. base + n - 1] unless it is there: the new count,
    # or -1 when the list is full.
    at = n
    for k in range(n):
        v = lst[base + k]
        if v == pos:
            return n
        if v > pos and at == n:
            at = k
    if n >= capacity:
        return -1
    k = n
    while k > at:
        lst[base + k] = lst[base + k - 1]
        k = k - 1
    lst[base + at] = pos
    return n + 1


@wp.kernel(enable_backward=False)
def build_shape_grid(
    body_q: wp.array(dtype=wp.transform),
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_large: wp.array(dtype=int),
    shape_world: wp.array(dtype=int),
    inv_cell_size: float,
    nbucket: int,
    capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_shapes: wp.array(dtype=int),
):
    # Shape s goes into the bucket of its centre's cell and its world (gridded shapes only). A full
    # bucket keeps counting, so that the bodies reading it know a shape is missing.
    s = wp.tid()
    if shape_large[s] == 0:
        x = shape_center(s, body_q, shape_body, shape_transform)
        bk = hg.grid_bucket(hg.grid_cell(x, inv_cell_size), shape_world[s], nbucket)
        slot = wp.atomic_add(bucket_count, bk, 1)
        if slot < capacity:
            bucket_shapes[bk * capacity + slot] = s


@wp.func
def add_if_near(
    s: int,
    b: int,
    wb: int,
    xa: wp.vec3,
    ra: float,
    body_q: wp.array(dtype=wp.transform),
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_bound: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_world: wp.array(dtype=int),
    shape_world_pos: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    margin: float,
    capacity: int,
    lst: wp.array(dtype=int),
    base: int,
    n: int,
) -> int:
    # Adds shape s to body b's list when it is another body's (or static), of b's world or shared,
    # and its reach meets b's shape at xa with reach ra: the new count (-1 stays -1).
    if n >= 0 and shape_body[s] != b and worlds.same_world(wb, shape_world[s]):
        if spheres_meet(xa, ra, shape_center(s, body_q, shape_body, shape_transform),
                        shape_reach(s, shape_bound, shape_materials, margin)):
            n = insert_sorted(lst, base, n, capacity, walk_position(s, wb, shape_world, shape_world_pos, world_shape_start))
    return n


@wp.kernel(enable_backward=False)
def find_body_candidates(
    body_q: wp.array(dtype=wp.transform),
    body_world: wp.array(dtype=int),
    body_shape_start: wp.array(dtype=int),
    body_shape_list: wp.array(dtype=int),
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_bound: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_large: wp.array(dtype=int),
    shape_world: wp.array(dtype=int),
    shape_world_pos: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_large_start: wp.array(dtype=int),
    world_large_list: wp.array(dtype=int),
    num_worlds: int,
    margin: float,
    inv_cell_size: float,
    nbucket: int,
    bucket_capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_shapes: wp.array(dtype=int),
    capacity: int,
    candidate_count: wp.array(dtype=int),
    candidate_list: wp.array(dtype=int),
):
    # Body b's candidates (the module's docstring): candidate_count[b] of them in
    # candidate_list[b * capacity ..], or the count -1.
    b = wp.tid()
    wb = body_world[b]
    base = b * capacity
    n = int(0)
    if wb < 0 and num_worlds > 0:
        n = -1
    # The groups b reads (world_large_start's, and the grid's keys, where group num_worlds hashes
    # as world -1): its world's, then the shared shapes' if there are any; without worlds (b of
    # world -1) the shared group alone, which holds every shape.
    groups = 1
    if wb >= 0 and world_shape_start[num_worlds + 1] > world_shape_start[num_worlds]:
        groups = 2
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        sa = body_shape_list[si]
        if shape_large[sa] != 0:
            n = -1
        if n >= 0:
            xa = shape_center(sa, body_q, shape_body, shape_transform)
            ra = shape_reach(sa, shape_bound, shape_materials, margin)
            c = hg.grid_cell(xa, inv_cell_size)
            for gi in range(groups):
                g = num_worlds
                if gi == 0 and wb >= 0:
                    g = wb
                # The group's large shapes, then its shapes in the 27 cells about sa's.
                for k in range(world_large_start[g], world_large_start[g + 1]):
                    n = add_if_near(world_large_list[k], b, wb, xa, ra, body_q, shape_body, shape_transform, shape_bound,
                                    shape_materials, shape_world, shape_world_pos, world_shape_start, margin, capacity,
                                    candidate_list, base, n)
                key_world = g
                if g == num_worlds:
                    key_world = -1
                for cell in range(27):
                    d = wp.vec3i(cell % 3 - 1, (cell // 3) % 3 - 1, cell // 9 - 1)
                    bk = hg.grid_bucket(c + d, key_world, nbucket)
                    m = bucket_count[bk]
                    if m > bucket_capacity:
                        n = -1  # a shape may be missing from the full bucket
                    # Another cell or world may share the bucket: add_if_near keeps the shapes of
                    # b's world (or shared) that reach sa.
                    for k in range(wp.min(m, bucket_capacity)):
                        n = add_if_near(bucket_shapes[bk * bucket_capacity + k], b, wb, xa, ra, body_q, shape_body,
                                        shape_transform, shape_bound, shape_materials, shape_world, shape_world_pos,
                                        world_shape_start, margin, capacity, candidate_list, base, n)
    candidate_count[b] = n


@wp.func
def walk_count(b: int, wb: int, shape_count: int, world_shape_start: wp.array(dtype=int), num_worlds: int, broad_phase: int,
               candidate_count: wp.array(dtype=int)) -> int:
    # How many shapes body b's contact pass walks: its candidates, or every shape of its world
    # (worlds.py) without the broad phase or when its count is -1.
    if broad_phase != 0:
        n = candidate_count[b]
        if n >= 0:
            return n
    return worlds.candidate_count(wb, shape_count, world_shape_start, num_worlds)


@wp.func
def list_base(b: int, broad_phase: int, candidate_count: wp.array(dtype=int), capacity: int) -> int:
    # Where body b's list starts in candidate_list, or -1 where it walks every shape of its world
    # (without the broad phase, or with the count -1). Read once per thread, before its loops.
    if broad_phase != 0:
        if candidate_count[b] >= 0:
            return b * capacity
    return -1


@wp.func
def walk_shape(k: int, base: int, wb: int, world_shape_start: wp.array(dtype=int), world_shape_list: wp.array(dtype=int),
               num_worlds: int, candidate_list: wp.array(dtype=int)) -> int:
    # The k-th shape of that walk (base from list_base).
    kb = k
    if base >= 0:
        kb = candidate_list[base + k]
    return worlds.candidate(kb, wb, world_shape_start, world_shape_list, num_worlds)
