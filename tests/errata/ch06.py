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


def infinite_loss():
    """Seed 000: with a loss valued in [0, inf], every minimiser of (1) has the form (2).

    Read with a strictly increasing Omega (Omega(t) = t^2). The hard-margin loss on data with
    one input listed twice with opposite labels is +inf for every function, so every function
    minimises F, among them one orthogonal to the span. With the contradictory copy removed,
    min F is finite and every function with a component orthogonal to the span does worse
    than its projection."""
    Xd = np.vstack([X, X[:1]])  # x_1 listed twice ...
    yd = np.array([1.0, -1.0, 1.0, -1.0])  # ... with opposite labels
    Pd = polynomial_feature_map(Xd, degree=2, coef0=1.0)

    def F(w, P, y):
        margins = y * (P @ w)
        return (0.0 if np.all(margins >= 1) else np.inf) + w @ w

    v = null_space(Pd)[:, 0]  # f_v is orthogonal to every k(x_i, .)
    rng = np.random.default_rng(0)
    samples = [rng.standard_normal(6) * 10.0 ** rng.uniform(-2, 3) for _ in range(2000)]
    # F = inf on every sample (and, by the argument above, everywhere): inf F = inf
    assert all(F(w, Pd, yd) == np.inf for w in samples)
    inf_F = min(F(w, Pd, yd) for w in samples)
    seed = not (F(v, Pd, yd) == inf_F and _dist_to_span_of(Pd, v) > 0.5)
    # corrected form: without the copy, a feasible w (min F < inf); removing its orthogonal
    # component keeps the margins and strictly lowers F
    y3 = yd[:3]
    w_feas = np.linalg.lstsq(PHI, 2.0 * y3, rcond=None)[0]  # margins 2: feasible
    P_span = PHI.T @ np.linalg.pinv(PHI.T)
    w_out = w_feas + v
    fixed = (F(w_feas, PHI, y3) < np.inf and F(w_out, PHI, y3) < np.inf
             and F(P_span @ w_out, PHI, y3) < F(w_out, PHI, y3))
    return bool(seed), bool(fixed)


def _dist_to_span_of(P: np.ndarray, w: np.ndarray) -> float:
    return float(np.linalg.norm(w - P.T @ np.linalg.pinv(P.T) @ w))


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
    "err-ch06-infinite-loss": infinite_loss,
    "err-ch06-no-hypothesis": no_hypothesis,
}
