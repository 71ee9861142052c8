"""One-vs-one multiclass SVC, laid out as libsvm and scikit-learn lay it out (estimator layer).

For ``k >= 3`` classes :class:`ktheory.svm.SVC` trains ``k(k-1)/2`` binary SVMs,
one per pair of classes ``(i, j)``, ``i < j``, in libsvm's order
``(0,1), (0,2), ..., (0,k-1), (1,2), ..., (k-2,k-1)``, and predicts by voting.
This module holds that machinery; the estimator only calls it (it takes the estimator as
an argument and imports none; below it, the solver layer). What it
reproduces of libsvm (``svm_train`` and ``svm_predict_values`` in ``svm.cpp``,
as shipped with scikit-learn):

* **classes and samples.** Classes are sorted (``classes_``); the training
  samples are grouped by class, each group in input order (libsvm's
  ``svm_group_classes`` with scikit-learn's sorted labels).
* **one binary problem per pair.** Pair ``(i, j)`` sees the samples of class
  ``i`` (label ``+1``) followed by those of class ``j`` (label ``-1``), both
  weighted by the same ``C``; the solver gets them in *reversed* order,
  which makes its first-index ties the last-index ties of libsvm (as for two
  classes), so each pair is the binary problem libsvm solves. Each pair's
  solver computes the kernel rows it needs from ``X`` (a cache of
  ``cache_size`` MiB per pair, as libsvm); a callable kernel's matrix of all
  training points is computed once and read by every pair.
* **support vectors.** A sample is a support vector if its dual variable is
  non-zero in *any* of its ``k - 1`` pairs; ``support_`` lists them grouped by
  class, each group in increasing index, and ``n_support_[c]`` counts those of
  class ``c``.
* **dual_coef_, shape (k - 1, n_SV).** libsvm's packed layout: in pair
  ``(i, j)`` the coefficients ``alpha_t y_t`` of the class-``i`` support vectors
  are in row ``j - 1`` (columns of class ``i``), those of the class-``j``
  support vectors in row ``i`` (columns of class ``j``). A support vector that
  is not a support vector of a given pair has coefficient 0 there.
* **intercept_, shape (k(k-1)/2,).** ``b_p`` in
  ``f_p(x) = sum_t alpha_t y_t k(x_t, x) + b_p`` (libsvm's ``-rho``), with
  ``f_p > 0`` for class ``i``. (For two classes scikit-learn flips the signs so
  that ``f > 0`` means ``classes_[1]``; for three or more it does not.)
* **voting.** ``f_p(x) > 0`` is a vote for ``i``, otherwise (``f_p(x) <= 0``)
  for ``j``; the prediction is the class with most votes, a tie going to the
  lowest class index.
* **decision_function_shape="ovr"** is scikit-learn's
  ``_ovr_decision_function(f < 0, -f, k)``: votes plus the sum of confidences
  ``s_c`` (``+f_p`` for the first class of the pair, ``-f_p`` for the second)
  squashed into ``(-1/3, 1/3)`` by ``s / (3 (|s| + 1))``, written out here because
  scikit-learn's function is private. Its argmax differs from the vote only
  where votes tie (``break_ties=True`` predicts by it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core import ConvergenceWarning, permute_in_place

__all__ = [
    "class_pairs",
    "OvOFit",
    "fit_ovo",
    "ovo_decision",
    "ovo_votes",
    "vote_winner",
    "ovr_decision",
    "ovo_coef",
]


def class_pairs(k: int) -> list[tuple[int, int]]:
    """The ``k(k-1)/2`` class pairs ``(i, j)``, ``i < j``, in libsvm's order.

    Examples
    --------
    >>> class_pairs(4)
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


@dataclass(frozen=True)
class OvOFit:
    """The learned attributes of a one-vs-one fit (names as scikit-learn's ``SVC``)."""

    support_: np.ndarray        # (n_SV,) int32, grouped by class
    n_support_: np.ndarray      # (k,) int32
    dual_coef_: np.ndarray      # (k - 1, n_SV), libsvm's packed layout
    intercept_: np.ndarray      # (k(k-1)/2,)
    n_iter_: np.ndarray         # (k(k-1)/2,) int32
    objective_: np.ndarray      # (k(k-1)/2,) dual objective of each pair (libsvm's min form)
    gap_: np.ndarray            # (k(k-1)/2,) final maximal violation of each pair
    solver_stats_: list         # (k(k-1)/2,) the solver's record of each pair
    alpha_: np.ndarray          # (k(k-1)/2, n_samples): pair p's alphas, 0 off its two classes


def fit_ovo(est: Any, X: np.ndarray, cls: np.ndarray, k: int, C: float | np.ndarray, tol: float,
            max_iter: int, keep: np.ndarray | None = None) -> OvOFit:
    """Train the ``k(k-1)/2`` pairwise SVMs of ``est`` (a :class:`ktheory.svm.SVC`
    whose kernel is set) on ``X`` with class codes ``cls`` in ``0..k-1``.

    ``C``: one bound, or one per sample of ``X`` (libsvm's weighted ``C_i``); ``keep``:
    the samples that take part (None: all; the others, of zero or negative weight, are
    in no pair's problem and get ``alpha_ = 0``).

    Returns the learned attributes in scikit-learn's layout (see the module
    docstring). ``max_iter`` is the internal limit (``sys.maxsize`` for none);
    pairs that stop at it are reported in one :class:`ConvergenceWarning`.
    """
    n_all = cls.shape[0]
    kept = np.arange(n_all) if keep is None else np.flatnonzero(keep)
    perm = kept[np.argsort(cls[kept], kind="stable")]   # libsvm's grouped order
    n = perm.shape[0]
    counts = np.bincount(cls[kept], minlength=k)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    gram = est._training_gram(X)   # None for a named kernel: rows computed on demand
    diag = rows = None
    fast = est._solver(n_all)
    if gram is None and fast is not None:   # the kernel's diagonal and rows, once for all pairs
        diag = fast.kernel_diag(fast.KERNEL_CODES[est._kernel_params_["kernel"]], X,
                                est._kernel_codes())
        rows = est._solver_rows(X)
    Xs, Cs, grouped = X, C, False
    if gram is None and fast is None:
        # numpy path: the Gram matrix once for all pairs, of X as given, as kernel(X, X) gives
        # it (a BLAS product may round an entry differently where its rows sit elsewhere,
        # as OpenBLAS's SkylakeX kernel does, and kernel="linear" would then not fit what
        # kernel="precomputed" on X @ X.T fits); then in grouped order, so that a pair's
        # block is four slices of it (gather_block)
        gram = est._dual_gram(X)
        if n == n_all:
            Xs = X[perm]
            Cs = C[perm] if np.ndim(C) else C
            grouped = True
            permute_in_place(gram, perm)

    pairs = class_pairs(k)
    n_pairs = len(pairs)
    coef_sorted = np.zeros((n_pairs, n))  # alpha_t y_t of pair p, sample at sorted position t
    intercept = np.empty(n_pairs)
    n_iter = np.empty(n_pairs, dtype=np.int32)
    objective = np.empty(n_pairs)
    gap = np.empty(n_pairs)
    unconverged = []
    stats = []
    idx = np.arange(n)
    budget = est._numpy_budget()      # solver="auto": the numpy iterations of all pairs
    caught: list = []
    # the pairs' warnings in one record: non-convergence is reported once, below, for all;
    # the others are passed on, also when a pair fails
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            for p, (i, j) in enumerate(pairs):
                si = slice(start[i], start[i] + counts[i])
                sj = slice(start[j], start[j] + counts[j])
                pos = np.concatenate((idx[si], idx[sj]))
                y = np.concatenate((np.ones(counts[i]), -np.ones(counts[j])))
                base = pos[::-1].copy() if grouped else perm[pos][::-1].copy()
                res = est._dual(Xs, gram, base, y[::-1].copy(), Cs, tol, max_iter,
                                diag=diag, rows=rows, budget=budget)
                if not res.converged:
                    unconverged.append(f"({i}, {j}): {res.gap:.3g}")
                a = res.alpha[::-1]                  # in pos's order: class i, then j
                coef_sorted[p, si] = a[:counts[i]]
                coef_sorted[p, sj] = -a[counts[i]:]
                intercept[p] = 0.0 + res.intercept   # libsvm's -rho; 0.0 + avoids -0.0
                n_iter[p] = res.n_iter
                objective[p] = res.objective
                gap[p] = res.gap
                stats.append(res.stats)
    finally:
        for wrn in caught:
            if not issubclass(wrn.category, ConvergenceWarning):
                warnings.warn_explicit(wrn.message, wrn.category, wrn.filename, wrn.lineno)
    del gram
    if unconverged:
        warnings.warn(
            f"Solver terminated early (max_iter={max_iter}).  Consider pre-processing your "
            f"data with StandardScaler or MinMaxScaler. "
            f"SMO stopped at max_iter before reaching tol={tol:g} in {len(unconverged)} of the "
            f"{n_pairs} class pairs (maximal violations {', '.join(unconverged[:5])}"
            f"{', ...' if len(unconverged) > 5 else ''}); those solutions are not optimal to tol. "
            "Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=4,
        )

    # support vectors: non-zero in any pair, at sorted positions (grouped by class)
    sv_pos = np.flatnonzero(np.any(coef_sorted != 0.0, axis=0))
    sv_class = cls[perm[sv_pos]]
    n_support = np.bincount(sv_class, minlength=k).astype(np.int32)
    dual_coef = np.zeros((k - 1, sv_pos.size))
    for p, (i, j) in enumerate(pairs):
        on_i = sv_class == i
        on_j = sv_class == j
        dual_coef[j - 1, on_i] = coef_sorted[p, sv_pos[on_i]]
        dual_coef[i, on_j] = coef_sorted[p, sv_pos[on_j]]

    alpha = np.zeros((n_pairs, n_all))
    alpha[:, perm] = np.abs(coef_sorted)
    return OvOFit(
        support_=perm[sv_pos].astype(np.int32),
        n_support_=n_support,
        dual_coef_=dual_coef,
        intercept_=intercept,
        n_iter_=n_iter,
        objective_=objective,
        gap_=gap,
        solver_stats_=stats,
        alpha_=alpha,
    )


def ovo_decision(Kt: np.ndarray, dual_coef: np.ndarray, intercept: np.ndarray,
                 n_support: np.ndarray) -> np.ndarray:
    """Pairwise decision values ``(n_test, k(k-1)/2)`` from the kernel values
    ``Kt`` (``n_test x n_SV``) between test points and all support vectors.

    Column ``p`` for pair ``(i, j)`` is ``Kt[:, SV_i] @ dual_coef_[j-1, SV_i] +
    Kt[:, SV_j] @ dual_coef_[i, SV_j] + intercept_[p]`` (libsvm's
    ``predict_values``), positive for class ``i``. One matrix-vector product
    per pair over the test points (no loop over samples).

    Examples
    --------
    >>> Kt = np.array([[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]])   # 3 SVs, one per class
    >>> coef = np.array([[1.0, -1.0, -1.0], [1.0, 1.0, -1.0]])
    >>> ovo_decision(Kt, coef, np.zeros(3), np.array([1, 1, 1])).tolist()
    [[0.5, 1.0, 0.5], [-0.5, -1.0, -0.5]]
    """
    k = n_support.shape[0]
    bounds = np.concatenate([[0], np.cumsum(n_support)])
    out = np.empty((Kt.shape[0], k * (k - 1) // 2))
    for p, (i, j) in enumerate(class_pairs(k)):
        si = slice(bounds[i], bounds[i + 1])
        sj = slice(bounds[j], bounds[j + 1])
        col = Kt[:, si] @ dual_coef[j - 1, si]
        col += Kt[:, sj] @ dual_coef[i, sj]
        col += intercept[p]
        out[:, p] = col
    return out


def ovo_votes(dec: np.ndarray, k: int) -> np.ndarray:
    """Votes ``(n_test, k)``: pair ``(i, j)`` votes ``i`` where ``f > 0``, else ``j``
    (libsvm: a decision value of exactly 0 is a vote for ``j``).

    Examples
    --------
    >>> ovo_votes(np.array([[0.5, 1.0, 0.5], [0.0, -1.0, 2.0]]), 3).tolist()
    [[2, 1, 0], [0, 2, 1]]
    """
    votes = np.zeros((dec.shape[0], k), dtype=np.int64)
    for p, (i, j) in enumerate(class_pairs(k)):
        win = dec[:, p] > 0
        votes[:, i] += win
        votes[:, j] += ~win
    return votes


def vote_winner(dec: np.ndarray, k: int) -> np.ndarray:
    """Index of the class with most votes; a tie goes to the lowest index (libsvm).

    Examples
    --------
    >>> vote_winner(np.array([[1.0, -1.0, 1.0]]), 3).tolist()   # one vote each
    [0]
    """
    return ovo_votes(dec, k).argmax(axis=1)  # argmax returns the first maximum


def ovr_decision(dec: np.ndarray, k: int) -> np.ndarray:
    """scikit-learn's one-vs-rest shaped decision function ``(n_test, k)`` from the
    pairwise values ``dec`` (``_ovr_decision_function(dec < 0, -dec, k)``).

    Column ``c`` is the number of pairs won by ``c`` (``f >= 0`` counts for the
    first class of the pair here, unlike libsvm's vote) plus ``s_c / (3 (|s_c| +
    1))``, where ``s_c`` sums ``f_p`` over the pairs where ``c`` comes first and
    ``-f_p`` where it comes second. The squashed term lies in ``(-1/3, 1/3)``,
    so it only orders classes with equal vote counts.

    Examples
    --------
    >>> np.round(ovr_decision(np.array([[1.0, -1.0, 1.0]]), 3), 6).tolist()
    [[1.0, 1.0, 1.0]]
    >>> np.round(ovr_decision(np.array([[2.0, -1.0, 1.0]]), 3), 6).tolist()
    [[1.166667, 0.833333, 1.0]]
    """
    votes = np.zeros((dec.shape[0], k))
    conf = np.zeros((dec.shape[0], k))
    for p, (i, j) in enumerate(class_pairs(k)):
        f = dec[:, p]
        conf[:, i] += f
        conf[:, j] -= f
        first = f >= 0
        votes[:, i] += first
        votes[:, j] += ~first
    return votes + conf / (3 * (np.abs(conf) + 1))


def ovo_coef(dual_coef: np.ndarray, n_support: np.ndarray,
             support_vectors: np.ndarray) -> np.ndarray:
    """The primal weight vectors ``w_p`` of the pairs, ``(k(k-1)/2, n_features)``, for
    the linear kernel: row ``p`` for pair ``(i, j)`` is ``dual_coef_[j-1, SV_i] @ SV_i +
    dual_coef_[i, SV_j] @ SV_j`` (scikit-learn's ``_one_vs_one_coef``), so that
    ``f_p(x) = x @ w_p + intercept_[p]``.

    Examples
    --------
    >>> sv = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])   # one SV per class
    >>> coef = np.array([[1.0, -1.0, -1.0], [1.0, 1.0, -1.0]])
    >>> ovo_coef(coef, np.array([1, 1, 1]), sv).tolist()
    [[1.0, -1.0], [0.0, -1.0], [-1.0, 0.0]]
    """
    k = n_support.shape[0]
    bounds = np.concatenate([[0], np.cumsum(n_support)])
    out = np.empty((k * (k - 1) // 2, support_vectors.shape[1]))
    for p, (i, j) in enumerate(class_pairs(k)):
        si = slice(bounds[i], bounds[i + 1])
        sj = slice(bounds[j], bounds[j + 1])
        out[p] = dual_coef[j - 1, si] @ support_vectors[si] + dual_coef[i, sj] @ support_vectors[sj]
    return out
