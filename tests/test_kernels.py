"""Tests of ktheory.kernels against independent oracles.

Oracles: scikit-learn's pairwise kernels, explicit formulas, brute-force enumeration
of subsequences (for the string kernel), sympy (exact values), and numpy's
eigensolver (PSD checks).
"""

from __future__ import annotations

import itertools
import math
from functools import partial

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import pairwise as skp

from ktheory.kernels import (
    gaussian_kernel,
    gram_matrix,
    is_psd,
    laplacian_kernel,
    linear_kernel,
    make_kernel,
    polynomial_feature_dimension,
    polynomial_feature_map,
    polynomial_feature_powers,
    polynomial_kernel,
    psd_tolerance,
    rbf_kernel,
    sigmoid_kernel,
    subsequence_gram,
    subsequence_kernel,
)

RNG = np.random.default_rng(12345)
X = RNG.normal(size=(40, 5))
Y = RNG.normal(size=(25, 5))


def brute_force_subsequence(s: str, t: str, n: int, lam):
    """k_n(s, t) by enumerating every pair of index sequences (the definition)."""
    total = 0
    for i in itertools.combinations(range(len(s)), n):
        for j in itertools.combinations(range(len(t)), n):
            if all(s[a] == t[b] for a, b in zip(i, j)):
                total += lam ** ((i[-1] - i[0] + 1) + (j[-1] - j[0] + 1))
    return total


# --- vector kernels against scikit-learn -------------------------------------------


@pytest.mark.parametrize("Yv", [None, Y])
def test_linear_matches_sklearn(Yv):
    np.testing.assert_allclose(linear_kernel(X, Yv), skp.linear_kernel(X, Yv), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("degree,gamma,coef0", [(1, 1.0, 0.0), (2, 1.0, 1.0), (3, 0.3, 2.0), (4, 0.1, 0.5)])
def test_polynomial_matches_sklearn(degree, gamma, coef0):
    np.testing.assert_allclose(
        polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0),
        skp.polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0),
        rtol=1e-12,
    )


def test_polynomial_default_is_books_kernel():
    np.testing.assert_allclose(polynomial_kernel(X, Y), (X @ Y.T + 1.0) ** 2, rtol=1e-13)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("Yv", [None, Y])
def test_gaussian_matches_sklearn_rbf(sigma, Yv):
    np.testing.assert_allclose(
        gaussian_kernel(X, Yv, sigma=sigma), skp.rbf_kernel(X, Yv, gamma=1.0 / (2 * sigma**2)), rtol=1e-12, atol=1e-15
    )


def test_gaussian_definition_pointwise():
    x, y = X[0], Y[3]
    expected = math.exp(-float(np.sum((x - y) ** 2)) / (2 * 0.7**2))
    assert gaussian_kernel(x[None], y[None], sigma=0.7)[0, 0] == pytest.approx(expected, rel=1e-13)


def test_gaussian_diagonal_is_exactly_one_and_bounded():
    K = gaussian_kernel(X * 1e3, sigma=1e3)
    assert np.all(np.diag(K) == 1.0)
    assert K.max() <= 1.0 and K.min() >= 0.0


@pytest.mark.parametrize("gamma", [None, 0.05, 2.0])
def test_rbf_matches_sklearn(gamma):
    np.testing.assert_allclose(rbf_kernel(X, Y, gamma=gamma), skp.rbf_kernel(X, Y, gamma=gamma), rtol=1e-12, atol=1e-15)


def test_laplacian_manhattan_matches_sklearn():
    np.testing.assert_allclose(
        laplacian_kernel(X, Y, sigma=2.5, metric="manhattan"), skp.laplacian_kernel(X, Y, gamma=1 / 2.5), rtol=1e-12
    )


def test_laplacian_euclidean_matches_distance_formula():
    D = skp.euclidean_distances(X, Y)
    np.testing.assert_allclose(laplacian_kernel(X, Y, sigma=1.7), np.exp(-D / 1.7), rtol=1e-10)
    np.testing.assert_allclose(np.diag(laplacian_kernel(X, sigma=1.7)), 1.0)


@pytest.mark.parametrize("gamma,coef0", [(None, 1.0), (0.5, -1.0), (2.0, 0.0)])
def test_sigmoid_matches_sklearn(gamma, coef0):
    np.testing.assert_allclose(
        sigmoid_kernel(X, Y, gamma=gamma, coef0=coef0), skp.sigmoid_kernel(X, Y, gamma=gamma, coef0=coef0), rtol=1e-12
    )


@pytest.mark.parametrize("name", ["linear", "poly", "rbf", "sigmoid", "laplacian"])
def test_make_kernel_matches_sklearn_pairwise(name):
    params = {"gamma": 0.4, "degree": 3, "coef0": 0.5}
    if name == "laplacian":
        params["metric"] = "manhattan"  # scikit-learn's Laplacian; ktheory's default norm is Euclidean
    k = make_kernel(name, **params)
    sk_params = {"linear": {}, "poly": params, "rbf": {"gamma": 0.4}, "sigmoid": {"gamma": 0.4, "coef0": 0.5},
                 "laplacian": {"gamma": 0.4}}[name]
    expected = skp.pairwise_kernels(X, Y, metric=name if name != "poly" else "polynomial", **sk_params)
    np.testing.assert_allclose(k(X, Y), expected, rtol=1e-11)


def test_make_kernel_default_gamma_is_one_over_d():
    np.testing.assert_allclose(make_kernel("rbf")(X, Y), skp.rbf_kernel(X, Y, gamma=1 / X.shape[1]), rtol=1e-12)


def test_make_kernel_passes_callables_and_rejects_unknown_names():
    assert make_kernel(linear_kernel) is linear_kernel
    with pytest.raises(ValueError, match="kernel must be one of"):
        make_kernel("cosine")


# --- gram_matrix ---------------------------------------------------------------------


@pytest.mark.parametrize("block_size", [1, 7, 16, 1000])
def test_gram_matrix_blocked_equals_direct(block_size):
    k = partial(gaussian_kernel, sigma=1.3)
    np.testing.assert_allclose(gram_matrix(k, X, block_size=block_size), gaussian_kernel(X, sigma=1.3), rtol=1e-14)
    np.testing.assert_allclose(
        gram_matrix(gaussian_kernel, X, Y, block_size=block_size, sigma=1.3), gaussian_kernel(X, Y, sigma=1.3), rtol=1e-14
    )


def test_gram_matrix_single_thread_equals_threaded():
    A = gram_matrix(polynomial_kernel, X, block_size=9, n_jobs=1, degree=3)
    B = gram_matrix(polynomial_kernel, X, block_size=9, n_jobs=2, degree=3)
    np.testing.assert_array_equal(A, B)
    np.testing.assert_array_equal(A, A.T)


def test_gram_matrix_works_for_string_kernels():
    words = ["cat", "car", "bat", "cart", "arc"]
    k = partial(subsequence_gram, n=2, lam=0.5)
    np.testing.assert_allclose(gram_matrix(k, words, block_size=2), subsequence_gram(words, n=2, lam=0.5), rtol=1e-12)


def test_gram_matrix_rejects_non_symmetric_kernel():
    def skew(A, B):
        return A @ B.T + A[:, :1] * 3.0  # not symmetric

    with pytest.raises(ValueError, match="not symmetric"):
        gram_matrix(skew, X)
    # with Y given, a non-symmetric function is computed as asked
    np.testing.assert_allclose(gram_matrix(skew, X, X), skew(X, X))


def test_gram_matrix_rejects_bad_blocks_and_kernels():
    with pytest.raises(ValueError, match="shape"):
        gram_matrix(lambda A, B: np.zeros((2, 2)), X, Y)
    with pytest.raises(ValueError, match="NaN or infinity"):
        gram_matrix(lambda A, B: np.full((len(A), len(B)), np.nan), X, Y)
    with pytest.raises(TypeError, match="callable"):
        gram_matrix("rbf", X)
    with pytest.raises(ValueError, match="block_size"):
        gram_matrix(linear_kernel, X, block_size=0)


# --- explicit polynomial feature map ---------------------------------------------------


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 0.5, 1.0, 2.0])
def test_polynomial_feature_map_reproduces_kernel(degree, coef0):
    Z = RNG.normal(size=(12, 3))
    Phi = polynomial_feature_map(Z, degree=degree, coef0=coef0)
    np.testing.assert_allclose(Phi @ Phi.T, (Z @ Z.T + coef0) ** degree, rtol=1e-10, atol=1e-10)
    expected_dim = math.comb(3 + degree - 1, degree) if coef0 == 0 else math.comb(3 + degree, degree)
    assert Phi.shape == (12, expected_dim)
    assert expected_dim == polynomial_feature_dimension(3, degree, homogeneous=(coef0 == 0))


def test_polynomial_feature_map_degree2_in_2d_is_the_textbook_map():
    x = np.array([[0.3, -1.2]])
    x1, x2 = x[0]
    expected = np.array([1, math.sqrt(2) * x1, math.sqrt(2) * x2, x1**2, math.sqrt(2) * x1 * x2, x2**2])
    np.testing.assert_allclose(polynomial_feature_map(x, 2, 1.0)[0], expected, rtol=1e-14)
    np.testing.assert_array_equal(polynomial_feature_powers(2, 2), [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]])


# --- string subsequence kernel ---------------------------------------------------------


def test_subsequence_symbolic_values_from_lodhi():
    lam = sp.Symbol("lambda", positive=True)
    assert sp.simplify(subsequence_kernel("cat", "car", 2, lam) - lam**4) == 0
    assert sp.simplify(subsequence_kernel("cat", "cat", 2, lam) - (2 * lam**4 + lam**6)) == 0


@pytest.mark.parametrize(
    "s,t,n", [("science", "silence", 3), ("abab", "baba", 2), ("aaaa", "aa", 1), ("kernel", "kennel", 4), ("ab", "abc", 3)]
)
def test_subsequence_symbolic_equals_brute_force(s, t, n):
    lam = sp.Symbol("lambda", positive=True)
    assert sp.expand(subsequence_kernel(s, t, n, lam) - brute_force_subsequence(s, t, n, lam)) == 0


@settings(max_examples=60, deadline=None)
@given(
    s=st.text(alphabet="abc", max_size=7),
    t=st.text(alphabet="abc", max_size=7),
    n=st.integers(1, 4),
    lam=st.floats(0.05, 1.0),
)
def test_subsequence_numeric_equals_brute_force(s, t, n, lam):
    expected = brute_force_subsequence(s, t, n, lam)
    assert subsequence_kernel(s, t, n, lam) == pytest.approx(expected, rel=1e-10, abs=1e-300)


@settings(max_examples=25, deadline=None)
@given(
    words=st.lists(st.text(alphabet="abcd", min_size=0, max_size=8), min_size=1, max_size=7),
    n=st.integers(1, 3),
    lam=st.floats(0.1, 1.0),
)
def test_subsequence_gram_properties(words, n, lam):
    K = subsequence_gram(words, n=n, lam=lam, normalize=False)
    B = np.array([[brute_force_subsequence(a, b, n, lam) for b in words] for a in words], dtype=float)
    np.testing.assert_allclose(K, B, rtol=1e-10, atol=1e-12)
    assert is_psd(K, tol=1e-9 * max(1.0, float(np.abs(K).max())))
    Kn = subsequence_gram(words, n=n, lam=lam)
    assert np.all(Kn >= 0) and np.all(Kn <= 1)
    np.testing.assert_array_equal(Kn, Kn.T)
    # unit diagonal, also for strings shorter than n (documented convention: similar only to themselves)
    np.testing.assert_allclose(np.diag(Kn), 1.0, rtol=1e-12)
    for i, w in enumerate(words):
        if len(w) < n:
            assert all(Kn[i, j] == (1.0 if words[j] == w else 0.0) for j in range(len(words)))


def test_subsequence_gram_pairwise_path_equals_feature_path():
    words = ["science", "silence", "kernel", "kennel", "cat", "a", ""]
    fast = subsequence_gram(words, n=3, lam=0.6, normalize=False)
    pairwise = subsequence_gram(words, n=3, lam=0.6, normalize=False, max_elements=50)  # forces the pair DP
    np.testing.assert_allclose(fast, pairwise, rtol=1e-12, atol=1e-15)


def test_subsequence_gram_long_strings_use_lfilter_path():
    rng = np.random.default_rng(3)
    alphabet = list("abcdefghijklmnopqrstuvwxyz")
    words = ["".join(rng.choice(alphabet, size=120)) for _ in range(3)]
    K = subsequence_gram(words, n=2, lam=0.5, normalize=False, max_elements=200_000)
    half = sp.Rational(1, 2)  # exact arithmetic: the pure-Python recursion, an independent code path
    for i, j in [(0, 0), (0, 1), (1, 2)]:
        exact = subsequence_kernel(words[i], words[j], 2, half)
        assert K[i, j] == pytest.approx(float(exact), rel=1e-12)


def test_subsequence_gram_pair_recursion_in_several_batches_matches_exact():
    # 26 letters and n = 4 (too many features: the batched pair recursion), strings of
    # lengths 40 to 70 in batches of a few pairs each (cache-sized), against the exact
    # recursion (sympy Rationals: an independent code path)
    rng = np.random.default_rng(11)
    alphabet = list("abcdefghijklmnopqrstuvwxyz")
    words = ["".join(rng.choice(alphabet, size=int(rng.integers(40, 71)))) for _ in range(6)]
    lam = sp.Rational(7, 10)
    K = subsequence_gram(words, n=4, lam=0.7, normalize=False)
    for i in range(len(words)):
        for j in range(i, len(words)):
            exact = float(subsequence_kernel(words[i], words[j], 4, lam))
            assert K[i, j] == pytest.approx(exact, rel=1e-12)
            assert K[j, i] == K[i, j]


def test_subsequence_gram_cross_block_matches_full():
    words = ["cat", "car", "bat", "bar", "scar", "arc"]
    full = subsequence_gram(words, n=2, lam=0.4)
    np.testing.assert_allclose(subsequence_gram(words[:3], words[2:], n=2, lam=0.4), full[:3, 2:], rtol=1e-12)


# --- is_psd --------------------------------------------------------------------------


def test_is_psd_accepts_psd_and_rank_deficient_matrices():
    assert is_psd(gaussian_kernel(X, sigma=1.0))
    Z = RNG.normal(size=(30, 3))
    G = Z @ Z.T  # rank 3: 27 eigenvalues are zero in exact arithmetic, tiny of either sign in floating point
    assert is_psd(G)
    assert psd_tolerance(G) > 0


def test_is_psd_rejects_indefinite_and_non_symmetric():
    assert not is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))  # eigenvalues 3, -1
    assert not is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    assert not is_psd(-np.eye(3) * 1e-6)
    assert is_psd(-np.eye(3) * 1e-6, tol=1e-5)


def test_sigmoid_kernel_counterexample_is_not_psd():
    # two points: k(x, x) = tanh(-1) < 0 makes a negative diagonal entry
    Z = np.array([[0.0], [1.0]])
    K = sigmoid_kernel(Z, gamma=1.0, coef0=-1.0)
    assert K[0, 0] < 0
    assert not is_psd(K)


@settings(max_examples=30, deadline=None)
@given(
    Z=arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)), elements=st.floats(-3, 3)),
    sigma=st.floats(0.2, 5.0),
)
def test_psd_kernels_give_symmetric_psd_grams(Z, sigma):
    for K in (
        linear_kernel(Z),
        polynomial_kernel(Z, degree=3),
        gaussian_kernel(Z, sigma=sigma),
        laplacian_kernel(Z, sigma=sigma),
        laplacian_kernel(Z, sigma=sigma, metric="manhattan"),
    ):
        # symmetric up to rounding (the expansion ||x||^2 + ||y||^2 - 2<x, y> is evaluated in a fixed order)
        np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-13 * max(1.0, float(np.abs(K).max())))
        assert is_psd(K, tol=1e-9 * max(1.0, float(np.abs(K).max()) * len(K)))


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel", [linear_kernel, polynomial_kernel, gaussian_kernel, rbf_kernel, laplacian_kernel, sigmoid_kernel]
)
def test_vector_kernels_reject_bad_input(kernel):
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        kernel(bad)
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        kernel(X, bad)
    with pytest.raises(ValueError, match="2-D"):
        kernel(np.ones(5))
    with pytest.raises(ValueError, match="same number of features"):
        kernel(X, np.ones((3, 4)))
    with pytest.raises(TypeError):
        kernel([["a", "b"]])


@pytest.mark.parametrize("sigma", [0.0, -1.0, np.inf, np.nan])
def test_widths_must_be_positive(sigma):
    with pytest.raises(ValueError, match="sigma"):
        gaussian_kernel(X, sigma=sigma)
    with pytest.raises(ValueError, match="sigma"):
        laplacian_kernel(X, sigma=sigma)


def test_parameter_errors():
    with pytest.raises(ValueError, match="degree"):
        polynomial_kernel(X, degree=0)
    with pytest.raises(ValueError, match="gamma"):
        rbf_kernel(X, gamma=-1.0)
    with pytest.raises(ValueError, match="metric"):
        laplacian_kernel(X, metric="chebyshev")
    with pytest.raises(ValueError, match="square"):
        is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        is_psd(np.array([[1.0, np.nan], [np.nan, 1.0]]))


def test_string_kernel_errors():
    with pytest.raises(TypeError, match="str"):
        subsequence_kernel("cat", 5, 2, 0.5)
    with pytest.raises(TypeError, match=r"S\[1\]"):
        subsequence_gram(["cat", 3], n=2, lam=0.5)
    with pytest.raises(TypeError, match="single string"):
        subsequence_gram("cat", n=2, lam=0.5)
    with pytest.raises(ValueError, match="n"):
        subsequence_kernel("cat", "car", 0, 0.5)
    for lam in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="lam"):
            subsequence_kernel("cat", "car", 2, lam)
    with pytest.raises(ValueError, match="at least one"):
        subsequence_gram([], n=2, lam=0.5)


@pytest.mark.parametrize(
    "kernel,params",
    [
        (linear_kernel, {}),
        (polynomial_kernel, {"degree": 3, "gamma": 0.5, "coef0": 2.0}),
        (gaussian_kernel, {"sigma": 0.9}),
        (rbf_kernel, {"gamma": 0.3}),
        (rbf_kernel, {}),
        (sigmoid_kernel, {"gamma": 0.2, "coef0": -0.5}),
    ],
)
@pytest.mark.parametrize("symmetric", [True, False])
def test_gram_matrix_inplace_fast_path_equals_generic_blocks(kernel, params, symmetric):
    """ktheory's own kernels take an in-place path; a wrapping lambda forces the generic one."""
    Yv = None if symmetric else Y
    fast = gram_matrix(kernel, X, Yv, block_size=7, **params)
    fast_partial = gram_matrix(partial(kernel, **params), X, Yv, block_size=7)
    generic = gram_matrix(lambda A, B: kernel(A, B, **params), X, Yv, block_size=7)
    np.testing.assert_allclose(fast, generic, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(fast, fast_partial)
    if symmetric:
        np.testing.assert_array_equal(fast, fast.T)
        if kernel in (gaussian_kernel, rbf_kernel):
            assert np.all(np.diag(fast) == 1.0)


def test_gram_matrix_fast_path_validates_parameters():
    with pytest.raises(ValueError, match="sigma"):
        gram_matrix(gaussian_kernel, X, sigma=-1.0)
    with pytest.raises(ValueError, match="degree"):
        gram_matrix(polynomial_kernel, X, degree=0)
