"""Warp's host-side dtype API (issue 19): wp.types queries (type_size, np_dtype_to_warp_type ...),
Warp's class attributes of dtypes (_length_, _shape_, _wp_scalar_type_, _type_), and the Python
arithmetic, str() and constructors of vector/matrix/quaternion/transform values, each checked
against numpy computing the same thing in float64."""
import ctypes

import numpy as np
import pytest

import weft as wp

# ---- wp.types queries ----


@pytest.mark.parametrize("dtype, size, nbytes", [
    (wp.float32, 1, 4), (float, 1, 4), (int, 1, 4), (wp.float64, 1, 8), (wp.vec3, 3, 12), (wp.vec4d, 4, 32),
    (wp.mat33, 9, 36), (wp.mat22d, 4, 32), (wp.quat, 4, 16), (wp.transform, 7, 28), (wp.spatial_vector, 6, 24),
    (wp.spatial_matrix, 36, 144), (wp.types.vector(5, wp.int8), 5, 5),
])
def test_type_size_and_bytes(dtype, size, nbytes):
    assert wp.types.type_size(dtype) == size
    assert wp.types.type_size_in_bytes(dtype) == nbytes


def test_type_size_of_a_struct_is_one():
    @wp.struct
    class S:
        a: wp.vec3
        b: float

    assert wp.types.type_size(S) == 1


def test_numpy_dtype_tables_round_trip():
    for wt in wp.types.scalar_types:
        npt = wp.types.warp_type_to_np_dtype[wt]
        assert wp.types.np_dtype_to_warp_type[npt] is wt
        assert wp.types.np_dtype_to_warp_type[np.dtype(npt)] is wt
        assert wp.dtype_from_numpy(npt) is wt and wp.dtype_to_numpy(wt) is npt
        assert np.dtype(npt).itemsize == wp.types.type_size_in_bytes(wt)
    with pytest.raises(TypeError, match="Cannot convert"):
        wp.dtype_from_numpy(np.complex64)
    with pytest.raises(TypeError, match="Cannot convert"):
        wp.dtype_to_numpy(wp.vec3)


def test_scalar_type_tuples_as_warp():
    # Warp's scalar_types has no bool; scalar_and_bool_types adds it
    assert wp.bool not in wp.types.scalar_types
    assert wp.types.scalar_and_bool_types == (*wp.types.scalar_types, wp.bool)
    assert set(wp.types.scalar_types) == set(wp.types.int_types) | set(wp.types.float_types)


def test_dtype_class_attributes():
    assert wp.vec3._length_ == 3 and wp.vec3._shape_ == (3,) and wp.vec3._wp_scalar_type_ is wp.float32
    assert wp.types.matrix((2, 3), wp.float64)._shape_ == (2, 3)
    assert wp.mat33d._length_ == 9 and wp.mat33d._wp_scalar_type_ is wp.float64
    assert wp.int16._type_ is ctypes.c_int16 and wp.float32._type_ is ctypes.c_float
    # Warp's tests wrap integers through _type_: 2**16 + 3 as int16 is 3
    assert wp.int16._type_(2 ** 16 + 3).value == 3
    assert wp.types.type_scalar_type(wp.vec2h) is wp.float16
    assert wp.types.type_scalar_type(wp.float64) is wp.float64


def test_type_predicates_and_repr():
    assert wp.types.type_is_vector(wp.vec3) and not wp.types.type_is_vector(wp.mat33)
    assert wp.types.type_is_matrix(wp.mat33) and wp.types.type_is_quaternion(wp.quat)
    assert wp.types.type_is_transformation(wp.transform) and wp.types.type_is_float(float)
    assert wp.types.type_is_int(wp.uint8) and not wp.types.type_is_int(wp.float16)
    assert wp.types.type_repr(wp.vec3) == "vec3f" and wp.types.type_repr(wp.mat22d) == "mat22(d)"
    assert wp.types.type_repr(wp.types.vector(5, wp.float64)) == "vector(length=5, dtype=float64)"
    assert wp.types.type_repr(float) == "float" and wp.types.type_repr(wp.quatd) == "quatd"
    assert wp.types.types_equal(float, wp.float32) and not wp.types.types_equal(wp.vec3, wp.vec3d)
    with pytest.raises(TypeError, match="match_generic"):
        wp.types.types_equal(wp.vec3, wp.vec3, match_generic=True)
    assert wp.types.strides_from_shape((2, 3, 4), wp.vec3) == (144, 48, 12)


def test_scalar_value_truth():
    # __bool__ must return Python's bool (it returned weft.bool, which Python refuses)
    assert bool(wp.float32(0.5)) is True and bool(wp.int8(0)) is False
    assert not wp.uint32(0)


# ---- Python arithmetic of values, as Warp's ----


def test_vector_arithmetic_matches_numpy():
    a, b = np.array([1.0, -2.0, 3.5]), np.array([0.25, 4.0, -1.0])
    va, vb = wp.vec3(*a), wp.vec3(*b)
    assert np.allclose(va + vb, a + b) and np.allclose(va - vb, a - b)
    assert np.allclose(va * 2.0, a * 2.0) and np.allclose(2.0 * va, a * 2.0)
    assert np.allclose(va / 4.0, a / 4.0) and np.allclose(3.0 / va, 3.0 / a)
    assert np.allclose(1 + va, a + 1) and np.allclose(va - 1, a - 1) and np.allclose(1 - va, 1 - a)
    assert np.allclose(+va, a) and np.allclose(-va, -a)
    assert np.allclose(wp.float32(2.0) * va, 2.0 * a)
    assert type(va + vb) is wp.vec3 and type(+va) is wp.vec3


def test_products_are_the_kernel_products():
    rng = np.random.default_rng(3)
    m, n, v = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    wm, wn, wv = wp.mat33(m), wp.mat33(n), wp.vec3(v)
    assert np.allclose(np.array(wm * wn), m @ n, atol=1e-5)
    assert np.allclose(np.array(wm @ wn), m @ n, atol=1e-5)
    assert np.allclose(np.array(wm * wv), m @ v, atol=1e-5)
    assert np.allclose(np.array(wv * wm), v @ m, atol=1e-5)
    # quaternion product (x y z w), against the Hamilton product written out
    p, q = rng.normal(size=4), rng.normal(size=4)
    pv, pw, qv, qw = p[:3], p[3], q[:3], q[3]
    ref = np.concatenate([pw * qv + qw * pv + np.cross(pv, qv), [pw * qw - pv @ qv]])
    assert np.allclose(np.array(wp.quat(p) * wp.quat(q)), ref, atol=1e-5)
    # transform composition: Warp's own test values
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))
    assert list(t * wp.transform(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)) == [396.0, 432.0, 720.0, 56.0, 70.0, 84.0, -28.0]


def test_mixed_types_raise_as_warp():
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'mul' compatible with the arguments 'mat22f, mat22d'$"):
        wp.mat22f(1.0, 2.0, 3.0, 4.0) * wp.mat22d(1.0, 2.0, 3.0, 4.0)
    with pytest.raises(RuntimeError, match="'add' compatible with the arguments 'vec3f, vec3d'"):
        wp.vec3(1.0, 2.0, 3.0) + wp.vec3d(1.0, 2.0, 3.0)
    with pytest.raises(RuntimeError, match="'mul' compatible with the arguments 'vec3f, vec3f'"):
        wp.vec3(1.0, 2.0, 3.0) * wp.vec3(1.0, 2.0, 3.0)  # component-wise is wp.cw_mul
    with pytest.raises(RuntimeError, match="'div' compatible"):
        wp.vec3(1.0, 2.0, 3.0) / wp.vec3(1.0, 2.0, 3.0)


def test_str_as_warp():
    assert str(wp.vec3(1.0, 2.5, -3.0)) == "[1.0, 2.5, -3.0]"
    assert str(wp.mat22(2.0, 4.0, 6.0, 8.0)) == "[[2.0, 4.0],\n [6.0, 8.0]]"
    assert str(wp.types.vector(5, float)(0.0, 1.0, 1.0, 1.0, 1.0)) == "[0.0, 1.0, 1.0, 1.0, 1.0]"


def test_transform_constructor_forms():
    ident = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    full = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert list(wp.transform()) == ident
    assert list(wp.transform(p=(1.0, 2.0, 3.0))) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
    assert list(wp.transform(q=(4.0, 5.0, 6.0, 7.0))) == [0.0, 0.0, 0.0, 4.0, 5.0, 6.0, 7.0]
    assert list(wp.transform(q=(4.0, 5.0, 6.0, 7.0), p=(1.0, 2.0, 3.0))) == full
    assert list(wp.transform((1.0, 2.0, 3.0), q=(4.0, 5.0, 6.0, 7.0))) == full
    assert list(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(4.0, 5.0, 6.0, 7.0))) == full
    assert list(wp.transform(*full)) == full and list(wp.transform(wp.transform(*full))) == full
    with pytest.raises(TypeError, match="multiple values for argument 'p'"):
        wp.transform((1.0, 2.0, 3.0), p=(1.0, 2.0, 3.0))


def test_constructor_and_key_errors_as_warp():
    with pytest.raises(ValueError, match=r"^Invalid number of arguments in vector constructor, expected 3 elements, got 2$"):
        wp.vec3(1.0, 2.0)
    with pytest.raises(ValueError, match=r"^Invalid number of arguments in matrix constructor, expected 4 elements, got 3$"):
        wp.mat22(1.0, 2.0, 3.0)
    v = wp.vec3(1.0, 2.0, 3.0)
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None]
    with pytest.raises(KeyError, match="Invalid key None, expected int or slice"):
        v[None] = 0.0
    with pytest.raises(KeyError, match="Invalid key x, expected int or pair of ints"):
        wp.mat22()[0, "x"]
    with pytest.raises(KeyError, match="Invalid key, expected one or two indices, got 3"):
        wp.mat22()[0, 1, 0] = 1.0
    with pytest.raises(TypeError, match=r"^Invalid constant type: <class 'tuple'>$"):
        wp.constant((1, 2, 3))
    assert v[0:2] == [1.0, 2.0]  # a slice is a list, as Warp's
