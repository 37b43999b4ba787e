"""wp.optim: gradient-descent optimizers under Warp's names (warp.optim.SGD, warp.optim.Adam).

    opt = wp.optim.Adam([x], lr=0.01)
    for _ in range(steps):
        tape = wp.Tape()
        with tape:
            ...loss from x...
        tape.backward(loss)
        opt.step([x.grad])
        tape.zero()

Both follow PyTorch's update rules, as Warp's do, for arrays of float32 and vec3 (the dtypes
Warp's Adam supports; other dtypes raise TypeError naming the dtype). The updates are kernels of
this module, launched on each parameter's device; they are not recorded on an open Tape.
"""

import weft as wp  # the kernels below are kernel-language source: they name `wp` (weft imports this module last)

from . import arrays as _arrays
from . import types as _types
from .launch import launch as _launch


@wp.kernel
def _sgd_float(g: wp.array(dtype=float), b: wp.array(dtype=float), lr: float, weight_decay: float,
               momentum: float, dampening: float, nesterov: int, t: int, params: wp.array(dtype=float)):
    i = wp.tid()
    gt = g[i] + weight_decay * params[i]
    if momentum != 0.0:
        bt = gt
        if t > 0:
            bt = momentum * b[i] + (1.0 - dampening) * gt
        b[i] = bt
        if nesterov != 0:
            gt = gt + momentum * bt
        else:
            gt = bt
    params[i] = params[i] - lr * gt


@wp.kernel
def _sgd_vec3(g: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3),
              lr: float, weight_decay: float, momentum: float, dampening: float, nesterov: int, t: int,
              params: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    gt = g[i] + weight_decay * params[i]
    if momentum != 0.0:
        bt = gt
        if t > 0:
            bt = momentum * b[i] + (1.0 - dampening) * gt
        b[i] = bt
        if nesterov != 0:
            gt = gt + momentum * bt
        else:
            gt = bt
    params[i] = params[i] - lr * gt


@wp.kernel
def _adam_float(g: wp.array(dtype=float), m: wp.array(dtype=float), v: wp.array(dtype=float), lr: float,
                beta1: float, beta2: float, t: float, eps: float, params: wp.array(dtype=float)):
    i = wp.tid()
    m[i] = beta1 * m[i] + (1.0 - beta1) * g[i]
    v[i] = beta2 * v[i] + (1.0 - beta2) * g[i] * g[i]
    m_hat = m[i] / (1.0 - wp.pow(beta1, t + 1.0))
    v_hat = v[i] / (1.0 - wp.pow(beta2, t + 1.0))
    params[i] = params[i] - lr * m_hat / (wp.sqrt(v_hat) + eps)


@wp.kernel
def _adam_vec3(g: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.vec3),
               v: wp.array(dtype=wp.vec3), lr: float, beta1: float, beta2: float, t: float,
               eps: float, params: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    m[i] = beta1 * m[i] + (1.0 - beta1) * g[i]
    v[i] = beta2 * v[i] + (1.0 - beta2) * wp.cw_mul(g[i], g[i])
    m_hat = m[i] / (1.0 - wp.pow(beta1, t + 1.0))
    v_hat = v[i] / (1.0 - wp.pow(beta2, t + 1.0))
    root = wp.vec3(wp.sqrt(v_hat[0]) + eps, wp.sqrt(v_hat[1]) + eps, wp.sqrt(v_hat[2]) + eps)
    params[i] = params[i] - lr * wp.cw_div(m_hat, root)


def _kernel_for(kernels, what, param):
    t = _types.type_of(param.dtype)
    name = str(t)
    key = "float" if name == "float32" else "vec3" if name in ("vec3", "vec3f") else None
    if key is None or param.ndim != 1:
        raise TypeError(f"wp.optim.{what}: parameters must be 1-D arrays of float32 or vec3, got {param!r}")
    return kernels[key]


class SGD:
    """Stochastic gradient descent (PyTorch's rule): g += weight_decay p; with momentum,
    b = momentum b + (1 - dampening) g (b = g at the first step) and g = b, or g + momentum b
    with nesterov; then p -= lr g."""

    def __init__(self, params=None, lr=0.001, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        self.b = []
        self.lr = lr
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.t = 0
        self.set_params(params)

    def set_params(self, params):
        self.params = params
        if params:
            self.b = [_arrays.zeros_like(p, requires_grad=False) for p in params]
            for p in params:
                _kernel_for({"float": _sgd_float, "vec3": _sgd_vec3}, "SGD", p)

    def reset_internal_state(self):
        for b in self.b:
            b.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("wp.optim.SGD.step: no parameters (pass params= or call set_params)")
        for p, g, b in zip(self.params, grad, self.b):
            k = _kernel_for({"float": _sgd_float, "vec3": _sgd_vec3}, "SGD", p)
            _launch(k, dim=len(p), inputs=[g, b, float(self.lr), float(self.weight_decay), float(self.momentum),
                                           float(self.dampening), int(bool(self.nesterov)), int(self.t), p],
                    device=p.device, record_tape=False)
        self.t += 1


class Adam:
    """Adam (PyTorch's rule, as Warp's): m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
    p -= lr m^ / (sqrt(v^) + eps) with m^ = m / (1 - b1^t), v^ = v / (1 - b2^t)."""

    def __init__(self, params=None, lr=0.001, betas=(0.9, 0.999), eps=1e-08):
        self.m = []
        self.v = []
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.t = 0
        self.set_params(params)

    def set_params(self, params):
        self.params = params
        if params:
            for p in params:
                _kernel_for({"float": _adam_float, "vec3": _adam_vec3}, "Adam", p)
            self.m = [_arrays.zeros_like(p, requires_grad=False) for p in params]
            self.v = [_arrays.zeros_like(p, requires_grad=False) for p in params]

    def reset_internal_state(self):
        for a in self.m + self.v:
            a.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("wp.optim.Adam.step: no parameters (pass params= or call set_params)")
        for p, g, m, v in zip(self.params, grad, self.m, self.v):
            k = _kernel_for({"float": _adam_float, "vec3": _adam_vec3}, "Adam", p)
            _launch(k, dim=len(p), inputs=[g, m, v, float(self.lr), float(self.beta1), float(self.beta2), float(self.t),
                                           float(self.eps), p], device=p.device, record_tape=False)
        self.t += 1
