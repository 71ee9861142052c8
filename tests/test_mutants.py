"""Tests that kill mutants which the rest of the suite let through (issue 10, point 7).

Each block names the mutant it exists for. Every test checks the public API
(``ktheory.kernels``, ``ktheory.svm.SVC``, ``ktheory.alignment``) against an
independent oracle: a closed form worked out by hand, a brute-force
computation in plain numpy, or scikit-learn. ``scripts/mutate.py`` runs the
mechanical mutation pass that found the later blocks.
"""

from __future__ import annotations

import inspect
from functools import partial

import numpy as np
import pytest
from sklearn.metrics import pairwise as skp
from sklearn.svm import SVC as SkSVC

from ktheory.alignment import align_weights, cka, kta
from ktheory.kernels import (
    gaussian_kernel,
    gram_matrix,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from ktheory.svm import SVC


def _sq_dists(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Brute-force squared distances from explicit differences (no ||x||^2 + ||y||^2 - 2<x, y>)."""
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)


def _centering(n: int) -> np.ndarray:
    return np.eye(n) - np.ones((n, n)) / n


# ---------------------------------------------------------------------------
# (a) SVC: with no free support vector the intercept is the MIDPOINT of the
#     feasible interval of b (libsvm's rule), not one of its endpoints.
# ---------------------------------------------------------------------------


def test_intercept_without_free_sv_closed_form():
    """Three points on a line, linear kernel, C = 0.1.

    Worked by hand: with y = (-1, +1, -1) at x = (-1, 1, -3), ``y^T alpha = 0``
    gives ``a2 = a1 + a3`` and the dual objective is ``2 a2 - 2 (a2 + a3)^2``,
    maximised at a3 = 0, a2 = C (it increases for a2 < 1/2): alpha = (C, C, 0)
    and ``f(x) = 0.2 x + b``. KKT: alpha_1 = C needs ``-(-0.2 + b) <= 1``
    (b >= -0.8), alpha_2 = C needs ``0.2 + b <= 1`` (b <= 0.8), alpha_3 = 0
    needs ``-(-0.6 + b) >= 1`` (b <= -0.4). Feasible interval [-0.8, -0.4],
    midpoint -0.6; an endpoint would give -0.8 or -0.4.
    """
    X = np.array([[-1.0], [1.0], [-3.0]])
    y = np.array([0, 1, 0])
    clf = SVC(kernel="linear", C=0.1, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(clf.alpha_, [0.1, 0.1, 0.0], atol=1e-14)
    assert clf.intercept_[0] == pytest.approx(-0.6, abs=1e-12)
    np.testing.assert_allclose(clf.decision_function([[0.0], [2.0]]), [-0.6, -0.2], atol=1e-12)
    # scikit-learn (libsvm) applies the same rule
    sk = SkSVC(kernel="linear", C=0.1, tol=1e-12).fit(X, y)
    assert clf.intercept_[0] == pytest.approx(sk.intercept_[0], abs=1e-12)


def test_intercept_without_free_sv_two_points_symmetric():
    """Two points, alpha = (C, C): interval [-(1 - 2C), 1 - 2C], midpoint 0 (not +-0.8)."""
    clf = SVC(kernel="linear", C=0.1, tol=1e-12).fit([[-1.0], [1.0]], ["a", "b"])
    np.testing.assert_allclose(clf.alpha_, [0.1, 0.1], atol=1e-14)
    assert clf.intercept_[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("C", [1e-3, 1e-2])
def test_intercept_without_free_sv_is_midpoint_of_kkt_interval(C):
    """RBF on overlapping balanced classes with a tiny C: every alpha is at a bound.

    Oracle: the interval of intercepts allowed by the KKT conditions, computed
    by brute force from the fitted alpha (``y_i f(x_i) >= 1`` where alpha_i = 0,
    ``<= 1`` where alpha_i = C), and scikit-learn's intercept on the same data.
    The RBF Gram matrix of distinct points is positive definite, so alpha is unique.
    """
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = np.r_[np.zeros(15), np.ones(15)]
    X[y == 1] += 0.3
    gamma = 0.5
    clf = SVC(kernel="rbf", C=C, gamma=gamma, tol=1e-10).fit(X, y)
    a = clf.alpha_
    at_zero, at_C = a <= 0.0, a >= C
    assert np.all(at_zero | at_C), "precondition: no free support vector"
    ys = np.where(y == 1, 1.0, -1.0)
    K = np.exp(-gamma * _sq_dists(X, X))
    g = K @ (a * ys)  # f(x_i) - b, brute force
    # y_i (g_i + b) >= 1 (alpha_i = 0) and <= 1 (alpha_i = C): bounds on b
    lower = np.r_[(1 - g)[at_zero & (ys > 0)], (-1 - g)[at_C & (ys < 0)]]
    upper = np.r_[(-1 - g)[at_zero & (ys < 0)], (1 - g)[at_C & (ys > 0)]]
    lo, hi = lower.max(), upper.min()
    assert hi - lo > 0.1 * C, "precondition: a wide interval, so an endpoint differs from the midpoint"
    b = clf.intercept_[0]
    assert b == pytest.approx(0.5 * (lo + hi), abs=1e-9 * (1.0 + abs(b)))
    sk = SkSVC(kernel="rbf", C=C, gamma=gamma, tol=1e-10).fit(X, y)
    assert b == pytest.approx(sk.intercept_[0], abs=1e-6 * C)


# ---------------------------------------------------------------------------
# (b) The Gaussian Gram matrix is EXACTLY symmetric (and has an exact unit
#     diagonal), on every path: the kernel itself, the fast in-place path of
#     gram_matrix, and the generic block path.
# ---------------------------------------------------------------------------


def _spread_data(n: int = 45, d: int = 6, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # features of very different scales, so rounding in ||x||^2 + ||y||^2 - 2<x, y> depends on the order
    return rng.standard_normal((n, d)) * np.logspace(-1, 1, d) + rng.uniform(-3, 3, d)


@pytest.mark.parametrize("sigma", [0.4, 1.0, 3.0])
def test_gaussian_gram_exactly_symmetric_on_every_path(sigma):
    X = _spread_data()
    oracle = np.exp(-_sq_dists(X, X) / (2.0 * sigma**2))
    candidates = {
        "gaussian_kernel(X)": gaussian_kernel(X, sigma=sigma),
        "gaussian_kernel(X, X)": gaussian_kernel(X, X, sigma=sigma),
        "rbf_kernel(X)": rbf_kernel(X, gamma=1.0 / (2.0 * sigma**2)),
        "gram fast": gram_matrix(gaussian_kernel, X, sigma=sigma),
        "gram fast blocks": gram_matrix(gaussian_kernel, X, sigma=sigma, block_size=7, n_jobs=2),
        "gram fast 1 thread": gram_matrix(gaussian_kernel, X, sigma=sigma, block_size=16, n_jobs=1),
        "gram partial": gram_matrix(partial(gaussian_kernel, sigma=sigma), X, block_size=11),
        "gram generic": gram_matrix(lambda A, B: gaussian_kernel(A, B, sigma=sigma), X, block_size=64),
        "gram generic blocks": gram_matrix(lambda A, B: gaussian_kernel(A, B, sigma=sigma), X, block_size=8),
    }
    for name, K in candidates.items():
        assert K.shape == (len(X), len(X)), name
        assert np.array_equal(K, K.T), f"{name}: max |K - K.T| = {np.max(np.abs(K - K.T)):.3g}"
        assert np.all(np.diag(K) == 1.0), name
        np.testing.assert_allclose(K, oracle, rtol=1e-10, atol=1e-300, err_msg=name)
    np.testing.assert_allclose(
        candidates["gram fast"], skp.rbf_kernel(X, gamma=1.0 / (2.0 * sigma**2)), rtol=1e-10, atol=1e-300
    )


# ---------------------------------------------------------------------------
# (c) The fast in-place path of gram_matrix uses the SAME defaults as the
#     kernel function it stands for (each parameter left out in turn).
# ---------------------------------------------------------------------------

# non-default values; each case leaves out exactly one parameter so its default is used
_OTHER = {
    polynomial_kernel: {"degree": 3, "gamma": 0.35, "coef0": 0.6},
    sigmoid_kernel: {"gamma": 0.15, "coef0": -0.4},
    gaussian_kernel: {"sigma": 0.8},
    rbf_kernel: {"gamma": 0.3},
}


def _closed_form(func, X, Y, params):
    """The kernel's formula in plain numpy, with defaults read from the function's signature."""
    sig = inspect.signature(func)
    p = {name: (params[name] if name in params else sig.parameters[name].default)
         for name in sig.parameters if name not in ("X", "Y")}
    d = X.shape[1]
    if func is polynomial_kernel:
        return (p["gamma"] * (X @ Y.T) + p["coef0"]) ** p["degree"]
    if func is sigmoid_kernel:
        g = 1.0 / d if p["gamma"] is None else p["gamma"]
        return np.tanh(g * (X @ Y.T) + p["coef0"])
    if func is gaussian_kernel:
        return np.exp(-_sq_dists(X, Y) / (2.0 * p["sigma"] ** 2))
    if func is rbf_kernel:
        g = 1.0 / d if p["gamma"] is None else p["gamma"]
        return np.exp(-g * _sq_dists(X, Y))
    raise AssertionError(func)


def _sklearn(func, X, Y, params):
    """scikit-learn's kernel with ktheory's documented defaults written out."""
    d = X.shape[1]
    if func is polynomial_kernel:
        return skp.polynomial_kernel(X, Y, degree=params.get("degree", 2), gamma=params.get("gamma", 1.0),
                                     coef0=params.get("coef0", 1.0))
    if func is sigmoid_kernel:
        return skp.sigmoid_kernel(X, Y, gamma=params.get("gamma", 1.0 / d), coef0=params.get("coef0", 1.0))
    if func is gaussian_kernel:
        return skp.rbf_kernel(X, Y, gamma=1.0 / (2.0 * params.get("sigma", 1.0) ** 2))
    return skp.rbf_kernel(X, Y, gamma=params.get("gamma", 1.0 / d))


_DEFAULT_CASES = [
    (func, left_out) for func, params in _OTHER.items() for left_out in [None, *params]
]


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize(
    "func,left_out", _DEFAULT_CASES, ids=[f"{f.__name__}-{p or 'all_given'}" for f, p in _DEFAULT_CASES]
)
def test_fast_gram_path_uses_the_kernel_defaults(func, left_out, symmetric):
    rng = np.random.default_rng(5)
    X = rng.uniform(-1.0, 1.0, (23, 4))
    Y = X if symmetric else rng.uniform(-1.0, 1.0, (17, 4))
    params = {k: v for k, v in _OTHER[func].items() if k != left_out}
    Yarg = None if symmetric else Y
    direct = func(X, Yarg, **params)
    oracle = _closed_form(func, X, Y, params)
    np.testing.assert_allclose(direct, oracle, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(direct, _sklearn(func, X, Y, params), rtol=1e-12, atol=1e-14)
    for K in (
        gram_matrix(func, X, Yarg, **params),
        gram_matrix(func, X, Yarg, block_size=5, n_jobs=2, **params),
        gram_matrix(partial(func, **params), X, Yarg, block_size=6, n_jobs=1),
    ):
        np.testing.assert_allclose(K, oracle, rtol=1e-12, atol=1e-14)


def test_fast_gram_path_with_all_defaults():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1.0, 1.0, (19, 3))
    for func in (linear_kernel, polynomial_kernel, sigmoid_kernel, gaussian_kernel, rbf_kernel):
        oracle = X @ X.T if func is linear_kernel else _closed_form(func, X, X, {})
        np.testing.assert_allclose(gram_matrix(func, X), oracle, rtol=1e-12, atol=1e-14, err_msg=func.__name__)
        np.testing.assert_allclose(func(X), oracle, rtol=1e-12, atol=1e-14, err_msg=func.__name__)


# ---------------------------------------------------------------------------
# (d) align_weights keeps the factor sign(a_k): a base kernel with a NEGATIVE
#     alignment (here a sigmoid kernel) gets a negative weight.
# ---------------------------------------------------------------------------


def _ring_data():
    """Class 0 in two clusters at +-u, class 1 near the origin (a sigmoid kernel is anti-aligned)."""
    rng = np.random.default_rng(1)
    u = np.array([2.0, 0.0])
    A = np.r_[u + 0.3 * rng.standard_normal((6, 2)), -u + 0.3 * rng.standard_normal((6, 2))]
    B = 0.3 * rng.standard_normal((12, 2))
    return np.r_[A, B], np.r_[np.zeros(12), np.ones(12)]


def _alignment_vector(kernels, y):
    """a_k = <H K_k H, y y^T>_F with the explicit centering matrix H (brute force)."""
    ys = np.where(np.asarray(y) == np.unique(y)[1], 1.0, -1.0)
    H = _centering(len(ys))
    return np.array([np.sum((H @ K @ H) * np.outer(ys, ys)) for K in kernels])


@pytest.mark.parametrize("q", [1.5, 2.0, 4.0])
def test_align_weights_negative_alignment_keeps_its_sign(q):
    X, y = _ring_data()
    kernels = [gaussian_kernel(X, sigma=1.0), sigmoid_kernel(X, gamma=0.5, coef0=1.0), linear_kernel(X)]
    a = _alignment_vector(kernels, y)
    assert a[1] < -1.0 and a[0] > 1.0, f"precondition: one negatively aligned kernel, a = {a}"
    mu = align_weights(kernels, y, q=q)
    # closed form (Hoelder): mu_k = sign(a_k) |a_k|^(1/(q-1)), normalised in l_q
    v = np.sign(a) * np.abs(a) ** (1.0 / (q - 1.0))
    np.testing.assert_allclose(mu, v / np.sum(np.abs(v) ** q) ** (1.0 / q), rtol=1e-10, atol=1e-14)
    assert mu[1] < 0.0
    qs = q / (q - 1.0)
    assert mu @ a == pytest.approx(np.sum(np.abs(a) ** qs) ** (1.0 / qs), rel=1e-10)
    # brute force: no point of the l_q unit sphere does better
    rng = np.random.default_rng(0)
    P = rng.standard_normal((200_000, 3))
    P /= (np.sum(np.abs(P) ** q, axis=1) ** (1.0 / q))[:, None]
    assert mu @ a >= (P @ a).max() - 1e-12 * np.abs(a).max()


def test_align_weights_single_negative_kernel_is_minus_one():
    X, y = _ring_data()
    K = sigmoid_kernel(X, gamma=0.5, coef0=1.0)
    assert _alignment_vector([K], y)[0] < 0.0
    # max mu * a over |mu| <= 1 with a < 0 is at mu = -1
    np.testing.assert_allclose(align_weights([K], y), [-1.0], atol=1e-15)
    np.testing.assert_allclose(align_weights([K, -K], y), [-np.sqrt(0.5), np.sqrt(0.5)], rtol=1e-12)


# ===========================================================================
# Survivors of the mutation pass (scripts/mutate.py, seed 0) that matter.
# Each test names the mutant (file:line at the commit the pass ran on).
# ===========================================================================


@pytest.mark.parametrize("func", [linear_kernel, rbf_kernel, gaussian_kernel, polynomial_kernel])
def test_bad_input_error_names_the_right_argument(func):
    """_validation.py:97 ``check_array(X, names[0]) -> names[1]``: a NaN in X was reported as in Y."""
    good = np.ones((2, 3))
    bad = good.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^X\b"):
        func(bad, good)
    with pytest.raises(ValueError, match=r"^Y\b"):
        func(good, bad)
    with pytest.raises(ValueError, match=r"^X\b"):
        func(bad)


@pytest.mark.parametrize("func", [kta, cka])
def test_zero_kernel_is_refused_naming_the_argument(func):
    """alignment.py:185 (size 1.0 -> -1.0 in the zero-norm test of K2): a zero K2 gave nan, not an error."""
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((6, 3))
    K = Z @ Z.T
    zero = np.zeros_like(K)
    with pytest.raises(ValueError, match="K2"):
        func(K, zero)
    with pytest.raises(ValueError, match="K1"):
        func(zero, K)
    assert func(K, K) == pytest.approx(1.0, abs=1e-12)  # the valid case still works


def test_align_weights_no_overflow_for_q_near_one():
    """alignment.py:490 ``r = a / scale -> a * scale``: the rescaling that keeps |a|^(1/(q-1)) finite.

    Oracle: the closed form evaluated in log space (no overflow possible).
    """
    X, y = _ring_data()
    kernels = [1e6 * gaussian_kernel(X, sigma=1.0), 1e6 * sigmoid_kernel(X, gamma=0.5, coef0=1.0),
               1e6 * linear_kernel(X)]
    a = _alignment_vector(kernels, y)
    q = 1.02  # exponent 1 / (q - 1) = 50: |a|^50 overflows float64 for |a| ~ 1e7
    e = 1.0 / (q - 1.0)
    assert np.abs(a).max() ** 2 > 1e10, "precondition: a * max|a| raised to the power 50 overflows"
    mu = align_weights(kernels, y, q=q)
    assert np.all(np.isfinite(mu))
    log_v = e * np.log(np.abs(a))
    log_norm = np.logaddexp.reduce(q * log_v) / q
    np.testing.assert_allclose(mu, np.sign(a) * np.exp(log_v - log_norm), rtol=1e-9, atol=1e-300)
    assert np.sum(np.abs(mu) ** q) == pytest.approx(1.0, rel=1e-12)


def test_gram_matrix_of_a_single_string():
    """kernels.py:410 ``isinstance(X[0], str) -> X[1]``: a one-item list of strings raised IndexError."""
    def match(A, B):
        return np.array([[float(s == t) + len(s) * len(t) for t in B] for s in A])

    np.testing.assert_array_equal(gram_matrix(match, ["cat"]), [[10.0]])
    np.testing.assert_array_equal(gram_matrix(match, ["cat"], ["ox", "cat"]), [[6.0, 10.0]])


def test_gram_matrix_generic_blocks_wider_than_the_transpose_tile():
    """kernels.py:469 (mirror offset ``j + c -> j - c``): blocks wider than the 256-column
    transpose tile are mirrored tile by tile; only a block_size > 256 exercises the offsets.

    Oracle: the full matrix computed without symmetry (Y passed explicitly) and by brute force.
    """
    rng = np.random.default_rng(8)
    X = rng.standard_normal((700, 3))

    def kern(A, B):  # a callable, so gram_matrix takes the generic blocked path
        return np.exp(-np.sqrt(_sq_dists(A, B)))

    G = gram_matrix(kern, X, block_size=300, n_jobs=2)
    full = kern(X, X)
    np.testing.assert_allclose(G, full, rtol=1e-13, atol=0)
    assert np.array_equal(G, G.T)
    np.testing.assert_allclose(gram_matrix(kern, X, X, block_size=300), full, rtol=1e-13, atol=0)


def test_is_psd_explicit_tolerance_is_on_the_eigenvalues():
    """kernels.py:611 ``(K + K.T) / 2.0 -> / 3.0`` in is_psd: harmless with the default (relative)
    tolerance, but an explicit ``tol`` is a bound on the eigenvalues themselves.

    Oracle: a matrix built with a known spectrum, Q diag(lam) Q^T.
    """
    from ktheory.kernels import is_psd

    rng = np.random.default_rng(4)
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    lam = np.array([3.0, 2.0, 1.0, 0.5, -0.012])
    K = (Q * lam) @ Q.T
    K = (K + K.T) / 2.0
    assert is_psd(K, tol=0.013)
    assert not is_psd(K, tol=0.011)
    assert not is_psd(K)
    assert is_psd((Q * np.abs(lam)) @ Q.T)


@pytest.mark.parametrize("degree", [0, -1])
def test_polynomial_feature_powers_rejects_degree_below_one(degree):
    """kernels.py:631 (``or -> and`` in the degree check): degree 0 returned the constant monomial."""
    from ktheory.kernels import polynomial_feature_powers

    with pytest.raises(ValueError, match="degree"):
        polynomial_feature_powers(2, degree)
    with pytest.raises((ValueError, TypeError), match="degree"):
        polynomial_feature_powers(2, 1.5)
    with pytest.raises((ValueError, TypeError), match="degree"):
        polynomial_feature_powers(2, True)
    # the valid case, against the count C(n + d, d)
    assert polynomial_feature_powers(2, 3).shape == (10, 2)


def _subsequence_brute(s: str, t: str, n: int, lam: float) -> float:
    """k_n(s, t) = sum over equal index-subsequences of lam^(span(i) + span(j)) (Lodhi et al.), enumerated."""
    import itertools

    total = 0.0
    for i in itertools.combinations(range(len(s)), n):
        u = "".join(s[k] for k in i)
        for j in itertools.combinations(range(len(t)), n):
            if u == "".join(t[k] for k in j):
                total += lam ** (i[-1] - i[0] + 1 + j[-1] - j[0] + 1)
    return total


@pytest.mark.parametrize("force_dp", [False, True])
def test_subsequence_gram_dynamic_programme_path(force_dp):
    """kernels.py:903 (``T is S -> T is not S``: T's lengths taken from S) and kernels.py:1031
    (``denom > 0 -> denom < 0``: every normalized value 0) live in the pairwise dynamic programme,
    which runs only when the explicit feature space is too large: an alphabet of 17 letters with
    n = 3 (17^3 > 4096), or a tiny ``max_elements``.

    Oracle: brute-force enumeration of the index subsequences.
    """
    from ktheory.kernels import subsequence_gram

    n, lam = 3, 0.7
    if force_dp:
        S, T, budget = ["abcab", "bcaab", "abb"], ["cabbac", "abc", "aabbcc", "bca"], 1
    else:  # 17 letters
        S, T, budget = ["abcdefgh", "hgfedcba", "aqbhcg"], ["abchgq", "jklabc", "mnopqcabr", "bah"], 1 << 22
    # (no string shorter than n: the normalized value of such a string is a convention)
    raw = np.array([[_subsequence_brute(s, t, n, lam) for t in T] for s in S])
    dS = np.array([_subsequence_brute(s, s, n, lam) for s in S])
    dT = np.array([_subsequence_brute(t, t, n, lam) for t in T])
    with np.errstate(divide="ignore", invalid="ignore"):
        norm = np.where(np.outer(dS, dT) > 0, raw / np.sqrt(np.outer(dS, dT)), 0.0)
    assert np.count_nonzero(raw) >= 4, "precondition: non-trivial values"
    np.testing.assert_allclose(subsequence_gram(S, T, n=n, lam=lam, normalize=False, max_elements=budget),
                               raw, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(subsequence_gram(S, T, n=n, lam=lam, max_elements=budget), norm, rtol=1e-12,
                               atol=1e-15)
    rawS = np.array([[_subsequence_brute(s, t, n, lam) for t in S] for s in S])
    with np.errstate(divide="ignore", invalid="ignore"):
        normS = np.where(np.outer(dS, dS) > 0, rawS / np.sqrt(np.outer(dS, dS)), 0.0)
    np.testing.assert_allclose(subsequence_gram(S, n=n, lam=lam, max_elements=budget), normS, rtol=1e-12,
                               atol=1e-15)


def _gauss(A, B):
    """A Gaussian kernel written out here (sigma = 1), independent of ktheory.kernels."""
    return np.exp(-_sq_dists(np.atleast_2d(A), np.atleast_2d(B)) / 2.0)


def test_feature_of_a_one_dimensional_point():
    """rkhs.py:267 ``np.ndim(x) == 1 -> == 2``: a point given as a 1-D array was refused."""
    from ktheory.rkhs import KernelExpansion

    x = np.array([1.0, 2.0])
    Z = np.array([[0.0, 0.0], [1.0, 2.5], [3.0, -1.0]])
    oracle = np.exp(-((Z - x) ** 2).sum(axis=1) / 2.0)
    for point in (x, [1.0, 2.0], x.reshape(1, -1)):
        f = KernelExpansion.feature(_gauss, point)
        np.testing.assert_allclose(f(Z), oracle, rtol=1e-14)
        assert f.centers.shape == (1, 2)


def test_expansion_division_refuses_bools():
    """rkhs.py:476 (``or -> and`` in __truediv__'s type check): ``f / True`` returned f."""
    from ktheory.rkhs import KernelExpansion

    f = KernelExpansion(_gauss, [[0.0], [1.0]], [1.0, -2.0])
    Z = np.array([[0.5], [2.0]])
    np.testing.assert_allclose((f / 4.0)(Z), f(Z) / 4.0, rtol=1e-15)
    for bad in (True, np.bool_(True), 1j, "2"):
        with pytest.raises(TypeError):
            f / bad


def test_project_with_explicit_rcond_truncates_the_spectrum():
    """rkhs.py:497 (``rcond is None and n > 0 -> or``): an explicit rcond must take the SVD path
    (truncating singular values below rcond * s_max) even when K is well conditioned.

    Oracle: the truncated pseudo-inverse from numpy's eigendecomposition of K.
    """
    from ktheory.rkhs import project

    C = np.array([[0.0], [0.8], [1.7], [3.0]])
    K = _gauss(C, C)
    s, U = np.linalg.eigh(K)
    ratios = np.sort(s / s.max())
    assert ratios[0] > 1e-6, "precondition: K well conditioned (the Cholesky path would be taken)"
    rcond = float(np.sqrt(ratios[0] * ratios[1]))  # cuts exactly the smallest eigenvalue
    values = np.array([1.0, -0.5, 2.0, 0.3])
    keep = s > rcond * s.max()
    w_oracle = U[:, keep] @ ((U[:, keep].T @ values) / s[keep])
    Pf = project(values, C, kernel=_gauss, rcond=rcond)
    np.testing.assert_allclose(Pf.coef, w_oracle, rtol=1e-9, atol=1e-12)
    # without rcond: the exact interpolant (Cholesky), which differs
    exact = project(values, C, kernel=_gauss)
    np.testing.assert_allclose(exact.coef, np.linalg.solve(K, values), rtol=1e-9)
    assert np.max(np.abs(exact.coef - w_oracle)) > 1e-3


def test_project_rejects_rcond_outside_unit_interval():
    """rkhs.py:603 (``0 <= rcond < 1 -> < 2``): rcond in [1, 2) was accepted."""
    from ktheory.rkhs import project

    C = np.array([[0.0], [1.0]])
    for bad in (1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="rcond"):
            project([1.0, 2.0], C, kernel=_gauss, rcond=bad)


def test_exact_rbf_default_gamma_is_one_over_n_features():
    """svm/_exact.py:192 (``Rational(1, n_features) -> Rational(2, n_features)``): the default gamma
    of the exact solver's named kernels.

    Oracle (by hand): two points x1 = (0, 0), x2 = (1, 1) with opposite labels; by symmetry
    alpha_1 = alpha_2 = a and the dual 2a - a^2 (1 - k12) is maximal at a = 1 / (1 - k12), with
    k12 = exp(-gamma ||x1 - x2||^2) = exp(-1) for gamma = 1/2.
    """
    import sympy as sp

    from ktheory.svm import hard_margin_dual_exact

    X, y = [[0, 0], [1, 1]], [0, 1]
    for kw in ({}, {"gamma": sp.Rational(1, 2)}):
        sol = hard_margin_dual_exact(X, y, kernel="rbf", **kw)
        for a in sol.alpha:
            assert sp.simplify(a - 1 / (1 - sp.exp(-1))) == 0
    # poly with the default gamma 1/2: k = (x.z / 2 + coef0)^degree; k11 = 1, k22 = 4, k12 = 1
    sol = hard_margin_dual_exact(X, y, kernel="poly", degree=2, coef0=1)
    for a in sol.alpha:
        assert sp.simplify(a - sp.Rational(2, 3)) == 0  # 2a - a^2 (1 + 4 - 2) / 2 -> a = 2/3


def test_svc_refuses_an_overflowing_named_kernel():
    """svm/_smo.py:694 (``not np.all(np.isfinite(K)) -> np.all(...)``): a polynomial Gram matrix
    with infinite entries was passed on to the solver instead of raising a clear ValueError."""
    X = np.array([[0.0, 1.0], [1e3, 2e3], [-1.0, 0.5], [3e3, -1e3]])
    y = [0, 1, 0, 1]
    with np.errstate(over="ignore"):
        K = (1.0 * (X @ X.T) + 1.0) ** 60
    assert not np.all(np.isfinite(K)), "precondition: the Gram matrix overflows"
    with pytest.raises(ValueError, match="overflow|NaN|inf"):
        with np.errstate(over="ignore", invalid="ignore"):
            # max_iter: on a broken build the solver would otherwise spin on NaNs for 10**7 iterations
            SVC(kernel="poly", degree=60, gamma=1.0, coef0=1.0, max_iter=1000).fit(X, y)
    # the same data with a kernel that does not overflow fits
    SVC(kernel="poly", degree=2, gamma=1e-6, coef0=1.0).fit(X, y)
