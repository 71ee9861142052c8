"""Benchmark of ktheory.ridge (run: .venv/bin/python benchmarks/bench_ridge.py).

1. KernelRidge.fit (RBF, d = 20) against scikit-learn's KernelRidge at n = 5000 and 2000,
   with the largest difference of the predictions.
2. A 50-value regularisation path (KernelRidge.path: one eigendecomposition, then O(n^2)
   per value, LOO residuals included) against 50 separate fits at n = 2000.
3. At n = 5000: the cost of the eigendecomposition alone, in fits.

Prints median wall-clock times and ratios. The machine is shared; medians of a few runs.
"""

from __future__ import annotations

import time

import numpy as np
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
    t_ours, ours = median_time(lambda: KernelRidge(**kw).fit(X, y), repeat)
    t_sk, ref = median_time(lambda: SkKernelRidge(**kw).fit(X, y), repeat)
    diff = float(np.max(np.abs(ours.predict(Xt) - ref.predict(Xt))))
    print(f"[fit, RBF, n={n}, d=20]")
    print(f"  ktheory KernelRidge.fit : {t_ours:7.3f} s")
    print(f"  sklearn KernelRidge.fit : {t_sk:7.3f} s   max |pred diff| = {diff:.1e}")
    print(f"  ratio ktheory / sklearn = {t_ours / t_sk:.2f} (target <= 1.1)")
    return t_ours


def path_vs_fits(n, n_alphas=50):
    X, y, _ = data(n)
    alphas = np.logspace(-4, 2, n_alphas)
    est = KernelRidge(kernel="rbf", gamma=0.05)
    t_path, p = median_time(lambda: est.path(X, y, alphas), 3)

    def separate():
        return [KernelRidge(alpha=a, kernel="rbf", gamma=0.05).fit(X, y).dual_coef_ for a in alphas]

    t_sep, coefs = median_time(separate, 1)
    diff = max(float(np.max(np.abs(p.dual_coef[k] - c))) for k, c in enumerate(coefs))
    print(f"[path, {n_alphas} alphas, RBF, n={n}]")
    print(f"  KernelRidge.path (one eigendecomposition, LOO included): {t_path:7.3f} s")
    print(f"  {n_alphas} separate fits                                   : {t_sep:7.3f} s"
          f"   max |dual_coef diff| = {diff:.1e}")
    print(f"  speed-up = {t_sep / t_path:.1f}x (target >= 10)")


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
