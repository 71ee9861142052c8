"""Errata of chapter 4 (positive definite kernels, seeds 003 and 004).

Each function evaluates the seed's form and the corrected form on the same inputs and
returns ``(seed_form_holds, corrected_form_holds)``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ktheory.kernels import is_psd, linear_kernel, polynomial_kernel, sigmoid_kernel

_x, _z = sp.symbols("x z", real=True)


def _double_integral(kern: sp.Expr, phi: sp.Expr, lo, hi) -> sp.Expr:
    """int int kern(x, z) phi(x) phi(z) dx dz over [lo, hi]^2, exactly."""
    inner = sp.integrate(kern * phi * phi.subs(_x, _z), (_x, lo, hi))
    return sp.integrate(inner, (_z, lo, hi))


def mercer_strict():
    """Seed 004: '> 0 for every phi != 0' is necessary for K to be a kernel."""
    cases = [(_x * _z, sp.Integer(1)), ((1 + _x * _z) ** 2, sp.legendre(3, _x))]
    vals = [_double_integral(k, phi, -1, 1) for k, phi in cases]
    # both functions are kernels (their Gram matrices on [-1, 1] are PSD) ...
    t = np.linspace(-1, 1, 9)[:, None]
    kernels = is_psd(linear_kernel(t)) and is_psd(
        polynomial_kernel(t, degree=2, gamma=1.0, coef0=1.0))
    # ... and phi = 1, P_3 are not identically zero
    nonzero = all(sp.simplify(phi) != 0 for _, phi in cases)
    seed = kernels and nonzero and all(bool(v > 0) for v in vals)
    fixed = kernels and nonzero and all(bool(v >= 0) for v in vals)
    return bool(seed), bool(fixed)


def mercer_hypotheses():
    """Seed 004: the integral condition on R, with no compactness: it need not exist."""
    xp = sp.symbols("xp", positive=True)
    f = 1 / (1 + xp)                                  # f(x) = 1 / (1 + |x|), by symmetry
    in_l2 = 2 * sp.integrate(f**2, (xp, 0, sp.oo))    # = 2: f is in L^2(R)
    # K = 1: the double integral of K f f is (int f)^2
    on_r = (2 * sp.integrate(f, (xp, 0, sp.oo))) ** 2
    on_compact = (2 * sp.integrate(f, (xp, 0, 1))) ** 2     # X = [-1, 1]
    seed = bool(in_l2.is_finite) and bool(on_r.is_finite) and bool(on_r >= 0)
    fixed = bool(in_l2.is_finite) and bool(on_compact.is_finite) and bool(on_compact >= 0)
    return seed, fixed


def _bump_integral(kernel, points, coefs, delta, n_nodes=40):
    """int int k f f for f = sum_i c_i 1[x_i - delta, x_i + delta] / (2 delta)."""
    g, w = np.polynomial.legendre.leggauss(n_nodes)
    xs = (points[:, None] + delta * g[None, :]).ravel()[:, None]
    wq = (coefs[:, None] * w[None, :] / 2.0).ravel()
    return float(wq @ kernel(xs, xs) @ wq)


def mercer_relaxed():
    """Seed 004: the finite-sum condition is a relaxation of (differs from) Mercer's."""
    # (1 + xz)^2 on [-1, 1] with f = e^x: the integral equals a Gram quadratic form
    exact = _double_integral((1 + _x * _z) ** 2, sp.exp(_x), -1, 1)
    nodes, weights = np.polynomial.legendre.leggauss(20)
    wf = weights * np.exp(nodes)
    K_poly = polynomial_kernel(nodes[:, None], degree=2, gamma=1.0, coef0=1.0)
    riemann = bool(np.isclose(wf @ K_poly @ wf, float(exact), rtol=1e-12, atol=0))
    poly = (is_psd(K_poly), bool(exact >= 0))         # (finite-sum, integral) verdicts
    # the sigmoid at scikit-learn's defaults on [0, 3]: points 2 and 1/2
    pts = np.array([2.0, 0.5])
    K2 = sigmoid_kernel(pts[:, None])
    lam, U = np.linalg.eigh(K2)
    c = U[:, 0]
    bumps = [_bump_integral(sigmoid_kernel, pts, c, d) for d in (0.1, 1e-4)]
    sig = (is_psd(K2), bumps[0] >= 0 and bumps[1] >= 0)
    converges = bool(abs(bumps[1] - lam[0]) < 1e-6)
    seed = poly[0] != poly[1] or sig[0] != sig[1]     # the two conditions disagree
    fixed = poly[0] == poly[1] and sig[0] == sig[1] and riemann and converges
    return bool(seed), bool(fixed)


def sigmoid_every_parameter():
    """Seed 004 lists tanh(gamma x.z + c) among the kernels: it is one for no (gamma, c)."""
    verdicts = []
    for gamma in (1e-3, 0.1, 1.0, 5.0):
        for coef0 in (-1.0, 0.0, 1.0, 3.0):
            # z = 1 and x = s z with s gamma + c >= 20, where tanh rounds to 1
            s = (20.0 - coef0) / gamma + 1.0
            K = sigmoid_kernel(np.array([[1.0], [s]]), gamma=gamma, coef0=coef0)
            verdicts.append(is_psd(K))
    # the exact counterexample at scikit-learn's defaults (gamma = 1, c = 1; 2 and 1/2)
    det = sp.tanh(5) * sp.tanh(sp.Rational(5, 4)) - sp.tanh(2) ** 2
    K_def = sigmoid_kernel(np.array([[2.0], [0.5]]))
    verdicts.append(is_psd(K_def) and not bool(det.is_negative))
    seed = all(verdicts)                              # "a kernel": PSD on every input
    fixed = not any(verdicts)                         # refuted on every input
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch04-mercer-strict": mercer_strict,
    "err-ch04-mercer-hypotheses": mercer_hypotheses,
    "err-ch04-mercer-relaxed": mercer_relaxed,
    "err-ch04-sigmoid-every-parameter": sigmoid_every_parameter,
}
