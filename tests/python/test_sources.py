"""The sources a kernel needs beyond its own (python/weft/sources.py): funcs calling funcs,
constants (wp.constant and plain module-level numbers, including inf and vector constants), and
funcs, structs and constants of another Python module used as `helpers_mod.name`."""
import math

import numpy as np

import helpers_mod
import weft as wp

SCALE = wp.constant(3.0)
OFFSET = wp.constant(2)
ENABLED = wp.constant(True)
AXIS = wp.constant(wp.vec3(0.0, 0.0, 1.0))
BIG = wp.constant(math.inf)
PLAIN = 0.5  # a plain module-level number is captured by value


@wp.func
def square(x: float) -> float:
    return x * x


@wp.func
def scaled_square(x: float) -> float:
    return square(x) * SCALE


@wp.kernel
def use_funcs_and_constants(x: wp.array(dtype=float), out: wp.array(dtype=float), axis: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = scaled_square(x[i]) + float(OFFSET) + PLAIN
    if ENABLED:
        out[i] = wp.min(v, BIG)
    axis[i] = AXIS


def test_funcs_and_constants(device):
    x_np = np.linspace(-2.0, 2.0, 9).astype(np.float32)
    out = wp.zeros(9, dtype=float, device=device)
    axis = wp.zeros(9, dtype=wp.vec3, device=device)
    wp.launch(use_funcs_and_constants, dim=9, inputs=[wp.array(x_np, device=device), out, axis], device=device)
    np.testing.assert_allclose(out.numpy(), x_np.astype(np.float64) ** 2 * 3.0 + 2.0 + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(axis.numpy(), np.tile([0.0, 0.0, 1.0], (9, 1)))


def test_constant_is_the_value():
    assert SCALE == 3.0 and SCALE * 2 == 6.0
    assert OFFSET + 1 == 3
    assert ENABLED
    assert AXIS == wp.vec3(0.0, 0.0, 1.0)


@wp.kernel
def use_other_module(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
                     segs: wp.array(dtype=helpers_mod.Segment), lengths: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = helpers_mod.lerp3(a[i], b[i])
    lengths[i] = helpers_mod.segment_length(segs[i]) * helpers_mod.BLEND


def test_funcs_structs_constants_of_another_module(device):
    n = 6
    a_np = np.random.default_rng(1).standard_normal((n, 3))
    b_np = np.random.default_rng(2).standard_normal((n, 3))
    out = wp.zeros(n, dtype=wp.vec3, device=device)
    segs = wp.array([helpers_mod.Segment(a=wp.vec3(0.0, 0.0, 0.0), b=wp.vec3(0.0, 3.0 * k, 4.0 * k)) for k in range(n)],
                    dtype=helpers_mod.Segment, device=device)
    lengths = wp.zeros(n, dtype=float, device=device)
    wp.launch(use_other_module, dim=n,
              inputs=[wp.array(a_np, dtype=wp.vec3, device=device), wp.array(b_np, dtype=wp.vec3, device=device), out,
                      segs, lengths], device=device)
    np.testing.assert_allclose(out.numpy(), a_np + 0.25 * (b_np - a_np), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lengths.numpy(), 5.0 * np.arange(n) * 0.25, rtol=1e-6)


def test_sources_handed_to_the_compiler():
    chunks = use_funcs_and_constants.sources()
    paths = [c[0] for c in chunks]
    assert paths[0] == "<weft imports>" and "import weft as wp" in chunks[0][1]
    constants = chunks[1][1]
    assert "SCALE = wp.constant(3.0)" in constants and "BIG = wp.constant(wp.inf)" in constants
    assert "AXIS = wp.constant(wp.vec3f(0.0, 0.0, 1.0))" in constants
    # Every definition keeps its file and line: the kernel's chunk starts at its decorator.
    kernel_path, kernel_text, offset = chunks[-1]
    assert kernel_path == __file__ and kernel_text.startswith("@wp.kernel")
    assert offset + 1 == use_funcs_and_constants.func.__code__.co_firstlineno
    # Callees come before callers.
    names = [t.split("def ")[1].split("(")[0] for _, t, _ in chunks if "def " in t]
    assert names.index("square") < names.index("scaled_square") < names.index("use_funcs_and_constants")


def _make_closure_kernel(factor):
    @wp.kernel
    def scale_by_factor(values: wp.array(dtype=float)):
        i = wp.tid()
        values[i] = square(values[i]) * FACTOR

    FACTOR = factor  # noqa: F841 (read by the kernel through its closure)
    return scale_by_factor


def test_kernel_defined_in_a_function_sees_its_closure(device):
    k = _make_closure_kernel(4.0)
    a = wp.array([1.0, 2.0, 3.0], device=device)
    wp.launch(k, dim=3, inputs=[a], device=device)
    assert a.list() == [4.0, 16.0, 36.0]


@wp.func
def cube(x: float) -> float:
    return x * x * x


@wp.func_grad(cube)
def adj_cube(x: float, adj_ret: float) -> float:
    return 3.0 * x * x * adj_ret


@wp.kernel
def uses_func_with_custom_grad(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = cube(values[i])


def test_func_grad_is_compiled_with_its_func(device):
    chunks = uses_func_with_custom_grad.sources()
    assert any("@wp.func_grad(cube)" in text for _, text, _ in chunks)
    a = wp.array([2.0, -1.0], device=device)
    wp.launch(uses_func_with_custom_grad, dim=2, inputs=[a], device=device)
    assert a.list() == [8.0, -1.0]


@wp.kernel
def grid_3d(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 100 + j * 10 + k


def test_3d_launch(device):
    out = wp.zeros((3, 4, 5), dtype=int, device=device)
    wp.launch(grid_3d, dim=(3, 4, 5), inputs=[out], device=device)
    i, j, k = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(out.numpy(), i * 100 + j * 10 + k)
