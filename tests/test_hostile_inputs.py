"""Regression tests of issue 17 ("ktheory under hostile input") for kernels, validation,
alignment and rkhs: each test pins one fix, against an independent oracle (scikit-learn,
the exact sympy recursion, a closed form, or an invariance).
"""

from __future__ import annotations

import inspect
import math
import pickle
import tracemalloc
from functools import partial

import numpy as np
import pytest
import sympy as sp
from sklearn.metrics import pairwise as skp

import ktheory.kernels as kk
from ktheory._validation import (
    check_array,
    check_square_matrix,
    check_symmetric,
    floating_dtype,
    symmetry_rtol,
)
from ktheory.alignment import align_weights, alignf_weights, center_kernel, cka, hsic, kta, linear_cka
from ktheory.kernels import (
    KERNEL_DEFAULTS,
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
from ktheory.rkhs import KernelExpansion, project, same_kernel

RNG = np.random.default_rng(17)
X = RNG.normal(size=(12, 3))
Y = RNG.normal(size=(7, 3))


# --- complex input is refused, never truncated to its real part ------------------------------


def test_is_psd_of_a_complex_matrix_is_a_type_error():
    with pytest.raises(TypeError, match="K must be a real array; got complex"):
        is_psd(np.array([[1, 2j], [2j, 1]]))


@pytest.mark.parametrize(
    "call",
    [
        lambda Z: check_array(Z),
        lambda Z: gaussian_kernel(Z),
        lambda Z: linear_kernel(X[:, :1], Z),
        lambda Z: psd_tolerance(Z @ Z.T),
        lambda Z: kta(Z @ Z.T, np.eye(len(Z))),
        lambda Z: KernelExpansion(linear_kernel, Z, np.ones(len(Z))),
    ],
)
@pytest.mark.filterwarnings("error::numpy.exceptions.ComplexWarning")
def test_complex_arrays_raise_type_error(call):
    Z = (X[:4, :1] + 1j).astype(complex)
    with pytest.raises(TypeError, match="complex"):
        call(Z)


def test_complex_objects_and_strings_are_refused_but_bools_accepted():
    with pytest.raises(TypeError, match="complex"):
        check_array(np.array([[1.0, 2j]], dtype=object))
    with pytest.raises(TypeError, match="dtype <U"):
        check_array(np.array([["1", "2"]]))  # numpy would convert these strings silently
    np.testing.assert_array_equal(check_array(np.array([[True, False]])), [[1.0, 0.0]])


def test_kernel_callables_returning_complex_values_are_refused():
    with pytest.raises(TypeError, match="complex"):
        gram_matrix(lambda A, B: (A @ B.T).astype(complex), X, Y)
    f = KernelExpansion(lambda A, B: (A @ B.T).astype(complex), [[1.0]], [1.0])
    with pytest.raises(TypeError, match="complex"):
        f.norm()


# --- extreme scales: a correct value or a clear error, never NaN ------------------------------


@pytest.mark.parametrize("scale", [1e200, 1e-200, 2.0**600, 1e-300])
def test_gaussian_is_scale_safe(scale):
    """k depends on (x - y) / sigma only: scaling both gives the same Gram matrix (sklearn oracle)."""
    expected = skp.rbf_kernel(X, Y, gamma=0.5)
    np.testing.assert_allclose(gaussian_kernel(X * scale, Y * scale, sigma=scale), expected, rtol=1e-12, atol=1e-15)
    G = gram_matrix(gaussian_kernel, X * scale, sigma=scale, block_size=5)
    np.testing.assert_allclose(G, skp.rbf_kernel(X, gamma=0.5), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(G, G.T)
    np.testing.assert_allclose(laplacian_kernel(X * scale, Y * scale, sigma=scale),
                               laplacian_kernel(X, Y, sigma=1.0), rtol=1e-12)
    np.testing.assert_allclose(laplacian_kernel(X * scale, Y * scale, sigma=scale, metric="manhattan"),
                               skp.laplacian_kernel(X, Y, gamma=1.0), rtol=1e-12)


def test_gaussian_of_overflowing_inputs_with_unit_width_is_exact_not_nan():
    """x ~ 1e200 with sigma = 1: distinct points are infinitely far apart (k = 0), k(x, x) = 1."""
    with np.errstate(all="raise"):
        K = gaussian_kernel(X * 1e200)
        G = gram_matrix(gaussian_kernel, X * 1e200)
    np.testing.assert_array_equal(K, np.eye(len(X)))
    np.testing.assert_array_equal(G, np.eye(len(X)))


@pytest.mark.parametrize("sigma", [1e-300, 5e-324, 1e300, 1.7e308])
def test_extreme_sigma_gives_the_limits(sigma):
    K = gaussian_kernel(X, sigma=sigma)
    L = laplacian_kernel(X, sigma=sigma)
    limit = np.eye(len(X)) if sigma < 1 else np.ones((len(X), len(X)))
    np.testing.assert_array_equal(K, limit)
    np.testing.assert_array_equal(L, limit)
    np.testing.assert_array_equal(gram_matrix(gaussian_kernel, X, sigma=sigma), limit)
    if np.isfinite(1.0 / sigma):
        np.testing.assert_array_equal(rbf_kernel(X, gamma=1.0 / sigma), limit)


def test_sigmoid_of_overflowing_inner_products_is_plus_minus_one():
    Z = np.array([[1e200, 2e200], [-1e200, 1e200], [1e200, -3e200], [0.0, 0.0]])
    G = (Z * 1e-200) @ (Z * 1e-200).T  # the signs of the inner products (those of the zero row are 0)
    expected = np.where(G > 0, 1.0, np.where(G < 0, -1.0, np.tanh(1.0)))
    np.testing.assert_array_equal(sigmoid_kernel(Z, gamma=1.0), expected)
    np.testing.assert_array_equal(gram_matrix(sigmoid_kernel, Z, gamma=1.0), expected)


@pytest.mark.parametrize("kernel", [linear_kernel, polynomial_kernel])
def test_overflowing_inner_products_raise(kernel):
    with pytest.raises(ValueError, match="overflow float64"):
        kernel(X * 1e200)
    with pytest.raises(ValueError, match="overflow float64"):
        gram_matrix(kernel, X * 1e200)
    with pytest.raises(ValueError, match="overflow float64"):
        polynomial_kernel(X, degree=400, coef0=10.0)


def test_is_psd_and_tolerance_are_scale_safe():
    K = gaussian_kernel(X)
    for c in (1e300, 1e-300):
        assert is_psd(K * c)
        assert psd_tolerance(K * c) == pytest.approx(psd_tolerance(K) * c, rel=1e-12)
    assert not is_psd(-K * 1e300)


# --- alignment: scale-invariant quantities computed at unit scale -----------------------------


def _psd_pair():
    K = gaussian_kernel(X)
    L = linear_kernel(RNG.normal(size=(len(X), 2)))
    return K, L


@pytest.mark.parametrize("c", [1e200, 1e-160, 1e300, 1e-300, 3.0])
def test_kta_cka_hsic_at_extreme_scales(c):
    K, L = _psd_pair()
    assert kta(c * K, K) == pytest.approx(1.0, abs=1e-14)
    assert kta(c * K, K) <= 1.0 and kta(K, c * K) <= 1.0
    assert kta(c * K, L) == pytest.approx(kta(K, L), rel=1e-13)
    assert cka(c * K, L / c) == pytest.approx(cka(K, L), rel=1e-12)
    assert -1.0 <= cka(c * K, c * K) <= 1.0
    assert hsic(c * K, L / c) == pytest.approx(hsic(K, L), rel=1e-12)
    assert hsic(c * K, L / c, unbiased=True) == pytest.approx(hsic(K, L, unbiased=True), rel=1e-10)


def test_kta_never_exceeds_one_for_tiny_matrices():
    """The reported case: kta(1e-160 K, K) was 1.0000003 (subnormal products)."""
    for seed in range(5):
        Z = np.random.default_rng(seed).normal(size=(20, 5))
        K = Z @ Z.T
        assert kta(1e-160 * K, K) <= 1.0
        assert kta(1e-160 * K, K) == pytest.approx(1.0, abs=1e-14)
        assert kta(1e200 * K, K) == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("cx,cy", [(1e200, 1.0), (1e-200, 1e200), (1e-300, 1e-300), (1e150, 1e-150)])
def test_linear_cka_at_extreme_scales(cx, cy):
    Z1, Z2 = RNG.normal(size=(30, 4)), RNG.normal(size=(30, 3))
    base = cka(Z1 @ Z1.T, Z2 @ Z2.T)
    value = linear_cka(cx * Z1, cy * Z2)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(base, rel=1e-10)
    assert linear_cka(cx * Z1, cx * Z1) == pytest.approx(1.0, abs=1e-14)


def test_hsic_that_overflows_is_a_clear_error():
    K, L = _psd_pair()
    with pytest.raises(ValueError, match="HSIC value overflows"):
        hsic(1e300 * K, 1e300 * L)


def test_alignment_weights_are_scale_safe():
    K, L = _psd_pair()
    y = np.where(X[:, 0] > 0, 1, -1)
    for f in (align_weights, alignf_weights):
        np.testing.assert_allclose(f([1e300 * K, 1e300 * L], y), f([K, L], y), rtol=1e-12)
    np.testing.assert_allclose(center_kernel(1e300 * K) / 1e300, center_kernel(K), rtol=1e-12, atol=1e-15)


# --- tolerances follow the dtype ---------------------------------------------------------------


def _float32_gram():
    A = np.random.default_rng(5).normal(size=(40, 64)).astype(np.float32)
    G = A @ A.T
    # a blockwise computation: the lower triangle from a different summation order
    G2 = G.copy()
    lower = np.tril_indices(40, -1)
    G2[lower] = (A[:, ::-1] @ A[:, ::-1].T)[lower]
    return G, G2


def test_float32_gram_with_rounding_level_asymmetry_is_accepted():
    G, G2 = _float32_gram()
    assert 0 < np.max(np.abs(G2 - G2.T)) <= 1e-5 * np.max(np.abs(G2))  # float32 rounding, not 1e-10
    check_symmetric(G2, "G")  # the dtype of G2 gives the tolerance
    check_symmetric(G2.astype(np.float64), "G", dtype=floating_dtype(G2))
    check_square_matrix(G2, "G", symmetric=True)
    L = linear_kernel(np.random.default_rng(6).normal(size=(40, 3)))
    G64 = G2.astype(np.float64)
    assert cka(G2, L) == pytest.approx(cka((G64 + G64.T) / 2, L), rel=1e-5)
    assert kta(G2, L) == pytest.approx(kta((G64 + G64.T) / 2, L), rel=1e-5)
    assert hsic(G2, L) == pytest.approx(hsic((G64 + G64.T) / 2, L), rel=1e-5)
    assert is_psd(G2)


def test_float64_tolerance_is_unchanged_and_real_asymmetry_still_fails():
    assert symmetry_rtol(np.float64) == 1e-10
    _, G2 = _float32_gram()
    G64 = G2.astype(np.float64)
    with pytest.raises(ValueError, match="symmetric"):
        check_symmetric(G64, "K")  # the same values claimed as float64 data are not symmetric enough
    bad = G2.copy()
    bad[0, 1] *= 1.01
    with pytest.raises(ValueError, match="K1 must be symmetric"):
        cka(bad, G2)
    with pytest.raises(ValueError, match="K must be symmetric"):
        hsic(bad, G2)
    assert not is_psd(bad)


# --- gram_matrix checks symmetry across all blocks ---------------------------------------------


def test_gram_matrix_detects_asymmetry_between_blocks():
    """Symmetric inside every diagonal block, asymmetric only between different blocks."""
    Z = np.sort(RNG.normal(size=(10, 2)), axis=0)

    def sneaky(A, B):
        if A is B:
            return A @ B.T
        return A @ B.T + (A[:, :1] > B[:, 0][None, :])  # 1 only where the row point comes later

    with pytest.raises(ValueError, match="not symmetric"):
        gram_matrix(sneaky, Z, block_size=4, n_jobs=1)
    # trusting the kernel (documented) computes the upper blocks only and mirrors them
    G = gram_matrix(sneaky, Z, block_size=4, check_symmetry=False)
    np.testing.assert_array_equal(G, G.T)


# --- memory of the Laplacian (Manhattan) kernel ------------------------------------------------


def test_laplacian_manhattan_has_no_three_dimensional_temporary():
    A = RNG.normal(size=(400, 200))
    B = RNG.normal(size=(200, 200))
    tracemalloc.start()
    try:
        K = laplacian_kernel(A, B, sigma=3.0, metric="manhattan")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * K.nbytes + (1 << 20), f"peak {peak} bytes for an output of {K.nbytes}"  # (n, m, d) is 128 MB
    np.testing.assert_allclose(K, skp.laplacian_kernel(A, B, gamma=1 / 3.0), rtol=1e-12)


# --- sizes refused up front, with the size and the limit ---------------------------------------


def test_polynomial_feature_sizes_are_refused_up_front():
    with pytest.raises(ValueError, match=r"10\^12.9 coordinates, more than the limit MAX_FEATURE_DIMENSION"):
        polynomial_feature_map(np.ones((2, 1000)), degree=5)
    with pytest.raises(ValueError, match="MAX_FEATURE_DIMENSION = 1048576"):
        polynomial_feature_powers(300, 6)
    with pytest.raises(ValueError, match=r"70000 x 5456 = 381920000 values, more than the limit"):
        polynomial_feature_map(np.zeros((70000, 30)), degree=3)
    with pytest.raises(ValueError, match="MAX_DIMENSION_DIGITS"):
        polynomial_feature_dimension(10**18, 10**18)
    assert polynomial_feature_dimension(300, 6) == 1_085_371_516_236 == math.comb(306, 6)  # nothing allocated


def test_subsequence_sizes_are_refused_up_front():
    with pytest.raises(ValueError, match=r"\|s\| \* \|t\| = 100000000 cells, more than the limit MAX_PAIR_CELLS"):
        subsequence_kernel("a" * 10_000, "b" * 10_000, 2, 0.5)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    docs = ["".join(RNG.choice(letters, size=3000)) for _ in range(200)]
    with pytest.raises(ValueError, match="more than the limit MAX_WORK"):
        subsequence_gram(docs, n=5, lam=0.5)
    with pytest.raises(ValueError, match="MAX_SYMBOLIC_WORK = 600"):
        subsequence_kernel("abcd" * 5, "dcba" * 5, 3, sp.Symbol("lam"))
    with pytest.raises(ValueError, match="MAX_EXACT_WORK"):
        subsequence_kernel("ab" * 200, "ba" * 200, 2, sp.Rational(1, 2))


# --- the subsequence kernel: domain, scale, normalisation --------------------------------------


@pytest.mark.parametrize("lam", [0, -1, sp.Rational(3, 2), sp.Integer(0), sp.Integer(-1), 0.0, 1.5, sp.Float(1.5)])
def test_one_lambda_domain_for_the_numeric_and_the_exact_path(lam):
    with pytest.raises(ValueError, match=r"lam \(decay\) must lie in \(0, 1\]"):
        subsequence_kernel("cat", "car", 2, lam)


def test_exact_numbers_in_the_domain_agree_with_the_numeric_path():
    for lam in (sp.Rational(1, 3), sp.Integer(1)):
        exact = subsequence_kernel("science", "silence", 3, lam)
        assert isinstance(exact, sp.Rational)
        assert float(exact) == pytest.approx(subsequence_kernel("science", "silence", 3, float(lam)), rel=1e-13)
    with pytest.raises(TypeError, match="lam"):
        subsequence_kernel("cat", "car", 2, sp.I / 2)


def test_normalized_gram_is_computed_in_a_safe_scale():
    """lam**(2n) = 1e-360 underflows; the normalized values do not (exact sympy oracle)."""
    lam, n = sp.Rational(1, 10**6), 30
    w = "abcab" * 6 + "abc"
    words = [w, w[:15] + "x" + w[15:], w[:-2] + "cb", "bacab" * 6 + "cab"]  # the last shares no 30-subsequence
    Kn = subsequence_gram(words, n=n, lam=float(lam))
    kx = [[subsequence_kernel(s, t, n, lam) for t in words] for s in words]
    oracle = np.array([[float(kx[i][j] / sp.sqrt(kx[i][i] * kx[j][j])) for j in range(4)] for i in range(4)])
    assert np.all(oracle[:3, :3] > 1e-20) and np.all(oracle[3, :3] == 0)
    np.testing.assert_allclose(Kn, oracle, rtol=1e-10)
    np.testing.assert_allclose(subsequence_gram(words, n=n, lam=float(lam), max_elements=10), oracle, rtol=1e-10)


def test_unnormalized_values_that_underflow_raise_instead_of_silent_zeros():
    words = ["abcab" * 6 + "abc", "bacab" * 6 + "cab"]
    with pytest.raises(ValueError, match="underflows float64"):
        subsequence_gram(words, n=30, lam=1e-6, normalize=False)
    with pytest.raises(ValueError, match="underflows float64"):
        subsequence_gram(words, n=30, lam=1e-6, normalize=False, max_elements=10)
    with pytest.raises(ValueError, match="underflows float64"):
        subsequence_kernel(words[0], words[0], 30, 1e-6)
    assert subsequence_kernel(words[0], words[1], 30, 1e-6) == 0.0  # no common subsequence of length 30
    # a true zero (no common subsequence of length n) is not an underflow
    assert subsequence_kernel("aaaa", "bbbb", 2, 1e-200) == 0.0
    np.testing.assert_array_equal(subsequence_gram(["aaaa"], ["bbbb", "cc"], n=2, lam=1e-200, normalize=False), 0.0)


def test_overflow_is_an_error():
    with pytest.raises(ValueError, match="overflow float64"):
        subsequence_kernel("a" * 520, "a" * 520, 260, 1.0)


def test_normalized_kernel_of_strings_shorter_than_n_is_the_documented_convention():
    words = ["a", "cat", "a", "xy", "car"]
    Kn = subsequence_gram(words, n=2, lam=0.5)
    np.testing.assert_allclose(np.diag(Kn), 1.0, rtol=1e-15)
    assert Kn[0, 2] == 1.0 and Kn[0, 1] == 0.0 and Kn[0, 3] == 0.0 and Kn[3, 4] == 0.0
    assert Kn[1, 4] == pytest.approx(4 / 9, rel=1e-12)  # 1 / (2 + lam^2) at lam = 1/2 (chapter 2)
    assert is_psd(Kn)
    cross = subsequence_gram(words[:2], words[2:], n=2, lam=0.5)
    np.testing.assert_allclose(cross, Kn[:2, 2:], rtol=1e-12)


def test_normalized_range_check_can_fail(monkeypatch):
    from ktheory.kernels import _string

    real = _string._feature_gram

    def broken(*args, **kwargs):
        K, ds, dt = real(*args, **kwargs)
        return 2.0 * K, ds, dt  # off-diagonal cosines above 1

    monkeypatch.setattr(_string, "_feature_gram", broken)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        subsequence_gram(["cat", "car", "cart"], n=2, lam=0.5)


# --- one source of defaults --------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(KERNEL_DEFAULTS))
def test_function_signatures_are_the_one_source_of_defaults(name):
    func = getattr(kk, name)
    sig = inspect.signature(func)
    defaults = {k: p.default for k, p in sig.parameters.items() if k not in ("X", "Y")}
    assert defaults == dict(KERNEL_DEFAULTS[name])


@pytest.mark.parametrize(
    "factory,func",
    [("poly", polynomial_kernel), ("sigmoid", sigmoid_kernel), ("laplacian", laplacian_kernel),
     ("gaussian", gaussian_kernel), ("rbf", rbf_kernel), ("linear", linear_kernel)],
)
def test_factory_fast_path_and_function_agree_on_defaults(factory, func):
    """The mutant 'fast path uses another default' fails here (issue 10, point 7)."""
    Z = RNG.normal(size=(9, 2))
    direct = func(Z)
    np.testing.assert_allclose(make_kernel(factory)(Z), direct, rtol=1e-13)
    np.testing.assert_allclose(gram_matrix(func, Z, block_size=4), direct, rtol=1e-13)
    np.testing.assert_allclose(gram_matrix(make_kernel(factory), Z, block_size=4), direct, rtol=1e-13)
    k = pickle.loads(pickle.dumps(make_kernel(factory)))
    np.testing.assert_allclose(k(Z), direct, rtol=1e-13)


def test_polynomial_defaults_are_the_books():
    Z = RNG.normal(size=(5, 2))
    np.testing.assert_allclose(gram_matrix(polynomial_kernel, Z), (Z @ Z.T + 1.0) ** 2, rtol=1e-13)
    np.testing.assert_allclose(gram_matrix(sigmoid_kernel, Z), np.tanh(Z @ Z.T / 2 + 1.0), rtol=1e-13)


def test_gaussian_gram_is_exactly_symmetric_with_unit_diagonal():
    Z = RNG.normal(size=(300, 7))
    for K in (gaussian_kernel(Z, sigma=0.7), gram_matrix(gaussian_kernel, Z, sigma=0.7, block_size=64),
              gaussian_kernel(Z * 1e250, sigma=0.7e250)):
        np.testing.assert_array_equal(K, K.T)
        assert np.all(np.diag(K) == 1.0)


# --- rkhs ---------------------------------------------------------------------------------------


def test_rkhs_norm_and_projection_are_scale_safe():
    k = partial(gaussian_kernel, sigma=1.0)
    f = KernelExpansion(k, [[0.0], [1.0]], [1.0, -1.0])
    big = f * 1e300
    assert big.norm() == pytest.approx(1e300 * f.norm(), rel=1e-12)
    with pytest.raises(ValueError, match="squared norm a\\^T K a overflows"):
        big.squared_norm()
    with pytest.raises(ValueError, match="inner product <f, g> overflows"):
        big.inner(big)
    assert (f * 1e-300).norm() == pytest.approx(1e-300 * f.norm(), rel=1e-12)
    P = project(np.array([1e300, -1e300]), [[0.0], [1.0]], kernel=k)
    np.testing.assert_allclose(P.coef / 1e300, project(np.array([1.0, -1.0]), [[0.0], [1.0]], kernel=k).coef,
                               rtol=1e-12)


def test_same_kernel_refuses_non_callables():
    with pytest.raises(TypeError, match="k1 must be a kernel callable"):
        same_kernel(1, 1)


# --- the finiteness check without a boolean n x n array --------------------------------------


def test_finiteness_is_judged_entrywise_where_the_sum_overflows():
    from ktheory._validation import check_array

    big = np.array([[1e308, 1e308], [1e308, 1e308]])   # finite entries, an infinite sum
    np.testing.assert_array_equal(check_array(big), big)
    for bad, count in ((np.array([[np.inf, -np.inf], [1.0, 2.0]]), 2),   # the sum is NaN
                       (np.array([[np.nan, 1.0], [1.0, 1.0]]), 1),
                       (np.array([[1e308, 1e308], [np.inf, 1.0]]), 1),
                       (np.array([[-np.inf, 1.0]], dtype=np.float32), 1)):
        with pytest.raises(ValueError, match=rf"X contains NaN or infinity \({count} non-finite"):
            check_array(bad)


def test_blocked_centering_is_h_k_h_for_any_square_matrix():
    from ktheory.alignment import center_kernel

    for n in (1, 63, 64, 130):       # around the block of rows
        K = RNG.normal(size=(n, n)) * 1e3 + 5.0          # not symmetric
        H = np.eye(n) - np.ones((n, n)) / n
        np.testing.assert_allclose(center_kernel(K), H @ K @ H, rtol=0, atol=1e-9 * 1e3)
