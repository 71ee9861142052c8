"""Fit time of ktheory.csvm.CentralSVC (kernel form) against ktheory.svm.SVC on the same data.

No library implements the central SVM, so the peer is our own SVC (chapter 8), which solves
the ordinary SVM dual by SMO on the same kind of data: RBF kernel, gamma = 1/d (d = 20),
C = 1, n = 1000 and 2000 (the issue asks for n = 2000), the synthetic data of
bench_svc.py. CentralSVC is timed at the SVC's tolerance (tol = 1e-3, like for like) and at
its default (tol = 1e-10, the exact solve). Each fit is the median of a few repeats, the
estimators interleaved (the machine is shared). Prints wall-clock and CPU times, the
ratios CentralSVC / SVC, the SMO steps and the relative duality gap of the CSVM.

Run:  .venv/bin/python benchmarks/bench_csvm.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ktheory.csvm import CentralSVC
from ktheory.svm import SVC

D = 20


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    return X, (score > 0).astype(int)


def time_fit(make, X, y):
    c0, t0 = time.process_time(), time.perf_counter()
    est = make().fit(X, y)
    return time.perf_counter() - t0, time.process_time() - c0, est


def main(repeats: int = 3) -> None:
    gamma = 1.0 / D
    makers = {
        "SVC tol=1e-3": lambda: SVC(C=1.0, kernel="rbf", gamma=gamma, tol=1e-3),
        "CSVM tol=1e-3": lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="rbf", gamma=gamma, tol=1e-3),
        "CSVM tol=1e-10": lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="rbf", gamma=gamma, tol=1e-10),
    }
    for n in (1000, 2000):
        X, y = make_data(n)
        times = {k: [] for k in makers}
        last = {}
        for _ in range(repeats):
            for name, make in makers.items():
                wall, cpu, est = time_fit(make, X, y)
                times[name].append((wall, cpu))
                last[name] = est
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}
        base_w, base_c = med["SVC tol=1e-3"]
        print(f"n = {n}")
        for name, (w, c) in med.items():
            est = last[name]
            extra = ""
            if isinstance(est, CentralSVC):
                extra = f"  steps {est.n_iter_:6d}  duality gap {est.duality_gap_:.1e}"
            else:
                extra = f"  steps {est.n_iter_:6d}"
            print(f"  {name:15s} wall {w:7.3f} s  cpu {c:7.3f} s  ratio wall {w / base_w:5.2f}  "
                  f"cpu {c / base_c:5.2f}{extra}")


if __name__ == "__main__":
    main()
