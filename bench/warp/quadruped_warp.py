"""The quadruped of bench/engine/worlds_bench.cpp in NVIDIA Warp 1.9.1's warp.sim, as the anchor of
issue 17's batched-worlds benchmark: the same bodies, shapes, hinges, drives, attachment stiffness
and step, copied into N worlds with add_builder, stepped by Warp's SemiImplicitIntegrator with
wp.sim.collide every substep (as Warp's examples do), frames of 50 substeps captured once as a
CUDA graph and replayed (Warp at its best). With --integrator featherstone the torso gets a free
joint (one articulation per world) and Warp's FeatherstoneIntegrator steps it, as
worlds_bench --integrator featherstone does; with --integrator xpbd Warp's XPBDIntegrator (its
defaults) steps the bodies, as worlds_bench --integrator xpbd does. Run on the GPU machine with Warp built from source:

    PYTHONPATH=<warp> python3 bench/warp/quadruped_warp.py --worlds 1,64,4096 --steps 500 [--integrator featherstone|xpbd]

Prints the same table as worlds_bench. Read Warp's API only; no Weft code here.
"""
import argparse
import math
import time

import numpy as np
import warp as wp
import warp.sim

DT = 2.0e-4
SUBSTEPS = 50


def quadruped(floating_base):
    b = wp.sim.ModelBuilder()
    hip_y = 0.62
    torso = b.add_body(origin=wp.transform((0.0, hip_y, 0.0), wp.quat_identity()))
    b.add_shape_box(torso, hx=0.3, hy=0.06, hz=0.15, density=1000.0)
    if floating_base:
        b.add_articulation()  # Warp's FeatherstoneIntegrator steps the joints of articulations only
        b.add_joint_free(torso, parent_xform=wp.transform((0.0, hip_y, 0.0), wp.quat_identity()))
    for lx, lz in ((0.25, 0.2), (0.25, -0.2), (-0.25, 0.2), (-0.25, -0.2)):
        thigh = b.add_body(origin=wp.transform((lx, hip_y - 0.15, lz), wp.quat_identity()))
        b.add_shape_box(thigh, hx=0.04, hy=0.15, hz=0.04, density=1000.0)
        shin = b.add_body(origin=wp.transform((lx, hip_y - 0.45, lz), wp.quat_identity()))
        b.add_shape_box(shin, hx=0.035, hy=0.15, hz=0.035, density=1000.0)
        drive = dict(axis=(0.0, 0.0, 1.0), target=0.0, target_ke=1500.0, target_kd=20.0,
                     mode=wp.sim.JOINT_MODE_TARGET_POSITION, limit_lower=-1.2, limit_upper=1.2)
        b.add_joint_revolute(torso, thigh, parent_xform=wp.transform((lx, 0.0, lz), wp.quat_identity()),
                             child_xform=wp.transform((0.0, 0.15, 0.0), wp.quat_identity()), **drive)
        b.add_joint_revolute(thigh, shin, parent_xform=wp.transform((0.0, -0.15, 0.0), wp.quat_identity()),
                             child_xform=wp.transform((0.0, 0.15, 0.0), wp.quat_identity()), **drive)
    return b


def run(n, steps, integrator_name):
    one = quadruped(integrator_name == "featherstone")
    b = wp.sim.ModelBuilder()
    side = int(math.ceil(math.sqrt(n)))
    for w in range(n):
        b.add_builder(one, xform=wp.transform((2.0 * (w % side), 0.0, 2.0 * (w // side)), wp.quat_identity()))
    model = b.finalize()
    model.ground = True
    model.joint_attach_ke = 1.0e4
    model.joint_attach_kd = 100.0
    if integrator_name == "featherstone":
        integrator = wp.sim.FeatherstoneIntegrator(model)
    elif integrator_name == "xpbd":
        integrator = wp.sim.XPBDIntegrator()
    else:
        integrator = wp.sim.SemiImplicitIntegrator()
    s0, s1 = model.state(), model.state()
    control = model.control()

    def frame():
        nonlocal s0, s1
        for _ in range(SUBSTEPS):
            s0.clear_forces()
            wp.sim.collide(model, s0)
            integrator.simulate(model, s0, s1, DT, control)
            s0, s1 = s1, s0

    frame()  # warm-up: compiles and loads the kernels
    with wp.ScopedCapture() as capture:
        frame()
    graph = capture.graph
    wp.capture_launch(graph)
    wp.synchronize()
    frames = max(1, steps // SUBSTEPS)
    t = time.perf_counter()
    for _ in range(frames):
        wp.capture_launch(graph)
    wp.synchronize()
    ms = (time.perf_counter() - t) * 1000.0 / (frames * SUBSTEPS)
    q = s0.body_q.numpy()
    if not np.all(np.isfinite(q)):
        raise SystemExit("quadruped_warp: the quadrupeds diverged")
    return ms, float(q[0][1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--worlds", default="1,64,4096")
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--integrator", choices=["semi_implicit", "featherstone", "xpbd"], default="semi_implicit")
    a = p.parse_args()
    wp.init()
    name = {"featherstone": "FeatherstoneIntegrator", "xpbd": "XPBDIntegrator"}.get(a.integrator, "SemiImplicitIntegrator")
    print(f"Warp {wp.config.version} on {wp.get_device()}: quadruped, {name} + collide, dt {DT:.1e} s, "
          f"frames of {SUBSTEPS} substeps as one CUDA graph, {a.steps} steps\n")
    print("| worlds | ms / step | world-steps / s | torso height after (m) |\n|---|---|---|---|")
    for n in (int(x) for x in a.worlds.split(",")):
        ms, y = run(n, a.steps, a.integrator)
        print(f"| {n} | {ms:.4f} | {1000.0 * n / ms:.0f} | {y:.3f} |", flush=True)


if __name__ == "__main__":
    main()
