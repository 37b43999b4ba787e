"""Generic funcs and kernels (Warp's `typing.Any` parameters), func overload sets and wp.overload
(issue 19). Each result is checked against numpy computing the same thing."""
import typing
from typing import Any

import numpy as np
import pytest

import weft as wp


@wp.func
def twice(a: Any):
    return a + a


@wp.func
def combine(a: float, b: float):
    return a * b


@wp.func
def combine(a: int, b: int):  # noqa: F811 - an overload of combine
    return a - b


@wp.func
def combine(a: Any, b: Any):  # noqa: F811 - the generic overload
    return a + b


@wp.kernel
def twice_kernel(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = twice(a[i])


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.int32, wp.vec3, wp.vec2d, wp.mat22])
def test_generic_kernel_instantiated_per_dtype(device, dtype):
    rng = np.random.default_rng(3)
    shape = (5, *getattr(dtype, "_shape_", ()))
    src = rng.integers(-9, 9, size=shape) if dtype is wp.int32 else rng.normal(size=shape)
    a = wp.array(src, dtype=dtype, device=device)
    out = wp.zeros(5, dtype=dtype, device=device)
    wp.launch(twice_kernel, dim=5, inputs=[a, out], device=device)
    np.testing.assert_allclose(out.numpy(), a.numpy() * 2, rtol=1e-6)


def test_instances_are_cached_per_signature(device):
    af = wp.array(np.arange(3, dtype=np.float32), device=device)
    ai = wp.array(np.arange(3, dtype=np.int32), device=device)
    before = len(twice_kernel._instances)
    for _ in range(2):
        wp.launch(twice_kernel, dim=3, inputs=[af, wp.zeros_like(af)], device=device)
        wp.launch(twice_kernel, dim=3, inputs=[ai, wp.zeros_like(ai)], device=device)
    sigs = [s for s in twice_kernel._instances if s[0] in (af._weft_type_of_array, ai._weft_type_of_array)]
    assert len(sigs) == 2
    assert len(twice_kernel._instances) <= before + 2


@wp.kernel
def fill(a: wp.array(dtype=Any), value: Any):
    i = wp.tid()
    a[i] = value


def test_scalar_arguments_infer_warp_types(device):
    ai = wp.zeros(4, dtype=int, device=device)
    af = wp.zeros(4, dtype=float, device=device)
    ad = wp.zeros(4, dtype=wp.float64, device=device)
    a3 = wp.zeros(4, dtype=wp.vec3, device=device)
    wp.launch(fill, dim=4, inputs=[ai, 42], device=device)
    wp.launch(fill, dim=4, inputs=[af, 1.5], device=device)
    wp.launch(fill, dim=4, inputs=[ad, wp.float64(0.1)], device=device)
    wp.launch(fill, dim=4, inputs=[a3, wp.vec3(1.0, 2.0, 3.0)], device=device)
    np.testing.assert_array_equal(ai.numpy(), np.full(4, 42, np.int32))
    np.testing.assert_array_equal(af.numpy(), np.full(4, 1.5, np.float32))
    np.testing.assert_array_equal(ad.numpy(), np.full(4, 0.1, np.float64))
    np.testing.assert_array_equal(a3.numpy(), np.tile(np.float32([1, 2, 3]), (4, 1)))


def test_mismatched_instance_is_a_compile_error_naming_the_parameter(device):
    ai = wp.zeros(4, dtype=int, device=device)
    with pytest.raises(wp.CompileError, match="value"):
        wp.launch(fill, dim=4, inputs=[ai, wp.vec3(1.0, 2.0, 3.0)], device=device)


def test_uninferable_argument_names_the_parameter(device):
    ai = wp.zeros(4, dtype=int, device=device)
    with pytest.raises(TypeError, match=r"argument 'value'.*from a list"):
        wp.launch(fill, dim=4, inputs=[ai, [1, 2, 3]], device=device)


def test_generic_kernel_cannot_compile_without_types():
    with pytest.raises(RuntimeError, match="generic"):
        fill.compile()


@wp.kernel
def accumulate(a: wp.array(dtype=wp.float64), value: Any):
    i = wp.tid()
    a[i] = a[i] + wp.float64(value)


fill_vec3 = wp.overload(fill, [wp.array(dtype=wp.vec3), wp.vec3])
accumulate_int = wp.overload(accumulate, {"value": int})


def test_overload_by_list_and_by_name(device):
    a3 = wp.zeros(2, dtype=wp.vec3, device=device)
    wp.launch(fill_vec3, dim=2, inputs=[a3, wp.vec3(4.0, 5.0, 6.0)], device=device)
    np.testing.assert_array_equal(a3.numpy(), np.tile(np.float32([4, 5, 6]), (2, 1)))
    assert not fill_vec3.is_generic
    assert [p[0] for p in fill_vec3.params] == ["a", "value"]
    acc = wp.zeros(3, dtype=wp.float64, device=device)
    wp.launch(accumulate_int, dim=3, inputs=[acc, 25], device=device)
    wp.launch(accumulate, dim=3, inputs=[acc, 17.0], device=device)  # float32 instance, made by the launch
    np.testing.assert_array_equal(acc.numpy(), np.full(3, 42.0))


def test_overload_errors():
    @wp.kernel
    def concrete(a: wp.array(dtype=float)):
        a[0] = 1.0

    with pytest.raises(RuntimeError, match="not generic"):
        wp.overload(concrete, [wp.array(dtype=float)])
    with pytest.raises(RuntimeError, match="Invalid argument name 'nope'"):
        wp.overload(accumulate, {"nope": int})
    with pytest.raises(TypeError, match="parameter 'value'.*generic"):
        wp.overload(accumulate, {"value": Any})
    with pytest.raises(TypeError, match="1 types given for 2 parameters"):
        wp.overload(fill, [wp.array(dtype=int)])
    with pytest.raises(TypeError, match="Kernel overload types must be given in a list or dict"):
        wp.overload(fill, wp.array(dtype=int))
    with pytest.raises(TypeError, match=r"kernel 'accumulate': parameter 'value': "):
        wp.overload(accumulate, {"value": "not a type"})
    with pytest.raises(TypeError, match="wp.overload expects a generic kernel or a def, got 5"):
        wp.overload(5)

    def no_such_kernel(a: wp.array(dtype=int)): ...

    with pytest.raises(RuntimeError, match="Failed to find a kernel named 'no_such_kernel'"):
        wp.overload(no_such_kernel)


@wp.kernel
def transform(v: Any, m: Any, out: wp.array(dtype=Any)):
    out[0] = wp.mul(m, v)


@wp.overload
def transform(v: wp.vec2, m: wp.mat22, out: wp.array(dtype=wp.vec2)):  # noqa: F811 - declares an instance
    ...


def test_overload_decorator_keeps_the_generic_kernel(device):
    assert transform.is_generic
    assert len(transform._instances) == 1
    out = wp.zeros(1, dtype=wp.vec2, device=device)
    wp.launch(transform, dim=1, inputs=[wp.vec2(1.0, 2.0), wp.mat22(1.0, 2.0, 3.0, 4.0), out], device=device)
    np.testing.assert_allclose(out.numpy()[0], np.float32([[1, 2], [3, 4]]) @ np.float32([1, 2]))
    assert len(transform._instances) == 1  # the launch used the declared instance


@wp.kernel
def overloads_kernel(f: wp.array(dtype=float), i: wp.array(dtype=int), v: wp.array(dtype=wp.vec3)):
    f[0] = combine(f[1], f[2])  # float overload: product
    i[0] = combine(i[1], i[2])  # int overload: difference
    v[0] = combine(v[1], v[2])  # generic overload: sum
    f[3] = twice(f[1]) + twice(2.0)  # one generic func, two call sites of one type


def test_func_overloads_pick_by_argument_types(device):
    f = wp.array(np.float32([0, 3, 4, 0]), device=device)
    i = wp.array(np.int32([0, 10, 3]), device=device)
    v = wp.array(np.float32([[0, 0, 0], [1, 2, 3], [10, 20, 30]]), dtype=wp.vec3, device=device)
    wp.launch(overloads_kernel, dim=1, inputs=[f, i, v], device=device)
    assert f.numpy()[0] == 12.0 and f.numpy()[3] == 10.0
    assert i.numpy()[0] == 7
    np.testing.assert_array_equal(v.numpy()[0], [11, 22, 33])
    assert len(combine.overloads) == 3


def test_python_call_picks_the_overload_by_argument_types():
    assert combine(3.0, 4.0) == 12.0  # float overload
    assert combine(10, 3) == 7  # int overload
    v = combine(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 1.0, 1.0))  # the generic one
    np.testing.assert_array_equal(np.array([*v]), [2.0, 3.0, 4.0])


@wp.func
def vsum(v: wp.vec(length=Any, dtype=wp.Float)):
    s = v[0] - v[0]
    for k in range(len(v)):
        s += v[k]
    return s


@wp.func
def msum(m: wp.mat(shape=(Any, Any), dtype=Any)):
    s = m[0, 0] - m[0, 0]
    for r in range(len(m)):
        for c in range(len(m[r])):
            s += m[r, c] * m[r, c]
    return s


@wp.kernel
def shapes_kernel(a: wp.array(dtype=wp.vec(length=Any, dtype=wp.Float)), m: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = vsum(a[i]) + msum(m[i])


@pytest.mark.parametrize("length,scalar", [(2, wp.float32), (5, wp.float64)])
def test_generic_vector_length_and_constraints(device, length, scalar):
    vt = wp.types.vector(length=length, dtype=scalar)
    mt = wp.types.matrix(shape=(3, 2), dtype=scalar)
    rng = np.random.default_rng(length)
    av, am = rng.normal(size=(4, length)), rng.normal(size=(4, 3, 2))
    out = wp.zeros(4, dtype=scalar, device=device)
    wp.launch(shapes_kernel, dim=4, inputs=[wp.array(av, dtype=vt, device=device), wp.array(am, dtype=mt, device=device), out],
              device=device)
    tol = 1e-12 if scalar is wp.float64 else 1e-5
    np.testing.assert_allclose(out.numpy(), av.sum(axis=1) + (am * am).sum(axis=(1, 2)), rtol=tol, atol=tol)


def test_constraint_refuses_other_scalars(device):
    a = wp.zeros(2, dtype=wp.types.vector(length=3, dtype=wp.int32), device=device)
    m = wp.zeros(2, dtype=wp.mat22, device=device)
    with pytest.raises(wp.CompileError, match="does not take"):
        wp.launch(shapes_kernel, dim=2, inputs=[a, m, wp.zeros(2, dtype=int, device=device)], device=device)


def test_generic_type_objects_are_annotations_only():
    g = wp.vec(length=Any, dtype=float)
    assert wp.types.is_generic(g) and wp.types.is_generic(wp.mat(shape=(Any, Any), dtype=wp.float64))
    assert wp.types.is_generic(wp.array(dtype=Any)) and wp.types.is_generic(wp.array())
    assert wp.types.is_generic(typing.Any) and not wp.types.is_generic(wp.vec3)
    with pytest.raises(TypeError, match="generic type"):
        g(1.0, 2.0)


def test_redefinition_with_same_annotations_replaces():
    import types as pytypes

    mod = pytypes.ModuleType("weft_generics_redef")
    src = (
        "import weft as wp\n"
        "@wp.func\n"
        "def f(a: float):\n    return a\n"
        "first = f\n"
        "@wp.func\n"
        "def f(a: float):\n    return 2.0 * a\n"
    )
    exec(compile(src, "<redef>", "exec"), mod.__dict__)
    assert mod.f is mod.first and len(mod.f.overloads) == 1
    assert mod.f(3.0) == 6.0


@wp.struct
class Pair:
    x: float
    y: wp.float64


@wp.kernel
def struct_sum(s: Any, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(s.x) + s.y


def test_generic_struct_argument(device):
    # the struct's definition reaches the instance although the kernel's source never names it
    p = Pair()
    p.x = 1.5
    p.y = 0.25
    out = wp.zeros(1, dtype=wp.float64, device=device)
    wp.launch(struct_sum, dim=1, inputs=[p, out], device=device)
    assert out.numpy()[0] == 1.75
