"""Soft-margin support vector classification by SMO, the way libsvm does it.

The dual of the soft-margin SVM (Chapter 8), written as libsvm writes it, is the
minimisation

.. math::

    \\min_{\\alpha}\\; f(\\alpha) = \\tfrac12 \\alpha^\\top Q \\alpha - e^\\top \\alpha
    \\quad\\text{s.t.}\\quad y^\\top \\alpha = 0,\\; 0 \\le \\alpha_i \\le C,
    \\qquad Q_{ij} = y_i y_j K_{ij}.

(The book's maximisation form is :math:`-f`.) :func:`smo_solve` solves it by
sequential minimal optimisation with the second-order working-set selection of
Fan, Chen and Lin (2005) ("WSS3"), exactly the rules of libsvm's ``Solver``:

* ``i`` maximises :math:`-y_t \\nabla f(\\alpha)_t` over :math:`I_{up}(\\alpha)`;
* ``j`` maximises the guaranteed decrease :math:`b_{it}^2 / a_{it}` over
  :math:`t \\in I_{low}(\\alpha)` with :math:`b_{it} > 0`, where
  :math:`a_{it} = K_{ii} + K_{tt} - 2K_{it}` (replaced by ``tau = 1e-12`` when
  it is :math:`\\le 0`, so non-PSD kernels such as the sigmoid still work);
* the two-variable subproblem is solved in closed form and clipped to the box
  with libsvm's case analysis;
* the iteration stops when :math:`m(\\alpha) - M(\\alpha) < \\mathrm{tol}`;
* the intercept is the average of :math:`-y_i \\nabla f_i` over the free
  support vectors, or the midpoint of the feasible interval if there are none.

The Gram matrix is computed once (one BLAS product) and held in memory,
``n**2 * 8`` bytes (``DEFAULT_GRAM_LIMIT_MB`` caps it), as ``H = w - K`` with
``w`` the diagonal of ``K`` (or half of it); ``H`` holds the curvatures the
selection needs and updates the gradient as well as ``K`` does, because every
step keeps ``y^T alpha`` fixed. Each iteration is then eleven numpy/BLAS calls
on length-``n`` arrays (an ``argmax`` and an ``argmin`` for ``i`` and the
stopping test, five for ``j``, two more if the kernel's diagonal is not
constant, four ``axpy`` gradient updates), no Python loop over samples.
Unlike libsvm there is no shrinking and no kernel cache (the whole matrix is
in memory); the iterates are those of libsvm up to rounding (libsvm keeps
kernel values in single precision) and hence, rarely, a different choice
between nearly tied candidates.

:class:`SVC` is a scikit-learn-compatible estimator that reproduces
``sklearn.svm.SVC`` (which runs libsvm): same class ordering, same sample
ordering inside the solver, same support vectors, same signs. It does not call
:func:`smo_solve`: it runs the same iteration compiled, with kernel rows
computed on demand and cached and with libsvm's shrinking
(:mod:`ktheory.svm._fast`), so that memory is ``O(n d)`` plus the cache.
:func:`smo_solve` stays the readable reference the compiled solver is tested
against (the same iterates with shrinking off).

The same iteration solves libsvm's general form ``1/2 a^T Q a + p^T a`` (a linear
term ``p`` instead of ``-e``) and, with ``2n`` labels on an ``n x n`` matrix, the
epsilon-SVR dual, variable ``s`` using row ``s mod n`` (:class:`SVR`,
``smo_solve(..., linear_term=p)``); no ``2n x 2n`` matrix is formed.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ktheory._base import ParamsMixin
from scipy.linalg import blas as _blas

from .._validation import check_array, check_positive, check_symmetric
from ._input import NotFittedError, not_fitted_error, validate_X

__all__ = [
    "SVC",
    "SMOResult",
    "smo_solve",
    "ConvergenceWarning",
    "NotFittedError",
    "DEFAULT_GRAM_LIMIT_MB",
    "DEFAULT_CACHE_MB",
    "TAU",
]

#: libsvm's replacement for a non-positive curvature ``a_ij <= 0``.
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
_NO_LIMIT = sys.maxsize

_NAMED_KERNELS = ("linear", "poly", "rbf", "sigmoid")


class ConvergenceWarning(UserWarning):
    """Warned when SMO stops at ``max_iter`` before reaching ``tol``."""


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


def smo_solve(
    K: Any,
    y: Any,
    C: float = 1.0,
    *,
    tol: float = 1e-3,
    max_iter: int = -1,
    check_input: bool = True,
    linear_term: Any = None,
) -> SMOResult:
    """Solve the soft-margin SVM dual by SMO with second-order working-set selection.

    Minimises ``1/2 a^T Q a - e^T a`` subject to ``y^T a = 0`` and
    ``0 <= a_i <= C``, with ``Q = (y y^T) * K``, by libsvm's algorithm (see the
    module docstring). Ties in the working-set selection go to the *lowest*
    index here (libsvm takes the highest); :class:`SVC` feeds the samples in
    reversed libsvm order, which makes both pick the same pairs as long as the
    order is not permuted (by shrinking) and rounding breaks no exact tie.

    With ``linear_term=p`` the objective is ``1/2 a^T Q a + p^T a`` (libsvm's
    general ``Solver``). With ``y`` of length ``2n`` (``K`` still ``n x n``)
    variable ``s`` belongs to sample ``s mod n``:
    ``Q_st = y_s y_t K_{s mod n, t mod n}``; with ``y = (+1, .., +1, -1, .., -1)``
    and ``p = (eps - z, eps + z)`` this is the epsilon-SVR dual (see
    :class:`ktheory.svm.SVR`), solved without forming a ``2n x 2n`` matrix.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric kernel (Gram) matrix of the training points. It need not be
        positive semidefinite (curvatures ``a_ij <= 0`` are replaced by ``TAU``).
    y : array_like of shape (n,) or (2n,)
        Labels in ``{-1, +1}``, both present; length ``2n`` for the SVR index
        map (above).
    C : float, default 1.0
        Box constraint ``> 0``.
    tol : float, default 1e-3
        Stopping tolerance on ``m(a) - M(a)`` (libsvm's ``eps``), ``> 0``.
    max_iter : int, default -1
        Maximum number of iterations; ``-1`` means no limit (as
        scikit-learn's libsvm). Reaching a limit you set issues a
        :class:`ConvergenceWarning`.
    check_input : bool, optional
        Validate ``K`` and ``y`` (shape, finiteness, symmetry, labels); on by
        default. Switch it off only for input from a trusted caller.
    linear_term : array_like of shape (len(y),), optional
        The linear term ``p`` of the objective (finite); None (the default)
        means ``p = -e``, the classification dual.

    Returns
    -------
    SMOResult
        ``alpha``, ``intercept``, ``objective``, ``n_iter``, ``gap``, ``converged``.

    Raises
    ------
    ValueError
        If ``K`` is not a finite symmetric square matrix (symmetric to a
        tolerance that follows its dtype: ``1e-10`` relative for float64,
        ``100 * eps`` for float32), ``y`` is not a ``{-1, +1}`` vector of
        matching length containing both labels, ``C``, ``tol``, ``max_iter``
        are out of range, or the iteration overflows (kernel values too large
        for float64).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2., -1.], [-1., -1.], [-1., -2.], [1., 1.], [1., 2.], [2., 1.]])
    >>> y = np.array([-1., -1., -1., 1., 1., 1.])
    >>> res = smo_solve(X @ X.T, y, C=1.0)
    >>> np.round(res.alpha, 6).tolist(), round(res.intercept, 6)
    ([0.0, 0.25, 0.0, 0.25, 0.0, 0.0], 0.0)

    The epsilon-SVR dual of three points on the line ``z = 2x - 1`` with
    ``eps = 0.1``: the fit is ``f(x) = 1.9 x - 0.9``, the flattest line whose
    0.1-tube holds all three points (slope ``sum_i (alpha_i - alpha*_i) x_i``).

    >>> x = np.array([[0.], [1.], [2.]]); z = np.array([-1., 1., 3.])
    >>> y2 = np.r_[np.ones(3), -np.ones(3)]
    >>> res = smo_solve(x @ x.T, y2, C=10.0, tol=1e-9, linear_term=np.r_[0.1 - z, 0.1 + z])
    >>> coef = res.alpha[:3] - res.alpha[3:]
    >>> float(np.round(coef @ x[:, 0], 6)), round(res.intercept, 6)
    (1.9, -0.9)
    """
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = _check_max_iter(max_iter)
    if check_input:
        in_dtype = getattr(K, "dtype", None)
        K = check_array(K, "K")
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square (n, n) kernel matrix; got shape {K.shape}")
        K = _checked_symmetric(K, "K", in_dtype)
        y = check_array(y, "y", ndim=1)
        if y.shape[0] not in (K.shape[0], 2 * K.shape[0]):
            raise ValueError(f"y has {y.shape[0]} entries but K is {K.shape[0]} x {K.shape[0]} "
                             f"(y needs n = {K.shape[0]} entries, or 2n for the SVR index map)")
        if not np.all((y == 1.0) | (y == -1.0)):
            raise ValueError("y must contain only the labels -1 and +1")
        if np.all(y == y[0]):
            raise ValueError("y contains a single label; SMO needs both -1 and +1")
    else:
        K = np.ascontiguousarray(K, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
    p = None
    if linear_term is not None:
        if check_input:
            p = check_array(linear_term, "linear_term", ndim=1)
            if p.shape != y.shape:
                raise ValueError(f"linear_term has {p.shape[0]} entries but y has {y.shape[0]}; "
                                 "they must be equal")
        else:
            p = np.asarray(linear_term, dtype=np.float64)
    return _smo(K, y, C, tol, max_iter, p)


def _sym_rtol(dtype: Any) -> float:
    """Relative symmetry tolerance for a matrix that came with ``dtype``: ``1e-10``
    for float64 (and integers), ``100 * eps`` for lower-precision floats."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return 1e-10
    if dt.kind == "f" and dt.itemsize < 8:
        return max(1e-10, 100.0 * float(np.finfo(dt).eps))
    return 1e-10


def _checked_symmetric(K: np.ndarray, name: str, in_dtype: Any) -> np.ndarray:
    """``K`` (float64) checked for symmetry to the tolerance of its input dtype; a
    low-precision input admitted with a rounding-level asymmetry is replaced by its
    symmetric part ``(K + K.T) / 2`` (K is then a private copy)."""
    rtol = _sym_rtol(in_dtype)
    check_symmetric(K, name, rtol=rtol)
    if rtol > 1e-10:
        K = 0.5 * (K + K.T)
    return K


def _check_max_iter(max_iter: Any) -> int:
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer (-1 for no limit), got {max_iter!r}")
    if max_iter == -1:
        return _NO_LIMIT
    if max_iter <= 0:
        raise ValueError(f"max_iter must be a positive integer or -1 for no limit, got {max_iter!r}")
    return int(max_iter)


def _weights(QD: np.ndarray) -> tuple[np.ndarray, bool]:
    """The shift vector ``w`` of the stored matrix ``H = w - K`` (see :func:`_smo_core`)."""
    const_diag = bool(QD.size) and bool(np.all(QD == QD[0]))
    return (QD.copy() if const_diag else 0.5 * QD), const_diag


def _smo(K: np.ndarray, y: np.ndarray, C: float, eps: float, max_iter: int,
         p: np.ndarray | None = None) -> SMOResult:
    """SMO on a validated kernel matrix (copied into the shifted form ``H``); ``y`` and
    ``p`` of length ``n`` or ``2n`` (see :func:`_smo_iterate`)."""
    scale = _tiny_scale(K)
    if scale != 1.0:
        K = K / scale
    QD = np.array(np.diagonal(K), dtype=np.float64)
    w, const_diag = _weights(QD)
    # H = w - K, not clipped: H also updates the gradient, so it must hold the kernel
    # exactly; the curvatures are clipped where they are used
    H = np.subtract(w, K, dtype=np.float64)
    return _smo_core(H, y, QD, const_diag, C, eps, max_iter, scale, p=p)


#: Below this largest diagonal entry of K the problem is solved rescaled (see :func:`_smo_core`).
_SMALL_SCALE = 1e-8


def _tiny_scale(K: np.ndarray) -> float:
    """``s = max |diag K|`` if it is below ``_SMALL_SCALE`` (then solve with ``K / s``), else 1.

    The dual is invariant under ``K -> K / s``, ``C -> C s``, ``alpha -> alpha s``
    (objective ``* s``; same gradient, gap and intercept). libsvm's absolute ``TAU``
    breaks that invariance when every curvature is below it: with ``K`` near
    ``1e-200`` and ``C`` near ``1e200`` each step would move by about ``1e12`` and
    the iteration would run practically forever. Such problems are solved
    rescaled (:func:`_smo_core`'s ``scale``); all others exactly as libsvm.
    """
    return _diag_scale(np.diagonal(K))


def _diag_scale(diag: np.ndarray) -> float:
    """:func:`_tiny_scale` from the diagonal of ``K`` alone."""
    d = np.abs(diag)
    s = float(d.max()) if d.size else 0.0
    return s if 0.0 < s < _SMALL_SCALE else 1.0


def _compiled() -> Any:
    """The compiled solver (:mod:`ktheory.svm._fast`), or None where numba cannot be
    imported: the estimators then solve with numpy (``SVC._dual_numpy``)."""
    try:
        from . import _fast
    except ImportError:
        return None
    return _fast


def _as_result(res: Any) -> SMOResult:
    """An :class:`SMOResult` from the compiled solver's result, warning as
    :func:`smo_solve` does when it stopped at ``max_iter``."""
    if not res.converged:
        warnings.warn(
            f"SMO stopped at max_iter={res.n_iter} iterations with maximal violation "
            f"{res.gap:.3g}; the solution is not optimal to tol. Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=4,
        )
    return SMOResult(alpha=res.alpha, intercept=res.intercept, objective=res.objective,
                     n_iter=res.n_iter, gap=float(res.gap), converged=bool(res.converged),
                     stats=res.stats)


def _smo_core(H: np.ndarray, y: np.ndarray, QD: np.ndarray, const_diag: bool, C: float,
              eps: float, max_iter: int, scale: float = 1.0,
              p: np.ndarray | None = None) -> SMOResult:
    """SMO on ``H`` built from ``K / scale`` (see :func:`_tiny_scale`); the result is
    that of the problem with ``K`` itself. ``y``, ``p``: see :func:`_smo_iterate` (the
    rescaling ``K -> K / s, C -> C s, alpha -> alpha s`` multiplies the objective by
    ``s`` with or without a linear term ``p``, and leaves the gradient unchanged)."""
    if scale == 1.0:
        return _smo_iterate(H, y, QD, const_diag, C, eps, max_iter, p)
    res = _smo_iterate(H, y, QD, const_diag, C * scale, eps, max_iter, p)
    return SMOResult(alpha=res.alpha / scale, intercept=res.intercept, objective=res.objective / scale,
                     n_iter=res.n_iter, gap=res.gap, converged=res.converged)


def _smo_iterate(H: np.ndarray, y: np.ndarray, QD: np.ndarray, const_diag: bool, C: float,
                 eps: float, max_iter: int, p: np.ndarray | None = None) -> SMOResult:
    """The SMO iteration, on ``1/2 a^T Q a + p^T a`` (``p = -e`` if None).

    ``y`` has length ``n`` (``H`` is ``n x n``; classification, ``Q = (y y^T) * K``)
    or ``2n``: then variable ``s`` belongs to sample ``s mod n`` and
    ``Q_st = y_s y_t K_{s mod n, t mod n}``, libsvm's epsilon-SVR problem, solved
    without a ``2n x 2n`` matrix. Row ``s`` of the ``2n`` problem's ``H`` is
    ``H[s mod n]`` repeated on both halves: the curvatures ``a_st`` are those of
    samples ``s mod n`` and ``t mod n`` (``a = 0 -> TAU`` for the pair
    ``(s, s + n)``), and the gradient update is one length-``n`` combination
    ``c_i H_i + c_j H_j`` added to both halves of ``U`` and ``L``.

    ``H = w[None, :] - K`` where ``w = diag(K)`` if the diagonal is constant
    (then ``H_it`` is half the curvature ``a_it = K_ii + K_tt - 2 K_it``, used
    clipped at ``TAU / 2``) and ``w = diag(K) / 2`` otherwise (then
    ``a_it / 2 = H_it + K_ii / 2``). Storing ``H`` instead of ``K`` saves the
    per-iteration work of forming the curvatures, and costs nothing in the
    gradient update: with ``c_t = y_t (alpha_t^new - alpha_t^old)``,

        v <- v - c_i K_i - c_j K_j = v + c_i H_i + c_j H_j - (c_i + c_j) w,

    and ``c_i + c_j = 0`` because the step keeps ``y^T alpha`` fixed; its
    rounding residue is accumulated in the scalar ``E`` (``v = z - E w``).
    ``v_t = -y_t grad_t`` is stored twice, in ``U = z`` on ``I_up`` (``-inf``
    elsewhere) and ``L = z`` on ``I_low`` (``+inf`` elsewhere), so the
    selection is one ``argmax`` and one ``argmin``.
    """
    n = H.shape[0]
    m = y.shape[0]                          # n, or 2n for the SVR index map
    tiled = m != n
    inf = np.inf
    half_tau = 0.5 * TAU
    w = QD if const_diag else 0.5 * QD
    wl = w.tolist()
    QDhl = (0.5 * QD).tolist()
    if tiled:
        wl, QDhl = wl * 2, QDhl * 2         # indexed by the variable, s -> sample s mod n
    pos = y > 0
    yl = [1.0 if q else -1.0 for q in pos.tolist()]
    al = [0.0] * m
    # status: 0 = at lower bound, 1 = free, 2 = at upper bound (libsvm's alpha_status)
    st = [0] * m
    if p is None:
        z0 = np.where(pos, 1.0, -1.0)       # v = -y grad = y at alpha = 0
    else:
        z0 = np.where(pos, -p, p)           # v = -y grad = -y p at alpha = 0
    U = np.where(pos, z0, -inf)             # I_up  = {y=+1, a<C} u {y=-1, a>0}
    L = np.where(pos, inf, z0)              # I_low = {y=+1, a>0} u {y=-1, a<C}
    E = 0.0
    # v = z - E w: the selection reads z, whose differences are off by E (w_s - w_t).
    # With a constant diagonal that is 0; otherwise E is folded into z once
    # |E| * spread(w) reaches 1% of tol (E is rounding residue, ~1e-14 per step, so
    # this is rare), or a long run could stall with a gap that only exists in z.
    spread = 0.0 if const_diag or not n else float(w.max() - w.min())
    e_fold = 0.01 * eps / spread if spread > 0.0 else inf
    bb = np.empty(m)
    ba = np.empty(m)
    bc = ba[:n]                             # curvatures of the row (all of ba if m == n)
    if tiled:                               # (2, n) views: one row H_i serves both halves
        bbv, U2, L2 = bb.reshape(2, n), U.reshape(2, n), L.reshape(2, n)
        comb = np.empty(n)
    else:
        bbv = bb
    subtract, multiply, divide, absolute, add, maximum = (
        np.subtract, np.multiply, np.divide, np.absolute, np.add, np.maximum)
    axpy = _blas.daxpy

    n_iter = 0
    converged = False
    gap = inf
    while True:
        # --- working-set selection (WSS3) ---------------------------------
        i = int(U.argmax())
        Gmax = float(U[i])
        Gmin = float(L[int(L.argmin())])
        gap = Gmax - Gmin
        if gap < eps:
            converged = True
            break
        if not gap < inf:  # NaN or inf: the gradient overflowed; never "converge" on it
            raise ValueError(
                f"SMO diverged at iteration {n_iter}: the gradient is not finite (maximal violation "
                f"{gap}); the kernel values are too large for float64 (max |K_ij| about "
                f"{float(np.max(np.abs(H))):.3g}). Rescale X or change the kernel's parameters."
            )
        if n_iter >= max_iter:
            break
        ki = i - n if i >= n else i          # the row of H (sample i mod n)
        Hi = H[ki]
        subtract(Gmax, L, out=bb)            # b_it = m - v_t (<= 0 off the candidates)
        absolute(bb, out=ba)
        multiply(bb, ba, out=bb)             # b |b|: > 0 exactly on the candidates
        if const_diag:
            maximum(Hi, half_tau, out=bc)    # H_i = a_i / 2; a < tau -> tau
            divide(bbv, bc, out=bbv)
        else:
            add(Hi, QDhl[i], out=bc)         # a_i / 2
            maximum(bc, half_tau, out=bc)    # libsvm: a <= 0 -> tau
            divide(bbv, bc, out=bbv)
        j = int(bb.argmax())
        kj = j - n if j >= n else j
        n_iter += 1

        # --- two-variable subproblem, libsvm's clipping ---------------------
        yi = yl[i]
        yj = yl[j]
        vi = Gmax - E * wl[i]
        vj = float(L[j]) - E * wl[j]
        Gi = -yi * vi
        Gj = -yj * vj
        ai_old = ai = al[i]
        aj_old = aj = al[j]
        Hij = float(Hi[kj])
        quad = 2.0 * Hij if const_diag else 2.0 * (QDhl[i] + Hij)   # K_ii + K_jj - 2 K_ij
        if quad < TAU if const_diag else quad <= 0.0:
            quad = TAU
        if yi != yj:
            delta = (-Gi - Gj) / quad
            diff = ai - aj
            ai += delta
            aj += delta
            if diff > 0:
                if aj < 0:
                    aj = 0.0
                    ai = diff
            elif ai < 0:
                ai = 0.0
                aj = -diff
            if diff > 0:  # C_i - C_j == 0
                if ai > C:
                    ai = C
                    aj = C - diff
            elif aj > C:
                aj = C
                ai = C + diff
        else:
            delta = (Gi - Gj) / quad
            s = ai + aj
            ai -= delta
            aj += delta
            if s > C:
                if ai > C:
                    ai = C
                    aj = s - C
            elif aj < 0:
                aj = 0.0
                ai = s
            if s > C:
                if aj > C:
                    aj = C
                    ai = s - C
            elif ai < 0:
                ai = 0.0
                aj = s
        al[i] = ai
        al[j] = aj

        # --- gradient update: z += c_i H_i + c_j H_j (both copies) ----------
        ci = yi * (ai - ai_old)
        cj = yj * (aj - aj_old)
        E += ci + cj
        if abs(E) > e_fold:                  # rare: fold the residue into z (see above)
            wE = E * (np.tile(w, 2) if tiled else w)
            subtract(U, wE, out=U)
            subtract(L, wE, out=L)
            E = 0.0
        Hj = H[kj]
        if tiled:                            # the same length-n change on both halves
            multiply(Hi, ci, out=comb)
            axpy(Hj, comb, a=cj)
            add(U2, comb, out=U2)
            add(L2, comb, out=L2)
        else:
            axpy(Hi, U, a=ci)
            axpy(Hj, U, a=cj)
            axpy(Hi, L, a=ci)
            axpy(Hj, L, a=cj)

        # --- index sets: only i and j can change ----------------------------
        for t, at in ((i, ai), (j, aj)):
            s_new = 2 if at >= C else (0 if at <= 0.0 else 1)
            if s_new != st[t]:
                st[t] = s_new
                u = float(U[t])
                zt = u if u != -inf else float(L[t])
                in_up = s_new != 2 if yl[t] > 0 else s_new != 0
                in_low = s_new != 0 if yl[t] > 0 else s_new != 2
                U[t] = zt if in_up else -inf
                L[t] = zt if in_low else inf

    if not converged:
        warnings.warn(
            f"SMO stopped at max_iter={n_iter} iterations with maximal violation "
            f"{gap:.3g} > tol={eps:g}; the solution is not optimal to tol. "
            "Increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )

    alpha = np.array(al)
    v = np.where(np.isfinite(U), U, L) - E * (np.tile(w, 2) if tiled else w)
    b, objective = _intercept_and_objective(alpha, v, pos, C, p)
    return SMOResult(alpha=alpha, intercept=b, objective=objective, n_iter=n_iter,
                     gap=float(gap), converged=converged)


def _violation(alpha: np.ndarray, v: np.ndarray, pos: np.ndarray, C: float) -> float:
    """The maximal violation ``m(alpha) - M(alpha)`` from ``v = -y grad``."""
    upper = alpha >= C
    lower = alpha <= 0.0
    in_up = np.where(pos, ~upper, ~lower)
    in_low = np.where(pos, ~lower, ~upper)
    m = float(v[in_up].max()) if np.any(in_up) else -np.inf
    M = float(v[in_low].min()) if np.any(in_low) else np.inf
    return m - M


def _intercept_and_objective(alpha: np.ndarray, v: np.ndarray, pos: np.ndarray, C: float,
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


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


class SVC(ParamsMixin):
    """Soft-margin support vector classifier trained by SMO, as libsvm.

    Mirrors ``sklearn.svm.SVC``: same parameters (those listed here) **with the
    same defaults** as ``sklearn.svm.SVC`` (``C=1.0``, ``kernel="rbf"``,
    ``degree=3``, ``gamma="scale"``, ``coef0=0.0``, ``tol=1e-3``,
    ``shrinking=True``, ``cache_size=200``, ``verbose=False``, ``max_iter=-1``,
    ``decision_function_shape="ovr"``, ``break_ties=False``),
    same learned attributes and signs, and, because it runs the same algorithm
    in the same order, the same solution to within the tolerance. (The kernel
    *functions* of :mod:`ktheory.kernels` have the book's defaults; the
    estimator passes every parameter explicitly.)

    Two classes are one binary SVM. ``k >= 3`` classes are handled as libsvm
    does, **one-vs-one**: a binary SVM for each of the ``k(k-1)/2`` pairs of
    classes ``(i, j)``, ``i < j`` (class ``i`` on the positive side), and the
    prediction by voting, a tie going to the lowest class index (see
    :mod:`ktheory.svm._ovo` for the layout of the attributes).

    Parameters
    ----------
    C : float, default 1.0
        Box constraint ``0 <= alpha_i <= C``; ``> 0``.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default "rbf"
        A name (scikit-learn's parametrisation: ``"linear"`` ``<x, z>``,
        ``"poly"`` ``(gamma <x, z> + coef0)^degree``, ``"rbf"``
        ``exp(-gamma ||x - z||^2)``, ``"sigmoid"`` ``tanh(gamma <x, z> + coef0)``,
        evaluated in training by the compiled solver, one kernel value at a
        time, and at prediction by the functions of :mod:`ktheory.kernels`;
        the two agree to rounding), a callable
        ``k(X, Y)`` returning the ``(len(X), len(Y))`` Gram block, or
        ``"precomputed"``: then ``X`` in :meth:`fit` is the ``(n, n)`` training
        Gram matrix and in :meth:`predict` the ``(n_test, n_train)`` matrix of
        kernel values against the training points. A fitted model stores the
        kernel by name and parameters, so it can be pickled (with a callable
        kernel: if the callable can).
    degree : int, default 3
        Degree of ``"poly"`` (an integer ``>= 1``; ignored by other kernels).
    gamma : {"scale", "auto"} or float, default "scale"
        Kernel coefficient of ``"poly"``, ``"rbf"``, ``"sigmoid"`` (the linear
        kernel has none): ``"scale"`` is ``1 / (n_features * X.var())`` (1 if
        ``X.var() == 0``), ``"auto"`` is ``1 / n_features``, a float is used as
        is (``> 0``). If ``"scale"`` is not representable in float64 (``X``
        near ``1e±200``) ``fit`` says so and asks for rescaled data or a
        numeric gamma.
    coef0 : float, default 0.0
        Constant of ``"poly"`` and ``"sigmoid"``.
    shrinking : bool, default True
        libsvm's shrinking heuristic: variables at a bound that look set to stay
        there are set aside and the iteration runs on the rest (a heuristic:
        the stopping test is always made on all variables, so the guarantee
        is the same to ``tol``; the iterates differ).
    tol : float, default 1e-3
        Stopping tolerance on the maximal violation ``m(alpha) - M(alpha)``.
        A ``tol`` above 2 stops before the first step (no support vectors;
        every decision value is then the intercept).
    cache_size : float, default 200
        MiB of kernel rows to keep (least recently used out first), as
        scikit-learn's ``cache_size``: ``floor(cache_size * 2**20 / (8 n))``
        rows, at least 2 (a step needs two) and at most ``n``. Each slot holds a
        whole float64 row, so the same MiB hold fewer rows than libsvm's
        single-precision cache, which also stores short rows under shrinking. A
        named kernel's rows are computed from ``X`` when needed: memory is
        ``O(n d)`` plus the cache, never the ``n x n`` matrix.
    verbose : bool, default False
        Print the iteration count, the maximal violation (of the last selection,
        on the active set), the size of the active set and the cache hit rate
        about once a second, and a summary line (``SMO done: ...``) at the end.
    max_iter : int, default -1
        Iteration limit, ``-1`` for none (as scikit-learn's libsvm: SMO
        stops at ``tol``). A limit you set that is reached issues a
        :class:`ConvergenceWarning`.
    gram_limit_mb : float, default 2048
        For a *callable* kernel only, whose training Gram matrix is computed
        once and held (``n**2 * 8`` bytes: 5000 samples need 200 MB): refuse
        (``ValueError``) a matrix larger than this many MiB. (Not a parameter
        of scikit-learn's SVC.)
    decision_function_shape : {"ovr", "ovo"}, default "ovr"
        For ``k >= 3`` classes: ``"ovo"`` makes :meth:`decision_function`
        return the ``k(k-1)/2`` pairwise decision values, ``"ovr"`` the
        ``(n, k)`` one-vs-rest-shaped values scikit-learn derives from them
        (votes plus a squashed sum of confidences in ``(-1/3, 1/3)``). Ignored
        for two classes (a 1-D decision function).
    break_ties : bool, default False
        For ``k >= 3`` and ``decision_function_shape="ovr"``: predict the
        argmax of the ovr decision function, which breaks vote ties by the
        confidences, instead of libsvm's vote (ties to the lowest class
        index). ``True`` with ``"ovo"`` is a ``ValueError`` in :meth:`predict`,
        as in scikit-learn.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (k,)
        The labels, sorted. With two classes ``classes_[1]`` is the positive
        class (``decision_function > 0``), as in scikit-learn.
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the support vectors (``alpha_i > 0``; for ``k >= 3``: in
        at least one pair), grouped by class in the order of ``classes_``,
        each group in increasing order (libsvm's order).
    support_vectors_ : numpy.ndarray of shape (n_SV, n_features)
        The support vectors; an empty ``(0, 0)`` array for ``"precomputed"``
        (as scikit-learn).
    n_support_ : numpy.ndarray of shape (k,)
        Number of support vectors in each class.
    dual_coef_ : numpy.ndarray of shape (k - 1, n_SV)
        Two classes: ``alpha_i y_i`` with ``y_i = +1`` for ``classes_[1]``,
        ``-1`` for ``classes_[0]``. ``k >= 3``: libsvm's packed layout; in pair
        ``(i, j)`` (``y = +1`` for class ``i``) the coefficients of class
        ``i``'s support vectors are in row ``j - 1``, those of class ``j``'s in
        row ``i`` (0 where a support vector is not one of that pair).
    intercept_ : numpy.ndarray of shape (k(k-1)/2,)
        ``b`` in ``f(x) = sum_i dual_coef_i k(sv_i, x) + b``; for ``k >= 3``
        one per pair, in the order ``(0,1), (0,2), ..., (k-2,k-1)``, with
        ``f_p > 0`` for the pair's first class.
    alpha_ : numpy.ndarray of shape (n_samples,) or (k(k-1)/2, n_samples)
        All dual variables, in the order of the training samples (per pair
        for ``k >= 3``, 0 for samples of the other classes).
    n_iter_ : int or numpy.ndarray of shape (k(k-1)/2,)
        Number of SMO iterations (per pair for ``k >= 3``, as scikit-learn's
        ``n_iter_``; for two classes an int, where scikit-learn stores a
        length-1 array).
    objective_ : float or numpy.ndarray of shape (k(k-1)/2,)
        Final dual objective (per pair) in libsvm's minimisation form
        ``1/2 alpha^T Q alpha - sum(alpha)``; it is ``<= 0`` and equals minus
        the book's (maximised) dual objective.
    gap_ : float or numpy.ndarray of shape (k(k-1)/2,)
        Final maximal violation ``m(alpha) - M(alpha)`` (``< tol``), per pair
        for ``k >= 3``.
    solver_stats_ : dict or list of dict or None
        What the compiled solver did (None where numba is not installed and the
        estimator solved with numpy, see Notes; a list, one per pair, for ``k >= 3``):
        ``cache_rows`` (rows the cache holds), ``row_length``, ``hits``,
        ``misses`` and ``evictions`` of the row cache, ``shrink_steps``
        (shrinking checks that set variables aside), ``unshrinks`` (0 or 1:
        libsvm's single unshrink when the violation first drops below
        ``10 tol``), ``reconstructions`` (rebuilds of the inactive variables'
        gradient), the final ``active_size``, and ``history``: arrays
        ``iteration``, ``active_size`` and ``violation`` recorded at each
        shrinking check, every ``min(n, 1000)`` iterations and once more after
        a final test that failed; ``violation`` is that of the selection just
        before the check, over the active set (at most 10 000 entries).
    shape_fit_ : tuple
        Shape of the training ``X``.
    n_features_in_ : int
        Number of features (columns) of the training ``X``.

    Notes
    -----
    Labels: any two distinct values (numbers, strings, booleans); floats must
    be whole numbers (non-integer floats are a regression target and are
    refused, as scikit-learn does). libsvm gives the label ``+1`` to
    ``classes_[0]`` inside the solver and scikit-learn flips the signs
    afterwards; the dual problem is invariant under ``y -> -y``, so this class
    does the same and reports scikit-learn's signs.

    Input: dense arrays only (sparse matrices are refused with a message);
    ``bool`` is read as 0/1, ``float32`` is converted to float64 (a
    precomputed float32 Gram matrix is checked for symmetry to float32's
    rounding level); complex input is refused.

    Solver: the iteration of :func:`smo_solve` (libsvm's), compiled, with
    kernel rows computed on demand and cached and with shrinking (see
    :mod:`ktheory.svm._fast`). With ``shrinking=False`` it takes the same steps
    as :func:`smo_solve` fed the same order, up to the first exact tie between
    candidates (after a step that leaves both variables free their scores are
    equal in exact arithmetic, and the two codes round differently); from
    there the paths differ and end at the same optimum to ``tol``. With
    shrinking the order of the active set is no longer libsvm's either, so
    ties may go another way than in libsvm.

    Without numba (it is the optional extra ``ktheory[fast]``) the estimator
    solves with numpy: :func:`smo_solve`'s iteration on the Gram matrix of the
    training data (so ``gram_limit_mb`` applies to every kernel), without a
    row cache or shrinking (``shrinking``, ``cache_size`` and ``verbose`` have
    no effect and ``solver_stats_`` is None). The problem, the stopping rule and
    the intercept rule are the same, and so is the optimum to ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2., -1.], [-1., -1.], [-1., -2.], [1., 1.], [1., 2.], [2., 1.]])
    >>> clf = SVC(kernel="linear").fit(X, [1, 1, 1, 2, 2, 2])
    >>> clf.support_.tolist(), np.round(clf.dual_coef_, 6).tolist(), np.round(clf.intercept_, 6).tolist()
    ([1, 3], [[-0.25, 0.25]], [0.0])
    >>> clf.predict([[-0.8, -1.0]]).tolist()
    [1]
    >>> import pickle
    >>> pickle.loads(pickle.dumps(clf)).predict([[-0.8, -1.0]]).tolist()
    [1]

    Three classes, one point each: every pair is a two-point hard-margin SVM
    (``alpha = 2 / ||x_i - x_j||^2``), packed as libsvm packs it.

    >>> X3 = np.array([[0., 0.], [2., 0.], [0., 4.]])
    >>> clf3 = SVC(kernel="linear", C=10.0, tol=1e-10).fit(X3, ["a", "b", "c"])
    >>> np.round(clf3.dual_coef_, 6).tolist(), np.round(clf3.intercept_, 6).tolist()
    ([[0.5, -0.5, -0.125], [0.125, 0.1, -0.1]], [1.0, 1.0, 0.6])
    >>> clf3.predict([[0.2, 0.1], [2.5, 0.5], [0.5, 3.0]]).tolist()
    ['a', 'b', 'c']
    >>> clf3.set_params(decision_function_shape="ovo")
    SVC(C=10.0, kernel='linear', tol=1e-10, decision_function_shape='ovo')
    >>> np.round(clf3.decision_function([[0.5, 1.0]]), 6).tolist()   # pairs (a,b), (a,c), (b,c)
    [[0.5, 0.5, 0.3]]
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        tol: float = 1e-3,
        cache_size: float = DEFAULT_CACHE_MB,
        verbose: bool = False,
        max_iter: int = -1,
        gram_limit_mb: float = DEFAULT_GRAM_LIMIT_MB,
        decision_function_shape: str = "ovr",
        break_ties: bool = False,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.gram_limit_mb = gram_limit_mb
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties

    _estimator_type = "classifier"

    def __sklearn_tags__(self) -> Any:
        """Estimator tags for scikit-learn (imported lazily: sklearn is not a dependency)."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=True),
            input_tags=InputTags(pairwise=self.kernel == "precomputed"),
        )

    # -- helpers --------------------------------------------------------------
    def _check_params(self) -> None:
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        _check_max_iter(self.max_iter)
        check_positive(self.gram_limit_mb, "gram_limit_mb")
        check_positive(self.cache_size, "cache_size")
        for name in ("shrinking", "verbose"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
        kernel = self.kernel
        if not callable(kernel):
            if not isinstance(kernel, str):
                raise TypeError(
                    f"kernel must be one of {_NAMED_KERNELS}, 'precomputed' or a callable k(X, Y); "
                    f"got {type(kernel).__name__} {kernel!r}"
                )
            if kernel != "precomputed" and kernel not in _NAMED_KERNELS:
                raise ValueError(
                    f"kernel must be one of {_NAMED_KERNELS}, 'precomputed' or a callable k(X, Y); "
                    f"got {kernel!r}"
                )
        if isinstance(self.gamma, str):
            if self.gamma not in ("scale", "auto"):
                raise ValueError(f"gamma must be 'scale', 'auto' or a positive float, got {self.gamma!r}")
        else:
            check_positive(self.gamma, "gamma")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be an integer, got {type(self.degree).__name__} {self.degree!r}")
        if self.degree < (1 if kernel == "poly" else 0):
            raise ValueError(f"degree must be an integer >= 1 for kernel='poly', got {self.degree!r}")
        if isinstance(self.coef0, bool) or not isinstance(self.coef0, numbers.Real):
            raise TypeError(f"coef0 must be a real number, got {type(self.coef0).__name__} {self.coef0!r}")
        if not np.isfinite(float(self.coef0)):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}")
        self._check_multiclass_params()

    def _check_multiclass_params(self) -> None:
        """``decision_function_shape`` and ``break_ties``, checked at fit and where used."""
        if not isinstance(self.decision_function_shape, str):
            raise TypeError(
                f"decision_function_shape must be 'ovr' or 'ovo' (a str), got "
                f"{type(self.decision_function_shape).__name__} {self.decision_function_shape!r}"
            )
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(
                f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}"
            )
        if not isinstance(self.break_ties, (bool, np.bool_)):
            raise TypeError(
                f"break_ties must be a bool, got {type(self.break_ties).__name__} {self.break_ties!r}"
            )

    def _gamma_value(self, X: np.ndarray) -> float | None:
        """The kernel coefficient used for ``X`` (None for kernels without one)."""
        if callable(self.kernel) or self.kernel in ("linear", "precomputed"):
            return None
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        if self.gamma != "scale":
            return float(self.gamma)
        # 1 / (n_features * X.var()), as scikit-learn, computed without overflow:
        # directly (bit for bit sklearn's value) when X's scale allows it,
        # through X / max|X| otherwise.
        s = float(np.max(np.abs(X)))
        if s == 0.0:
            return 1.0
        if 1e-150 < s < 1e150:
            var = float(X.var())
            return 1.0 / (X.shape[1] * var) if var != 0.0 else 1.0
        rel = float((X / s).var())
        if rel == 0.0:
            return 1.0
        with np.errstate(over="ignore", under="ignore"):
            g = 1.0 / (X.shape[1] * rel) / s / s
        if not (np.isfinite(g) and g >= np.finfo(np.float64).tiny):
            log_var = 2.0 * np.log10(s) + np.log10(rel)
            raise ValueError(
                f"gamma='scale' is 1 / (n_features * X.var()) with X.var() about 1e{log_var:.0f}, "
                "which is not representable in float64 (X's values are too "
                f"{'large' if s > 1 else 'small'}, max |X| = {s:.3g}). Rescale X (e.g. standardise "
                "its columns) or pass a numeric gamma."
            )
        return g

    def _kernel_block(self, A: np.ndarray, B: np.ndarray | None) -> np.ndarray:
        """``k(A, B)`` (``B=None``: ``k(A, A)``) for the kernel stored at fit time,
        evaluated by the public functions of :mod:`ktheory.kernels` (or the callable)."""
        p = self._kernel_params_
        kern = p["kernel"]
        if callable(kern):
            return kern(A, A if B is None else B)
        from .. import kernels as km

        if kern == "linear":
            return km.linear_kernel(A, B)
        if kern == "poly":
            return km.polynomial_kernel(A, B, degree=p["degree"], gamma=p["gamma"], coef0=p["coef0"])
        if kern == "rbf":
            return km.rbf_kernel(A, B, gamma=p["gamma"])
        if kern == "sigmoid":
            return km.sigmoid_kernel(A, B, gamma=p["gamma"], coef0=p["coef0"])
        raise ValueError(f"unknown kernel {kern!r}")  # pragma: no cover - checked in fit

    def _set_kernel(self, X: np.ndarray) -> None:
        """Store the kernel by name and parameters (``_kernel_params_``): picklable,
        and unaffected by ``set_params`` after fitting."""
        self._gamma_ = None if self.kernel == "precomputed" else self._gamma_value(X)
        self._kernel_params_ = {
            "kernel": self.kernel,
            "gamma": self._gamma_,
            "degree": int(self.degree),
            "coef0": float(self.coef0),
        }

    def _gram(self, A: np.ndarray, B: np.ndarray | None, what: str) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # checked below
            Kab = self._kernel_block(A, B)
            Kab = np.asarray(Kab, dtype=np.float64)
        m = A.shape[0] if B is None else B.shape[0]
        if Kab.shape != (A.shape[0], m):
            raise ValueError(
                f"the kernel returned an array of shape {Kab.shape} for the {what}; "
                f"expected ({A.shape[0]}, {m})"
            )
        if not np.isfinite(np.add.reduce(Kab, axis=None)) and not np.all(np.isfinite(Kab)):
            raise ValueError(
                f"the {self._kernel_name()} kernel gave NaN or infinite values for the {what} "
                "(overflow: X's values too large for this kernel and gamma / coef0 / degree); "
                "rescale X or change the kernel's parameters"
            )
        return Kab

    def _kernel_name(self) -> str:
        k = self._kernel_params_["kernel"]
        return "callable" if callable(k) else repr(k)

    def _check_fitted(self) -> None:
        if not hasattr(self, "dual_coef_"):
            raise not_fitted_error(self)

    def _training_gram(self, X: np.ndarray) -> np.ndarray | None:
        """The training Gram matrix the solver reads, or None when it computes kernel
        rows itself: ``X`` for ``"precomputed"``, the matrix of the callable (computed
        once, checked symmetric, within ``gram_limit_mb``), None for a named kernel."""
        kern = self._kernel_params_["kernel"]
        if kern == "precomputed":
            return X
        if not callable(kern):
            return None
        n = X.shape[0]
        need_mb = self._gram_over_limit(n)
        if need_mb:
            raise ValueError(
                f"the training Gram matrix of the kernel callable for n={n} samples needs "
                f"{need_mb:.0f} MiB (n**2 * 8 bytes), more than gram_limit_mb={self.gram_limit_mb}; "
                "raise gram_limit_mb if you have the memory, use a named kernel (whose rows are "
                "computed on demand and cached), or subsample"
            )
        K = self._gram(X, None, "training data")
        check_symmetric(K, "the Gram matrix returned by the kernel callable")
        return K

    def _dual(self, X: np.ndarray, gram: np.ndarray | None, base: np.ndarray, y: np.ndarray,
              C: float, tol: float, max_iter: int, p: np.ndarray | None = None,
              diag: np.ndarray | None = None) -> SMOResult:
        """Solve the dual over the variables ``t`` on samples ``base[t]`` with labels ``y``
        (and linear term ``p``) by the compiled solver (:mod:`ktheory.svm._fast`): kernel
        rows on demand for a named kernel, read from ``gram`` otherwise (see
        :meth:`_training_gram`), ``cache_size`` MiB of rows, shrinking if set.

        Kernel values that overflow fall back on the kernel function of
        :mod:`ktheory.kernels` (which raises if its Gram matrix is not finite); a
        gradient that overflows is a ``ValueError``, as in :func:`smo_solve`. ``diag``:
        the kernel's diagonal over all samples of ``X`` if the caller has it (one-vs-one
        computes it once for all pairs).
        """
        _fast = _compiled()
        if _fast is None:
            return self._dual_numpy(X, gram, base, y, C, tol, max_iter, p)
        kern = self._kernel_params_["kernel"]
        opts = dict(cache_size=float(self.cache_size), shrinking=bool(self.shrinking),
                    verbose=bool(self.verbose))
        if gram is None:
            kind = _fast.KERNEL_CODES[kern]
            kp = (float(self._gamma_ or 0.0), float(self.coef0), float(self.degree))
            if diag is None:
                diag = _fast.kernel_diag(kind, X, kp)
            if np.all(np.isfinite(diag[base])):
                s = _diag_scale(diag[base])
                res = _fast.fast_smo(kind, X, y, C, tol, max_iter, kparams=kp, base=base, p=p,
                                     scale=s, diag=diag, **opts)
                if not res.nonfinite:
                    return _as_result(res)
            # kernel values overflowed: the Gram matrix by ktheory.kernels (ValueError if
            # it is not finite either), within gram_limit_mb
            if self._gram_over_limit(X.shape[0]):
                raise ValueError(
                    f"the {self._kernel_name()} kernel gave NaN or infinite values for the "
                    "training data (overflow: X's values too large for this kernel and "
                    "gamma / coef0 / degree); rescale X or change the kernel's parameters")
            gram = self._gram(X, None, "training data")
        s = _diag_scale(np.diagonal(gram)[np.unique(base)])
        res = _fast.fast_smo(4, None, y, C, tol, max_iter, Kpre=gram, base=base, p=p, scale=s,
                             **opts)
        if res.nonfinite:
            raise ValueError(
                f"SMO diverged at iteration {res.n_iter}: the gradient is not finite; the kernel "
                "values are too large for float64 (max |K_ij| about "
                f"{float(np.max(np.abs(gram))):.3g}). Rescale X or change the kernel's parameters."
            )
        return _as_result(res)

    def _gram_over_limit(self, n: int) -> float:
        """The MiB an ``n x n`` float64 Gram matrix needs if that exceeds
        ``gram_limit_mb``, else 0."""
        need_mb = n * n * 8 / 2**20
        return need_mb if need_mb > float(self.gram_limit_mb) else 0.0

    def _dual_gram(self, X: np.ndarray) -> np.ndarray:
        """The training Gram matrix of a named kernel for :meth:`_dual_numpy`, within
        ``gram_limit_mb`` (finite, or :meth:`_gram` raises)."""
        n_all = X.shape[0]
        need_mb = self._gram_over_limit(n_all)
        if need_mb:
            raise ValueError(
                f"numba is not installed, so {type(self).__name__} solves with numpy on the Gram "
                f"matrix; for n={n_all} samples it needs {need_mb:.0f} MiB, more than "
                f"gram_limit_mb={self.gram_limit_mb}. Install numba, whose compiled solver "
                "computes kernel rows on demand, or raise gram_limit_mb"
            )
        return self._gram(X, None, "training data")

    def _dual_numpy(self, X: np.ndarray, gram: np.ndarray | None, base: np.ndarray,
                    y: np.ndarray, C: float, tol: float, max_iter: int,
                    p: np.ndarray | None = None) -> SMOResult:
        """:meth:`_dual` where numba is not installed: the same problem, stopping rule and
        intercept rule, by the iteration of the readable reference :func:`smo_solve`
        (numpy), on the Gram matrix of the samples ``base`` refers to. It holds that
        matrix (``gram_limit_mb`` applies to every kernel), has no row cache and no
        shrinking, and reports no ``solver_stats_`` (None); it reaches the same optimum
        to the tolerance as the compiled solver, by the same steps up to the first exact
        tie of the selection."""
        if gram is None:
            gram = self._dual_gram(X)
        m = base.shape[0]
        half = m // 2
        if m and m % 2 == 0 and np.array_equal(base[:half], base[half:]):
            idx = base[:half]      # SVR's layout: variable s on sample base[s mod n]
        else:
            idx = base
        # finite: _gram checks a named or callable kernel's matrix, validation a precomputed one
        K = np.ascontiguousarray(gram[np.ix_(idx, idx)], dtype=np.float64)
        return _smo(K, y, C, tol, max_iter, p)

    def _validate_test_X(self, X: Any) -> np.ndarray:
        X, _ = validate_X(X, "X", estimator=type(self).__name__)
        if X.shape[1] != self.n_features_in_:
            m, k = self.n_features_in_, X.shape[1]
            what = (f" (kernel='precomputed': X has {k} columns but must hold the kernel values "
                    f"against the {m} training samples, shape (n_test, {m}))"
                    if self.kernel == "precomputed"
                    else f": X has {k} columns but the training data had {m} features")
            raise ValueError(
                f"X has {k} features, but {type(self).__name__} is expecting {m} features as input{what}"
            )
        return X

    # -- fit / predict -------------------------------------------------------
    def fit(self, X: Any, y: Any) -> "SVC":
        """Fit the classifier by SMO.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square
            ``(n_samples, n_samples)`` training Gram matrix.
        y : array_like of shape (n_samples,)
            Labels: two or more distinct values (``k >= 3``: one-vs-one).

        Returns
        -------
        SVC
            ``self``.

        Raises
        ------
        ValueError
            For NaN/inf in ``X`` or ``y``, mismatched lengths, one class only,
            continuous (non-integer float) labels, a
            non-square or non-symmetric precomputed matrix, invalid parameters,
            a Gram matrix above ``gram_limit_mb``, or a Gram matrix that
            overflows (NaN or infinity).
        TypeError
            For sparse, complex, string or ``None`` input and parameters of the
            wrong type.
        """
        self._check_params()
        X, in_dtype = validate_X(X, "X", estimator=type(self).__name__)
        n = X.shape[0]
        from ._ovo import validate_labels

        classes, cls = validate_labels(y, n, estimator=type(self).__name__)
        # libsvm's order: class 0 first, then class 1, each in input order
        # (svm_group_classes); reversed here so that numpy's first-index argmax
        # breaks ties as libsvm's last-index loops do.
        perm = np.argsort(cls, kind="stable")
        order = perm[::-1].copy()
        y_int = np.where(cls[order] == 0, 1.0, -1.0)  # libsvm: +1 for classes_[0]

        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                    f"got shape {X.shape}"
                )
            X = _checked_symmetric(X, "X (precomputed Gram matrix)", in_dtype)
        self._set_kernel(X)
        if classes.shape[0] > 2:
            return self._fit_ovo(X, classes, cls)
        res = self._dual(X, self._training_gram(X), order, y_int, float(self.C),
                         float(self.tol), _check_max_iter(self.max_iter))

        alpha = np.empty(n)
        alpha[order] = res.alpha
        sv_mask = alpha > 0
        sv0 = np.flatnonzero(sv_mask & (cls == 0))
        sv1 = np.flatnonzero(sv_mask & (cls == 1))
        support = np.concatenate([sv0, sv1]).astype(np.int32)
        y_user = np.where(cls == 1, 1.0, -1.0)

        self.classes_ = classes
        self.alpha_ = alpha
        self.support_ = support
        self.n_support_ = np.array([sv0.size, sv1.size], dtype=np.int32)
        self.dual_coef_ = (alpha[support] * y_user[support]).reshape(1, -1)
        self.intercept_ = np.array([0.0 - res.intercept])
        self.n_iter_ = int(res.n_iter)
        self.objective_ = float(res.objective)
        self.gap_ = float(res.gap)
        self.solver_stats_ = res.stats
        self.shape_fit_ = X.shape
        self.n_features_in_ = X.shape[1]
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[support]
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed decision values ``f(x) = sum_i dual_coef_i k(sv_i, x) + intercept``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test,), (n_test, k) or (n_test, k(k-1)/2)
            Two classes: 1-D, positive values predict ``classes_[1]``.
            ``k >= 3``: with ``decision_function_shape="ovo"`` the pairwise
            values ``f_p`` (positive for the pair's first class), with ``"ovr"``
            scikit-learn's one-vs-rest transform of them. A model without
            support vectors (``tol >= 2``) has ``f_p = intercept_[p]`` everywhere.

        Raises
        ------
        NotFittedError
            If called before :meth:`fit`.
        ValueError
            For NaN/inf, a wrong number of columns, or kernel values that
            overflow.
        TypeError
            For sparse, complex or non-numeric input.
        """
        self._check_fitted()
        X = self._validate_test_X(X)
        if self.classes_.shape[0] > 2:
            from ._ovo import ovr_decision

            self._check_multiclass_params()
            dec = self._ovo_decision(X)
            if self.decision_function_shape == "ovr":
                return ovr_decision(dec, self.classes_.shape[0])
            return dec
        coef = self.dual_coef_[0]
        out = np.zeros(X.shape[0])
        if coef.size == 0:
            pass  # no support vector: f(x) = b
        elif self.kernel == "precomputed":
            np.dot(X[:, self.support_], coef, out=out)
        else:
            n_sv = self.support_vectors_.shape[0]
            step = max(1, (1 << 22) // n_sv)
            for a in range(0, X.shape[0], step):
                b = min(X.shape[0], a + step)
                Kt = self._gram(X[a:b], self.support_vectors_, "test data")
                out[a:b] = Kt @ coef
        out += self.intercept_[0]
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where ``decision_function >= 0``, else ``classes_[0]``.

        A tie ``f(x) = 0`` goes to ``classes_[1]``, as in libsvm (whose
        internal decision value is ``-f``, with a vote for ``classes_[1]``
        unless it is positive).

        ``k >= 3`` classes: libsvm's vote, pair ``(i, j)`` voting for ``i``
        where ``f_p(x) > 0`` and for ``j`` otherwise; the class with most votes,
        a tie going to the lowest index of ``classes_``. With
        ``break_ties=True`` (and ``decision_function_shape="ovr"``) the argmax
        of the ovr decision function instead.

        Raises
        ------
        ValueError
            ``break_ties=True`` with ``decision_function_shape="ovo"`` (as
            scikit-learn), and as :meth:`decision_function`.
        """
        self._check_fitted()
        self._check_multiclass_params()
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        k = self.classes_.shape[0]
        if k > 2:
            from ._ovo import ovr_decision, vote_winner

            dec = self._ovo_decision(self._validate_test_X(X))
            if self.break_ties:  # (decision_function_shape == "ovr")
                return self.classes_[ovr_decision(dec, k).argmax(axis=1)]
            return self.classes_[vote_winner(dec, k)]
        positive = self.decision_function(X) >= 0
        return self.classes_[positive.astype(np.intp)]

    # -- one-vs-one (k >= 3 classes; the machinery is in ktheory.svm._ovo) ---------
    def _fit_ovo(self, X: np.ndarray, classes: np.ndarray, cls: np.ndarray) -> "SVC":
        from ._ovo import fit_ovo

        res = fit_ovo(self, X, cls, classes.shape[0], float(self.C), float(self.tol),
                      _check_max_iter(self.max_iter))
        for name, value in vars(res).items():
            setattr(self, name, value)
        self.classes_ = classes
        self.shape_fit_ = X.shape
        self.n_features_in_ = X.shape[1]
        self.support_vectors_ = np.empty((0, 0)) if self.kernel == "precomputed" else X[self.support_]
        return self

    def _ovo_decision(self, X: np.ndarray) -> np.ndarray:
        """Pairwise decision values ``(n_test, k(k-1)/2)`` of validated test inputs: the
        kernel against all support vectors, in row blocks of about 32 MiB."""
        from ._ovo import ovo_decision

        args = (self.dual_coef_, self.intercept_, self.n_support_)
        if self.dual_coef_.shape[1] == 0:  # no support vector (tol >= 2): f_p(x) = b_p
            return np.repeat(self.intercept_[None, :], X.shape[0], axis=0)
        if self.kernel == "precomputed":
            return ovo_decision(X[:, self.support_], *args)
        n_sv = max(1, self.support_vectors_.shape[0])
        out = np.empty((X.shape[0], self.intercept_.shape[0]))
        step = max(1, (1 << 22) // n_sv)
        for a in range(0, X.shape[0], step):
            b = min(X.shape[0], a + step)
            Kt = self._gram(X[a:b], self.support_vectors_, "test data")
            out[a:b] = ovo_decision(Kt, *args)
        return out

    def score(self, X: Any, y: Any) -> float:
        """Mean accuracy of :meth:`predict` on ``X`` against ``y``.

        Raises
        ------
        ValueError
            If ``y`` is not a 1-D array with one label per row of ``X`` (a
            column vector is accepted), and as :meth:`predict`.
        """
        pred = self.predict(X)
        if y is None:
            raise ValueError("score requires y to be passed, but the target y is None")
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            y_arr = y_arr.ravel()
        if y_arr.shape != pred.shape:
            raise ValueError(f"y has shape {y_arr.shape}, expected {pred.shape} (one label per row of X)")
        return float(np.mean(pred == y_arr))
