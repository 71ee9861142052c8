"""Benchmark of ktheory.fisher (run: .venv/bin/python benchmarks/bench_fisher.py).

Two-class kernel Fisher discriminant, RBF kernel, d = 10, at n = 2000, 5000 and
10 000: ``KernelFisherDiscriminant.fit`` (within-class centring in place into
F = K C, Householder QR of F' in place and of the stacked [R; sqrt(ridge) I]; N is never
formed) against a direct dense implementation of the textbook formulas (seed 000 eq. (18):
N = K K' - sum_c n_c m_c m_c', then the explicit inverse (N + ridge I)^{-1} (m_1 - m_0)),
with the estimator's ridge (``ridge_``, its relative ``mu`` times trace(N) / n).

Both sides are warmed up once on a small problem (one-time import and BLAS
start-up costs are not charged to whichever runs first). The wall-clock time is
measured without tracemalloc (which slows allocation-heavy code); the
tracemalloc peak is measured in a separate run. Prints the times, their ratio
(> 1 means ktheory is faster), the peaks in units of 8 n^2 bytes (one n x n
float64 array) and |cos| between the two directions, for mu > 0 and for the
pseudo-inverse path mu = 0 (memory only). Asserts the issue's memory bound,
peak <= 3 x 8 n^2, for every n (10 000 included) and both paths. scikit-learn has no kernel Fisher discriminant, so the peer is the
direct implementation. (No scikit-learn estimator is involved; its
``rbf_kernel`` is not used either, both sides use ktheory's Gram matrix.)
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _record import add

from ktheory.fisher import KernelFisherDiscriminant
from ktheory.kernels import rbf_kernel

MU = 1e-3


def direct_dense(X, y, gamma, mu):
    """The formulas as written: explicit N, explicit inverse."""
    K = rbf_kernel(X, gamma=gamma)
    n = len(y)
    N = K @ K.T
    means = []
    for c in (0, 1):
        idx = y == c
        m_c = K[:, idx].mean(axis=1)
        N -= idx.sum() * np.outer(m_c, m_c)
        means.append(m_c)
    alpha = np.linalg.inv(N + mu * np.eye(n)) @ (means[1] - means[0])
    return alpha


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def peak_of(f):
    tracemalloc.start()
    f()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def warm_up():
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(50, int), np.ones(50, int)]
    X = rng.standard_normal((100, 10)) + 0.7 * y[:, None]
    for mu in (MU, 0.0):
        KernelFisherDiscriminant(kernel="rbf", gamma=0.1, mu=mu).fit(X, y)
    direct_dense(X, y, 0.1, MU)


def main(sizes=(2000, 5000, 10000)):
    warm_up()
    print(f"two-class KFD, rbf kernel gamma = 1/d, d = 10, relative mu = {MU:g} "
          "(and mu = 0: peak only)")
    print(f"{'n':>6} {'ktheory s':>10} {'direct s':>9} {'time ratio':>10} "
          f"{'peak/8n^2':>9} {'mu=0 peak':>9} {'direct/8n^2':>11} {'|cos|':>9}")
    for n in sizes:
        rng = np.random.default_rng(n)
        y = (rng.random(n) < 0.5).astype(int)
        X = rng.standard_normal((n, 10)) + 0.7 * y[:, None]
        X = np.ascontiguousarray(X)
        est = KernelFisherDiscriminant(kernel="rbf", gamma=0.1, mu=MU)
        est0 = KernelFisherDiscriminant(kernel="rbf", gamma=0.1, mu=0.0)
        t_k, _ = timed(lambda: est.fit(X, y))
        a_k = est.alphas_[:, 0]
        ridge = est.ridge_  # the same regularised problem on both sides
        t_d, a_d = timed(lambda: direct_dense(X, y, 0.1, ridge))
        cos = abs(a_k @ a_d) / (np.linalg.norm(a_k) * np.linalg.norm(a_d))
        unit = 8.0 * n * n
        p_k = peak_of(lambda: est.fit(X, y)) / unit
        p_0 = peak_of(lambda: est0.fit(X, y)) / unit
        p_d = peak_of(lambda: direct_dense(X, y, 0.1, ridge)) / unit
        print(f"{n:>6} {t_k:>10.2f} {t_d:>9.2f} {t_d / t_k:>10.2f} "
              f"{p_k:>9.2f} {p_0:>9.2f} {p_d:>11.2f} {cos:>9.6f}", flush=True)
        add(f"two-class rbf n={n}", "ktheory.fisher.KernelFisherDiscriminant fit", n=n,
            time_s=t_k, peer="direct dense textbook formulas (explicit inverse)",
            peer_time_s=t_d, mem_mb=p_k * unit / 2**20, peer_mem_mb=p_d * unit / 2**20,
            params=dict(d=10, mu=MU, mem="tracemalloc peak", abs_cos=float(cos)))
        assert p_k <= 3.0 and p_0 <= 3.0, f"n = {n}: peak {p_k:.2f} / {p_0:.2f} x 8n^2 > 3"


if __name__ == "__main__":
    main()
