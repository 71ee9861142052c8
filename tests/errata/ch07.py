"""Errata of chapter 7 (the hard-margin SVM, seed 002)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ktheory.kernels import gaussian_kernel, laplacian_kernel
from ktheory.svm import hard_margin_dual_exact

N, D = 3, 2
X = sp.Matrix(N, D, lambda p, j: sp.Symbol(f"x{p + 1}{j + 1}", real=True))
d = sp.symbols("d1:4", real=True)
a = sp.symbols("alpha1:4", real=True)
w = sp.Matrix(sp.symbols("w1:3", real=True))
b = sp.Symbol("b", real=True)
xs = [X.row(p).T for p in range(N)]
J = (w.T * w)[0, 0] / 2 - sum(a[p] * (d[p] * ((w.T * xs[p])[0, 0] + b) - 1) for p in range(N))
DBL = sum(a[p] * a[q] * d[p] * d[q] * (xs[p].T * xs[q])[0, 0] for p in range(N) for q in range(N))
Q = sum(a) - DBL / 2

X_XOR = [[-1, -1], [-1, 1], [1, -1], [1, 1]]
D_XOR = [-1, 1, 1, -1]


def _phi(u):
    return sp.Matrix([1, u[0] ** 2, sp.sqrt(2) * u[0] * u[1], u[1] ** 2, sp.sqrt(2) * u[0], sp.sqrt(2) * u[1]])


def djdb_sign():
    """dJ/db printed as +sum alpha_p d_p."""
    g = sp.diff(J, b)
    return sp.simplify(g - sum(a[p] * d[p] for p in range(N))) == 0, \
        sp.simplify(g + sum(a[p] * d[p] for p in range(N))) == 0


def substituted_lagrangian():
    """The Lagrangian after substituting w*: printed with +sum a d b where +sum a belongs."""
    seed = DBL / 2 - DBL - sum(a[p] * d[p] * b for p in range(N)) + sum(a[p] * d[p] * b for p in range(N))
    w_star = sum((a[p] * d[p] * xs[p] for p in range(N)), sp.zeros(D, 1))
    on_w = {w[j]: w_star[j] for j in range(D)}
    on_c = {a[2]: sp.solve(sum(a[p] * d[p] for p in range(N)), a[2])[0]}
    truth = sp.simplify(J.subs(on_w).subs(on_c))
    fixed = DBL / 2 - DBL - sum(a[p] * d[p] * b for p in range(N)) + sum(a)
    return sp.simplify(seed.subs(on_c) - truth) == 0, sp.simplify(fixed.subs(on_c) - truth) == 0


def stationary_dual():
    """'Set dQ/dalpha = 0' as the way to solve the dual: fails on XOR + (2, 2)."""
    X5, d5 = X_XOR + [[2, 2]], D_XOR + [-1]
    sol = hard_margin_dual_exact(X5, d5, kernel="poly", degree=2, gamma=1, coef0=1)
    dv = sp.Matrix(d5)
    Qm = sp.Matrix(5, 5, lambda p, q: dv[p] * dv[q] * sol.gram[p, q])
    stat = Qm.LUsolve(sp.ones(5, 1))
    seed = all(v >= 0 for v in stat) and (dv.T * stat)[0, 0] == 0 and tuple(stat) == sol.alpha
    # the KKT conditions: dual feasibility, the equality, complementary slackness
    g = [sum(sol.alpha[q] * d5[q] * sol.gram[q, p] for q in range(5)) + sol.b for p in range(5)]
    kkt = all(al >= 0 for al in sol.alpha) and sum(al * dd for al, dd in zip(sol.alpha, d5)) == 0 and all(
        d5[p] * g[p] >= 1 and sol.alpha[p] * (d5[p] * g[p] - 1) == 0 for p in range(5))
    return bool(seed), bool(kkt)


def kernel_definition():
    """K(x^p, x) = sum_j phi_j(x^p)^T phi_j(x^p): the second factor must be phi_j(x)."""
    x1, x2, z1, z2 = sp.symbols("x1 x2 z1 z2", real=True)
    k = (1 + x1 * z1 + x2 * z2) ** 2
    px, pz = _phi((x1, x2)), _phi((z1, z2))
    seed = sp.expand((px.T * px)[0, 0] - k) == 0
    fixed = sp.expand((px.T * pz)[0, 0] - k) == 0
    return seed, fixed


def unsquared_gaussian():
    """exp(-||x - x^p|| / (2 sigma^2)) printed as the Gaussian kernel."""
    Xr = np.random.default_rng(3).normal(size=(15, 2))
    s = 0.7
    Dm = np.sqrt(((Xr[:, None] - Xr[None]) ** 2).sum(-1))
    printed = np.exp(-Dm / (2 * s**2))
    return bool(np.allclose(printed, gaussian_kernel(Xr, sigma=s))), bool(
        np.allclose(printed, laplacian_kernel(Xr, sigma=2 * s**2)))


def xor_system():
    """The printed XOR stationarity equations (first and fourth rows wrong)."""
    al = sp.symbols("alpha1:5")
    seed = [9 * al[0] - al[1] - al[2] - al[3] - 1, -al[0] + 9 * al[1] + al[2] - al[3] - 1,
            -al[0] + al[1] + 9 * al[2] - al[3] - 1, al[0] - al[1] - al[1] + 9 * al[3] - 1]
    K = sp.Matrix(4, 4, lambda p, q: (1 + X_XOR[p][0] * X_XOR[q][0] + X_XOR[p][1] * X_XOR[q][1]) ** 2)
    Qx = sp.Matrix(4, 4, lambda p, q: D_XOR[p] * D_XOR[q] * K[p, q])
    fixed = [sum(Qx[p, q] * al[q] for q in range(4)) - 1 for p in range(4)]
    truth = hard_margin_dual_exact(X_XOR, D_XOR, kernel="poly", degree=2, gamma=1, coef0=1).alpha
    at = dict(zip(al, truth))
    return all(e.subs(at) == 0 for e in seed), all(e.subs(at) == 0 for e in fixed)


def xor_w0():
    """w0 printed with five components, [0, 0, -1/sqrt 2, 0, 0]."""
    sol = hard_margin_dual_exact(X_XOR, D_XOR, kernel="poly", degree=2, gamma=1, coef0=1)
    w0 = sum((sol.alpha[p] * D_XOR[p] * _phi(X_XOR[p]) for p in range(4)), sp.zeros(6, 1))
    printed = [0, 0, -1 / sp.sqrt(2), 0, 0]
    return list(w0) == printed, list(w0) == [0, 0, -1 / sp.sqrt(2), 0, 0, 0]


def sum_out_of_kernel():
    """b0 = 1/d^s - (sum_p alpha_p d^p) K(x^s, x^p): the sum cannot leave the kernel."""
    sol = hard_margin_dual_exact(X_XOR, D_XOR, kernel="poly", degree=2, gamma=1, coef0=1)
    K = sol.gram
    sad = sum(al * dd for al, dd in zip(sol.alpha, D_XOR))
    # the printed formula, for every support vector s (any p: the sum is 0 anyway)
    printed = [sp.Integer(1) / D_XOR[s] - sad * K[s, 0] for s in sol.support]
    fixed = [D_XOR[s] - sum(sol.alpha[p] * D_XOR[p] * K[p, s] for p in range(4)) for s in sol.support]
    return all(v == sol.b for v in printed), all(v == sol.b for v in fixed)


def two_sv_definitions():
    """Section 1: support vectors = points on the margin; section 2.2: points with alpha > 0."""
    X3, d3 = [[0, 0], [2, 0], [2, 2]], [-1, 1, 1]
    sol = hard_margin_dual_exact(X3, d3)
    on_margin = {p for p in range(3) if d3[p] * sol.decision_function([X3[p]])[0] == 1}
    positive = {p for p in range(3) if sol.alpha[p] > 0}
    return on_margin == positive, positive <= on_margin and set(sol.support) == positive


def minimise_saddle():
    """'Minimise J' for the Lagrangian: J is minimised over (w, b), maximised over alpha >= 0."""
    X4, d4 = [[0, 0], [2, 0], [2, 2], [3, 0]], [-1, 1, 1, 1]
    sol = hard_margin_dual_exact(X4, d4)
    xv = [sp.Matrix(p) for p in X4]
    w_s = sum((al * dd * x for al, dd, x in zip(sol.alpha, d4, xv)), sp.zeros(2, 1))

    def Jv(wv, bv, av):
        return (wv.T * wv)[0, 0] / 2 - sum(a_ * (dd * ((wv.T * x)[0, 0] + bv) - 1)
                                           for a_, dd, x in zip(av, d4, xv))

    p_opt = (w_s.T * w_s)[0, 0] / 2
    a_big = list(sol.alpha)
    a_big[3] = sp.Integer(10) ** 6  # (3, 0) lies strictly beyond the margin
    # the seed: J is minimal at the optimum, over alpha >= 0 as well
    seed = Jv(w_s, sol.b, a_big) >= p_opt
    rng = np.random.default_rng(7)
    rnd = lambda m: [sp.Rational(int(v), 7) for v in rng.integers(-30, 30, size=m)]
    saddle = Jv(w_s, sol.b, sol.alpha) == p_opt
    for _ in range(20):
        wv, bv = sp.Matrix(rnd(2)), rnd(1)[0]
        av = [abs(v) for v in rnd(4)]
        saddle &= Jv(w_s, sol.b, av) <= p_opt <= Jv(wv, bv, sol.alpha)
    return bool(seed), bool(saddle and p_opt == sp.Rational(1, 2))


ERRATA = {
    "err-ch07-djdb-sign": djdb_sign,
    "err-ch07-substituted-lagrangian": substituted_lagrangian,
    "err-ch07-stationary-dual": stationary_dual,
    "err-ch07-kernel-definition": kernel_definition,
    "err-ch07-unsquared-gaussian": unsquared_gaussian,
    "err-ch07-xor-system": xor_system,
    "err-ch07-xor-w0": xor_w0,
    "err-ch07-sum-out-of-kernel": sum_out_of_kernel,
    "err-ch07-two-sv-definitions": two_sv_definitions,
    "err-ch07-minimise-saddle": minimise_saddle,
}
