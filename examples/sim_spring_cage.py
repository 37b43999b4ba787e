"""Spring cage: optimise the rest lengths of the springs that hold a particle, so that it settles
at a target (warp/examples/optim/example_spring_cage.py, ported by changing the import).

    PYTHONPATH=build/python /usr/bin/python3 examples/sim_spring_cage.py

A particle of mass 1 hangs between four fixed anchors (mass 0) at the corners of a square in the
x-y plane, one spring to each (ke = 100, kd = 10). After 1 s of semi-implicit steps (dt = 1/240 s)
the loss is the squared distance of the particle to the target; its gradient in
model.spring_rest_length comes from the Tape.
"""
import numpy as np

import weft as wp
import weft.sim  # noqa: F401

TARGET = (0.15, 0.1, 0.0)


@wp.kernel
def distance_loss(pos: wp.array(dtype=wp.vec3), target: wp.vec3, loss: wp.array(dtype=float)):
    delta = pos[0] - target
    loss[0] = wp.dot(delta, delta)


class SpringCage:
    def __init__(self, device=None, steps=240, dt=1.0 / 240.0):
        b = wp.sim.ModelBuilder(gravity=0.0)
        b.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
        for corner in [(-1.0, -1.0, 0.0), (1.0, -1.0, 0.0), (1.0, 1.0, 0.0), (-1.0, 1.0, 0.0)]:
            anchor = b.add_particle(pos=corner, vel=(0.0, 0.0, 0.0), mass=0.0)
            b.add_spring(0, anchor, ke=100.0, kd=10.0)
        self.model = b.finalize(device=device, requires_grad=True)
        self.model.ground = False
        self.device, self.steps, self.dt = device, steps, dt
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.states = [self.model.state() for _ in range(steps + 1)]
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def forward(self):
        for i in range(self.steps):
            self.states[i].clear_forces()
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], self.dt)
        wp.launch(distance_loss, dim=1, inputs=[self.states[-1].particle_q, TARGET], outputs=[self.loss], device=self.device)
        return float(self.loss.numpy()[0])

    def loss_and_gradient(self):
        tape = wp.Tape()
        with tape:
            loss = self.forward()
        tape.backward(self.loss)
        grad = self.model.spring_rest_length.grad.numpy().astype(np.float64)
        tape.zero()
        return loss, grad


def optimise(iterations=40, rate=0.25, device=None, verbose=False):
    sim = SpringCage(device)
    losses = []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient()
        losses.append(loss)
        rest = sim.model.spring_rest_length.numpy()
        if verbose:
            print(f"iteration {it:3d}  loss {loss:.3e}  rest lengths {rest}")
        sim.model.spring_rest_length.assign((rest - rate * grad).astype(np.float32))
    return losses, sim


if __name__ == "__main__":
    losses, sim = optimise(verbose=True)
    print(f"loss {losses[0]:.4e} -> {losses[-1]:.4e}; particle at {sim.states[-1].particle_q.numpy()[0]}, target {TARGET}")
