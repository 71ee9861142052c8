"""Fit time of ktheory.csvm.CentralSVC (kernel form) against ktheory.svm.SVC on the same data.

No library implements the central SVM, so the peer is our own SVC (chapter 8), which solves
the ordinary SVM dual by SMO on the same kind of data: RBF kernel, gamma = 1/d (d = 20),
n = 1000 and 2000 (the issue asks for n = 2000), the synthetic data of bench_svc.py.

* C = 1: SVC at its tolerance (a KKT violation of 1e-3), CentralSVC at tol = 1e-3 (its
  tol bounds the duality gap relative to the objective; its SMO starts with a KKT
  violation of tol, so the first round is like for like) and at its default tol = 1e-10.
* C = 1e8 (the issue "tolerances relative to the problem's scale"): both at their
  defaults. CentralSVC certifies its optimum (relative gap at most tol, or the rounding
  level of the gap's evaluation, gap_bound_, which grows with C); before, it ran on with
  an absolute KKT tolerance that rounding at this C cannot reach (55 s and a ValueError).
* The unbalanced 30 : 5 problem of tests/test_csvm.py (linear kernel, C = 1e8), CentralSVC
  only: ktheory's SVC (linear kernel) runs for minutes on these overlapping classes at
  this C, which is its own issue, not a baseline.

Each fit is the median of a few repeats, the estimators interleaved (the machine is
shared). The compiled solver is loaded before any timing (``load_compiled_svm``), as it is
once CentralSVC has run its compiled first round (n >= 1000): SVC then solves these sizes
compiled too (``solver="auto"``), so both sides run compiled code. Prints wall-clock and CPU times, the ratios CentralSVC / SVC (at the same C), the
SMO steps and the relative duality gap of the CSVM with the bound it was certified against.

Run:  .venv/bin/python benchmarks/bench_csvm.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from _record import add, load_compiled_svm

from ktheory.csvm import CentralSVC
from ktheory.svm import SVC

D = 20


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    return X, (score > 0).astype(int)


def unbalanced(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """30 : 5 samples of two unit Gaussians at +-(1.5, 1.5) (tests/test_csvm.py)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(30, 2)) + 1.5, rng.normal(size=(5, 2)) - 1.5])
    return X, np.r_[np.ones(30), -np.ones(5)]


def time_fit(make, X, y):
    c0, t0 = time.process_time(), time.perf_counter()
    est = make().fit(X, y)
    return time.perf_counter() - t0, time.process_time() - c0, est


def report(makers, X, y, repeats, base_of):
    times = {k: [] for k in makers}
    last = {}
    for _ in range(repeats):
        for name, make in makers.items():
            wall, cpu, est = time_fit(make, X, y)
            times[name].append((wall, cpu))
            last[name] = est
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in times.items()}
    for name, (w, c) in med.items():
        est = last[name]
        base = base_of.get(name)
        ratio = (f"ratio wall {w / med[base][0]:5.2f}  cpu {c / med[base][1]:5.2f}" if base
                 else " " * 27)
        extra = f"  steps {int(np.sum(est.n_iter_)):6d}"
        if isinstance(est, CentralSVC):
            extra += f"  gap {est.duality_gap_:.1e} (bound {est.gap_bound_:.1e})"
        print(f"  {name:20s} wall {w:7.3f} s  cpu {c:7.3f} s  {ratio}{extra}")
        if isinstance(est, CentralSVC):
            add(f"{name} n={len(y)}", "ktheory.csvm.CentralSVC fit", n=len(y), time_s=w,
                peer=f"ktheory.svm.SVC ({base})" if base else None,
                peer_time_s=med[base][0] if base else None,
                target_ratio=1.5 if base and "tol=1e-3" in name else None,
                params=dict(gap=float(est.duality_gap_)))


def main(repeats: int = 3) -> None:
    gamma = 1.0 / D
    print(f"compiled solver loaded before timing: {load_compiled_svm()}")
    makers = {
        "SVC C=1 tol=1e-3": lambda: SVC(C=1.0, kernel="rbf", gamma=gamma, tol=1e-3),
        "CSVM C=1 tol=1e-3": lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="rbf", gamma=gamma,
                                                tol=1e-3),
        "CSVM C=1 tol=1e-10": lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="rbf", gamma=gamma,
                                                 tol=1e-10),
        "SVC linear tol=1e-3": lambda: SVC(C=1.0, kernel="linear", tol=1e-3),
        "CSVM linear tol=1e-3": lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="linear",
                                                   tol=1e-3),
        "SVC C=1e8": lambda: SVC(C=1e8, kernel="rbf", gamma=gamma),
        "CSVM C=1e8": lambda: CentralSVC(C=1e8, epsilon=0.3, kernel="rbf", gamma=gamma),
    }
    base_of = {"CSVM C=1 tol=1e-3": "SVC C=1 tol=1e-3", "CSVM C=1 tol=1e-10": "SVC C=1 tol=1e-3",
               "CSVM linear tol=1e-3": "SVC linear tol=1e-3",
               "CSVM C=1e8": "SVC C=1e8"}
    for n in (1000, 2000):
        X, y = make_data(n)
        print(f"n = {n}")
        report(makers, X, y, repeats, base_of)
    X, y = unbalanced()
    print("30 : 5, linear kernel, C = 1e8")
    report({"CSVM C=1e8 linear": lambda: CentralSVC(C=1e8, epsilon=0.3)}, X, y, repeats, {})


if __name__ == "__main__":
    main()
