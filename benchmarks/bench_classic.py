"""Benchmark ktheory.classic against scikit-learn's peers.

Run:  .venv/bin/python benchmarks/bench_classic.py
Prints median wall times and ratios ktheory / scikit-learn:
  * GaussianQuadraticClassifier vs QuadraticDiscriminantAnalysis (same ML covariance),
    fit + predict_log_proba, n = 20000, d = 20, 3 classes;
  * PiecewiseLinearClassifier(n_subclasses=1, max_passes=0) (minimum distance to class means)
    vs NearestCentroid, predict on n = 20000, d = 20;
  * MLPClassifier vs sklearn's MLPClassifier(solver="sgd", full batch, momentum 0.9, logistic),
    time per epoch, n = 5000, d = 20, 32 hidden units (the losses differ: squared error here,
    log-loss there; only the cost of an epoch is compared).
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np
from sklearn.covariance import EmpiricalCovariance
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import NearestCentroid
from sklearn.neural_network import MLPClassifier as SkMLP

from ktheory.classic import GaussianQuadraticClassifier, MLPClassifier, PiecewiseLinearClassifier


def median_time(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    n, d = 20000, 20
    X = rng.standard_normal((n, d)) + np.repeat(np.eye(3, d) * 2, [n // 3, n // 3, n - 2 * (n // 3)], axis=0)
    y = np.repeat([0, 1, 2], [n // 3, n // 3, n - 2 * (n // 3)])

    t_kt = median_time(lambda: GaussianQuadraticClassifier().fit(X, y).predict_log_proba(X))
    t_sk = median_time(lambda: QuadraticDiscriminantAnalysis(solver="eigen", covariance_estimator=EmpiricalCovariance())
                       .fit(X, y).predict_log_proba(X))
    print(f"Gaussian quadratic fit+predict_log_proba n={n} d={d}: ktheory {t_kt:.4f} s, sklearn QDA {t_sk:.4f} s, "
          f"ratio {t_kt / t_sk:.2f}")

    plc = PiecewiseLinearClassifier(1, init="means", max_passes=0).fit(X, y)
    nc = NearestCentroid().fit(X, y)
    assert np.mean(plc.predict(X) == nc.predict(X)) == 1.0
    t_kt = median_time(lambda: plc.predict(X))
    t_sk = median_time(lambda: nc.predict(X))
    print(f"minimum distance predict n={n} d={d}: ktheory {t_kt:.4f} s, sklearn NearestCentroid {t_sk:.4f} s, "
          f"ratio {t_kt / t_sk:.2f}")

    m, epochs = 5000, 50
    idx = rng.permutation(n)[:m]
    Xm, ym = X[idx], (y[idx] > 0).astype(int)
    t_kt = median_time(lambda: MLPClassifier((32,), max_epochs=epochs).fit(Xm, ym), repeat=3) / epochs

    def sk_fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            SkMLP((32,), activation="logistic", solver="sgd", batch_size=m, momentum=0.9, nesterovs_momentum=False,
                  learning_rate_init=0.1, max_iter=epochs, tol=0.0, n_iter_no_change=epochs + 1, shuffle=False,
                  random_state=0).fit(Xm, ym)

    t_sk = median_time(sk_fit, repeat=3) / epochs
    print(f"MLP full-batch epoch n={m} d={d} hidden=32: ktheory {t_kt * 1e3:.3f} ms, sklearn {t_sk * 1e3:.3f} ms, "
          f"ratio {t_kt / t_sk:.2f}")


if __name__ == "__main__":
    main()
