"""Benchmark of ktheory.svm.MulticlassSVC (run: .venv/bin/python benchmarks/bench_llw.py).

The Lee–Lin–Wahba multicategory SVM, RBF kernel (gamma="scale"), C = 1, default
``tol``, on Gaussian blobs in the plane, standardised: for k = 3 the three blobs of
the first version of this script (one overlapping pair), for k = 5 five blobs on a
circle of radius 2.5 (neighbours overlap); n = 600, 2000 and 5000. Against
scikit-learn's ``SVC`` (one-vs-one libsvm) on the same data. The two fit **different
models** (one joint QP in n (k - 1) variables, solved here by the decomposition
method of ``ktheory.svm._llw_decomp`` in numpy, against k (k - 1) / 2 pairwise SMO
problems in C): the ratio is context for the reader, not a target. Also printed:
the solver's active-set steps, the kernel rows it computed, the certified relative
duality gap, the peak memory of a fit (``tracemalloc``: numpy's allocations), the
training accuracy of both and the fraction of training points where their
predictions agree.

The LLW fit is timed once for n = 5000 and as the median of ``REPEAT`` runs below
(wall clock, after a warm-up); scikit-learn likewise. On a loaded machine with a
multithreaded BLAS the numbers vary; the solver itself runs its small products
single-threaded.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _record import add
from sklearn.svm import SVC as SkSVC

from ktheory.svm import MulticlassSVC

REPEAT = 3


def blobs(n: int, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if k == 3:
        centres = np.array([[0.0, 0.0], [1.5, 0.5], [4.0, 3.0]])  # classes 0 and 1 overlap
    else:
        a = 2 * np.pi * np.arange(k) / k
        centres = 2.5 * np.column_stack([np.cos(a), np.sin(a)])
    y = np.arange(n) % k
    X = centres[y] + rng.standard_normal((n, 2))
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def median_time(f, repeat: int) -> tuple[float, object]:
    out = f() if repeat > 1 else None  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def peak_mib(f) -> float:
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    print(f"{'k':>2} {'n':>5} {'m':>6} {'LLW fit s':>10} {'sklearn s':>10} {'ratio':>7} "
          f"{'steps':>7} {'rows':>6} {'rel gap':>9} {'peak MiB':>9} {'acc LLW':>8} {'acc sk':>7} "
          f"{'agree':>6}")
    for k in (3, 5):
        for n in (600, 2000, 5000):
            X, y = blobs(n, k)
            rep = 1 if n >= 5000 else REPEAT
            t_llw, llw = median_time(lambda: MulticlassSVC(C=1.0).fit(X, y), rep)
            t_sk, sk = median_time(lambda: SkSVC(C=1.0).fit(X, y), REPEAT)
            mem = peak_mib(lambda: MulticlassSVC(C=1.0).fit(X, y))
            agree = float(np.mean(llw.predict(X) == sk.predict(X)))
            print(f"{k:>2} {n:>5} {n * (k - 1):>6} {t_llw:>10.2f} {t_sk:>10.3f} "
                  f"{t_llw / t_sk:>7.1f} {llw.n_iter_:>7} {llw.kernel_rows_computed_:>6} "
                  f"{llw.duality_gap_:>9.1e} {mem:>9.1f} {llw.score(X, y):>8.3f} "
                  f"{sk.score(X, y):>7.3f} {agree:>6.3f}", flush=True)
            add(f"blobs k={k} n={n}", "ktheory.svm.MulticlassSVC (LLW) fit", n=n,
                time_s=t_llw, peer="sklearn.svm.SVC (one-vs-one, a different model)",
                peer_time_s=t_sk, target_time_s=60.0 if (k, n) == (5, 5000) else None,
                mem_mb=mem, params=dict(classes=k, C=1.0, kernel="rbf",
                                        rel_gap=float(llw.duality_gap_),
                                        mem="tracemalloc peak"))
    print("ratio = LLW time / sklearn time (> 1: ktheory slower); different models, context "
          "only; peak MiB (tracemalloc) for every n: at n = 5000 the row cache alone is 191 MiB")


if __name__ == "__main__":
    main()
