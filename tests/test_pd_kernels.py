"""Claims of Chapter 4 (positive definite kernels) about ``ktheory.kernels``.

* The closure rules (positive scaling, sums, Schur products, polynomials with
  non-negative coefficients, ``exp``, ``f(x) k(x, z) f(z)``) produce Gram
  matrices that ``is_psd`` accepts, on random data (hypothesis).
* Schur's product theorem against two independent oracles: the Kronecker
  principal submatrix and Schur's eigenvalue bound.
* The Gaussian kernel equals ``f(x) f(z) exp(<x, z> / sigma^2)``.
* The sigmoid kernel is refuted: a concrete Gram matrix with a negative
  eigenvalue, the two-point construction of the chapter for every
  ``gamma > 0`` and ``coef0``, and sympy's exact determinant.
* ``is_psd``'s tolerance: rank-deficient PSD matrices (whose computed smallest
  eigenvalue may be slightly negative) are accepted, clearly indefinite ones
  and non-symmetric ones are rejected, and the verdict agrees with sympy's
  exact test on small integer matrices.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ktheory.kernels import (
    gaussian_kernel,
    is_psd,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    psd_tolerance,
    sigmoid_kernel,
)

SETTINGS = settings(max_examples=60, deadline=None)

finite = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False, allow_infinity=False)


@st.composite
def samples(draw, min_n: int = 2, max_n: int = 9, max_d: int = 3) -> np.ndarray:
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(1, max_d))
    return draw(arrays(np.float64, (n, d), elements=finite))


widths = st.floats(min_value=0.2, max_value=5.0)
nonneg = st.floats(min_value=0.0, max_value=10.0)


def _sym(K: np.ndarray) -> np.ndarray:
    """Symmetrize a Gram matrix that is symmetric only up to rounding.

    ``gaussian_kernel(X)`` and ``laplacian_kernel(X)`` can differ from their transposes
    by an ulp, and ``is_psd`` then rejects them (see
    ``test_is_psd_accepts_gaussian_gram_with_rounding_asymmetry``). The closure-rule tests
    below test the mathematics, so they symmetrize first.
    """
    return (K + K.T) / 2


def _two_kernels(X: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    return _sym(gaussian_kernel(X, sigma=sigma)), polynomial_kernel(X, degree=2, gamma=0.5, coef0=1.0)


# ---------------------------------------------------------------------------
# Closure rules
# ---------------------------------------------------------------------------


@SETTINGS
@given(X=samples(), sigma=widths, a=nonneg, b=nonneg)
def test_nonnegative_combination_is_psd(X, sigma, a, b):
    K1, K2 = _two_kernels(X, sigma)
    K = a * K1 + b * K2
    assert is_psd(K)
    # The quadratic form of a sum is the sum of the quadratic forms.
    c = np.linspace(-1.0, 1.0, len(X))
    np.testing.assert_allclose(c @ K @ c, a * (c @ K1 @ c) + b * (c @ K2 @ c), rtol=1e-9, atol=1e-9)


@SETTINGS
@given(X=samples(), sigma=widths)
def test_product_of_kernels_is_psd(X, sigma):
    K1, K2 = _two_kernels(X, sigma)
    assert is_psd(K1 * K2)
    assert is_psd(K1 * _sym(laplacian_kernel(X, sigma=sigma)))


@st.composite
def psd_pair(draw):
    n = draw(st.integers(2, 6))
    r1 = draw(st.integers(1, n))
    r2 = draw(st.integers(1, n))
    el = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False)
    B1 = draw(arrays(np.float64, (n, r1), elements=el))
    B2 = draw(arrays(np.float64, (n, r2), elements=el))
    return B1 @ B1.T, B2 @ B2.T


@SETTINGS
@given(pair=psd_pair())
def test_schur_product_theorem_against_oracles(pair):
    A, B = pair
    H = A * B
    n = len(A)
    # Oracle 1: A o B is the principal submatrix of A (x) B on the indices i*n + i.
    idx = np.arange(n) * (n + 1)
    np.testing.assert_allclose(np.kron(A, B)[np.ix_(idx, idx)], H, rtol=0, atol=0)
    # Oracle 2: Schur's bound  lambda_min(A o B) >= lambda_min(A) * min_i B_ii  (A, B PSD).
    lam_min_A = max(np.linalg.eigvalsh(A)[0], 0.0)
    scale = max(1.0, np.max(np.abs(H)), np.max(np.abs(A)) * np.max(np.abs(B)))
    assert np.linalg.eigvalsh(H)[0] >= lam_min_A * np.min(np.diag(B)) - 50 * n * np.finfo(float).eps * scale
    assert is_psd(H, tol=50 * n * np.finfo(float).eps * scale)


@SETTINGS
@given(
    X=samples(),
    coefs=st.lists(st.floats(min_value=0.0, max_value=3.0), min_size=1, max_size=5),
)
def test_polynomial_with_nonnegative_coefficients_is_psd(X, coefs):
    K = linear_kernel(X) / 4.0
    P = sum(a * K**j for j, a in enumerate(coefs))  # elementwise powers: Schur products
    assert is_psd(P)


@SETTINGS
@given(X=samples(), s=st.floats(min_value=0.01, max_value=1.0))
def test_exp_of_kernel_is_psd_and_is_limit_of_taylor_sums(X, s):
    K = s * linear_kernel(X)
    E = np.exp(K)
    assert is_psd(E)
    partial = np.zeros_like(K)
    term = np.ones_like(K)
    for j in range(1, 60):
        partial = partial + term
        assert is_psd(partial)
        term = term * K / j
    # the Taylor sum of e^t in floating point carries an absolute error of order eps * e^|t|
    assert np.all(np.abs(partial - E) <= 1e-13 * np.exp(np.abs(K)))


@SETTINGS
@given(X=samples(), sigma=widths, f=arrays(np.float64, 9, elements=finite))
def test_rescaling_f_k_f_is_psd(X, sigma, f):
    K = polynomial_kernel(X, degree=3, gamma=1.0, coef0=1.0)
    fx = f[: len(X)]
    assert is_psd(fx[:, None] * K * fx[None, :])
    # Normalization (cosine) gives unit diagonal and |k| <= 1.
    Kn = K / np.sqrt(np.outer(np.diag(K), np.diag(K)))
    assert is_psd(Kn)
    np.testing.assert_allclose(np.diag(Kn), 1.0)
    assert np.all(np.abs(Kn) <= 1.0 + 1e-12)


@SETTINGS
@given(X=samples(max_d=4), Z=samples(max_d=4), sigma=widths)
def test_gaussian_is_rescaled_exp_of_linear(X, Z, sigma):
    d = min(X.shape[1], Z.shape[1])
    X, Z = X[:, :d], Z[:, :d]
    f = lambda A: np.exp(-np.sum(A**2, axis=1) / (2 * sigma**2))  # noqa: E731
    built = f(X)[:, None] * np.exp(linear_kernel(X, Z) / sigma**2) * f(Z)[None, :]
    np.testing.assert_allclose(built, gaussian_kernel(X, Z, sigma=sigma), rtol=1e-10, atol=1e-300)


def test_gaussian_identity_symbolic():
    x = sp.symbols("x1:4", real=True)
    z = sp.symbols("z1:4", real=True)
    s = sp.symbols("sigma", positive=True)
    sq = lambda v: sum(vi**2 for vi in v)  # noqa: E731
    lhs = sp.exp(-sum((a - b) ** 2 for a, b in zip(x, z)) / (2 * s**2))
    rhs = sp.exp(-sq(x) / (2 * s**2)) * sp.exp(-sq(z) / (2 * s**2)) * sp.exp(sum(a * b for a, b in zip(x, z)) / s**2)
    assert sp.simplify(sp.expand_power_exp(lhs) / sp.expand_power_exp(rhs)) == 1


def test_difference_of_kernels_is_refuted():
    X = np.array([[0.0], [1.0]])
    D = gaussian_kernel(X, sigma=1.0) - gaussian_kernel(X, sigma=2.0)
    # zero diagonal, non-zero off-diagonal: eigenvalues +-|D_01|
    np.testing.assert_allclose(np.diag(D), 0.0)
    assert abs(D[0, 1]) > 0.1
    assert not is_psd(D)


# ---------------------------------------------------------------------------
# The sigmoid kernel
# ---------------------------------------------------------------------------


def test_sigmoid_concrete_counterexample_exact():
    # scikit-learn's defaults on one feature: gamma = 1/d = 1, coef0 = 1; points 2 and 1/2.
    X = np.array([[2.0], [0.5]])
    K = sigmoid_kernel(X)
    assert not is_psd(K)
    a, b, c = sp.tanh(5), sp.tanh(2), sp.tanh(sp.Rational(5, 4))
    det = a * c - b**2
    assert det.is_negative
    lam_min = (a + c) / 2 - sp.sqrt(((a - c) / 2) ** 2 + b**2)
    assert lam_min.is_negative
    assert abs(float(lam_min) - np.linalg.eigvalsh(K)[0]) < 1e-12
    assert float(lam_min) < -0.04
    assert abs(float(det) - np.linalg.det(K)) < 1e-12
    from sklearn.metrics.pairwise import sigmoid_kernel as sk_sigmoid

    np.testing.assert_allclose(K, sk_sigmoid(X), rtol=1e-14)


@SETTINGS
@given(
    gamma=st.floats(min_value=0.01, max_value=10.0),
    coef0=st.floats(min_value=-3.0, max_value=3.0),
    d=st.integers(1, 4),
)
def test_sigmoid_two_point_refutation_for_all_parameters(gamma, coef0, d):
    # The chapter's proof: z with gamma ||z||^2 = eps, x = s z with s large;
    # det -> tanh(eps + coef0) - 1 < 0.
    eps = 1e-3
    z = np.zeros(d)
    z[0] = np.sqrt(eps / gamma)
    s = (abs(coef0) + 8.0) / eps
    X = np.vstack([z, s * z])
    K = sigmoid_kernel(X, gamma=gamma, coef0=coef0)
    assert np.linalg.det(K) < 0.5 * (np.tanh(eps + coef0) - 1.0)
    assert not is_psd(K)


def test_sigmoid_negative_coef0_fails_on_the_diagonal():
    K = sigmoid_kernel(np.zeros((1, 2)), gamma=1.0, coef0=-0.5)
    assert K[0, 0] < 0
    assert not is_psd(K)


def test_sigmoid_zero_coef0_two_point_determinant_symbolic():
    # coef0 = 0, points x and 2x, u = tanh(gamma ||x||^2): det = 4u^4 (u^2+3)(u^2-1) / (...) < 0.
    u = sp.symbols("u", positive=True)
    t2 = 2 * u / (1 + u**2)
    t4 = 2 * t2 / (1 + t2**2)
    det = u * t4 - t2**2
    closed = 4 * u**4 * (u**2 + 3) * (u**2 - 1) / (((1 + u**2) ** 2 + 4 * u**2) * (1 + u**2) ** 2)
    assert sp.simplify(det - closed) == 0
    t = sp.symbols("t", positive=True)
    assert sp.simplify(sp.expand_trig(sp.tanh(2 * t)) - t2.subs(u, sp.tanh(t))) == 0
    X = np.array([[0.7, -0.2], [1.4, -0.4]])
    K = sigmoid_kernel(X, gamma=1.0, coef0=0.0)
    uu = np.tanh(np.sum(X[0] ** 2))
    assert abs(np.linalg.det(K) - float(closed.subs(u, uu))) < 1e-12
    assert not is_psd(K)


# ---------------------------------------------------------------------------
# is_psd tolerance behaviour
# ---------------------------------------------------------------------------


def test_rank_deficient_psd_with_negative_rounding_is_accepted():
    rng = np.random.default_rng(0)
    found_negative = False
    for _ in range(20):
        B = rng.standard_normal((40, 3))
        K = B @ B.T
        assert is_psd(K)
        found_negative |= bool(np.linalg.eigvalsh(K)[0] < 0)
    # rounding does push some computed eigenvalues below zero: the tolerance matters
    assert found_negative


def test_duplicate_points_gaussian_gram_is_accepted():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    X = np.vstack([X, X, X + 1e-9])
    K = gaussian_kernel(X, sigma=3.0)
    assert np.linalg.matrix_rank(K) < len(X)
    assert is_psd(K)


@SETTINGS
@given(
    n=st.integers(3, 12),
    r=st.integers(1, 2),
    scale=st.floats(min_value=1e-3, max_value=1e3),
    delta=st.floats(min_value=1e-9, max_value=1.0),
    seed=st.integers(0, 2**16),
)
def test_near_singular_accepted_and_indefinite_rejected(n, r, scale, delta, seed):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, r))
    K = scale * (B @ B.T)
    assert is_psd(K)
    # a direction in the null space of K, pushed to eigenvalue -delta * ||K||
    Q, _ = np.linalg.qr(np.hstack([B, rng.standard_normal((n, 1))]))
    v = Q[:, r]
    lam = np.linalg.eigvalsh(K)[-1]
    Kneg = K - delta * lam * np.outer(v, v)
    assert delta * lam > psd_tolerance(Kneg)  # the perturbation is far above rounding
    assert not is_psd(Kneg)


def test_is_psd_accepts_gaussian_gram_with_rounding_asymmetry():
    # found by hypothesis: eigenvalues 0.531 and 1.469, asymmetry 8.3e-16
    K = gaussian_kernel(np.array([[1.0], [1.25]]), sigma=0.203125)
    assert np.linalg.eigvalsh((K + K.T) / 2)[0] > 0.5
    assert is_psd(K)


def test_is_psd_verdict_is_scale_invariant():
    M = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    assert not is_psd(M)
    assert not is_psd(1e-20 * M)


def test_clearly_indefinite_and_nonsymmetric_are_rejected():
    assert not is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert not is_psd(np.diag([1.0, -1e-3]))
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))  # PD quadratic form, not symmetric
    assert is_psd(np.array([[1.0, 1.0], [1.0, 1.0]]))


@settings(max_examples=40, deadline=None)
@given(entries=st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_is_psd_agrees_with_exact_sympy(entries):
    a, b, c, d, e, f = entries
    M = [[a, b, c], [b, d, e], [c, e, f]]
    exact = sp.Matrix(M).is_positive_semidefinite
    assert is_psd(np.array(M, dtype=float)) == bool(exact)


def test_is_psd_bad_input():
    with pytest.raises(ValueError, match="square"):
        is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        is_psd(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="tol"):
        is_psd(np.eye(2), tol=-1.0)


# ------------------------------------------------------------------------------------------
# is_cnd: conditionally negative definite matrices (Chapter 4, Schoenberg's theorem)
# ------------------------------------------------------------------------------------------
from ktheory.kernels import is_cnd  # noqa: E402


def _dist(X):
    return np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))


def _cnd_exact(M):
    """Oracle: sympy's exact PSD test of -W^T M W, W = [e_i - e_n] (a basis of sum(c) = 0)."""
    n = len(M)
    Ms = sp.Matrix(M.astype(int).tolist())
    if Ms != Ms.T:
        return False
    W = sp.Matrix(n, n - 1, lambda i, j: 1 if i == j else (-1 if i == n - 1 else 0))
    return bool((-(W.T * Ms * W)).is_positive_semidefinite)


@settings(max_examples=80, deadline=None)
@given(M=arrays(np.int64, (3, 3), elements=st.integers(-2, 2)))
def test_is_cnd_agrees_with_exact_sympy_on_integer_matrices(M):
    M = np.triu(M) + np.triu(M, 1).T  # symmetric
    assert is_cnd(M.astype(float)) == _cnd_exact(M)


@SETTINGS
@given(X=samples(), p=st.floats(min_value=0.1, max_value=2.0))
def test_distance_powers_up_to_two_are_cnd_and_schoenberg_holds(X, p):
    Psi = _dist(X) ** p
    assert is_cnd(Psi)
    # the anchored kernel of the chapter's lemma is PSD (an independent code path) ...
    K0 = Psi[:, [0]] + Psi[[0], :] - Psi - Psi[0, 0]
    assert is_psd(K0)
    # ... and Schoenberg: exp(-t Psi) is PSD for every t > 0
    for t in (0.1, 1.0, 10.0):
        assert is_psd(np.exp(-t * Psi))


def test_cube_of_distance_is_not_cnd_exact_counterexample():
    x = np.array([0.0, 1.0, 2.0])
    Psi = np.abs(x[:, None] - x[None, :]) ** 3
    c = np.array([1.0, -2.0, 1.0])
    assert c @ Psi @ c == 8.0  # 2 (2^3 - 4) > 0 with sum(c) = 0
    assert not is_cnd(Psi)
    assert is_cnd(Psi ** (2 / 3))  # |x - z|^2


def test_is_cnd_rounding_cases_and_sign():
    rng = np.random.default_rng(3)
    g = rng.standard_normal(30) * 1e3
    assert is_cnd(g[:, None] + g[None, :])  # projected matrix is exactly 0: rounding only
    assert is_cnd(np.full((5, 5), 7.0))  # constants
    B = rng.standard_normal((30, 4))
    K = B @ B.T
    assert is_cnd(-K)  # -k for a kernel k
    assert not is_cnd(K + 0.5 * np.eye(30))  # c^T K c > 0 for some c with sum 0
    D2 = _dist(B) ** 2
    assert is_cnd(D2) and not is_cnd(-D2)
    assert is_cnd(D2 * 1e250) and is_cnd(D2 * 1e-250)  # scale invariance
    assert is_cnd([[5.0]])  # 1 x 1: only c = 0 sums to zero
    A = D2.copy()
    A[0, 1] += 1.0
    assert not is_cnd(A)  # not symmetric
    assert not is_cnd(np.eye(3), tol=0.5) and is_cnd(np.eye(3), tol=1.5)
