# check_differentiable: a @wp.func_grad must take the func's parameters and the adjoint of its
# result, and return the adjoints of its parameters.
# RUN: check_differentiable
# CHECK: ; after check_differentiable
# CHECK: func adj_square(x.0: float32, adj_ret.1: float32) -> int32:
# CHECK: custom_grad_signature.py:14:5: error: @wp.func_grad of 'square' must take the parameters of 'square' followed by the adjoint of its result, and return float32
import weft as wp

@wp.func
def square(x: float) -> float:
    return x * x

@wp.func_grad(square)
def adj_square(x: float, adj_ret: float) -> int:
    return 0

@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = square(x[i])
