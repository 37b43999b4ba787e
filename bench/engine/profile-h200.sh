#!/usr/bin/env bash
# bench/engine/profile-h200.sh: where a cloth_benchmark frame's time goes on a CUDA machine.
#   OUT=/tmp/out bench/engine/profile-h200.sh
# Builds cloth_bench (Release, no CPU JIT, no Python), times 256² and 512² frames with the copy to
# the host separated, and profiles one 512² substep's kernels with Nsight Compute.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/weft-profile}
BUILD=${BUILD:-/tmp/weft-profile-build}
mkdir -p "$OUT"
export WEFT_CACHE_DIR=$BUILD/weft-cache
rm -rf "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_WITH_LLVM=OFF -DWEFT_WITH_PYTHON=OFF \
    -DWEFT_WITH_VIEWER=OFF > "$OUT/configure.log" 2>&1
ninja -C "$BUILD" -j"$(nproc)" cloth_bench > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
"$BUILD/bench/engine/cloth_bench" --device cuda:0 --sizes 32,256,512 --frames 30 > "$OUT/cloth.md" 2>&1
cat "$OUT/cloth.md"
# one frame of warm-up (16 substeps x ~5 launches) is skipped, then 12 launches profiled
ncu --clock-control none --launch-skip 120 --launch-count 12 --section SpeedOfLight --section LaunchStats \
    --section Occupancy --section MemoryWorkloadAnalysis \
    "$BUILD/bench/engine/cloth_bench" --device cuda:0 --sizes 512 --frames 2 > "$OUT/ncu_512.txt" 2>&1
grep -E "^  [a-z_]+|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|L2 Hit|Mem Busy" "$OUT/ncu_512.txt" | head -150
