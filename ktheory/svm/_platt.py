"""Platt's probabilistic outputs for :class:`ktheory.svm.SVC`, as libsvm computes them
(estimator layer, private).

What ``SVC(probability=True)`` adds, written after libsvm's ``svm.cpp`` (as vendored in
scikit-learn):

* **the cross-validated decision values** (``svm_binary_svc_probability``): for each
  binary problem (each pair of classes, one for two classes), its samples are shuffled
  and cut into 5 folds; the binary SVM (same kernel, ``C``, ``tol``) is trained on four
  folds and its decision values on the fifth kept, in turn. A training part with one
  class only gives the held-out samples the value ``+1`` or ``-1`` (``0`` if empty), as
  libsvm. The shuffle is drawn from ``random_state`` through numpy
  (:func:`sklearn.utils.check_random_state`), not from libsvm's own generator, so the
  folds, and with them the fitted sigmoids, differ from scikit-learn's: the
  probabilities agree with scikit-learn's only to what the cross-validation's
  randomness allows (not to the solver's tolerance).
* **the sigmoid** ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` (:func:`sigmoid_train`): the
  regularised maximum likelihood of Platt (1999) with the targets
  ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, minimised by the Newton method with
  backtracking of Lin, Lin and Weng (2007).
* **the pairwise coupling** (:func:`pairwise_coupling`) of ``k >= 2`` classes: the
  pairwise estimates ``r_ij`` (clipped to ``[1e-7, 1 - 1e-7]``) combined by method 2 of
  Wu, Lin and Weng (2004), ``min_p p^T Q p`` subject to ``sum p = 1``, solved by
  libsvm's fixed-point iteration (``multiclass_probability``), vectorised over samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._core import check_max_iter
from ._ovo import class_pairs

__all__ = [
    "MIN_PROB",
    "N_FOLDS",
    "coupled_probabilities",
    "cv_decision_values",
    "fit_sigmoids",
    "pairwise_coupling",
    "sigmoid_predict",
    "sigmoid_train",
]

#: Folds of the internal cross-validation (libsvm's ``nr_fold``).
N_FOLDS = 5

#: libsvm's clipping of the pairwise probabilities ``r_ij`` to ``[MIN_PROB, 1 - MIN_PROB]``.
MIN_PROB = 1e-7


def _sigmoid_objective(f: np.ndarray, t: np.ndarray, A: float, B: float) -> float:
    """``sum_i t_i z_i + log(1 + exp(-z_i))`` with ``z_i = A f_i + B`` (libsvm's stable form)."""
    z = f * A + B
    return float(np.sum(np.where(z >= 0, t * z, (t - 1.0) * z) + np.log1p(np.exp(-np.abs(z)))))


def sigmoid_train(dec_values: Any, labels: Any, *, max_iter: int = 100) -> tuple[float, float]:
    """Fit Platt's sigmoid ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` (libsvm's ``sigmoid_train``).

    Minimises the cross-entropy ``sum_i -t_i log p_i - (1 - t_i) log(1 - p_i)`` with the
    smoothed targets ``t_i = (N+ + 1) / (N+ + 2)`` for ``labels > 0`` and ``1 / (N- + 2)``
    otherwise, by Newton's method on ``(A, B)`` with the Hessian shifted by ``1e-12 I``
    and a backtracking line search (sufficient decrease ``1e-4``, halving the step down to
    ``1e-10``), from ``A = 0``, ``B = log((N- + 1) / (N+ + 1))``, stopping when both
    components of the gradient are below ``1e-5`` (Lin, Lin and Weng, 2007).

    Parameters
    ----------
    dec_values : array_like of shape (n,)
        Decision values ``f_i`` (finite).
    labels : array_like of shape (n,)
        ``> 0`` for the positive class, anything else for the negative class.
    max_iter : int, default 100
        Newton iterations at most (libsvm's 100).

    Returns
    -------
    (float, float)
        ``(A, B)``.

    Examples
    --------
    >>> A, B = sigmoid_train([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], [-1, -1, 1, -1, 1, 1])
    >>> A < 0, round(B, 6) == 0.0
    (True, True)
    """
    f = np.asarray(dec_values, dtype=np.float64).ravel()
    lab = np.asarray(labels).ravel()
    if f.shape != lab.shape:
        raise ValueError(f"dec_values and labels must have the same length, got {f.shape[0]} "
                         f"and {lab.shape[0]}")
    if not np.all(np.isfinite(f)):
        raise ValueError("dec_values must be finite")
    pos = lab > 0
    prior1 = float(np.count_nonzero(pos))
    prior0 = float(f.shape[0]) - prior1
    min_step, sigma, eps = 1e-10, 1e-12, 1e-5
    t = np.where(pos, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = _sigmoid_objective(f, t, A, B)
    for _ in range(max_iter):
        z = f * A + B
        e = np.exp(-np.abs(z))
        # p = 1 / (1 + exp(z)), q = 1 - p, each in the form that does not overflow
        p = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        d2 = p * q
        h11 = sigma + float(np.sum(f * f * d2))
        h22 = sigma + float(np.sum(d2))
        h21 = float(np.sum(f * d2))
        d1 = t - p
        g1 = float(np.sum(f * d1))
        g2 = float(np.sum(d1))
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = _sigmoid_objective(f, t, newA, newB)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < min_step:   # line search failed (libsvm stops there too)
            break
    return float(A), float(B)


def sigmoid_predict(dec_values: Any, A: Any, B: Any) -> np.ndarray:
    """``1 / (1 + exp(A f + B))`` elementwise, in libsvm's form that does not overflow.

    Examples
    --------
    >>> sigmoid_predict(np.array([0.0, 1e4, -1e4]), -1.0, 0.0).tolist()
    [0.5, 1.0, 0.0]
    """
    z = np.asarray(dec_values, dtype=np.float64) * A + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(r: Any, *, eps: float | None = None, max_iter: int | None = None) -> np.ndarray:
    """Class probabilities from pairwise ones, method 2 of Wu, Lin and Weng (2004).

    For each sample, ``p`` minimises ``p^T Q p`` subject to ``sum_t p_t = 1``, where
    ``Q_tt = sum_{j != t} r_jt^2`` and ``Q_tj = -r_jt r_tj``; equivalently ``p`` solves
    the linear system ``Q p + b 1 = 0``, ``1^T p = 1``. Solved, as libsvm's
    ``multiclass_probability``, by its fixed-point iteration from ``p = 1/k``, stopping
    when ``max_t |(Q p)_t - p^T Q p| < eps``. The caller clips ``r`` (libsvm: to
    ``[1e-7, 1 - 1e-7]``) so that every ``Q_tt > 0``.

    Parameters
    ----------
    r : array_like of shape (k, k) or (n, k, k)
        ``r[i, j]`` estimates ``P(y = i | y in {i, j})``; ``r[j, i] = 1 - r[i, j]``
        (the diagonal is not read).
    eps : float, optional
        Stopping tolerance; default libsvm's ``0.005 / k``.
    max_iter : int, optional
        Sweeps at most; default libsvm's ``max(100, k)``.

    Returns
    -------
    numpy.ndarray of shape (k,) or (n, k)
        The probabilities (rows sum to 1).

    Examples
    --------
    >>> r = np.array([[0.0, 0.9], [0.1, 0.0]])
    >>> np.round(pairwise_coupling(r), 6).tolist()
    [0.9, 0.1]
    """
    R = np.asarray(r, dtype=np.float64)
    single = R.ndim == 2
    if single:
        R = R[None]
    if R.ndim != 3 or R.shape[1] != R.shape[2]:
        raise ValueError(f"r must have shape (k, k) or (n, k, k), got {np.shape(r)}")
    n, k = R.shape[0], R.shape[1]
    if k < 1:
        raise ValueError("r must have at least one class")
    eps = 0.005 / k if eps is None else float(eps)
    max_iter = max(100, k) if max_iter is None else int(max_iter)
    off = ~np.eye(k, dtype=bool)
    Rt = np.swapaxes(R, 1, 2)                         # Rt[:, t, j] = r[j, t]
    Q = np.where(off, -Rt * R, 0.0)                   # Q[t, j] = -r[j, t] r[t, j]
    Q[:, np.arange(k), np.arange(k)] = np.sum(np.where(off, Rt, 0.0) ** 2, axis=2)
    p = np.full((n, k), 1.0 / k)
    for _ in range(max_iter):
        Qp = np.einsum("ntj,nj->nt", Q, p)
        pQp = np.sum(p * Qp, axis=1)
        active = np.max(np.abs(Qp - pQp[:, None]), axis=1) >= eps
        if not np.any(active):
            break
        for t in range(k):                            # libsvm's sweep, every active sample at once
            diff = np.where(active, (-Qp[:, t] + pQp) / Q[:, t, t], 0.0)
            p[:, t] += diff
            pQp = (pQp + diff * (diff * Q[:, t, t] + 2.0 * Qp[:, t])) / (1.0 + diff) / (1.0 + diff)
            Qp = (Qp + diff[:, None] * Q[:, t, :]) / (1.0 + diff)[:, None]
            p /= (1.0 + diff)[:, None]
    return p[0] if single else p


def cv_decision_values(est: Any, X: Any, gram: np.ndarray | None, idx: np.ndarray,
                       y: np.ndarray, C: float | np.ndarray, tol: float, max_iter: int,
                       rng: np.random.RandomState, budget: list[int] | None = None
                       ) -> np.ndarray:
    """Cross-validated decision values of one binary problem (libsvm's
    ``svm_binary_svc_probability`` before its ``sigmoid_train``).

    ``idx`` are the problem's samples (indices into ``X``), ``y`` their labels ``+1`` /
    ``-1``; ``est`` is a :class:`ktheory.svm.SVC` whose kernel is set, ``gram`` its
    training Gram matrix or None (see ``KernelSVMBase._training_gram``). The samples are
    permuted by ``rng`` and cut at ``i l / 5``; each fold's values come from the SVM
    trained (same ``C``, ``tol``, ``max_iter``) on the other folds, positive for
    ``y = +1``; ``C`` is one bound or one per sample of ``X`` (the samples keep their
    weights in every fold, as in libsvm); ``budget``: the numpy iterations left to the
    folds under ``solver="auto"`` (see ``KernelSVMBase._dual``). Returns the values in the
    order of ``idx``.
    """
    m = idx.shape[0]
    perm = rng.permutation(m)
    dec = np.empty(m)
    for f in range(N_FOLDS):
        begin, end = f * m // N_FOLDS, (f + 1) * m // N_FOLDS
        held = perm[begin:end]
        train = np.concatenate([perm[:begin], perm[end:]])
        n_pos = int(np.count_nonzero(y[train] > 0))
        n_neg = train.shape[0] - n_pos
        if n_pos == 0 or n_neg == 0:
            dec[held] = 0.0 if train.shape[0] == 0 else (1.0 if n_neg == 0 else -1.0)
            continue
        # the training part grouped by label (+1 first, each in fold order) and reversed,
        # as the estimator orders its binary problems (libsvm's ties)
        train = train[np.argsort(-y[train], kind="stable")][::-1].copy()
        ys = y[train].astype(np.float64)
        res = est._dual(X, gram, idx[train], ys, C, tol, max_iter, budget=budget)
        sv = res.alpha > 0
        coef = res.alpha[sv] * ys[sv]
        if held.shape[0] == 0:
            continue
        if not np.any(sv):
            dec[held] = res.intercept
            continue
        rows, cols = idx[held], idx[train][sv]
        if gram is not None:
            Kt = np.asarray(gram[np.ix_(rows, cols)], dtype=np.float64)
        else:
            Kt = est._gram(X[rows], X[cols], "cross-validation data")
        dec[held] = Kt @ coef + res.intercept
    return dec


def fit_sigmoids(est: Any, X: Any, cls: np.ndarray, k: int,
                 rng: np.random.RandomState, C: float | np.ndarray | None = None,
                 keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(probA_, probB_)`` of a :class:`ktheory.svm.SVC` whose kernel is set: for each
    pair ``(i, j)`` in libsvm's order, the sigmoid fitted (:func:`sigmoid_train`) on the
    cross-validated decision values (:func:`cv_decision_values`) of libsvm's binary
    problem, class ``i`` (``+1``) then class ``j`` (``-1``), each in input order; one
    ``rng`` for all pairs, drawn in that order, as libsvm. ``cls``: class codes ``0..k-1``;
    ``C``: one bound or one per sample (default ``est.C``); ``keep``: the samples of
    positive weight that take part (None: all)."""
    gram = est._training_gram(X)
    tol, max_iter = float(est.tol), check_max_iter(est.max_iter)
    if C is None:
        C = float(est.C)
    in_fit = np.ones(cls.shape[0], dtype=bool) if keep is None else keep
    pairs = class_pairs(k)
    budget = est._numpy_budget()      # one budget for all the folds of all pairs
    probA = np.empty(len(pairs))
    probB = np.empty(len(pairs))
    for p, (i, j) in enumerate(pairs):
        idx = np.concatenate([np.flatnonzero((cls == i) & in_fit),
                              np.flatnonzero((cls == j) & in_fit)])
        y = np.where(cls[idx] == i, 1.0, -1.0)
        dec = cv_decision_values(est, X, gram, idx, y, C, tol, max_iter, rng, budget)
        probA[p], probB[p] = sigmoid_train(dec, y)
    return probA, probB


def coupled_probabilities(dec: np.ndarray, probA: np.ndarray, probB: np.ndarray,
                          k: int) -> np.ndarray:
    """Class probabilities ``(n, k)`` from the pairwise decision values ``dec`` ``(n,
    k(k-1)/2)`` (libsvm's sign: positive for the pair's first class), as libsvm's
    ``svm_predict_probability``: ``r_ij`` the pair's sigmoid clipped to ``[1e-7, 1 -
    1e-7]``, ``r_ji = 1 - r_ij``, coupled by :func:`pairwise_coupling`.

    Examples
    --------
    >>> np.round(coupled_probabilities(np.array([[0.0], [2.0]]), np.array([-1.0]),
    ...                                np.array([0.0]), 2), 2).tolist()
    [[0.5, 0.5], [0.88, 0.12]]
    """
    r_pair = np.clip(sigmoid_predict(dec, probA, probB), MIN_PROB, 1.0 - MIN_PROB)
    r = np.zeros((dec.shape[0], k, k))
    for p, (i, j) in enumerate(class_pairs(k)):
        r[:, i, j] = r_pair[:, p]
        r[:, j, i] = 1.0 - r_pair[:, p]
    return pairwise_coupling(r)
