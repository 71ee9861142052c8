"""Errata of chapter 8 (soft margin, the bias, seeds 003 and 004)."""

from __future__ import annotations

import numpy as np

from ktheory.kernels import gaussian_kernel
from ktheory.svm import SVC


def _two_blobs(n_per_class: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The chapter's data: two overlapping Gaussian classes, labels -1 and +1."""
    rng = np.random.default_rng(seed)
    Xn = rng.normal(size=(n_per_class, 2)) + np.array([-shift, 0.0])
    Xp = rng.normal(size=(n_per_class, 2)) + np.array([shift, 0.0])
    return np.vstack([Xn, Xp]), np.r_[-np.ones(n_per_class), np.ones(n_per_class)]


def bias_bounded_sv():
    """Seed 004: b = y_j - sum_i alpha_i y_i K(x_i, x_j) from any support vector.

    On the chapter's Gaussian-kernel solution (cell 18) the seed's form is evaluated on
    every support vector (alpha_j > 0), the corrected form on the free ones only; the
    bounded ones must give b + y_j xi_j instead.
    """
    X, y = _two_blobs(40, 0.8, seed=3)
    C, tol = 1.0, 1e-6
    svc = SVC(C=C, kernel="rbf", gamma=0.5, tol=tol).fit(X, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_.ravel())
    b = float(svc.intercept_[0])
    b_each = y - gaussian_kernel(X, sigma=1.0) @ (alpha * y)  # the formula at every x_j
    xi = np.maximum(0.0, 1.0 - y * svc.decision_function(X))
    sv = alpha > 1e-8 * C
    free = sv & (alpha < C * (1 - 1e-8))
    seed = bool(np.all(np.abs(b_each[sv] - b) <= tol))
    fixed = bool(free.any() and np.all(np.abs(b_each[free] - b) <= tol)
                 and np.allclose(b_each[sv & ~free] - b, y[sv & ~free] * xi[sv & ~free],
                                 atol=1e-6))
    return seed, fixed


def no_free_sv():
    """Seed 003 (7.3.4, step 3): 'choose a component 0 < alpha_j < C' assumed to exist.

    Points 0, 1, 2 with labels -1, +1, +1, linear kernel, C = 1. The seed's recipe needs a
    free component of the optimal alpha; the correction: b is pinned only to [m, M] =
    [-1, 0], every b there is optimal (primal value 3/2), and the solver takes the midpoint.
    """
    X, y, C = np.array([[0.0], [1.0], [2.0]]), np.array([-1.0, 1.0, 1.0]), 1.0
    svc = SVC(C=C, kernel="linear", tol=1e-10).fit(X, y)
    alpha = np.zeros(3)
    alpha[svc.support_] = np.abs(svc.dual_coef_.ravel())
    seed = bool(np.any((alpha > 1e-8) & (alpha < C - 1e-8)))  # a free component exists
    # the KKT interval of the bias: scores -y_t G_t over I_up and I_low
    G = y * (X @ X.T @ (alpha * y)) - 1.0
    score = -y * G
    up = ((y > 0) & (alpha < C - 1e-8)) | ((y < 0) & (alpha > 1e-8))
    low = ((y > 0) & (alpha > 1e-8)) | ((y < 0) & (alpha < C - 1e-8))
    m, M = score[up].max(), score[low].min()
    w = float((alpha * y) @ X.ravel())

    def primal(b: float) -> float:
        return 0.5 * w**2 + C * np.maximum(0.0, 1.0 - y * (w * X.ravel() + b)).sum()

    inside = [primal(b) for b in np.linspace(-1.0, 0.0, 11)]
    outside = [primal(b) for b in (-1.25, 0.25)]
    fixed = bool(np.allclose(alpha, [1.0, 1.0, 0.0], atol=1e-8)
                 and np.allclose([m, M], [-1.0, 0.0], atol=1e-8)
                 and np.allclose(inside, 1.5) and min(outside) > 1.5 + 1e-3
                 and abs(svc.intercept_[0] + 0.5) < 1e-8)
    return seed, fixed


ERRATA = {
    "err-ch08-bias-bounded-sv": bias_bounded_sv,
    "err-ch08-no-free-sv": no_free_sv,
}
