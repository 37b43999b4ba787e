"""Bounce: optimise a particle's initial velocity so that it ends at a target after bouncing off
the ground and a wall (warp/examples/optim/example_bounce.py, ported by changing the import).

    PYTHONPATH=build/python /usr/bin/python3 examples/sim_bounce.py

0.6 s at 60 frames per second, 8 substeps per frame (288 semi-implicit steps of 1/480 s); soft
contact ke = 1e4, kd = 10, mu = 0.2. The loss is the squared distance of the final position to
the target; its gradient in the initial velocity comes from the Tape through every contact.
"""
import numpy as np

import weft as wp
import weft.sim  # noqa: F401  (wp.sim)

TARGET = (-2.0, 1.5, 0.0)
FPS, SUBSTEPS, SECONDS = 60, 8, 0.6


@wp.kernel
def distance_loss(pos: wp.array(dtype=wp.vec3), target: wp.vec3, loss: wp.array(dtype=float)):
    delta = pos[0] - target
    loss[0] = wp.dot(delta, delta)


class Bounce:
    def __init__(self, device=None):
        b = wp.sim.ModelBuilder()
        b.add_particle(pos=(-0.5, 1.0, 0.0), vel=(5.0, -5.0, 0.0), mass=1.0, radius=0.1)
        # the wall's material is the particle contact's, as in Warp's example_bounce (particle-shape
        # contact averages the two)
        b.add_shape_box(body=-1, pos=(2.0, 1.0, 0.0), hx=0.25, hy=1.0, hz=1.0, ke=1.0e4, kd=10.0, kf=0.0, mu=0.2)
        self.model = b.finalize(device=device, requires_grad=True)
        self.model.soft_contact_ke = 1.0e4
        self.model.soft_contact_kd = 10.0
        self.model.soft_contact_kf = 0.0
        self.model.soft_contact_mu = 0.2
        self.dt = 1.0 / (FPS * SUBSTEPS)
        self.steps = int(round(SECONDS * FPS * SUBSTEPS))
        self.device = device
        self.integrator = wp.sim.SemiImplicitIntegrator()
        # One state per step: the Tape replays every step backwards from its own arrays.
        self.states = [self.model.state() for _ in range(self.steps + 1)]
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def forward(self, velocity):
        self.states[0].particle_qd.assign(np.asarray(velocity, dtype=np.float32).reshape(1, 3))
        for i in range(self.steps):
            self.states[i].clear_forces()
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], self.dt)
        wp.launch(distance_loss, dim=1, inputs=[self.states[-1].particle_q, TARGET], outputs=[self.loss], device=self.device)
        return float(self.loss.numpy()[0])

    def loss_and_gradient(self, velocity):
        tape = wp.Tape()
        with tape:
            loss = self.forward(velocity)
        tape.backward(self.loss)
        grad = self.states[0].particle_qd.grad.numpy()[0].astype(np.float64)
        tape.zero()
        return loss, grad

    def final_position(self):
        return self.states[-1].particle_q.numpy()[0]


def optimise(iterations=30, rate=0.1, device=None, verbose=False):
    """Gradient descent on the initial velocity; returns (velocities, losses)."""
    sim = Bounce(device)
    v = np.array([5.0, -5.0, 0.0])
    velocities, losses = [], []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient(v)
        velocities.append(v.copy())
        losses.append(loss)
        if verbose:
            print(f"iteration {it:3d}  loss {loss:.6f}  velocity {v}  gradient {grad}")
        v = v - rate * grad
    return velocities, losses, sim


if __name__ == "__main__":
    _, losses, sim = optimise(verbose=True)
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.6f}; final position {sim.final_position()}, target {TARGET}")
