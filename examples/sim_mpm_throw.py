"""MPM throw, the DiffTaichi task: optimise the initial velocity of an elastic MLS-MPM block so
that its centre of mass lands on a target (Hu et al. 2020, DiffTaichi, section 5; docs/mpm.md).

    PYTHONPATH=build/python /usr/bin/python3 examples/sim_mpm_throw.py

A 0.15 m cube of fixed-corotated material (E = 2e4 Pa, nu = 0.3, 1000 kg/m^3; 216 particles, 2
per cell along each axis) in a 1 m box of 20^3 cells with slip walls, under gravity, one velocity
for every particle. After 120 steps of dt = 2 ms the loss is the squared distance of the centre
of mass to the target; its gradient in the shared initial velocity is the sum of the Tape's
per-particle gradients, and plain gradient descent follows it.
"""
import numpy as np

import weft as wp
import weft.sim  # noqa: F401

TARGET = (0.6, 0.32, 0.55)


@wp.kernel
def centre_of_mass(pos: wp.array(dtype=wp.vec3), weight: float, com: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(com, 0, pos[i] * weight)


@wp.kernel
def distance_loss(com: wp.array(dtype=wp.vec3), target: wp.vec3, loss: wp.array(dtype=float)):
    delta = com[0] - target
    loss[0] = wp.dot(delta, delta)


class MpmThrow:
    def __init__(self, device=None, steps=120, dt=2.0e-3):
        b = wp.sim.ModelBuilder(gravity=-9.8)
        b.set_mpm_grid(dx=0.05, cells=(20, 20, 20), boundary="slip")
        b.add_mpm_box(lo=(0.2, 0.3, 0.4), hi=(0.35, 0.45, 0.55), material="fixed_corotated", E=2.0e4, nu=0.3,
                      density=1000.0)
        self.model = b.finalize(device=device, requires_grad=True)
        self.n = self.model.particle_count
        self.device, self.steps, self.dt = device, steps, dt
        self.integrator = wp.sim.MPMIntegrator()
        self.states = [self.model.state() for _ in range(steps + 1)]
        self.com = wp.zeros(1, dtype=wp.vec3, device=device, requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def forward(self, velocity):
        self.states[0].particle_qd.assign(np.tile(np.asarray(velocity, dtype=np.float32), (self.n, 1)))
        for i in range(self.steps):
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], self.dt)
        self.com.zero_()
        wp.launch(centre_of_mass, dim=self.n, inputs=[self.states[-1].particle_q, 1.0 / self.n], outputs=[self.com],
                  device=self.device)
        wp.launch(distance_loss, dim=1, inputs=[self.com, TARGET], outputs=[self.loss], device=self.device)
        return float(self.loss.numpy()[0])

    def loss_and_gradient(self, velocity):
        tape = wp.Tape()
        with tape:
            loss = self.forward(velocity)
        tape.backward(self.loss)
        grad = self.states[0].particle_qd.grad.numpy().astype(np.float64).sum(axis=0)
        tape.zero()
        return loss, grad

    def centre(self):
        return self.com.numpy()[0]


def optimise(iterations=20, rate=8.0, device=None, verbose=False):
    sim = MpmThrow(device)
    v = np.zeros(3)
    losses = []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient(v)
        losses.append(loss)
        if verbose:
            print(f"iteration {it:3d}  loss {loss:.4e}  velocity {v}  centre {sim.centre()}")
        v = v - rate * grad
    losses.append(sim.forward(v))
    return v, losses, sim


if __name__ == "__main__":
    v, losses, sim = optimise(verbose=True)
    print(f"loss {losses[0]:.4e} -> {losses[-1]:.4e}; velocity {v}; centre of mass {sim.centre()}, target {TARGET}")
