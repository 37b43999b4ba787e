"""Warp's spatial_adjoint and the outer product of spatial vectors in kernels (issue 19), against
numpy (their adjoints are checked against finite differences by the builtin sweep, tests/tape)."""
import numpy as np

import weft as wp


@wp.kernel
def spatial_k(r: wp.array(dtype=wp.mat33d), s: wp.array(dtype=wp.mat33d), a: wp.array(dtype=wp.spatial_vectord),
              adj_out: wp.array(dtype=wp.spatial_matrixd), outer_out: wp.array(dtype=wp.spatial_matrixd)):
    adj_out[0] = wp.spatial_adjoint(r[0], s[0])
    outer_out[0] = wp.outer(a[0], a[1])


def test_spatial_adjoint_and_outer(device):
    rng = np.random.default_rng(21)
    R, S, A = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=(2, 6))
    adj_out = wp.zeros(1, dtype=wp.spatial_matrixd, device=device)
    outer_out = wp.zeros(1, dtype=wp.spatial_matrixd, device=device)
    wp.launch(spatial_k, dim=1, device=device,
              inputs=[wp.array([R], dtype=wp.mat33d, device=device), wp.array([S], dtype=wp.mat33d, device=device),
                      wp.array(A, dtype=wp.spatial_vectord, device=device), adj_out, outer_out])
    np.testing.assert_array_equal(adj_out.numpy()[0], np.block([[R, np.zeros((3, 3))], [S, R]]))
    np.testing.assert_allclose(outer_out.numpy()[0], np.outer(A[0], A[1]), rtol=1e-15)
