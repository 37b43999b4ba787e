"""Worlds of a batched model (ModelBuilder::add_builder): which shapes and particles an element of
world w meets. An element of world -1 (added to the builder directly) meets every world; two
elements of worlds w >= 0 meet only when w is the same.

The model keeps each kind of element grouped by world (world_shape_start / world_shape_list, and
world_particle_start / world_particle_list), world 0 first and the shared ones (world -1) last,
each group in index order. candidate_count and candidate walk the group of one world followed by
the shared group, so that N worlds cost N times one world's work rather than N^2 times it; for
world -1 they walk every element in index order (as a model without worlds does).
"""
import weft as wp


@wp.func
def candidate_count(w: int, total: int, world_start: wp.array(dtype=int), num_worlds: int) -> int:
    # How many elements (of a list grouped by world_start) an element of world w may meet: all
    # `total` for world -1, else its world's and the shared ones.
    if w < 0:
        return total
    return (world_start[w + 1] - world_start[w]) + (world_start[num_worlds + 1] - world_start[num_worlds])


@wp.func
def candidate(k: int, w: int, world_start: wp.array(dtype=int), world_list: wp.array(dtype=int), num_worlds: int) -> int:
    # The k-th of those elements: for world -1 element k itself (index order, as without worlds).
    if w < 0:
        return k
    n = world_start[w + 1] - world_start[w]
    if k < n:
        return world_list[world_start[w] + k]
    return world_list[world_start[num_worlds] + k - n]


@wp.func
def same_world(wa: int, wb: int) -> bool:
    # Whether elements of worlds wa and wb may touch: the same world, or either shared (-1).
    return wa < 0 or wb < 0 or wa == wb
