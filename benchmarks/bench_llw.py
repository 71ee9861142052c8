"""Benchmark of ktheory.svm.MulticlassSVC (run: .venv/bin/python benchmarks/bench_llw.py).

The Lee–Lin–Wahba multicategory SVM, RBF kernel (gamma="scale"), C = 1, on three
Gaussian blobs in the plane (one overlapping pair), n = 300 and 600, against
scikit-learn's ``SVC`` (one-vs-one libsvm) on the same data. The two fit
**different models** (one joint QP in n (k - 1) variables, solved here by a dense
interior-point method, against three pairwise SMO problems): the ratio is
context for the reader, not a target. Also printed: the interior-point
iterations, whether the active-set polish was accepted, the relative gap
between the primal value at the fitted f and the dual value, the training
accuracy of both, and the fraction of training points where their predictions
agree.

Each side is warmed up once; the time is the median of ``REPEAT`` runs (wall
clock). The interior-point method costs one Cholesky factorisation of an
``n (k-1)`` square matrix per iteration, ``O((n (k-1))^3)``; on a loaded machine
with a multithreaded BLAS it can be several times slower than with
``OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.svm import SVC as SkSVC

from ktheory.svm import MulticlassSVC

REPEAT = 3


def blobs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [4.0, 3.0]])  # classes 0 and 1 overlap
    y = np.arange(n) % 3
    return centres[y] + rng.standard_normal((n, 2)), y


def median_time(f) -> tuple[float, object]:
    out = f()  # warm-up
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def main() -> None:
    print(f"{'n':>5} {'m':>5} {'LLW fit s':>10} {'sklearn s':>10} {'ratio':>8} {'iter':>5} "
          f"{'polish':>6} {'rel gap':>9} {'acc LLW':>8} {'acc sk':>7} {'agree':>6}")
    for n in (300, 600):
        X, y = blobs(n)
        t_llw, llw = median_time(lambda: MulticlassSVC(C=1.0).fit(X, y))
        t_sk, sk = median_time(lambda: SkSVC(C=1.0).fit(X, y))
        gap = abs(llw.primal_objective_ - llw.objective_) / abs(llw.objective_)
        agree = float(np.mean(llw.predict(X) == sk.predict(X)))
        print(f"{n:>5} {2 * n:>5} {t_llw:>10.3f} {t_sk:>10.4f} {t_llw / t_sk:>8.1f} {llw.n_iter_:>5} "
              f"{str(llw._polished_):>6} {gap:>9.1e} {llw.score(X, y):>8.3f} {sk.score(X, y):>7.3f} "
              f"{agree:>6.3f}")
    print("ratio = LLW time / sklearn time (> 1: ktheory slower); different models, context only")


if __name__ == "__main__":
    main()
