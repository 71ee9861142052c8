"""Errata of chapter 11 (the central SVM, seed 004, last section)."""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import minimize, minimize_scalar

from ktheory.csvm import CentralSVC, shortcut_weights
from ktheory.svm import SVC


def _centre_weights(y):
    return np.where(y > 0, 1 / np.sum(y > 0), 1 / np.sum(y < 0))


def _sample5():
    """The five-dimensional sample of Chapter 11 (shortcut section)."""
    g = np.random.default_rng(1)
    A = g.normal(size=(5, 5)) * 0.5
    e1 = np.r_[1.0, 0, 0, 0, 0]
    X = np.vstack(
        [
            g.normal(size=(30, 5)) @ A + e1,
            g.normal(size=(30, 5)) * np.linspace(0.4, 1.4, 5) - e1,
        ]
    )
    return X, np.r_[np.ones(30), -np.ones(30)]


def _dual_value(K, y, C, eps, beta_bounds):
    """max eps sum(alpha) + beta - 1/2 c'Qc, c = alpha + beta l, by SLSQP."""
    n = len(y)
    l, Q = _centre_weights(y), np.outer(y, y) * K

    def neg(z):
        c = z[:n] + z[n] * l
        return -(eps * z[:n].sum() + z[n] - 0.5 * c @ Q @ c)

    def grad(z):
        Qc = Q @ (z[:n] + z[n] * l)
        return -np.r_[eps - Qc, 1 - l @ Qc]

    res = minimize(
        neg,
        np.zeros(n + 1),
        jac=grad,
        method="SLSQP",
        bounds=[(0, C)] * n + [beta_bounds],
        constraints=[
            {"type": "eq", "fun": lambda z: y @ z[:n], "jac": lambda z: np.r_[y, 0.0]}
        ],
        options={"ftol": 1e-15, "maxiter": 3000},
    )
    # trusted only at a feasible point where SLSQP converged (0) or could not improve
    # at float64 accuracy (8, "positive directional derivative"): a failed solve must
    # not make the seed's form "fail" for the wrong reason
    assert res.status in (0, 8), res.message
    a, beta = res.x[:n], res.x[n]
    assert abs(y @ a) <= 1e-8 * max(1.0, a.sum()), "SLSQP's point violates y'a = 0"
    assert a.min() >= -1e-8 and a.max() <= C + 1e-8, "SLSQP's point leaves the box"
    assert beta_bounds[0] is None or beta >= beta_bounds[0] - 1e-8, "beta below bound"
    return -res.fun


def beta_sign():
    """The seed's dual with beta >= 0 vs the dual with beta free, against the primal."""
    g = np.random.default_rng(7)
    X = np.vstack(
        [
            g.normal(size=(6, 3)) + [1.0, 0.5, 0.0],
            g.normal(size=(6, 3)) * 1.2 - [1.0, 0.0, 0.0],
        ]
    )
    y = np.r_[np.ones(6), -np.ones(6)]
    C, eps = 1.0, 0.5
    clf = CentralSVC(C=C, epsilon=eps).fit(X, y)
    assert clf.beta_ < 0
    P = clf.primal_objective_
    seed = np.isclose(_dual_value(X @ X.T, y, C, eps, (0, None)), P, rtol=1e-6)
    fixed = np.isclose(_dual_value(X @ X.T, y, C, eps, (None, None)), P, rtol=1e-6)
    return bool(seed), bool(fixed)


def eps_zero_mindist():
    """'eps = 0 gives the minimum-distance classifier' (the bisector of the centres)."""
    # one dimension, exactly: class +1 = {1, 10}, class -1 = {0}; w is forced by <w, m> = 1
    t = sp.Symbol("t", real=True)  # classify +1 iff x > t
    pos, neg = [1, 10], [0]
    m = sp.Rational(sum(pos), len(pos)) - sp.Rational(sum(neg), len(neg))
    w = 1 / m
    conds = [w * (p - t) >= 0 for p in pos] + [-w * (q - t) >= 0 for q in neg]
    feasible = sp.Intersection(
        *[sp.solve_univariate_inequality(c, t, relational=False) for c in conds]
    )  # every feasible t has the same objective w^2 / 2: the optimal set
    bisector = (sp.Rational(sum(pos), len(pos)) + sp.Rational(sum(neg), len(neg))) / 2
    # the plane: the bisector of the centres is not even feasible at eps = 0
    Xc = np.array([[10, 0], [0, 1], [0, -1], [1, -1]])
    yc = np.array([1, 1, -1, -1])
    Xr, Yr = sp.Matrix(Xc), list(map(int, yc))
    mr = sum(
        (sp.Rational(1, 2) * Yr[i] * Xr.row(i).T for i in range(4)), sp.zeros(2, 1)
    )
    xp = (Xr.row(0) + Xr.row(1)).T / 2
    xm = (Xr.row(2) + Xr.row(3)).T / 2
    w_md = mr / mr.dot(mr)
    b_md = -w_md.dot(xp + xm) / 2
    md_feasible = all(Yr[i] * (Xr.row(i).dot(w_md) + b_md) >= 0 for i in range(4))
    seed = bisector in feasible and md_feasible
    # the exact solution: KKT of min |w|^2/2, <w, m> = 1, y_i(<w, x_i> + b) >= 0
    w_ex, b_ex = (
        sp.Matrix([sp.Rational(4, 21), sp.Rational(2, 21)]),
        sp.Rational(-2, 21),
    )
    marg = [Yr[i] * (Xr.row(i).dot(w_ex) + b_ex) for i in range(4)]
    active = [i for i in range(4) if marg[i] == 0]
    beta = sp.Symbol("beta")
    lam = sp.symbols(f"lam0:{len(active)}")
    eqs = list(
        w_ex
        - beta * mr
        - sum(
            (lam[a] * Yr[i] * Xr.row(i).T for a, i in enumerate(active)),
            sp.zeros(2, 1),
        )
    ) + [sum(lam[a] * Yr[i] for a, i in enumerate(active))]
    sol = sp.solve(eqs, [beta, *lam], dict=True)
    kkt = (
        w_ex.dot(mr) == 1
        and all(v >= 0 for v in marg)
        and len(sol) == 1
        and all(sol[0][lv] >= 0 for lv in lam)
    )
    # small eps > 0 on a sample the class-mean direction separates: m / |m|^2
    g = np.random.default_rng(0)
    Xs = np.vstack(
        [g.normal(size=(10, 2)) * 0.3 + [2, 0], g.normal(size=(10, 2)) * 0.3]
    )
    ys = np.r_[np.ones(10), -np.ones(10)]
    ms = (_centre_weights(ys) * ys) @ Xs
    small = CentralSVC(C=np.inf, epsilon=1e-3).fit(Xs, ys)
    fixed = (
        feasible == sp.Interval(0, 1)
        and kkt
        and np.allclose(small.coef_[0], ms / (ms @ ms), rtol=1e-8)
    )
    return bool(seed), bool(fixed)


def shortcut():
    """w = (1 - lam) w_SVM + lam (x+ - x-) as a way to obtain the CSVM optimum."""
    X, y = _sample5()
    C, eps = 1.0, 0.5
    m = (_centre_weights(y) * y) @ X
    opt = CentralSVC(C=C, epsilon=eps).fit(X, y)
    P = opt.primal_objective_
    svc = SVC(C=C / eps, kernel="linear", tol=1e-8).fit(X, y)
    w_svm = svc.dual_coef_[0] @ X[svc.support_]

    # exact: the rescaled mixtures are the line m / |m|^2 + t u (u the unit part of w_SVM
    # orthogonal to m) of span(w_SVM, m); the objective minimized over b is convex in t
    u = w_svm - (w_svm @ m) / (m @ m) * m
    u = u / np.linalg.norm(u)

    def phi(t):
        w = m / (m @ m) + t * u
        b = y * eps - X @ w  # the slack is piecewise linear in b: best at a breakpoint
        slack = np.maximum(0, eps - y[:, None] * ((X @ w)[:, None] + b[None, :]))
        return 0.5 * w @ w + C * slack.sum(axis=0).min()

    T = 1.0
    while phi(-T) < phi(0.0) or phi(T) < phi(0.0):  # convex: the minimum is in [-T, T]
        T *= 2
    r = minimize_scalar(
        phi, bounds=(-T, T), method="bounded", options={"xatol": 1e-10}
    )
    best = r.fun
    assert best <= min(phi(r.x - 1e-6), phi(r.x + 1e-6)) + 1e-12 * best  # the minimum
    w_best = m / (m @ m) + r.x * u
    (a, c), *_ = np.linalg.lstsq(np.c_[w_svm, m], w_best, rcond=None)
    assert a + c > 0  # a positive multiple of the mixture with lam = c / (a + c)
    lam = c / (a + c)
    w_p, b_p = shortcut_weights(X, y, lam, C=C, epsilon=eps)  # the package agrees
    p_pkg = 0.5 * w_p @ w_p + C * np.maximum(0, eps - y * (X @ w_p + b_p)).sum()
    assert abs(p_pkg - best) <= 1e-6 * P
    seed = np.isclose(best, P, rtol=1e-6)  # some lam reaches the optimum
    own = (opt.alpha_ * y) @ X + opt.beta_ * m  # with the CSVM's own multipliers
    fixed = np.allclose(opt.coef_[0], own, rtol=1e-9, atol=1e-12) and best > P
    return bool(seed), bool(fixed)


def centre_distances():
    """d+- written with absolute values vs the signed distances, for the central margin."""
    g = np.random.default_rng(2)
    X = g.normal(size=(12, 3))
    y = np.r_[np.ones(5), -np.ones(7)]
    xp, xm = X[y > 0].mean(0), X[y < 0].mean(0)
    w = g.normal(size=3)
    b = -(w @ xp) - 0.5  # puts the positive centre on the wrong side
    nw = np.linalg.norm(w)
    central = np.sum(_centre_weights(y) * y * (X @ w + b)) / nw  # the central margin
    assert (w @ xp + b) < 0
    seed = np.isclose(abs(w @ xp + b) / nw + abs(w @ xm + b) / nw, central)
    fixed = np.isclose((w @ xp + b) / nw - (w @ xm + b) / nw, central, rtol=1e-12)
    return bool(seed), bool(fixed)


def _sample3(seed, n):
    g = np.random.default_rng(seed)
    X = np.vstack(
        [
            g.normal(size=(n, 3)) + [1.0, 0.5, 0.0],
            g.normal(size=(n, 3)) * 1.2 - [1.0, 0.0, 0.0],
        ]
    )
    return X, np.r_[np.ones(n), -np.ones(n)]


def slack_strict():
    """Slacks xi_i > 0 (the seed) vs xi_i >= 0: is the soft-CSVM minimum attained?"""
    X, y = _sample3(7, 6)
    C, eps = 1.0, 0.5
    clf = CentralSVC(C=C, epsilon=eps).fit(X, y)
    assert clf.duality_gap_ <= 1e-8  # a certified optimum
    w, b = clf.coef_[0], clf.intercept_[0]
    marg = y * (X @ w + b)
    free = (clf.alpha_ > 1e-9) & (clf.alpha_ < C - 1e-9)
    assert free.any()  # w and b unique, so the optimal slacks are forced
    xi = np.maximum(0.0, eps - marg)
    P = 0.5 * w @ w + C * xi.sum()
    # the seed's form: the minimum over xi > 0 is attained iff the forced slacks are > 0
    seed = bool(np.all(xi > 0))
    delta = 1e-9
    approached = np.isclose(
        0.5 * w @ w + C * (xi + delta).sum() - P, C * len(y) * delta, rtol=1e-3
    )
    fixed = (
        bool(np.any(xi == 0))
        and np.isclose(P, clf.primal_objective_, rtol=1e-9)
        and bool(approached)
    )
    return seed, bool(fixed)


def eps_wlog():
    """'Without loss of generality' eps: does the CSVM depend on eps only through scale?"""
    from ktheory.csvm import max_feasible_epsilon

    g = np.random.default_rng(3)
    X = np.vstack(
        [
            g.normal(size=(10, 3)) * 0.6 + [1.5, 0.5, 0.0],
            g.normal(size=(10, 3)) * 0.6 - [1.5, 0.0, 0.0],
        ]
    )
    y = np.r_[np.ones(10), -np.ones(10)]
    e_max = max_feasible_epsilon(X @ X.T, y)
    assert 0 < e_max
    w_lo = CentralSVC(C=np.inf, epsilon=0.2 * e_max).fit(X, y).coef_[0]
    w_hi = CentralSVC(C=np.inf, epsilon=0.9 * e_max).fit(X, y).coef_[0]
    cosine = w_lo @ w_hi / np.linalg.norm(w_lo) / np.linalg.norm(w_hi)
    seed = cosine > 1 - 1e-9  # the same hyperplane direction for every eps
    # the SVM's margin 1 is a scale: (2 w1, 2 b1) with multipliers 2 alpha satisfies the
    # KKT conditions of the hard SVM with margin 2 (all margins >= 2, = 2 where alpha > 0)
    svc = SVC(C=1e8, kernel="linear", tol=1e-10).fit(X, y)
    w1, b1 = svc.dual_coef_[0] @ X[svc.support_], svc.intercept_[0]
    marg2 = y * (X @ (2 * w1) + 2 * b1)
    svm_scales = marg2.min() >= 2 - 1e-6 and np.allclose(
        marg2[svc.support_], 2, atol=1e-6
    )
    try:
        CentralSVC(C=np.inf, epsilon=1.01 * e_max).fit(X, y)
        refused = False
    except ValueError:
        refused = True
    fixed = cosine < 0.9999 and svm_scales and e_max <= 0.5
    return bool(seed), bool(fixed and refused)


ERRATA = {
    "err-ch11-beta-sign": beta_sign,
    "err-ch11-eps-zero-mindist": eps_zero_mindist,
    "err-ch11-shortcut": shortcut,
    "err-ch11-centre-distances": centre_distances,
    "err-ch11-slack-strict": slack_strict,
    "err-ch11-eps-wlog": eps_wlog,
}
