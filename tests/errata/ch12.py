"""Errata of chapter 12 (kernel alignment, seed 001 section 2).

Each function evaluates the seed's printed form and the corrected form on the same inputs
and returns ``(seed_form_holds, corrected_form_holds)``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ktheory.alignment import (
    align_weights,
    alignf_weights,
    center_kernel,
    cka,
    ideal_kernel,
)
from ktheory.kernels import is_psd


def _running_example(seed: int = 19, m: int = 30):
    """The running example of the chapter: K1 = yy^T + N, K2 = N + Z/2, K3 = F + 0.3 yy^T."""
    g = np.random.default_rng(seed)
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)

    def F(r):
        B = g.standard_normal((m, r))
        return B @ B.T

    N, Z = F(3), F(2)
    return [np.outer(y, y) + N, N + 0.5 * Z, F(5) + 0.3 * np.outer(y, y)], y


def _a_M(Ks, y):
    KY = ideal_kernel(y)
    Kcs = [center_kernel(K) for K in Ks]
    a = np.array([np.vdot(Kc, KY) for Kc in Kcs])
    M = np.array([[np.vdot(A, B) for B in Kcs] for A in Kcs])
    return a, M


def _rho(W, a, M, nY):
    """Centered alignment of K_mu for each row mu of W, from a and M."""
    W = np.atleast_2d(W)
    return (W @ a) / (np.sqrt(np.einsum("ij,jk,ik->i", W, M, W)) * nY)


def cka_bounds():
    """'0 <= rho <= 1' after the Pearson form; true for centered alignment of PSD kernels only."""
    E1, E2 = sp.zeros(3, 3), sp.zeros(3, 3)
    E1[0, 0] = 1
    E2[1, 1] = 1
    a, b = list(E1), list(E2)
    ma, mb = sp.Rational(sum(a), 9), sp.Rational(sum(b), 9)
    cov = sum((p - ma) * (q - mb) for p, q in zip(a, b))
    rho_P = sp.simplify(cov / sp.sqrt(sum((p - ma) ** 2 for p in a) * sum((q - mb) ** 2 for q in b)))
    seed = bool(0 <= rho_P <= 1)  # the printed bound, on two PSD kernels
    # corrected: CKA of PSD pairs lies in [0, 1] ...
    g = np.random.default_rng(0)
    vals = []
    for _ in range(100):
        m = int(g.integers(3, 10))
        F1, F2 = g.standard_normal((m, int(g.integers(1, m)))), g.standard_normal((m, int(g.integers(1, m))))
        vals.append(cka(F1 @ F1.T, F2 @ F2.T))
    E1n, E2n = np.array(E1, dtype=float), np.array(E2, dtype=float)
    vals.append(cka(E1n, E2n))
    in_unit = min(vals) >= 0 and max(vals) <= 1
    # ... the population form E[K_c K'_c] = ||E[phi_c psi_c^T]||_HS^2 >= 0 (empirical law of 30 points)
    Phi, Psi = g.standard_normal((30, 4)), g.standard_normal((30, 3))
    Phi, Psi = Phi - Phi.mean(0), Psi - Psi.mean(0)
    e_prod = float(np.mean((Phi @ Phi.T) * (Psi @ Psi.T)))
    pop = bool(np.isclose(e_prod, np.sum((Phi.T @ Psi / 30) ** 2), rtol=1e-10) and e_prod >= 0)
    # ... and only for PSD kernels: an indefinite pair reaches -1
    D = np.diag([1.0, -1.0, 0.0])
    needs_psd = bool(np.isclose(cka(D, -D), -1.0, atol=1e-14))
    return seed, bool(in_unit and pop and needs_psd and rho_P == sp.Rational(-1, 8))


def align_constraint():
    """Eq. 16: sum_k mu_k^q <= Lambda (odd q admits unbounded objectives); eq. 17 normalized."""
    Ks, y = _running_example()
    a, _ = _a_M(Ks, y)
    q = 3.0
    value = float(np.sum(a ** (q / (q - 1))) ** ((q - 1) / q))  # Hoelder: max with |mu_k|^q
    i, j = int(np.argmax(a)), int(np.argmin(a))
    mu_seed = 10.0 * (np.eye(3)[i] - np.eye(3)[j])  # sum mu_k^3 = 0 <= 1: feasible as printed
    assert np.sum(mu_seed**3) <= 1.0
    seed = bool(mu_seed @ a <= value)  # the printed problem's maximum is the stated solution
    mu = align_weights(Ks, y, q=q)
    cand = np.random.default_rng(1).standard_normal((20_000, 3))
    cand /= (np.abs(cand) ** q).sum(axis=1, keepdims=True) ** (1 / q)
    closed = a ** (1 / (q - 1)) / np.sum(a ** (q / (q - 1))) ** (1 / q)  # eq. 17 normalized
    fixed = (np.isclose(np.sum(np.abs(mu) ** q), 1.0) and np.allclose(mu, closed, rtol=1e-12)
             and np.isclose(mu @ a, value, rtol=1e-12) and (cand @ a).max() <= value * (1 + 1e-12))
    return seed, bool(fixed)


def m_inverse():
    """'M and M^{-1} are PSD': with K3 = K1 + K2, M is singular (M^{-1} does not exist)."""
    Ks, y = _running_example()
    Ks_sum = [Ks[0], Ks[1], Ks[0] + Ks[1]]
    _, M = _a_M(Ks_sum, y)
    ev = np.linalg.eigvalsh(M)
    invertible = bool(ev.min() > 1e-9 * ev.max())
    seed = invertible and bool(np.all(np.linalg.eigvalsh(np.linalg.inv(M)) >= 0))
    # corrected: M is PSD, singular with null vector (1, 1, -1); the alignment is unique
    z = np.array([1.0, 1.0, -1.0])
    KY = ideal_kernel(y)
    w = alignf_weights(Ks_sum, y, nonnegative=False)
    w12 = alignf_weights(Ks[:2], y, nonnegative=False)
    comb = lambda w_, Ks_: sum(c * K for c, K in zip(w_, Ks_))
    fixed = (ev.min() >= -1e-9 * ev.max() and np.linalg.matrix_rank(M) == 2
             and np.allclose(M @ z, 0, atol=1e-9 * np.abs(M).max())
             and np.isclose(cka(comb(w + 0.7 * z, Ks_sum), KY), cka(comb(w12, Ks[:2]), KY), rtol=1e-10))
    # with independent kernels M^{-1} exists and is positive definite
    _, M3 = _a_M(Ks, y)
    fixed = fixed and bool(np.linalg.eigvalsh(np.linalg.inv(M3)).min() > 0)
    return seed, bool(fixed)


def squared_alignment():
    """Eq. 21: the square of the alignment 'equivalently'; on the linear set -mu* also maximizes it."""
    Ks, y = _running_example()
    a, M = _a_M(Ks, y)
    nY = np.linalg.norm(center_kernel(ideal_kernel(y)))
    mu = np.linalg.solve(M, a)
    mu /= np.linalg.norm(mu)
    r_plus, r_minus = _rho(mu, a, M, nY)[0], _rho(-mu, a, M, nY)[0]
    # the seed: every maximizer of the square maximizes the alignment (-mu* is one, M invertible)
    assert np.isclose(r_plus**2, r_minus**2, rtol=1e-12)
    seed = bool(np.isclose(r_minus, r_plus))
    # corrected: on M_+ with PSD kernels the argmax is the same; on M_lin -mu* minimizes;
    # with a non-PSD base kernel the square's argmax on M_+ has negative alignment
    grid = np.abs(np.random.default_rng(3).standard_normal((100_000, 3)))
    grid /= np.linalg.norm(grid, axis=1, keepdims=True)
    rp = _rho(grid, a, M, nY)
    same = np.argmax(rp) == np.argmax(rp**2)
    sphere = np.random.default_rng(4).standard_normal((100_000, 3))
    minimum = _rho(sphere, a, M, nY).min() >= r_minus - 1e-12 and r_plus > 0
    Ks_neg = [Ks[2], -Ks[0]]
    a_n, M_n = _a_M(Ks_neg, y)
    th = np.linspace(0, np.pi / 2, 20_001)
    rn = _rho(np.c_[np.cos(th), np.sin(th)], a_n, M_n, nY)
    nonpsd = a_n[1] < 0 and rn[np.argmax(rn**2)] < 0 < rn.max()
    return seed, bool(same and minimum and nonpsd)


def alignf_convex():
    """Eq. 22 for the convex set: M^{-1}a/||M^{-1}a|| can be infeasible; the QP (NNLS) is right."""
    Ks, y = _running_example()
    a, M = _a_M(Ks, y)
    nY = np.linalg.norm(center_kernel(ideal_kernel(y)))
    mu_seed = np.linalg.solve(M, a)
    mu_seed /= np.linalg.norm(mu_seed)
    K_seed = sum(w * K for w, K in zip(mu_seed, Ks))
    seed = bool(np.all(mu_seed >= 0) and is_psd(K_seed))  # a point of the convex set, a kernel
    mu = alignf_weights(Ks, y, nonnegative=True)
    grid = np.abs(np.random.default_rng(5).standard_normal((50_000, 3)))
    best_grid = _rho(grid, a, M, nY).max()
    clip = np.clip(mu_seed, 0, None)
    r_mu = _rho(mu, a, M, nY)[0]
    fixed = (np.all(mu >= 0) and is_psd(sum(w * K for w, K in zip(mu, Ks)))
             and r_mu >= best_grid - 1e-12 and _rho(clip, a, M, nY)[0] < r_mu - 1e-3)
    return seed, bool(fixed)


ERRATA = {
    "err-ch12-cka-bounds": cka_bounds,
    "err-ch12-align-constraint": align_constraint,
    "err-ch12-m-inverse": m_inverse,
    "err-ch12-squared-alignment": squared_alignment,
    "err-ch12-alignf-convex": alignf_convex,
}
