"""What the two SMO solvers share: the solver layer's constants, result and rules (private).

The readable reference (:mod:`ktheory.svm._smo`, numpy) and the compiled solver
(:mod:`ktheory.svm._fast`, numba) solve the same dual by the same rules; what they must
agree on is written once here: libsvm's ``TAU``, the result type and the
:class:`ConvergenceWarning`, the ``max_iter`` convention, the rescaling of tiny kernels,
the shifted matrix ``H = w - K``, the stopping measure and the intercept rule. This module
imports nothing from the estimators (:mod:`ktheory.svm._svc` and the others build on it).
"""

from __future__ import annotations

import numbers
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning

__all__ = [
    "TAU",
    "DEFAULT_CACHE_MB",
    "DEFAULT_GRAM_LIMIT_MB",
    "NO_LIMIT",
    "ConvergenceWarning",
    "SMOResult",
    "as_result",
    "check_max_iter",
    "diag_scale",
    "hard_margin_feasible",
    "intercept_and_objective",
    "permute_in_place",
    "shares_a_sample",
    "shift_weights",
    "tiny_scale",
    "violation",
]

TAU = 1e-12

#: Largest Gram matrix :class:`SVC` builds by default, in MiB (2 GiB, i.e.
#: ``n <= 16384`` training samples; the Gram matrix takes ``n**2 * 8`` bytes).
DEFAULT_GRAM_LIMIT_MB = 2048.0

#: Default size of the kernel-row cache of :class:`SVC` and :class:`~ktheory.svm.SVR`, MiB
#: (scikit-learn's default ``cache_size``).
DEFAULT_CACHE_MB = 200.0

# max_iter = -1: no limit (scikit-learn's libsvm has no cap either); the loop
# stops at the tolerance, which SMO with libsvm's working-set selection reaches
# in finitely many steps (Chen, Fan and Lin 2006).
NO_LIMIT = sys.maxsize



class ConvergenceWarning(_SklearnConvergenceWarning):
    """Warned when a solver stops at ``max_iter`` before reaching ``tol`` (a subclass of
    scikit-learn's ``ConvergenceWarning``, so filters written for either catch it)."""


@dataclass(frozen=True)
class SMOResult:
    """What :func:`smo_solve` returns (a frozen dataclass; fields below)."""

    #: The dual variables, shape ``(n,)``: ``0 <= alpha_i <= C`` and ``sum(alpha * y) == 0``.
    alpha: np.ndarray
    #: ``b`` of the decision function ``f(x) = sum_i alpha_i y_i k(x_i, x) + b`` (libsvm's ``-rho``).
    intercept: float
    #: Final dual objective in libsvm's minimisation form ``1/2 alpha^T Q alpha - sum(alpha)``
    #: (non-positive; the book's maximised dual objective equals ``-objective``).
    objective: float
    #: Number of SMO iterations (pairs updated).
    n_iter: int
    #: Final maximal violation ``m(alpha) - M(alpha)``; ``< tol`` on success.
    gap: float
    #: Whether the stopping criterion was met before ``max_iter``.
    converged: bool
    #: The compiled solver's record (None from :func:`smo_solve`); see ``SVC.solver_stats_``.
    stats: dict | None = None


def check_max_iter(max_iter: Any) -> int:
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer (-1 for no limit), got {max_iter!r}")
    if max_iter == -1:
        return NO_LIMIT
    if max_iter <= 0:
        raise ValueError(f"max_iter must be a positive integer or -1 for no limit, got {max_iter!r}")
    return int(max_iter)


def shift_weights(QD: np.ndarray) -> tuple[np.ndarray, bool]:
    """The shift vector ``w`` of the stored matrix ``H = w - K`` (see :func:`_smo_core`)."""
    const_diag = bool(QD.size) and bool(np.all(QD == QD[0]))
    return (QD.copy() if const_diag else 0.5 * QD), const_diag



#: Below this largest diagonal entry of K the problem is solved rescaled (see :func:`_smo_core`).
SMALL_SCALE = 1e-8


def tiny_scale(K: np.ndarray) -> float:
    """``s = max |diag K|`` if it is below ``SMALL_SCALE`` (then solve with ``K / s``), else 1.

    The dual is invariant under ``K -> K / s``, ``C -> C s``, ``alpha -> alpha s``
    (objective ``* s``; same gradient, gap and intercept). libsvm's absolute ``TAU``
    breaks that invariance when every curvature is below it: with ``K`` near
    ``1e-200`` and ``C`` near ``1e200`` each step would move by about ``1e12`` and
    the iteration would run practically forever. Such problems are solved
    rescaled (:func:`_smo_core`'s ``scale``); all others exactly as libsvm.
    """
    return diag_scale(np.diagonal(K))


def diag_scale(diag: np.ndarray) -> float:
    """:func:`tiny_scale` from the diagonal of ``K`` alone."""
    d = np.abs(diag)
    s = float(d.max()) if d.size else 0.0
    return s if 0.0 < s < SMALL_SCALE else 1.0



#: SMO stops, with a ConvergenceWarning, once its maximal violation is below
#: ``ROUNDING_FLOOR * eps * max(max|p|, max K_ii * sum(alpha))``: the rounding level of a
#: gradient ``Q alpha + p`` summed from terms that large (the bound itself, no safety
#: factor: SMO reaches a violation of 1.4e-10 where 4 times it would be 1.7e-10). Far below
#: ``tol`` for data of any ordinary scale (5e-5 for raw breast_cancer with a linear kernel
#: at C = 100); reached where float64 cannot resolve ``tol`` (a degree-400 polynomial
#: kernel: kernel values near 1e280), where SMO would otherwise run forever.
ROUNDING_FLOOR = 1.0


def shares_a_sample(base: np.ndarray, n: int) -> bool:
    """Whether two of the variables sit on one sample (``base[s]``, a sample of ``0..n-1``
    for each variable): SVR's layout of ``2n`` variables on ``n`` samples, as opposed to
    classification's one variable per sample.

    Examples
    --------
    >>> shares_a_sample(np.array([2, 0, 1]), 3), shares_a_sample(np.array([1, 0, 1, 0]), 2)
    (False, True)
    """
    return base.shape[0] > n or bool(np.any(np.bincount(base, minlength=n) > 1))


def rounding_floor(kmax: float, pmax: float, alpha_sum: float) -> float:
    """The violation below which SMO's gradient is rounding (see :data:`ROUNDING_FLOOR`)."""
    return ROUNDING_FLOOR * float(np.finfo(np.float64).eps) * max(pmax, kmax * alpha_sum)


def not_converged_message(n_iter: int, gap: float, tol: float | None, floor: float) -> str:
    """The ConvergenceWarning's text for an SMO run that stopped short of ``tol``: at
    ``max_iter``, or (``floor > 0``) at the rounding level of its gradient."""
    if floor > 0:
        return (
            f"SMO stopped after {n_iter} iterations at the rounding level of its gradient: "
            f"the maximal violation {gap:.3g} is above tol"
            + (f"={tol:g}" if tol is not None else "")
            + f" but below {floor:.3g}, what float64 resolves for kernel values and "
            "multipliers this large; the solution is as accurate as float64 allows. Rescale "
            "X or the kernel (or lower C)"
        )
    # the first sentence is libsvm's (scikit-learn's) warning, word for word, so that code
    # filtering scikit-learn's warning by its message filters this one too
    return (f"Solver terminated early (max_iter={n_iter}).  Consider pre-processing your "
            f"data with StandardScaler or MinMaxScaler. SMO stopped at max_iter={n_iter} "
            f"iterations with maximal violation {gap:.3g}; the solution is not optimal to tol. "
            "Increase max_iter or tol.")


def as_result(res: Any) -> SMOResult:
    """An :class:`SMOResult` from the compiled solver's result, warning as
    :func:`smo_solve` does when it stopped at ``max_iter`` or at the rounding floor."""
    if not res.converged:
        warnings.warn(
            not_converged_message(res.n_iter, res.gap, None, float(res.stats.get("floor", 0.0))),
            ConvergenceWarning,
            stacklevel=4,
        )
    return SMOResult(alpha=res.alpha, intercept=res.intercept, objective=res.objective,
                     n_iter=res.n_iter, gap=float(res.gap), converged=bool(res.converged),
                     stats=res.stats)



def violation(alpha: np.ndarray, v: np.ndarray, pos: np.ndarray, C: float) -> float:
    """The maximal violation ``m(alpha) - M(alpha)`` from ``v = -y grad``."""
    upper = alpha >= C
    lower = alpha <= 0.0
    in_up = np.where(pos, ~upper, ~lower)
    in_low = np.where(pos, ~lower, ~upper)
    m = float(v[in_up].max()) if np.any(in_up) else -np.inf
    M = float(v[in_low].min()) if np.any(in_low) else np.inf
    return m - M


def intercept_and_objective(alpha: np.ndarray, v: np.ndarray, pos: np.ndarray, C: float,
                             p: np.ndarray | None) -> tuple[float, float]:
    """libsvm's intercept (``calculate_rho``) and the objective ``1/2 a^T Q a + p^T a``
    (``p = -e`` if None) from the solution and ``v = -y grad``.

    Unlike libsvm, a multiplier within four units in the last place of a bound (of ``C``
    for the upper bound, of the largest multiplier for 0) is *set* to that bound (in ``alpha``, in place) before the intercept is chosen: an
    ``alpha_i`` of ``2e-16`` or ``C - 1e-16`` is the residue of a step's rounding, left on
    one machine and not on another (as the BLAS rounds the kernel). Counted as free it
    would make the intercept its own ``v_i``, one end of the interval of optimal
    intercepts, where another machine takes the midpoint of that interval; snapped, every
    machine takes the midpoint (any intercept in the interval is optimal)."""
    inf = np.inf
    ulps = 4.0 * np.finfo(np.float64).eps
    lower = alpha <= ulps * (float(alpha.max()) if alpha.size else 0.0)
    if np.all(np.isinf(C)):   # the hard margin (C = inf): no upper bound
        upper = np.zeros(alpha.shape, dtype=bool)
    else:
        upper = alpha >= C - ulps * C
    alpha[lower] = 0.0
    alpha[upper] = C[upper] if np.ndim(C) else C
    free = ~(upper | lower)
    if np.any(free):
        b = float(np.mean(v[free]))
    else:
        up_only = (pos & lower) | (~pos & upper)    # in I_up, not in I_low
        low_only = (pos & upper) | (~pos & lower)   # in I_low, not in I_up
        hi = float(np.max(v[up_only])) if np.any(up_only) else inf
        lo = float(np.min(v[low_only])) if np.any(low_only) else -inf
        if np.isinf(hi) and np.isinf(lo):
            b = 0.0
        elif np.isinf(hi):
            b = lo
        elif np.isinf(lo):
            b = hi
        else:
            b = 0.5 * (hi + lo)
    # f(alpha) = 1/2 a^T Q a + p^T a = 1/2 sum a_t (grad_t + p_t), grad_t = -y_t v_t
    grad = -np.where(pos, v, -v)
    objective = 0.5 * float(np.dot(alpha, grad - 1.0 if p is None else grad + p))
    return b, objective


def hard_margin_feasible(K: np.ndarray, y: np.ndarray, p: np.ndarray | None = None) -> bool:
    """Whether the hard-margin primal (``C = inf``) of the dual ``1/2 a^T Q a + p^T a``,
    ``y^T a = 0``, ``a >= 0`` has a feasible point, by a linear program on the kernel
    expansion.

    The primal of libsvm's general dual asks for ``f = K beta`` (the representer
    theorem: a feasible ``w`` projected on the span of the ``phi(x_i)`` stays feasible)
    and ``b`` with ``y_s (f(x_{s mod n}) + b) >= -p_s`` for every variable ``s`` (``p =
    -e``: ``y_i (f(x_i) + b) >= 1``, the data separable in feature space; the SVR layout
    of length ``2n``: every target within ``epsilon`` of ``f + b``, a hard tube). Where it
    has none, the dual is unbounded below (Farkas) and SMO would never stop. HiGHS
    (``scipy.optimize.linprog``) decides it, on ``K / max|K|`` (the constraints are
    homogeneous in ``beta``, so the scaling changes nothing but the conditioning), to its
    feasibility tolerance (``1e-7``); an answer other than "infeasible" (a numerical
    difficulty) counts as feasible.

    Parameters
    ----------
    K : numpy.ndarray of shape (n, n)
        The kernel matrix of the samples.
    y : numpy.ndarray of shape (n,) or (2n,)
        Labels ``+-1`` of the variables (variable ``s`` on sample ``s mod n``).
    p : numpy.ndarray of shape (len(y),), optional
        The linear term (``-e`` if None).

    Returns
    -------
    bool
        False where the LP is infeasible (no hard-margin solution).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> hard_margin_feasible(X @ X.T, np.array([-1.0, 1.0, 1.0]))
    True
    >>> # not separable by a line
    >>> hard_margin_feasible(X @ X.T, np.array([1.0, -1.0, 1.0]))
    False
    """
    from scipy.optimize import linprog

    n = K.shape[0]
    m = y.shape[0]
    rows = np.arange(m) % n
    kmax = float(np.max(np.abs(K))) if K.size else 0.0
    Ks = K / kmax if kmax > 0.0 else K
    # y_s ((K beta)_s + b) >= -p_s  <=>  -y_s [K_s, 1] (beta, b) <= p_s
    A = -y[:, None] * np.hstack([Ks[rows], np.ones((m, 1))])
    b = -np.ones(m) if p is None else np.asarray(p, dtype=np.float64)
    res = linprog(np.zeros(n + 1), A_ub=A, b_ub=b, bounds=(None, None), method="highs")
    return res.status != 2


def permute_in_place(K: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``K[np.ix_(order, order)]`` written into ``K`` itself (``n x n``, C-contiguous, any
    dtype; ``order`` a permutation of ``0..n-1``), with a block of rows and one row of extra
    memory instead of a second ``n x n`` array: the columns of each block of rows by
    ``np.take`` (128 KiB at a time), then the rows along the cycles of ``order``.
    Returns ``K``.

    Examples
    --------
    >>> G = np.arange(16.0).reshape(4, 4)
    >>> order = np.array([2, 0, 3, 1])
    >>> want = G[np.ix_(order, order)]
    >>> bool(np.array_equal(permute_in_place(G, order), want))
    True
    """
    order = np.asarray(order)
    if order.ndim != 1 or order.dtype.kind not in "iu" or not np.array_equal(
            np.sort(order), np.arange(order.shape[0])):
        raise ValueError("order must be a 1-D integer permutation of 0..n-1 (each index once)")
    order = order.astype(np.intp, copy=False)
    n = order.shape[0]
    if K.shape != (n, n) or not K.flags.c_contiguous:
        raise ValueError(f"K must be a C-contiguous {n} x {n} array; got shape {K.shape}"
                         f"{'' if K.flags.c_contiguous else ', not C-contiguous'}")
    if n < 2 or np.array_equal(order, np.arange(n)):
        return K
    step = max(1, (1 << 17) // (n * K.itemsize))
    buf = np.empty((min(step, n), n), dtype=K.dtype)
    for a in range(0, n, step):                 # columns, a block of rows at a time
        rows = K[a:a + step]
        np.take(rows, order, axis=1, out=buf[:rows.shape[0]])
        rows[...] = buf[:rows.shape[0]]
    seen = np.zeros(n, dtype=bool)
    for start in np.flatnonzero(order != np.arange(n)).tolist():
        if seen[start]:
            continue
        held = K[start].copy()                  # rows along the cycle: K[i] <- K[order[i]]
        i = start
        while True:
            seen[i] = True
            j = int(order[i])
            if j == start:
                K[i] = held
                break
            K[i] = K[j]
            i = j
    return K
