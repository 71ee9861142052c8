"""How the cost of each ktheory solver grows with n, beside the library a user would pick.

For every series below, and every n of its grid, each side (ktheory, then its peer) is fitted
in a fresh subprocess of this script (``--child``), so that its peak memory is its own: the
child builds the data, warms the solver up on the same kind of problem at ``min(n, 2500)``
points (imports, numba's load of compiled code, BLAS start-up are not charged; for the SMO
series the compiled solver is loaded first, as in a session that has fitted a large set, so
that ``solver="auto"`` solves every size compiled), resets the peak resident size, fits once and reports the wall time and the peak resident memory the
fit added (``_record.peak_rss_mib``). The fit is repeated (twice more under 3 s, once more
under 20 s) and the fastest run is kept: on a shared machine the slow runs are the ones
another process interrupted. Both sides see the same data and the same model where one exists
(the notes say where the models differ).

The rows go to the benchmark record with ``series`` set; the book's page "How fast is
ktheory" plots time and memory against n on log-log axes, with the fitted slope (the
exponent b in time ~ a n^b over the grid).

Run:  .venv/bin/python benchmarks/bench_scaling.py [--series NAME ...] [--quick]
(``--quick``: the two smallest n of each grid). The whole run takes about ten minutes on
two cores.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from _record import add, peak_rss_mib

D = 20
HERE = Path(__file__).resolve()

# name: (ktheory's solver, peer, grid of n, note)
SERIES: dict[str, dict] = {
    "svc_rbf": dict(ours="ktheory.svm.SVC (RBF, C = 1, tol 1e-3)",
                    peer="sklearn.svm.SVC (libsvm)", grid=(1000, 2000, 4000, 8000)),
    "svr_rbf": dict(ours="ktheory.svm.SVR (RBF, C = 1, epsilon 0.1, tol 1e-3)",
                    peer="sklearn.svm.SVR (libsvm)", grid=(1000, 2000, 4000, 8000)),
    "svc_ovo": dict(ours="ktheory.svm.SVC, 5 classes one-vs-one (RBF)",
                    peer="sklearn.svm.SVC (libsvm, one-vs-one)", grid=(1000, 2000, 4000, 8000)),
    "llw": dict(ours="ktheory.svm.MulticlassSVC (Lee-Lin-Wahba, 5 classes, RBF)",
                peer="sklearn.svm.SVC (one-vs-one: a different model)",
                grid=(500, 1000, 2000, 4000)),
    "csvm": dict(ours="ktheory.csvm.CentralSVC (RBF, C = 1, tol 1e-3)",
                 peer="sklearn.svm.SVC (the ordinary SVM: a different model)",
                 grid=(1000, 2000, 4000)),
    "kernel_ridge": dict(ours="ktheory.ridge.KernelRidge (RBF)",
                         peer="sklearn.kernel_ridge.KernelRidge", grid=(1000, 2000, 4000)),
    "kfd": dict(ours="ktheory.fisher.KernelFisherDiscriminant (RBF, two classes)",
                peer=None, grid=(1000, 2000, 4000)),
    "kpca": dict(ours="ktheory.kpca.KernelPCA (RBF, 10 components)",
                 peer="sklearn.decomposition.KernelPCA (dense eigensolver)",
                 grid=(1000, 2000, 4000)),
    "nystrom": dict(ours="ktheory.mercer.NystromFeatures (500 landmarks) fit + transform",
                    peer="sklearn.kernel_approximation.Nystroem", grid=(5000, 20000, 80000)),
    "qda": dict(ours="ktheory.classic.GaussianQuadraticClassifier fit + predict_log_proba",
                peer="sklearn QuadraticDiscriminantAnalysis", grid=(5000, 20000, 80000)),
    "mlp": dict(ours="ktheory.classic.MLPClassifier, 20 full-batch epochs (32 hidden)",
                peer="sklearn MLPClassifier, 20 full-batch SGD epochs",
                grid=(1000, 4000, 16000)),
    "cka": dict(ours="ktheory.alignment.cka (two n x n Gram matrices)",
                peer="KernelCenterer + element-wise sums", grid=(1000, 2000, 4000)),
}


def data(kind: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    score = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] - X[:, 4] ** 2 + 1
    if kind == "regression":
        return X, score + 0.1 * rng.standard_normal(n)
    if kind == "multiclass":
        y = np.digitize(score, np.quantile(score, [0.2, 0.4, 0.6, 0.8]))
    else:
        y = (score > np.median(score)).astype(int)
    flip = rng.random(n) < 0.1
    k = y.max() + 1
    y = np.where(flip, (y + rng.integers(1, k, n)) % k, y)
    return X, y


def job(series: str, side: str, n: int):
    """The fit to time: a zero-argument callable on fresh data of size n."""
    gamma = 1.0 / D
    if series in ("svc_rbf", "csvm"):
        X, y = data("binary", n)
        if side == "peer":
            from sklearn.svm import SVC
            return lambda: SVC(C=1.0, gamma=gamma, tol=1e-3).fit(X, y)
        if series == "svc_rbf":
            from ktheory.svm import SVC
            return lambda: SVC(C=1.0, gamma=gamma, tol=1e-3).fit(X, y)
        from ktheory.csvm import CentralSVC
        return lambda: CentralSVC(C=1.0, epsilon=0.3, kernel="rbf", gamma=gamma,
                                  tol=1e-3).fit(X, y)
    if series == "svr_rbf":
        X, z = data("regression", n)
        if side == "peer":
            from sklearn.svm import SVR
        else:
            from ktheory.svm import SVR
        return lambda: SVR(C=1.0, epsilon=0.1, gamma=gamma, tol=1e-3).fit(X, z)
    if series in ("svc_ovo", "llw"):
        X, y = data("multiclass", n)
        if side == "peer":
            from sklearn.svm import SVC
            return lambda: SVC(C=1.0, gamma=gamma, tol=1e-3).fit(X, y)
        if series == "svc_ovo":
            from ktheory.svm import SVC
            return lambda: SVC(C=1.0, gamma=gamma, tol=1e-3).fit(X, y)
        from ktheory.svm import MulticlassSVC
        return lambda: MulticlassSVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    if series == "kernel_ridge":
        X, z = data("regression", n)
        if side == "peer":
            from sklearn.kernel_ridge import KernelRidge
        else:
            from ktheory.ridge import KernelRidge
        return lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=gamma).fit(X, z)
    if series == "kfd":
        X, y = data("binary", n)
        from ktheory.fisher import KernelFisherDiscriminant
        return lambda: KernelFisherDiscriminant(kernel="rbf", gamma=gamma).fit(X, y)
    if series == "kpca":
        X, _ = data("regression", n)
        if side == "peer":
            from sklearn.decomposition import KernelPCA
            return lambda: KernelPCA(10, kernel="rbf", gamma=gamma,
                                     eigen_solver="dense").fit(X)
        from ktheory.kpca import KernelPCA
        return lambda: KernelPCA(10, kernel="rbf", gamma=gamma).fit(X)
    if series == "nystrom":
        X, _ = data("regression", n)
        sigma = math.sqrt(D / 2)  # gamma = 1 / (2 sigma^2) = 1 / d
        if side == "peer":
            from sklearn.kernel_approximation import Nystroem
            return lambda: Nystroem(gamma=gamma, n_components=500,
                                    random_state=0).fit(X).transform(X)
        from ktheory.mercer import NystromFeatures
        return lambda: NystromFeatures(500, sigma=sigma, random_state=0).fit(X).transform(X)
    if series == "qda":
        X, y = data("multiclass", n)
        X = X + y[:, None]  # separated means
        if side == "peer":
            from sklearn.covariance import EmpiricalCovariance
            from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as QDA
            return lambda: QDA(solver="eigen", covariance_estimator=EmpiricalCovariance()
                               ).fit(X, y).predict_log_proba(X)
        from ktheory.classic import GaussianQuadraticClassifier
        return lambda: GaussianQuadraticClassifier().fit(X, y).predict_log_proba(X)
    if series == "mlp":
        X, y = data("binary", n)
        if side == "peer":
            import warnings

            from sklearn.exceptions import ConvergenceWarning
            from sklearn.neural_network import MLPClassifier

            def fit():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    MLPClassifier((32,), activation="logistic", solver="sgd", batch_size=n,
                                  momentum=0.9, nesterovs_momentum=False,
                                  learning_rate_init=0.1, max_iter=20, tol=0.0,
                                  n_iter_no_change=21, shuffle=False, random_state=0).fit(X, y)
            return fit
        from ktheory.classic import MLPClassifier
        return lambda: MLPClassifier((32,), max_epochs=20).fit(X, y)
    if series == "cka":
        X, _ = data("regression", n)
        F = X[:, :10]
        K = np.exp(-0.05 * ((X[:, None, :3] - X[None, :, :3]) ** 2).sum(-1))
        L = F @ F.T
        if side == "peer":
            from sklearn.preprocessing import KernelCenterer

            def fit():
                Kc = KernelCenterer().fit_transform(K)
                Lc = KernelCenterer().fit_transform(L)
                return np.sum(Kc * Lc) / np.sqrt(np.sum(Kc * Kc) * np.sum(Lc * Lc))
            return fit
        from ktheory.alignment import cka
        return lambda: cka(K, L)
    raise ValueError(f"unknown series {series!r}")


#: The series whose ktheory side runs the SVM's SMO: timed with the compiled solver loaded
#: (see ``_record.load_compiled_svm``), so that solver="auto" solves every size compiled
SMO_SERIES = ("svc_rbf", "svr_rbf", "svc_ovo", "csvm")


def child(series: str, side: str, n: int) -> None:
    if side != "peer" and series in SMO_SERIES:
        from _record import load_compiled_svm

        load_compiled_svm()
    job(series, side, min(n, 2500))()  # warm-up: imports, compiled code, BLAS threads
    fit = job(series, side, n)
    seconds, mib = peak_rss_mib(fit)
    repeats = 2 if seconds < 3.0 else 1 if seconds < 20.0 else 0
    seconds = min([seconds] + [peak_rss_mib(fit)[0] for _ in range(repeats)])
    print(json.dumps(dict(seconds=seconds, mib=mib)))


def measure(series: str, side: str, n: int) -> dict:
    out = subprocess.run([sys.executable, str(HERE), "--child", series, side, str(n)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(ns, ts) -> float:
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", nargs="+", choices=list(SERIES))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", nargs=3, metavar=("SERIES", "SIDE", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    for name in args.series or list(SERIES):
        spec = SERIES[name]
        grid = spec["grid"][:2] if args.quick else spec["grid"]
        ours_t, peer_t = [], []
        print(f"[{name}] {spec['ours']}  vs  {spec['peer']}", flush=True)
        for n in grid:
            o = measure(name, "ours", n)
            p = measure(name, "peer", n) if spec["peer"] else None
            ours_t.append(o["seconds"])
            line = f"  n={n:>6}  ktheory {o['seconds']:8.3f} s {o['mib'] or 0:8.1f} MiB"
            if p is not None:
                peer_t.append(p["seconds"])
                line += (f" | peer {p['seconds']:8.3f} s {p['mib'] or 0:8.1f} MiB"
                         f" | ratio {o['seconds'] / p['seconds']:5.2f}")
            print(line, flush=True)
            add(f"{name} n={n}", spec["ours"], n=n, time_s=o["seconds"], peer=spec["peer"],
                peer_time_s=None if p is None else p["seconds"], mem_mb=o["mib"],
                peer_mem_mb=None if p is None else p["mib"], series=name,
                params=dict(d=D, mem="peak RSS added by the fit, fresh process"))
        msg = f"  slope of log time against log n: ktheory {slope(grid, ours_t):.2f}"
        if peer_t:
            msg += f", peer {slope(grid, peer_t):.2f}"
        print(msg, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
