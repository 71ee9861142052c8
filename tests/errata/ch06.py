"""Errata of chapter 6 (the representer theorem, seeds 000 and 001)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import null_space

from ktheory.kernels import polynomial_feature_map, polynomial_kernel

X = np.array([[0.0, 1.0], [1.0, -1.0], [2.0, 0.5]])
Y = np.array([1.0, -1.0, 0.5])
PHI = polynomial_feature_map(X, degree=2, coef0=1.0)  # 3 x 6: (x.z + 1)^2
K = PHI @ PHI.T


def _dist_to_span(w: np.ndarray) -> float:
    P = PHI.T @ np.linalg.pinv(PHI.T)  # projection onto span{phi(x_i)}
    return float(np.linalg.norm(w - P @ w))


def nondecreasing_omega():
    """Seed 000: every minimiser lies in the span for 'monotonically increasing' Omega (Omega = 0)."""
    assert np.allclose(K, polynomial_kernel(X, degree=2, coef0=1.0))
    w_s = PHI.T @ np.linalg.solve(K, Y)  # interpolates: loss 0
    v = null_space(PHI)[:, 0]  # Phi v = 0, v != 0
    cands = [w_s, w_s + 2 * v]
    minimisers = [w for w in cands if np.sum((PHI @ w - Y) ** 2) < 1e-20]
    seed = len(minimisers) == 2 and all(_dist_to_span(w) < 1e-9 for w in minimisers)
    # strictly increasing Omega(s) = lam * s: the unique minimiser is in the span
    lam = 0.3
    w_ridge = np.linalg.solve(PHI.T @ PHI + lam * np.eye(6), PHI.T @ Y)
    obj = lambda w: np.sum((PHI @ w - Y) ** 2) + lam * w @ w  # noqa: E731
    fixed = _dist_to_span(w_ridge) < 1e-9 and obj(w_ridge) < obj(w_ridge + 0.1 * v)
    return bool(seed), bool(fixed)


def fisher_omega_zero():
    """Seed 000: 'the' Fisher solution in the span, by the theorem with Omega = 0."""
    yc = np.array([0, 0, 1])
    m0, m1 = PHI[yc == 0].mean(0), PHI[yc == 1].mean(0)
    Sw = sum(np.outer(p - (m0 if c == 0 else m1), p - (m0 if c == 0 else m1)) for p, c in zip(PHI, yc))
    J = lambda w: (w @ (m1 - m0)) ** 2 / (w @ (Sw + 1e-3 * PHI.T @ PHI) @ w)  # noqa: E731
    w_span = PHI.T @ np.array([0.2, -0.7, 1.0])
    v = null_space(PHI)[:, 0]
    # the seed: the span form is "the" solution, so leaving the span must cost criterion;
    # but J cannot see v: w_span + v, outside the span, scores exactly as well
    seed = J(w_span + v) < J(w_span) * (1 - 1e-9)
    fixed = abs(J(w_span + v) - J(w_span)) < 1e-9 * abs(J(w_span)) and _dist_to_span(w_span + v) > 0.5
    return bool(seed), bool(fixed)


def no_hypothesis():
    """Seed 001: the solution of min L(f(x_1)) + Omega(||f||^2) is in the span (no hypothesis)."""
    # one point with k(x1, x1) = 1 in R^2 features: phi(x1) = e1; h = e2 is orthogonal
    e1, e2 = np.eye(2)
    L = lambda f: (f @ e1) ** 2  # f(x1) = <f, phi(x1)>  # noqa: E731
    omega_sq = lambda s: (s - 1) ** 2  # not monotone  # noqa: E731
    J = lambda f: L(f) + omega_sq(f @ f)  # noqa: E731
    cs = np.linspace(-2, 2, 40001)
    best_span = min(J(c * e1) for c in cs)
    seed = best_span <= J(e2) + 1e-12  # a minimiser in the span?
    # Omega(s) = s, strictly increasing: the minimiser over R^2 (0) lies in the span
    J2 = lambda f: L(f) + f @ f  # noqa: E731
    fixed = abs(best_span - 0.75) < 1e-6 and J(e2) == 0 and min(J2(c * e1) for c in cs) <= J2(e2)
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch06-nondecreasing-omega": nondecreasing_omega,
    "err-ch06-fisher-omega-zero": fisher_omega_zero,
    "err-ch06-no-hypothesis": no_hypothesis,
}
