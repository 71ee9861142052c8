"""Errata of chapter 2 (kernels and the kernel trick)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from ktheory.kernels import gaussian_kernel, is_psd, laplacian_kernel, sigmoid_kernel, subsequence_kernel


def _on_a_line(Z: np.ndarray) -> bool:
    A = np.c_[Z, -np.ones(len(Z))]
    return bool(np.linalg.svd(A, compute_uv=False)[-1] / np.sqrt(len(Z)) < 1e-9)


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


def _ssk_brute(s: str, t: str, n: int, lam, span: bool = True):
    total = 0
    for i in itertools.combinations(range(len(s)), n):
        for j in itertools.combinations(range(len(t)), n):
            if all(s[a] == t[b] for a, b in zip(i, j)):
                li = i[-1] - i[0] + 1 if span else n
                lj = j[-1] - j[0] + 1 if span else n
                total += lam ** (li + lj)
    return sp.expand(total)


def ssk_cosine():
    """Seed 003: k_n(s, t) 'gives the cosine similarity'."""
    lam = sp.Integer(1)
    k = subsequence_kernel("cat", "cat", 2, lam)
    seed = k == 1  # a cosine of a vector with itself is 1
    norm = subsequence_kernel("cat", "car", 2, lam) / sp.sqrt(
        subsequence_kernel("cat", "cat", 2, lam) * subsequence_kernel("car", "car", 2, lam))
    fixed = k == 3 and sp.simplify(norm - sp.Rational(1, 3)) == 0 and abs(norm) <= 1
    return bool(seed), bool(fixed)


def ssk_decay_span():
    """Seed 003: decay 0 <= lambda <= 1 allowed, and l(i) = 'the length of the string i'."""
    lam = sp.Symbol("lambda", positive=True)
    pairs = [("science", "silence", 3), ("kernel", "kennel", 2)]
    # the seed's reading: l(i) = n, the length of the subsequence; lambda = 0 gives a kernel
    length_reading = all(sp.expand(_ssk_brute(s, t, n, lam, span=False) - subsequence_kernel(s, t, n, lam)) == 0
                         for s, t, n in pairs)
    at_zero = _ssk_brute("cat", "cat", 2, sp.Integer(0))
    seed = length_reading and at_zero != 0
    span_reading = all(sp.expand(_ssk_brute(s, t, n, lam) - subsequence_kernel(s, t, n, lam)) == 0
                       for s, t, n in pairs)
    try:
        subsequence_kernel("cat", "cat", 2, 0.0)
        refused = False
    except ValueError:
        refused = True
    fixed = span_reading and at_zero == 0 and refused
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch02-ellipse-line": ellipse_line,
    "err-ch02-quadratic-dimension": quadratic_dimension,
    "err-ch02-unsquared-gaussian": unsquared_gaussian,
    "err-ch02-sigmoid-kernel": sigmoid_kernel_psd,
    "err-ch02-ssk-cosine": ssk_cosine,
    "err-ch02-ssk-decay-span": ssk_decay_span,
}
