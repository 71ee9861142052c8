"""Fit time of ktheory.svm.SVR against sklearn.svm.SVR (libsvm), same problem, same tol.

RBF kernel, C = 1, epsilon = 0.1, gamma = 1/d (d = 20), tol = 1e-3, a smooth nonlinear
target with noise (fixed seed), n = 1000, 2000, 5000. Each fit is timed as the median of
a few repeats, the two estimators interleaved (the machine is shared). Prints wall-clock
and CPU fit times, the ratios ktheory/sklearn, iterations and support vectors of both,
and the relative difference of the dual objectives (recomputed from sklearn's
dual_coef_). Both solve the 2n-variable SVR dual by SMO with shrinking and a kernel row
cache. The compiled solver is loaded before any timing (``load_compiled_svm``), as in a
session that has fitted a large set, so ``solver="auto"`` solves every size compiled; a fresh
process would solve n <= 2048 on the numpy path (the Gram matrix, no shrinking) until it has
spent AUTO_NUMPY_ITER numpy iterations.

Run:  .venv/bin/python benchmarks/bench_svr.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from _record import AFTER_COMPILED, add, load_compiled_svm
from sklearn.svm import SVR as SkSVR

from ktheory.svm import SVR

D = 20
GAMMA = 1.0 / D


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    z = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.2 * X[:, 3:8].sum(axis=1)
    return X, z + 0.2 * rng.standard_normal(n)


def sklearn_objective(sk: SkSVR, X: np.ndarray, z: np.ndarray, eps: float) -> float:
    sv = X[sk.support_]
    sq = (sv**2).sum(1)
    K = np.exp(-GAMMA * np.maximum(sq[:, None] + sq[None, :] - 2 * sv @ sv.T, 0))
    b = sk.dual_coef_[0]
    return 0.5 * float(b @ K @ b) + eps * float(np.abs(b).sum()) - float(z[sk.support_] @ b)


def time_fit(make, X, z):
    c0 = time.process_time()
    t0 = time.perf_counter()
    est = make().fit(X, z)
    return time.perf_counter() - t0, time.process_time() - c0, est


def main() -> int:
    eps = 0.1
    print(f"SVR fit, RBF gamma={GAMMA}, C=1, epsilon={eps}, tol=1e-3, d={D}; load {os.getloadavg()[0]:.2f}")
    print(f"compiled solver loaded before timing: {load_compiled_svm()}")
    print(f"{'n':>6} {'kt wall':>8} {'sk wall':>8} {'wall x':>7} {'kt cpu':>7} {'sk cpu':>7} {'cpu x':>6} "
          f"{'kt it':>7} {'sk it':>7} {'kt SV':>6} {'sk SV':>6} {'obj rel':>8}")
    for n in (1000, 2000, 5000):
        X, z = make_data(n)
        reps = 5 if n < 5000 else 3
        kw, sw, kc, sc = [], [], [], []
        for _ in range(reps):
            w, c, kt = time_fit(lambda: SVR(C=1.0, epsilon=eps, gamma=GAMMA, tol=1e-3), X, z)
            kw.append(w)
            kc.append(c)
            w, c, sk = time_fit(lambda: SkSVR(C=1.0, epsilon=eps, gamma=GAMMA, tol=1e-3), X, z)
            sw.append(w)
            sc.append(c)
        kwm, swm, kcm, scm = (statistics.median(v) for v in (kw, sw, kc, sc))
        obj = sklearn_objective(sk, X, z, eps)
        rel = abs(kt.objective_ - obj) / max(1.0, abs(obj))
        add(f"rbf n={n}", f"ktheory.svm.SVR fit ({AFTER_COMPILED})", n=n, time_s=kwm,
            peer="sklearn.svm.SVR",
            peer_time_s=swm, target_ratio=1.0,
            params=dict(kernel="rbf", gamma=GAMMA, d=D, C=1.0, epsilon=eps, tol=1e-3,
                        cpu_ratio=kcm / scm, rel_objective_diff=rel))
        print(f"{n:>6} {kwm:8.3f} {swm:8.3f} {kwm / swm:7.2f} {kcm:7.3f} {scm:7.3f} {kcm / scm:6.2f} "
              f"{kt.n_iter_:>7} {sk.n_iter_:>7} {kt.support_.size:>6} {sk.support_.size:>6} {rel:8.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
