"""Fit time of ktheory.svm.SVC against sklearn.svm.SVC (libsvm), same problem, same tol.

RBF kernel, C = 1, gamma = 1/d (d = 20), tol = 1e-3, synthetic data with a fixed seed,
n = 1000, 2000, 5000, plus a hard case (20 % label noise, C = 10), plus multiclass
(one-vs-one) on scikit-learn's digits (1797 x 64, 10 classes, 45 pairs; RBF, gamma="scale",
C = 1), fit and predict on all 1797 points, with the predictions compared. A compiled solve
runs before any timing (``load_compiled_svm``), as in a session that has fitted a large set:
``solver="auto"`` then solves every size compiled (a fresh process solves at most 2048 samples
on the numpy path until it has spent AUTO_NUMPY_ITER numpy iterations; ``bench_start.py``
times those first fits). Each fit is timed as the median of a few repeats, the two estimators
interleaved (the machine is shared).
Prints per-size wall-clock and CPU fit times, the ratios ktheory/sklearn, the numbers of
iterations and support vectors of both, and the relative difference of the dual
objectives. On a shared machine the wall-clock times depend on the load (printed);
the CPU ratio is the steadier figure (both run on one thread). See bench_svm_scale.py for
the issue-19 table (n up to 50 000, ill-conditioned problems, peak memory).

Run:  .venv/bin/python benchmarks/bench_svc.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np
from _record import AFTER_COMPILED, add, load_compiled_svm
from sklearn.svm import SVC as SkSVC

from ktheory.svm import SVC

D = 20


def make_data(n: int, noise: float = 0.0, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussian-ish classes separated by a nonlinear boundary in d = 20 dimensions."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    y = (score > 0).astype(int)
    if noise > 0:
        flip = rng.random(n) < noise
        y[flip] = 1 - y[flip]
    return X, y


def sklearn_objective(sk: SkSVC, X: np.ndarray, gamma: float) -> float:
    """libsvm's dual objective 1/2 a^T Q a - e^T a recomputed from sklearn's dual_coef_."""
    sv = X[sk.support_]
    sq = (sv**2).sum(1)
    Ksv = np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2 * sv @ sv.T, 0))
    c = sk.dual_coef_[0]
    return 0.5 * float(c @ Ksv @ c) - float(np.abs(c).sum())


def time_fit(make, X, y) -> tuple[float, float, object]:
    """Wall-clock and CPU (process) seconds of one fit."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    est = make().fit(X, y)
    return time.perf_counter() - t0, time.process_time() - c0, est


def run(n: int, noise: float, C: float, repeats: int) -> tuple[float, float]:
    X, y = make_data(n, noise)
    gamma = 1.0 / D
    ours_t, sk_t, ours_c, sk_c = [], [], [], []
    ours = sk = None
    for _ in range(repeats):
        t, c, ours = time_fit(lambda: SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3), X, y)
        ours_t.append(t)
        ours_c.append(c)
        t, c, sk = time_fit(lambda: SkSVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3), X, y)
        sk_t.append(t)
        sk_c.append(c)
    to, ts = statistics.median(ours_t), statistics.median(sk_t)
    co, cs = statistics.median(ours_c), statistics.median(sk_c)
    obj_sk = sklearn_objective(sk, X, gamma)
    rel = abs(ours.objective_ - obj_sk) / abs(obj_sk)
    label = f"n={n:5d} C={C:g} noise={noise:.0%}"
    print(
        f"{label:26s} wall: ktheory {to:6.3f} s sklearn {ts:6.3f} s ratio {to / ts:5.2f} | "
        f"cpu: {co:6.3f} s {cs:6.3f} s ratio {co / cs:5.2f} | "
        f"iters {int(ours.n_iter_[0]):6d}/{int(sk.n_iter_[0]):6d}  nSV {ours.support_.size}/{sk.support_.size}  "
        f"rel.obj.diff {rel:.1e}"
    )
    # what ktheory's compiled solver did: kernel rows computed (misses) and served from the
    # cache (hits), shrinking checks, and the time per SMO iteration of the whole fit
    add(f"rbf n={n} C={C:g} noise={noise:.0%}", f"ktheory.svm.SVC fit ({AFTER_COMPILED})", n=n,
        time_s=to,
        peer="sklearn.svm.SVC", peer_time_s=ts, target_ratio=1.0 if noise == 0 else None,
        params=dict(kernel="rbf", gamma="1/d", d=D, C=C, noise=noise, tol=1e-3,
                    cpu_ratio=co / cs, rel_objective_diff=rel))
    st = ours.solver_stats_
    if st is None:  # the numpy path (n <= NUMPY_MAX_SAMPLES): no row cache to report
        print(f"{'':26s} ktheory solver: the numpy path (Gram matrix, no row cache)")
        sys.stdout.flush()
        return to, ts
    print(f"{'':26s} ktheory solver: {st['misses']} rows computed, {st['hits']} cache hits, "
          f"{st['shrink_steps']} shrinking steps; {to / max(1, int(ours.n_iter_[0])) * 1e6:5.2f} us/iteration")
    sys.stdout.flush()
    return to, ts


def run_multiclass(repeats: int) -> None:
    """Digits, 10 classes (one-vs-one, 45 pairwise SVMs): fit and predict times."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    fit_o, fit_s, cpu_o, cpu_s, pred_o, pred_s = [], [], [], [], [], []
    ours = sk = None
    for _ in range(repeats):
        t, c, ours = time_fit(lambda: SVC(tol=1e-3), X, y)
        fit_o.append(t)
        cpu_o.append(c)
        t, c, sk = time_fit(lambda: SkSVC(tol=1e-3), X, y)
        fit_s.append(t)
        cpu_s.append(c)
        t0 = time.perf_counter()
        p_o = ours.predict(X)
        t1 = time.perf_counter()
        p_s = sk.predict(X)
        t2 = time.perf_counter()
        pred_o.append(t1 - t0)
        pred_s.append(t2 - t1)
    fo, fs = statistics.median(fit_o), statistics.median(fit_s)
    co, cs = statistics.median(cpu_o), statistics.median(cpu_s)
    po, ps = statistics.median(pred_o), statistics.median(pred_s)
    print(
        f"{'digits 10 classes (ovo)':26s} fit: ktheory {fo:6.3f} s sklearn {fs:6.3f} s ratio {fo / fs:5.2f} "
        f"(cpu ratio {co / cs:5.2f}) | "
        f"predict 1797: {po:6.3f} s {ps:6.3f} s ratio {po / ps:5.2f} | "
        f"iters {int(np.sum(ours.n_iter_)):6d}/{int(sk.n_iter_.sum()):6d}  nSV {ours.support_.size}/{sk.support_.size}  "
        f"predictions differ {int((p_o != p_s).sum())}"
    )
    add("digits ovo fit", f"ktheory.svm.SVC one-vs-one fit (45 pairs; {AFTER_COMPILED})",
        n=len(y), time_s=fo,
        peer="sklearn.svm.SVC", peer_time_s=fs, target_ratio=1.0,
        params=dict(classes=10, kernel="rbf", gamma="scale", tol=1e-3, cpu_ratio=co / cs))
    add("digits ovo predict", "ktheory.svm.SVC one-vs-one predict", n=len(y), time_s=po,
        peer="sklearn.svm.SVC", peer_time_s=ps, params=dict(classes=10))
    sys.stdout.flush()


def main() -> None:
    print("ktheory.svm.SVC vs sklearn.svm.SVC: RBF, gamma = 1/d, d = 20, tol = 1e-3")
    print("median wall-clock and CPU (process) fit times over interleaved repeats; ratio = ktheory/sklearn")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"compiled solver loaded before timing: {load_compiled_svm()}")
    for n, reps in ((1000, 7), (2000, 5), (5000, 5)):
        run(n, 0.0, 1.0, reps)
    run(5000, 0.2, 10.0, 3)
    run_multiclass(5)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
