"""bench/engine/cloth_python.py: issue 20's cloth frame through the Python wp.sim path: the scene of
bench/engine/cloth_bench.cpp (a dx x dx grid of particles 0.1 m apart, 0.1 kg, structural, bending and
shear springs ke = 1000, kd = 10, two corners fixed, no ground), 16 semi-implicit substeps of
1/960 s per frame, the positions copied to host memory each frame (pinned on cuda). Per size:

- eager: every substep's launches one by one;
- graph: the 16 substeps captured once with wp.ScopedCapture, replayed by wp.capture_launch;
- list: the same with wp.ScopedCapture(launch_list=True): one launch per frame
  (runtime/launch_list.h), and whether its positions are the graph's bits.

Median ms per frame over --frames frames after two warm-up frames, all modes in one process.

    PYTHONPATH=build/python python3 bench/engine/cloth_python.py [--device cuda:0] [--sizes 32,64,128]
        [--frames 60]
"""

import argparse
import time

import numpy as np

import weft as wp
import weft.sim  # noqa: F401

SUBSTEPS = 16
DT = 1.0 / (60.0 * SUBSTEPS)


def cloth(dx, device):
    b = wp.sim.ModelBuilder(gravity=-9.81)
    for z in range(dx):
        for x in range(dx):
            fixed = z == 0 and (x == 0 or x == dx - 1)
            b.add_particle((0.1 * x, 0.0, 0.1 * z), (0.0, 0.0, 0.0), 0.0 if fixed else 0.1)

    def at(x, z):
        return z * dx + x

    for z in range(dx):
        for x in range(dx):
            pairs = []
            if x + 1 < dx:
                pairs.append(at(x + 1, z))
            if z + 1 < dx:
                pairs.append(at(x, z + 1))
            if x + 2 < dx:
                pairs.append(at(x + 2, z))
            if z + 2 < dx:
                pairs.append(at(x, z + 2))
            for j in pairs:
                b.add_spring(at(x, z), j, 1000.0, 10.0)
            if x + 1 < dx and z + 1 < dx:
                b.add_spring(at(x, z), at(x + 1, z + 1), 1000.0, 10.0)
                b.add_spring(at(x + 1, z), at(x, z + 1), 1000.0, 10.0)
    model = b.finalize(device=device)
    model.ground = False
    return model


def time_mode(dx, device, mode, frames):
    model = cloth(dx, device)
    a, b = model.state(), model.state()
    integ = wp.sim.SemiImplicitIntegrator()
    host = wp.zeros(model.particle_count, dtype=wp.vec3, device="cpu", pinned=device.startswith("cuda"))

    def substeps():
        for _ in range(SUBSTEPS // 2):
            integ.simulate(model, a, b, DT)
            integ.simulate(model, b, a, DT)

    substeps()  # compiles or loads every kernel
    graph = None
    if mode != "eager":
        with wp.ScopedCapture(device, launch_list=(mode == "list")) as capture:
            substeps()
        graph = capture.graph
    times = []
    for f in range(frames + 2):
        t = time.perf_counter()
        if graph is None:
            substeps()
        else:
            wp.capture_launch(graph)
        wp.copy(host, a.particle_q)
        wp.synchronize_device(device)
        if f >= 2:
            times.append(time.perf_counter() - t)
    return 1000.0 * float(np.median(times)), host.numpy().copy(), (graph.blocks if mode == "list" else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--sizes", default="32,64,128")
    p.add_argument("--frames", type=int, default=60)
    args = p.parse_args()
    print(f"cloth frames (16 substeps) through Python wp.sim on {args.device}, median of {args.frames} frames\n")
    print("| particles | eager ms / frame | graph ms / frame | list ms / frame | list / graph (time) | list blocks | same bits |")
    print("|---|---|---|---|---|---|---|")
    for dx in [int(s) for s in args.sizes.split(",")]:
        eager, x_eager, _ = time_mode(dx, args.device, "eager", args.frames)
        # CUDA graphs exist on cuda devices only; elsewhere the list is compared with eager frames.
        graph, x_graph, _ = time_mode(dx, args.device, "graph", args.frames) if args.device.startswith("cuda") else \
            (eager, x_eager, 0)
        listed, x_list, blocks = time_mode(dx, args.device, "list", args.frames)
        same = np.array_equal(x_list.view(np.uint32), x_graph.view(np.uint32)) and \
            np.array_equal(x_eager.view(np.uint32), x_graph.view(np.uint32))
        print(f"| {dx}² = {dx * dx} | {eager:.3f} | {graph:.3f} | {listed:.3f} | {listed / graph:.2f} | {blocks} | "
              f"{'yes' if same else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
