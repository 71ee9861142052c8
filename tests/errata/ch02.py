"""Errata of chapter 2 (kernels and the kernel trick)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from ktheory.kernels import (
    gaussian_kernel,
    is_psd,
    laplacian_kernel,
    sigmoid_kernel,
    subsequence_kernel,
)


def _on_a_line(Z: np.ndarray) -> bool:
    """RMS orthogonal distance of the points Z from their best-fitting line is ~0.

    Total least squares: the best line passes through the centroid, and the smallest
    singular value of the centred points over sqrt(m) is the RMS distance from it.
    """
    return bool(np.linalg.svd(Z - Z.mean(0), compute_uv=False)[-1] / np.sqrt(len(Z)) < 1e-9)


def ellipse_line():
    """Seed 003: 'the ellipse becomes a line' under z = (x1^2, x2^2)."""
    t = np.linspace(0, 2 * np.pi, 200)
    base = np.c_[2 * np.cos(t), np.sin(t)]
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    rotated = base @ np.array([[c, -s], [s, c]]).T
    shifted = base + [1.0, 0.5]
    seed = all(_on_a_line(E**2) for E in (base, rotated, shifted))  # "the ellipse" = any ellipse
    fixed = _on_a_line(base**2) and not _on_a_line(rotated**2) and not _on_a_line(shifted**2)
    return seed, fixed


def _count_monomials(n: int, p: int) -> int:
    return sum(1 for k in itertools.product(range(p + 1), repeat=n) if sum(k) <= p)


def quadratic_dimension():
    """Seed 004: N = n(n+3)/2 coordinates for a quadratic discriminant."""
    ns = range(1, 7)
    seed = all(n * (n + 3) // 2 == _count_monomials(n, 2) for n in ns)
    fixed = all(math.comb(n + p, p) == _count_monomials(n, p) for n in ns for p in range(1, 5))
    return seed, fixed


def unsquared_gaussian():
    """Seed 002: exp(-||x - z|| / (2 sigma^2)) listed as the Gaussian kernel."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    sigma = 0.8
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    seed_formula = np.exp(-D / (2 * sigma**2))
    seed = np.allclose(seed_formula, gaussian_kernel(X, sigma=sigma))
    fixed = np.allclose(seed_formula, laplacian_kernel(X, sigma=2 * sigma**2))
    return seed, fixed


def sigmoid_kernel_psd():
    """Seeds 002/004: tanh(gamma x.z + c) listed as a (positive definite) kernel."""
    X = np.array([[1.0], [10.0]])
    K = sigmoid_kernel(X, gamma=1.0, coef0=1.0)
    seed = is_psd(K)
    det = sp.N(sp.tanh(2) * sp.tanh(101) - sp.tanh(11) ** 2, 30)
    fixed = bool(det < 0) and np.allclose(K, np.tanh(X @ X.T + 1.0))
    return seed, fixed


def _ssk_brute(s: str, t: str, n: int, lam):
    """Seed 003 (15): sum over pairs of index sequences with s(i) = t(j) of lam^(l(i) + l(j))."""
    total = 0
    for i in itertools.combinations(range(len(s)), n):
        for j in itertools.combinations(range(len(t)), n):
            if all(s[a] == t[b] for a, b in zip(i, j)):
                total += lam ** ((i[-1] - i[0] + 1) + (j[-1] - j[0] + 1))
    return sp.expand(total)


def _ssk_features(s: str, n: int, lam) -> dict:
    """Seed 003 (14): [phi_n(s)]_u = sum over i with s(i) = u of lam^l(i), l(i) = i_|u| - i_1 + 1."""
    phi: dict = {}
    for i in itertools.combinations(range(len(s)), n):
        u = "".join(s[a] for a in i)
        phi[u] = phi.get(u, 0) + lam ** (i[-1] - i[0] + 1)
    return phi


def ssk_cosine():
    """Seed 003: k_n(s, t) of (15) 'gives the cosine similarity' of the feature vectors."""
    lam = sp.Rational(1, 2)
    words = ["cat", "car", "cart", "act"]
    feats = {w: _ssk_features(w, 2, lam) for w in words}

    def inner(s, t):
        return sum(v * feats[t].get(u, 0) for u, v in feats[s].items())

    def cosine(s, t):
        return inner(s, t) / sp.sqrt(inner(s, s) * inner(t, t))

    pairs = list(itertools.product(words, repeat=2))
    # the seed's formula (15), evaluated by the brute-force sum over pairs of index sequences
    k15 = {(s, t): _ssk_brute(s, t, 2, lam) for s, t in pairs}
    seed = all(sp.simplify(k15[p] - cosine(*p)) == 0 for p in pairs)
    # corrected: (15) is the inner product (ktheory's DP agrees); its normalization is the cosine
    is_inner = all(sp.expand(k15[p] - inner(*p)) == 0
                   and sp.expand(subsequence_kernel(*p, 2, lam) - k15[p]) == 0 for p in pairs)
    normalized = all(sp.simplify(k15[(s, t)] / sp.sqrt(k15[(s, s)] * k15[(t, t)]) - cosine(s, t)) == 0
                     for s, t in pairs)
    return bool(seed), bool(is_inner and normalized)


ERRATA = {
    "err-ch02-ellipse-line": ellipse_line,
    "err-ch02-quadratic-dimension": quadratic_dimension,
    "err-ch02-unsquared-gaussian": unsquared_gaussian,
    "err-ch02-sigmoid-kernel": sigmoid_kernel_psd,
    "err-ch02-ssk-cosine": ssk_cosine,
}
