"""Number and transform arguments of wp.sim's Python API, checked against float32 with errors
that name the call and the argument (BuildError, a ValueError). Shared by sim.py and sim_import.py,
which is why it is a module of its own: sim_import cannot import sim (sim imports it)."""

from . import _weft

BuildError = _weft.BuildError

_IDENTITY = (0.0, 0.0, 0.0, 1.0)
_F32_MAX = 3.4028234663852886e38
_F32_MIN = 1.1754943508222875e-38  # the smallest normal float32


def _f32(call, name, value):
    """`value` as a float32 parameter of `call`: BuildError (a ValueError) naming the call and the
    argument for NaN, an infinity, a magnitude past float32's range, or a nonzero value so small
    that float32 would make it 0 (a mass of 1e-50 would silently fix the particle)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BuildError(f"{call}: {name} must be a number, got {value!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise BuildError(f"{call}: {name} must be a finite number, got {v}")
    if abs(v) > _F32_MAX:
        raise BuildError(f"{call}: {name} = {v:g} is outside the float32 range the engine computes in (|x| <= 3.40282e+38)")
    if v != 0.0 and abs(v) < _F32_MIN:
        hint = "; pass mass=0 for a fixed particle" if name == "mass" else ""
        raise BuildError(f"{call}: {name} = {v:g} is too small for float32 (nonzero values need |x| >= 1.17549e-38): "
                         f"it would become 0{hint}")
    return v


def _f32s(call, name, values, n):
    """A tuple of n float32 parameters (a vector or quaternion), each checked by _f32."""
    try:
        values = tuple(values)
    except TypeError:
        raise BuildError(f"{call}: {name} must be a sequence of {n} numbers, got {values!r}") from None
    if len(values) != n:
        raise BuildError(f"{call}: {name} must have {n} components, got {len(values)}")
    return tuple(_f32(call, f"{name}[{k}]", v) for k, v in enumerate(values))


def _opt(call, name, value, sentinel):
    """An optional float32 parameter: `sentinel` (the C++ default marker) when None."""
    return sentinel if value is None else _f32(call, name, value)


def _transform_parts(call, t):
    """(pos, rot) of a wp.transform, a (pos, rot) pair or None (the identity)."""
    if t is None:
        return (0.0, 0.0, 0.0), _IDENTITY
    if hasattr(t, "p") and hasattr(t, "q"):
        return tuple(t.p), tuple(t.q)
    try:
        flat = [float(v) for v in t]
    except (TypeError, ValueError):
        flat = None
    if flat is not None and len(flat) == 7:
        return tuple(flat[:3]), tuple(flat[3:])
    try:
        pos, rot = t
        return tuple(pos), tuple(rot)
    except (TypeError, ValueError):
        raise BuildError(f"{call}: origin must be a wp.transform, 7 numbers or a (pos, rot) pair, got {t!r}") from None
