"""NVIDIA Warp 1.9.1's own core/example_fluid.py (256 x 128, 2 substeps a frame, 100 Jacobi
iterations) timed as the anchor of issue 18's smoke benchmark (bench/engine/smoke_bench.cpp
--cases warp2d runs Weft's step on the same grid beside it). Warp's Example class is imported from
the Warp source tree and run unchanged, three ways:

    eager        Example.step() with use_cuda_graph = False (every launch from Python)
    example      Example.step() as the example ships: the 100 pressure iterations in a CUDA graph
    full graph   one whole step (both substeps) captured once and replayed (Warp at its best;
                 the inflow's direction is frozen at the captured time, which does not change
                 the work)

    PYTHONPATH=<warp> python3 bench/warp/fluid_warp.py --steps 200

Prints ms per substep (the unit of bench/engine/smoke_bench's warp2d row: one dt). Read Warp's API
only; no Weft code here.
"""
import argparse
import contextlib
import io
import time

import warp as wp
from warp.examples.core import example_fluid


def timed(fn, steps):
    wp.synchronize()
    t = time.perf_counter()
    for _ in range(steps):
        fn()
    wp.synchronize()
    return (time.perf_counter() - t) * 1000.0 / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    wp.config.quiet = True
    wp.init()
    quiet = contextlib.redirect_stdout(io.StringIO())  # Example.step() prints a ScopedTimer line per call
    rows = []
    with wp.ScopedDevice("cuda:0"):
        ex = example_fluid.Example()
        substeps = ex.sim_substeps
        with quiet:
            ex.step()
            rows.append(("example (pressure iterations in a graph)", timed(ex.step, args.steps)))
            ex.use_cuda_graph = False
            ex.step()
            rows.append(("eager", timed(ex.step, args.steps)))
            with wp.ScopedCapture() as capture:
                ex.step()
            graph = capture.graph
            wp.capture_launch(graph)
            rows.append(("full graph (whole step captured)", timed(lambda: wp.capture_launch(graph), args.steps)))
    print(f"Warp {wp.config.version}, example_fluid 256 x 128, {ex.iterations} Jacobi iterations, {substeps} substeps a step,"
          f" {args.steps} steps\n")
    print("| Warp mode | ms / step | ms / substep |\n|---|---|---|")
    for name, ms in rows:
        print(f"| {name} | {ms:.3f} | {ms / substeps:.3f} |")


if __name__ == "__main__":
    main()
