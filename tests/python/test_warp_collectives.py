"""Warp collectives from Python on cpu and sim:h200, against numpy: a shuffle reduction and an
inclusive scan per warp, ballot/any/all on random predicates, the edge lanes of shfl_up and
shfl_down, and the gradient of a shuffle kernel through wp.Tape against central differences."""
import numpy as np
import pytest

import weft as wp

DEVICES = ["cpu", "sim:h200"]
rng = np.random.default_rng(21)


@wp.kernel
def warp_sum_and_scan(x: wp.array(dtype=float), sums: wp.array(dtype=float), scan: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    lane = wp.lane_id()
    s = v
    for k in range(5):
        d = 1 << k
        t = wp.shfl_up_sync(0xffffffff, s, d)
        if lane >= d:
            s += t
    scan[i] = s
    offset = wp.warp_size() // 2
    while offset > 0:
        v += wp.shfl_down_sync(0xffffffff, v, offset)
        offset = offset // 2
    if lane == 0:
        sums[i // 32] = v


@pytest.mark.parametrize("device", DEVICES)
def test_reduction_and_scan_match_numpy(device):
    n = 256
    x_np = rng.standard_normal(n).astype(np.float32)
    x = wp.array(x_np, device=device)
    sums = wp.zeros(n // 32, dtype=float, device=device)
    scan = wp.zeros(n, dtype=float, device=device)
    wp.launch(warp_sum_and_scan, dim=n, inputs=[x, sums, scan], device=device)
    warps = x_np.astype(np.float64).reshape(-1, 32)
    np.testing.assert_allclose(sums.numpy(), warps.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scan.numpy(), np.cumsum(warps, axis=1).reshape(-1), rtol=1e-5, atol=1e-5)


@wp.kernel
def votes(p: wp.array(dtype=int), ballot: wp.array(dtype=wp.uint32), anyv: wp.array(dtype=int), allv: wp.array(dtype=int)):
    i = wp.tid()
    pred = p[i] != 0
    ballot[i] = wp.ballot_sync(0xffffffff, pred)
    anyv[i] = 0
    allv[i] = 0
    if wp.any_sync(0xffffffff, pred):
        anyv[i] = 1
    if wp.all_sync(0xffffffff, pred):
        allv[i] = 1


@pytest.mark.parametrize("device", DEVICES)
def test_votes_match_numpy(device):
    n = 32 * 6
    p_np = (rng.random(n) < 0.3).astype(np.int32)
    p_np[:32] = 0  # a warp with no true predicate
    p_np[32:64] = 1  # and one with all true
    p = wp.array(p_np, device=device)
    ballot = wp.zeros(n, dtype=wp.uint32, device=device)
    anyv = wp.zeros(n, dtype=int, device=device)
    allv = wp.zeros(n, dtype=int, device=device)
    wp.launch(votes, dim=n, inputs=[p, ballot, anyv, allv], device=device)
    bits = p_np.reshape(-1, 32).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    want = np.repeat(bits.sum(axis=1).astype(np.uint32), 32)
    np.testing.assert_array_equal(ballot.numpy(), want)
    np.testing.assert_array_equal(anyv.numpy(), np.repeat(p_np.reshape(-1, 32).any(axis=1), 32).astype(np.int32))
    np.testing.assert_array_equal(allv.numpy(), np.repeat(p_np.reshape(-1, 32).all(axis=1), 32).astype(np.int32))


@wp.kernel
def up_down(x: wp.array(dtype=float), d: int, up: wp.array(dtype=float), down: wp.array(dtype=float)):
    i = wp.tid()
    up[i] = wp.shfl_up_sync(0xffffffff, x[i], d)
    down[i] = wp.shfl_down_sync(0xffffffff, x[i], d)


@pytest.mark.parametrize("device", DEVICES)
def test_shfl_up_and_down_edge_lanes_keep_their_own_value(device):
    n = 64
    x_np = np.arange(n, dtype=np.float32) * 1.5
    x = wp.array(x_np, device=device)
    lane = np.arange(n) % 32
    for d in (1, 7, 31):
        up = wp.zeros(n, dtype=float, device=device)
        down = wp.zeros(n, dtype=float, device=device)
        wp.launch(up_down, dim=n, inputs=[x, d, up, down], device=device)
        idx = np.arange(n)
        np.testing.assert_array_equal(up.numpy(), x_np[np.where(lane >= d, idx - d, idx)])
        np.testing.assert_array_equal(down.numpy(), x_np[np.where(lane + d <= 31, idx + d, idx)])


@wp.kernel
def shuffled_energy(x: wp.array(dtype=wp.float64), e: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i] * x[i]
    for k in range(5):
        v += wp.shfl_xor_sync(0xffffffff, v, 1 << k) * wp.float64(0.5)
    w = wp.shfl_down_sync(0xffffffff, wp.sin(x[i]), 3)
    wp.atomic_add(e, 0, v * w)


def test_gradient_through_shuffles_matches_central_differences():
    n = 64
    x_np = rng.uniform(-1.0, 1.0, n)

    def energy(xv):
        x = wp.array(xv, dtype=wp.float64)
        e = wp.zeros(1, dtype=wp.float64)
        wp.launch(shuffled_energy, dim=n, inputs=[x, e])
        return e.numpy()[0]

    x = wp.array(x_np, dtype=wp.float64, requires_grad=True)
    e = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(shuffled_energy, dim=n, inputs=[x, e])
    tape.backward(loss=e)
    grad = x.grad.numpy()
    h = 1e-6
    fd = np.array([(energy(x_np + h * np.eye(n)[k]) - energy(x_np - h * np.eye(n)[k])) / (2 * h) for k in range(n)])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
