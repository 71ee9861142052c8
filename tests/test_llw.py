"""Tests of ktheory.svm.MulticlassSVC (Lee–Lin–Wahba) and llw_population_minimizer.

Oracles:

* the PRIMAL in representer form (``h_j = sum_i c_ij k(x_i, .)``, slack variables),
  minimised by scipy's SLSQP on small problems: objective values and decisions;
* the KKT conditions of the dual recomputed from ``alpha_`` and an independent Gram
  matrix (``sklearn.metrics.pairwise``): box, equal column sums, the representer
  relation, complementary slackness, and the primal objective recomputed from the
  decision values;
* k = 2: scikit-learn's binary ``SVC`` (libsvm) and ``ktheory.svm.SVC`` with the
  same ``C`` (the parametrisation is chosen so that the C's coincide);
* the population minimiser: the closed form of Lee, Lin and Wahba (the Bayes code)
  and convexity (no direction of descent at the returned point);
* invariances: relabelling and permuting the classes, permuting the samples, and
  ``K -> s K`` with ``C -> C / s``; hypothesis checks them on random data.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.metrics.pairwise import linear_kernel as sk_linear
from sklearn.metrics.pairwise import polynomial_kernel as sk_poly
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC as SkSVC

from ktheory.svm import SVC, ConvergenceWarning, MulticlassSVC, NotFittedError, llw_population_minimizer


# ---------------------------------------------------------------------------
# data and independent oracles
# ---------------------------------------------------------------------------


def _blobs(n_per: int, k: int = 3, seed: int = 0, spread: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = 2.5 * np.array([[np.cos(a), np.sin(a)] for a in 2 * np.pi * np.arange(k) / k])
    X = np.vstack([rng.normal(c, spread, (n_per, 2)) for c in centres])
    y = np.repeat(np.arange(k), n_per)
    return X, y


def _codes(y: np.ndarray, k: int) -> np.ndarray:
    Y = np.full((y.size, k), -1.0 / (k - 1))
    Y[np.arange(y.size), y] = 1.0
    return Y


def _primal_value(K: np.ndarray, coef: np.ndarray, F: np.ndarray, y: np.ndarray, C: float,
                  L: np.ndarray) -> float:
    """``C sum_ij L[y_i, j] (F_ij - Y_ij)_+ + 1/4 sum_j c_j^T K c_j`` from scratch."""
    k = F.shape[1]
    loss = np.sum(L[y] * np.maximum(F - _codes(y, k), 0.0))
    return float(C * loss + 0.25 * np.trace(coef.T @ K @ coef))


def _primal_slsqp(K: np.ndarray, y: np.ndarray, C: float, L: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The primal by SLSQP, in feature coordinates: with ``K = R R^T`` (``R = U sqrt(Lambda)``
    over the positive eigenvalues), ``h_j(x_i) = (R V)_ij`` and ``||h_j||^2 = ||V_j||^2``.
    Minimise over (V, b, xi) ``1/4 ||V||_F^2 + C sum L xi`` s.t. ``xi >= R V + b - Y``,
    ``xi >= 0``, ``sum_j V_j = 0``, ``sum_j b_j = 0`` (strictly convex in V).
    Returns (objective, c, b) with the representer coefficients ``c = U Lambda^(-1/2) V``."""
    n = K.shape[0]
    k = L.shape[0]
    lam, U = np.linalg.eigh(K)
    keep = lam > 1e-10 * lam.max()
    lam, U = lam[keep], U[:, keep]
    R = U * np.sqrt(lam)
    r = R.shape[1]
    Y = _codes(y, k)
    W = L[y]
    nv = r * k

    def unpack(z):
        return z[:nv].reshape(r, k), z[nv:nv + k], z[nv + k:].reshape(n, k)

    def obj(z):
        V, b, xi = unpack(z)
        return 0.25 * np.sum(V * V) + C * np.sum(W * xi)

    def grad(z):
        V, b, xi = unpack(z)
        return np.concatenate([(0.5 * V).ravel(), np.zeros(k), (C * W).ravel()])

    def ineq(z):
        V, b, xi = unpack(z)
        return (xi - (R @ V + b - Y)).ravel()

    def eq(z):
        V, b, xi = unpack(z)
        return np.concatenate([V.sum(axis=1), [b.sum()]])

    # the constraints are linear: their exact Jacobians (finite differences made SLSQP stop
    # after 4 evaluations, "positive directional derivative", under some BLAS kernels)
    nz = nv + k + n * k
    J_in = np.zeros((n * k, nz))
    J_eq = np.zeros((r + 1, nz))
    for j in range(k):
        rows = np.arange(n) * k + j
        J_in[rows[:, None], np.arange(r) * k + j] = -R          # -(R V)_ij
        J_in[rows, nv + j] = -1.0                                # -b_j
        J_eq[:r, np.arange(r) * k + j] = np.eye(r)               # sum_j V_j
    J_in[np.arange(n * k), nv + k + np.arange(n * k)] = 1.0      # xi_ij
    J_eq[r, nv:nv + k] = 1.0                                     # sum_j b_j
    z0 = np.concatenate([np.zeros(nv + k), np.maximum(-Y, 0).ravel() + 1.0])
    bounds = [(None, None)] * (nv + k) + [(0, None)] * (n * k)
    res = minimize(obj, z0, jac=grad, method="SLSQP", bounds=bounds,
                   constraints=[{"type": "ineq", "fun": ineq, "jac": lambda z: J_in},
                                {"type": "eq", "fun": eq, "jac": lambda z: J_eq}],
                   options={"maxiter": 3000, "ftol": 1e-12})
    # trusted only at a feasible end point reached converged, or unable to improve at
    # float64 accuracy (status 8)
    assert res.status in (0, 8), res.message
    assert ineq(res.x).min() >= -1e-8 and np.abs(eq(res.x)).max() <= 1e-8
    assert res.x[nv + k:].min() >= -1e-12
    V, b, _ = unpack(res.x)
    return float(res.fun), U @ (V / np.sqrt(lam)[:, None]), b


def _kkt(clf: MulticlassSVC, K: np.ndarray, y: np.ndarray, L: np.ndarray, eps: float) -> None:
    """The dual's KKT conditions, recomputed from alpha_ and an independent Gram matrix."""
    C = float(clf.C)
    n, k = clf.alpha_.shape
    a = clf.alpha_
    U = C * L[y]
    # box and zeros where no variable exists
    assert np.all(a >= 0) and np.all(a <= U * (1 + 1e-12) + 1e-300)
    assert np.all(a[np.arange(n), y] == 0)
    # stationarity in b: equal column sums
    s = a.sum(axis=0)
    assert np.ptp(s) <= eps * max(1.0, C * n)
    # stationarity in h: the representer relation, rows summing to 0
    np.testing.assert_allclose(clf.dual_coef_, -2.0 * (a - a.mean(axis=1, keepdims=True)), atol=1e-14)
    np.testing.assert_allclose(clf.dual_coef_.sum(axis=1), 0.0, atol=1e-12 * max(1.0, C))
    # complementary slackness on the training points, with F from the independent K
    F = K @ clf.dual_coef_ + clf.intercept_
    R = F - _codes(y, k)             # margin violation f_j(x_i) - Y_ij
    has = L[y] > 0
    free_lo = has & (a > eps * U)    # alpha > 0  =>  R >= 0
    free_hi = has & (a < (1 - eps) * U)  # alpha < C L  =>  R <= 0
    tolR = 1e3 * eps * (1.0 + np.abs(F).max())
    assert np.all(R[free_lo] >= -tolR), R[free_lo].min()
    assert np.all(R[free_hi] <= tolR), R[free_hi].max()
    # strong duality, and the primal recomputed from scratch
    P = _primal_value(K, clf.dual_coef_, F, y, C, L)
    assert P == pytest.approx(clf.primal_objective_, rel=1e-9, abs=1e-12)
    D = np.sum(clf.dual_coef_ * (K @ clf.dual_coef_)) / 4 + np.sum(a * _codes(y, k))
    assert clf.objective_ == pytest.approx(-D, rel=1e-12, abs=1e-14)
    assert clf.objective_ == pytest.approx(P, rel=100 * eps, abs=1e-12)


DEFAULT_L3 = np.ones((3, 3)) - np.eye(3)


# ---------------------------------------------------------------------------
# optimality against the primal (SLSQP)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel,kw,C,seed,k",
    [
        ("rbf", {"gamma": 0.5}, 1.0, 0, 3),
        ("rbf", {"gamma": 2.0}, 10.0, 1, 3),
        ("linear", {}, 0.3, 2, 3),
        ("poly", {"degree": 2, "gamma": 0.5, "coef0": 1.0}, 1.0, 3, 4),
    ],
)
def test_matches_primal_oracle(kernel, kw, C, seed, k):
    X, y = _blobs(4, k=k, seed=seed, spread=1.3)
    oracle_K = {"rbf": lambda A, B: sk_rbf(A, B, gamma=kw.get("gamma")),
                "linear": sk_linear,
                "poly": lambda A, B: sk_poly(A, B, degree=2, gamma=0.5, coef0=1.0)}[kernel]
    K = oracle_K(X, X)
    L = np.ones((k, k)) - np.eye(k)
    clf = MulticlassSVC(C=C, kernel=kernel, tol=1e-10, **kw).fit(X, y)
    ref, c_ref, b_ref = _primal_slsqp(K, y, C, L)
    assert clf.objective_ == pytest.approx(ref, rel=1e-6)
    # h is unique (strictly convex penalty on span K): compare it on test points
    Xt = np.random.default_rng(9).normal(0, 2, (25, 2))
    Kt = oracle_K(Xt, X)
    np.testing.assert_allclose(Kt @ clf.dual_coef_, Kt @ c_ref, atol=1e-4)
    # and the whole objective at our point, recomputed from scratch
    F = K @ clf.dual_coef_ + clf.intercept_
    assert _primal_value(K, clf.dual_coef_, F, y, C, L) == pytest.approx(ref, rel=1e-6)
    _kkt(clf, K, y, L, 1e-7)


def test_matches_primal_oracle_with_costs():
    X, y = _blobs(4, k=3, seed=5, spread=1.5)
    L = np.array([[0.0, 1.0, 3.0], [0.5, 0.0, 1.0], [2.0, 0.0, 0.0]])  # zeros off the diagonal too
    K = sk_rbf(X, X, gamma=0.7)
    clf = MulticlassSVC(C=2.0, gamma=0.7, costs=L, tol=1e-10).fit(X, y)
    ref, c_ref, _ = _primal_slsqp(K, y, 2.0, L)
    assert clf.objective_ == pytest.approx(ref, rel=1e-6)
    np.testing.assert_allclose(K @ clf.dual_coef_, K @ c_ref, atol=1e-4)
    _kkt(clf, K, y, L, 1e-7)
    # no variable for a pair of zero cost
    assert np.all(clf.alpha_[L[y] == 0] == 0)


def test_kkt_larger_problem_and_decisions_sum_to_zero():
    X, y = _blobs(40, k=4, seed=3, spread=1.4)
    clf = MulticlassSVC(C=3.0, gamma=0.8, tol=1e-9).fit(X, y)
    K = sk_rbf(X, X, gamma=0.8)
    _kkt(clf, K, y, np.ones((4, 4)) - np.eye(4), 1e-7)
    F = clf.decision_function(X)
    assert F.shape == (160, 4)
    np.testing.assert_allclose(F.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(F, K @ clf.dual_coef_ + clf.intercept_ - 0.0, atol=1e-9)
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmax(F, axis=1)])
    # support: exactly the points with some alpha > 0; the others satisfy the margin
    sup = np.zeros(160, bool)
    sup[clf.support_] = True
    assert np.array_equal(sup, np.any(clf.alpha_ > 0, axis=1))
    R = F - _codes(y, 4)
    R[np.arange(160), y] = -np.inf
    assert np.all(R[~sup] <= 1e-6)
    assert 0 < clf.support_.size < 160


# ---------------------------------------------------------------------------
# k = 2 is the binary SVM with the same C
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel,kw,C,seed",
    [
        ("rbf", {"gamma": 0.5}, 1.0, 0),
        ("rbf", {"gamma": 0.2}, 10.0, 1),
        ("linear", {}, 0.05, 2),
        ("poly", {"degree": 3, "gamma": 0.3, "coef0": 1.0}, 0.5, 3),
    ],
)
def test_two_classes_equal_binary_svc(kernel, kw, C, seed):
    X, y = _blobs(30, k=2, seed=seed, spread=1.5)
    llw = MulticlassSVC(C=C, kernel=kernel, tol=1e-10, **kw).fit(X, y)
    ours = SVC(C=C, kernel=kernel, tol=1e-10, **kw).fit(X, y)
    sk = SkSVC(C=C, kernel=kernel, tol=1e-10, **kw).fit(X, y)
    Xt = np.vstack([X, np.random.default_rng(seed).normal(0, 3, (40, 2))])
    F = llw.decision_function(Xt)
    np.testing.assert_allclose(F[:, 0], -F[:, 1], atol=1e-12)
    # the objectives: LLW's primal = the binary primal = -(libsvm's dual minimum)
    assert llw.objective_ == pytest.approx(-ours.objective_, rel=1e-8)
    # scikit-learn's primal at its solution, from its dual_coef_ and an independent Gram
    Kx = {"rbf": lambda A, B: sk_rbf(A, B, **kw), "linear": sk_linear,
          "poly": lambda A, B: sk_poly(A, B, **kw)}[kernel]
    dc = sk.dual_coef_[0]
    Ksv = Kx(sk.support_vectors_, sk.support_vectors_)
    t = np.where(y == sk.classes_[1], 1.0, -1.0)
    p_sk = 0.5 * dc @ Ksv @ dc + C * np.sum(np.maximum(0.0, 1.0 - t * sk.decision_function(X)))
    # (libsvm stores kernel values in single precision: its point is optimal to ~1e-7
    # relative; a primal value at any point is an upper bound of the optimum)
    assert llw.objective_ == pytest.approx(p_sk, rel=1e-6)
    assert llw.objective_ <= p_sk * (1 + 1e-12)
    # h is unique: decisions without the intercept agree always
    h_llw = F[:, 1] - llw.intercept_[1]
    h_svc = ours.decision_function(Xt) - ours.intercept_[0]
    np.testing.assert_allclose(h_llw, h_svc, atol=1e-6)
    # libsvm (single-precision kernel values): to 1e-5 relative
    np.testing.assert_allclose(h_llw, sk.decision_function(Xt) - sk.intercept_[0], rtol=1e-5, atol=1e-6)
    # the intercept is unique when a support vector is free: then all decisions agree
    a = ours.alpha_
    free = np.any((a > 1e-8 * C) & (a < (1 - 1e-8) * C))
    assert free, "choose data with a free support vector"
    np.testing.assert_allclose(F[:, 1], ours.decision_function(Xt), atol=1e-6)
    np.testing.assert_allclose(F[:, 1], sk.decision_function(Xt), rtol=1e-5, atol=1e-6)
    # dual variables: a_i = alpha_{i, other class}, the same as the binary dual's
    np.testing.assert_allclose(llw.alpha_.sum(axis=1), a, atol=1e-6 * C)


def test_two_classes_without_free_support_vector():
    """C so small that every support vector is bounded: b is an interval; compare the
    unique parts (objective, h) and the decisions only up to b's interval."""
    X, y = _blobs(20, k=2, seed=4, spread=2.0)
    C = 1e-3
    llw = MulticlassSVC(C=C, kernel="linear", tol=1e-10).fit(X, y)
    ours = SVC(C=C, kernel="linear", tol=1e-10).fit(X, y)
    a = ours.alpha_
    assert not np.any((a > 1e-8 * C) & (a < (1 - 1e-8) * C))
    assert llw.objective_ == pytest.approx(-ours.objective_, rel=1e-8)
    F = llw.decision_function(X)
    h_llw = F[:, 1] - llw.intercept_[1]
    np.testing.assert_allclose(h_llw, ours.decision_function(X) - ours.intercept_[0], atol=1e-9)
    # both intercepts minimise the same loss given h
    t = np.where(y == 1, 1.0, -1.0)
    loss = lambda b: np.sum(np.maximum(0.0, 1 - t * (h_llw + b)))  # noqa: E731
    assert loss(llw.intercept_[1]) == pytest.approx(loss(ours.intercept_[0]), rel=1e-9)


def test_lambda_mapping_matches_paper_objective():
    """``n C`` times the paper's objective with ``lambda = 1/(2 n C)`` is objective_."""
    X, y = _blobs(10, k=3, seed=6)
    n, C = X.shape[0], 0.8
    clf = MulticlassSVC(C=C, gamma=0.5, tol=1e-10).fit(X, y)
    K = sk_rbf(X, X, gamma=0.5)
    lam = 1.0 / (2 * n * C)
    F = K @ clf.dual_coef_ + clf.intercept_
    paper = (np.sum(np.maximum(F - _codes(y, 3), 0.0) * DEFAULT_L3[y]) / n
             + lam / 2 * np.trace(clf.dual_coef_.T @ K @ clf.dual_coef_))
    assert n * C * paper == pytest.approx(clf.objective_, rel=1e-10)


# ---------------------------------------------------------------------------
# the population minimiser (Bayes consistency)
# ---------------------------------------------------------------------------


def _cond_loss(f: np.ndarray, p: np.ndarray, L: np.ndarray) -> float:
    k = p.size
    return float(sum(p[j] * np.sum(L[j] * np.maximum(f - _codes(np.array([j]), k)[0], 0.0))
                     for j in range(k)))


def test_population_minimizer_bayes_code_example():
    p = np.array([0.5, 0.3, 0.15, 0.05])
    f = llw_population_minimizer(p)
    np.testing.assert_allclose(f, [1.0, -1 / 3, -1 / 3, -1 / 3], rtol=0, atol=1e-12)
    # an independent check that the code minimises: no feasible point does better
    L = np.ones((4, 4)) - np.eye(4)
    best = _cond_loss(np.array([1.0, -1 / 3, -1 / 3, -1 / 3]), p, L)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        g = rng.normal(0, 2, 4)
        g -= g.mean()
        assert _cond_loss(g, p, L) >= best - 1e-12
    # the value: each l != 1 contributes (1 - p_l) * 0, class 1 (1 - p_1) * 4/3
    assert best == pytest.approx((1 - 0.5) * 4 / 3, rel=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000))
def test_population_minimizer_is_the_code_of_the_most_probable_class(k, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k))
    top = np.sort(p)[-2:]
    if top[1] - top[0] < 1e-3:  # a (near) tie: the minimiser is not unique
        p[np.argmax(p)] += 1e-3
        p /= p.sum()
    f = llw_population_minimizer(p)
    code = _codes(np.array([int(np.argmax(p))]), k)[0]
    np.testing.assert_allclose(f, code, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10_000))
def test_population_minimizer_with_costs_has_no_descent_direction(k, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k))
    L = rng.uniform(0, 3, (k, k))
    np.fill_diagonal(L, 0.0)
    f = llw_population_minimizer(p, costs=L)
    assert abs(f.sum()) < 1e-12
    v = _cond_loss(f, p, L)
    for _ in range(200):  # a convex function: a local minimum is global
        d = rng.normal(size=k)
        d -= d.mean()
        for t in (1e-6, 1e-3, 1.0):
            assert _cond_loss(f + t * d, p, L) >= v - 1e-9


# ---------------------------------------------------------------------------
# invariances
# ---------------------------------------------------------------------------


def test_relabelling_and_permuting_classes():
    X, y = _blobs(12, k=3, seed=7, spread=1.5)
    base = MulticlassSVC(C=1.0, gamma=0.5, tol=1e-10).fit(X, y)
    F = base.decision_function(X)
    # string labels whose sorted order permutes the columns
    names = np.array(["pear", "apple", "fig"])[y]
    clf = MulticlassSVC(C=1.0, gamma=0.5, tol=1e-10).fit(X, names)
    assert clf.classes_.tolist() == ["apple", "fig", "pear"]
    G = clf.decision_function(X)
    np.testing.assert_allclose(G, F[:, [1, 2, 0]], atol=1e-6)
    assert np.array_equal(clf.predict(X), np.array(["pear", "apple", "fig"])[base.predict(X)])
    # permuted costs follow the classes
    L = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
    a = MulticlassSVC(gamma=0.5, costs=L, tol=1e-10).fit(X, y)
    perm = np.array([2, 0, 1])  # new label of old class j
    inv = np.argsort(perm)
    b = MulticlassSVC(gamma=0.5, costs=L[np.ix_(inv, inv)], tol=1e-10).fit(X, perm[y])
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X)[:, inv], atol=1e-6)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)


def test_sample_order_and_precomputed_and_callable_agree():
    X, y = _blobs(10, k=3, seed=8)
    a = MulticlassSVC(C=2.0, gamma=0.4, tol=1e-10).fit(X, y)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    b = MulticlassSVC(C=2.0, gamma=0.4, tol=1e-10).fit(X[perm], y[perm])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)
    K = sk_rbf(X, X, gamma=0.4)
    c = MulticlassSVC(C=2.0, kernel="precomputed", tol=1e-10).fit(K, y)
    np.testing.assert_allclose(c.decision_function(K), a.decision_function(X), atol=1e-6)
    d = MulticlassSVC(C=2.0, kernel=lambda A, B: sk_rbf(A, B, gamma=0.4), tol=1e-10).fit(X, y)
    np.testing.assert_allclose(d.decision_function(X), a.decision_function(X), atol=1e-6)
    for m in (a, b, c, d):
        assert m.objective_ == pytest.approx(a.objective_, rel=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(2, 4), st.floats(0.05, 20.0), st.floats(1e-3, 1e3))
def test_hypothesis_properties(seed, k, C, s):
    """Columns sum to 0; KKT; kernel s K with C equals kernel K with C s (h scales by 1/s)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k + 1, 16))
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    K = sk_rbf(X, X, gamma=1.0)
    a = MulticlassSVC(C=C, kernel="precomputed", tol=1e-10).fit(K, y)
    F = a.decision_function(K)
    np.testing.assert_allclose(F.sum(axis=1), 0.0, atol=1e-10 * max(1.0, np.abs(F).max()))
    _kkt(a, K, y, np.ones((k, k)) - np.eye(k), 1e-7)
    b = MulticlassSVC(C=C / s, kernel="precomputed", tol=1e-10).fit(s * K, y)
    assert b.objective_ == pytest.approx(a.objective_ / s, rel=1e-6)
    # h = sum c K is the same function: (s K) c_b = K c_a
    np.testing.assert_allclose(s * K @ b.dual_coef_, K @ a.dual_coef_, atol=1e-5 * (1 + np.abs(F).max()))


# ---------------------------------------------------------------------------
# estimator behaviour
# ---------------------------------------------------------------------------


def test_predict_ties_go_to_lowest_index():
    X, y = _blobs(5, k=3, seed=1)
    K = sk_linear(X, X)
    clf = MulticlassSVC(kernel="precomputed").fit(K, y)
    zero = np.zeros((2, X.shape[0]))  # h = 0 at these "points"; only b decides
    clf.intercept_ = np.zeros(3)
    assert clf.predict(zero).tolist() == [clf.classes_[0]] * 2
    clf.intercept_ = np.array([-1.0, 0.5, 0.5])
    assert clf.predict(zero).tolist() == [clf.classes_[1]] * 2


def test_not_fitted_convergence_warning_pickle_clone_and_grid():
    X, y = _blobs(15, k=3, seed=2)
    with pytest.raises(NotFittedError, match="not fitted"):
        MulticlassSVC().predict(X)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        MulticlassSVC(max_iter=1).fit(X, y)
    clf = MulticlassSVC(C=1.5).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    assert clone(clf).get_params() == clf.get_params()
    assert repr(MulticlassSVC(C=2.0, kernel="linear")) == "MulticlassSVC(C=2.0, kernel='linear')"
    g = GridSearchCV(MulticlassSVC(), {"C": [0.1, 10.0]}, cv=3).fit(X, y)
    assert g.best_params_["C"] in (0.1, 10.0)
    assert clf.score(X, y) > 0.8


def test_indefinite_kernel_refused_and_costs_checked():
    X, y = _blobs(5, k=3, seed=3)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        MulticlassSVC(kernel="precomputed").fit(-np.eye(15), y)
    with pytest.raises(ValueError, match="costs must have a zero diagonal"):
        MulticlassSVC(costs=np.ones((3, 3))).fit(X, y)
    with pytest.raises(ValueError, match=r"costs must be a \(k, k\) = \(3, 3\)"):
        MulticlassSVC(costs=np.ones((2, 2)) - np.eye(2)).fit(X, y)
    with pytest.raises(ValueError, match="one class only"):
        MulticlassSVC().fit(X, np.zeros(15))


def test_all_zero_costs_give_the_zero_function():
    X, y = _blobs(5, k=3, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = MulticlassSVC(costs=np.zeros((3, 3))).fit(X, y)
    assert clf.objective_ == 0.0 == clf.primal_objective_ and clf.support_.size == 0
    np.testing.assert_array_equal(clf.decision_function(X), 0.0)
