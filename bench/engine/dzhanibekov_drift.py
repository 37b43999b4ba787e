"""bench/engine/dzhanibekov_drift.py: how a free box's angular momentum drifts under the Featherstone
integrator (RK4, float32 state) as the time step changes, to tell round-off from truncation error.

    PYTHONPATH=build/python /usr/bin/python3 bench/engine/dzhanibekov_drift.py

The box (0.6 x 0.3 x 0.1 m, 1000 kg/m^3) spins at 6 rad/s about its intermediate axis (y) with a
0.02 rad/s perturbation about x, as tests/engine/featherstone_test.cpp's Dzhanibekov test, for 4 s on
the CPU device; it flips about once a second. For each dt, prints |L(t) - L0| / |L0| (L = R I R^T w,
world frame, in float64 from the float32 state) at each eighth of the run. Drift that grows as dt
shrinks (more steps) is round-off accumulating, not the integrator's truncation error.
"""
import sys

import numpy as np

import weft as wp
import weft.sim  # noqa: F401


def momentum(s, inertia):
    q = s.body_q.numpy()[0].astype(np.float64)
    w = s.body_qd.numpy()[0][:3].astype(np.float64)
    x, y, z, ww = q[3:]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * ww), 2 * (x * z + y * ww)],
                  [2 * (x * y + z * ww), 1 - 2 * (x * x + z * z), 2 * (y * z - x * ww)],
                  [2 * (x * z - y * ww), 2 * (y * z + x * ww), 1 - 2 * (x * x + y * y)]])
    return R @ inertia @ R.T @ w


def drift(dt, seconds):
    b = wp.sim.ModelBuilder(gravity=0.0)
    body = b.add_body(origin=wp.transform((0.0, 2.0, 0.0), wp.quat_identity()))
    b.add_shape_box(body=body, hx=0.3, hy=0.15, hz=0.05, density=1000.0)
    b.add_joint_free(body, parent_xform=wp.transform((0.0, 2.0, 0.0), wp.quat_identity()))
    b.joint_qd = [0.02, 6.0, 0.0, 0.0, 0.0, 0.0]
    m = b.finalize(device="cpu")
    m.ground = False
    it = wp.sim.FeatherstoneIntegrator(m, integrator="rk4")
    inertia = m.body_inertia.numpy()[0].astype(np.float64)
    s0, s1 = m.state(), m.state()
    it.simulate(m, s0, s1, dt)
    s0, s1 = s1, s0
    L0 = momentum(s0, inertia)
    n = int(seconds / dt)
    out = []
    for k in range(n):
        it.simulate(m, s0, s1, dt)
        s0, s1 = s1, s0
        if (k + 1) % (n // 8) == 0:
            out.append(np.linalg.norm(momentum(s0, inertia) - L0) / np.linalg.norm(L0))
    return out


if __name__ == "__main__":
    for dt in (2e-3, 1e-3, 5e-4):
        print(dt, ["%.1e" % x for x in drift(dt, 4.0)])
        sys.stdout.flush()
