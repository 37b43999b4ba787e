#!/bin/bash
# gpusim/validation/run_h200.sh — the one device call of the validation (run from the repo root
# on the H200 machine): builds the microbenchmarks and the validation driver with nvcc, runs the
# microbenchmarks, then profiles every validation launch with ncu (clocks left alone).
# Writes to $OUT: micro.txt, ncu_sweep.csv, ncu_kernels.csv, ncu_calib.csv, ncu_ramp.csv, driver.txt, sass.txt, env.txt,
# ncu_sass_source.csv (per SASS instruction: executed warp instructions, with its PTX/source
# line: checks gpusim/sass/sass_map.h's attribution instruction by instruction; not used to calibrate).
#
#   run_h200.sh [all|cuda|weft|heldout|heldout_warp]     (default all; the held-out sets only when named)
#   SKIP_SASS=1: the held-out and weft phases skip the per-SASS-instruction page (the slowest ncu pass)
#     cuda  the above: kernels.cu's launches (nvcc)
#     weft  builds Weft here (no LLVM) and profiles bench/gpusim/weft_validate on cuda:0: the
#           Weft kernels of weft_kernels.py as Weft compiles them. Writes weft_driver.txt
#           (`ptx HASH`, then `case ID SYMBOL CHECKSUM` per launch), ncu_weft.csv (the KERN
#           metrics below), ncu_weft_sass_source.csv (per SASS instruction) and weft_build.log.
#     heldout the held-out set (weft_validate --set heldout: gpusim/validation/weft_heldout.py),
#           measured once and never used to set a parameter (issue 21): heldout_driver.txt,
#           ncu_heldout.csv, ncu_heldout_sass_source.csv.
#     heldout_warp the second held-out set (weft_heldout_warp.py, warp collectives), the same way:
#           heldout_warp_driver.txt, ncu_heldout_warp.csv, ncu_heldout_warp_sass_source.csv.
set -u
PHASE=${1:-all}
V=gpusim/validation
B=/tmp/gpusim-validation
mkdir -p $B "$OUT"
NVCC=/usr/local/cuda/bin/nvcc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv; $NVCC --version | tail -1; $NCU --version | tail -1; } > "$OUT/env.txt" 2>&1
SWEEP=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed.sum
KERN=gpc__cycles_elapsed.max,sm__cycles_elapsed.max,sm__cycles_active.avg,gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
KERN=$KERN,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
KERN=$KERN,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
KERN=$KERN,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
KERN=$KERN,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
KERN=$KERN,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
KERN=$KERN,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread
KERN=$KERN,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks
for s in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle wait math_pipe_throttle not_selected selected; do
  KERN=$KERN,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
if [ "$PHASE" = all ] || [ "$PHASE" = cuda ]; then
$NVCC -arch=sm_90 -std=c++17 -O2 $V/microbench.cu -o $B/microbench || exit 1
$NVCC -arch=sm_90 -std=c++17 -O2 -lineinfo $V/gpu_driver.cu -o $B/gpu_driver || exit 1
/usr/local/cuda/bin/cuobjdump -sass $B/gpu_driver > "$OUT/sass.txt" 2>&1
$B/microbench > "$OUT/micro.txt" 2>&1
cat "$OUT/micro.txt"
timeout 200 $NCU --clock-control none --csv --page raw --metrics $SWEEP --log-file "$OUT/ncu_sweep.csv" $B/gpu_driver sweep > "$OUT/driver.txt" 2>&1
echo "sweep rc=$?"
timeout 300 $NCU --clock-control none --csv --page raw --metrics $KERN --log-file "$OUT/ncu_kernels.csv" $B/gpu_driver kernel >> "$OUT/driver.txt" 2>&1
rc=$?
echo "kernels rc=$rc"
if [ $rc -ne 0 ] || ! grep -q vec_add "$OUT/ncu_kernels.csv"; then
  tail -5 "$OUT/driver.txt"
  timeout 200 $NCU --clock-control none --csv --page raw --metrics gpc__cycles_elapsed.max,smsp__inst_executed.sum,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread --log-file "$OUT/ncu_kernels.csv" $B/gpu_driver kernel >> "$OUT/driver.txt" 2>&1
  echo "fallback rc=$?"
fi
timeout 60 $NCU --clock-control none --csv --page raw --metrics gpc__cycles_elapsed.max,sm__cycles_elapsed.max,gpu__time_duration.sum --log-file "$OUT/ncu_calib.csv" $B/gpu_driver calib >> "$OUT/driver.txt" 2>&1
echo "calib rc=$?"
# DRAM ramp (cases.h group "ramp"): cycles of one and four waves with 1..16 loads in flight per
# thread, checks dram.loaded_latency (with micro.txt's dram_loaded_* chase); never scored.
RAMP=gpc__cycles_elapsed.max,sm__cycles_active.avg,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
RAMP=$RAMP,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
timeout 90 $NCU --clock-control none --csv --page raw --metrics $RAMP --log-file "$OUT/ncu_ramp.csv" $B/gpu_driver ramp >> "$OUT/driver.txt" 2>&1
echo "ramp rc=$?"
# Per-SASS-instruction execution counts of the scored kernels (SourceCounters), for checking the
# SASS estimate's attribution; the sass.txt disassembly (cuobjdump -sass) goes with it.
timeout 240 $NCU --clock-control none --section SourceCounters --csv --page source --print-source sass \
  --log-file "$OUT/ncu_sass_source.csv" $B/gpu_driver kernel >> "$OUT/driver.txt" 2>&1
echo "sass source rc=$?"
wc -l "$OUT"/*.csv
tail -3 "$OUT/driver.txt"
fi

if [ "$PHASE" = all ] || [ "$PHASE" = weft ] || [ "$PHASE" = heldout ] || [ "$PHASE" = heldout_warp ]; then
  WB=${WEFT_BUILD:-/tmp/weft-validate-build}
  { cmake -S . -B $WB -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_WITH_LLVM=OFF -DWEFT_WITH_PYTHON=OFF -DWEFT_WITH_VIEWER=OFF \
      -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_BENCH=ON && ninja -C $WB weft_validate; } > "$OUT/weft_build.log" 2>&1 || { tail -20 "$OUT/weft_build.log"; exit 1; }
fi
if [ "$PHASE" = heldout ] || [ "$PHASE" = heldout_warp ]; then
  S=$PHASE  # the set: heldout (weft_heldout.py) or heldout_warp (weft_heldout_warp.py); files are named after it
  W="$WB/bench/gpusim/weft_validate cuda:0 --set $S"
  $W > "$OUT/${S}_driver.txt" 2>&1  # fills the disk cache: NVRTC does not run under ncu
  echo "$S driver rc=$?"
  timeout 300 $NCU --clock-control none --csv --page raw --metrics $KERN --log-file "$OUT/ncu_${S}.csv" $W >> "$OUT/${S}_ncu.txt" 2>&1
  echo "$S kernels rc=$?"
  if [ -z "${SKIP_SASS:-}" ]; then
    timeout 240 $NCU --clock-control none --section SourceCounters --csv --page source --print-source sass \
      --log-file "$OUT/ncu_${S}_sass_source.csv" $W >> "$OUT/${S}_ncu.txt" 2>&1
    echo "$S sass source rc=$?"
  fi
  wc -l "$OUT"/ncu_${S}*.csv
  tail -3 "$OUT/${S}_driver.txt"
fi
if [ "$PHASE" = all ] || [ "$PHASE" = weft ]; then
  W="$WB/bench/gpusim/weft_validate cuda:0"
  $W > "$OUT/weft_driver.txt" 2>&1  # also fills the disk cache: NVRTC does not run under ncu
  echo "weft driver rc=$?"
  timeout 300 $NCU --clock-control none --csv --page raw --metrics $KERN --log-file "$OUT/ncu_weft.csv" $W >> "$OUT/weft_ncu.txt" 2>&1
  echo "weft kernels rc=$?"
  if [ -z "${SKIP_SASS:-}" ]; then
    timeout 240 $NCU --clock-control none --section SourceCounters --csv --page source --print-source sass \
      --log-file "$OUT/ncu_weft_sass_source.csv" $W >> "$OUT/weft_ncu.txt" 2>&1
    echo "weft sass source rc=$?"
  fi
  wc -l "$OUT"/ncu_weft*.csv
  tail -3 "$OUT/weft_driver.txt"
fi
