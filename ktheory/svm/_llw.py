"""The Lee–Lin–Wahba multicategory support vector machine (Chapter 9).

The model (Lee, Lin and Wahba 2004)
-----------------------------------
With ``k`` classes, class ``j`` is coded by the vector ``Y^(j)`` with entry 1 at ``j``
and ``-1/(k-1)`` elsewhere (its entries sum to 0). The classifier is a vector of
functions ``f = (f_1, ..., f_k)``, ``f_j = h_j + b_j`` with ``h_j`` in the RKHS of the
kernel, constrained by ``sum_j f_j(x) = 0`` (imposed as ``sum_j h_j = 0`` and
``sum_j b_j = 0``), and predicts ``argmax_j f_j(x)``. With ``L`` the ``k x k`` cost
matrix (zero diagonal; by default 1 off the diagonal) and ``Y_ij`` the code of
sample ``i``, the paper minimises

.. math::

    \\frac1n \\sum_i \\sum_j L_{y_i j}\\,(f_j(x_i) - Y_{ij})_+
    + \\frac{\\lambda}{2} \\sum_j \\|h_j\\|^2 .

Only ``j != y_i`` contributes (``L_{y_i y_i} = 0``), where ``Y_ij = -1/(k-1)``.

Parametrisation by ``C``
------------------------
:class:`MulticlassSVC` takes scikit-learn's ``C`` and minimises

.. math::

    P(f) = C \\sum_i \\sum_j L_{y_i j}\\,(f_j(x_i) - Y_{ij})_+ + \\frac14 \\sum_j \\|h_j\\|^2,

which is ``n C`` times the paper's objective with ``lambda = 1 / (2 n C)``. The
factor 1/4 is chosen so that **two classes give the binary SVM with the same C**:
for ``k = 2``, ``f = (f_1, -f_1)``, the loss of a sample of class 1 is
``(1 - f_1(x))_+``, that of class 2 is ``(1 + f_1(x))_+``, and
``(1/4)(||h_1||^2 + ||h_2||^2) = (1/2)||h_1||^2``: ``P`` is the soft-margin primal
``(1/2)||w||^2 + C sum_i (1 - t_i f(x_i))_+`` with ``t_i = +1`` on ``classes_[0]``.
So ``decision_function(X)[:, 0]`` of ``MulticlassSVC(C=c)`` equals minus
``SVC(C=c).decision_function(X)`` (whose positive class is ``classes_[1]``).

The dual
--------
With multipliers ``alpha_ij >= 0`` of ``xi_ij >= f_j(x_i) - Y_ij`` (``j != y_i``),
stationarity in ``h_j`` under ``sum_j h_j = 0`` gives the representer form
``h_j = sum_i c_ij k(x_i, .)`` with

.. math::

    c_{ij} = -2\\,(\\alpha_{ij} - \\bar\\alpha_i), \\qquad
    \\bar\\alpha_i = \\frac1k \\sum_l \\alpha_{il}\\quad(\\textstyle\\sum_j c_{ij} = 0),

(``alpha_{i y_i} = 0``), stationarity in the slacks gives ``0 <= alpha_ij <= C L_{y_i j}``
and in ``b_j`` gives ``sum_i alpha_ij`` equal for every ``j`` (``k - 1`` equations).
The dual is the convex QP (for a positive semidefinite kernel)

.. math::

    \\min_\\alpha\\; D(\\alpha) = \\sum_j (\\alpha_{\\cdot j} - \\bar\\alpha)^\\top K
    (\\alpha_{\\cdot j} - \\bar\\alpha) + \\sum_{i,j} \\alpha_{ij} Y_{ij}
    = \\alpha^\\top \\big((I_k - \\tfrac1k 11^\\top) \\otimes K\\big)\\alpha
      - \\frac{1}{k-1}\\sum_{i,j} \\alpha_{ij}

in the ``m = sum_i #{j : L_{y_i j} > 0}`` variables (``n (k-1)`` for 0/1 costs), and
``P(f*) = -D(alpha*)`` (strong duality). For ``k = 2`` it is the binary dual with
``a_i = alpha_{i, other class}``.

Solver
------
A decomposition (working-set) method, :mod:`ktheory.svm._llw_decomp` (its docstring
gives the design): working sets of a few samples with all their dual variables,
chosen by maximal KKT violation and solved exactly by a small dense active-set
method; kernel rows on demand, cached (``CACHE_MB``). Memory: ``O(n k)`` plus the
cache (no ``n x n`` Gram matrix for kernels PSD by construction, no matrix in the
``n (k-1)`` dual variables). It stops when the KKT conditions hold to ``tol`` in
decision-value units (the margins ``f_j(x_i) - Y_ij``, as libsvm's ``tol``: unchanged
by rescaling the kernel or ``C``), or at the rounding level of ``h`` if larger. The
dense interior-point method used before (``O(m^3)``; it broke down for a linear
kernel at large ``C``) stays in :mod:`ktheory.svm._llw_qp` as the tests' oracle.

The fit is **certified**: ``primal_objective_`` (``h`` summed in extended precision
where float64 would not do, the exact best intercepts for it, the hinge loss) against
the dual value ``objective_``. A relative gap above ``tol`` sends the solver on with a
tolerance 100 times tighter (down to ``1e-12``); a gap still above ``max(100 tol,
1e-6)`` is a :class:`ConvergenceWarning`. (For a hard margin at huge ``C`` the primal
value is ``C`` times the rounding of the margins: the gap certifies little there.)
The intercepts minimise the piecewise-linear loss over ``b`` with ``sum_j b_j = 0``,
exactly (:func:`ktheory.svm._llw_qp.intercepts`); ``b`` need not be unique (one point
of the optimal set is returned), the objective is.

Huge C
------
Rescaling the kernel, ``K = kappa K~`` with ``kappa = max_i k(x_i, x_i)``, gives the same
problem with ``K~`` and ``mu = C kappa`` (``P`` divided by ``kappa``): for the linear kernel
``X * s`` with ``C`` is ``X`` with ``C s^2``. On data the kernel does not separate, dual
variables sit at their bound ``C L`` and ``h = C K c`` is a difference of terms ``mu``
times larger than itself: beyond ``mu`` about ``1e10`` float64 dual variables no longer
fix ``h`` (the solver then stalls on rounding, or overflows). Past the last breakpoint
of the regularisation path, ``a = alpha / C`` is affine in ``1 / mu``,
``a = a0 + a1 / mu``, with ``K c(a0) = 0``: ``h = K~ c(a1)`` and ``f`` no longer change
with ``C`` (``a0`` is the dual of the linear program "minimise the loss"; ``f`` is the
loss minimiser of least ``sum_j ||h_j||^2``). So for ``mu > MU_DIRECT`` ``fit`` solves
with ``K~`` at ``mu = 1e2, 1e3, ...`` (warm started) until three consecutive values give
the same ``h`` to ``max(tol, 1e-6)`` and the extrapolated ``a0`` lies in the box: that
``f`` is the solution for every larger ``mu`` (the KKT conditions hold along the whole
segment), ``alpha_ = C a0 + a1 / kappa`` and ``dual_coef_`` is the representer of ``h``
from the smallest of the three solves, rescaled to ``K`` (it differs from
``-2 (alpha_ - mean)`` by a multiple of ``c(a0)``, whose function is 0). The certificate
is evaluated in units of ``C``, with no product of ``C`` and the kernel: primal
``loss(f) + ||h||^2_{K~} / (4 mu)`` against dual ``S(a0) + (S(a1) - ||h||^2_{K~} / 4) / mu``
(``S(a) = sum a / (k - 1)``). Where no dual variable reaches its bound the limit is the
hard margin and the direct solver is used (its variables stay bounded); where the
limit is not reached by ``mu = 1e10``, ``fit`` solves directly up to ``MU_REFUSE`` and
refuses beyond with a ``ValueError`` (rescale ``X`` or lower ``C``).

The module stays one file although it is long: it is one estimator, and its direct fit,
its certificate and its large-C limit share the same private helpers and state.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from .._base import KTheoryClassifierMixin, atomic_fit
from .._validation import (ComplexDataError, check_positive, check_psd_gram, class_labels,
                           symmetrized)
from ._core import DEFAULT_CACHE_MB, DEFAULT_GRAM_LIMIT_MB, ConvergenceWarning, check_max_iter
from ._kernel_svm import KernelSVMBase
from ._llw_decomp import KernelRowCache, default_working_set, llw_decomposition
from ._llw_qp import intercepts

__all__ = ["MulticlassSVC", "llw_population_minimizer", "CACHE_MB", "GRAM_LIMIT_MB",
           "MAX_POPULATION_CLASSES", "PSD_RTOL"]

#: Kernel-row cache of :class:`MulticlassSVC`, MiB (``8 n`` bytes a row, least recently
#: used rows evicted): all of ``K`` fits up to ``n`` about 5100.
CACHE_MB = DEFAULT_CACHE_MB

#: Largest Gram matrix :class:`MulticlassSVC` builds, MiB: only for kernels checked PSD
#: on the data (a callable, ``"sigmoid"``, ``"poly"`` with ``coef0 < 0``).
GRAM_LIMIT_MB = DEFAULT_GRAM_LIMIT_MB

#: Largest number of classes :func:`llw_population_minimizer` accepts.
MAX_POPULATION_CLASSES = 1000

#: Relative tolerance of the positive-semidefiniteness test of the Gram matrix:
#: its smallest eigenvalue must be ``>= -PSD_RTOL * max |eigenvalue|``, or within the
#: rounding a named kernel's evaluation explains (``ktheory._validation.psd_gram_tolerance``
#: with :func:`ktheory.kernels.gram_entry_error`), whichever is larger.
PSD_RTOL = 1e-6

#: Tightest KKT tolerance the certificate loop of ``fit`` asks of the solver (the
#: solver itself stops at the rounding level of ``H`` where that is larger).
_TOL_FLOOR = 1e-12

#: Largest ``mu = C * max_i k(x_i, x_i)`` the decomposition solver is given directly
#: (scale free: the problem with ``K / kappa`` and ``C kappa`` is the same). Beyond, the
#: dual variables that fix ``h = C K c`` would have to resolve ``1 / mu`` of their range:
#: ``fit`` computes the large-C limit instead (module docstring, "Huge C").
MU_DIRECT = 1e9

#: Above this ``mu`` a problem whose large-C limit is not reached by ``mu = 1e10`` is
#: refused (``ValueError``); between ``MU_DIRECT`` and it, solved directly.
MU_REFUSE = 1e12

#: The ``log10 mu`` at which the large-C limit is sought (kernel ``K / kappa``).
_LIMIT_POWERS = tuple(range(2, 11))


def _relative_gap(primal: float, dual: float) -> float:
    """``(primal - dual) / max(|primal|, |dual|)`` (0 when both are 0): scale free."""
    den = max(abs(primal), abs(dual))
    return (primal - dual) / den if den > 0 else 0.0


def _certificate(alpha: np.ndarray, coef: np.ndarray, Hh: np.ndarray, codes: np.ndarray,
                 L: np.ndarray, b_kkt: np.ndarray | None) -> tuple[np.ndarray, float, float, float]:
    """``(b, loss, pen, dual_min)``: the intercepts minimising the loss given ``h`` (exact,
    :func:`ktheory.svm._llw_qp.intercepts`), that loss, ``sum_j ||h_j||^2`` and the dual
    minimum ``D(alpha)``; the primal is ``pen / 4 + C loss``."""
    k = alpha.shape[1]
    Hh = Hh - Hh.mean(axis=1, keepdims=True)      # sum_j h_j = 0 (exactly, in the model)
    b, loss = intercepts(Hh, codes, L, b_kkt)
    pen = float(np.einsum("ij,ij->", coef, Hh))   # sum_j c_j^T K c_j
    dual_min = 0.25 * pen - float(alpha.sum()) / (k - 1)
    return b, loss, pen, dual_min


@dataclass
class _Fitted:
    """A solution as :meth:`MulticlassSVC.fit` stores it."""

    alpha: np.ndarray
    coef: np.ndarray
    b: np.ndarray
    objective: float
    primal: float
    n_iter: int
    rows: int
    stopped: bool = False
    violation: float = 0.0
    gap: float | None = None      # None: the relative gap of primal and objective


@dataclass
class _Solved:
    """What :func:`_solve_certified` returns."""

    alpha: np.ndarray
    H: np.ndarray
    coef: np.ndarray
    b: np.ndarray
    loss: float
    pen: float
    dual_min: float
    gap: float
    n_iter: int
    stopped: bool
    violation: float
    tol_used: float


def _solve_certified(cache: KernelRowCache, W: np.ndarray, codes: np.ndarray, L: np.ndarray,
                     C: float, tol: float, max_iter: int, q: int, *, solve: bool = True,
                     alpha0: np.ndarray | None = None, H0: np.ndarray | None = None) -> _Solved:
    """The decomposition solver and its certificate loop: a relative duality gap above the
    KKT tolerance sends the solver on with a tolerance 100 times tighter (down to the
    rounding level of ``H``). ``solve=False``: the zero solution (no dual variables)."""
    n, k = W.shape
    alpha = np.zeros((n, k))
    Hh = np.zeros((n, k))
    b_kkt = None
    n_iter = 0
    stopped = stalled = False
    violation = 0.0
    tol_used = tol
    if solve:
        with np.errstate(over="ignore", under="ignore"), threadpool_limits(1, user_api="blas"):
            res = llw_decomposition(cache, W, C, tol, max_iter, q=q, alpha0=alpha0, H0=H0)
        alpha, Hh, b_kkt, n_iter = res.alpha, res.H, res.b, res.n_iter
        stopped, stalled = not res.converged and not res.stalled, res.stalled
        violation, tol_used = res.violation, res.tol_used
    coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
    b, loss, pen, dual_min = _certificate(alpha, coef, Hh, codes, L, b_kkt)
    gap = _relative_gap(0.25 * pen + C * loss, -dual_min)
    tol_k = tol
    while (gap > tol and not stopped and not stalled and n_iter < max_iter
           and tol_k > _TOL_FLOOR):
        tol_k = max(tol_k / 100.0, _TOL_FLOOR)
        with np.errstate(over="ignore", under="ignore"), threadpool_limits(1, user_api="blas"):
            res = llw_decomposition(cache, W, C, tol_k, max_iter - n_iter, q=q,
                                    alpha0=alpha, H0=Hh)
        alpha, Hh, b_kkt = res.alpha, res.H, res.b
        n_iter += res.n_iter
        stopped, stalled = not res.converged and not res.stalled, res.stalled
        violation, tol_used = res.violation, res.tol_used
        coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
        b, loss, pen, dual_min = _certificate(alpha, coef, Hh, codes, L, b_kkt)
        gap = _relative_gap(0.25 * pen + C * loss, -dual_min)
    return _Solved(alpha, Hh, coef, b, loss, pen, dual_min, gap, n_iter, stopped, violation,
                   tol_used)


def _large_c_limit(rows: Callable[[np.ndarray], np.ndarray], cache_mb: float | None,
                   kappa: float, W: np.ndarray, codes: np.ndarray, L: np.ndarray, C: float,
                   tol: float, max_iter: int, q: int, name: str) -> _Fitted | None:
    """The fit for ``mu = C kappa > MU_DIRECT`` (module docstring, "Huge C"), or None where
    the direct solver is to be used: the limit is the hard margin (no dual variable at
    its bound: they stay bounded), or it is not reached and ``mu <= MU_REFUSE``;
    ``ValueError`` where it is not reached and ``mu > MU_REFUSE``.

    Solves the problem with the kernel ``K / kappa`` at ``mu_p = 10^p`` (``p`` from
    ``_LIMIT_POWERS``, warm started) until three consecutive ``mu_p`` give the same ``h`` to
    ``max(tol, 1e-6)``: then ``a = alpha / mu`` is affine in ``1 / mu``, ``a = a0 + a1 / mu``,
    on the last segment of the regularisation path and the decision functions are those
    of every larger ``mu``; ``a0``, ``a1`` come from the two outer solves, the dual
    variables of the stated problem are ``C a0 + a1 / kappa``."""
    n = W.shape[0]
    cache = KernelRowCache(lambda idx: rows(idx) / kappa, n, cache_mb, min_rows=q)
    mask = W > 0
    mu_t = C * kappa
    sols: list[tuple[float, _Solved]] = []
    n_iter = 0
    alpha0 = H0 = None
    for p in _LIMIT_POWERS:
        mu = 10.0 ** p
        sol = _solve_certified(cache, W, codes, L, mu, tol, max_iter - n_iter, q,
                               alpha0=alpha0, H0=H0)
        n_iter += sol.n_iter
        if not np.any(mask & (sol.alpha >= mu * W)):
            return None                       # the hard margin: alpha stays bounded
        if sol.stopped or n_iter >= max_iter:
            # out of steps: the last solution, certified (or not) for the stated problem
            a0 = sol.alpha / mu
            return _limit_fitted(a0, np.zeros_like(a0), sol, W, C, kappa, n_iter, cache,
                                 stopped=True)
        sols.append((mu, sol))
        alpha0, H0 = sol.alpha * 10.0, sol.H * 10.0
        if len(sols) < 3 or any(s.gap > max(100.0 * tol, 1e-6) for _, s in sols[-3:]):
            continue
        (mu_a, sa), (_, sb), (mu_c, sc) = sols[-3:]
        thr = max(tol, 1e-6)
        if (np.max(np.abs(sb.H - sa.H)) > thr or np.max(np.abs(sc.H - sb.H)) > thr):
            continue                          # h still moves with mu: not the limit yet
        ta, tc = sa.alpha, sc.alpha
        a0 = (tc - ta) / (mu_c - mu_a)
        a1 = (mu_c * ta - mu_a * tc) / (mu_c - mu_a)
        at_u = (ta >= mu_a * W) & (tc >= mu_c * W) & mask
        at_0 = (ta == 0.0) & (tc == 0.0)
        a0[at_u], a1[at_u] = W[at_u], 0.0
        a0[at_0], a1[at_0] = 0.0, 0.0
        slack = 1e-9 * W
        if np.any(a0 < -slack) or np.any(a0 > W + slack):
            continue                          # the extrapolation leaves the box: not yet
        a0 = np.clip(a0, 0.0, W)
        a0[np.abs(a0) <= 1e-12 * W] = 0.0
        a0[np.abs(a0 - W) <= 1e-12 * W] = W[np.abs(a0 - W) <= 1e-12 * W]
        return _limit_fitted(a0, a1, sa, W, C, kappa, n_iter, cache)
    if mu_t <= MU_REFUSE:
        return None
    raise ValueError(
        f"{name}: C * max k(x, x) = {mu_t:.3g} (C = {C:g}, largest kernel diagonal "
        f"{kappa:.3g}) is beyond what float64 dual variables resolve (above MU_REFUSE = "
        f"{MU_REFUSE:g}), and the solution has not reached its large-C limit by C * max "
        f"k(x, x) = 1e{_LIMIT_POWERS[-1]}: its decision functions still change with C there. "
        "Rescale X (for the linear kernel, X * s with C is X with C s^2) or lower C so that "
        f"C * max k(x, x) <= {MU_REFUSE:g}"
    )


def _limit_fitted(a0: np.ndarray, a1: np.ndarray, sol: _Solved, W: np.ndarray, C: float,
                  kappa: float, n_iter: int, cache: KernelRowCache,
                  stopped: bool = False) -> _Fitted:
    """The stated problem's solution from the large-C expansion ``a = a0 + a1 / mu`` and a
    solution ``sol`` at ``mu_s`` (kernel ``K / kappa``) with the same decision functions.

    ``mu_s`` drops out: ``sol`` gives ``f`` (its coefficients, rescaled to ``K``, are a
    representer of ``h``; they differ from ``-2 (alpha - mean)`` by ``C c(a0)``, whose
    function ``K c(a0)`` is 0). The certificate in units of ``C`` (no product of ``C`` with the kernel): primal
    ``loss(f) + pen / (4 mu)`` with ``pen = sum_j ||h_j||^2`` in kernel units ``kappa``
    (``4 Q(a1)``, as ``K c(a0) = 0``), dual ``S(a0) + (S(a1) - pen / 4) / mu`` with
    ``S(a) = sum a / (k - 1)``."""
    mu = C * kappa
    k = W.shape[1]
    with np.errstate(over="ignore", under="ignore"):
        alpha = np.clip(C * a0 + a1 / kappa, 0.0, C * W)
    s0 = float(a0.sum()) / (k - 1)
    s1 = float(a1.sum()) / (k - 1)
    primal_c = sol.loss + 0.25 * sol.pen / mu
    dual_c = s0 + (s1 - 0.25 * sol.pen) / mu
    with np.errstate(over="ignore"):
        return _Fitted(alpha=alpha, coef=sol.coef / kappa, b=sol.b, objective=C * dual_c,
                       primal=C * primal_c, n_iter=n_iter, rows=int(cache.n_computed),
                       stopped=stopped, violation=sol.violation,
                       gap=_relative_gap(primal_c, dual_c))


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _check_costs(costs: Any, k: int, name: str = "costs") -> np.ndarray:
    """The ``k x k`` cost matrix (0/1 off the diagonal for ``None``), checked."""
    if costs is None:
        return np.ones((k, k)) - np.eye(k)
    if isinstance(costs, (str, bytes)):
        raise TypeError(f"{name} must be a (k, k) array of nonnegative numbers, got a string {costs!r}")
    if sparse.issparse(costs):
        raise TypeError(f"{name} must be a dense (k, k) array; got a sparse {type(costs).__name__}")
    try:
        arr = np.asarray(costs)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular (k, k) array (ragged rows?): {exc}") from None
    if arr.dtype.kind == "c":
        raise ComplexDataError(f"Complex data not supported: {name} has dtype {arr.dtype}; costs are real")
    if arr.dtype.kind in "USVmM" or (arr.dtype.kind == "O" and any(isinstance(v, (str, bytes))
                                                                  for v in arr.ravel().tolist())):
        raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype} (strings or dates)")
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype}") from None
    arr = np.asarray(arr, dtype=np.float64)
    if arr.shape != (k, k):
        raise ValueError(f"{name} must be a (k, k) = ({k}, {k}) matrix for the {k} classes; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be nonnegative; its smallest entry is {arr.min():g}")
    if np.any(np.diagonal(arr) != 0):
        raise ValueError(f"{name} must have a zero diagonal (no cost for the true class); got {np.diagonal(arr)}")
    return arr


# ---------------------------------------------------------------------------
# the population minimiser (Bayes consistency)
# ---------------------------------------------------------------------------


def llw_population_minimizer(p: Any, costs: Any = None) -> np.ndarray:
    """Minimiser of the conditional expected LLW loss at a point with class probabilities ``p``.

    Solves the linear program

    .. math::

        \\min_{f \\in \\mathbb R^k,\\ \\sum_l f_l = 0}\\;
        \\sum_j p_j \\sum_{l} L_{jl}\\,(f_l - Y^{(j)}_l)_+
        = \\sum_l \\Big(\\sum_j p_j L_{jl}\\Big) \\big(f_l + \\tfrac{1}{k-1}\\big)_+

    (``Y^(j)`` the code of class ``j``; the second form holds because
    ``L_jj = 0``) by ``scipy.optimize.linprog`` (HiGHS). Lee, Lin and Wahba
    (2004, Lemma 1) show that for 0/1 costs and a unique most probable class
    ``j*`` the minimiser is the code ``Y^(j*)``: its argmax is the Bayes rule.

    Parameters
    ----------
    p : array_like of shape (k,)
        Class probabilities: ``2 <= k <= MAX_POPULATION_CLASSES`` finite
        nonnegative numbers summing to 1 (to ``1e-9``, or to ``4 k eps`` of a
        float32 input).
    costs : array_like of shape (k, k), optional
        Cost matrix ``L`` (nonnegative, zero diagonal); default 1 off the diagonal.

    Returns
    -------
    numpy.ndarray of shape (k,)
        A minimiser ``f`` (entries sum to 0). Where the minimiser is not unique
        (ties among the most probable classes) one vertex of the optimal set.

    Raises
    ------
    ValueError
        If ``p`` is not 1-D of length ``>= 2``, holds NaN/inf or negative
        numbers, or does not sum to 1; if ``costs`` is not a nonnegative
        ``(k, k)`` matrix with zero diagonal.
    TypeError
        For complex or non-numeric ``p`` or ``costs``.

    Examples
    --------
    >>> import numpy as np
    >>> f = llw_population_minimizer([0.5, 0.3, 0.15, 0.05])
    >>> np.round(f, 12).tolist()
    [1.0, -0.333333333333, -0.333333333333, -0.333333333333]
    """
    if p is None or isinstance(p, (str, bytes)):
        raise TypeError(f"p must be a 1-D array of class probabilities, got {p!r}")
    arr = np.asarray(p)
    if arr.dtype.kind == "c":
        raise ComplexDataError("Complex data not supported: p holds complex numbers; probabilities are real")
    if arr.dtype.kind in "USVmM" or (arr.dtype.kind == "O" and any(isinstance(v, (str, bytes))
                                                                  for v in arr.ravel().tolist())):
        raise TypeError(f"p must hold numbers; got an array of dtype {arr.dtype} (strings or dates)")
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"p must hold numbers; got an array of dtype {arr.dtype}") from None
    in_eps = float(np.finfo(arr.dtype).eps) if arr.dtype.kind == "f" else 0.0
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ValueError(f"p must be a 1-D array of k >= 2 class probabilities; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("p contains NaN or infinity")
    if np.any(arr < 0):
        raise ValueError(f"p must be nonnegative (probabilities); its smallest entry is {arr.min():g}")
    k = arr.shape[0]
    if abs(arr.sum() - 1.0) > max(1e-9, 4 * k * in_eps):
        raise ValueError(f"p must sum to 1 (class probabilities); its sum is {arr.sum():.12g}")
    if k > MAX_POPULATION_CLASSES:
        raise ValueError(
            f"p has k = {k} classes, more than MAX_POPULATION_CLASSES = {MAX_POPULATION_CLASSES} "
            "(a linear program in 2k variables)"
        )
    if costs is None:
        w = arr.sum() - arr  # p @ (1 - I): weight of (f_l + 1/(k-1))_+
    else:
        w = arr @ _check_costs(costs, k)
    wmax = float(np.max(w))
    if wmax > 0:
        w = w / wmax  # the same minimisers; keeps HiGHS in range for costs near 1e200
    # variables (f_1..f_k, s_1..s_k): min w.s, s_l >= f_l + 1/(k-1), s >= 0, sum f = 0
    c = np.concatenate([np.zeros(k), w])
    eye = sparse.identity(k, format="csr")
    A_ub = sparse.hstack([eye, -eye], format="csr")
    b_ub = np.full(k, -1.0 / (k - 1))
    A_eq = sparse.csr_matrix(np.concatenate([np.ones(k), np.zeros(k)])[None, :])
    bounds = [(None, None)] * k + [(0, None)] * k
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[0.0], bounds=bounds, method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - a bounded feasible LP
        raise RuntimeError(f"linprog failed on the population problem: {res.message}")
    f = res.x[:k]
    return f - f.mean()


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------


class MulticlassSVC(KTheoryClassifierMixin, KernelSVMBase):
    """Lee–Lin–Wahba multicategory SVM: ``k`` decision functions that sum to zero.

    Minimises ``C sum_i sum_j L[y_i, j] (f_j(x_i) + 1/(k-1))_+ + (1/4) sum_j ||h_j||^2``
    over ``f_j = h_j + b_j`` with ``sum_j f_j = 0`` (see the module docstring of
    ``ktheory.svm._llw`` for the model and its dual). This is ``n C`` times the
    objective of Lee, Lin and Wahba (2004),
    ``(1/n) sum loss + (lambda/2) sum_j ||h_j||^2``, with

    ``lambda = 1 / (2 n C)``, i.e. ``C = 1 / (2 n lambda)``,

    and for two classes it is exactly the binary soft-margin SVM with the same
    ``C``: ``decision_function(X)[:, 1] == SVC(C=C).decision_function(X)``
    (and column 0 its negative), up to the solvers' tolerances and to the
    intercept when that is not unique.

    Parameters
    ----------
    C : float, default 1.0
        Weight of the loss (``> 0``); see the mapping to ``lambda`` above.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default "rbf"
        As :class:`ktheory.svm.SVC` (same formulas, same ``gamma="scale"``).
        The Gram matrix must be positive semidefinite (the dual is then a
        convex QP); an indefinite one (e.g. some sigmoid kernels) is refused.
    degree : int, default 3
        Degree of the polynomial kernel.
    gamma : {"scale", "auto"} or float, default "scale"
        Kernel coefficient of "rbf", "poly" and "sigmoid", as in :class:`SVC`.
    coef0 : float, default 0.0
        Constant term of "poly" and "sigmoid".
    tol : float, default 1e-6
        KKT tolerance of the decomposition solver, in decision-value units (every
        margin ``f_j(x_i) - Y_ij`` on the right side of 0 to ``tol``), and the target
        of the certificate: a relative duality gap above ``tol`` makes the solver go
        on with a tighter tolerance (module docstring).
    max_iter : int, default -1
        Limit on the active-set steps of the solver, all working sets together
        (``-1``: none; the solver also stops when ten working sets in a row decrease
        the dual only by rounding). Stopping at the limit issues a
        :class:`ktheory.svm.ConvergenceWarning`.
    costs : array_like of shape (k, k), optional
        Misclassification costs ``L[true, j]`` (nonnegative, zero diagonal), in
        the order of ``classes_``. Default: 1 off the diagonal.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (k,)
        The labels, sorted; column ``j`` of ``decision_function`` is ``classes_[j]``.
    alpha_ : numpy.ndarray of shape (n_samples, k)
        Dual variables ``alpha_ij`` (0 where ``j`` is the sample's class or its cost is 0).
    dual_coef_ : numpy.ndarray of shape (n_samples, k)
        Representer coefficients: ``h_j(x) = sum_i dual_coef_[i, j] k(x_i, x)``;
        each row sums to 0. ``-2 (alpha_ - mean)`` except for ``C * max k(x, x)`` above
        ``MU_DIRECT`` on data the kernel does not separate, where it is a representer of
        the same ``h`` from a solve at moderate ``C`` (``-2 (alpha_ - mean)`` differs from it
        by a combination whose function is 0 and is ``C`` times too large for float64 to
        evaluate; module docstring, "Huge C").
    intercept_ : numpy.ndarray of shape (k,)
        ``b``, summing to 0 (one optimal choice where it is not unique).
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the training points with a nonzero row of ``dual_coef_``.
    support_vectors_ : numpy.ndarray of shape (n_SV, n_features)
        Those points (an empty ``(0, 0)`` array for ``"precomputed"``).
    objective_ : float
        The optimal value of ``P``, computed as the dual value ``-D(alpha_)``
        (module docstring of ``ktheory.svm._llw``).
    primal_objective_ : float
        ``P(f)`` evaluated at the fitted ``f``; equals ``objective_`` to about
        ``tol`` relative, plus ``C`` times the rounding error of the hinge
        terms (which dominates for huge ``C``: a hard-margin fit has every
        margin zero only to rounding).
    duality_gap_ : float
        The certificate of the fit: ``(primal_objective_ - objective_) /
        max(|primal_objective_|, |objective_|)`` (0 when both are 0), nonnegative by
        weak duality up to rounding. Above ``max(100 tol, 1e-6)`` the fit is not
        certified optimal and ``fit`` says so with a
        :class:`~ktheory.svm.ConvergenceWarning`.
    n_iter_ : int
        Active-set steps of the solver, all working sets together (at least 1).
    kernel_rows_computed_ : int
        Kernel rows the solver computed (above ``n`` when ``CACHE_MB`` was too small).
    n_features_in_ : int
        Number of features of the training ``X``.

    Notes
    -----
    ``predict`` is the argmax of ``decision_function``; ties go to the lowest
    column index (the first class in ``classes_``). Memory: ``fit`` holds a few
    ``(n, k)`` arrays and at most ``CACHE_MB`` MiB of kernel rows; a callable, sigmoid
    or ``coef0 < 0`` polynomial kernel is checked positive semidefinite on its Gram
    matrix, which ``fit`` then holds (refused above ``GRAM_LIMIT_MB``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 1.], [3., 0.], [3., 1.], [0., 4.], [1., 4.]])
    >>> clf = MulticlassSVC(C=1.0, kernel="linear").fit(X, ["a", "a", "b", "b", "c", "c"])
    >>> clf.predict([[0.2, 0.3], [2.8, 0.5], [0.5, 3.5]]).tolist()
    ['a', 'b', 'c']
    >>> f = clf.decision_function([[1.0, 1.0]])
    >>> f.shape, bool(abs(f.sum()) < 1e-12)
    ((1, 3), True)
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-6,
        max_iter: int = -1,
        costs: Any = None,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.costs = costs

    def _check_params(self) -> None:
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        self._check_kernel_params()

    def _kernel_rows(self, X: np.ndarray
                     ) -> tuple[Callable[[np.ndarray], np.ndarray], float | None, float]:
        """The kernel-row callable of the solver, its cache size (None: no cache) and
        ``kappa = max_i k(x_i, x_i)`` (the largest ``|K_ij|`` of a PSD kernel; ``inf`` where
        it overflows, 0 for a zero kernel).

        ``"linear"``, ``"rbf"`` and ``"poly"`` with ``coef0 >= 0`` are positive
        semidefinite by construction: their rows are computed on demand (blocks of
        rows against all of ``X``, checked finite) and cached (``CACHE_MB``). For the
        others the Gram matrix is held and checked positive semidefinite first (as
        given for ``"precomputed"``; for a callable, sigmoid or ``coef0 < 0``
        polynomial computed within ``GRAM_LIMIT_MB``).
        """
        kern = self._kernel_params_["kernel"]
        psd_by_construction = kern in ("linear", "rbf") or (kern == "poly" and float(self.coef0) >= 0)
        if psd_by_construction:
            return ((lambda idx: self._gram(X[idx], X, "training data")), float(CACHE_MB),
                    self._diag_max(X))
        n = X.shape[0]
        if kern == "precomputed":
            K = X
        else:
            need_mb = n * n * 8 / 2**20
            if need_mb > GRAM_LIMIT_MB:
                raise ValueError(
                    f"the {self._kernel_name()} kernel must be checked positive semidefinite on the "
                    f"training data, which needs its Gram matrix: {need_mb:.0f} MiB for n={n}, more "
                    f"than GRAM_LIMIT_MB = {GRAM_LIMIT_MB:g}; use a kernel that is positive "
                    "semidefinite by construction (linear, rbf, poly with coef0 >= 0) or subsample"
                )
            K = self._gram(X, None, "training data")
            if callable(kern):
                K = symmetrized(K, "the Gram matrix returned by the kernel callable", np.float64)
        check_psd_gram(K, "the precomputed Gram matrix X" if kern == "precomputed"
                       else f"the Gram matrix of the {self._kernel_name()} kernel", rtol=PSD_RTOL,
                       why="the LLW dual is a convex QP only for a PSD kernel",
                       entry_error=self._gram_entry_error(X))
        diag = np.diagonal(K)
        return (lambda idx: K[idx]), None, float(np.max(np.abs(diag))) if diag.size else 0.0

    def _diag_max(self, X: np.ndarray) -> float:
        """``max_i k(x_i, x_i)`` of the linear, rbf or poly kernel, from its closed form
        (``inf`` where it overflows; the kernel rows then raise their own error)."""
        p = self._kernel_params_
        kern = p["kernel"]
        if kern == "rbf":
            return 1.0
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            sq = np.einsum("ij,ij->i", X, X)
            if kern == "poly":
                sq = np.abs(float(p["gamma"]) * sq + float(p["coef0"])) ** int(p["degree"])
            m = float(np.max(sq, initial=0.0))
        return m if np.isfinite(m) else np.inf

    # -- fit -----------------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> "MulticlassSVC":
        """Fit the multicategory SVM (decomposition solver of the dual, exact intercepts).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square, symmetric,
            positive semidefinite ``(n_samples, n_samples)`` Gram matrix.
        y : array_like of shape (n_samples,)
            Class labels: at least two distinct values (numbers or strings;
            floats must be whole numbers).

        Returns
        -------
        MulticlassSVC
            ``self``.

        Raises
        ------
        ValueError
            For NaN/inf, mismatched lengths, one class only, continuous labels,
            a bad ``costs`` matrix, a non-square, non-symmetric or indefinite
            Gram matrix, parameters out of range, kernel values that overflow, a
            kernel whose Gram matrix must be checked and exceeds ``GRAM_LIMIT_MB``, or
            ``C * max k(x, x)`` above ``MU_REFUSE`` where the large-C limit is not reached
            by ``1e10`` (module docstring, "Huge C").
        TypeError
            For sparse, complex, string or ``None`` input and parameters of the
            wrong type.
        """
        self._check_params()
        name = type(self).__name__
        X, y = self._fit_input(X, y)
        n = X.shape[0]
        classes, codes = class_labels(y, estimator=name)
        k = classes.shape[0]
        L = _check_costs(self.costs, k)
        W = L[codes]                      # (n, k): cost of each (sample, class) pair
        self._set_kernel(X)
        rows, cache_mb, kappa = self._kernel_rows(X)
        C = float(self.C)
        tol = float(self.tol)
        max_iter = check_max_iter(self.max_iter)
        q = default_working_set(n, k)
        mu = C * kappa
        if np.any(W > 0) and 0.0 < kappa < np.inf and mu > MU_DIRECT:
            # C far beyond what the float64 dual resolves: the large-C limit (module docstring)
            lim = _large_c_limit(rows, cache_mb, kappa, W, codes, L, C, tol, max_iter, q, name)
            if lim is not None:
                self._set_fit(X, classes, lim, C, tol, name)
                return self
        cache = KernelRowCache(rows, n, cache_mb, min_rows=q)
        if np.any(W > 0):
            sol = _solve_certified(cache, W, codes, L, C, tol, max_iter, q)
        else:
            sol = _solve_certified(cache, W, codes, L, C, tol, max_iter, q, solve=False)
        alpha = sol.alpha
        pen, loss, dual_min = sol.pen, sol.loss, sol.dual_min
        self._set_fit(X, classes, _Fitted(alpha=alpha, coef=sol.coef, b=sol.b,
                                          objective=-dual_min, primal=0.25 * pen + C * loss,
                                          n_iter=sol.n_iter, rows=int(cache.n_computed),
                                          stopped=sol.stopped, violation=sol.violation),
                      C, tol, name)
        return self

    def _set_fit(self, X: np.ndarray, classes: np.ndarray, fitted: _Fitted, C: float,
                 tol: float, name: str) -> None:
        """Store a solution (warning where the solver stopped or the fit is not certified)."""
        alpha, coef = fitted.alpha, fitted.coef
        if fitted.stopped:
            warnings.warn(
                f"{name}: the decomposition solver stopped at max_iter={fitted.n_iter} active-set "
                f"steps before reaching tol={tol:g} (KKT violation {fitted.violation:.2g})",
                ConvergenceWarning,
                stacklevel=3,
            )
        support = np.flatnonzero(np.any(alpha != 0, axis=1) | np.any(coef != 0, axis=1))

        self.classes_ = classes
        self.alpha_ = alpha
        self.dual_coef_ = coef
        self.intercept_ = fitted.b
        self.support_ = support.astype(np.int32)
        self.objective_ = fitted.objective
        self.primal_objective_ = fitted.primal
        self.duality_gap_ = (fitted.gap if fitted.gap is not None
                             else _relative_gap(self.primal_objective_, self.objective_))
        self.n_iter_ = max(fitted.n_iter, 1)
        self.kernel_rows_computed_ = fitted.rows
        if self.duality_gap_ > max(100.0 * tol, 1e-6):
            warnings.warn(
                f"{name}: the fit is not certified optimal: the primal objective "
                f"{self.primal_objective_:.6g} exceeds the dual {self.objective_:.6g} by "
                f"{self.duality_gap_:.2g} (relative), more than max(100 tol, 1e-6); the "
                "decision functions may be off by about that much",
                ConvergenceWarning,
                stacklevel=3,
            )
        self._set_support_vectors(X, support)

    # -- prediction ----------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """The ``k`` decision values ``f_j(x) = sum_i dual_coef_[i, j] k(x_i, x) + intercept_[j]``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test, k)
            Column ``j`` belongs to ``classes_[j]``; each row sums to 0 (to rounding).

        Raises
        ------
        NotFittedError
            If called before :meth:`fit`.
        ValueError
            For NaN/inf, a wrong number of columns, or kernel values that overflow.
        TypeError
            For sparse, complex or non-numeric input.
        """
        X = self._test_input(X)
        sup = self.support_
        coef = self.dual_coef_[sup]
        k = self.classes_.shape[0]
        if sup.size:
            out = self._sv_kernel_map(X, lambda Kt: Kt @ coef, k)
        else:
            out = np.zeros((X.shape[0], k))
        out += self.intercept_[None, :]
        out -= out.mean(axis=1, keepdims=True)
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[argmax_j f_j(x)]``, ties to the lowest index."""
        F = self.decision_function(X)
        return self.classes_[np.argmax(F, axis=1)]
