"""A cart-pole swing-up by gradient descent on a control sequence (docs/rigid-bodies.md, Joints).

A 3 kg cart slides along x on a prismatic joint to the world; a 0.5 m pole hangs from it on a
hinge about z. The control is the force on the cart (the prismatic joint's joint_act in FORCE
mode), piecewise constant over 20 knots of 50 ms. The loss is the squared distance of the pole's
tip from a target height above the cart after one second, plus a small penalty on the forces;
its gradient with respect to every knot comes from the Tape, through every step of the rollout
(the joint forces, the drive input in each step's Control). From rest the gradient is zero (the
hanging pole is an equilibrium), so the forces start as a small sine at the pole's swing frequency.

    python3 examples/sim_cartpole.py                  # prints each iteration
    python3 examples/sim_cartpole.py featherstone     # the same in reduced coordinates

With "featherstone" the joints are exact (wp.sim.FeatherstoneIntegrator: joint_q and joint_qd
are the state, body_q follows from them), so the attachment springs and the armature that keeps
them stable play no part; the semi-implicit default simulates the same cart-pole in maximal
coordinates with penalty joints.
"""
import math
import sys

import numpy as np

import weft as wp
import weft.sim  # noqa: F401

SECONDS, DT = 1.0, 5.0e-4
KNOTS = 20
POLE_HALF = 0.25           # m, half the pole's length
TARGET_TIP_Y = 0.25        # m above the cart's axis: the pole 30 degrees above horizontal
FORCE_PENALTY = 1.0e-6     # per N^2 per knot
POLE_HALF_C = wp.constant(POLE_HALF)


@wp.kernel
def tip_loss(body_q: wp.array(dtype=wp.transform), forces: wp.array(dtype=float), target: float, penalty: float,
             loss: wp.array(dtype=float)):
    tip = wp.transform_point(body_q[1], wp.vec3(0.0, -POLE_HALF_C, 0.0))
    cart = wp.transform_get_translation(body_q[0])
    d = tip[1] - cart[1] - target
    s = float(0.0)
    for k in range(forces.shape[0]):
        s += forces[k] * forces[k]
    loss[0] = d * d + penalty * s


class CartPole:
    def __init__(self, device=None, integrator="semi_implicit"):
        b = wp.sim.ModelBuilder(gravity=-9.81)
        b.joint_attach_ke = 4.0e3
        cart = b.add_body(name="cart")
        b.add_shape_box(body=cart, hx=0.15, hy=0.05, hz=0.05, density=1000.0)
        # armature: 1e-3 kg m^2 on the pole's inertia keeps the stiff hinge stable at this dt about
        # the pole's long axis (dt < 2 sqrt(I / joint_attach_ke)); it adds 9% to its swing inertia.
        pole = b.add_body(origin=((0.0, -POLE_HALF, 0.0), (0.0, 0.0, 0.0, 1.0)), armature=1.0e-3, name="pole")
        b.add_shape_box(body=pole, hx=0.03, hy=POLE_HALF, hz=0.03, density=300.0)
        b.add_joint_prismatic(-1, cart, axis=(1.0, 0.0, 0.0), limit_lower=-5.0, limit_upper=5.0)
        b.add_joint_revolute(cart, pole, child_xform=((0.0, POLE_HALF, 0.0), (0.0, 0.0, 0.0, 1.0)), axis=(0.0, 0.0, 1.0))
        self.model = b.finalize(device=device, requires_grad=True)
        self.model.ground = False
        self.device = device
        self.steps = int(round(SECONDS / DT))
        self.per_knot = self.steps // KNOTS
        if integrator == "featherstone":
            self.integrator = wp.sim.FeatherstoneIntegrator(self.model)
        elif integrator == "semi_implicit":
            self.integrator = wp.sim.SemiImplicitIntegrator(angular_damping=0.0)
        else:
            raise ValueError(f"integrator {integrator!r}: expected 'semi_implicit' or 'featherstone'")
        self.states = [self.model.state() for _ in range(self.steps + 1)]
        self.controls = [self.model.control() for _ in range(self.steps)]
        self.forces = wp.zeros(KNOTS, dtype=float, device=device, requires_grad=True)
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)

    def set_forces(self, u):
        self.forces.assign(np.asarray(u, dtype=np.float32))
        for i, c in enumerate(self.controls):
            c.joint_act.assign(np.array([u[i // self.per_knot], 0.0], dtype=np.float32))

    def forward(self):
        for i in range(self.steps):
            self.integrator.simulate(self.model, self.states[i], self.states[i + 1], DT, self.controls[i])
        wp.launch(tip_loss, dim=1, inputs=[self.states[-1].body_q, self.forces, TARGET_TIP_Y, FORCE_PENALTY],
                  outputs=[self.loss], device=self.device)
        return float(self.loss.numpy()[0])

    def loss_and_gradient(self, u):
        self.set_forces(u)
        tape = wp.Tape()
        with tape:
            loss = self.forward()
        tape.backward(self.loss)
        grad = self.forces.grad.numpy().astype(np.float64)
        for i, c in enumerate(self.controls):
            grad[i // self.per_knot] += float(c.joint_act.grad.numpy()[0])
        tape.zero()
        return loss, grad

    def tip_height(self):
        q = self.states[-1].body_q.numpy()
        angle = 2.0 * math.atan2(q[1][5], q[1][6])  # the pole's rotation about z
        return -2.0 * POLE_HALF * math.cos(angle)


def initial_forces():
    # A small push at the hanging pole's swing frequency (a physical pendulum of length 2 L / 3).
    omega = math.sqrt(9.81 / (4.0 * POLE_HALF / 3.0))
    return [3.0 * math.sin(omega * (k + 0.5) * SECONDS / KNOTS) for k in range(KNOTS)]


def optimise(iterations=25, rate=2500.0, device=None, verbose=False, integrator="semi_implicit"):
    sim = CartPole(device, integrator)
    u = np.array(initial_forces())
    losses = []
    for it in range(iterations):
        loss, grad = sim.loss_and_gradient(u)
        losses.append(loss)
        if verbose:
            print(f"iteration {it:2d}  loss {loss:.4e}  tip height {sim.tip_height():+.3f} m  |grad| {np.linalg.norm(grad):.3e}")
        u = u - rate * grad
    return u, losses, sim


if __name__ == "__main__":
    u, losses, sim = optimise(verbose=True, integrator=sys.argv[1] if len(sys.argv) > 1 else "semi_implicit")
    sim.set_forces(u)
    sim.forward()
    print(f"forces (N): {np.array2string(u, precision=1)}")
    print(f"tip height after {SECONDS} s: {sim.tip_height():+.3f} m above the cart (target {TARGET_TIP_Y} m)")
