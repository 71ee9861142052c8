"""Errata of chapter 10 (the kernel Fisher discriminant, seeds 000 and 004)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ktheory.fisher import KernelFisherDiscriminant, fisher_matrices
from ktheory.kernels import polynomial_feature_map, polynomial_kernel, rbf_kernel


def _scatter(Phi, y):
    """Between- and within-class scatter of explicit features (two classes)."""
    mu = [Phi[y == c].mean(axis=0) for c in (0, 1)]
    Sb = np.outer(mu[1] - mu[0], mu[1] - mu[0])
    Sw = sum((Phi[y == c] - mu[c]).T @ (Phi[y == c] - mu[c]) for c in (0, 1))
    return Sb, Sw


def _maximisers_in_span(Phi, y, phi_new, seed):
    """Is every maximiser of the Fisher criterion in the span of the phi(x_i)?

    With explicit features Phi (n x D, n < D) the unregularised criterion
    J(w) = w'S_b w / w'S_w w is +inf exactly where w'S_w w = 0 < w'S_b w. The span
    contains such a w* (the class indicator direction, alpha = K^{-1} l_1); w* + w_perp,
    with w_perp orthogonal to the span, is another. Returns (every maximiser in the span,
    some maximiser in the span and the maximisers project a new point differently).
    """
    Sb, Sw = _scatter(Phi, y)
    K = Phi @ Phi.T
    P = Phi.T @ np.linalg.pinv(Phi.T)  # orthogonal projector onto the span
    scale = np.abs(Sw).max()

    def is_maximiser(w):
        return w @ Sw @ w <= 1e-10 * scale * (w @ w) and w @ Sb @ w > 1e-6 * (w @ w)

    def in_span(w):
        return np.linalg.norm(w - P @ w) <= 1e-9 * np.linalg.norm(w)

    w_star = Phi.T @ np.linalg.solve(K, (y == 1).astype(float))
    g = np.random.default_rng(seed).standard_normal(Phi.shape[1])
    w_perp = g - P @ g
    w_two = w_star + w_perp
    assert is_maximiser(w_star) and is_maximiser(w_two)
    seed_form = in_span(w_star) and in_span(w_two)  # every maximiser found is in the span
    moves = abs(phi_new @ w_two - phi_new @ w_star) > 1e-3
    return bool(seed_form), bool(in_span(w_star) and moves)


def representer_weak():
    """Seed 000: the representer theorem with Omega = 0 read as 'every maximiser'."""
    X = np.random.default_rng(0).standard_normal((4, 2))
    Phi = polynomial_feature_map(X, degree=2, coef0=1.0)  # (4, 6)
    new = polynomial_feature_map(np.array([[0.3, -1.2]]), degree=2, coef0=1.0)[0]
    return _maximisers_in_span(Phi, np.array([0, 1, 0, 1]), new, seed=1)


def any_solution_span():
    """Seed 004: 'any solution w lies in the span' (here with the linear kernel, d > n)."""
    g = np.random.default_rng(2)
    X = g.standard_normal((6, 9))
    return _maximisers_in_span(X, np.array([0, 0, 0, 1, 1, 1]), g.standard_normal(9), 3)


def n_identity():
    """Seed 004: N = sum_j K_j (I - I / l_j) K_j' (identity where 11' belongs)."""
    g = np.random.default_rng(4)
    X = g.standard_normal((9, 2))
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2])
    Phi = polynomial_feature_map(X, degree=2, coef0=1.0)
    K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    blocks = [(K[:, y == c], np.sum(y == c)) for c in range(3)]
    N_seed = sum(Kc @ (np.eye(nc) - np.eye(nc) / nc) @ Kc.T for Kc, nc in blocks)
    N_fix = sum(Kc @ (np.eye(nc) - np.ones((nc, nc)) / nc) @ Kc.T for Kc, nc in blocks)
    Sw = sum(
        (Phi[y == c] - Phi[y == c].mean(0)).T @ (Phi[y == c] - Phi[y == c].mean(0))
        for c in range(3)
    )
    seed_ok, fix_ok = True, np.allclose(N_fix, fisher_matrices(K, y)[1], rtol=1e-10)
    for _ in range(5):
        alpha = g.standard_normal(9)
        truth = (Phi.T @ alpha) @ Sw @ (Phi.T @ alpha)  # w' S_w w in feature space
        seed_ok &= bool(np.isclose(alpha @ N_seed @ alpha, truth, rtol=1e-8))
        fix_ok &= bool(np.isclose(alpha @ N_fix @ alpha, truth, rtol=1e-8))
    return bool(seed_ok), bool(fix_ok)


def n_inverse():
    """Seed 004: alpha proportional to N^{-1}(M_1 - M_2), exactly, on integer data."""
    X = [[0, 0], [1, 2], [2, 1], [3, 3], [1, -1], [-2, 1]]
    y = [0, 0, 0, 1, 1, 1]
    n = len(y)
    K = sp.Matrix(n, n, lambda i, j: (1 + X[i][0] * X[j][0] + X[i][1] * X[j][1]) ** 2)
    L = [sp.Matrix([int(v == c) for v in y]) for c in (0, 1)]
    C = sp.eye(n) - sum((Lc * Lc.T / sum(Lc) for Lc in L), sp.zeros(n, n))
    N = K * C * K
    d = K * L[1] / sum(L[1]) - K * L[0] / sum(L[0])
    seed = N.det() != 0  # N^{-1} exists
    # the estimator's mu = 0.1 is relative: the ridge is mu trace(N) / n, exact here
    mu = sp.Rational(1, 10) * N.trace() / n
    N_mu = N + mu * sp.eye(n)
    alpha = np.array(N_mu.LUsolve(d), dtype=float).ravel()
    kfd = KernelFisherDiscriminant(kernel="poly", degree=2, gamma=1.0, coef0=1.0, mu=0.1)
    a_k = kfd.fit(np.array(X, float), np.array(y)).alphas_[:, 0]
    cos = abs(alpha @ a_k) / np.linalg.norm(alpha) / np.linalg.norm(a_k)
    return bool(seed), bool(N_mu.det() != 0 and cos > 1 - 1e-9)


def n_singular():
    """Both seeds: N invertible (LDA's S_w^{-1}); the limit mu -> 0."""
    g = np.random.default_rng(5)
    X = g.standard_normal((30, 2))
    y3 = np.r_[np.zeros(10, int), np.ones(10, int), np.full(10, 2)]
    K = rbf_kernel(X, gamma=5.0)  # well conditioned, full rank
    rank_N = np.linalg.matrix_rank(fisher_matrices(K, y3)[1], hermitian=True)
    seed = rank_N == 30
    # two classes: as mu -> 0, (N + mu I)^{-1} d turns into the null space of N
    y2 = (X[:, 0] > 0).astype(int)
    _, N2 = fisher_matrices(K, y2)
    d = K @ (y2 / y2.sum()) - K @ ((1 - y2) / (1 - y2).sum())
    Q0, _ = np.linalg.qr(np.linalg.solve(K, np.c_[1 - y2, y2].astype(float)))
    P0d = Q0 @ (Q0.T @ d)  # component of d in null(N) = K^{-1} span{l_0, l_1}
    a = np.linalg.solve(N2 + 1e-8 * np.eye(30), d)
    cos = abs(a @ P0d) / np.linalg.norm(a) / np.linalg.norm(P0d)
    h = K @ a  # projections: constant within each class in the limit
    spread = np.ptp(h[y2 == 0]) / abs(h[y2 == 1].mean() - h[y2 == 0].mean())
    fixed = rank_N == 30 - 3 and cos > 1 - 1e-6 and spread < 1e-4
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch10-representer-weak": representer_weak,
    "err-ch10-n-identity": n_identity,
    "err-ch10-any-solution-span": any_solution_span,
    "err-ch10-n-inverse": n_inverse,
    "err-ch10-n-singular": n_singular,
}
