"""Errata of chapter 9 (support vector regression and multiclass SVMs, seed 004)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from ktheory.kernels import gaussian_kernel
from ktheory.svm import SVC, SVR

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


def _dual_opt(lin: np.ndarray) -> float:
    """max -eps sum(a + a*) + lin @ (a* - a) - (a* - a) K (a* - a) / 2 over the box [0, C]
    and sum(a*) = sum(a), by a generic solver (SLSQP); lin = Y is the correct dual."""
    n = len(lin)

    def neg(v):
        beta = v[n:] - v[:n]
        return EPS * v.sum() - lin @ beta + 0.5 * beta @ K @ beta

    def grad(v):
        g = K @ (v[n:] - v[:n]) - lin
        return np.r_[EPS - g, EPS + g]

    eq = {"type": "eq", "fun": lambda v: v[n:].sum() - v[:n].sum(),
          "jac": lambda v: np.r_[-np.ones(n), np.ones(n)]}
    res = minimize(neg, np.zeros(2 * n), jac=grad, method="SLSQP", bounds=[(0, C)] * (2 * n),
                   constraints=[eq], options={"ftol": 1e-14, "maxiter": 2000})
    assert res.status in (0, 8), res.message
    assert abs(eq["fun"](res.x)) < 1e-8 and res.x.min() > -1e-8 and res.x.max() < C + 1e-8
    return float(-res.fun)


def svr_dual_targets():
    """The SVR dual with sum(alpha* - alpha) where sum y_i (alpha*_i - alpha_i) belongs.

    Each dual is maximised by the same generic solver and compared with the primal value
    at an SVR fit (an upper bound on the primal optimum; every dual value is a lower
    bound, so equality certifies both). The seed's dual has optimum 0 (at beta = 0)."""
    m = _fit(EPS)
    beta = m.alpha_star_ - m.alpha_
    p_opt = _primal(beta, float(m.intercept_[0]), EPS)

    def matches(d: float) -> bool:
        return abs(d - p_opt) < 1e-6 * max(1.0, p_opt)

    seed_opt, fixed_opt = _dual_opt(np.ones(12)), _dual_opt(Y)
    return bool(matches(seed_opt)), bool(matches(fixed_opt) and np.abs(beta).max() > 1e-3)


def _k2_llw_h(lam: float, n_terms: int, yb: np.ndarray) -> np.ndarray:
    """Minimize the k = 2 LLW objective (1/n) sum_i L(y_i).(f(x_i) - Y_i)_+ + (lam/2) times
    ||h_1||^2 (n_terms = 1, the seed) or ||h_1||^2 + ||h_2||^2 (n_terms = 2), over
    f = (f_1, -f_1), f_1 = K c + b, by SLSQP with slacks; returns h_1 = K c at the points.
    Class 1 (yb = +1) has code (1, -1), its wrong component f_2 = -f_1; class 2 the reverse."""
    n = len(yb)
    # slack_i >= f_wrong(x_i) + 1 with f_wrong = -yb_i f_1(x_i); v = (c, b, xi)
    A = np.hstack([yb[:, None] * K, yb[:, None], np.eye(n)])  # A v - 1 >= 0

    def obj(v):
        c = v[:n]
        return v[n + 1:].sum() / n + lam / 2 * n_terms * c @ K @ c  # ||h_2|| = ||h_1||

    def grad(v):
        return np.r_[lam * n_terms * K @ v[:n], 0.0, np.full(n, 1 / n)]

    res = minimize(obj, np.zeros(2 * n + 1), jac=grad, method="SLSQP",
                   bounds=[(None, None)] * (n + 1) + [(0, None)] * n,
                   constraints=[{"type": "ineq", "fun": lambda v: A @ v - 1,
                                 "jac": lambda v: A}],
                   options={"ftol": 1e-14, "maxiter": 3000})
    assert res.status in (0, 8), res.message
    assert (A @ res.x - 1).min() > -1e-8 and res.x[n + 1:].min() > -1e-8
    return K @ res.x[:n]


def llw_penalty_sum():
    """The LLW penalty (lambda/2) ||h_j||^2 without the sum over j.

    k = 2: with the sum, the minimizer's h_1 is the binary SVM's h at C = 1/(2 n lambda)
    (the notes' own binary objective, (1/n) hinge + lambda ||h||^2); with the single term it
    is not (it is the SVM at C = 1/(n lambda)). k = 3: the single term leaves h_2 - h_3
    unregularized, so the objective does not grow along an unbounded ray of h's."""
    lam = 0.05
    yb = np.where(Y > np.median(Y), 1.0, -1.0)
    svc = SVC(kernel="precomputed", C=1 / (2 * 12 * lam), tol=1e-10).fit(K, yb)
    h_svc = svc.decision_function(K) - svc.intercept_[0]  # positive class: +1
    gaps = [np.abs(_k2_llw_h(lam, t, yb) - h_svc).max() for t in (1, 2)]
    seed_k2, fixed_k2 = gaps[0] < 1e-4, gaps[1] < 1e-4
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
    # eps = 0: both multipliers of a point can be non-zero at an optimum. Raise both at the
    # point with most room; the result is certified optimal by the primal value at the fit
    m0 = _fit(0.0)
    a, a_star = m0.alpha_, m0.alpha_star_
    p0 = _primal(a_star - a, float(m0.intercept_[0]), 0.0)
    i = int(np.argmax(np.minimum(C - a, C - a_star)))
    dl = 0.5 * min(C - a[i], C - a_star[i])
    a2, a2s = a.copy(), a_star.copy()
    a2[i] += dl
    a2s[i] += dl
    feasible = min(a2.min(), a2s.min()) >= 0 and max(a2.max(), a2s.max()) <= C
    both_opt = (feasible and abs(_dual(a2, a2s, 0.0, True) - p0) < 1e-9 * max(1.0, p0)
                and a2[i] * a2s[i] > 1e-6)
    seed_0 = not both_opt  # "never both non-zero"
    # eps > 0: the fit (certified: primal = dual) has alpha_i alpha*_i = 0, and the same
    # perturbation (at the point with most room) is feasible but no longer optimal
    m = _fit(EPS)
    b, bs = m.alpha_, m.alpha_star_
    pe = _primal(bs - b, float(m.intercept_[0]), EPS)
    cert = abs(_dual(b, bs, EPS, True) - pe) < 1e-9 * max(1.0, pe)
    j = int(np.argmax(np.minimum(C - b, C - bs)))
    de = 0.5 * min(C - b[j], C - bs[j])
    b2, b2s = b.copy(), bs.copy()
    b2[j] += de
    b2s[j] += de
    fixed_0 = (cert and np.all(b * bs == 0) and de > 1e-3
               and pe - _dual(b2, b2s, EPS, True) > 1e-6)
    return bool(seed_c or seed_0), bool(fixed_c and fixed_0)


def hk_gloss():
    """H_K glossed as 'like sum_i alpha_i y_i K(x_i, x_j)': with a training point x_j as the
    kernel's second argument this is a number (h at x_j), not a function of x; an element of
    H_K is h = sum_i alpha_i y_i K(x_i, .), evaluated at a new x as sum_i alpha_i y_i K(x_i, x)."""
    yc = np.where(Y > np.median(Y), 1, -1)
    svc = SVC(kernel="rbf", gamma=0.5, C=1.0, tol=1e-10).fit(X, yc)  # gamma 0.5: sigma 1
    ay = np.zeros(12)
    ay[svc.support_] = svc.dual_coef_.ravel()  # alpha_i y_i
    Xt = np.linspace(-2, 2, 9)[:, None]
    h_true = svc.decision_function(Xt) - svc.intercept_[0]

    def h_at(second):  # x -> sum_i alpha_i y_i K(x_i, second(x)), at the test points
        return gaussian_kernel(X, second, sigma=1.0).T @ ay

    # the gloss: the training point x_j in the second slot, whatever x is
    seed = any(np.allclose(h_at(np.repeat(X[j:j + 1], len(Xt), 0)), h_true, atol=1e-8)
               for j in range(12))
    fixed = np.allclose(h_at(Xt), h_true, atol=1e-8)  # the free argument x there
    return bool(seed), bool(fixed and np.ptp(h_true) > 0.1)


ERRATA = {
    "err-ch09-svr-dual-targets": svr_dual_targets,
    "err-ch09-llw-penalty-sum": llw_penalty_sum,
    "err-ch09-multiplier-at-c": multiplier_at_c,
    "err-ch09-hk-gloss": hk_gloss,
}
