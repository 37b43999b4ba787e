"""DLPack both ways (python/weft/dlpack.py, runtime/dlpack.h): numpy on host arrays, and on a GPU
cuda arrays with Weft itself and with PyTorch when it is installed (the GPU machine has it).

The reference is memory identity: a consumer's view must have the producer's address, and a
write through one side must be read through the other."""
import numpy as np
import pytest

import weft as wp

cuda = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA GPU here")


def host_device():
    """cpu, or sim:h200 (also host memory) in builds without the CPU JIT (the GPU machine's)."""
    return "cpu" if wp.is_cpu_available() else "sim:h200"


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_numpy_views_a_weft_host_array_in_place():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), device=host_device())
    assert a.__dlpack_device__() == (1, 0)
    n = np.from_dlpack(a)
    assert n.shape == (2, 3) and n.dtype == np.float32
    assert n.ctypes.data == a.ptr
    np.testing.assert_array_equal(n, np.arange(6, dtype=np.float32).reshape(2, 3))
    a.numpy()[1, 2] = 42.0  # numpy marks DLPack imports read-only: write through Weft's own view
    assert n[1, 2] == 42.0


def test_vector_arrays_travel_with_trailing_component_dimensions():
    a = wp.array(np.arange(12, dtype=np.float64).reshape(4, 3), dtype=wp.vec3d, device=host_device())
    n = np.from_dlpack(a)
    assert n.shape == (4, 3) and n.dtype == np.float64
    back = wp.from_dlpack(a, dtype=wp.vec3d)
    assert back.shape == (4,) and back.ptr == a.ptr
    assert back.dtype == wp.vec3d


def test_weft_views_numpy_memory_without_copying_including_strides():
    n = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = wp.from_dlpack(n)
    assert a.ptr == n.ctypes.data and a.shape == (4, 6) and a.device == "cpu"
    n[2, 3] = -1.0
    assert a.numpy()[2, 3] == -1.0
    s = wp.from_dlpack(n[:, ::2])  # a strided view: 4 x 3, every other column
    assert s.shape == (4, 3) and s.strides == (24, 8) and not s.is_contiguous
    np.testing.assert_array_equal(s.numpy(), n[:, ::2])
    v = wp.from_dlpack(np.zeros((5, 3), dtype=np.float32), dtype=wp.vec3)
    assert v.shape == (5,) and v.dtype == wp.vec3


def test_from_dlpack_errors_name_the_problem():
    with pytest.raises(RuntimeError, match=r"needs trailing dimension\(s\) \(3,\) but the tensor's shape is \(5, 2\)"):
        wp.from_dlpack(np.zeros((5, 2), dtype=np.float32), dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="has float64 components but the tensor holds float32"):
        wp.from_dlpack(np.zeros((5, 3), dtype=np.float32), dtype=wp.vec3d)
    capsule = np.zeros(3, dtype=np.float32).__dlpack__()
    wp.from_dlpack(capsule)
    with pytest.raises(ValueError, match="expected an unconsumed 'dltensor' capsule"):
        wp.from_dlpack(capsule)


@cuda
def test_cuda_arrays_round_trip_and_share_device_memory():
    a = wp.array(np.arange(1000, dtype=np.float32), device="cuda:0")
    assert a.__dlpack_device__() == (2, 0)
    b = wp.from_dlpack(a)
    assert b.ptr == a.ptr and b.device == "cuda:0"
    wp.launch(add_one, dim=1000, inputs=[b], device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), np.arange(1000, dtype=np.float32) + 1.0)


@cuda
def test_torch_and_weft_share_cuda_tensors_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.arange(4096, dtype=torch.float32, device="cuda:0")
    a = wp.from_dlpack(t)
    assert a.ptr == t.data_ptr() and a.device == "cuda:0"
    wp.launch(add_one, dim=4096, inputs=[a], device="cuda:0")
    # torch's stream is ordered after Weft's by wp.from_dlpack's handshake only for work queued
    # before it; order the launch explicitly, as a user would.
    wp.synchronize_device("cuda:0")
    assert torch.equal(t.cpu(), torch.arange(4096, dtype=torch.float32) + 1.0)
    w = wp.array(np.full(256, 3.0, dtype=np.float32), device="cuda:0")
    u = torch.from_dlpack(w)
    assert u.data_ptr() == w.ptr and u.is_cuda
    u += 1.0
    torch.cuda.synchronize()
    np.testing.assert_array_equal(w.numpy(), np.full(256, 4.0, dtype=np.float32))
