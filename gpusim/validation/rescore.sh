#!/bin/bash
# gpusim/validation/rescore.sh OUT — score the current gpusim against every stored H200 measurement
# in one command, on this machine (no GPU): the calibration set (run 1's nvcc kernels and sweep,
# run 3's calibration launches, microbenchmarks and DRAM ramp, run 8's Weft kernels and atomic
# microbenchmarks) and the two held-out sets (run 8: heldout, heldout_warp). Writes OUT/calib.md,
# OUT/heldout.md and OUT/heldout_warp.md (compare.py's tables), the sim's JSONL beside the ncu
# files they are set against, and prints the summary lines.
#
#   cmake --build build -j2 --target gpusim_validate weft_validate
#   gpusim/validation/rescore.sh /tmp/rescore
#
# Run it before and after a change of the timing model or the SASS estimate: the scores in
# docs/gpusim.md are this script's. It does not set any parameter; the held-out set stays held out
# (read its table, do not tune against it). About 4 minutes on 2 cores.
set -eu
[ $# -eq 1 ] || { echo "usage: gpusim/validation/rescore.sh OUT" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
O=$1
mkdir -p "$O"
B=${WEFT_BUILD_DIR:-$root/build}
R=$root/bench/results/gpusim-h200
cd "$root"
"$B/bench/gpusim/gpusim_validate" "$B/bench/gpusim/validation_kernels.ptx" --threads 2 > "$O/sim.jsonl"
"$B/bench/gpusim/weft_validate" sim:h200 > "$O/sim_weft.jsonl"
"$B/bench/gpusim/weft_validate" sim:h200 --set heldout > "$O/sim_heldout.jsonl"
"$B/bench/gpusim/weft_validate" sim:h200 --set heldout_warp > "$O/sim_heldout_warp.jsonl"
cp "$R/ncu_kernels.csv" "$R/ncu_sweep.csv" "$R/2026-12-03-run3/ncu_calib.csv" "$O/"
N=$R/2026-12-06-run8  # the newest run: Weft and held-out kernels re-measured with today's PTX
cp "$N/ncu_weft.csv" "$N/weft_driver.txt" "$O/"
cp "$N/ncu_heldout.csv" "$N/heldout_driver.txt" "$N/ncu_heldout_warp.csv" "$N/heldout_warp_driver.txt" "$O/"
cat "$R/2026-12-03-run3/micro.txt" "$R/2026-12-06-run9/micro_atomics_median.txt" > "$O/micro.txt"  # run 9: the store and atomic rates, median of 3 rounds
/usr/bin/python3 gpusim/validation/compare.py "$O" "$O/micro.txt" "$R/2026-12-03-run3/ncu_ramp.csv" > "$O/calib.md"
/usr/bin/python3 gpusim/validation/compare.py --heldout "$O" > "$O/heldout.md"
/usr/bin/python3 gpusim/validation/compare.py --heldout "$O" heldout_warp > "$O/heldout_warp.md"
echo "== calibration set"
grep -E "^Cycles|^Pearson|^SASS estimate|^Weft kernels alone" "$O/calib.md"
echo "== held-out set"
grep -E "^Cycles|^SASS estimate|^Pair|^Variant" "$O/heldout.md"
echo "== held-out set 2 (warp collectives)"
grep -E "^Cycles|^SASS estimate|^Pair|^Variant" "$O/heldout_warp.md"
