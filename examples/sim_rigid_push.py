"""A rigid push (docs/rigid-bodies.md): a 0.2 m box on the ground is given a push, an initial
velocity along x, and slides on Coulomb friction (mu 0.5 against the ground) until it stops.
Gradient descent on that velocity, with its gradient from the Tape through every contact of the
rollout, brings the box's final position to a target 0.4 m away. Analytically the box stops after
v^2 / (2 mu g), so the answer is v = sqrt(2 mu g d) = 1.98 m/s (a little more: the penalty
contact's viscous friction slows it less than Coulomb friction while it is slow). With
--integrator xpbd the friction is positional Coulomb friction (docs/rigid-bodies.md, XPBD) and the
answer is the analytic one.

    python3 examples/sim_rigid_push.py                      # prints each iteration
    python3 examples/sim_rigid_push.py --integrator xpbd
"""
import argparse

import numpy as np

import weft as wp
import weft.sim  # noqa: F401

TARGET = 0.4  # m, final x of the box's centre
SECONDS, DT = 0.5, 1.0e-3


@wp.kernel
def x_loss(body_q: wp.array(dtype=wp.transform), target: float, loss: wp.array(dtype=float)):
    d = wp.transform_get_translation(body_q[0])[0] - target
    loss[0] = d * d


class Push:
    def __init__(self, device=None, integrator="semi_implicit"):
        b = wp.sim.ModelBuilder(gravity=-9.81)
        b.set_ground_plane(mu=0.5)
        # at rest: the penalty contact's depth (semi-implicit), or touching (XPBD)
        y = 0.0998 if integrator == "semi_implicit" else 0.1
        box = b.add_body(origin=((0.0, y, 0.0), (0.0, 0.0, 0.0, 1.0)))
        b.add_shape_box(body=box, hx=0.1, hy=0.1, hz=0.1, mu=0.5, kd=1.0e3)
        self.model = b.finalize(device=device, requires_grad=True)
        self.device = device
        self.steps = int(round(SECONDS / DT))
        if integrator not in ("semi_implicit", "xpbd"):
            raise ValueError(f"integrator must be 'semi_implicit' or 'xpbd', got {integrator!r}")
        self.integrator = wp.sim.SemiImplicitIntegrator() if integrator == "semi_implicit" else wp.sim.XPBDIntegrator()
        self.states = [self.model.state() for _ in range(self.steps + 1)]
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def forward(self, vx):
        self.states[0].body_qd.assign(np.array([[0.0, 0.0, 0.0, vx, 0.0, 0.0]], dtype=np.float32))
        for i in range(self.steps):
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], DT)
        wp.launch(x_loss, dim=1, inputs=[self.states[-1].body_q, TARGET], outputs=[self.loss], device=self.device)
        return float(self.loss.numpy()[0])

    def loss_and_gradient(self, vx):
        tape = wp.Tape()
        with tape:
            loss = self.forward(vx)
        tape.backward(self.loss)
        grad = float(self.states[0].body_qd.grad.numpy()[0][3])
        tape.zero()
        return loss, grad

    def final_x(self):
        return float(self.states[-1].body_q.numpy()[0][0])


def optimise(iterations=12, rate=1.5, device=None, verbose=False, integrator="semi_implicit"):
    sim = Push(device, integrator)
    vx = 1.0
    losses = []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient(vx)
        losses.append(loss)
        if verbose:
            print(f"iteration {it:2d}  loss {loss:.3e}  push {vx:.4f} m/s  gradient {grad:.4f}")
        vx -= rate * grad
    return vx, losses, sim


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--integrator", choices=("semi_implicit", "xpbd"), default="semi_implicit")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    vx, losses, sim = optimise(verbose=True, device=args.device, integrator=args.integrator)
    print(f"push {vx:.4f} m/s: the box stops at x = {sim.final_x():.4f} m (target {TARGET} m)")
