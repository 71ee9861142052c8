"""Face steps where the compiled SMO stalls (ktheory.svm._face and KernelSVMBase._solve_with_faces).

A stalled SMO hands its point to face steps and resumes warm. What must hold: the answer
is the same optimum (the dual objective to what the tolerance allows, the decisions away
from the boundary), certified from the returned point alone (the maximal KKT violation
recomputed in numpy from ``alpha_`` and the Gram matrix, and the primal-dual gap of the
``w`` and ``b`` it gives), and it is reached by far fewer steps on degenerate faces.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

import ktheory.svm._kernel_svm as ks
from ktheory.svm import SVC
from ktheory.svm._face import face_steps


def _degenerate(n=300, seed=1):
    """Overlapping classes in 2-D: with a linear kernel Q has rank 2, and at a large C
    SMO crawls along the face's zero-curvature directions."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _certify(clf, X, y, C, tol):
    """The KKT violation from alpha_ (libsvm's m - M) and the relative primal-dual gap."""
    s = np.where(y == clf.classes_[1], 1.0, -1.0)
    a = np.zeros(len(y))
    a[clf.support_] = np.abs(clf.dual_coef_[0])
    K = X @ X.T
    G = s * (K @ (s * a)) - 1.0
    v = -s * G
    up = np.where(s > 0, a < C, a > 0)
    low = np.where(s > 0, a > 0, a < C)
    viol = v[up].max() - v[low].min()
    w = (s * a) @ X
    f = clf.decision_function(X)                      # the estimator's own decision values
    P = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - s * f).sum()
    D = a.sum() - 0.5 * (s * a) @ K @ (s * a)
    return viol, (P - D) / P, D


@pytest.mark.needs_numba
def test_face_steps_solve_a_crawling_problem_to_the_same_optimum(monkeypatch):
    X, y = _degenerate()
    C, tol = 1e3, 1e-3
    with_faces = SVC(kernel="linear", C=C, tol=tol, solver="compiled").fit(X, y)
    monkeypatch.setattr(ks, "FACE_WINDOW", 10**12)           # SMO alone
    smo_only = SVC(kernel="linear", C=C, tol=tol, solver="compiled").fit(X, y)
    assert with_faces.solver_stats_["face_rounds"] >= 1
    assert smo_only.solver_stats_["face_rounds"] == 0
    assert int(with_faces.n_iter_[0]) < int(smo_only.n_iter_[0])
    for clf in (with_faces, smo_only):
        viol, gap, _ = _certify(clf, X, y, C, tol)
        assert viol <= tol * (1 + 1e-6)
        assert gap <= 1e-3
    # the same optimum: the dual objective to the tolerance, the decisions off the boundary
    assert with_faces.objective_ == pytest.approx(smo_only.objective_, rel=1e-6)
    fa, fb = with_faces.decision_function(X), smo_only.decision_function(X)
    clear = np.abs(fb) > 10 * tol
    np.testing.assert_array_equal(np.sign(fa[clear]), np.sign(fb[clear]))


@pytest.mark.needs_numba
def test_raw_breast_cancer_linear_c100_is_certified_by_face_steps():
    # 4e8 SMO steps (38 s) before; libsvm stops at a primal objective ten times larger
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    clf = SVC(kernel="linear", C=100.0, tol=1e-3, solver="compiled").fit(X, y)
    assert clf.solver_stats_["face_rounds"] >= 1
    assert int(clf.n_iter_[0]) < 2e7
    viol, gap, D = _certify(clf, X, y, 100.0, 1e-3)
    assert viol <= 1e-3 * (1 + 1e-6)
    assert gap <= 1e-4
    assert D == pytest.approx(2892.09, rel=1e-5)


@pytest.mark.needs_numba
def test_a_warm_start_at_the_optimum_takes_no_step_and_from_elsewhere_the_same_optimum():
    from ktheory.svm import _fast

    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0, 1.0, -1.0)
    K = X @ X.T
    C = 2.0
    cold = _fast.fast_smo(0, X, y, C, 1e-6, 10**7, shrinking=False)
    a = np.clip(cold.alpha, 0.0, C)
    a[a >= C * (1 - 1e-12)] = C

    def state(a):
        G = y * (K @ (y * a)) - 1.0
        up = a >= C
        return G, y * (K[:, up] @ (y[up] * C))

    again = _fast.fast_smo(0, X, y, C, 1e-6, 10**7, warm=(a, *state(a)), shrinking=False)
    assert again.n_iter <= 2 and again.converged
    np.testing.assert_allclose(again.alpha, a, atol=1e-9)
    # from a feasible point that is not optimal, some multipliers at C (so that G_bar,
    # which shrinking rebuilds the gradient from, is not zero): y'a = 0, a_i in [0, C]
    b = np.where(y > 0, 0.5, 0.0)
    b[np.flatnonzero(y > 0)[:3]] = C
    b[y < 0] = b[y > 0].sum() / np.sum(y < 0)
    assert abs(y @ b) < 1e-12 and b.max() <= C and np.sum(b == C) == 3
    warm = _fast.fast_smo(0, X, y, C, 1e-6, 10**7, warm=(b, *state(b)))
    assert warm.converged
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    with pytest.raises(ValueError, match="warm start is for the classification layout"):
        _fast.fast_smo(0, X, np.r_[y, -y], C, 1e-6, 10, p=np.ones(160), base=np.r_[np.arange(80),
                       np.arange(80)], warm=(np.zeros(160), np.ones(160), np.zeros(160)))


@pytest.mark.needs_numba
def test_a_stall_window_stops_a_crawling_run_and_none_does_not():
    from ktheory.svm import _fast

    X, y = _degenerate(200, seed=2)
    s = np.where(y > 0, 1.0, -1.0)
    stalled = _fast.fast_smo(0, X, s, 1e4, 1e-3, 10**8, stall_window=2000)
    assert stalled.stats.get("stalled") and not stalled.converged
    assert stalled.n_iter < 10**6
    full = _fast.fast_smo(0, X, s, 1e4, 1e-3, 10**8)
    assert "stalled" not in full.stats and full.converged


def test_face_steps_reach_the_minimiser_of_a_singular_face():
    # 12 free multipliers, Q of rank 3, the box wide open: the face's minimiser under
    # y'a = y'a0 against SLSQP's
    rng = np.random.default_rng(4)
    A = rng.normal(size=(12, 3))
    y = np.where(rng.random(12) < 0.5, 1.0, -1.0)
    Q = (y[:, None] * y[None, :]) * (A @ A.T)
    p = -np.ones(12)
    C = 50.0
    a0 = np.full(12, 1.0)
    a = a0.copy()
    G = Q @ a + p
    face_steps(lambda F: Q[:, F], y, C, a, G, 1500)
    assert np.all((a >= 0) & (a <= C))
    assert abs(y @ a - y @ a0) < 1e-9
    obj = lambda z: 0.5 * z @ Q @ z + p @ z     # noqa: E731
    ref = minimize(obj, a0, jac=lambda z: Q @ z + p, bounds=[(0, C)] * 12, method="SLSQP",
                   constraints=[{"type": "eq", "fun": lambda z: y @ z - y @ a0,
                                 "jac": lambda z: y}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert obj(a) < obj(a0)
    # it stopped at the minimiser of its last face: the gradient, less its component along
    # y (the multiplier of y'a = const), vanishes on the free multipliers
    F = np.flatnonzero((a > 0) & (a < C))
    g = (Q @ a + p)[F]
    assert np.linalg.norm(g - y[F] * (y[F] @ g) / F.size) <= 1e-8 * np.linalg.norm(Q @ a0 + p)
    # a face step goes to a bound along a zero-curvature direction and stops on the smaller
    # face, or to the minimiser: never above the optimum, and never past it
    assert obj(a) >= ref.fun - 1e-8 * abs(ref.fun)
