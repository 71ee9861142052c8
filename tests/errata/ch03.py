"""Errata of chapter 3 (Hilbert spaces and the RKHS, seeds 001 and 003)."""

from __future__ import annotations

import numpy as np

from ktheory.kernels import gaussian_kernel, polynomial_kernel
from ktheory.rkhs import KernelExpansion


def _rank(K: np.ndarray) -> int:
    """Numerical rank with the chapter's tolerance 1e3 * n * eps * ||K||."""
    lam = np.linalg.eigvalsh(K)
    tol = 1e3 * len(K) * np.finfo(float).eps * np.abs(lam).max()
    return int(np.sum(lam > tol))


def finite_feature_space():
    """Seed 001, (1): the feature space is R^N for a finite N."""
    ranks = {}
    for n in (5, 10, 20):
        pts = np.linspace(-2, 2, n)[:, None]
        ranks[n] = _rank(gaussian_kernel(pts, sigma=0.5))
    # the seed: the Gaussian features lie in some R^N with N < 20, so any 20 of them are
    # dependent and their Gram matrix is singular
    seed = ranks[20] < 20
    # the correction: n distinct points give n independent features (rank n), and a
    # finite N exists for special kernels: (1 + xy)^2 has N = 3 (rank 3 at 5 points, and
    # a nonzero coefficient vector of RKHS norm 0)
    c5 = np.array([[-2.0], [-0.5], [0.3], [1.1], [2.4]])
    K_poly = polynomial_kernel(c5, degree=2, gamma=1.0, coef0=1.0)
    phi = np.hstack([np.ones((5, 1)), np.sqrt(2) * c5, c5**2])  # k(x, y) = phi(x).phi(y)
    null = np.linalg.svd(phi.T)[2][-1]  # phi^T a = 0: distinct centers, f = 0
    f_null = KernelExpansion(lambda X, Y: polynomial_kernel(X, Y, degree=2), c5, null)
    fixed = (all(r == n for n, r in ranks.items()) and _rank(K_poly) == 3
             and f_null.squared_norm() < 1e-12 and np.abs(null).min() > 0.05)
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch03-finite-feature-space": finite_feature_space,
}
