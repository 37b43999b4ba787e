"""Kernel-language builtins called from Python, as Warp allows (`wp.length(v)`, `wp.quat_identity()`,
`wp.transform_point(t, p)` in host code that sets up a simulation).

Each function here computes on the host with numpy, in float64, and returns a value of the
kernel-language type the builtin returns in a kernel: a Python number for scalars, a wp.vec3 /
wp.quat / wp.mat33 / wp.transform instance (of the argument's precision; float32 for tuples and
lists). Conventions are the kernel's: quaternions (x, y, z, w), transforms (p, q), matrices
row-major. Only the builtins listed in __all__ exist in Python scope; the rest are kernel-only.
"""

import builtins as _builtins
import math as _math

import numpy as _np

from . import types as _types

__all__ = ["abs", "min", "max", "clamp", "sign", "sqrt", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
           "sinh", "cosh", "tanh", "exp", "log", "log2", "log10", "pow", "floor", "ceil", "round", "trunc", "degrees",
           "radians", "lerp", "step", "nonzero", "length", "length_sq", "normalize", "dot", "cross", "cw_mul", "cw_div",
           "outer", "transpose", "determinant", "inverse", "identity", "diag", "trace", "skew", "mul", "add", "sub",
           "div", "neg", "quat_identity", "quat_from_axis_angle", "quat_rpy", "quat_inverse", "quat_rotate",
           "quat_rotate_inv", "quat_to_matrix", "quat_from_matrix", "transform_identity", "transform_point",
           "transform_vector", "transform_get_translation", "transform_get_rotation", "transform_multiply",
           "transform_inverse"]


def _dt(*values):
    """numpy float type of the arguments (float64 if any is double precision, else float32)."""
    for v in values:
        if isinstance(v, _types._Value) and v._np == _np.float64:
            return _np.float64
    return _np.float32


def _a(v):
    return _np.asarray(v, dtype=_np.float64)


def _vec(data, dt):
    data = _np.asarray(data, dtype=_np.float64)
    return _types.vector(data.shape[0], dt)(data)


def _mat(data, dt):
    data = _np.asarray(data, dtype=_np.float64)
    return _types.matrix(data.shape, dt)(data)


def _quat(data, dt):
    return _types.quaternion(dt)(_np.asarray(data, dtype=_np.float64))


def _xform(p, q, dt):
    return _types.transformation(dt)(_np.concatenate([_a(p), _a(q)]))


def _like(x, data, dt=None):
    """`data` as the type of `x` (a value of the same kind), or a number for scalars."""
    dt = dt or _dt(x)
    if _np.ndim(data) == 0:
        return float(data)
    if isinstance(x, _types._Value):
        return type(x)(_np.asarray(data, dtype=_np.float64))
    return _vec(data, dt) if _np.ndim(data) == 1 else _mat(data, dt)


def _is_scalar(x):
    return _np.ndim(_np.asarray(x if not isinstance(x, _types._ScalarValue) else x.value)) == 0


def _scalar(x):
    return float(x.value if isinstance(x, _types._ScalarValue) else x)


def _elementwise(f):
    def g(x):
        if _is_scalar(x):
            return f(_scalar(x))
        return _like(x, _np.vectorize(f)(_a(x)))
    return g


# ---- scalars (element-wise on vectors, as in kernels) ----

def abs(x):  # noqa: A001
    return _builtins.abs(_scalar(x)) if _is_scalar(x) else _like(x, _np.abs(_a(x)))


def min(a, b=None):  # noqa: A001
    if b is None:  # min of a vector's components
        return float(_np.min(_a(a)))
    if _is_scalar(a) and _is_scalar(b):
        return _builtins.min(_scalar(a), _scalar(b))
    return _like(a, _np.minimum(_a(a), _a(b)), _dt(a, b))


def max(a, b=None):  # noqa: A001
    if b is None:
        return float(_np.max(_a(a)))
    if _is_scalar(a) and _is_scalar(b):
        return _builtins.max(_scalar(a), _scalar(b))
    return _like(a, _np.maximum(_a(a), _a(b)), _dt(a, b))


def clamp(x, lo, hi):
    return _builtins.min(_builtins.max(_scalar(x), _scalar(lo)), _scalar(hi))


def sign(x):
    return _elementwise(lambda v: -1.0 if v < 0.0 else 1.0)(x)


sqrt = _elementwise(_math.sqrt)
cbrt = _elementwise(lambda v: _math.copysign(_builtins.abs(v) ** (1.0 / 3.0), v))
sin = _elementwise(_math.sin)
cos = _elementwise(_math.cos)
tan = _elementwise(_math.tan)
asin = _elementwise(lambda v: _math.asin(_builtins.min(1.0, _builtins.max(-1.0, v))))
acos = _elementwise(lambda v: _math.acos(_builtins.min(1.0, _builtins.max(-1.0, v))))
atan = _elementwise(_math.atan)
sinh = _elementwise(_math.sinh)
cosh = _elementwise(_math.cosh)
tanh = _elementwise(_math.tanh)
exp = _elementwise(_math.exp)
log = _elementwise(_math.log)
log2 = _elementwise(_math.log2)
log10 = _elementwise(_math.log10)
floor = _elementwise(_math.floor)
ceil = _elementwise(_math.ceil)
round = _elementwise(lambda v: float(_math.copysign(_math.floor(_builtins.abs(v) + 0.5), v)))  # noqa: A001 (half away from 0)
trunc = _elementwise(_math.trunc)
degrees = _elementwise(_math.degrees)
radians = _elementwise(_math.radians)


def atan2(y, x):
    return _math.atan2(_scalar(y), _scalar(x))


def pow(x, y):  # noqa: A001
    if _is_scalar(x):
        return _scalar(x) ** _scalar(y)
    return _like(x, _np.power(_a(x), _a(y)))


def lerp(a, b, t):
    if _is_scalar(a):
        return _scalar(a) * (1.0 - _scalar(t)) + _scalar(b) * _scalar(t)
    return _like(a, _a(a) * (1.0 - _scalar(t)) + _a(b) * _scalar(t), _dt(a, b))


def step(x):
    return 0.0 if _scalar(x) >= 0.0 else 1.0  # Warp's step: 1 for x < 0


def nonzero(x):
    return 1.0 if _scalar(x) != 0.0 else 0.0


# ---- vectors and matrices ----

def length(v):
    return float(_np.linalg.norm(_a(v)))


def length_sq(v):
    a = _a(v)
    return float(_np.dot(a.ravel(), a.ravel()))


def normalize(v):
    a = _a(v)
    n = _np.linalg.norm(a)
    return _like(v, a / n if n > 0.0 else _np.zeros_like(a))


def dot(a, b):
    return float(_np.dot(_a(a).ravel(), _a(b).ravel()))


def cross(a, b):
    return _like(a, _np.cross(_a(a), _a(b)), _dt(a, b))


def cw_mul(a, b):
    return _like(a, _a(a) * _a(b), _dt(a, b))


def cw_div(a, b):
    return _like(a, _a(a) / _a(b), _dt(a, b))


def outer(a, b):
    return _mat(_np.outer(_a(a), _a(b)), _dt(a, b))


def transpose(m):
    return _mat(_a(m).T, _dt(m))


def determinant(m):
    return float(_np.linalg.det(_a(m)))


def inverse(m):
    return _mat(_np.linalg.inv(_a(m)), _dt(m))


def trace(m):
    return float(_np.trace(_a(m)))


def identity(n, dtype=float):
    """The n x n identity matrix of `dtype` (Warp's wp.identity(n=3, dtype=float))."""
    return _types.matrix((int(n), int(n)), dtype)(_np.eye(int(n)))


def diag(v):
    a = _a(v)
    return _mat(_np.diag(a), _dt(v))


def skew(v):
    x, y, z = _a(v)
    return _mat([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]], _dt(v))


def _kind(x):
    t = getattr(x, "_weft_type", None)
    return t.kind if t is not None else ("scalar" if _is_scalar(x) else "vector" if _np.ndim(x) == 1 else "matrix")


def mul(a, b):
    """a * b with the kernel's meaning: scalar products, matrix products (matrix x vector, vector x
    matrix, matrix x matrix), the quaternion product, the transform composition."""
    ka, kb = _kind(a), _kind(b)
    if ka == "scalar" or kb == "scalar":
        if ka == "scalar" and kb == "scalar":
            return _scalar(a) * _scalar(b)
        s, v = (a, b) if ka == "scalar" else (b, a)
        return _like(v, _a(v) * _scalar(s))
    if ka == "quat" and kb == "quat":
        return _quat(_qmul(_a(a), _a(b)), _dt(a, b))
    if ka == "transform" and kb == "transform":
        return transform_multiply(a, b)
    if ka == "matrix" or kb == "matrix":
        r = _a(a) @ _a(b)
        return _vec(r, _dt(a, b)) if _np.ndim(r) == 1 else _mat(r, _dt(a, b))
    raise TypeError(f"wp.mul: no product of {ka} and {kb} (use cw_mul for the component-wise product)")


def add(a, b):
    return _scalar(a) + _scalar(b) if _is_scalar(a) else _like(a, _a(a) + _a(b), _dt(a, b))


def sub(a, b):
    return _scalar(a) - _scalar(b) if _is_scalar(a) else _like(a, _a(a) - _a(b), _dt(a, b))


def div(a, b):
    if _is_scalar(a) and _is_scalar(b):
        return _scalar(a) / _scalar(b)
    return _like(a, _a(a) / _a(b), _dt(a, b))


def neg(a):
    return -_scalar(a) if _is_scalar(a) else _like(a, -_a(a))


# ---- quaternions (x, y, z, w) ----

def _qmul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return _np.concatenate([aw * bv + bw * av + _np.cross(av, bv), [aw * bw - _np.dot(av, bv)]])


def _qrot(q, v):
    u, w = q[:3], q[3]
    return v * (2.0 * w * w - 1.0) + _np.cross(u, v) * w * 2.0 + u * _np.dot(u, v) * 2.0


def quat_identity(dtype=float):
    return _types.quaternion(dtype)(0.0, 0.0, 0.0, 1.0)


def quat_from_axis_angle(axis, angle):
    """The rotation by `angle` (radians) about the unit vector `axis` (not normalised, as in kernels)."""
    a = _a(axis)
    h = 0.5 * _scalar(angle)
    return _quat(_np.concatenate([a * _math.sin(h), [_math.cos(h)]]), _dt(axis))


def quat_rpy(roll, pitch, yaw):
    """Warp's quat_rpy: the rotation of roll about x, pitch about y, yaw about z (extrinsic x, y, z)."""
    cy, sy = _math.cos(_scalar(yaw) * 0.5), _math.sin(_scalar(yaw) * 0.5)
    cr, sr = _math.cos(_scalar(roll) * 0.5), _math.sin(_scalar(roll) * 0.5)
    cp, sp = _math.cos(_scalar(pitch) * 0.5), _math.sin(_scalar(pitch) * 0.5)
    w = cy * cr * cp + sy * sr * sp
    x = cy * sr * cp - sy * cr * sp
    y = cy * cr * sp + sy * sr * cp
    z = sy * cr * cp - cy * sr * sp
    return _quat((x, y, z, w), _np.float32)


def quat_inverse(q):
    a = _a(q)
    return _quat(_np.concatenate([-a[:3], [a[3]]]), _dt(q))


def quat_rotate(q, v):
    return _vec(_qrot(_a(q), _a(v)), _dt(q, v))


def quat_rotate_inv(q, v):
    a = _a(q)
    return _vec(_qrot(_np.concatenate([-a[:3], [a[3]]]), _a(v)), _dt(q, v))


def quat_to_matrix(q):
    return _mat(_np.stack([_qrot(_a(q), e) for e in _np.eye(3)], axis=1), _dt(q))


def quat_from_matrix(m):
    """The unit quaternion of a rotation matrix (Shepperd's method)."""
    r = _a(m)
    t = _np.trace(r)
    if t > 0.0:
        s = _math.sqrt(t + 1.0) * 2.0
        q = ((r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, 0.25 * s)
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = _math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2]) * 2.0
        q = (0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s, (r[2, 1] - r[1, 2]) / s)
    elif r[1, 1] > r[2, 2]:
        s = _math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2]) * 2.0
        q = ((r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s, (r[0, 2] - r[2, 0]) / s)
    else:
        s = _math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1]) * 2.0
        q = ((r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s, (r[1, 0] - r[0, 1]) / s)
    return _quat(q, _dt(m))


# ---- transforms (p, q) ----

def _pq(t):
    if hasattr(t, "p") and hasattr(t, "q"):
        return _a(t.p), _a(t.q)
    a = _a(t)
    return a[:3], a[3:]


def transform_identity(dtype=float):
    return _types.transformation(dtype)(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def transform_point(t, p):
    tp, tq = _pq(t)
    return _vec(_qrot(tq, _a(p)) + tp, _dt(t, p))


def transform_vector(t, v):
    _, tq = _pq(t)
    return _vec(_qrot(tq, _a(v)), _dt(t, v))


def transform_get_translation(t):
    return _vec(_pq(t)[0], _dt(t))


def transform_get_rotation(t):
    return _quat(_pq(t)[1], _dt(t))


def transform_multiply(a, b):
    ap, aq = _pq(a)
    bp, bq = _pq(b)
    return _xform(_qrot(aq, bp) + ap, _qmul(aq, bq), _dt(a, b))


def transform_inverse(t):
    p, q = _pq(t)
    qi = _np.concatenate([-q[:3], [q[3]]])
    return _xform(-_qrot(qi, p), qi, _dt(t))


# Values' * and @ in Python scope are this module's mul (types.py calls it through this hook).
_types._python_scope_mul = mul
