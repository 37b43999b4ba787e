"""bench/engine/rollout_python.py: issue 20's differentiable cloth rollout through the Python wp.sim
path, as Warp's optim examples write it, eager and captured into one CUDA graph.

    PYTHONPATH=build/python python3 bench/engine/rollout_python.py [--device cuda:0] [--sizes 32,128]
        [--repeat 5] [--tri-kd 5] [--steps 160] [--no-graph] [--profile]

The scene is bench/engine/rollout_bench.cpp's: an add_cloth_grid cloth of dim x dim cells (cell
0.05 m, mass 0.1 kg, tri_ke = tri_ka = 1e4, tri_kd), flat 0.2 m above the ground, moving at 1 m/s
in x; semi-implicit Euler, 160 substeps of 1/960 s, each into a new State; loss = sum of (x + 0.5 y)
over the last state's particles. Per size it prints:

- eager: the recorded forward (clear_forces + simulate per step and the loss, under wp.Tape) and
  tape.backward(loss), each synchronised, best of `repeat` after one warm-up;
- graph (cuda devices): the same forward and backward captured once in wp.ScopedCapture and
  replayed with wp.capture_launch, synchronised, best of `repeat` (tape.zero() between replays,
  not timed, as Warp's examples do between optimizer steps);
- memory: the peak bytes of all arrays during a pass less those held before the states were made
  (runtime/memory_stats.h), and d loss / d vx (summed over particles) of both modes.

--profile runs cProfile over one eager forward pass and prints the Python time per step.
"""

import argparse
import cProfile
import io
import math
import pstats
import sys
import time

import numpy as np

import weft as wp
import weft.sim  # noqa: F401

STEPS = 160
DT = 1.0 / 960.0


@wp.kernel
def rollout_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, q[i][0] + 0.5 * q[i][1])


def make_model(dim, device, tri_kd):
    builder = wp.sim.ModelBuilder(gravity=-9.81)
    builder.add_cloth_grid(pos=(0.0, 0.2, 0.0), rot=wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -math.pi * 0.5),
                           vel=(1.0, 0.0, 0.0), dim_x=dim, dim_y=dim, cell_x=0.05, cell_y=0.05, mass=0.1, tri_ke=1.0e4,
                           tri_ka=1.0e4, tri_kd=tri_kd)
    model = builder.finalize(device=device, requires_grad=True)
    model.ground = True
    return model


class Rollout:
    """The states, loss and tape of one differentiable rollout (Warp's example_cloth_throw shape)."""

    def __init__(self, model, integrator, steps):
        self.model, self.integrator, self.steps = model, integrator, steps
        self.states = [model.state() for _ in range(steps + 1)]
        self.loss = wp.zeros(1, dtype=float, device=model.device, requires_grad=True)
        self.tape = None

    def forward(self):
        for i in range(self.steps):
            self.states[i].clear_forces()
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], DT)
        wp.launch(rollout_loss, dim=self.model.particle_count, inputs=[self.states[-1].particle_q], outputs=[self.loss],
                  device=self.model.device)

    def forward_backward(self):
        self.loss.zero_()
        self.tape = wp.Tape()
        with self.tape:
            self.forward()
        self.tape.backward(self.loss)

    def grad_vx(self):
        return float(self.states[0].particle_qd.grad.numpy()[:, 0].sum())


def run_size(dim, device, repeat, tri_kd, steps, graph, profile):
    model = make_model(dim, device, tri_kd)
    integrator = wp.sim.SemiImplicitIntegrator()
    out = {"particles": model.particle_count}
    fwd_best = bwd_best = math.inf
    for rep in range(repeat + 1):  # rep 0 warms up: compiles and loads every module
        wp.synchronize_device(device)
        before = wp._weft.memory_stats()["live_bytes"]
        wp._weft.reset_peak_memory()
        r = Rollout(model, integrator, steps)
        r.loss.zero_()
        wp.synchronize_device(device)
        t = time.perf_counter()
        r.tape = wp.Tape()
        with r.tape:
            r.forward()
        wp.synchronize_device(device)
        fwd = time.perf_counter() - t
        t = time.perf_counter()
        r.tape.backward(r.loss)
        wp.synchronize_device(device)
        bwd = time.perf_counter() - t
        if rep > 0:
            fwd_best, bwd_best = min(fwd_best, fwd), min(bwd_best, bwd)
        out["eager_mib"] = (wp._weft.memory_stats()["peak_bytes"] - before) / 2**20
        out["loss"] = float(r.loss.numpy()[0])
        out["eager_grad_vx"] = r.grad_vx()
        del r
    out["eager_forward_ms"], out["eager_backward_ms"] = fwd_best * 1e3, bwd_best * 1e3
    if profile:
        r = Rollout(model, integrator, steps)
        prof = cProfile.Profile()
        tape = wp.Tape()
        with tape:
            prof.enable()
            r.forward()
            prof.disable()
        wp.synchronize_device(device)
        s = io.StringIO()
        stats = pstats.Stats(prof, stream=s)
        out["python_us_per_step"] = stats.total_tt / steps * 1e6
        stats.sort_stats("tottime").print_stats(12)
        out["profile"] = s.getvalue()
        del r, tape
    if graph and wp.get_device(device).is_cuda:
        wp.synchronize_device(device)
        before = wp._weft.memory_stats()["live_bytes"]
        wp._weft.reset_peak_memory()
        r = Rollout(model, integrator, steps)
        with wp.ScopedCapture(device) as capture:
            r.forward_backward()
        best = math.inf
        for rep in range(repeat + 1):  # replay 0 uploads the graph
            r.tape.zero()
            wp.synchronize_device(device)
            t = time.perf_counter()
            wp.capture_launch(capture.graph)
            wp.synchronize_device(device)
            if rep > 0:
                best = min(best, time.perf_counter() - t)
        out["graph_ms"] = best * 1e3
        out["graph_mib"] = (wp._weft.memory_stats()["peak_bytes"] - before) / 2**20
        out["graph_grad_vx"] = r.grad_vx()
        out["graph_nodes"] = capture.graph.node_count
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda:0" if wp.is_cuda_available() else "cpu")
    p.add_argument("--sizes", default="32,128")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--tri-kd", type=float, default=5.0)
    p.add_argument("--steps", type=int, default=STEPS)
    p.add_argument("--no-graph", action="store_true")
    p.add_argument("--profile", action="store_true")
    a = p.parse_args(argv)
    wp.init()
    print(f"differentiable cloth rollout from Python (wp.sim) on {a.device} ({a.steps} substeps, tri_kd {a.tri_kd:g}, "
          f"best of {a.repeat})\n")
    print("| cloth | particles | eager forward ms | eager backward ms | eager f+b ms | graph f+b ms | graph nodes | "
          "eager MiB | graph MiB | loss | eager d loss / d vx | graph d loss / d vx |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    profiles = []
    for dim in [int(s) for s in a.sizes.split(",")]:
        r = run_size(dim, a.device, max(1, a.repeat), a.tri_kd, a.steps, not a.no_graph, a.profile)
        g = lambda k, f="{:.2f}": f.format(r[k]) if k in r else "n/a"  # noqa: E731
        print(f"| {dim}x{dim} | {r['particles']} | {r['eager_forward_ms']:.2f} | {r['eager_backward_ms']:.2f} | "
              f"{r['eager_forward_ms'] + r['eager_backward_ms']:.2f} | {g('graph_ms')} | {g('graph_nodes', '{}')} | "
              f"{r['eager_mib']:.1f} | {g('graph_mib', '{:.1f}')} | {r['loss']:.6g} | {r['eager_grad_vx']:.6g} | "
              f"{g('graph_grad_vx', '{:.6g}')} |", flush=True)
        if "profile" in r:
            profiles.append((dim, r))
    for dim, r in profiles:
        print(f"\n{dim}x{dim}: Python time of the recorded forward pass under cProfile: "
              f"{r['python_us_per_step']:.1f} us per step\n\n{r['profile']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
