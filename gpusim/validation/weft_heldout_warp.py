# gpusim/validation/weft_heldout_warp.py: a second held-out set, warp collectives (issue 21).
#
# Written with wp.shfl_*_sync and wp.ballot_sync, after gpusim's timing model (and its shfl
# latency and issue figures, gpusim/arch/*.json) was set; not yet measured on the H200. Like
# weft_heldout.py, it must never be used to set a parameter: measure it once (run_h200.sh
# heldout_warp), score it (compare.py --heldout R heldout_warp), and report it apart.
#
# bench/gpusim/weft_validate.cpp launches it (`--set heldout_warp`) with its case table.
#
# Kinds: a warp-shuffle reduction with one atomic per warp (against weft_heldout's per-thread
# atomics, the pattern a physics engine's energy or residual sum uses) and an inclusive warp scan
# with a ballot-counted compaction flag (the building block of stream compaction and sorting).
import weft as wp


# Sum of x: a shfl_down tree per warp, then one atomic per warp.
@wp.kernel
def warp_reduce_atomic(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    offset = 16
    while offset > 0:
        v += wp.shfl_down_sync(0xffffffff, v, offset)
        offset = offset // 2
    if wp.lane_id() == 0:
        wp.atomic_add(total, 0, v)


# Inclusive prefix sums within each warp (Hillis-Steele with shfl_up), the warp's total broadcast
# from lane 31, and the count of positive inputs in the warp from a ballot.
@wp.kernel
def warp_scan(x: wp.array(dtype=float), prefix: wp.array(dtype=float), warp_total: wp.array(dtype=float),
              positives: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    lane = wp.lane_id()
    for k in range(5):
        d = 1 << k
        t = wp.shfl_up_sync(0xffffffff, v, d)
        if lane >= d:
            v += t
    prefix[i] = v
    total = wp.shfl_sync(0xffffffff, v, 31)
    bits = wp.ballot_sync(0xffffffff, x[i] > 0.5)
    if lane == 0:
        warp_total[i // 32] = total
        n = int(0)
        for b in range(32):
            n += int((bits >> wp.uint32(b)) & wp.uint32(1))
        positives[i // 32] = n
