"""Benchmark of ktheory.alignment (run: .venv/bin/python benchmarks/bench_alignment.py).

1. linear_cka (feature space, O(n d^2)) against the Gram-based formula
   cka(X X^T, Y Y^T) (O(n^2 d)) at n = 10000, d = 512, with equal values.
2. center_kernel (O(n^2), from means) against scikit-learn's KernelCenterer
   at n = 5000, and against the explicit product H K H (O(n^3)) at n = 2000.
3. cka against KernelCenterer-based centering with element-wise sums at n = 5000.
4. minibatch_cka (batches of 200, O(n b d)) against the full-sample debiased CKA built
   from hsic(..., unbiased=True) on n x n Gram matrices, at n = 8000 (values differ: the two
   are different estimates of the same population CKA).
5. hsic_permutation_test against scipy.stats.permutation_test with the same statistic
   (permutation_type="pairings") at n = 300, 199 permutations; same p-value definition.

Run a subset with e.g. ``bench_alignment.py minibatch permutation``.

Prints median wall-clock times and ratios (> 1 means ktheory is faster).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _record import add
from scipy.stats import permutation_test
from sklearn.preprocessing import KernelCenterer

from ktheory.alignment import (
    center_kernel,
    cka,
    hsic,
    hsic_permutation_test,
    linear_cka,
    minibatch_cka,
)


def median_time(f, repeat=3):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def gram_cka(X, Y):
    return cka(X @ X.T, Y @ Y.T)


def sklearn_style_cka(K, L):
    """Centering with scikit-learn's KernelCenterer, Frobenius products by element-wise sums."""
    Kc = KernelCenterer().fit_transform(K)
    Lc = KernelCenterer().fit_transform(L)
    return np.sum(Kc * Lc) / np.sqrt(np.sum(Kc * Kc) * np.sum(Lc * Lc))


def bench_minibatch():
    rng = np.random.default_rng(1)
    n, d = 8000, 64
    X = rng.standard_normal((n, d))
    Y = np.tanh(X @ rng.standard_normal((d, d)) / np.sqrt(d)) + 0.5 * rng.standard_normal((n, d))

    def full_debiased():
        K, L = X @ X.T, Y @ Y.T
        return hsic(K, L, True) / np.sqrt(hsic(K, K, True) * hsic(L, L, True))

    t_mb, v_mb = median_time(lambda: minibatch_cka(X, Y, 200, random_state=0), repeat=3)
    t_full, v_full = median_time(full_debiased, repeat=1)
    t_lin, v_lin = median_time(lambda: linear_cka(X, Y), repeat=3)
    t_feat, v_feat = median_time(lambda: debiased_linear_cka_features(X, Y), repeat=3)
    assert abs(v_feat - v_full) < 1e-9  # the same estimator, O(n d^2) instead of O(n^2 d)
    print(f"[minibatch CKA, n={n}, d={d}, batches of 200]")
    print(f"  minibatch_cka           : {t_mb:8.3f} s   value {v_mb:.6f}")
    print(f"  full debiased (n x n)   : {t_full:8.3f} s   value {v_full:.6f}   ratio {t_full / t_mb:.1f}x")
    print("  the fair peers for linear kernels (feature space, O(n d^2), no n x n matrix):")
    print(f"  linear_cka (biased)     : {t_lin:8.3f} s   value {v_lin:.6f}   ratio {t_lin / t_mb:.3f}x")
    print(f"  debiased, feature space : {t_feat:8.3f} s   value {v_feat:.6f}   ratio {t_feat / t_mb:.3f}x")
    add("minibatch cka", "ktheory.alignment.minibatch_cka", n=n, time_s=t_mb,
        peer="full-sample debiased CKA (n x n Gram matrices)", peer_time_s=t_full,
        params=dict(d=d, batch=200))


def debiased_linear_cka_features(X, Y):
    """Debiased CKA (HSIC_u of Song et al.) for linear kernels without forming K = X X^T.

    With zero-diagonal Gram matrices: tr(Kt Lt) = ||Y^T X||_F^2 - sum_i K_ii L_ii,
    1^T Kt 1 = ||X^T 1||^2 - tr K, and Kt 1 = X (X^T 1) - diag K.
    """

    def hsic_u(A, B):
        n = len(A)
        da, db = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
        ra, rb = A @ A.sum(axis=0) - da, B @ B.sum(axis=0) - db
        t1 = np.sum((B.T @ A) ** 2) - da @ db
        t2 = ra.sum() * rb.sum() / ((n - 1) * (n - 2))
        return (t1 + t2 - 2.0 * (ra @ rb) / (n - 2)) / (n * (n - 3))

    return hsic_u(X, Y) / np.sqrt(hsic_u(X, X) * hsic_u(Y, Y))


def bench_permutation():
    rng = np.random.default_rng(2)
    n, B = 300, 199
    x = rng.standard_normal((n, 1))
    z = x**2 + rng.standard_normal((n, 1))
    K = np.exp(-((x - x.T) ** 2) / 2)
    L = np.exp(-((z - z.T) ** 2) / 2)
    t_k, res = median_time(lambda: hsic_permutation_test(K, L, B, random_state=0))

    def scipy_test():
        stat = lambda idx: hsic(K, L[np.ix_(idx, idx)])  # noqa: E731
        return permutation_test((np.arange(n),), stat, permutation_type="pairings",
                                n_resamples=B, alternative="greater", random_state=0,
                                vectorized=False)

    t_s, res_s = median_time(scipy_test, repeat=1)
    print(f"[HSIC permutation test, n={n}, {B} permutations]")
    print(f"  hsic_permutation_test   : {t_k:8.3f} s   statistic {res.statistic:.6f} p {res.pvalue:.3f}")
    print(f"  scipy permutation_test  : {t_s:8.3f} s   statistic {res_s.statistic:.6f} "
          f"p {res_s.pvalue:.3f}   ratio {t_s / t_k:.1f}x")
    add("hsic permutation test", "ktheory.alignment.hsic_permutation_test", n=n, time_s=t_k,
        peer="scipy.stats.permutation_test", peer_time_s=t_s, params=dict(permutations=B))


def main():
    parts = sys.argv[1:]
    if parts:
        for name in parts:
            {"minibatch": bench_minibatch, "permutation": bench_permutation}[name]()
        return
    rng = np.random.default_rng(0)

    n, d = 10000, 512
    X = rng.standard_normal((n, d))
    Y = np.tanh(X @ rng.standard_normal((d, d)) / np.sqrt(d)) + 0.5 * rng.standard_normal((n, d))
    t_lin, v_lin = median_time(lambda: linear_cka(X, Y), repeat=5)
    t_gram, v_gram = median_time(lambda: gram_cka(X, Y), repeat=1)
    print(f"[linear CKA, n={n}, d={d}]")
    print(f"  linear_cka (feature space): {t_lin:8.3f} s   value {v_lin:.12f}")
    print(f"  cka(XX^T, YY^T) (Gram)    : {t_gram:8.3f} s   value {v_gram:.12f}")
    print(f"  |difference| = {abs(v_lin - v_gram):.2e}   speed-up ratio Gram/feature = {t_gram / t_lin:.1f}x")
    add("linear cka", "ktheory.alignment.linear_cka", n=n, time_s=t_lin,
        peer="cka on Gram matrices X X^T, Y Y^T", peer_time_s=t_gram, params=dict(d=d))
    del X, Y

    n = 5000
    F = rng.standard_normal((n, 50)) + 1.0
    G = rng.standard_normal((n, 20))
    K = np.exp(-0.01 * ((F[:, None, :2] - F[None, :, :2]) ** 2).sum(-1)) + F @ F.T / 50
    L = G @ G.T
    t_c, Kc = median_time(lambda: center_kernel(K))
    t_sk, Ksk = median_time(lambda: KernelCenterer().fit_transform(K))
    print(f"[center_kernel, n={n}]")
    print(f"  center_kernel    : {t_c:8.3f} s")
    print(f"  KernelCenterer   : {t_sk:8.3f} s   max|diff| {np.abs(Kc - Ksk).max():.2e}   ratio {t_sk / t_c:.1f}x")
    add("center kernel", "ktheory.alignment.center_kernel", n=n, time_s=t_c,
        peer="sklearn.preprocessing.KernelCenterer", peer_time_s=t_sk, target_ratio=1.0)
    del Kc, Ksk
    m = 2000  # the O(n^3) product H K H is only timed at a smaller size
    Km = np.ascontiguousarray(K[:m, :m])
    H = np.eye(m) - 1.0 / m
    t_cm, Kcm = median_time(lambda: center_kernel(Km))
    t_hkh, Khkh = median_time(lambda: H @ Km @ H, repeat=1)
    print(f"[center_kernel vs the explicit product H K H, n={m}]")
    print(f"  center_kernel    : {t_cm:8.3f} s")
    print(f"  H @ K @ H        : {t_hkh:8.3f} s   max|diff| {np.abs(Kcm - Khkh).max():.2e}   ratio {t_hkh / t_cm:.1f}x")
    del Kcm, Khkh, H

    t_cka, v_cka = median_time(lambda: cka(K, L))
    t_naive, v_naive = median_time(lambda: sklearn_style_cka(K, L))
    print(f"[cka, n={n}]")
    print(f"  cka              : {t_cka:8.3f} s   value {v_cka:.12f}")
    print(f"  KernelCenterer+sum: {t_naive:8.3f} s   value {v_naive:.12f}   ratio {t_naive / t_cka:.1f}x")
    add("cka", "ktheory.alignment.cka", n=n, time_s=t_cka,
        peer="KernelCenterer + element-wise sums", peer_time_s=t_naive, target_ratio=1.0)
    del K, L
    bench_minibatch()
    bench_permutation()


if __name__ == "__main__":
    main()
