"""Smoke control by gradient descent on the initial velocity field (docs/smoke.md), the task of
NVIDIA Warp's optim/example_fluid_checkpoint.py on Weft's MAC grid.

A blob of density sits at (0.35, 0.40) of a unit square (2-D: a grid one cell deep, no buoyancy).
The initial velocity on every face is the parameter; the loss is the squared difference between
the density after STEPS steps and a blob at (0.60, 0.55). Each iteration runs the rollout under a
Tape through wp.checkpoint (about sqrt(STEPS) states alive instead of STEPS), takes the gradient of
the loss with respect to the initial smoke_u and smoke_v, and steps against it with Adam.

    python3 examples/sim_smoke_control.py                 # 16 x 16 cells, 100 steps, 30 iterations
    python3 examples/sim_smoke_control.py --iterations 5 --cells 24
"""
import argparse
import math

import numpy as np

import weft as wp
import weft.sim  # noqa: F401


@wp.kernel
def density_loss(density: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = density[i] - target[i]
    wp.atomic_add(loss, 0, d * d)


def blob(n, cx, cy, width=0.1):
    """A Gaussian blob of density on n x n cell centres (row j, column i: x fastest), as (1, n, n)."""
    x = (np.arange(n) + 0.5) / n
    xx, yy = np.meshgrid(x, x)
    return np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / width**2)[None].astype(np.float32)


class SmokeControl:
    def __init__(self, cells=16, steps=100, dt=0.04, advection="semi_lagrangian", device=None):
        b = wp.sim.ModelBuilder(gravity=0.0)
        b.set_smoke_grid((cells, cells, 1), 1.0 / cells, buoyancy=0.0, solver="mgpcg", tolerance=1.0e-6, advection=advection)
        b.set_smoke_fields(density=blob(cells, 0.35, 0.40))
        self.model = b.finalize(device=device, requires_grad=True)
        self.integrator = wp.sim.SmokeIntegrator()
        self.target = wp.array(blob(cells, 0.60, 0.55).ravel(), dtype=float, device=device)
        self.steps, self.dt, self.device = steps, dt, device
        start = self.model.state()
        self.u0 = wp.zeros(start.smoke_u.shape, dtype=float, device=device, requires_grad=True)
        self.v0 = wp.zeros(start.smoke_v.shape, dtype=float, device=device, requires_grad=True)

    def rollout(self, checkpointed=True):
        """The loss after `steps` steps from (u0, v0), and the Tape that recorded it."""
        s0, s1 = self.model.state(), self.model.state()
        loss = wp.zeros(1, dtype=float, device=self.device, requires_grad=True)
        tape = wp.Tape()
        with tape:
            # the parameters enter the rollout through recorded copies, so their gradients are
            # the initial state's
            wp.copy(s0.smoke_u, self.u0)
            wp.copy(s0.smoke_v, self.v0)
            if checkpointed:
                wp.checkpoint(lambda a, b: self.integrator.simulate(self.model, a, b, self.dt), self.steps, s0, s1)
            else:
                states = [s0] + [self.model.state() for _ in range(self.steps)]
                for k in range(self.steps):
                    self.integrator.simulate(self.model, states[k], states[k + 1], self.dt)
                s1 = states[-1]
            wp.launch(density_loss, dim=self.target.shape[0], inputs=[s1.smoke_density, self.target], outputs=[loss],
                      device=self.device)
        return loss, tape, s1

    def loss_and_gradient(self, checkpointed=True):
        loss, tape, _ = self.rollout(checkpointed)
        tape.backward(loss)
        gu, gv = self.u0.grad.numpy().copy(), self.v0.grad.numpy().copy()
        tape.zero()
        return float(loss.numpy()[0]), gu, gv


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--rate", type=float, default=0.05, help="Adam's step (m/s)")
    parser.add_argument("--advection", default="semi_lagrangian", help="or maccormack (docs/smoke.md)")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    c = SmokeControl(args.cells, args.steps, advection=args.advection, device=args.device)
    opt = wp.optim.Adam([c.u0, c.v0], lr=args.rate)
    first = None
    for it in range(args.iterations):
        loss, tape, _ = c.rollout()
        tape.backward(loss)
        value = float(loss.numpy()[0])
        first = value if first is None else first
        print(f"iteration {it:3d}  loss {value:.5f}  ({100.0 * value / first:.1f}% of the start)")
        opt.step([c.u0.grad, c.v0.grad])
        tape.zero()
    final, _, _ = c.rollout()
    value = float(final.numpy()[0])
    print(f"final loss {value:.5f}: {100.0 * value / first:.2f}% of the start after {args.iterations} iterations"
          f" ({math.isfinite(value) and 'finite' or 'NOT finite'})")


if __name__ == "__main__":
    main()
