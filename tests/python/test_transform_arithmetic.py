"""Warp's component-wise transform arithmetic in kernels (issue 19): t[i] reads and writes the
7 components (p then q), t + u, t - u, s * t and t * s act on them as 7 numbers. Values against
numpy; adjoints against central finite differences of the same function in float64."""
import numpy as np

import weft as wp


@wp.kernel
def transform_mix(a: wp.array(dtype=wp.transformd), b: wp.array(dtype=wp.transformd), s: wp.array(dtype=wp.float64),
                  out: wp.array(dtype=wp.transformd), comps: wp.array(dtype=wp.float64)):
    t = a[0] + b[0] * s[0] - s[0] * a[0]
    t[1] = t[1] + t[5]
    out[0] = t
    acc = wp.float64(0.0)
    for i in range(7):
        acc += wp.float64(i + 1) * a[0][i]
    comps[0] = acc


def reference(av, bv, sv):
    t = av + bv * sv - sv * av
    t[1] += t[5]
    return t, np.sum(np.arange(1, 8) * av)


def run(av, bv, sv, seed_t=None, seed_c=None):
    a = wp.array([av], dtype=wp.transformd, requires_grad=True)
    b = wp.array([bv], dtype=wp.transformd, requires_grad=True)
    s = wp.array([sv], dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.transformd, requires_grad=True)
    comps = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(transform_mix, dim=1, inputs=[a, b, s, out, comps])
    if seed_t is not None:
        tape.backward(grads={out: [seed_t], comps: [seed_c]})
    return a, b, s, out, comps


def test_transform_components_and_arithmetic_values():
    rng = np.random.default_rng(11)
    av, bv, sv = rng.normal(size=7), rng.normal(size=7), 0.7
    _, _, _, out, comps = run(av, bv, sv)
    t_ref, c_ref = reference(av, bv, sv)
    np.testing.assert_allclose(out.numpy()[0], t_ref, rtol=1e-12)
    np.testing.assert_allclose(comps.numpy()[0], c_ref, rtol=1e-12)


def test_transform_arithmetic_adjoints_match_finite_differences():
    rng = np.random.default_rng(12)
    av, bv, sv = rng.normal(size=7), rng.normal(size=7), -0.4
    seed_t, seed_c = rng.normal(size=7), 0.9
    a, b, s, _, _ = run(av, bv, sv, seed_t, seed_c)

    def loss(av_, bv_, sv_):
        t, c = reference(av_, bv_, sv_)
        return seed_t @ t + seed_c * c

    eps = 1e-6
    fd_a = [(loss(av + eps * e, bv, sv) - loss(av - eps * e, bv, sv)) / (2 * eps) for e in np.eye(7)]
    fd_b = [(loss(av, bv + eps * e, sv) - loss(av, bv - eps * e, sv)) / (2 * eps) for e in np.eye(7)]
    fd_s = (loss(av, bv, sv + eps) - loss(av, bv, sv - eps)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy()[0], fd_a, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.grad.numpy()[0], fd_b, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s.grad.numpy()[0], fd_s, rtol=1e-6)
