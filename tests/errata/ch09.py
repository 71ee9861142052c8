"""Errata of chapter 9 (support vector regression and multiclass SVMs, seed 004)."""

from __future__ import annotations

import numpy as np

from ktheory.kernels import gaussian_kernel
from ktheory.svm import SVR

RNG = np.random.default_rng(9)
X = RNG.uniform(-2, 2, size=(12, 1))
Y = np.sin(2 * X[:, 0]) + 0.1 * RNG.normal(size=12)
C, EPS = 0.7, 0.2
K = gaussian_kernel(X, sigma=1.0)


def _fit(eps: float) -> SVR:
    return SVR(kernel="precomputed", C=C, epsilon=eps, tol=1e-10).fit(K, Y)


def _primal(beta: np.ndarray, b: float, eps: float) -> float:
    f = K @ beta + b
    return 0.5 * beta @ K @ beta + C * np.maximum(np.abs(f - Y) - eps, 0.0).sum()


def _dual(a: np.ndarray, a_star: np.ndarray, eps: float, with_targets: bool) -> float:
    beta = a_star - a
    lin = Y @ beta if with_targets else beta.sum()
    return -eps * (a + a_star).sum() + lin - 0.5 * beta @ K @ beta


def svr_dual_targets():
    """The SVR dual with sum(alpha* - alpha) where sum y_i (alpha*_i - alpha_i) belongs."""
    m = _fit(EPS)
    a, a_star = m.alpha_, m.alpha_star_
    beta = a_star - a
    p_opt = _primal(beta, float(m.intercept_[0]), EPS)
    # the seed's dual, evaluated on 2000 random feasible points (sum alpha* = sum alpha,
    # box [0, C]) and at the origin: its optimum is 0 (at beta = 0, w = 0)
    rng = np.random.default_rng(1)
    vals = [0.0]
    for _ in range(2000):
        u, v = rng.uniform(0, C, 12), rng.uniform(0, C, 12)
        v *= u.sum() / v.sum()  # equal sums
        if v.max() <= C:
            vals.append(_dual(u, v, EPS, with_targets=False))
    assert len(vals) > 100 and max(vals) <= 1e-12
    seed_opt = max(vals)
    seed = abs(seed_opt - p_opt) < 1e-6 * max(1.0, p_opt)
    fixed = abs(_dual(a, a_star, EPS, with_targets=True) - p_opt) < 1e-6 * max(
        1.0, p_opt
    )
    return bool(seed), bool(fixed and np.abs(beta).max() > 1e-3)


def llw_penalty_sum():
    """The LLW penalty (lambda/2) ||h_j||^2 without the sum over j.

    k = 2: the single term is half the binary SVM's penalty. k = 3: it leaves h_2 - h_3
    unregularized, so the objective does not grow along an unbounded ray of h's."""
    lam = 0.37
    c = RNG.normal(size=12)
    h1 = c @ K @ c  # ||h_1||^2 for h_1 = sum_i c_i k(x_i, .)
    h2 = (-c) @ K @ (-c)  # h_2 = -h_1 (sum-to-zero)
    binary = lam * h1  # the notes' own binary objective: (1/n) hinge + lam ||h||^2
    seed_k2 = np.isclose(lam / 2 * h1, binary)
    fixed_k2 = np.isclose(lam / 2 * (h1 + h2), binary)
    # k = 3 on the 12 points: labels 0, 1, 2; ray h + s (0, d, -d), d = K^-1 v
    y3 = np.arange(12) % 3
    codes = np.full((12, 3), -0.5) + 1.5 * np.eye(3)[y3]
    c3 = RNG.normal(size=(12, 3))
    c3 -= c3.mean(axis=1, keepdims=True)
    d = np.linalg.solve(K, np.select([y3 == 1, y3 == 2], [1.0, -1.0], 0.0))

    def obj(cc, cols):
        F = K @ cc
        loss = ((1 - np.eye(3)[y3]) * np.maximum(F - codes, 0)).sum() / 12
        return loss + lam / 2 * sum(cc[:, j] @ K @ cc[:, j] for j in cols)

    ray = [c3 + s * np.outer(d, [0, 1, -1]) for s in (0.0, 10.0, 1000.0)]
    grows = [obj(ray[-1], cols) > 100 * obj(ray[0], cols) for cols in ([0], [0, 1, 2])]
    return bool(seed_k2 or grows[0]), bool(fixed_k2 and grows[1])


def multiplier_at_c():
    """'alpha_i = C => outside the tube' (false: on or outside) and 'alpha_i and alpha_i*
    cannot both be non-zero' (true for eps > 0, not for eps = 0)."""
    # a multiplier equal to C on the tube: x = (0, 1, 2), y = (1, 0, 1), eps = 1/2, C = 1
    xe, ye, ce, ee = np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.0, 1.0]), 1.0, 0.5
    ke = np.outer(xe, xe)
    be = np.array([0.5, -1.0, 0.5])  # feasible: sum 0, |beta| <= C
    w_be = -ee * np.abs(be).sum() + ye @ be - 0.5 * be @ ke @ be
    fit = SVR(kernel="linear", C=ce, epsilon=ee, tol=1e-12).fit(xe[:, None], ye)
    r = ye - fit.predict(xe[:, None])  # the primal optimum (w = 0, b = 1/2, unique)
    bf = np.zeros(3)
    bf[fit.support_] = fit.dual_coef_.ravel()
    p_opt = ce * np.maximum(np.abs(r) - ee, 0).sum() + 0.5 * bf @ ke @ bf
    assert abs(w_be - p_opt) < 1e-12 and abs(be.sum()) == 0  # so be is dual optimal
    at_c = np.abs(np.abs(be) - ce) < 1e-12
    seed_c = bool(np.all(np.abs(r[at_c]) > ee))  # "at C: outside the tube"
    fixed_c = bool(np.all(np.abs(r[at_c]) >= ee - 1e-12))  # on or outside
    # eps = 0: both multipliers of a point can be non-zero at an optimum
    m0 = _fit(0.0)
    a, a_star = m0.alpha_.copy(), m0.alpha_star_.copy()
    i = int(np.argmax(np.minimum(C - a, C - a_star)))  # room to add delta to both
    dl = 0.5 * min(C - a[i], C - a_star[i])
    a2, a2s = a.copy(), a_star.copy()
    a2[i] += dl
    a2s[i] += dl
    same = abs(_dual(a2, a2s, 0.0, True) - _dual(a, a_star, 0.0, True)) < 1e-12
    seed_0 = not (same and dl > 0 and a2[i] * a2s[i] > 0)  # "never both non-zero"
    # eps > 0: adding delta to both loses 2 eps delta, so an optimum has alpha alpha* = 0
    m = _fit(EPS)
    b, bs = m.alpha_, m.alpha_star_
    loss = _dual(b, bs, EPS, True) - _dual(b + dl, bs + dl, EPS, True)
    fixed_0 = np.isclose(loss, 2 * EPS * dl * 12) and np.all(b * bs < 1e-12)
    return bool(seed_c or seed_0), bool(fixed_c and fixed_0)


ERRATA = {
    "err-ch09-svr-dual-targets": svr_dual_targets,
    "err-ch09-llw-penalty-sum": llw_penalty_sum,
    "err-ch09-multiplier-at-c": multiplier_at_c,
}
