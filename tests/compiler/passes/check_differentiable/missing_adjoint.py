# check_differentiable: a builtin without an adjoint on a differentiable path is an error naming the
# builtin and the kernel; a piecewise-constant one (floor: zero adjoint) is not.
# RUN: check_differentiable
# CHECK: ; after check_differentiable
# CHECK: y.1[i.2] = (floor(x.0[i.2]) * randf(state.3, x.0[i.2], 2:float32))
# CHECK: missing_adjoint.py:14:29: error: 'randf' has no adjoint, and kernel 'k' differentiates through it
# CHECK-NOT: 'floor' has no adjoint
import weft as wp

@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(7, i)
    y[i] = wp.floor(x[i]) * wp.randf(state, x[i], 2.0)
