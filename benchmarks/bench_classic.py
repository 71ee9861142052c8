"""Benchmark ktheory.classic against scikit-learn's peers.

Run:  .venv/bin/python benchmarks/bench_classic.py
Prints median wall times and ratios ktheory / scikit-learn, and records one row per case
(benchmarks/_record.py) for ``make bench``:
  * GaussianQuadraticClassifier vs QuadraticDiscriminantAnalysis (same ML covariance),
    fit + predict_log_proba, n = 20000, d = 20, 3 classes (issue 28 target: ratio <= 1.2);
  * PiecewiseLinearClassifier(n_subclasses=1, max_passes=0) (minimum distance to class means)
    vs NearestCentroid, predict on n = 20000, d = 20 (reported only);
  * MLPClassifier vs sklearn's MLPClassifier(solver="sgd", full batch, momentum 0.9, logistic),
    time per epoch, n = 5000, d = 20, 32 hidden units (the losses differ: squared error here,
    log-loss there; only the cost of an epoch is compared; issue 28 target: ratio <= 1.5).

The machine is shared, so each case alternates the two sides (ours, peer, ours, peer, ...)
after one warm-up call of each, and compares the medians of the same run.
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np
from _record import add
from sklearn.covariance import EmpiricalCovariance
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import NearestCentroid
from sklearn.neural_network import MLPClassifier as SkMLP

from ktheory.classic import GaussianQuadraticClassifier, MLPClassifier, PiecewiseLinearClassifier


def interleaved_medians(ours, peer, repeat: int = 7) -> tuple[float, float]:
    """Median wall times of ``ours()`` and ``peer()``, timed alternately after a warm-up each."""
    ours()
    peer()
    t_ours, t_peer = [], []
    for _ in range(repeat):
        for fn, times in ((ours, t_ours), (peer, t_peer)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(t_ours), statistics.median(t_peer)


def main() -> None:
    rng = np.random.default_rng(0)
    n, d = 20000, 20
    X = rng.standard_normal((n, d)) + np.repeat(np.eye(3, d) * 2, [n // 3, n // 3, n - 2 * (n // 3)], axis=0)
    y = np.repeat([0, 1, 2], [n // 3, n // 3, n - 2 * (n // 3)])

    t_kt, t_sk = interleaved_medians(
        lambda: GaussianQuadraticClassifier().fit(X, y).predict_log_proba(X),
        lambda: QuadraticDiscriminantAnalysis(solver="eigen", covariance_estimator=EmpiricalCovariance())
        .fit(X, y).predict_log_proba(X),
        repeat=15)
    print(f"Gaussian quadratic fit+predict_log_proba n={n} d={d}: ktheory {t_kt:.4f} s, sklearn QDA {t_sk:.4f} s, "
          f"ratio {t_kt / t_sk:.2f} (target <= 1.2)")
    add("qda fit+predict_log_proba", "ktheory.classic.GaussianQuadraticClassifier fit + predict_log_proba",
        n=n, time_s=t_kt, peer="sklearn QuadraticDiscriminantAnalysis(solver='eigen', EmpiricalCovariance)",
        peer_time_s=t_sk, target_ratio=1.2, params={"d": d, "classes": 3})

    plc = PiecewiseLinearClassifier(1, init="means", max_passes=0).fit(X, y)
    nc = NearestCentroid().fit(X, y)
    assert np.mean(plc.predict(X) == nc.predict(X)) == 1.0
    t_kt, t_sk = interleaved_medians(lambda: plc.predict(X), lambda: nc.predict(X), repeat=15)
    print(f"minimum distance predict n={n} d={d}: ktheory {t_kt:.4f} s, sklearn NearestCentroid {t_sk:.4f} s, "
          f"ratio {t_kt / t_sk:.2f}")
    add("minimum distance predict",
        "ktheory.classic.PiecewiseLinearClassifier(n_subclasses=1, max_passes=0) predict",
        n=n, time_s=t_kt, peer="sklearn NearestCentroid", peer_time_s=t_sk,
        params={"d": d, "classes": 3})

    m, epochs, hidden = 5000, 50, 32
    idx = rng.permutation(n)[:m]
    Xm, ym = X[idx], (y[idx] > 0).astype(int)

    def sk_fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            SkMLP((hidden,), activation="logistic", solver="sgd", batch_size=m, momentum=0.9,
                  nesterovs_momentum=False, learning_rate_init=0.1, max_iter=epochs, tol=0.0,
                  n_iter_no_change=epochs + 1, shuffle=False, random_state=0).fit(Xm, ym)

    t_kt, t_sk = interleaved_medians(lambda: MLPClassifier((hidden,), max_epochs=epochs).fit(Xm, ym), sk_fit,
                                     repeat=7)
    t_kt, t_sk = t_kt / epochs, t_sk / epochs
    print(f"MLP full-batch epoch n={m} d={d} hidden={hidden}: ktheory {t_kt * 1e3:.3f} ms, "
          f"sklearn {t_sk * 1e3:.3f} ms, ratio {t_kt / t_sk:.2f} (target <= 1.5)")
    add("mlp full-batch epoch", "ktheory.classic.MLPClassifier fit, time per epoch", n=m, time_s=t_kt,
        peer="sklearn MLPClassifier(solver='sgd', full batch, logistic), time per epoch",
        peer_time_s=t_sk, target_ratio=1.5, params={"d": d, "hidden": hidden, "epochs": epochs})


if __name__ == "__main__":
    main()
