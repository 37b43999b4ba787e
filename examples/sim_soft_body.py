"""Soft body: recover a material parameter (the Lamé parameter mu of a neo-Hookean block) from a
target trajectory, by gradient descent through the Tape.

    PYTHONPATH=build/python /usr/bin/python3 examples/sim_soft_body.py

A 2 x 2 x 2-cell soft grid (40 tetrahedra, 0.1 m cells, density 1000) hangs from its fixed left
face under gravity and sways. The target trajectory is simulated with mu = 2000 Pa (lambda = 5000
Pa, damping 0); the fit starts from mu = 800 Pa. The loss sums the squared distance between the
particles and the target every 10 steps over 0.2 s; the step is taken in log mu, so that it is
scale-free.
"""
import numpy as np

import weft as wp
import weft.sim  # noqa: F401

TRUE_MU, LAMBDA, STEPS, DT, EVERY = 2000.0, 5000.0, 200, 1.0 / 1000.0, 10


@wp.kernel
def trajectory_loss(q: wp.array(dtype=wp.vec3), target: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = q[i] - target[i]
    wp.atomic_add(loss, 0, wp.dot(d, d))


class SoftBody:
    def __init__(self, mu, device=None):
        b = wp.sim.ModelBuilder()
        b.add_soft_grid(pos=(0.0, 1.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0), vel=(0.0, 0.0, 0.0), dim_x=2, dim_y=2, dim_z=2,
                        cell_x=0.1, cell_y=0.1, cell_z=0.1, density=1000.0, k_mu=mu, k_lambda=LAMBDA, k_damp=0.0,
                        fix_left=True)
        self.model = b.finalize(device=device, requires_grad=True)
        self.model.ground = False
        self.device = device
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.states = [self.model.state() for _ in range(STEPS + 1)]
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def set_mu(self, mu):
        m = self.model.tet_materials.numpy()
        m[:, 0] = mu
        self.model.tet_materials.assign(m)

    def rollout(self, targets=None):
        self.loss.zero_()
        for i in range(STEPS):
            self.states[i].clear_forces()
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], DT)
            if targets is not None and (i + 1) % EVERY == 0:
                wp.launch(trajectory_loss, dim=self.model.particle_count,
                          inputs=[self.states[i + 1].particle_q, targets[(i + 1) // EVERY - 1]], outputs=[self.loss],
                          device=self.device)
        return float(self.loss.numpy()[0])

    def trajectory(self):
        return [wp.clone(self.states[k].particle_q) for k in range(EVERY, STEPS + 1, EVERY)]

    def loss_and_gradient(self, targets):
        tape = wp.Tape()
        with tape:
            loss = self.rollout(targets)
        tape.backward(self.loss)
        dmu = float(self.model.tet_materials.grad.numpy()[:, 0].astype(np.float64).sum())
        tape.zero()
        return loss, dmu


def recover(iterations=30, start=800.0, rate=0.3, device=None, verbose=False):
    reference = SoftBody(TRUE_MU, device)
    reference.rollout()
    targets = reference.trajectory()
    sim = SoftBody(start, device)
    log_mu = np.log(start)
    history = []
    for it in range(iterations):
        sim.set_mu(np.exp(log_mu))
        loss, dmu = sim.loss_and_gradient(targets)
        history.append((float(np.exp(log_mu)), loss))
        if verbose:
            print(f"iteration {it:3d}  mu {np.exp(log_mu):9.2f}  loss {loss:.4e}")
        g = dmu * np.exp(log_mu)  # d loss / d log mu
        log_mu -= rate * g / (abs(g) + 1e-12) * min(1.0, abs(g) / (history[0][1] + 1e-30))
    return float(np.exp(log_mu)), history, sim, targets


if __name__ == "__main__":
    mu, history, _, _ = recover(verbose=True)
    print(f"recovered mu = {mu:.1f} Pa (true {TRUE_MU:.1f} Pa, {100 * abs(mu - TRUE_MU) / TRUE_MU:.2f}% off)")
