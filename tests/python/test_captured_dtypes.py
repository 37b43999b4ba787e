"""Dtypes that kernels take from Python names (issue 19): a factory's parameter used in annotations
(`def make(dtype): def fn(a: wp.array(dtype=dtype))`, Warp's generic tests), a closure's dtype used
in the body, and module-level aliases (`V5 = wp.types.vector(5, dtype=wp.float64)`); Warp's lerp of
spatial vectors, spatial matrices and transforms; and Warp's tape idioms (a gradient seeded after
recording, tape.gradients of a struct instance). References are numpy and analytic derivatives."""
import numpy as np
import pytest

import weft as wp

V5 = wp.types.vector(5, dtype=wp.float64)


def make_axpy(dtype):
    def axpy(a: wp.array(dtype=dtype), out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = a[i] * 2.0 + dtype(1.0)

    return wp.Kernel(axpy, key=f"axpy_{dtype.__name__}")


@pytest.mark.parametrize("dtype", [wp.float64, wp.vec3, wp.vec4d, wp.mat22, wp.mat33d, V5])
def test_factory_dtype_in_annotations_and_body(device, dtype):
    n = 3
    shape = (n, *getattr(dtype, "_shape_", ()))
    src = np.random.default_rng(1).normal(size=shape)
    a = wp.array(src, dtype=dtype, device=device)
    out = wp.zeros(n, dtype=dtype, device=device)
    wp.launch(make_axpy(dtype), dim=n, inputs=[a, out], device=device)
    tol = 1e-12 if wp.types.type_scalar_type(dtype) is wp.float64 else 1e-5
    np.testing.assert_allclose(out.numpy(), src * 2.0 + 1.0, atol=tol)


@wp.kernel
def module_alias_kernel(a: wp.array(dtype=V5), out: wp.array(dtype=float)):
    i = wp.tid()
    v = a[i] + V5(1.0)
    out[i] = float(v[0] + v[4])


def test_module_level_alias(device):
    src = np.arange(10.0).reshape(2, 5)
    a = wp.array(src, dtype=V5, device=device)
    out = wp.zeros(2, dtype=float, device=device)
    wp.launch(module_alias_kernel, dim=2, inputs=[a, out], device=device)
    np.testing.assert_allclose(out.numpy(), src[:, 0] + src[:, 4] + 2.0)


def test_one_name_for_two_types_is_an_error():
    def make_func(dt):
        @wp.func
        def first(x: dt):
            return x

        return first

    first = make_func(wp.vec3)

    def make_kernel(dt):
        def k(a: wp.array(dtype=dt), out: wp.array(dtype=dt)):
            out[0] = first(a[0])

        return wp.Kernel(k, key="two_types")

    with pytest.raises(TypeError, match="'dt' names two types in one kernel's definitions"):
        make_kernel(wp.vec3d).compile()


def test_compiler_takes_static_aliases_and_skips_host_code():
    # `weft compile FILE.py` sees the whole file: a length from a variable is host code, not an alias
    text = ("import weft as wp\n"
            "n = 4\n"
            "H = wp.types.vector(length=n, dtype=float)\n"
            "W = wp.types.vector(3, dtype=wp.float64)\n"
            "M = wp.mat((2, 2), wp.float32)\n"
            "S = wp.vec3d\n"
            "@wp.kernel\n"
            "def k(a: wp.array(dtype=W), m: wp.array(dtype=M), s: wp.array(dtype=S)):\n"
            "    a[0] = W(1.0)\n")
    module = wp._weft.Module.compile([("alias_mod.py", text, 0)], "alias_test")
    names = [str(t) for _, t, _ in module.kernel("k").params]
    assert names == ["array(vec3d)", "array(mat22f)", "array(vec3d)"]
    with pytest.raises(wp.CompileError, match="unknown type 'H'"):
        wp._weft.Module.compile([("alias_mod2.py", text.replace("dtype=W)", "dtype=H)"), 0)], "alias_test2")


# ---- lerp of spatial vectors, spatial matrices, transforms ----


def make_lerp(dtype):
    def lerp_k(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), t: wp.array(dtype=float),
               out: wp.array(dtype=dtype)):
        out[0] = wp.lerp(a[0], b[0], t[0])

    return wp.Kernel(lerp_k, key=f"lerp_{dtype.__name__}")


@pytest.mark.parametrize("dtype", [wp.spatial_vector, wp.spatial_matrix, wp.transform])
def test_lerp_value_and_gradient(device, dtype):
    rng = np.random.default_rng(7)
    shape = (1, *dtype._shape_)
    av, bv, tv = rng.normal(size=shape), rng.normal(size=shape), 0.3
    a = wp.array(av, dtype=dtype, device=device, requires_grad=True)
    b = wp.array(bv, dtype=dtype, device=device, requires_grad=True)
    t = wp.array([tv], dtype=float, device=device, requires_grad=True)
    out = wp.zeros(1, dtype=dtype, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(make_lerp(dtype), dim=1, inputs=[a, b, t, out], device=device)
    np.testing.assert_allclose(out.numpy(), av + tv * (bv - av), rtol=1e-5, atol=1e-6)
    seed = rng.normal(size=shape)
    tape.backward(grads={out: seed})
    # d out = (1 - t) da + t db + (b - a) dt
    np.testing.assert_allclose(a.grad.numpy(), (1 - tv) * seed, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), tv * seed, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(t.grad.numpy()[0], np.sum((bv - av) * seed), rtol=1e-4)


# ---- Warp's tape idioms ----


@wp.kernel
def square_into(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_gradient_seeded_after_recording(device):
    # Warp's `y.grad = seed; tape.backward()`: the seed set after the launch is the one used
    xv = np.array([1.0, -2.0, 3.0])
    x = wp.array(xv, dtype=float, device=device, requires_grad=True)
    y = wp.zeros(3, dtype=float, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square_into, dim=3, inputs=[x, y], device=device)
    seed = np.array([0.5, 1.0, 2.0])
    y.grad = wp.array(seed, dtype=float, device=device)
    tape.backward()
    np.testing.assert_allclose(tape.gradients[x].numpy(), 2.0 * xv * seed)


@wp.struct
class Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)
    scale: float


@wp.kernel
def pair_product(p: Pair, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = p.x[i] * p.y[i] * p.scale


def test_struct_instance_gradients(device):
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, -4.0])
    p = Pair()
    p.x = wp.array(xv, dtype=float, device=device, requires_grad=True)
    p.y = wp.array(yv, dtype=float, device=device, requires_grad=False)
    p.scale = 0.5
    z = wp.zeros(2, dtype=float, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(pair_product, dim=2, inputs=[p, z], device=device)
    z.grad = wp.array([1.0, 1.0], dtype=float, device=device)
    tape.backward()
    adj = tape.gradients[p]
    assert isinstance(adj, wp.StructInstance) and adj is not p
    np.testing.assert_allclose(adj.x.numpy(), yv * 0.5)  # d z / d x = y * scale
    assert adj.y is None and adj.scale == 0.5  # no gradient array; other fields keep their values
    tape.reset()
    np.testing.assert_allclose(tape.gradients[p].x.numpy(), 0.0)


dtype = np.float32  # a module global of the same name as the factory's parameter below


def make_copy(dtype):  # noqa: F811 - the parameter shadows the global on purpose
    def copy_k(a: wp.array(dtype=dtype, ndim=2), out: wp.array(dtype=dtype)):
        out[0] = a[1, 0]

    return wp.Kernel(copy_k, key=f"copy_{dtype.__name__}")


def test_annotation_value_wins_over_a_global_of_the_same_name(device):
    a = wp.array([[1.0, 2.0], [3.0, 4.0]], dtype=wp.float64, device=device)
    out = wp.zeros(1, dtype=wp.float64, device=device)
    wp.launch(make_copy(wp.float64), dim=1, inputs=[a, out], device=device)
    assert out.numpy()[0] == 3.0
