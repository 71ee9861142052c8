"""Benchmark of ktheory.ridge (run: .venv/bin/python benchmarks/bench_ridge.py).

1. KernelRidge.fit (RBF, d = 20) against scikit-learn's KernelRidge at n = 5000 and 2000,
   with the largest difference of the predictions.
2. A 50-value regularisation path (KernelRidge.path: one eigendecomposition, then O(n^2)
   per value, LOO residuals included) against 50 separate fits at n = 2000, interleaved,
   median of 5, with the ceiling of the speed-up (50 fits against the eigendecomposition
   alone: the path cannot beat it).
3. At n = 5000: the cost of the eigendecomposition alone, in fits.

Prints median wall-clock times and ratios. The machine is shared; medians of a few runs.
"""

from __future__ import annotations

import time

import numpy as np
from _record import add
from scipy import linalg as sla
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from ktheory.kernels import rbf_kernel
from ktheory.ridge import KernelRidge


def median_time(f, repeat=3):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def data(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n)
    return X, y, rng.standard_normal((200, d))


def fit_vs_sklearn(n, repeat):
    X, y, Xt = data(n)
    kw = dict(alpha=1.0, kernel="rbf", gamma=0.05)
    t_o, t_s = [], []
    for _ in range(repeat):  # interleaved
        t, ours = median_time(lambda: KernelRidge(**kw).fit(X, y), 1)
        t_o.append(t)
        t, ref = median_time(lambda: SkKernelRidge(**kw).fit(X, y), 1)
        t_s.append(t)
    t_ours, t_sk = float(np.median(t_o)), float(np.median(t_s))
    diff = float(np.max(np.abs(ours.predict(Xt) - ref.predict(Xt))))
    print(f"[fit, RBF, n={n}, d=20]")
    print(f"  ktheory KernelRidge.fit : {t_ours:7.3f} s")
    print(f"  sklearn KernelRidge.fit : {t_sk:7.3f} s   max |pred diff| = {diff:.1e}")
    print(f"  ratio ktheory / sklearn = {t_ours / t_sk:.2f} (target <= 1.1)")
    add(f"fit rbf n={n}", "ktheory.ridge.KernelRidge fit", n=n, time_s=t_ours,
        peer="sklearn.kernel_ridge.KernelRidge", peer_time_s=t_sk, target_ratio=1.1,
        params=dict(d=20, gamma=0.05, alpha=1.0, max_pred_diff=diff))
    return t_ours


def path_vs_fits(n, n_alphas=50, repeat=5):
    """The path against n_alphas separate fits, interleaved, median of ``repeat``; and the
    ceiling of the speed-up: n_alphas fits against the eigendecomposition alone."""
    X, y, _ = data(n)
    alphas = np.logspace(-4, 2, n_alphas)
    est = KernelRidge(kernel="rbf", gamma=0.05)
    K = rbf_kernel(X, gamma=0.05)

    def separate():
        return [KernelRidge(alpha=a, kernel="rbf", gamma=0.05).fit(X, y).dual_coef_ for a in alphas]

    t_p, t_s, t_e = [], [], []
    for _ in range(repeat):
        t, p = median_time(lambda: est.path(X, y, alphas), 1)
        t_p.append(t)
        t, coefs = median_time(separate, 1)
        t_s.append(t)
        t, _ = median_time(lambda: sla.eigh(K, check_finite=False, driver="evd"), 1)
        t_e.append(t)
    t_path, t_sep, t_eig = (float(np.median(v)) for v in (t_p, t_s, t_e))
    diff = max(float(np.max(np.abs(p.dual_coef[k] - c))) for k, c in enumerate(coefs))
    speedup, ceiling = t_sep / t_path, t_sep / t_eig
    print(f"[path, {n_alphas} alphas, RBF, n={n}, medians of {repeat} interleaved runs]")
    print(f"  KernelRidge.path (one eigendecomposition, LOO included): {t_path:7.3f} s")
    print(f"  {n_alphas} separate fits                                   : {t_sep:7.3f} s"
          f"   max |dual_coef diff| = {diff:.1e}")
    print(f"  the eigendecomposition alone                            : {t_eig:7.3f} s")
    print(f"  speed-up = {speedup:.1f}x (target >= 9); ceiling (fits / eigendecomposition) "
          f"{ceiling:.1f}x: the path reaches {speedup / ceiling:.0%} of it")
    add(f"path {n_alphas} alphas n={n}", "ktheory.ridge.KernelRidge.path (LOO included)", n=n,
        time_s=t_path, peer=f"{n_alphas} separate ktheory KernelRidge fits", peer_time_s=t_sep,
        target_ratio=1 / 9, params=dict(speedup=speedup, ceiling=ceiling, eigh_s=t_eig,
                                        max_dual_coef_diff=diff, repeat=repeat))


def eig_in_fits(n, t_fit):
    X, _, _ = data(n)
    K = rbf_kernel(X, gamma=0.05)
    t_eig, _ = median_time(lambda: sla.eigh(K, check_finite=False, driver="evd"), 1)
    print(f"[eigendecomposition, n={n}]")
    print(f"  scipy eigh (evd): {t_eig:7.3f} s = {t_eig / t_fit:.1f} fits")


def main():
    t5000 = fit_vs_sklearn(5000, repeat=3)
    fit_vs_sklearn(2000, repeat=5)
    path_vs_fits(2000)
    eig_in_fits(5000, t5000)


if __name__ == "__main__":
    main()
