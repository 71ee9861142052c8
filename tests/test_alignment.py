"""Tests of ktheory.alignment against independent oracles.

Oracles: sympy (symbolic centering), scikit-learn's KernelCenterer, explicit
loops for the defining U-statistic of the unbiased HSIC, brute-force search
over the circle / sphere for alignf, and Hoelder's inequality for align.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import minimize
from sklearn.preprocessing import KernelCenterer

from ktheory.alignment import (
    align_weights,
    alignf_weights,
    center_kernel,
    cka,
    hsic,
    ideal_kernel,
    hsic_permutation_test,
    kta,
    kta_deviation_bound,
    linear_cka,
    minibatch_cka,
    minibatch_cka_batches,
)


def _rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# array namespaces (issue 32): the tests below marked with the ``ns`` fixture run on numpy,
# on array-api-strict (its default device; ``device1``, whose arrays refuse conversion to
# numpy, so that a hidden host copy fails; ``no_float64``, where a float64 upcast fails)
# and on Dask, each against the numpy float64 oracle of the test. A namespace whose package
# is not installed is skipped.
# ---------------------------------------------------------------------------
class _NS:
    def __init__(self, name):
        self.name = name
        self.f32 = name == "strict_no_float64"
        if name.startswith("strict"):
            self.xps = pytest.importorskip("array_api_strict")
            self.device = self.xps.Device({"strict": "CPU_DEVICE", "strict_device1": "device1",
                                           "strict_no_float64": "no_float64"}[name])
        elif name == "dask":
            self.da = pytest.importorskip("dask.array")

    def __repr__(self):
        return self.name

    def to(self, A):
        """``A`` (numpy) as an array of this namespace (float32 on the device without float64)."""
        A = np.asarray(A)
        if self.name == "numpy":
            return A
        if self.name == "dask":
            chunks = tuple(max(1, -(-s // 3)) for s in A.shape)  # several chunks per axis
            return self.da.from_array(A, chunks=chunks)
        dt = self.xps.float32 if self.f32 else self.xps.float64
        return self.xps.asarray(A.astype(np.float64), dtype=dt, device=self.device)

    def back(self, A):
        """An array returned by ktheory, checked to be of this namespace, device and dtype, as numpy."""
        if self.name == "numpy":
            assert isinstance(A, np.ndarray)
            return A
        if self.name == "dask":
            assert isinstance(A, self.da.Array)
            return A.compute()
        assert isinstance(A, type(self.xps.asarray(0.0))) and A.device == self.device
        assert A.dtype == (self.xps.float32 if self.f32 else self.xps.float64)
        return np.asarray(A.to_device(self.xps.Device("CPU_DEVICE")))

    def rel(self, rel):
        """A relative tolerance of a float64 test, widened to float32 rounding on float32 devices."""
        return max(rel, 2e-5) if self.f32 else rel

    def abs(self, a):
        return max(a, 1e-5) if self.f32 else a


NAMESPACES = ["numpy", "strict", "strict_device1", "strict_no_float64", "dask"]


@pytest.fixture(params=NAMESPACES)
def ns(request):
    return _NS(request.param)


def _H(n):
    return np.eye(n) - np.ones((n, n)) / n


def _psd(rng, n, rank=None, offset=0.0):
    F = rng.standard_normal((n, rank or n)) + offset
    return F @ F.T


# ---------------------------------------------------------------------------
# centering
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 5, 40])
def test_center_kernel_matches_sklearn_kernelcenterer(n, ns):
    rng = _rng(n)
    K = _psd(rng, n, offset=3.0)
    expected = KernelCenterer().fit_transform(K)
    np.testing.assert_allclose(ns.back(center_kernel(ns.to(K))), expected, rtol=0,
                               atol=(1e-10 if not ns.f32 else 1e-6) * np.abs(K).max())


def test_center_kernel_symbolic_equals_HKH():
    n = 3
    K = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"k{i}{j}"))
    H = sp.eye(n) - sp.ones(n, n) / n
    HKH = H * K * H
    # formula (12) with separate summation indices
    Kc = sp.Matrix(
        n,
        n,
        lambda i, j: K[i, j]
        - sum(K[u, j] for u in range(n)) / n
        - sum(K[i, v] for v in range(n)) / n
        + sum(K[u, v] for u in range(n) for v in range(n)) / n**2,
    )
    assert sp.simplify(HKH - Kc) == sp.zeros(n, n)
    # and the numerical function reproduces it on a non-symmetric matrix
    vals = _rng(1).standard_normal((n, n))
    subs = {sp.Symbol(f"k{i}{j}"): vals[i, j] for i in range(n) for j in range(n)}
    np.testing.assert_allclose(center_kernel(vals), np.array(HKH.subs(subs), dtype=float), atol=1e-13)


def test_center_kernel_equals_gram_of_centered_features(ns):
    rng = _rng(2)
    X = rng.standard_normal((12, 4)) + 5.0
    Xc = X - X.mean(axis=0)
    np.testing.assert_allclose(ns.back(center_kernel(ns.to(X @ X.T))), Xc @ Xc.T,
                               atol=1e-10 if not ns.f32 else 2e-4)


def test_center_kernel_does_not_modify_input_and_is_idempotent(ns):
    K = _psd(_rng(3), 6)
    K0 = K.copy()
    Kx = ns.to(K)
    Kc = center_kernel(Kx)
    np.testing.assert_array_equal(K, K0)
    if ns.name != "numpy":
        np.testing.assert_array_equal(ns.back(Kx), K.astype(np.float32) if ns.f32 else K)
    np.testing.assert_allclose(ns.back(center_kernel(Kc)), ns.back(Kc), atol=ns.abs(1e-12) * 10)
    np.testing.assert_allclose(ns.back(Kc).sum(axis=0), 0.0, atol=1e-11 if not ns.f32 else 1e-4)


# ---------------------------------------------------------------------------
# KTA, CKA, linear CKA, HSIC
# ---------------------------------------------------------------------------
def test_kta_matches_definition_with_sums(ns):
    rng = _rng(4)
    A, B = _psd(rng, 7), _psd(rng, 7)
    num = sum(A[i, j] * B[i, j] for i in range(7) for j in range(7))
    den = np.sqrt(sum(A[i, j] ** 2 for i in range(7) for j in range(7))) * np.sqrt(
        sum(B[i, j] ** 2 for i in range(7) for j in range(7))
    )
    assert kta(ns.to(A), ns.to(B)) == pytest.approx(num / den, rel=ns.rel(1e-12))
    assert kta(ns.to(A), ns.to(3.0 * A)) == pytest.approx(1.0, rel=ns.rel(1e-14))


def test_kta_of_constant_kernel_with_unbalanced_target_is_large_but_cka_undefined(ns):
    y = np.array([1] * 9 + [-1])
    J = np.ones((10, 10))
    # KTA(11^T, yy^T) = (1^T y)^2 / n^2 = (8/10)^2
    assert kta(ns.to(J), ns.to(ideal_kernel(y))) == pytest.approx(0.64, rel=ns.rel(1e-14))
    with pytest.raises(ValueError, match="K1 has a centered Frobenius norm"):
        cka(ns.to(J), ns.to(ideal_kernel(y)))


@pytest.mark.parametrize("d1,d2,offset", [(3, 3, 0.0), (5, 2, 4.0), (1, 7, -2.0), (20, 30, 1.0)])
def test_gram_cka_equals_linear_cka(d1, d2, offset, ns):
    rng = _rng(d1 * 31 + d2)
    n = 60
    X = rng.standard_normal((n, d1)) + offset
    Y = X[:, :1] ** 2 @ np.ones((1, d2)) + rng.standard_normal((n, d2))
    ref = linear_cka(X, Y)  # numpy, float64
    assert abs(cka(X @ X.T, Y @ Y.T) - ref) < 1e-12
    assert abs(cka(ns.to(X @ X.T), ns.to(Y @ Y.T)) - ref) < ns.abs(1e-12)
    assert abs(linear_cka(ns.to(X), ns.to(Y)) - ref) < ns.abs(1e-12)


def test_cka_equals_normalised_biased_hsic(ns):
    rng = _rng(5)
    K, L = _psd(rng, 15, rank=3), _psd(rng, 15, rank=4)
    ratio = hsic(K, L) / np.sqrt(hsic(K, K) * hsic(L, L))
    assert cka(ns.to(K), ns.to(L)) == pytest.approx(ratio, rel=ns.rel(1e-12))
    Kx, Lx = ns.to(K), ns.to(L)
    ratio_x = hsic(Kx, Lx) / np.sqrt(hsic(Kx, Kx) * hsic(Lx, Lx))
    assert ratio_x == pytest.approx(ratio, rel=ns.rel(1e-12))


def test_biased_hsic_matches_trace_formula(ns):
    rng = _rng(6)
    n = 9
    K, L = _psd(rng, n), _psd(rng, n, rank=2)
    H = _H(n)
    assert hsic(ns.to(K), ns.to(L)) == pytest.approx(np.trace(K @ H @ L @ H) / (n - 1) ** 2,
                                                      rel=ns.rel(1e-12))


def _hsic_u_statistic(K, L):
    """Defining U-statistic of Song et al. (2012), Theorem 2, by explicit loops."""
    n = K.shape[0]
    total = 0.0
    count = 0
    for i, j, q, r in itertools.permutations(range(n), 4):
        h = 0.0
        for t, u, v, w in itertools.permutations((i, j, q, r)):
            h += K[t, u] * L[t, u] + K[t, u] * L[v, w] - 2.0 * K[t, u] * L[t, v]
        total += h / 24.0
        count += 1
    return total / count


@pytest.mark.parametrize("n", [4, 5, 6])
def test_unbiased_hsic_equals_u_statistic(n, ns):
    rng = _rng(100 + n)
    X = rng.standard_normal((n, 2))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    L = (1.0 + X @ X.T) ** 2
    assert hsic(ns.to(K), ns.to(L), unbiased=True) == pytest.approx(
        _hsic_u_statistic(K, L), rel=1e-10 if not ns.f32 else 1e-4, abs=1e-12 if not ns.f32 else 1e-5)


def test_unbiased_hsic_ignores_diagonal_and_differs_from_biased(ns):
    rng = _rng(7)
    K, L = _psd(rng, 8), _psd(rng, 8)
    K2 = K + np.diag(rng.uniform(1, 5, 8))
    ref = hsic(K, L, unbiased=True)
    assert hsic(ns.to(K), ns.to(L), unbiased=True) == pytest.approx(ref, rel=ns.rel(1e-12) * 5)
    assert hsic(ns.to(K2), ns.to(L), unbiased=True) == pytest.approx(ref, rel=ns.rel(1e-12) * 5)
    assert hsic(ns.to(K), ns.to(L)) != pytest.approx(hsic(K2, L), rel=1e-3)


def test_pearson_form_can_be_negative_for_psd_kernels_while_cka_is_not(ns):
    # seed eq. (14): correlation of the entries; K = e1 e1^T, K' = e2 e2^T are PSD
    n = 3
    K = np.zeros((n, n))
    K[0, 0] = 1.0
    Kp = np.zeros((n, n))
    Kp[1, 1] = 1.0
    pearson = np.corrcoef(K.ravel(), Kp.ravel())[0, 1]
    assert pearson == pytest.approx(-1.0 / 8.0, rel=1e-12)
    assert cka(ns.to(K), ns.to(Kp)) == pytest.approx(0.25, rel=ns.rel(1e-12))  # (1/9) / ((2/3)^2)
    assert kta(ns.to(K), ns.to(Kp)) == 0.0


def test_cka_negative_for_indefinite_matrices(ns):
    A = np.diag([1.0, -1.0, 0.0])
    assert cka(ns.to(A), ns.to(-A)) == pytest.approx(-1.0, rel=ns.rel(1e-12))


# ---------------------------------------------------------------------------
# ideal kernel
# ---------------------------------------------------------------------------
def test_ideal_kernel_binary_is_yyT_independent_of_coding():
    y = np.array([1, -1, -1, 1, 1])
    np.testing.assert_array_equal(ideal_kernel(y), np.outer(y, y))
    np.testing.assert_array_equal(ideal_kernel(["b", "a", "a", "b", "b"]), np.outer(y, y))
    np.testing.assert_array_equal(ideal_kernel([0, 1, 1, 0, 0]), np.outer(y, y))


def test_ideal_kernel_multiclass_is_simplex_gram():
    y = np.array([0, 1, 2, 2, 0, 1, 3])
    K = ideal_kernel(y)
    c = 4
    V = np.eye(c) - 1.0 / c
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    np.testing.assert_allclose(K, V[y] @ V[y].T, atol=1e-14)
    assert np.linalg.matrix_rank(K) == c - 1


# ---------------------------------------------------------------------------
# align and alignf
# ---------------------------------------------------------------------------
def _toy_kernels(seed=0, n=24):
    rng = _rng(seed)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [1.0, -1.0]
    N = _psd(rng, n, rank=3)
    Z = _psd(rng, n, rank=2)
    K1 = np.outer(y, y) + N  # target plus noise
    K2 = N + 0.5 * Z  # mostly the same noise
    K3 = _psd(rng, n, rank=5)
    return [K1, K2, K3], y


def _alignment_of(mu, kernels, y):
    return cka(sum(m * K for m, K in zip(mu, kernels)), ideal_kernel(y))


def _sphere_grid(p, nonnegative, m):
    if p == 2:
        t = np.linspace(0, np.pi / 2 if nonnegative else 2 * np.pi, m)
        return np.c_[np.cos(t), np.sin(t)]
    th = np.linspace(0, np.pi / 2 if nonnegative else np.pi, m)
    ph = np.linspace(0, np.pi / 2 if nonnegative else 2 * np.pi, m)
    T, P = np.meshgrid(th, ph)
    return np.c_[(np.sin(T) * np.cos(P)).ravel(), (np.sin(T) * np.sin(P)).ravel(), np.cos(T).ravel()]


def _brute_force_max(kernels, y, nonnegative):
    p = len(kernels)
    KYc = center_kernel(ideal_kernel(y))
    Kcs = np.array([center_kernel(K) for K in kernels])

    def f(mu):
        Kmu = np.tensordot(mu, Kcs, axes=1)
        nk = np.linalg.norm(Kmu)
        return np.vdot(Kmu, KYc) / (nk * np.linalg.norm(KYc)) if nk > 1e-12 else -np.inf

    grid = _sphere_grid(p, nonnegative, 400 if p == 2 else 120)
    vals = np.array([f(mu) for mu in grid])
    best = float(vals.max())
    # refine the best grid points locally (bounded in the convex case)
    bounds = [(0, None)] * p if nonnegative else None
    for idx in np.argsort(vals)[-5:]:
        res = minimize(lambda m: -f(m) if np.linalg.norm(m) > 1e-9 else np.inf, grid[idx],
                       method="L-BFGS-B" if nonnegative else "BFGS", bounds=bounds)
        if nonnegative and np.any(res.x < -1e-12):
            continue
        best = max(best, -float(res.fun))
    return best


@pytest.mark.parametrize("p", [2, 3])
@pytest.mark.parametrize("nonnegative", [True, False])
def test_alignf_matches_brute_force_search(p, nonnegative):
    kernels, y = _toy_kernels(seed=p)
    kernels = kernels[:p]
    mu = alignf_weights(kernels, y, nonnegative=nonnegative)
    assert np.linalg.norm(mu) == pytest.approx(1.0, rel=1e-12)
    if nonnegative:
        assert np.all(mu >= 0)
    got = _alignment_of(mu, kernels, y)
    best = _brute_force_max(kernels, y, nonnegative)
    assert got >= best - 1e-9
    assert got <= best + 1e-6  # brute force is within its resolution of the optimum


def test_alignf_linear_equals_closed_form_and_convex_differs_when_weights_negative():
    kernels, y = _toy_kernels(seed=11)
    KY = ideal_kernel(y)
    Kcs = [center_kernel(K) for K in kernels]
    a = np.array([np.vdot(Kc, KY) for Kc in Kcs])
    M = np.array([[np.vdot(A, B) for B in Kcs] for A in Kcs])
    closed = np.linalg.solve(M, a)
    closed /= np.linalg.norm(closed)
    lin = alignf_weights(kernels, y, nonnegative=False)
    np.testing.assert_allclose(lin, closed, atol=1e-9)
    assert closed.min() < 0  # the closed form leaves the convex set here
    conv = alignf_weights(kernels, y, nonnegative=True)
    assert conv.min() >= 0
    assert _alignment_of(conv, kernels, y) < _alignment_of(lin, kernels, y)
    # the combination with the closed-form weights is not PSD, the convex one is
    assert np.linalg.eigvalsh(sum(m * K for m, K in zip(closed, kernels))).min() < -1e-8
    assert np.linalg.eigvalsh(sum(m * K for m, K in zip(conv, kernels))).min() > -1e-9


def test_alignf_convex_is_qp_solution():
    kernels, y = _toy_kernels(seed=12)
    KY = ideal_kernel(y)
    Kcs = [center_kernel(K) for K in kernels]
    a = np.array([np.vdot(Kc, KY) for Kc in Kcs])
    M = np.array([[np.vdot(A, B) for B in Kcs] for A in Kcs])
    res = minimize(lambda v: v @ M @ v - 2 * v @ a, np.ones(3), jac=lambda v: 2 * M @ v - 2 * a,
                   method="L-BFGS-B", bounds=[(0, None)] * 3, options={"ftol": 1e-15, "gtol": 1e-12})
    v = res.x / np.linalg.norm(res.x)
    np.testing.assert_allclose(alignf_weights(kernels, y), v, atol=1e-5)


def test_alignf_with_singular_M():
    kernels, y = _toy_kernels(seed=13)
    K1, K2, _ = kernels
    dup = [K1, K1.copy(), K2]  # M is singular
    for nonneg in (True, False):
        mu = alignf_weights(dup, y, nonnegative=nonneg)
        best = alignf_weights([K1, K2], y, nonnegative=nonneg)
        assert _alignment_of(mu, dup, y) == pytest.approx(_alignment_of(best, [K1, K2], y), rel=1e-9)
    # a constant kernel contributes nothing after centering
    mu = alignf_weights([K1, np.ones_like(K1)], y, nonnegative=False)
    assert mu[0] == pytest.approx(1.0) and mu[1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("q", [1.5, 2.0, 3.0, 7.0])
def test_align_weights_solve_the_lq_problem(q):
    kernels, y = _toy_kernels(seed=14)
    KY = ideal_kernel(y)
    a = np.array([np.vdot(center_kernel(K), KY) for K in kernels])
    mu = align_weights(kernels, y, q=q)
    assert np.sum(np.abs(mu) ** q) == pytest.approx(1.0, rel=1e-12)
    # Hoelder: max a^T mu over ||mu||_q <= 1 equals ||a||_{q*}
    qs = q / (q - 1)
    assert mu @ a == pytest.approx(np.sum(np.abs(a) ** qs) ** (1 / qs), rel=1e-10)
    # brute force over the l_q unit sphere in the first two coordinates (p = 2)
    t = np.linspace(0, 2 * np.pi, 200001)
    c, s = np.cos(t), np.sin(t)
    pts = np.c_[c, s] / ((np.abs(c) ** q + np.abs(s) ** q) ** (1 / q))[:, None]
    mu2 = align_weights(kernels[:2], y, q=q)
    assert mu2 @ a[:2] >= (pts @ a[:2]).max() - 1e-9 * np.abs(a).max()


def test_align_weights_q2_on_normalised_kernels_proportional_to_cka():
    kernels, y = _toy_kernels(seed=15)
    normed = [K / np.linalg.norm(center_kernel(K)) for K in kernels]
    mu = align_weights(normed, y, q=2)
    rho = np.array([cka(K, ideal_kernel(y)) for K in kernels])
    np.testing.assert_allclose(mu, rho / np.linalg.norm(rho), atol=1e-12)


# ---------------------------------------------------------------------------
# hypothesis properties
# ---------------------------------------------------------------------------
_feat = hnp.arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(1, 5)),
                   elements=st.floats(-10, 10, allow_nan=False, width=64))


def _nondegenerate(X):
    Xc = X - X.mean(axis=0)
    return np.linalg.norm(Xc) > 1e-3 * max(1.0, np.abs(X).max())


@settings(max_examples=60, deadline=None)
@given(X=_feat, seed=st.integers(0, 2**32 - 1))
def test_cka_in_unit_interval_and_symmetric_for_psd(X, seed):
    assume(_nondegenerate(X))
    rng = np.random.default_rng(seed)
    Y = rng.standard_normal((X.shape[0], 3))
    K = X @ X.T
    L = np.exp(-0.1 * ((Y[:, None] - Y[None]) ** 2).sum(-1))
    assume(np.linalg.norm(center_kernel(L)) > 1e-6)
    v = cka(K, L)
    assert -1e-12 <= v <= 1 + 1e-12
    assert v == pytest.approx(cka(L, K), rel=1e-12, abs=1e-14)
    assert 0 <= kta(K, L) <= 1 + 1e-12


@settings(max_examples=60, deadline=None)
@given(X=_feat, seed=st.integers(0, 2**32 - 1), scale=st.floats(0.01, 100))
def test_linear_cka_invariant_to_orthogonal_maps_and_isotropic_scaling(X, seed, scale):
    assume(_nondegenerate(X))
    rng = np.random.default_rng(seed)
    n, d = X.shape
    Y = rng.standard_normal((n, 4))
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    base = linear_cka(X, Y)
    assert linear_cka(scale * X @ Q + 3.0, Y) == pytest.approx(base, rel=1e-8, abs=1e-10)
    assert linear_cka(Y, X) == pytest.approx(base, rel=1e-10, abs=1e-12)


def test_linear_cka_not_invariant_to_general_invertible_maps(ns):
    rng = _rng(8)
    X = rng.standard_normal((100, 3))
    Y = X[:, :1] + 0.1 * rng.standard_normal((100, 1))
    A = np.diag([1.0, 50.0, 50.0])  # invertible, not a multiple of an orthogonal map
    before, after = linear_cka(ns.to(X), ns.to(Y)), linear_cka(ns.to(X @ A), ns.to(Y))
    assert before == pytest.approx(linear_cka(X, Y), abs=ns.abs(1e-12))
    assert after == pytest.approx(linear_cka(X @ A, Y), abs=ns.abs(1e-12))
    assert before > 0.45 and after < 0.1 * before
    # although X @ A carries exactly the same information (same column space)
    assert np.linalg.matrix_rank(np.c_[X, X @ A]) == 3


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), c=st.floats(-5, 5), s=st.floats(0.1, 10))
def test_cka_invariant_to_kernel_scaling_and_constant_offset(seed, c, s):
    rng = np.random.default_rng(seed)
    K, L = _psd(rng, 8, rank=3), _psd(rng, 8, rank=2)
    assert cka(s * K + c, L) == pytest.approx(cka(K, L), rel=1e-8, abs=1e-10)


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------
def test_errors_name_the_argument(ns):
    t = ns.to
    K = _psd(_rng(9), 5)
    bad = K.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="K2 contains NaN"):
        cka(t(K), t(bad))
    bad[0, 1] = np.inf
    with pytest.raises(ValueError, match="K1 contains NaN"):
        kta(t(bad), t(K))
    with pytest.raises(ValueError, match="K must be a square"):
        center_kernel(t(np.ones((3, 4))))
    with pytest.raises(ValueError, match="same shape"):
        cka(t(K), t(K[:4, :4]))
    asym = K.copy()
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match="L must be symmetric"):
        hsic(t(K), t(asym))
    with pytest.raises(ValueError, match="n >= 4"):
        hsic(t(K[:3, :3]), t(K[:3, :3]), unbiased=True)
    with pytest.raises(TypeError, match="unbiased must be a bool"):
        hsic(t(K), t(K), unbiased="yes")
    with pytest.raises(ValueError, match="same number of rows"):
        linear_cka(t(np.ones((5, 2))), t(np.ones((4, 2))))
    with pytest.raises(ValueError, match="X has a centered Frobenius norm"):
        linear_cka(t(np.full((5, 2), 0.1)), t(_rng(1).standard_normal((5, 2))))
    with pytest.raises(ValueError, match="2-D"):
        linear_cka(t(np.ones(5)), t(np.ones((5, 2))))
    with pytest.raises(ValueError, match="K1 has a Frobenius norm"):
        kta(t(np.zeros((3, 3))), t(K[:3, :3]))


def test_mkl_errors():
    kernels, y = _toy_kernels(seed=16)
    with pytest.raises(ValueError, match="single class"):
        alignf_weights(kernels, np.ones(len(y)))
    with pytest.raises(ValueError, match=r"kernels\[1\] has shape"):
        align_weights([kernels[0], kernels[1][:5, :5]], y)
    with pytest.raises(ValueError, match="q must be > 1"):
        align_weights(kernels, y, q=1)
    with pytest.raises(ValueError, match="kernels is empty"):
        alignf_weights([], y)
    with pytest.raises(ValueError, match="undefined"):
        alignf_weights([np.ones((len(y), len(y)))], y)
    with pytest.raises(ValueError, match="y contains NaN"):
        ideal_kernel([1.0, np.nan])
    with pytest.raises(TypeError, match="nonnegative must be a bool"):
        alignf_weights(kernels, y, nonnegative=None)
    np.testing.assert_allclose(alignf_weights(np.array(kernels), y), alignf_weights(kernels, y))


@pytest.mark.parametrize("pos", [(0, 1), (5, 590), (300, 599), (599, 0)])
def test_blocked_symmetry_check_finds_asymmetry_in_any_tile(pos, ns):
    K = _psd(_rng(17), 600, rank=5)
    cka(ns.to(K), ns.to(K))  # symmetric: accepted
    bad = K.copy()
    bad[pos] += (1e-6 if not ns.f32 else 1e-4) * np.abs(K).max()  # above float32's rounding level
    with pytest.raises(ValueError, match="K1 must be symmetric"):
        cka(ns.to(bad), ns.to(K))


# ---------------------------------------------------------------------------
# linear CKA memory, concentration bound, minibatch CKA, permutation test (issue 18)
# ---------------------------------------------------------------------------
def _peak_bytes(f):
    import tracemalloc

    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_linear_cka_memory_is_linear_in_n():
    """O(n d) memory: a few copies of the inputs, never an n x n matrix (which would be GBs)."""
    rng = _rng(2024)
    d1, d2 = 6, 4
    peaks = {}
    for n in (20_000, 40_000):
        X, Y = rng.standard_normal((n, d1)), rng.standard_normal((n, d2))
        peaks[n] = _peak_bytes(lambda: linear_cka(X, Y))
        assert peaks[n] < 3 * n * (d1 + d2) * 8 + 2**20, (n, peaks[n])  # measured: 1.04x
        assert peaks[n] < n * n * 8 / 100  # far below one n x n float64 matrix
    assert peaks[40_000] / peaks[20_000] < 2.5  # linear, not quadratic, growth


def _population_alignment(P, K, T):
    """Alignment of two kernel functions under the discrete distribution P (exact sums)."""
    e = lambda G: float(P @ G @ P)  # noqa: E731
    return e(K * T) / np.sqrt(e(K * K) * e(T * T)), 1.0 / min(e(K * K), e(T * T))


def test_kta_deviation_bound_formula_and_validity():
    assert kta_deviation_bound(100, 0.1, 2.0) == pytest.approx(
        8.0 * (np.sqrt(8 * np.log(60.0) / 100) + 0.02), rel=1e-14)
    # a finite population of N points: the true alignment is an exact finite sum
    rng = _rng(5)
    N = 40
    Z = rng.standard_normal((N, 2))
    y = np.where(Z[:, 0] + 0.5 * rng.standard_normal(N) > 0, 1.0, -1.0)
    K = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / 2.0)
    T = np.outer(y, y)
    P = rng.dirichlet(np.ones(N))
    A, beta = _population_alignment(P, K, T)
    # the count form of the empirical alignment equals kta of the expanded sample
    idx = rng.choice(N, size=30, p=P)
    c = np.bincount(idx, minlength=N).astype(float)
    count_form = (c @ (K * T) @ c) / np.sqrt((c @ (K * K) @ c) * (c @ (T * T) @ c))
    assert count_form == pytest.approx(kta(K[np.ix_(idx, idx)], T[np.ix_(idx, idx)]), rel=1e-12)
    delta = 0.05
    for m in (2_000, 200_000):
        counts = rng.multinomial(m, P, size=3000).astype(float)
        num = np.einsum("ri,ij,rj->r", counts, K * T, counts)
        den = np.sqrt(np.einsum("ri,ij,rj->r", counts, K * K, counts)
                      * np.einsum("ri,ij,rj->r", counts, T * T, counts))
        dev = np.abs(num / den - A)
        bound = kta_deviation_bound(m, delta, beta)
        assert np.mean(dev > bound) <= delta
        assert dev.max() <= bound
        # the deviation really shrinks like 1/sqrt(m): the bound is not met vacuously
        assert np.quantile(dev, 0.95) < bound / 5
    assert kta_deviation_bound(200_000, delta, beta) < 0.3  # informative at this size


def _population_linear_cka(Sx, W, s2):
    """Population linear CKA of X ~ N(0, Sx) and Y = X W + noise (variance s2)."""
    Sxy = Sx @ W
    Syy = W.T @ Sx @ W + s2 * np.eye(W.shape[1])
    return np.sum(Sxy**2) / (np.linalg.norm(Sx) * np.linalg.norm(Syy))


def test_minibatch_cka_equals_batchwise_u_statistics(ns):
    rng = _rng(31)
    X, Y = rng.standard_normal((17, 3)), rng.standard_normal((17, 2))
    Y[:, 0] += X[:, 0]
    b = 5
    got = minibatch_cka(ns.to(X), ns.to(Y), b, random_state=4)
    order = np.random.default_rng(4).permutation(17)[:15].reshape(3, 5)  # same shuffle
    kl = kk = ll = 0.0
    for idx in order:
        K, L = X[idx] @ X[idx].T, Y[idx] @ Y[idx].T
        kl += _hsic_u_statistic(K, L)
        kk += _hsic_u_statistic(K, K)
        ll += _hsic_u_statistic(L, L)
    assert got == pytest.approx(kl / np.sqrt(kk * ll), rel=ns.rel(1e-10))
    # one batch holding the whole sample: the "debiased CKA" of the full sample
    K, L = X @ X.T, Y @ Y.T
    debiased = hsic(K, L, True) / np.sqrt(hsic(K, K, True) * hsic(L, L, True))
    assert minibatch_cka(ns.to(X), ns.to(Y), 17, random_state=0) == pytest.approx(debiased, rel=ns.rel(1e-10))
    assert debiased != pytest.approx(linear_cka(X, Y), rel=1e-3)


def test_minibatch_cka_batches_equals_array_form_and_u_statistics(ns):
    rng = _rng(32)
    n, b = 230, 20
    X = rng.standard_normal((n, 5))
    Y = np.tanh(X[:, :3]) + 0.4 * rng.standard_normal((n, 3))
    order = np.random.default_rng(6).permutation(n)[: (n // b) * b].reshape(-1, b)
    gen = ((ns.to(X[i]), ns.to(Y[i])) for i in order)  # a generator: consumed once, never a list
    ref = minibatch_cka(X, Y, b, random_state=6)
    assert minibatch_cka_batches(gen) == pytest.approx(ref, rel=ns.rel(1e-12))
    assert minibatch_cka(ns.to(X), ns.to(Y), b, random_state=6) == pytest.approx(ref, rel=ns.rel(1e-12))
    # batches of different sizes: the formula from brute-force U-statistics
    cuts = [0, 5, 12, 18]
    parts = [(X[a:c], Y[a:c]) for a, c in itertools.pairwise(cuts)]
    kl = kk = ll = 0.0
    for Xb, Yb in parts:
        K, L = Xb @ Xb.T, Yb @ Yb.T
        kl += _hsic_u_statistic(K, L)
        kk += _hsic_u_statistic(K, K)
        ll += _hsic_u_statistic(L, L)
    assert minibatch_cka_batches(parts) == pytest.approx(kl / np.sqrt(kk * ll), rel=1e-10)
    parts_x = [(ns.to(Xb), ns.to(Yb)) for Xb, Yb in parts]
    assert minibatch_cka_batches(parts_x) == pytest.approx(kl / np.sqrt(kk * ll), rel=ns.rel(1e-10))
    # extreme scales: exact powers of two from the first batch
    big = [(1e200 * Xb, 1e-200 * Yb) for Xb, Yb in parts]
    assert minibatch_cka_batches(big) == pytest.approx(kl / np.sqrt(kk * ll), rel=1e-10)
    s = 1e30 if ns.f32 else 1e200
    big_x = [(ns.to(s * Xb), ns.to(Yb / s)) for Xb, Yb in parts]
    assert minibatch_cka_batches(big_x) == pytest.approx(kl / np.sqrt(kk * ll), rel=ns.rel(1e-10))


def test_minibatch_cka_batches_errors(ns):
    rng = _rng(33)
    Xn, Yn = rng.standard_normal((8, 3)), rng.standard_normal((8, 2))
    t = ns.to
    X, Y = t(Xn), t(Yn)
    with pytest.raises(ValueError, match="batches is empty"):
        minibatch_cka_batches(iter([]))
    with pytest.raises(TypeError, match="batches must be an iterable"):
        minibatch_cka_batches(X)
    with pytest.raises(TypeError, match="batch 1 is a"):
        minibatch_cka_batches([(X, Y), X])
    with pytest.raises(ValueError, match="batch 1 has 2 \\+ 2 features"):
        minibatch_cka_batches([(X, Y), (t(Xn[:, :2]), Y)])
    with pytest.raises(ValueError, match="at least 4"):
        minibatch_cka_batches([(t(Xn[:3]), t(Yn[:3]))])
    with pytest.raises(ValueError, match="same number of rows"):
        minibatch_cka_batches([(X, t(Yn[:6]))])
    with pytest.raises(ValueError, match="X_0 .batch 0. contains NaN"):
        minibatch_cka_batches([(t(np.where(Xn > 1, np.nan, Xn)), Y)])
    with pytest.raises(ValueError, match="overflows"):
        minibatch_cka_batches([(X, Y), (t((1e30 if ns.f32 else 1e300) * Xn), Y)])


def test_minibatch_cka_batches_memory_does_not_grow_with_the_number_of_batches():
    """A streamed input is never materialised: the peak is O(b^2 + b d), not O(n d)."""
    b, d1, d2 = 100, 20, 10

    def stream(k):
        g = np.random.default_rng(9)
        W = g.standard_normal((d1, d2))
        for _ in range(k):  # activations computed batch by batch, then dropped
            Xb = g.standard_normal((b, d1))
            yield Xb, Xb @ W + g.standard_normal((b, d2))

    peaks = {k: _peak_bytes(lambda k=k: minibatch_cka_batches(stream(k))) for k in (20, 400)}
    total = 400 * b * (d1 + d2) * 8  # the whole input of 40 000 rows: 9.6 MB
    assert peaks[400] < total / 10, (peaks, total)  # measured: 0.38 MB, about 1/25
    assert peaks[400] < 1.3 * peaks[20] + 2**16, peaks  # flat in the number of batches
    assert peaks[400] < 20 * (b * b + b * (d1 + d2)) * 8  # a few batch-sized arrays


def test_minibatch_cka_converges_to_population_cka():
    rng = _rng(8)
    d1, d2 = 5, 3
    A = rng.standard_normal((d1, d1))
    Sx = A @ A.T / d1 + 0.2 * np.eye(d1)
    W = rng.standard_normal((d1, d2))
    s2 = 4.0
    pop = _population_linear_cka(Sx, W, s2)
    n = 60_000
    X = rng.multivariate_normal(np.zeros(d1), Sx, size=n)
    Y = X @ W + np.sqrt(s2) * rng.standard_normal((n, d2))
    assert minibatch_cka(X, Y, 100, random_state=0) == pytest.approx(pop, abs=0.01)
    assert linear_cka(X, Y) == pytest.approx(pop, abs=0.01)
    # independent representations: population CKA 0. Small full samples are biased upward,
    # minibatch CKA over many small batches is not.
    g = _rng(9)
    full, mini = [], []
    for _ in range(40):
        X, Y = g.standard_normal((2000, 10)), g.standard_normal((2000, 10))
        full.append(linear_cka(X[:50], Y[:50]))
        mini.append(minibatch_cka(X, Y, 50, random_state=g))
    assert np.mean(full) > 0.1  # the biased estimate at n = 50 is far from 0
    assert abs(np.mean(mini)) < 3 * np.std(mini, ddof=1) / np.sqrt(len(mini)) + 1e-3


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.floats(0.01, 100))
def test_minibatch_cka_invariant_to_orthogonal_maps_and_scaling(seed, scale):
    rng = _rng(seed)
    X, Y = rng.standard_normal((64, 4)), rng.standard_normal((64, 3))
    Y[:, :2] += X[:, :2]
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    base = minibatch_cka(X, Y, 16, random_state=1)
    assert minibatch_cka(scale * X @ Q + 3.0, Y, 16, random_state=1) == pytest.approx(
        base, rel=1e-8, abs=1e-10)


def _gauss_gram(v, s=1.0):
    v = np.asarray(v, dtype=float).reshape(len(v), -1)
    return np.exp(-((v[:, None] - v[None]) ** 2).sum(-1) / (2 * s * s))


def test_hsic_permutation_test_matches_exact_enumeration():
    rng = _rng(12)
    n = 6
    x = rng.standard_normal(n)
    z = x**2 + 0.3 * rng.standard_normal(n)
    K, L = _gauss_gram(x), _gauss_gram(z)
    stat = hsic(K, L)
    exact_null = np.array([hsic(K, L[np.ix_(p, p)]) for p in itertools.permutations(range(n))])
    p_exact = np.mean(exact_null >= stat - 1e-12)
    B = 20_000
    res = hsic_permutation_test(K, L, B, random_state=3)
    assert res.statistic == pytest.approx(stat, rel=1e-12)
    assert res.null_distribution.shape == (B,)
    # every permuted statistic is one of the 720 exact values
    d = np.abs(res.null_distribution[:, None] - exact_null[None, :]).min(axis=1)
    assert d.max() < 1e-12
    assert abs(res.pvalue - p_exact) < 4 * np.sqrt(p_exact * (1 - p_exact) / B) + 2 / B


def test_hsic_permutation_test_type_one_error_within_binomial_band():
    rng = _rng(77)
    reps, B = 300, 99
    pv = np.empty(reps)
    for r in range(reps):
        x, z = rng.standard_normal((30, 2)), rng.standard_normal((30, 1))  # independent
        pv[r] = hsic_permutation_test(_gauss_gram(x), _gauss_gram(z), B, random_state=r).pvalue
    # under H0, P(p <= k/(B+1)) = k/(B+1) exactly (no ties): Binomial(300, 0.05) and (300, 0.5)
    assert 3 <= np.sum(pv <= 0.05) <= 29
    assert 120 <= np.sum(pv <= 0.5) <= 180
    assert np.all(pv > 0) and np.all(pv <= 1)


def test_hsic_permutation_test_detects_uncorrelated_dependence():
    from scipy.stats import pearsonr

    rng = _rng(78)
    hsic_rej = pear_rej = 0
    reps = 40
    for r in range(reps):
        x = rng.uniform(-1, 1, 60)
        z = x**2 + 0.1 * rng.standard_normal(60)  # dependent, correlation ~ 0
        hsic_rej += hsic_permutation_test(_gauss_gram(x, 0.5), _gauss_gram(z, 0.5), 199,
                                          random_state=r).pvalue <= 0.05
        pear_rej += pearsonr(x, z).pvalue <= 0.05
    assert hsic_rej >= 0.9 * reps
    assert pear_rej <= 0.3 * reps


def test_new_functions_reject_bad_parameters():
    X = _rng(1).standard_normal((20, 2))
    K = X @ X.T
    with pytest.raises(ValueError, match="batch_size must be <= n_samples"):
        minibatch_cka(X, X, 21)
    with pytest.raises(TypeError, match="batch_size must be an integer"):
        minibatch_cka(X, X, 5.0)
    with pytest.raises(ValueError, match="X is constant"):
        minibatch_cka(np.ones((20, 2)), X, 5)
    with pytest.raises(TypeError, match="n_permutations must be an integer"):
        hsic_permutation_test(K, K, 10.5)
    with pytest.raises(ValueError, match="random_state must be a non-negative"):
        hsic_permutation_test(K, K, 10, random_state=-1)
    with pytest.raises(ValueError, match="delta must be a probability"):
        kta_deviation_bound(10, 1.0)
    with pytest.raises(ValueError, match="beta"):
        kta_deviation_bound(10, 0.1, 0.5)
