"""Cloth throw: optimise the initial velocity of a cloth so that its centre of mass lands at a
target (in the spirit of warp/examples/optim/example_cloth_throw.py).

    PYTHONPATH=build/python /usr/bin/python3 examples/sim_cloth_throw.py

An 8 x 8-cell cloth (triangle FEM membranes and bending, 0.1 m cells, 0.1 kg per particle) starts
at rest 1 m above the ground with one velocity for every particle. After 0.5 s of semi-implicit
steps (dt = 1/960 s) the loss is the squared distance of the centre of mass to the target; the
gradient in the shared initial velocity is the sum of the Tape's per-particle gradients.
"""
import numpy as np

import weft as wp
import weft.sim  # noqa: F401

TARGET = (1.0, 0.6, -0.3)


@wp.kernel
def centre_of_mass(pos: wp.array(dtype=wp.vec3), weight: float, com: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(com, 0, pos[i] * weight)


@wp.kernel
def distance_loss(com: wp.array(dtype=wp.vec3), target: wp.vec3, loss: wp.array(dtype=float)):
    delta = com[0] - target
    loss[0] = wp.dot(delta, delta)


class ClothThrow:
    def __init__(self, device=None, steps=480, dt=1.0 / 960.0):
        b = wp.sim.ModelBuilder()
        b.add_cloth_grid(pos=(0.0, 1.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0), vel=(0.0, 0.0, 0.0), dim_x=8, dim_y=8, cell_x=0.1,
                         cell_y=0.1, mass=0.1, tri_ke=1.0e3, tri_ka=1.0e3, tri_kd=10.0, edge_ke=1.0, edge_kd=0.0)
        self.model = b.finalize(device=device, requires_grad=True)
        self.model.soft_contact_ke = 1.0e3
        self.model.soft_contact_kd = 10.0
        self.model.soft_contact_kf = 10.0  # explicit friction needs dt kf / m well below 2 (here 0.1)
        self.model.soft_contact_mu = 0.3
        self.n = self.model.particle_count
        self.device, self.steps, self.dt = device, steps, dt
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.states = [self.model.state() for _ in range(steps + 1)]
        self.com = wp.zeros(1, dtype=wp.vec3, device=device, requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def forward(self, velocity):
        self.states[0].particle_qd.assign(np.tile(np.asarray(velocity, dtype=np.float32), (self.n, 1)))
        for i in range(self.steps):
            self.states[i].clear_forces()
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


def optimise(iterations=25, rate=0.5, device=None, verbose=False):
    sim = ClothThrow(device)
    v = np.zeros(3)
    losses = []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient(v)
        losses.append(loss)
        if verbose:
            print(f"iteration {it:3d}  loss {loss:.4e}  velocity {v}  centre {sim.centre()}")
        v = v - rate * grad
    return v, losses, sim


if __name__ == "__main__":
    v, losses, sim = optimise(verbose=True)
    print(f"loss {losses[0]:.4e} -> {losses[-1]:.4e}; velocity {v}; centre of mass {sim.centre()}, target {TARGET}")
