"""Translation invariance: ``k(x + t, y + t) = k(x, y)`` holds for the computed kernels.

The Gaussian/RBF and Laplacian kernels depend on ``x - y`` only. Their values, and
everything built on them (SVC, SVR, MulticlassSVC, Nystrom features and eigenpairs,
kernel ridge regression), must therefore not change when every point is moved by the same
vector ``t``, however far from the origin: ``ktheory.kernels`` computes the Gaussian's
squared distances from rows centred at one reference point (the mean of the rows) and the
Laplacian's from differences, and the compiled SVM solver computes its RBF rows from the
training rows centred the same way. Computed as ``||x||^2 + ||y||^2 - 2 <x, y>`` the
distances cancel catastrophically (an error of ``eps ||x||^2``: 0.07 in ``||x - y||^2`` at
``1e7`` from the origin), which broke all of these relations.

Data. Standard normal points ``X`` (150 x 3) and ``Y`` (40 x 3), seeded. A shift is tested
on ``X0 = (X + t) - t``, the points whose translates ``X0 + t`` are exactly representable
(both subtractions are exact by Sterbenz's lemma), so the two computations see the same
points and any difference is the kernel's own rounding, not that of the input.

Tolerances. The kernels: ``1e-12`` (values are at most 1; the centred computation is
accurate to a few ``1e-15`` here, the uncentred one was off by ``7e-10`` already at
``t = 1e3``). Estimators: see each test's docstring.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from ktheory.kernels import (
    gaussian_kernel,
    gram_entry_error,
    gram_matrix,
    is_psd,
    laplacian_kernel,
    linear_kernel,
    make_kernel,
    polynomial_kernel,
    rbf_kernel,
    reference_point,
)
from ktheory.mercer import NystromFeatures, nystrom_eigenpairs
from ktheory.ridge import KernelRidge
from ktheory.svm import SVC, SVR, MulticlassSVC

RNG = np.random.default_rng(20240611)
X = RNG.standard_normal((150, 3))
Y = RNG.standard_normal((40, 3))
Y_CLS = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
Y_REG = np.sin(2.0 * X[:, 0]) + X[:, 1] ** 2
Y_3 = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])

SHIFTS = [1e3, 1e5, 1e8]

#: every translation-invariant kernel function of ktheory.kernels (name -> k(A, B=None))
TRANSLATION_INVARIANT = {
    "gaussian": partial(gaussian_kernel, sigma=1.0),
    "gaussian-narrow": partial(gaussian_kernel, sigma=0.3),
    "rbf": partial(rbf_kernel, gamma=0.5),
    "rbf-default-gamma": rbf_kernel,
    "laplacian": partial(laplacian_kernel, sigma=1.5),
    "laplacian-manhattan": partial(laplacian_kernel, sigma=1.5, metric="manhattan"),
}


def exact_base(A: np.ndarray, t: float) -> np.ndarray:
    """``(A + t) - t``: points whose translate by ``t`` is exact in float64."""
    return (A + t) - t


def rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """``max |a - b| / max |a|``."""
    return float(np.max(np.abs(a - b)) / np.max(np.abs(a)))


def shifted_pair(t: float) -> tuple[np.ndarray, np.ndarray]:
    return exact_base(X, t), exact_base(Y, t)


# ---------------------------------------------------------------------------
# the kernel functions
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("t", SHIFTS)
@pytest.mark.parametrize("name", sorted(TRANSLATION_INVARIANT))
def test_kernel_values_are_translation_invariant(name, t):
    """``k(X + t, Y + t) = k(X, Y)`` and ``k(X + t) = k(X)`` to 1e-12 (values <= 1),
    for every translation-invariant kernel function, for the symmetric Gram matrix of
    ``gram_matrix`` (its in-place fast path for the Gaussian/RBF) as well."""
    k = TRANSLATION_INVARIANT[name]
    X0, Y0 = shifted_pair(t)
    assert np.max(np.abs(k(X0 + t, Y0 + t) - k(X0, Y0))) <= 1e-12
    assert np.max(np.abs(k(X0 + t) - k(X0))) <= 1e-12
    assert np.max(np.abs(gram_matrix(k, X0 + t) - gram_matrix(k, X0))) <= 1e-12
    assert np.max(np.abs(gram_matrix(k, X0 + t, Y0 + t) - k(X0, Y0))) <= 1e-12


@pytest.mark.parametrize("t", [0.0, *SHIFTS, 1e150, 1e300])
@pytest.mark.parametrize("name", sorted(TRANSLATION_INVARIANT))
def test_diagonal_is_exactly_one(name, t):
    """``k(x, x) = 1`` exactly on the diagonal of ``k(X)`` (and of ``gram_matrix``), at
    any distance from the origin: ``||x - x|| = 0`` is not a computed quantity."""
    k = TRANSLATION_INVARIANT[name]
    Xt = exact_base(X, t) + t if t < 1e100 else X * t
    assert np.all(np.diagonal(k(Xt)) == 1.0)
    assert np.all(np.diagonal(gram_matrix(k, Xt)) == 1.0)


@pytest.mark.parametrize("scale", [1.0, 1e100, 1e160, 1e300])
@pytest.mark.parametrize("name", sorted(TRANSLATION_INVARIANT))
def test_coincident_points_of_two_arrays_have_value_one(name, scale):
    """``k(x, y) = 1`` whenever ``y`` is ``x``, also between two different arrays (not
    only on the diagonal of ``k(X)``) and where the points are far apart against the
    kernel's width: the expansion's rounding residue, multiplied by a huge ``1 / sigma^2``
    of the rescaled data, used to give ``exp(-inf) = 0`` there (issue 29)."""
    k = TRANSLATION_INVARIANT[name]
    Xs = X[:30] * scale
    K = k(Xs, Xs[[4, 0, 17]].copy())
    if scale == 1.0:  # the usual regime: 1 to the kernel's rounding (its entry error)
        np.testing.assert_allclose(K[[4, 0, 17], [0, 1, 2]], 1.0, rtol=0, atol=1e-13)
    else:             # the distances are recomputed from differences: exactly 1
        np.testing.assert_array_equal(K[[4, 0, 17], [0, 1, 2]], 1.0)
    assert np.all((K >= 0) & (K <= 1))


@pytest.mark.parametrize("name", ["gaussian", "rbf", "laplacian"])
def test_gram_matrix_far_from_the_origin_is_psd(name):
    """The Gram matrix of a positive definite kernel is PSD (``is_psd``) on data
    ``1e7`` from the origin, as it is at the origin."""
    k = TRANSLATION_INVARIANT[name]
    X0 = exact_base(X, 1e7)
    assert is_psd(k(X0)) and is_psd(k(X0 + 1e7))


# ---------------------------------------------------------------------------
# SVC and SVR, both solvers
# ---------------------------------------------------------------------------
SOLVERS = ["numpy", pytest.param("compiled", marks=pytest.mark.needs_numba)]
EST_SHIFTS = [1e3, 1e5, 1e7, 1e8]


@pytest.mark.parametrize("t", EST_SHIFTS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_svc_rbf_decision_is_translation_invariant(solver, t):
    """SVC(kernel="rbf") trained on ``X + t`` gives at ``Y + t`` the decision values
    that the model trained on ``X`` gives at ``Y``, to 1e-6 relative (``tol=1e-10``:
    the dual is solved far beyond that; the kernels differ by ~1e-15), for the numpy
    and the compiled solver. ``gamma="scale"``: ``X.var()`` is translation invariant."""
    X0, Y0 = shifted_pair(t)
    a = SVC(kernel="rbf", tol=1e-10, solver=solver).fit(X0, Y_CLS)
    b = SVC(kernel="rbf", tol=1e-10, solver=solver).fit(X0 + t, Y_CLS)
    assert rel_diff(a.decision_function(Y0), b.decision_function(Y0 + t)) <= 1e-6
    np.testing.assert_array_equal(b.support_vectors_, (X0 + t)[b.support_])  # the user's rows


@pytest.mark.parametrize("t", EST_SHIFTS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_svr_rbf_prediction_is_translation_invariant(solver, t):
    """SVR(kernel="rbf") trained on ``X + t`` predicts at ``Y + t`` what the model
    trained on ``X`` predicts at ``Y``, to 1e-6 relative (``tol=1e-10``), both solvers."""
    X0, Y0 = shifted_pair(t)
    a = SVR(kernel="rbf", tol=1e-10, solver=solver).fit(X0, Y_REG)
    b = SVR(kernel="rbf", tol=1e-10, solver=solver).fit(X0 + t, Y_REG)
    assert rel_diff(a.predict(Y0), b.predict(Y0 + t)) <= 1e-6


# ---------------------------------------------------------------------------
# estimators with a positive-semidefiniteness check
# ---------------------------------------------------------------------------
T_FAR = 1e7


def test_multiclass_svc_accepts_shifted_data():
    """MulticlassSVC(kernel="rbf") fits data ``1e7`` from the origin (no "not positive
    semidefinite" refusal) and gives the unshifted decision values to 1e-6 relative: the
    interior-point solution (``tol=1e-8``) is a smooth function of the Gram matrix, which
    differs from the unshifted one by ~1e-15 per entry (observed: ~1e-14)."""
    X0, Y0 = shifted_pair(T_FAR)
    X0, labels = X0[:90], Y_3[:90]     # the first 90 points: the interior-point QP is O(n^3)
    a = MulticlassSVC(kernel="rbf").fit(X0, labels)
    b = MulticlassSVC(kernel="rbf").fit(X0 + T_FAR, labels)
    assert rel_diff(a.decision_function(Y0), b.decision_function(Y0 + T_FAR)) <= 1e-6


def test_nystrom_features_accept_shifted_data():
    """NystromFeatures (Gaussian, 30 landmarks) fit on data ``1e7`` from the origin and
    give the same approximation ``Z Z^T = K_nm K_mm^+ K_mn`` at the shifted test points
    (``Z`` itself is defined up to a rotation) to 1e-8 relative: a perturbation ``E`` of
    the landmark matrix moves it by about ``||E|| / w_min`` with ``||E|| <= m * 1e-14``
    and smallest kept eigenvalue ``w_min ~ 1e-3`` here, i.e. ``~3e-10``."""
    X0, Y0 = shifted_pair(T_FAR)
    a = NystromFeatures(n_components=30, random_state=0).fit(X0)
    b = NystromFeatures(n_components=30, random_state=0).fit(X0 + T_FAR)
    assert a.eigenvalues_.size == b.eigenvalues_.size
    Za, Zb = a.transform(Y0), b.transform(Y0 + T_FAR)
    assert rel_diff(Za @ Za.T, Zb @ Zb.T) <= 1e-8
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-8)


def test_kernel_ridge_accepts_shifted_data():
    """KernelRidge(kernel="rbf", alpha=0.1) fits data ``1e7`` from the origin and
    predicts what the unshifted model predicts, to 1e-9 relative: the dual coefficients
    solve ``(K + alpha I) a = y``, so a perturbation ``E`` of ``K`` moves them by at most
    ``||E||_2 / alpha <= n max|E_ij| / alpha ~ 150 * 1e-15 / 0.1 ~ 1e-12`` relative."""
    X0, Y0 = shifted_pair(T_FAR)
    a = KernelRidge(kernel="rbf", alpha=0.1).fit(X0, Y_REG)
    b = KernelRidge(kernel="rbf", alpha=0.1).fit(X0 + T_FAR, Y_REG)
    assert rel_diff(a.predict(Y0), b.predict(Y0 + T_FAR)) <= 1e-9


def test_nystrom_eigenpairs_accept_shifted_data():
    """``nystrom_eigenpairs`` (Gaussian, sigma=1) on a sample ``1e7`` from the origin:
    no refusal, the eigenvalues of ``K / n`` to 1e-12 relative (Weyl: they move by at
    most ``||E||_2 / n <= max|E_ij| ~ 1e-15``), the eigenfunctions at the shifted test
    points to 1e-9 up to sign (an eigenvector moves by about ``||E|| / gap``, gaps
    ``~1e-2`` here); the 200-point 2-D sample ``100`` from the origin too."""
    X0, Y0 = shifted_pair(T_FAR)
    a = nystrom_eigenpairs(X0, 5)
    b = nystrom_eigenpairs(X0 + T_FAR, 5)
    np.testing.assert_allclose(b.eigenvalues, a.eigenvalues, rtol=1e-12)
    assert rel_diff(np.abs(a.eigenfunctions(Y0)), np.abs(b.eigenfunctions(Y0 + T_FAR))) <= 1e-9
    Z = np.random.default_rng(7).standard_normal((200, 2))
    Z0 = exact_base(Z, 100.0)
    np.testing.assert_allclose(nystrom_eigenpairs(Z0 + 100.0, 3).eigenvalues,
                               nystrom_eigenpairs(Z0, 3).eigenvalues, rtol=1e-12)


# ---------------------------------------------------------------------------
# the compiled solver follows the numpy specification
# ---------------------------------------------------------------------------
@pytest.mark.needs_numba
@pytest.mark.parametrize("t", [0.0, 1e3, 1e8])
def test_compiled_rbf_rows_follow_the_numpy_specification(t):
    """The rows the compiled solver computes for an RBF SVC (from the training rows as
    the estimator hands them over, centred at their reference point) equal
    ``rbf_kernel`` of the same data to 1e-13, each row's own entry exactly 1 and
    ``kernel_diag`` exactly 1; the rows of shifted data equal the unshifted ones to 1e-12."""
    from ktheory.svm import _fast

    gamma = 0.7
    X0 = exact_base(X, t)
    n = X0.shape[0]
    cols = np.arange(n)

    def rows(A: np.ndarray) -> np.ndarray:
        est = SVC(kernel="rbf", gamma=gamma, solver="compiled").fit(A, Y_CLS)
        Ak = est._solver_rows(A)
        X2, sq, kp, K2 = _fast._kernel_arrays(2, Ak, (gamma, 0.0, 3.0), 1.0, None)
        R = np.empty((n, n))
        for a in range(n):
            assert _fast._fill(2, X2, sq, kp, K2, a, a, cols, 0, n, R[a])
        assert np.all(_fast.kernel_diag(2, Ak, (gamma, 0.0, 3.0)) == 1.0)
        return R

    R = rows(X0 + t)
    assert np.all(np.diagonal(R) == 1.0)
    assert np.max(np.abs(R - rbf_kernel(X0 + t, gamma=gamma))) <= 1e-13
    assert np.max(np.abs(R - rows(X0))) <= 1e-12


@pytest.mark.needs_numba
def test_compiled_named_rbf_agrees_with_the_numpy_kernel_callable():
    """On data ``1e7`` from the origin, SVC(solver="compiled") with ``kernel="rbf"``
    (rows computed by the compiled code) and with ``kernel=rbf_kernel`` of
    ``ktheory.kernels`` as a callable (the Gram matrix computed by numpy, read by the
    same solver) give the same decision values to 1e-6 relative (``tol=1e-10``)."""
    X0, Y0 = shifted_pair(T_FAR)
    named = SVC(kernel="rbf", gamma=0.5, tol=1e-10, solver="compiled").fit(X0 + T_FAR, Y_CLS)
    call = SVC(kernel=partial(rbf_kernel, gamma=0.5), tol=1e-10, solver="compiled")
    call.fit(X0 + T_FAR, Y_CLS)
    assert rel_diff(named.decision_function(Y0 + T_FAR),
                    call.decision_function(Y0 + T_FAR)) <= 1e-6


@pytest.mark.needs_numba
@pytest.mark.parametrize("scale", [1e150, 1e152, 1e154, 1e200, 1e300])
def test_compiled_rbf_diagonal_is_exactly_one_at_any_magnitude(scale):
    """``kernel_diag`` of the compiled solver is ``k(x, x) = 1`` exactly for points of
    any magnitude (it was 0 where ``||x||^2 + ||x||^2 - 2 <x, x>`` rounded to a huge
    number, NaN where ``||x||^2`` overflowed)."""
    from ktheory.svm import _fast

    Z = np.random.default_rng(3).standard_normal((20, 5)) * scale
    assert np.all(_fast.kernel_diag(2, Z, (1.0, 0.0, 3.0)) == 1.0)


@pytest.mark.needs_numba
@pytest.mark.parametrize("scale", [1e150, 1e152, 1e154])
def test_compiled_rbf_svc_fits_the_identity_gram_of_far_apart_points(scale):
    """Points ``~1e150`` apart with ``gamma=1``: every pair of distinct points has
    ``k = exp(-huge) = 0`` and ``k(x, x) = 1``, so the Gram matrix is the identity. The
    compiled solver fits that matrix: its decision values at the training points equal
    those of the numpy solver, which reads the Gram matrix of ``rbf_kernel``, to 1e-9
    relative (``tol=1e-10``). (With the diagonal computed as ``exp(-gamma (||x||^2 +
    ||x||^2 - 2 <x, x>))``, two of these 20 points got ``K(x, x) = 0`` at ``1e150``.)"""
    Z = np.random.default_rng(4).standard_normal((20, 5)) * scale
    labels = np.where(Z[:, 0] > 0, 1, -1)
    a = SVC(kernel="rbf", gamma=1.0, tol=1e-10, solver="compiled").fit(Z, labels)
    b = SVC(kernel="rbf", gamma=1.0, tol=1e-10, solver="numpy").fit(Z, labels)
    np.testing.assert_array_equal(rbf_kernel(Z, gamma=1.0), np.eye(20))
    assert rel_diff(b.decision_function(Z), a.decision_function(Z)) <= 1e-9


# ---------------------------------------------------------------------------
# the positive-semidefiniteness tolerance allows for the kernel's own rounding
# ---------------------------------------------------------------------------
def _two_clusters(half_gap: float) -> np.ndarray:
    """Two tight clusters (spread 1e-2) ``2 * half_gap`` apart: a Gaussian Gram matrix
    (sigma = 1) that is nearly two blocks of ones, whose centred distances still carry
    the rounding ``eps * half_gap**2`` of the expansion."""
    A = np.random.default_rng(5).standard_normal((60, 3)) * 1e-2
    return np.vstack([A + half_gap, A[::-1] * 0.7 - half_gap])


@pytest.mark.parametrize("half_gap", [3e4, 3e6])
def test_positive_definite_kernels_are_never_refused(half_gap):
    """A positive definite kernel's Gram matrix is accepted however widely the points
    are spread relative to sigma: its computed eigenvalues may be negative by up to
    ``n`` times the kernel's entry error (Weyl), here far below ``-n eps max|w|``, and
    the tolerance of every check (``n (eps max|w| + gram_entry_error)``) allows for
    that. nystrom_eigenpairs, NystromFeatures, KernelRidge (``alpha=1e-3``: Cholesky of
    ``K + alpha I`` fails, the eigenvalue check decides) and MulticlassSVC fit."""
    Z = _two_clusters(half_gap)
    labels = np.arange(Z.shape[0]) % 3
    nystrom_eigenpairs(Z, 2)
    NystromFeatures(n_components=20, random_state=0).fit(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # LeastSquaresWarning: K + alpha I singular
        KernelRidge(kernel="rbf", gamma=0.5, alpha=1e-3).fit(Z, Z[:, 0])
    MulticlassSVC(kernel="rbf", gamma=0.5).fit(Z, labels)


@pytest.mark.parametrize("half_gap", [0.0, 3e4, 3e6])
def test_gram_entry_error_bounds_the_gaussian_rounding(half_gap):
    """``gram_entry_error`` bounds ``|K_computed - K_exact|`` for the Gaussian kernel,
    ``K_exact`` from differences (``cdist``, relative error ``(d + 2) eps / 2`` in the
    squared distance, so ``~(d + 4) eps`` in ``K``), for compact and widely spread data
    and data ``1e7`` from the origin."""
    eps = np.finfo(float).eps
    for Z in (_two_clusters(half_gap) if half_gap else X, exact_base(X, 1e7) + 1e7):
        for sigma in (0.3, 1.0):
            K = gaussian_kernel(Z, sigma=sigma)
            K_ref = np.exp(-cdist(Z, Z, "sqeuclidean") / (2.0 * sigma**2))
            bound = gram_entry_error(make_kernel("gaussian", sigma=sigma), Z)
            assert np.max(np.abs(K - K_ref)) <= bound + 8 * eps


def test_gram_entry_error_bounds_the_other_kernels():
    """``gram_entry_error`` bounds the rounding of the linear, polynomial and Laplacian
    Gram matrices against references accurate to a few eps: exactly rounded sums
    (``math.fsum``) of the products, and distances from differences."""
    import math

    eps = np.finfo(float).eps
    Z = exact_base(X[:30], 1e3) + 1e3          # large norms: the inner products' rounding
    G = np.array([[math.fsum(a * b) for b in Z] for a in Z])
    assert np.max(np.abs(linear_kernel(Z) - G)) <= gram_entry_error(linear_kernel, Z)
    kp = make_kernel("poly", degree=3, gamma=1e-6, coef0=1.0)
    P = (1e-6 * G + 1.0) ** 3
    assert np.max(np.abs(polynomial_kernel(Z, degree=3, gamma=1e-6) - P)) <= gram_entry_error(kp, Z)
    L = np.exp(-cdist(Z, Z) / 1.5)
    bound = gram_entry_error(make_kernel("laplacian", sigma=1.5), Z)
    assert np.max(np.abs(laplacian_kernel(Z, sigma=1.5) - L)) <= bound + 8 * eps


def test_reference_point_is_the_mean_and_safe():
    """The specification's reference point is the mean of the rows (of ``X`` and ``Y``
    together), computed without overflow for values near the float64 limit."""
    np.testing.assert_allclose(reference_point(X), X.mean(axis=0), rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(reference_point(X, Y), np.vstack([X, Y]).mean(axis=0),
                               rtol=1e-14, atol=1e-16)
    big = np.array([[1.5e308, -1.5e308], [1.7e308, 1e308]])
    r = reference_point(big)
    assert np.all(np.isfinite(r))
    np.testing.assert_allclose(r, [1.6e308, -0.25e308], rtol=1e-15)


# ---------------------------------------------------------------------------
# the piecewise linear classifier: centred by default
# ---------------------------------------------------------------------------
def _grid_blobs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """64 training points and 32 test points on the grid of multiples of 1/8 (XOR blobs):
    with an integer shift every sum of the training mean is exact (64 * (1e8 + x) < 2^50
    eighths) and the division by 64 too, so the centred data are exactly the same."""
    r = np.random.default_rng(3)
    centres = np.array([[-2.0, -2.0], [2.0, 2.0], [-2.0, 2.0], [2.0, -2.0]])
    lab = np.repeat([0, 0, 1, 1], 16)
    Xg = np.round(8 * (centres[np.arange(64) // 16] + r.normal(0, 0.8, (64, 2)))) / 8
    Tg = np.round(8 * r.uniform(-4, 4, (32, 2))) / 8
    return Xg, lab, Tg


@pytest.mark.parametrize("t", [[1e3, -7.0], [1e5, 3e4], [1e8, -2e7]])
def test_piecewise_linear_centred_rule_is_translation_equivariant(t):
    """PiecewiseLinearClassifier (``center=True``, the default) trained on ``X + t``
    makes at ``T + t`` the corrections, weights and predictions the model trained on
    ``X`` makes at ``T``: the rule runs on ``x - center_``. On the grid data of
    :func:`_grid_blobs` the centred numbers are identical, so equality is exact (the
    rule is discrete: a comparison that rounding flips could change the whole path)."""
    Xg, lab, Tg = _grid_blobs()
    t = np.asarray(t)
    from ktheory.classic import PiecewiseLinearClassifier

    kw = dict(n_subclasses=2, init="random", random_state=1, max_passes=30)
    a = PiecewiseLinearClassifier(**kw).fit(Xg, lab)
    b = PiecewiseLinearClassifier(**kw).fit(Xg + t, lab)
    assert a.n_errors_ == b.n_errors_
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.predict(Tg), b.predict(Tg + t))


def test_piecewise_linear_raw_rule_is_not_translation_equivariant():
    """The documented exception: the textbook rule on ``(x, 1)`` (``center=False``)
    depends on the origin. Shifted by ``1e4`` it corrects almost only the weights, and its
    predictions at the shifted test points change (here on most of them)."""
    Xg, lab, Tg = _grid_blobs()
    from ktheory.classic import PiecewiseLinearClassifier

    kw = dict(n_subclasses=2, init="random", random_state=1, max_passes=30, center=False)
    a = PiecewiseLinearClassifier(**kw).fit(Xg, lab)
    b = PiecewiseLinearClassifier(**kw).fit(Xg + 1e4, lab)
    assert np.mean(a.predict(Tg) != b.predict(Tg + 1e4)) > 0.2
