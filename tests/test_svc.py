"""Tests of ktheory.svm.SVC and smo_solve.

Oracles: scikit-learn's SVC (libsvm) on the same data and kernel, an independent
QP solver (scipy.optimize SLSQP) on tiny problems, closed forms (the sklearn toy
set, XOR of chapter 7), and KKT conditions recomputed from scratch from alpha
and the Gram matrix. Hypothesis checks the KKT conditions and y^T alpha = 0 on
random separable and non-separable data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from ktheory.svm import SVC, ConvergenceWarning, NotFittedError, smo_solve
from ktheory.kernels import linear_kernel

TOY_X = np.array([[-2.0, -1.0], [-1.0, -1.0], [-1.0, -2.0], [1.0, 1.0], [1.0, 2.0], [2.0, 1.0]])
TOY_Y = np.array([1, 1, 1, 2, 2, 2])


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _iris_pair(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_iris(return_X_y=True)
    keep = (y == a) | (y == b)
    return X[keep], y[keep]


def _synthetic(n: int, separable: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    if separable:
        X[:, 0] += 0.6 * y  # open a gap of width 1.2 along the first axis
    else:
        flip = rng.random(n) < 0.15
        y[flip] = -y[flip]
    return X, y


def _full_alpha(dual_coef: np.ndarray, support: np.ndarray, n: int) -> np.ndarray:
    """|dual_coef| scattered to all n samples: the alpha vector."""
    a = np.zeros(n)
    a[support] = np.abs(dual_coef[0])
    return a


def _dual_objective(alpha: np.ndarray, y_pm: np.ndarray, K: np.ndarray) -> float:
    """libsvm's minimisation form 1/2 a^T Q a - e^T a, Q = yy^T * K."""
    ay = alpha * y_pm
    return 0.5 * float(ay @ K @ ay) - float(alpha.sum())


def _max_violation(alpha: np.ndarray, y_pm: np.ndarray, K: np.ndarray, C: float) -> float:
    """m(alpha) - M(alpha), recomputed from scratch (Fan, Chen & Lin 2005, eq. 9)."""
    grad = y_pm * (K @ (alpha * y_pm)) - 1.0
    v = -y_pm * grad
    up = ((y_pm > 0) & (alpha < C)) | ((y_pm < 0) & (alpha > 0))
    low = ((y_pm > 0) & (alpha > 0)) | ((y_pm < 0) & (alpha < C))
    return float(v[up].max() - v[low].min())


def _check_kkt(alpha: np.ndarray, y_pm: np.ndarray, K: np.ndarray, C: float, b: float, tol: float) -> None:
    """Box, equality, the libsvm stopping criterion, and the margin conditions."""
    assert np.all(alpha >= 0.0) and np.all(alpha <= C)
    assert abs(float(alpha @ y_pm)) <= 1e-10 * max(1.0, C * len(alpha))
    assert _max_violation(alpha, y_pm, K, C) < tol
    margin = y_pm * (K @ (alpha * y_pm) + b)
    zero = alpha == 0.0
    at_c = alpha == C
    free = ~(zero | at_c)
    # alpha = 0: y f >= 1, 0 < alpha < C: y f = 1, alpha = C: y f <= 1, each to tol
    assert np.all(margin[zero] >= 1.0 - tol)
    assert np.all(margin[at_c] <= 1.0 + tol)
    assert np.all(np.abs(margin[free] - 1.0) <= tol)


def _assert_equivalent_solutions(a, Xa, b, Xb, y_pm, K, tol, margin=None):
    """Two tol-optimal fits of the same problem agree on what is unique.

    The dual vector, the support set and (with no free support vector) the bias need not
    be unique (duplicated or collinear points, ties), and two solvers stopped at ``tol``
    (or the same solver on Gram matrices that differ in the last bits) land on different
    tol-optimal points. What both must share: the dual objective (to 1e-6 relative, which
    the stopping rule guarantees on these problems), decision values within
    ``margin`` (default 20 tol; at tol <= 1e-10 floating point, not tol, limits the
    agreement, so those tests pass 1e-5), labels wherever |f| exceeds that margin, and support sets
    that differ only by points on the margin (|y f - 1| within the same margin).
    ``a`` and ``b`` are fitted estimators (ours or scikit-learn's) on the training set
    whose Gram matrix is ``K``; ``Xa`` and ``Xb`` are what their ``decision_function`` takes
    for the training points (the samples, or ``K`` for a precomputed kernel).
    """
    n = len(y_pm)
    obj_a = _dual_objective(_full_alpha(a.dual_coef_, a.support_, n), y_pm, K)
    obj_b = _dual_objective(_full_alpha(b.dual_coef_, b.support_, n), y_pm, K)
    assert abs(obj_a - obj_b) <= 1e-6 * max(1.0, abs(obj_b)), (obj_a, obj_b)
    fa, fb = a.decision_function(Xa), b.decision_function(Xb)
    margin = 20.0 * tol if margin is None else margin
    np.testing.assert_allclose(fa, fb, rtol=0, atol=margin)
    clear = np.abs(fb) > margin
    np.testing.assert_array_equal(a.predict(Xa)[clear], b.predict(Xb)[clear])
    diff = np.array(sorted(set(a.support_.tolist()) ^ set(b.support_.tolist())), dtype=int)
    if diff.size:
        for f in (fa, fb):
            assert np.all(np.abs(y_pm[diff] * f[diff] - 1.0) <= margin + tol), diff


# (name, X, y, kwargs) cases compared with scikit-learn
def _cases() -> list[tuple[str, np.ndarray, np.ndarray, dict]]:
    Xb, yb = _breast_cancer()
    Xs, ys = _synthetic(300, separable=True, seed=1)
    Xn, yn = _synthetic(300, separable=False, seed=2)
    Xi1, yi1 = _iris_pair(0, 1)
    Xi2, yi2 = _iris_pair(1, 2)
    return [
        ("bc-rbf-C1", Xb, yb, dict(kernel="rbf", C=1.0)),
        ("bc-rbf-C10", Xb, yb, dict(kernel="rbf", C=10.0)),
        ("bc-linear-C0.1", Xb, yb, dict(kernel="linear", C=0.1)),
        ("bc-poly-C1", Xb, yb, dict(kernel="poly", C=1.0, degree=3, coef0=1.0)),
        ("bc-sigmoid-C1", Xb, yb, dict(kernel="sigmoid", C=1.0)),
        ("iris01-linear", Xi1, yi1, dict(kernel="linear", C=1.0)),
        ("iris12-rbf", Xi2, yi2, dict(kernel="rbf", C=3.0, gamma="auto")),
        ("iris12-poly", Xi2, yi2, dict(kernel="poly", C=1.0, degree=2, gamma=0.5, coef0=1.0)),
        ("sep-linear", Xs, ys, dict(kernel="linear", C=1e3)),
        ("sep-rbf", Xs, ys, dict(kernel="rbf", C=100.0, gamma=0.5)),
        ("nonsep-rbf", Xn, yn, dict(kernel="rbf", C=1.0, gamma=1.0)),
        ("nonsep-poly", Xn, yn, dict(kernel="poly", C=0.5, degree=2, gamma=1.0, coef0=0.5)),
        ("nonsep-sigmoid", Xn, yn, dict(kernel="sigmoid", C=0.5, gamma=0.2, coef0=-0.5)),
    ]


CASES = _cases()


def _gram_for(est: SkSVC, X: np.ndarray) -> np.ndarray:
    """The training Gram matrix of a fitted sklearn SVC, recomputed by sklearn."""
    from sklearn.metrics.pairwise import pairwise_kernels

    params = {"gamma": est._gamma, "degree": est.degree, "coef0": est.coef0}
    kernel = est.kernel
    if kernel == "linear":
        params = {}
    elif kernel == "rbf":
        params = {"gamma": est._gamma}
    return pairwise_kernels(X, X, metric=kernel, filter_params=True, **params)


# ---------------------------------------------------------------------------
# closed-form cases
# ---------------------------------------------------------------------------


def test_sklearn_toy_set_linear():
    clf = SVC(kernel="linear").fit(TOY_X, TOY_Y)
    np.testing.assert_array_equal(clf.support_, [1, 3])
    np.testing.assert_allclose(clf.dual_coef_, [[-0.25, 0.25]], atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, [0.0], atol=1e-12)
    np.testing.assert_array_equal(clf.n_support_, [1, 1])
    np.testing.assert_array_equal(clf.support_vectors_, TOY_X[[1, 3]])
    np.testing.assert_array_equal(clf.predict([[-1, -1], [2, 2], [3, 2]]), [1, 2, 2])
    assert clf.objective_ == pytest.approx(-0.25, abs=1e-12)
    # sklearn's own result on the same set
    sk = SkSVC(kernel="linear").fit(TOY_X, TOY_Y)
    assert clf.n_iter_.tolist() == sk.n_iter_.tolist()   # both (1,) int32 arrays


def test_xor_reproduces_chapter_7():
    # chapter 7: K = (x.z + 1)^2 on the XOR points, alpha_i = 1/8 for all four, b = 0
    X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    y = np.array([1, -1, -1, 1])
    clf = SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1e6, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(np.sort(clf.support_), [0, 1, 2, 3])
    np.testing.assert_allclose(clf.alpha_, np.full(4, 1 / 8), atol=1e-9)
    np.testing.assert_allclose(np.abs(clf.dual_coef_), np.full((1, 4), 1 / 8), atol=1e-9)
    np.testing.assert_allclose(clf.intercept_, [0.0], atol=1e-9)
    # dual objective: -(sum alpha) + 1/2 a^T Q a = -1/2 + 1/4 = -1/4
    assert clf.objective_ == pytest.approx(-0.25, abs=1e-9)
    # f(x) = x1 x2 on the training points (the book's decision function)
    np.testing.assert_allclose(clf.decision_function(X), X[:, 0] * X[:, 1], atol=1e-8)


# ---------------------------------------------------------------------------
# against libsvm (scikit-learn)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,X,y,kw", CASES, ids=[c[0] for c in CASES])
def test_matches_libsvm(name, X, y, kw):
    tol = 1e-3
    ours = SVC(tol=tol, **kw).fit(X, y)
    sk = SkSVC(tol=tol, **kw).fit(X, y)
    K = _gram_for(sk, X)
    n = len(y)
    y_pm = np.where(y == sk.classes_[1], 1.0, -1.0)

    # same dual objective (libsvm's objective recomputed from its dual_coef_)
    obj_sk = _dual_objective(_full_alpha(sk.dual_coef_, sk.support_, n), y_pm, K)
    obj_ours = _dual_objective(ours.alpha_, y_pm, K)
    assert abs(obj_ours - obj_sk) <= 1e-6 * abs(obj_sk)
    assert ours.objective_ == pytest.approx(obj_ours, rel=1e-9, abs=1e-12)

    # same classes, same signs
    np.testing.assert_array_equal(ours.classes_, sk.classes_)
    # decision values within 20 tol, labels wherever |f| > 20 tol, support sets equal
    # but for points on the margin (both solutions are only tol-optimal)
    _assert_equivalent_solutions(ours, X, sk, X, y_pm, K, tol)

    # KKT conditions to tol, recomputed from scratch
    _check_kkt(ours.alpha_, y_pm, K, float(kw["C"]), float(ours.intercept_[0]), tol)

    # dual_coef_ = alpha_i y_i on support_
    np.testing.assert_allclose(ours.dual_coef_[0], ours.alpha_[ours.support_] * y_pm[ours.support_])
    assert ours.n_support_.sum() == ours.support_.size


def test_same_iterations_as_libsvm_on_breast_cancer_rbf():
    # same working-set rule, same sample order, same tie-breaking => same path
    # (the count is path-dependent: equal on the machines tried, but another BLAS build
    # rounds K differently and may break a near-tie the other way, so allow 5 %; a different
    # working-set rule, e.g. the maximal violating pair, differs by far more)
    X, y = _breast_cancer()
    K = sk_rbf(X, X, gamma=1.0 / (X.shape[1] * X.var()))
    y_pm = np.where(y == 1, 1.0, -1.0)
    for C in (0.1, 1.0, 10.0):
        ours = SVC(C=C).fit(X, y)
        sk = SkSVC(C=C).fit(X, y)
        assert abs(int(ours.n_iter_[0]) - int(sk.n_iter_[0])) <= max(3, 0.05 * int(sk.n_iter_[0]))
        _assert_equivalent_solutions(ours, X, sk, X, y_pm, K, 1e-3)


def test_precomputed_and_callable_match_named_kernel():
    X, y = _breast_cancer()
    gamma = 0.02
    named = SVC(kernel="rbf", gamma=gamma, C=2.0).fit(X, y)
    K = sk_rbf(X, X, gamma=gamma)
    pre = SVC(kernel="precomputed", C=2.0).fit(K, y)
    call = SVC(kernel=lambda A, B: sk_rbf(A, B, gamma=gamma), C=2.0).fit(X, y)
    sk = SkSVC(kernel="precomputed", C=2.0).fit(K, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    # the three fits see Gram matrices equal up to rounding: the same problem, so the
    # same tol-optimal solution in what is unique (not bit-equal dual vectors)
    for est, Z in ((pre, K), (call, X), (sk, K)):
        _assert_equivalent_solutions(est, Z, named, X, y_pm, K, 1e-3)
    assert pre.support_vectors_.shape == (0, 0)
    Xt = X[:50] + 0.1
    Kt = sk_rbf(Xt, X, gamma=gamma)
    ft = named.decision_function(Xt)
    for est, Zt in ((pre, Kt), (call, Xt), (sk, Kt)):
        np.testing.assert_allclose(est.decision_function(Zt), ft, rtol=0, atol=2e-2)
        clear = np.abs(ft) > 2e-2
        np.testing.assert_array_equal(est.predict(Zt)[clear], named.predict(Xt)[clear])


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (1, -1), ("cat", "dog"), (3, -7), (True, False)])
def test_label_mapping_and_signs_as_sklearn(labels):
    X, y01 = _synthetic(120, separable=False, seed=3)
    y = np.where(y01 > 0, labels[0], labels[1])
    # tol = 1e-10 on both sides: the (unique, distinct points, Gaussian kernel) solution
    # to high accuracy, so the signs of dual_coef_ and f carry the label mapping
    ours = SVC(kernel="rbf", C=1.0, tol=1e-10).fit(X, y)
    sk = SkSVC(kernel="rbf", C=1.0, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, sk.classes_)
    y_pm = np.where(y == sk.classes_[1], 1.0, -1.0)
    np.testing.assert_array_equal(np.sign(ours.dual_coef_[0]), y_pm[ours.support_])
    K = sk_rbf(X, X, gamma=1.0 / (X.shape[1] * X.var()))
    _assert_equivalent_solutions(ours, X, sk, X, y_pm, K, 1e-10, margin=1e-5)
    assert ours.predict(X).dtype == sk.predict(X).dtype


def test_gamma_scale_and_auto_as_sklearn():
    X, y = _iris_pair(1, 2)
    for gamma in ("scale", "auto", 0.3):
        ours = SVC(gamma=gamma).fit(X, y)
        sk = SkSVC(gamma=gamma).fit(X, y)
        assert ours._gamma_ == pytest.approx(sk._gamma, rel=1e-12)
        np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=2e-2)


def test_unsorted_input_order_gives_sklearn_order_of_support():
    X, y = _synthetic(200, separable=False, seed=5)
    rng = np.random.default_rng(0)
    p = rng.permutation(len(y))
    Xp, yp = X[p], y[p]
    ours = SVC(C=2.0, tol=1e-10).fit(Xp, yp)
    sk = SkSVC(C=2.0, tol=1e-10).fit(Xp, yp)
    # libsvm's order: the support vectors of classes_[0] first, then those of classes_[1],
    # each group in increasing sample index; n_support_ counts the groups
    cls = yp[ours.support_] == ours.classes_[1]
    n0 = int(ours.n_support_[0])
    assert not cls[:n0].any() and cls[n0:].all()
    assert np.all(np.diff(ours.support_[:n0]) > 0) and np.all(np.diff(ours.support_[n0:]) > 0)
    # and the set is libsvm's, but for points on the margin
    y_pm = np.where(yp == sk.classes_[1], 1.0, -1.0)
    K = sk_rbf(Xp, Xp, gamma=1.0 / (Xp.shape[1] * Xp.var()))
    _assert_equivalent_solutions(ours, Xp, sk, Xp, y_pm, K, 1e-10, margin=1e-5)


# ---------------------------------------------------------------------------
# smo_solve on its own, against an independent QP solver
# ---------------------------------------------------------------------------


def _qp_oracle(K: np.ndarray, y: np.ndarray, C: float) -> float:
    """Optimal dual objective by SLSQP (an independent solver), multi-started."""
    Q = (y[:, None] * y[None, :]) * K
    n = len(y)
    best = np.inf
    for x0 in (np.zeros(n), np.full(n, C / 2)):
        res = minimize(
            lambda a: 0.5 * a @ Q @ a - a.sum(),
            x0,
            jac=lambda a: Q @ a - 1.0,
            bounds=[(0.0, C)] * n,
            constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        # trusted only at a feasible point where SLSQP converged (0) or could not
        # improve at float64 accuracy (8, "positive directional derivative")
        assert res.status in (0, 8), res.message
        a = res.x
        assert abs(a @ y) <= 1e-8 * max(1.0, C * n), "SLSQP's point violates y'a = 0"
        assert a.min() >= -1e-8 and a.max() <= C + 1e-8, "SLSQP's point leaves the box"
        best = min(best, float(res.fun))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_smo_solve_matches_independent_qp(seed):
    rng = np.random.default_rng(seed)
    n = 12
    X = rng.standard_normal((n, 2))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    K = np.exp(-0.7 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    C = float(rng.choice([0.3, 1.0, 10.0]))
    res = smo_solve(K, y, C, tol=1e-8)
    assert res.converged
    assert res.gap < 1e-8
    assert res.objective == pytest.approx(_qp_oracle(K, y, C), rel=1e-6, abs=1e-9)
    assert res.objective == pytest.approx(_dual_objective(res.alpha, y, K), rel=1e-10, abs=1e-12)
    _check_kkt(res.alpha, y, K, C, res.intercept, 1e-8)


def test_smo_handles_duplicate_points_and_non_psd_kernel():
    # duplicates give a_ij = 0; the sigmoid kernel gives a_ij < 0 for some pairs
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 2))
    X[20:] = X[:20]  # every point twice
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[::7] *= -1
    K = X @ X.T
    res = smo_solve(K, y, 1.0)
    assert res.converged and np.all(np.isfinite(res.alpha))
    _check_kkt(res.alpha, y, K, 1.0, res.intercept, 1e-3)
    Ks = np.tanh(2.0 * (X @ X.T) - 1.0)
    d = np.diag(Ks)
    assert np.min(d[:, None] + d[None, :] - 2 * Ks) < 0  # really non-PSD curvature
    res = smo_solve(Ks, y, 1.0)
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= 1.0)
    assert abs(res.alpha @ y) < 1e-10
    ours = SVC(kernel="precomputed", C=1.0).fit(Ks, y)
    sk = SkSVC(kernel="precomputed", C=1.0).fit(Ks, y)
    K_obj = _dual_objective(_full_alpha(sk.dual_coef_, sk.support_, len(y)), y, Ks)
    assert ours.objective_ == pytest.approx(K_obj, rel=1e-6)


def test_max_iter_warns_and_stops():
    X, y = _breast_cancer()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = SVC(kernel="linear", C=10.0, max_iter=20).fit(X, y)
    assert clf.n_iter_.tolist() == [20]
    assert clf.gap_ > clf.tol
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SVC(C=1.0).fit(X, y)  # converges: no warning


# ---------------------------------------------------------------------------
# property tests
# ---------------------------------------------------------------------------


@st.composite
def _problems(draw):
    n = draw(st.integers(6, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    separable = draw(st.booleans())
    C = draw(st.sampled_from([0.05, 0.5, 1.0, 5.0, 100.0]))
    kernel = draw(st.sampled_from(["linear", "rbf", "poly"]))
    tol = draw(st.sampled_from([1e-2, 1e-3, 1e-5]))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] - 0.3 * X[:, 1] > 0, 1.0, -1.0)
    if separable:
        X[:, 0] += 0.5 * y
    else:
        y[rng.random(n) < 0.25] *= -1
    y[0], y[1] = 1.0, -1.0
    return X, y, C, kernel, tol


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problems())
def test_property_kkt_and_equality_constraint(problem):
    X, y, C, kernel, tol = problem
    clf = SVC(C=C, kernel=kernel, gamma=0.5, degree=2, coef0=1.0, tol=tol).fit(X, y)
    if kernel == "linear":
        K = X @ X.T
    elif kernel == "rbf":
        K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    else:
        K = (0.5 * X @ X.T + 1.0) ** 2
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    a = clf.alpha_
    assert abs(float(a @ y_pm)) <= 1e-10 * max(1.0, C * len(a))
    np.testing.assert_allclose(clf.dual_coef_.sum(), 0.0, atol=1e-10 * max(1.0, C * len(a)))
    _check_kkt(a, y_pm, K, C, float(clf.intercept_[0]), tol)
    # the decision function is what the dual coefficients say
    np.testing.assert_allclose(
        clf.decision_function(X), K[:, clf.support_] @ clf.dual_coef_[0] + clf.intercept_[0], atol=1e-9
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_property_separable_data_hard_margin_limit(seed):
    # separable data and huge C: every training point classified with margin >= 1 - tol
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((25, 2))
    y = np.where(X[:, 1] > 0.2 * X[:, 0], 1, -1)
    X[:, 1] += 0.4 * y
    clf = SVC(kernel="linear", C=1e6, tol=1e-6).fit(X, y)
    assert np.all(y * clf.decision_function(X) >= 1 - 1e-5)
    assert np.all(clf.alpha_ < 1e6)  # no bounded support vector


# ---------------------------------------------------------------------------
# scikit-learn integration
# ---------------------------------------------------------------------------


def test_params_clone_and_repr():
    clf = SVC(C=2.0, kernel="poly", degree=2)
    params = clf.get_params()
    assert params == {
        "C": 2.0, "kernel": "poly", "degree": 2, "gamma": "scale", "coef0": 0.0,
        "shrinking": True, "tol": 1e-3, "cache_size": 200.0, "class_weight": None, "verbose": False,
        "max_iter": -1, "gram_limit_mb": 2048.0, "probability": False, "random_state": None,
        "decision_function_shape": "ovr", "break_ties": False, "solver": "auto",
    }
    cl = clone(clf)
    assert cl is not clf and cl.get_params() == params
    assert clf.set_params(C=5.0) is clf and clf.C == 5.0
    with pytest.raises(ValueError, match="Invalid parameter 'Cee'"):
        clf.set_params(Cee=1.0)
    assert repr(SVC(C=5.0)) == "SVC(C=5.0)"
    # a function parameter is shown by name, without the address that differs per process
    assert repr(SVC(kernel=linear_kernel, C=2.0)) == "SVC(C=2.0, kernel=<function linear_kernel>)"


def test_pipeline_and_gridsearch():
    X, y = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), SVC())
    grid = GridSearchCV(pipe, {"svc__C": [0.1, 1.0, 10.0], "svc__gamma": ["scale", 0.01]}, cv=3)
    grid.fit(X, y)
    sk_grid = GridSearchCV(
        make_pipeline(StandardScaler(), SkSVC()),
        {"svc__C": [0.1, 1.0, 10.0], "svc__gamma": ["scale", 0.01]},
        cv=3,
    ).fit(X, y)
    # one flipped prediction in a fold of ~190 points moves a score by ~0.005
    np.testing.assert_allclose(
        grid.cv_results_["mean_test_score"], sk_grid.cv_results_["mean_test_score"], atol=0.011
    )
    assert grid.best_params_ == sk_grid.best_params_ or abs(grid.best_score_ - sk_grid.best_score_) <= 0.011
    assert grid.score(X, y) >= 0.97


def test_cross_val_with_precomputed_kernel_is_pairwise():
    X, y = _breast_cancer()
    K = X @ X.T
    ours = cross_val_score(SVC(kernel="precomputed", C=0.1), K, y, cv=3)
    sk = cross_val_score(SkSVC(kernel="precomputed", C=0.1), K, y, cv=3)
    # equal here; a flipped boundary point elsewhere would move a fold score by ~0.005
    np.testing.assert_allclose(ours, sk, atol=0.011)
    assert ours.mean() > 0.95


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(C=0.0), "C must be"),
        (dict(C=-1.0), "C must be"),
        (dict(tol=0.0), "tol must be"),
        (dict(max_iter=0), "max_iter"),
        (dict(max_iter=2.5), "max_iter"),
        (dict(kernel="cubic"), "kernel must be"),
        (dict(gamma="large"), "gamma must be"),
        (dict(gamma=-1.0), "gamma must be"),
        (dict(gram_limit_mb=0), "gram_limit_mb"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        SVC(**kwargs).fit(TOY_X, TOY_Y)


def test_bad_data():
    with pytest.raises(ValueError, match="single class"):
        SVC().fit(TOY_X, np.ones(6))
    assert SVC().fit(TOY_X, [0, 0, 1, 1, 2, 2]).classes_.tolist() == [0, 1, 2]  # one-vs-one
    Xnan = TOY_X.copy()
    Xnan[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        SVC().fit(Xnan, TOY_Y)
    Xinf = TOY_X.copy()
    Xinf[1, 1] = np.inf
    with pytest.raises(ValueError, match="X contains infinity"):
        SVC().fit(Xinf, TOY_Y)
    with pytest.raises(ValueError, match="y contains NaN"):
        SVC().fit(TOY_X, [1.0, np.nan, 1.0, 2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="6 samples .* 5 labels"):
        SVC().fit(TOY_X, TOY_Y[:5])
    with pytest.raises(ValueError, match="y should be a 1d array"):
        SVC().fit(TOY_X, np.ones((6, 2)))
    with pytest.raises(ValueError, match="2-D"):
        SVC().fit(TOY_X[:, 0], TOY_Y)
    with pytest.raises(TypeError, match="mutually comparable"):
        SVC().fit(TOY_X, np.array([1, "a", 1, "a", 1, "a"], dtype=object))


def test_bad_precomputed_and_callable():
    with pytest.raises(ValueError, match="square"):
        SVC(kernel="precomputed").fit(TOY_X, TOY_Y)
    K = TOY_X @ TOY_X.T
    Kbad = K.copy()
    Kbad[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        SVC(kernel="precomputed").fit(Kbad, TOY_Y)
    with pytest.raises(ValueError, match="shape"):
        SVC(kernel=lambda A, B: A @ B.T[:, :1]).fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="NaN"):
        SVC(kernel=lambda A, B: np.full((len(A), len(B)), np.nan)).fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="symmetric"):
        SVC(kernel=lambda A, B: A @ B.T + np.arange(len(B))).fit(TOY_X, TOY_Y)
    clf = SVC(kernel="precomputed").fit(K, TOY_Y)
    with pytest.raises(ValueError, match="X has 5 features.* 6 training samples"):
        clf.predict(K[:, :5])


def test_predict_before_fit_and_wrong_features():
    clf = SVC()
    for method in (clf.predict, clf.decision_function):
        with pytest.raises(NotFittedError, match="not fitted"):
            method(TOY_X)
    with pytest.raises(AttributeError):  # NotFittedError is also an AttributeError, as sklearn's
        clf.score(TOY_X, TOY_Y)
    clf.fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="X has 3 features, but SVC is expecting 2 features"):
        clf.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        clf.predict([[np.nan, 0.0]])


@pytest.mark.needs_numba
def test_gram_memory_limit():
    # the limit applies to a callable kernel, whose n x n matrix is computed and held
    X = np.random.default_rng(0).standard_normal((600, 2))
    y = np.where(X[:, 0] > 0, 1, 0)
    lin = lambda A, B: A @ B.T  # noqa: E731
    # 600^2 * 8 bytes = 2.7 MiB
    with pytest.raises(ValueError, match=r"n=600 samples needs 3 MiB"):
        SVC(kernel=lin, gram_limit_mb=1).fit(X, y)
    SVC(kernel=lin, gram_limit_mb=3).fit(X, y)
    # a named kernel computes its rows on demand: no n x n matrix, no limit to reach
    SVC(kernel="linear", gram_limit_mb=1).fit(X, y)


def test_smo_solve_input_errors():
    K = TOY_X @ TOY_X.T
    y = np.array([1.0, 1, 1, -1, -1, -1])
    with pytest.raises(ValueError, match="square"):
        smo_solve(K[:, :5], y)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        smo_solve(K, np.array([1.0, 1, 1, 2, 2, 2]))
    with pytest.raises(ValueError, match="single label"):
        smo_solve(K, np.ones(6))
    with pytest.raises(ValueError, match="5 entries"):
        smo_solve(K, y[:5])
    with pytest.raises(ValueError, match="C must be"):
        smo_solve(K, y, C=0.0)
    Kn = K.copy()
    Kn[2, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        smo_solve(Kn, y)


def test_compiled_rbf_rows_equal_make_kernel():
    # the compiled solver's own RBF rows give the model fitted through a callable
    # ktheory.kernels.rbf_kernel (whose Gram matrix the solver then reads)
    from ktheory.kernels import rbf_kernel

    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 5))
    X[10] = X[20]  # a duplicate pair: curvature 0, clipped to TAU
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, 1, 0)
    # (X has a duplicated pair, so the dual vector is not unique: compare what is)
    a = SVC(kernel="rbf", gamma=0.3, C=3.0).fit(X, y)
    b = SVC(kernel=lambda P, Q: rbf_kernel(P, Q, gamma=0.3), C=3.0).fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    _assert_equivalent_solutions(a, X, b, X, y_pm, rbf_kernel(X, gamma=0.3), 1e-3)


def test_degenerate_data_as_libsvm():
    # all points identical: every curvature is 0 (tau), f = 0 everywhere; ties go to classes_[1]
    X = np.zeros((6, 2))
    y = np.array([0, 1, 0, 1, 0, 1])
    # (the dual vector is far from unique here: any alpha with sum alpha y = 0 in the box
    # is optimal; compare the objective, the decision f = 0 and the tie rule)
    ours = SVC().fit(X, y)
    sk = SkSVC().fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    K = np.ones((6, 6))
    obj_sk = _dual_objective(_full_alpha(sk.dual_coef_, sk.support_, 6), y_pm, K)
    assert ours.objective_ == pytest.approx(obj_sk, rel=1e-9)
    np.testing.assert_allclose(ours.decision_function(X), 0.0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), np.ones(6, dtype=int))
    np.testing.assert_array_equal(sk.predict(X), np.ones(6, dtype=int))
    # two points, one per class
    X2 = np.array([[0.0], [1.0]])
    ours = SVC(kernel="linear", C=10.0).fit(X2, ["a", "b"])
    sk = SkSVC(kernel="linear", C=10.0).fit(X2, ["a", "b"])
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=1e-12)
    np.testing.assert_array_equal(ours.predict([[-1.0], [0.4], [0.6], [2.0]]), sk.predict([[-1.0], [0.4], [0.6], [2.0]]))


def test_constant_diagonal_precomputed_with_duplicates():
    # an RBF Gram matrix (constant diagonal) with duplicated points, given as "precomputed":
    # same model as the named kernel and as libsvm
    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 2))
    X[30:45] = X[:15]
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, 0)
    y[::9] = 1 - y[::9]
    K = sk_rbf(X, X, gamma=0.8)
    # With duplicates the dual vector is not unique: the last bits of the Gram matrix
    # (named vs precomputed, one BLAS vs another) pick different optimal alphas. Compare
    # the objective, the KKT conditions and the decisions, never dual_coef_.
    pre = SVC(kernel="precomputed", C=2.0).fit(K, y)
    named = SVC(kernel="rbf", gamma=0.8, C=2.0).fit(X, y)
    sk = SkSVC(kernel="precomputed", C=2.0).fit(K, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    obj_sk = _dual_objective(_full_alpha(sk.dual_coef_, sk.support_, len(y)), y_pm, K)
    assert pre.objective_ == pytest.approx(obj_sk, rel=1e-6)
    _check_kkt(pre.alpha_, y_pm, K, 2.0, float(pre.intercept_[0]), 1e-3)
    _assert_equivalent_solutions(pre, K, named, X, y_pm, K, 1e-3)
    _assert_equivalent_solutions(pre, K, sk, K, y_pm, K, 1e-3)
