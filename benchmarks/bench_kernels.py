"""Benchmark ktheory.kernels against scikit-learn and a pure-Python dynamic programme.

Run:  .venv/bin/python benchmarks/bench_kernels.py
Prints median wall times and the ratios the book's issue tracks:
  * gram_matrix(gaussian_kernel) vs sklearn.metrics.pairwise.rbf_kernel, n = 5000, d = 100
    (goal: ratio ktheory / sklearn <= 1, i.e. no slower);
  * subsequence_gram vs a straightforward pure-Python Lodhi DP on the same strings
    (goal: >= 100x faster).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from _record import add
from sklearn.metrics.pairwise import rbf_kernel

from ktheory.kernels import gaussian_kernel, gram_matrix, subsequence_gram


def median_time(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pure_python_subsequence(s: str, t: str, n: int, lam: float) -> float:
    """Lodhi et al.'s O(n |s| |t|) recursion with plain Python loops (the baseline)."""
    p, q = len(s), len(t)
    Kp_prev = [[1.0] * (q + 1) for _ in range(p + 1)]
    for _ in range(1, n):
        Kp = [[0.0] * (q + 1) for _ in range(p + 1)]
        for a in range(1, p + 1):
            kpp = 0.0
            for b in range(1, q + 1):
                kpp = lam * kpp + (lam * lam * Kp_prev[a - 1][b - 1] if s[a - 1] == t[b - 1] else 0.0)
                Kp[a][b] = lam * Kp[a - 1][b] + kpp
        Kp_prev = Kp
    total = 0.0
    for a in range(1, p + 1):
        for b in range(1, q + 1):
            if s[a - 1] == t[b - 1]:
                total += lam * lam * Kp_prev[a - 1][b - 1]
    return total


def pure_python_gram(S: list[str], n: int, lam: float) -> np.ndarray:
    m = len(S)
    K = np.zeros((m, m))
    for i in range(m):
        for j in range(i, m):
            K[i, j] = K[j, i] = pure_python_subsequence(S[i], S[j], n, lam)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def main() -> None:
    rng = np.random.default_rng(0)
    n, d = 5000, 100
    X = rng.normal(size=(n, d))
    sigma = float(np.sqrt(d))
    gamma = 1.0 / (2.0 * sigma**2)
    K1 = gram_matrix(gaussian_kernel, X, sigma=sigma)
    K2 = rbf_kernel(X, gamma=gamma)
    err = float(np.max(np.abs(K1 - K2)))
    del K1, K2
    t_kt = median_time(lambda: gram_matrix(gaussian_kernel, X, sigma=sigma))
    t_sk = median_time(lambda: rbf_kernel(X, gamma=gamma))
    print(f"Gaussian Gram n={n} d={d}: ktheory.gram_matrix {t_kt:.3f} s, sklearn rbf_kernel {t_sk:.3f} s, "
          f"ratio ktheory/sklearn = {t_kt / t_sk:.2f} (max abs diff {err:.1e})")
    add("gaussian gram", "ktheory.kernels.gram_matrix(gaussian_kernel)", n=n, time_s=t_kt,
        peer="sklearn.metrics.pairwise.rbf_kernel", peer_time_s=t_sk, target_ratio=1.0,
        params=dict(d=d))

    words = ["".join(rng.choice(list("abcdefgh"), size=int(rng.integers(8, 16)))) for _ in range(60)]
    G1 = subsequence_gram(words, n=3, lam=0.5)
    t0 = time.perf_counter()
    G2 = pure_python_gram(words, 3, 0.5)
    t_py = time.perf_counter() - t0
    err = float(np.max(np.abs(G1 - G2)))
    t_vec = median_time(lambda: subsequence_gram(words, n=3, lam=0.5))
    print(f"String subsequence Gram, 60 strings of length 8-15 over 8 letters, n=3 (explicit-feature path): "
          f"ktheory {t_vec:.4f} s, pure-Python DP {t_py:.3f} s, speed-up = {t_py / t_vec:.0f}x (max abs diff {err:.1e})")
    add("subsequence gram, explicit features", "ktheory.kernels.subsequence_gram", n=len(words),
        time_s=t_vec, peer="pure-Python Lodhi DP", peer_time_s=t_py, target_ratio=0.01,
        params=dict(subsequence=3, lam=0.5, alphabet=8))

    # 26 letters and n = 4: 26^4 features is too many to store, so the batched pair recursion runs
    letters = list("abcdefghijklmnopqrstuvwxyz")
    texts = ["".join(rng.choice(letters, size=int(rng.integers(20, 31)))) for _ in range(30)]
    G1 = subsequence_gram(texts, n=4, lam=0.7)
    t0 = time.perf_counter()
    G2 = pure_python_gram(texts, 4, 0.7)
    t_py = time.perf_counter() - t0
    err = float(np.max(np.abs(G1 - G2)))
    t_vec = median_time(lambda: subsequence_gram(texts, n=4, lam=0.7))
    print(f"String subsequence Gram, 30 strings of length 20-30 over 26 letters, n=4 (batched pair recursion): "
          f"ktheory {t_vec:.4f} s, pure-Python DP {t_py:.3f} s, speed-up = {t_py / t_vec:.0f}x (max abs diff {err:.1e})")
    add("subsequence gram, pair recursion", "ktheory.kernels.subsequence_gram", n=len(texts),
        time_s=t_vec, peer="pure-Python Lodhi DP", peer_time_s=t_py, target_ratio=0.01,
        params=dict(subsequence=4, lam=0.7, alphabet=26))


if __name__ == "__main__":
    main()
