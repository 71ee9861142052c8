"""Tests of the decomposition solver of the Lee–Lin–Wahba SVM (``ktheory.svm._llw_decomp``).

Oracles:

* the dense interior-point method that ``MulticlassSVC`` used before (``_llw_qp.box_qp`` +
  ``polish`` on the full ``n (k-1)`` QP, set up here exactly as the old ``fit`` did): the
  optimal value, ``h`` at the training points and the predictions where they are clear;
* k = 2: ``ktheory.svm.SVC`` with the same ``C``;
* the intercepts: scipy's ``linprog`` (HiGHS) on the intercept LP;
* certificates recomputed from scratch with an independent Gram matrix
  (``sklearn.metrics.pairwise``): box, equal column sums, primal = dual;
* the kernel-row cache: an instrumented row callable (rows per call, rows held).

No assertion on iteration counts, timings or bit equality.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog
from sklearn.datasets import load_iris
from sklearn.metrics.pairwise import linear_kernel as sk_linear
from sklearn.metrics.pairwise import polynomial_kernel as sk_poly
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from ktheory.svm import SVC, ConvergenceWarning, MulticlassSVC
from ktheory.svm import _llw
from ktheory.svm._llw_decomp import KernelRowCache, llw_decomposition
from ktheory.svm._llw_qp import b_from_multipliers, box_qp, equality_rows, intercepts, polish


# ---------------------------------------------------------------------------
# oracles
# ---------------------------------------------------------------------------


def _codes(y: np.ndarray, k: int) -> np.ndarray:
    Y = np.full((y.size, k), -1.0 / (k - 1))
    Y[np.arange(y.size), y] = 1.0
    return Y


def ipm_reference(K: np.ndarray, y: np.ndarray, L: np.ndarray, C: float,
                  tol: float = 1e-10) -> tuple[float, np.ndarray, np.ndarray]:
    """The previous solver of ``MulticlassSVC.fit``: the dense dual QP by the interior-point
    method in ``a = alpha / s``, polished; returns (objective, dual_coef, intercept)."""
    n, k = K.shape[0], L.shape[0]
    W = L[y]
    ii, jj = np.nonzero(W > 0)
    kd = float(np.max(np.abs(np.diagonal(K))))
    s = min(C, 100.0 / kd) if kd > 0 else C
    Q = K[np.ix_(ii, ii)] * np.where(jj[:, None] == jj[None, :], 2 * s * (1 - 1 / k), -2 * s / k)
    c = np.full(ii.size, -1.0 / (k - 1))
    u = (C / s) * W[ii, jj]
    A = equality_rows(jj, k)
    sol = box_qp(Q, c, A, u, tol, 500)
    assert sol["converged"] and not sol["broke"]
    a, y_eq, _ = polish(Q, c, A, u, sol, tol)
    alpha = np.zeros((n, k))
    alpha[ii, jj] = np.minimum(s * a, C * W[ii, jj])
    coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
    H = K @ coef
    b, _ = intercepts(H, y, L, b_from_multipliers(A.T @ y_eq, jj, k))
    obj = alpha.sum() / (k - 1) - 0.25 * np.sum(coef * H)
    return float(obj), coef, b


def certify(clf: MulticlassSVC, K: np.ndarray, y: np.ndarray, L: np.ndarray, rel: float) -> None:
    """Box, equal column sums, and primal = dual recomputed from an independent Gram."""
    C = float(clf.C)
    a = clf.alpha_
    U = C * L[y]
    assert np.all(a >= 0) and np.all(a <= U)
    s = a.sum(axis=0)
    assert np.ptp(s) <= 1e-10 * max(float(s.max()), 1e-300)
    # in extended precision where numpy has it: at C = 1e9 on data that are not separable
    # the float64 rounding of K coef, times C, is 1e-5 of the objective
    LD = np.longdouble
    coef = clf.dual_coef_.astype(LD)
    H = K.astype(LD) @ coef
    H -= H.mean(axis=1, keepdims=True)        # sum_j h_j = 0 in the model
    F = H + clf.intercept_
    pen = np.sum(coef * H)
    primal = float(C * np.sum(L[y] * np.maximum(F - _codes(y, L.shape[0]), 0.0)) + 0.25 * pen)
    dual = float(a.astype(LD).sum() / (L.shape[0] - 1) - 0.25 * pen)
    assert primal >= dual - rel * abs(primal)
    assert primal == pytest.approx(dual, rel=rel)
    assert clf.objective_ == pytest.approx(dual, rel=rel)


def _data(n: int, k: int, d: int, seed: int, dup: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.normal(size=(n, d)) + 1.2 * np.eye(k, d)[y]
    if dup:                                     # duplicated points, some with other labels
        X[n // 2:] = X[: n - n // 2]
    return X, y


KERNELS = {
    "linear": (dict(kernel="linear"), sk_linear),
    "rbf": (dict(kernel="rbf", gamma=0.4), lambda A, B: sk_rbf(A, B, gamma=0.4)),
    "poly": (dict(kernel="poly", degree=2, gamma=0.3, coef0=1.0),
             lambda A, B: sk_poly(A, B, degree=2, gamma=0.3, coef0=1.0)),
}


# ---------------------------------------------------------------------------
# agreement with the interior-point method
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "precomputed"])
@pytest.mark.parametrize("C", [1e-2, 1.0, 100.0])
def test_matches_interior_point(k, kernel, C):
    X, y = _data(12 * k, k, 3, seed=k * 7 + int(np.log10(C)) + 3)
    kw, kf = KERNELS["rbf" if kernel == "precomputed" else kernel]
    K = kf(X, X)
    L = np.ones((k, k)) - np.eye(k)
    if kernel == "precomputed":
        clf = MulticlassSVC(C=C, kernel="precomputed", tol=1e-10).fit(K, y)
    else:
        clf = MulticlassSVC(C=C, tol=1e-10, **kw).fit(X, y)
    obj, coef, b = ipm_reference(K, y, L, C)
    assert clf.objective_ == pytest.approx(obj, rel=1e-6)
    assert clf.duality_gap_ <= 1e-8
    # h is unique: compare it at the training points
    H = K @ clf.dual_coef_
    np.testing.assert_allclose(H, K @ coef, atol=1e-5 * (1 + np.abs(H).max()))
    F_ref = K @ coef + b
    F = clf.decision_function(K if kernel == "precomputed" else X)
    clear = np.sort(F_ref, axis=1)[:, -1] - np.sort(F_ref, axis=1)[:, -2] > 1e-4
    assert np.array_equal(np.argmax(F, axis=1)[clear], np.argmax(F_ref, axis=1)[clear])
    certify(clf, K, y, L, rel=1e-8)


@pytest.mark.parametrize("C", [1e-2, 3.0, 1e4])
def test_costs_and_duplicates_match_interior_point(C):
    X, y = _data(30, 3, 2, seed=11, dup=True)
    L = np.array([[0.0, 1.0, 3.0], [0.5, 0.0, 1.0], [2.0, 0.0, 0.0]])
    K = sk_rbf(X, X, gamma=0.7)
    clf = MulticlassSVC(C=C, gamma=0.7, costs=L, tol=1e-10).fit(X, y)
    obj, coef, _ = ipm_reference(K, y, L, C)
    assert clf.objective_ == pytest.approx(obj, rel=1e-6)
    H = K @ coef
    np.testing.assert_allclose(K @ clf.dual_coef_, H, atol=1e-5 * (1 + np.abs(H).max()))
    assert np.all(clf.alpha_[L[y] == 0] == 0)
    certify(clf, K, y, L, rel=1e-8)


@pytest.mark.parametrize("C", [1e-2, 1.0, 100.0])
def test_two_classes_equal_binary_svc(C):
    X, y = _data(60, 2, 2, seed=5)
    llw = MulticlassSVC(C=C, kernel="rbf", gamma=0.5, tol=1e-10).fit(X, y)
    svc = SVC(C=C, kernel="rbf", gamma=0.5, tol=1e-10).fit(X, y)
    assert llw.objective_ == pytest.approx(-svc.objective_, rel=1e-8)
    Xt = np.random.default_rng(1).normal(0, 2, (30, 2))
    F = llw.decision_function(Xt)
    h_llw = F[:, 1] - llw.intercept_[1]
    np.testing.assert_allclose(h_llw, svc.decision_function(Xt) - svc.intercept_[0], atol=1e-6)
    a = svc.alpha_
    if np.any((a > 1e-8 * C) & (a < (1 - 1e-8) * C)):     # b unique: whole decisions agree
        np.testing.assert_allclose(F[:, 1], svc.decision_function(Xt), atol=1e-6)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(2, 5), st.sampled_from([1e-2, 0.3, 1.0, 10.0, 1e3]),
       st.booleans())
def test_hypothesis_matches_interior_point(seed, k, C, costs):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k + 2, 30))
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    if n > 8:
        X[-3:] = X[:3]                          # duplicates
    L = np.ones((k, k)) - np.eye(k)
    if costs:
        L = rng.uniform(0.2, 3.0, (k, k)) * (rng.uniform(size=(k, k)) > 0.25)
        np.fill_diagonal(L, 0.0)
        if not np.all((L[y] > 0).any(axis=0)):
            L[:, :] = np.where(np.eye(k) > 0, 0.0, 1.0)
    K = sk_rbf(X, X, gamma=1.0)
    clf = MulticlassSVC(C=C, kernel="precomputed", costs=L, tol=1e-10).fit(K, y)
    obj, coef, _ = ipm_reference(K, y, L, C)
    assert clf.objective_ == pytest.approx(obj, rel=1e-6, abs=1e-12)
    certify(clf, K, y, L, rel=1e-7)


# ---------------------------------------------------------------------------
# large C (the interior-point method broke down there)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("standardise", [False, True])
@pytest.mark.parametrize("C", [1e6, 1e9])
def test_iris_linear_large_C_is_certified(standardise, C):
    X, y = load_iris(return_X_y=True)
    if standardise:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = MulticlassSVC(kernel="linear", C=C).fit(X, y)
    assert clf.duality_gap_ <= max(100 * clf.tol, 1e-6)
    assert clf.duality_gap_ >= -1e-9
    certify(clf, sk_linear(X, X), y, np.ones((3, 3)) - np.eye(3), rel=1e-6)


def test_huge_C_rbf_gives_the_hard_margin_solution():
    X, y = _data(30, 3, 2, seed=2)
    X[:, 0] += 4.0 * y                           # separable by the RBF kernel
    K = sk_rbf(X, X, gamma=0.5)
    ref = MulticlassSVC(C=1e4, gamma=0.5, tol=1e-10).fit(X, y)
    assert ref.alpha_.max() < 0.5e4              # no bound active: the hard margin
    certify(ref, K, y, np.ones((3, 3)) - np.eye(3), rel=1e-8)
    for C in (1e9, 1e200):
        # (the primal value at huge C is C times the rounding of the margins, so the
        # relative gap certifies nothing there and may warn; the dual side is checked)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = MulticlassSVC(C=C, gamma=0.5, tol=1e-10).fit(X, y)
        assert clf.objective_ == pytest.approx(ref.objective_, rel=1e-7)
        np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-6)
        np.testing.assert_allclose(clf.alpha_, ref.alpha_, atol=1e-6 * ref.alpha_.max())


def test_scale_invariance_with_tiny_and_huge_kernels():
    """K -> s K with C -> C / s: the same h (scale-free tolerances)."""
    X, y = _data(40, 3, 2, seed=4)
    K = sk_rbf(X, X, gamma=0.5)
    a = MulticlassSVC(C=2.0, kernel="precomputed", tol=1e-9).fit(K, y)
    for s in (1e-150, 1e150):
        b = MulticlassSVC(C=2.0 / s, kernel="precomputed", tol=1e-9).fit(s * K, y)
        assert b.objective_ == pytest.approx(a.objective_ / s, rel=1e-7)
        np.testing.assert_allclose(s * (K @ b.dual_coef_), K @ a.dual_coef_, atol=1e-6)


# ---------------------------------------------------------------------------
# the intercepts
# ---------------------------------------------------------------------------


def _lp_loss(H, y, L):
    n, k = H.shape
    W = L[y]
    ii, jj = np.nonzero(W > 0)
    m = ii.size
    rows = np.arange(m)
    A = sparse.csr_matrix((np.r_[np.ones(m), -np.ones(m)],
                           (np.r_[rows, rows], np.r_[jj, k + rows])), shape=(m, k + m))
    res = linprog(np.r_[np.zeros(k), W[ii, jj]], A_ub=A, b_ub=-1.0 / (k - 1) - H[ii, jj],
                  A_eq=np.r_[np.ones(k), np.zeros(m)][None, :], b_eq=[0.0],
                  bounds=[(None, None)] * k + [(0, None)] * m, method="highs-ds")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.booleans(), st.sampled_from([1e-3, 1.0, 30.0]))
def test_intercepts_are_the_lp_optimum(seed, k, costs, scale):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    y = rng.integers(0, k, n)
    H = rng.normal(size=(n, k)) * scale
    if seed % 2:
        H = np.round(H, 1)                       # ties among the breakpoints
    L = np.ones((k, k)) - np.eye(k)
    if costs:
        L = rng.uniform(0, 3, (k, k)) * (rng.uniform(size=(k, k)) > 0.3)
        np.fill_diagonal(L, 0.0)
    b, loss = intercepts(H, y, L)
    assert abs(b.sum()) <= 1e-12 * max(1.0, np.abs(b).max())
    ref = _lp_loss(H, y, L) if np.any(L[y] > 0) else 0.0
    assert loss <= ref + 1e-9 * max(1.0, abs(ref))
    assert loss >= ref - 1e-7 * max(1.0, abs(ref))


# ---------------------------------------------------------------------------
# memory: kernel rows on demand, the cache limit, no n x n matrix
# ---------------------------------------------------------------------------


def test_moderate_size_respects_the_cache_limit(monkeypatch):
    n, k = 1000, 4
    rng = np.random.default_rng(3)
    y = np.arange(n) % k
    X = rng.normal(size=(n, 2)) + 4.0 * np.array([[0, 0], [1, 0], [0, 1], [1, 1]])[y]
    X = (X - X.mean(axis=0)) / X.std(axis=0)    # four blobs that touch
    gamma = 0.5
    calls = []

    def rows(idx):
        calls.append(len(idx))
        return sk_rbf(X[idx], X, gamma=gamma)

    cache_mb = 1.0                                # 131 rows of 1000
    W = (np.ones((k, k)) - np.eye(k))[y]
    cache = KernelRowCache(rows, n, cache_mb, min_rows=32)
    res = llw_decomposition(cache, W, 1.0, 1e-3, 10**7)
    assert res.converged
    cap = int(cache_mb * 2**20 // (8 * n))
    assert cache.capacity == cap < n
    assert cache._store.nbytes <= cache_mb * 2**20
    assert max(calls) <= cap                      # never more rows at once than the cache holds
    assert cache.n_computed > cap                 # rows were evicted and recomputed

    # the estimator: the same optimum with its default cache, and no n x n kernel block
    shapes = []
    original = MulticlassSVC._gram

    def spy(self, A, B, what):
        out = original(self, A, B, what)
        shapes.append(out.shape)
        return out

    monkeypatch.setattr(MulticlassSVC, "_gram", spy)
    monkeypatch.setattr(_llw, "CACHE_MB", cache_mb)
    clf = MulticlassSVC(C=1.0, gamma=gamma, tol=1e-3).fit(X, y)
    assert all(min(s) < n for s in shapes)
    a = res.alpha
    coef = -2.0 * (a - a.mean(axis=1, keepdims=True))
    obj = a.sum() / (k - 1) - 0.25 * float(np.sum(coef * res.H))
    # both within their certified gaps (<= tol) of the optimum
    assert clf.duality_gap_ <= 1e-3
    assert clf.objective_ == pytest.approx(obj, rel=3e-3)


# ---------------------------------------------------------------------------
# the iteration limit
# ---------------------------------------------------------------------------


def test_max_iter_stops_and_warns():
    X, y = _data(90, 3, 2, seed=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        clf = MulticlassSVC(max_iter=3).fit(X, y)
    assert clf.n_iter_ == 3
    # a feasible point all the same
    assert np.all(clf.alpha_ >= 0) and np.ptp(clf.alpha_.sum(axis=0)) <= 1e-12


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12))
def test_cache_returns_the_right_rows_under_eviction(seed, cap_rows):
    rng = np.random.default_rng(seed)
    n = 40
    K = rng.normal(size=(n, n))
    cache = KernelRowCache(lambda idx: K[idx], n, cap_rows * 8 * n / 2**20, min_rows=1)
    assert cache.capacity == cap_rows
    for _ in range(25):
        idx = rng.choice(n, size=int(rng.integers(1, cap_rows + 1)), replace=False)
        np.testing.assert_array_equal(cache.get(idx), K[idx])


# ---------------------------------------------------------------------------
# huge C on data that are not separable: the large-C limit (issue 29, item 7)
# ---------------------------------------------------------------------------


def _overlapping(n: int = 120) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    centres = rng.normal(0, 2, (3, 2))
    y = np.arange(n) % 3
    return centres[y] + rng.normal(size=(n, 2)), y


def test_huge_scale_linear_is_the_large_C_limit():
    """X * s with C is X with C s^2: past the path's last breakpoint f is that of C = 1e4,
    certified, in well under a second (it took minutes, or overflowed, before)."""
    X, y = _overlapping()
    ref = MulticlassSVC(kernel="linear", C=1e4, tol=1e-9).fit(X, y)
    certify(ref, sk_linear(X, X), y, np.ones((3, 3)) - np.eye(3), rel=1e-8)
    for s in (1e6, 1e10, 1e50, 1e100, 1e150):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            clf = MulticlassSVC(kernel="linear", C=1.0).fit(X * s, y)
        assert abs(clf.duality_gap_) <= 1e-12
        np.testing.assert_allclose(clf.decision_function(X * s), ref.decision_function(X), atol=1e-6)
        # the objective is C times the least loss, plus the penalty 1e-4 * ... / s^2
        assert clf.objective_ == pytest.approx(ref.objective_ / 1e4, rel=1e-6)
        a = clf.alpha_
        assert np.all(a >= 0) and np.all(a <= 1.0)
        assert np.ptp(a.sum(axis=0)) <= 1e-12 * a.sum(axis=0).max()
    # the same through C: X with C = 1e20 (mu = C max ||x||^2 beyond MU_DIRECT)
    clf = MulticlassSVC(kernel="linear", C=1e20).fit(X, y)
    assert clf.objective_ / 1e20 == pytest.approx(ref.objective_ / 1e4, rel=1e-6)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-6)


def test_large_C_limit_not_reached_is_refused(monkeypatch):
    """Where the limit is not reached by the last mu tried: solved directly up to MU_REFUSE,
    a ValueError beyond (and a fitted estimator is left as it was)."""
    X, y = _overlapping()
    monkeypatch.setattr(_llw, "_LIMIT_POWERS", (0, 1, 2))   # f still moves between 1 and 100
    kappa = float((X ** 2).sum(axis=1).max())
    clf = MulticlassSVC(kernel="linear", C=1e11 / kappa).fit(X, y)   # direct
    assert clf.duality_gap_ <= 1e-6
    before = clf.dual_coef_.copy()
    clf.set_params(C=1.0)
    with pytest.raises(ValueError, match=r"has not reached its large-C limit.*Rescale X"):
        clf.fit(X * 1e10, y)
    np.testing.assert_array_equal(clf.dual_coef_, before)
