"""Tests of ktheory.mercer against independent oracles (sympy, scipy quadrature, scikit-learn)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem, RBFSampler

from ktheory.kernels import gaussian_kernel, sigmoid_kernel
from ktheory.mercer import (
    NystromFeatures,
    RandomFourierFeatures,
    gaussian_eigenfunctions,
    gaussian_eigenvalues,
    min_kernel_eigenfunctions,
    min_kernel_eigenvalues,
    nystrom_eigenpairs,
)

# ---------------------------------------------------------------------------
# min(x, y) on [0, 1]
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 5])
def test_min_kernel_eigenpair_by_sympy_integration(k):
    x, y = sp.symbols("x y", real=True)
    lam = min_kernel_eigenvalues(k)[-1]
    phi = sp.sqrt(2) * sp.sin((k - sp.Rational(1, 2)) * sp.pi * y)
    T_phi = sp.integrate(y * phi, (y, 0, x)) + x * sp.integrate(phi, (y, x, 1))  # int min(x, y) phi(y) dy
    lam_exact = sp.simplify(T_phi / phi.subs(y, x))
    assert lam_exact.free_symbols == set()
    assert float(lam_exact) == pytest.approx(lam, rel=1e-14)
    xs = np.array([0.0, 0.13, 0.5, 1.0])
    f = sp.lambdify(y, phi, "numpy")
    np.testing.assert_allclose(min_kernel_eigenfunctions(xs, k)[:, -1], f(xs), atol=1e-14)


def test_min_kernel_orthonormal_and_trace():
    xg, wg = np.polynomial.legendre.leggauss(200)
    xg, wg = (xg + 1) / 2, wg / 2
    P = min_kernel_eigenfunctions(xg, 30)
    np.testing.assert_allclose(P.T @ (wg[:, None] * P), np.eye(30), atol=1e-12)
    j = sp.symbols("j", integer=True, positive=True)
    assert sp.summation(1 / ((j - sp.Rational(1, 2)) ** 2 * sp.pi**2), (j, 1, sp.oo)) == sp.Rational(1, 2)
    assert min_kernel_eigenvalues(10**6).sum() == pytest.approx(0.5, abs=1e-6)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=8), st.integers(1, 400))
def test_min_kernel_truncation_psd_and_within_sup_bound(points, n):
    x = np.array(points)
    P = min_kernel_eigenfunctions(x, n) * np.sqrt(min_kernel_eigenvalues(n))
    K_n = P @ P.T
    K = np.minimum.outer(x, x)
    assert np.linalg.eigvalsh(K_n).min() >= -1e-12                       # truncated Gram is PSD
    E_n = 1 - 2 * min_kernel_eigenvalues(n).sum()                        # sup error (closed form)
    assert np.abs(K - K_n).max() <= E_n + 1e-12
    assert np.linalg.eigvalsh(K - K_n).min() >= -1e-12                   # remainder is a kernel


# ---------------------------------------------------------------------------
# Gaussian kernel, Gaussian measure
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sigma,scale", [(1.0, 1.0), (0.3, 2.0), (5.0, 0.5)])
def test_gaussian_eigen_equation_by_quadrature(sigma, scale):
    lam = gaussian_eigenvalues(5, sigma=sigma, scale=scale)
    for x0 in (-1.1 * scale, 0.0, 0.7 * scale):
        def integrand(t, k):
            p = stats.norm.pdf(t, scale=scale)
            return math.exp(-((x0 - t) ** 2) / (2 * sigma**2)) * gaussian_eigenfunctions([t], 5, sigma, scale)[0, k] * p

        for k in range(5):
            val, _ = integrate.quad(integrand, -np.inf, np.inf, args=(k,), epsabs=1e-13, epsrel=1e-12)
            assert val == pytest.approx(lam[k] * gaussian_eigenfunctions([x0], 5, sigma, scale)[0, k], abs=1e-10)


@pytest.mark.parametrize("sigma,scale", [(1.0, 1.0), (0.2, 1.0), (3.0, 0.1)])
def test_gaussian_orthonormal_and_trace(sigma, scale):
    x = np.linspace(-22, 22, 4401) * scale
    w = (x[1] - x[0]) * stats.norm.pdf(x, scale=scale)
    P = gaussian_eigenfunctions(x, 50, sigma=sigma, scale=scale)
    np.testing.assert_allclose(P.T @ (w[:, None] * P), np.eye(50), atol=1e-9)
    assert gaussian_eigenvalues(5000, sigma=sigma, scale=scale).sum() == pytest.approx(1.0, rel=1e-12)


def test_gaussian_eigenfunctions_stable_for_many_terms():
    """Term 80 against sympy's exact Hermite polynomial in 60-digit arithmetic."""
    sigma, scale = 0.4, 1.3
    a = sp.Rational(1) / (4 * sp.nsimplify(scale) ** 2)
    b = sp.Rational(1) / (2 * sp.nsimplify(sigma) ** 2)
    c = sp.sqrt(a**2 + 2 * a * b)
    xs = [-2.5, -0.3, 0.9, 3.0]
    ours = gaussian_eigenfunctions(np.array(xs), 81, sigma=sigma, scale=scale)[:, 80]
    for xv, got in zip(xs, ours):
        xr = sp.nsimplify(xv)
        exact = (c / a) ** sp.Rational(1, 4) * sp.exp(-(c - a) * xr**2) * sp.hermite(80, sp.sqrt(2 * c) * xr) \
            / sp.sqrt(2**80 * sp.factorial(80))
        assert got == pytest.approx(float(sp.N(exact, 60)), rel=1e-10, abs=1e-14)
    assert np.all(np.isfinite(gaussian_eigenfunctions(np.linspace(-50, 50, 11), 300)))


def test_gaussian_expansion_reproduces_kernel():
    x = np.random.default_rng(0).normal(size=20)
    P = gaussian_eigenfunctions(x, 80, sigma=0.8, scale=1.0)
    K = (P * gaussian_eigenvalues(80, sigma=0.8, scale=1.0)) @ P.T
    np.testing.assert_allclose(K, gaussian_kernel(x[:, None], sigma=0.8), atol=1e-12)


def test_gaussian_extreme_ratios():
    lam = gaussian_eigenvalues(5, sigma=1e200, scale=1.0)                # constant kernel: one eigenvalue 1
    np.testing.assert_allclose(lam, [1, 0, 0, 0, 0], atol=1e-300)
    lam = gaussian_eigenvalues(3, sigma=1e-100, scale=1.0)               # nearly a delta kernel, still finite
    assert np.all(np.isfinite(lam)) and np.all(lam > 0)
    with pytest.raises(ValueError, match="scale / sigma"):
        gaussian_eigenvalues(3, sigma=1e-200, scale=1e200)


# ---------------------------------------------------------------------------
# Nyström eigenpairs
# ---------------------------------------------------------------------------


def test_nystrom_converges_to_analytic_spectrum():
    lam = gaussian_eigenvalues(4, sigma=0.7, scale=1.0)
    errs = []
    for n in (100, 1600):
        e = [np.abs(nystrom_eigenpairs(np.random.default_rng(10 * n + r).normal(size=(n, 1)), 4, sigma=0.7)
                    .eigenvalues / lam - 1).mean() for r in range(3)]
        errs.append(np.mean(e))
    assert errs[1] < errs[0] / 2          # ~ n^(-1/2): a factor 4 expected for 16x the points
    assert errs[1] < 0.05


def test_nystrom_eigenfunctions_match_analytic():
    X = np.random.default_rng(3).normal(size=(1500, 1))
    est = nystrom_eigenpairs(X, 3, sigma=1.0)
    x = np.linspace(-12, 12, 2401)
    w = (x[1] - x[0]) * stats.norm.pdf(x)
    F = est.eigenfunctions(x[:, None])
    P = gaussian_eigenfunctions(x, 3)
    F *= np.sign(w @ (F * P))
    assert np.all(np.sqrt(w @ (F - P) ** 2) < 0.1)


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 60), st.integers(0, 10**6), st.floats(0.3, 3.0))
def test_nystrom_extension_properties(n, seed, sigma):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    m = min(3, n)
    try:
        est = nystrom_eigenpairs(X, m, sigma=sigma)
    except ValueError as exc:  # only a legitimate refusal: rounding-level eigenvalues requested
        assert "nonzero" in str(exc)
        return
    F = est.eigenfunctions(X)
    np.testing.assert_allclose(F.T @ F / n, np.eye(m), atol=1e-6)                 # empirical orthonormality
    K = gaussian_kernel(X, sigma=sigma)
    np.testing.assert_allclose(K @ F / n, F * est.eigenvalues, atol=1e-8)          # eigen-equation
    assert est.spectrum.sum() == pytest.approx(1.0, rel=1e-10)                    # tr(K/n) = 1


def test_nystrom_policy_on_negative_eigenvalues():
    X = np.linspace(-1, 1, 200)[:, None]
    est = nystrom_eigenpairs(X, 5, sigma=1.0)          # Gram has eigenvalues ~ -1e-16: accepted
    tol = 200 * np.finfo(float).eps * est.spectrum.max()
    assert abs(est.spectrum.min()) <= tol and np.count_nonzero(np.abs(est.spectrum) <= tol) > 100
    with pytest.raises(ValueError, match="nonzero"):
        nystrom_eigenpairs(X, 150, sigma=1.0)          # asks for rounding noise

    def tanh(A, B):
        return sigmoid_kernel(A, B, gamma=1.0, coef0=1.0)

    U = np.random.default_rng(0).uniform(-1, 1, (300, 1))
    with pytest.raises(ValueError, match="not positive semidefinite"):
        nystrom_eigenpairs(U, 2, kernel=tanh)
    est = nystrom_eigenpairs(U, 4, kernel=tanh, allow_indefinite=True)
    K = tanh(U, U)
    assert est.eigenvalues.min() < -0.02
    np.testing.assert_allclose(K @ est.vectors, est.vectors * est.eigenvalues * 300, atol=1e-10)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        NystromFeatures(50, kernel=tanh, random_state=0).fit(U)


# ---------------------------------------------------------------------------
# Nyström features vs scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed,d,m,sigma", [(0, 3, 40, 1.0), (1, 10, 100, 3.0), (2, 20, 200, 5.0)])
def test_nystrom_features_equal_sklearn(seed, d, m, sigma):
    X = np.random.default_rng(seed).normal(size=(500, d))
    ours = NystromFeatures(m, sigma=sigma, random_state=seed).fit(X)
    w = ours.eigenvalues_
    assert ours.eigenvalues_.size == m and w[0] / w[-1] < 1e6   # well conditioned: the 1e-10 promise applies
    sk = Nystroem(kernel="rbf", gamma=1 / (2 * sigma**2), n_components=m).fit(ours.landmarks_)
    Z1, Z2 = ours.transform(X), sk.transform(X)
    np.testing.assert_allclose(Z1 @ Z1.T, Z2 @ Z2.T, atol=1e-10)
    np.testing.assert_array_equal(ours.landmarks_, X[ours.component_indices_])


def test_nystrom_features_ill_conditioned_as_close_as_sklearn():
    X = np.random.default_rng(5).uniform(-1, 1, (1000, 1))
    K = gaussian_kernel(X, sigma=0.8)
    ours = NystromFeatures(200, sigma=0.8, random_state=0).fit(X)
    assert ours.eigenvalues_.size < 200                 # rounding-level eigenvalues dropped
    sk = Nystroem(kernel="rbf", gamma=1 / (2 * 0.8**2), n_components=200).fit(ours.landmarks_)
    e1 = np.linalg.norm(K - ours.transform(X) @ ours.transform(X).T)
    Z2 = sk.transform(X)
    e2 = np.linalg.norm(K - Z2 @ Z2.T)
    assert e1 <= e2                                     # at least as close to K as sklearn


def test_nystrom_features_all_landmarks_is_exact():
    X = np.random.default_rng(2).normal(size=(60, 3))
    Z = NystromFeatures(60, sigma=2.0, random_state=0).fit_transform(X)
    np.testing.assert_allclose(Z @ Z.T, gaussian_kernel(X, sigma=2.0), atol=1e-8)


def test_estimator_protocol():
    est = NystromFeatures(10, sigma=2.0, random_state=3)
    c = clone(est)
    assert c.get_params() == est.get_params()
    est.set_params(n_components=5)
    assert est.n_components == 5
    with pytest.raises(ValueError, match="Invalid parameter 'sigma_'"):
        est.set_params(sigma_=1.0)
    r = clone(RandomFourierFeatures(7, sigma=0.5, random_state=1))
    assert r.get_params() == {"n_components": 7, "gamma": "scale", "sigma": 0.5, "random_state": 1}
    with pytest.raises(ValueError, match="not fitted"):
        r.transform(np.ones((2, 2)))


# ---------------------------------------------------------------------------
# random Fourier features
# ---------------------------------------------------------------------------


def test_rff_frequencies_are_gaussian():
    rf = RandomFourierFeatures(3000, sigma=0.25, random_state=0).fit(np.zeros((1, 4)))
    assert stats.kstest(rf.frequencies_.ravel() * 0.25, "norm").pvalue > 0.01
    assert stats.kstest(rf.offsets_ / (2 * np.pi), "uniform").pvalue > 0.01
    cov = np.cov(rf.frequencies_)
    np.testing.assert_allclose(cov, np.eye(4) / 0.25**2, atol=0.1 / 0.25**2)


def test_rff_formula_and_rate():
    X = np.random.default_rng(1).normal(size=(200, 3))
    K = gaussian_kernel(X, sigma=1.5)
    rf = RandomFourierFeatures(50, sigma=1.5, random_state=0).fit(X)
    np.testing.assert_allclose(rf.transform(X), np.sqrt(2 / 50) * np.cos(X @ rf.frequencies_ + rf.offsets_))
    errs = {}
    for D in (100, 1600):
        errs[D] = np.mean([np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)
                           for Z in (RandomFourierFeatures(D, sigma=1.5, random_state=r).fit_transform(X)
                                     for r in range(5))])
    assert 2.5 < errs[100] / errs[1600] < 6.5            # sqrt(16) = 4: the D^(-1/2) rate


def test_rff_equals_sklearn_rbfsampler_with_same_draws():
    # sklearn's RBFSampler uses exp(-gamma ||x - y||^2): with our frequencies and phases
    # copied in, gamma = 1 / (2 sigma^2) must give the identical feature map.
    X = np.random.default_rng(4).normal(size=(150, 3))
    sigma = 0.7
    ours = RandomFourierFeatures(64, sigma=sigma, random_state=2).fit(X)
    sk = RBFSampler(gamma=1 / (2 * sigma**2), n_components=64, random_state=0).fit(X)
    assert sk.random_weights_.shape == ours.frequencies_.shape
    sk.random_weights_ = ours.frequencies_.copy()
    sk.random_offset_ = ours.offsets_.copy()
    np.testing.assert_allclose(ours.transform(X), sk.transform(X), rtol=0, atol=1e-14)
    # and the frequency scale matches: sklearn's own draws have the same spread as ours
    ref = RBFSampler(gamma=1 / (2 * sigma**2), n_components=3000, random_state=0).fit(X)
    big = RandomFourierFeatures(3000, sigma=sigma, random_state=0).fit(X)
    assert stats.ks_2samp(ref.random_weights_.ravel(), big.frequencies_.ravel()).pvalue > 0.01


def test_rff_overflow_is_an_error():
    rf = RandomFourierFeatures(10, sigma=1e-200, random_state=0).fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="overflows"):
        rf.transform(np.full((1, 2), 1e200))


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: min_kernel_eigenvalues(0), ValueError, "n_terms"),
        (lambda: min_kernel_eigenvalues(2.0), TypeError, "n_terms"),
        (lambda: min_kernel_eigenfunctions([0.5, 1.5], 3), ValueError, r"\[0, 1\]"),
        (lambda: min_kernel_eigenfunctions([[0.5]], 3), ValueError, "x must be a 1-D"),
        (lambda: gaussian_eigenvalues(3, sigma=0.0), ValueError, "sigma"),
        (lambda: gaussian_eigenvalues(3, scale=-1.0), ValueError, "scale"),
        (lambda: gaussian_eigenfunctions([np.nan], 3), ValueError, "NaN"),
        (lambda: gaussian_eigenfunctions(np.array([1j]), 3), TypeError, "complex"),
        (lambda: nystrom_eigenpairs(np.ones((5, 2)), 6), ValueError, "n_components"),
        (lambda: nystrom_eigenpairs(np.ones((5, 2)), 0), ValueError, "n_components"),
        (lambda: nystrom_eigenpairs(np.ones((5, 2)), 1, kernel="rbf"), ValueError, "kernel"),
        (lambda: nystrom_eigenpairs(np.eye(3), 1, kernel=lambda A, B: A @ B.T + np.arange(len(B))),
         ValueError, "symmetric"),
        (lambda: NystromFeatures(20).fit(np.ones((10, 2))), ValueError, "n_components"),
        (lambda: NystromFeatures(2, sigma=-1.0).fit(np.ones((10, 2))), ValueError, "sigma"),
        (lambda: NystromFeatures(2, random_state=0).fit(np.ones((10, 2))).transform(np.ones((3, 3))),
         ValueError, "features"),
        (lambda: RandomFourierFeatures(0).fit(np.ones((3, 2))), ValueError, "n_components"),
        (lambda: RandomFourierFeatures(3, random_state="a").fit(np.ones((3, 2))), TypeError, "random_state"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("make", [lambda: NystromFeatures(10, sigma=1.0, random_state=0),
                                  lambda: RandomFourierFeatures(10, sigma=1.0, random_state=0)])
def test_a_failed_fit_or_refit_leaves_the_transformer_as_it_was(make):
    X = np.random.default_rng(0).normal(size=(30, 2))
    fresh = make()
    with pytest.raises(ValueError, match="n_components"):
        fresh.set_params(n_components=0).fit(X)          # validate_data had set n_features_in_
    assert vars(fresh) == vars(make().set_params(n_components=0))
    est = make().fit(X)
    before = dict(vars(est))
    Z = est.transform(X)
    for bad in (np.c_[X, X] + np.nan, np.zeros((0, 2))):
        with pytest.raises(ValueError):
            est.fit(bad)
        assert vars(est) == before
    with pytest.raises(ValueError, match="sigma"):
        est.set_params(sigma=-1.0).fit(np.c_[X, X])
    assert all(vars(est)[k] is before[k] for k in before if k != "sigma")
    np.testing.assert_array_equal(est.transform(X), Z)


# ---------------------------------------------------------------------------
# one vocabulary: gamma as in SVC, sigma the chapters' alternative
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [NystromFeatures, RandomFourierFeatures])
def test_gamma_and_sigma_name_the_same_kernel(cls):
    """``gamma = 1 / (2 sigma^2)``: the two spellings give the same features."""
    X = np.random.default_rng(5).standard_normal((40, 3))
    a = cls(20, sigma=0.8, random_state=0).fit(X)
    b = cls(20, gamma=1 / (2 * 0.8**2), random_state=0).fit(X)
    np.testing.assert_allclose(a.transform(X), b.transform(X), rtol=1e-12, atol=1e-12)
    assert a.gamma_ == pytest.approx(b.gamma_, rel=1e-15)


@pytest.mark.parametrize("cls", [NystromFeatures, RandomFourierFeatures])
def test_gamma_scale_follows_the_units(cls):
    """The default ``gamma="scale"`` is SVC's: ``1 / (d X.var())``, so X -> s X gives the
    same features (the kernel is a function of ``(x - y) / s``)."""
    X = np.random.default_rng(6).standard_normal((50, 2)) * [1.0, 3.0]
    a = cls(20, random_state=0).fit(X)
    assert a.gamma_ == pytest.approx(1 / (2 * X.var()), rel=1e-12)
    b = cls(20, random_state=0).fit(1e3 * X)
    assert b.gamma_ == pytest.approx(a.gamma_ * 1e-6, rel=1e-12)
    np.testing.assert_allclose(b.transform(1e3 * X), a.transform(X), atol=1e-9)
    auto = cls(20, gamma="auto", random_state=0).fit(X)
    assert auto.gamma_ == pytest.approx(0.5, rel=1e-15)


@pytest.mark.parametrize("cls", [NystromFeatures, RandomFourierFeatures])
def test_gamma_and_sigma_together_are_refused(cls):
    X = np.random.default_rng(7).standard_normal((30, 2))
    with pytest.raises(ValueError, match="gamma or its width sigma, not both"):
        cls(10, gamma=0.5, sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="gamma must be"):
        cls(10, gamma="wide").fit(X)
    with pytest.raises(TypeError, match="gamma must be"):
        cls(10, gamma=None).fit(X)
