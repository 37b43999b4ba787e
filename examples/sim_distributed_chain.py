"""Data-parallel optimisation over scenarios: one shared initial velocity, fitted by gradient
descent to many spring chains, each with its own push and its own target, split across MPI ranks.

    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 examples/sim_distributed_chain.py
    PYTHONPATH=build/python /usr/bin/python3 examples/sim_distributed_chain.py     # one process, all worlds

World w (of WORLDS) is a chain of CHAIN particles hanging from a fixed anchor by springs; its
free particles start with the shared velocity v plus the world's own push u_w, and its loss is
the squared distance of the chain's centre of mass to the world's target t_w after STEPS
semi-implicit steps. The parameter v minimises the sum of the worlds' losses.

Rank r builds the worlds [r N / R, (r + 1) N / R) into one model with add_builder (each at the
place world w has in every run), records a rollout on a Tape and runs backward, so that
particle_qd.grad of the first State holds the gradient of each of its particles' starting
velocity. wp.distributed.gather_reduce sums those rows over all ranks in particle order, which is
world order: every rank gets the same gradient, with the same bits as one process holding all the
worlds (docs/scale-out.md, "Python: wp.distributed"). The CPU device runs with one thread here,
because the adjoint kernels add into gradients with float atomics whose order otherwise depends
on the threads.
"""
import argparse

import numpy as np

import weft as wp
import weft.sim  # noqa: F401  (wp.sim)

WORLDS, CHAIN, STEPS, DT = 8, 6, 60, 1.0 / 240.0


def scenario(w):
    """World w's push u_w and target t_w (float32), the same in every run."""
    rng = np.random.default_rng(1000 + w)
    push = rng.uniform(-1.0, 1.0, 3).astype(np.float32)
    target = (np.array([2.0 * w, 0.0, 0.0]) + rng.uniform(-0.4, 0.4, 3)).astype(np.float32)
    return push, target


@wp.kernel
def centre_of_mass_loss(q: wp.array(dtype=wp.vec3), targets: wp.array(dtype=wp.vec3), chain: int,
                        loss: wp.array(dtype=float)):
    w = wp.tid()
    com = wp.vec3(0.0, 0.0, 0.0)
    for k in range(1, chain):  # the free particles; particle 0 of each world is its anchor
        com = com + q[w * chain + k]
    com = com / float(chain - 1)
    d = com - targets[w]
    loss[w] = wp.dot(d, d)


class Chains:
    """The worlds [first, first + count) of the scenario set, in one model."""

    def __init__(self, first, count, device=None):
        one = wp.sim.ModelBuilder(gravity=-9.81)
        one.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=0.0, radius=0.01)
        for k in range(1, CHAIN):
            one.add_particle(pos=(0.0, -0.2 * k, 0.0), vel=(0.0, 0.0, 0.0), mass=0.1, radius=0.01)
            one.add_spring(k - 1, k, ke=200.0, kd=0.5)
        batch = wp.sim.ModelBuilder(gravity=-9.81)
        for w in range(first, first + count):
            batch.add_builder(one, xform=((2.0 * w, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
        self.model = batch.finalize(device=device, requires_grad=True)
        self.model.ground = False
        self.device, self.count = device, count
        pushes, targets = zip(*(scenario(w) for w in range(first, first + count)))
        self.pushes = np.repeat(np.asarray(pushes), CHAIN, axis=0)  # per particle
        self.targets = wp.array(np.asarray(targets), dtype=wp.vec3, device=device)
        self.free = np.tile(np.arange(CHAIN) > 0, count)[:, None]
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.states = [self.model.state() for _ in range(STEPS + 1)]
        self.loss = wp.zeros(count, dtype=float, device=device, requires_grad=True)

    def loss_and_gradient(self, v):
        """(this model's worlds' losses, d(sum of losses)/d(starting velocity) per particle)."""
        start = np.where(self.free, v[None, :] + self.pushes, 0.0).astype(np.float32)
        self.states[0].particle_qd.assign(start)
        tape = wp.Tape()
        with tape:
            for i in range(STEPS):
                self.states[i].clear_forces()
                self.integrator.simulate(self.model, self.states[i], self.states[i + 1], DT)
            wp.launch(centre_of_mass_loss, dim=self.count, inputs=[self.states[-1].particle_q, self.targets, CHAIN],
                      outputs=[self.loss], device=self.device)
        tape.backward(grads={self.loss: np.ones(self.count, dtype=np.float32)})
        losses = self.loss.numpy().copy()
        # v moves the free particles only: the anchors' rows are zeroed (exactly, by a 0/1 mask).
        rows = wp.array(self.states[0].particle_qd.grad.numpy() * self.free, dtype=wp.vec3, device=self.device)
        tape.zero()
        return losses, rows


def optimise(first, count, reduce, iterations=10, rate=0.5, device=None, verbose=False):
    """Gradient descent on v over the worlds [first, first + count); reduce(rows) sums a wp.array of
    per-particle rows (this model's, in world order) over every world of the run. Returns the
    parameter after each iteration (float32 arrays) and this model's summed loss per iteration."""
    chains = Chains(first, count, device)
    v = np.zeros(3, dtype=np.float32)
    history, losses = [], []
    for it in range(iterations):
        loss, rows = chains.loss_and_gradient(v)
        grad = reduce(rows).numpy().reshape(3)
        v = (v - np.float32(rate) * grad).astype(np.float32)
        history.append(v.copy())
        losses.append(float(np.sum(loss, dtype=np.float64)))
        if verbose:
            print(f"iteration {it:3d}  v {v}  gradient {grad}")
    return history, losses


def my_worlds(rank, size, worlds=WORLDS):
    """(first, count): rank's contiguous block of the worlds, in rank order."""
    first = rank * worlds // size
    return first, (rank + 1) * worlds // size - first


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()
    wp.distributed.init()
    wp.config.num_threads = 1
    rank, size = wp.distributed.rank(), wp.distributed.world_size()
    first, count = my_worlds(rank, size)
    history, losses = optimise(first, count, wp.distributed.gather_reduce, iterations=args.iterations,
                               device=wp.distributed.device(), verbose=rank == 0)
    total = np.zeros(len(losses))
    total[:] = losses
    total = wp.array(total, dtype=wp.float64)
    wp.distributed.all_reduce(total)
    if rank == 0:
        t = total.numpy()
        print(f"{size} rank(s), {WORLDS} worlds: loss {t[0]:.6f} -> {t[-1]:.6f}; v = {history[-1]}; "
              f"{wp.distributed.stats()['bytes']} bytes exchanged by rank 0")


if __name__ == "__main__":
    main()
