"""The SVC intercept where it is not unique, the same on every machine.

With no multiplier strictly inside (0, C) every intercept in an interval is optimal, and
libsvm takes its midpoint. A step's rounding can leave a multiplier at ``2e-16`` or
``C - 1e-16`` on one machine and exactly at the bound on another (as the BLAS rounds the
kernel); counted as free it made the intercept one end of the interval there (chapter 11's
study changed with OpenBLAS's kernels). ``ktheory`` sets such a multiplier to its bound.
The oracle: for the fitted w (unique for the linear kernel), the optimal intercepts
minimise ``sum_i max(0, 1 - y_i (w x_i + b))``, a piecewise linear function whose
minimisers form an interval between two of its breakpoints.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktheory.svm import SVC, smo_solve


def _correlated_draw(npc: int, draw: int):
    S = np.array([[1.0, 0.9], [0.9, 1.0]])
    L = np.linalg.cholesky(S)
    g = np.random.default_rng(1000 * npc + draw)
    X = np.vstack([g.normal(size=(npc, 2)) @ L.T + [1.0, 0.0],
                   g.normal(size=(npc, 2)) @ L.T - [1.0, 0.0]])
    return X, np.r_[np.ones(npc), -np.ones(npc)]


def _optimal_interval(g: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Minimisers of h(b) = sum max(0, 1 - g_i - y_i b), with g_i = y_i w x_i."""
    hinge = lambda b: float(np.maximum(0.0, 1.0 - g - y * b).sum())  # noqa: E731
    breaks = np.sort((1.0 - g) * y)
    vals = np.array([hinge(b) for b in breaks])
    best = vals.min()
    on = breaks[vals <= best + 1e-12 * max(1.0, best)]
    return float(on.min()), float(on.max()), best


@pytest.mark.parametrize("npc, draw", [(5, 25), (30, 16)])
def test_intercept_is_the_midpoint_where_it_is_not_unique(npc, draw):
    X, y = _correlated_draw(npc, draw)
    clf = SVC(C=1.0, kernel="linear", tol=1e-8).fit(X, y)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    w = clf.dual_coef_[0] @ X[clf.support_]
    b = float(clf.intercept_[0])
    lo, hi, best = _optimal_interval(y_pm * (X @ w), y_pm)
    assert hi - lo > 1e-3, "precondition: an interval of optimal intercepts"
    assert b == pytest.approx((lo + hi) / 2, abs=1e-9)
    # no multiplier within rounding of a bound is left in place
    a = clf.alpha_
    assert np.all((a == 0.0) | (a == 1.0) | ((a > 1e-12) & (a < 1 - 1e-12)))


def test_reference_solver_snaps_the_same_way():
    X, y = _correlated_draw(5, 25)
    y_pm = np.where(y > 0, 1.0, -1.0)
    res = smo_solve(X @ X.T, y_pm, C=1.0, tol=1e-8)
    a = res.alpha
    assert np.all((a == 0.0) | (a == 1.0) | ((a > 1e-12) & (a < 1 - 1e-12)))
    w = (a * y_pm) @ X
    lo, hi, _ = _optimal_interval(y_pm * (X @ w), y_pm)
    if hi - lo > 1e-3:
        assert res.intercept == pytest.approx((lo + hi) / 2, abs=1e-9)
    else:
        assert lo - 1e-9 <= res.intercept <= hi + 1e-9
