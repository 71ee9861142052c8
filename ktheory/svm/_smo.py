"""The readable SMO reference solver, the way libsvm solves the soft-margin dual (solver layer).

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

The estimators (:class:`~ktheory.svm.SVC`, :class:`~ktheory.svm.SVR`, one-vs-one) do not
call :func:`smo_solve` where numba is installed: they run the same iteration compiled,
with kernel rows computed on demand and cached and with libsvm's shrinking
(:mod:`ktheory.svm._fast`), so that memory is ``O(n d)`` plus the cache. :func:`smo_solve`
stays the readable reference the compiled solver is tested against (the same iterates with
shrinking off), and is the estimators' solver where numba is not installed and for small
problems, where compiling would cost more than it saves.

What both solvers share (``TAU``, the result, the stopping measure, the intercept rule)
is in :mod:`ktheory.svm._core`; this module imports nothing from the estimators.

The same iteration solves libsvm's general form ``1/2 a^T Q a + p^T a`` (a linear
term ``p`` instead of ``-e``) and, with ``2n`` labels on an ``n x n`` matrix, the
epsilon-SVR dual, variable ``s`` using row ``s mod n`` (:class:`~ktheory.svm.SVR`,
``smo_solve(..., linear_term=p)``); no ``2n x 2n`` matrix is formed.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.linalg import blas as _blas

from .._validation import check_array, check_positive, symmetrized
from ._core import (
    TAU,
    ConvergenceWarning,
    SMOResult,
    check_max_iter,
    intercept_and_objective,
    not_converged_message,
    rounding_floor,
    shift_weights,
    tiny_scale,
)

__all__ = ["smo_solve", "smo_on_gram"]


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
    max_iter = check_max_iter(max_iter)
    if check_input:
        in_dtype = getattr(K, "dtype", None)
        K = check_array(K, "K")
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"K must be a square (n, n) kernel matrix; got shape {K.shape}")
        K = symmetrized(K, "K", in_dtype)
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
    return smo_on_gram(K, y, C, tol, max_iter, p)


def smo_on_gram(K: np.ndarray, y: np.ndarray, C: float | np.ndarray, eps: float, max_iter: int,
                p: np.ndarray | None = None, *, overwrite_K: bool = False) -> SMOResult:
    """SMO on a validated float64 kernel matrix, held in the shifted form ``H = w - K``;
    ``y`` and ``p`` of length ``n`` or ``2n`` (see :func:`_smo_iterate`). The estimators'
    numpy path calls it with their checked Gram matrix; ``overwrite_K=True`` (a private
    C-contiguous float64 copy) builds ``H`` in its place instead of in a second ``n x n``
    array. ``C``: one bound for every variable, or one per variable (libsvm's weighted
    ``C_i``: ``sample_weight`` and ``class_weight``), of ``y``'s length."""
    scale = tiny_scale(K)
    if scale != 1.0:
        K = np.divide(K, scale, out=K if overwrite_K else None)
        overwrite_K = True
    QD = np.array(np.diagonal(K), dtype=np.float64)
    w, const_diag = shift_weights(QD)
    # H = w - K, not clipped: H also updates the gradient, so it must hold the kernel
    # exactly; the curvatures are clipped where they are used
    H = np.subtract(w, K, out=K if overwrite_K else None, dtype=np.float64)
    return _smo_core(H, y, QD, const_diag, C, eps, max_iter, scale, p=p)


def _smo_core(H: np.ndarray, y: np.ndarray, QD: np.ndarray, const_diag: bool, C: float | np.ndarray,
              eps: float, max_iter: int, scale: float = 1.0,
              p: np.ndarray | None = None) -> SMOResult:
    """SMO on ``H`` built from ``K / scale`` (see :func:`tiny_scale`); the result is
    that of the problem with ``K`` itself. ``y``, ``p``: see :func:`_smo_iterate` (the
    rescaling ``K -> K / s, C -> C s, alpha -> alpha s`` multiplies the objective by
    ``s`` with or without a linear term ``p``, and leaves the gradient unchanged)."""
    if scale == 1.0:
        return _smo_iterate(H, y, QD, const_diag, C, eps, max_iter, p)
    res = _smo_iterate(H, y, QD, const_diag, C * scale, eps, max_iter, p)
    return SMOResult(alpha=res.alpha / scale, intercept=res.intercept, objective=res.objective / scale,
                     n_iter=res.n_iter, gap=res.gap, converged=res.converged)


def _smo_iterate(H: np.ndarray, y: np.ndarray, QD: np.ndarray, const_diag: bool,
                 C: float | np.ndarray, eps: float, max_iter: int,
                 p: np.ndarray | None = None) -> SMOResult:
    """The SMO iteration, on ``1/2 a^T Q a + p^T a`` (``p = -e`` if None), subject to
    ``y^T a = 0`` and ``0 <= a_t <= C_t``: ``C`` one bound for all variables or one per
    variable (libsvm's clipping with ``C_i`` and ``C_j``; equal bounds take exactly the
    steps of a single ``C``).

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
    Cl = C.tolist() if np.ndim(C) else [float(C)] * m     # the bound of each variable
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
    # the rounding level of the gradient (see _core.ROUNDING_FLOOR): a violation below it
    # is noise, and SMO stops there (with a warning) instead of looping
    kmax = float(np.max(np.abs(QD))) if QD.size else 0.0
    pmax = 1.0 if p is None else (float(np.max(np.abs(p))) if m else 0.0)
    a_sum = 0.0
    floor = 0.0
    floor_eps = rounding_floor(1.0, 0.0, 1.0)           # ROUNDING_FLOOR * eps
    while True:
        # --- working-set selection (WSS3) ---------------------------------
        i = int(U.argmax())
        Gmax = float(U[i])
        Gmin = float(L[int(L.argmin())])
        gap = Gmax - Gmin
        if gap < eps:
            converged = True
            break
        ka = kmax * a_sum
        if gap < floor_eps * (ka if ka > pmax else pmax):
            floor = rounding_floor(kmax, pmax, a_sum)
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
        Ci = Cl[i]
        Cj = Cl[j]
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
            if diff > Ci - Cj:
                if ai > Ci:
                    ai = Ci
                    aj = Ci - diff
            elif aj > Cj:
                aj = Cj
                ai = Cj + diff
        else:
            delta = (Gi - Gj) / quad
            s = ai + aj
            ai -= delta
            aj += delta
            if s > Ci:
                if ai > Ci:
                    ai = Ci
                    aj = s - Ci
            elif aj < 0:
                aj = 0.0
                ai = s
            if s > Cj:
                if aj > Cj:
                    aj = Cj
                    ai = s - Cj
            elif ai < 0:
                ai = 0.0
                aj = s
        al[i] = ai
        al[j] = aj
        a_sum += (ai - ai_old) + (aj - aj_old)

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
            s_new = 2 if at >= Cl[t] else (0 if at <= 0.0 else 1)
            if s_new != st[t]:
                st[t] = s_new
                u = float(U[t])
                zt = u if u != -inf else float(L[t])
                in_up = s_new != 2 if yl[t] > 0 else s_new != 0
                in_low = s_new != 0 if yl[t] > 0 else s_new != 2
                U[t] = zt if in_up else -inf
                L[t] = zt if in_low else inf

    if not converged:
        warnings.warn(not_converged_message(n_iter, gap, eps, floor), ConvergenceWarning,
                      stacklevel=3)

    alpha = np.array(al)
    v = np.where(np.isfinite(U), U, L) - E * (np.tile(w, 2) if tiled else w)
    b, objective = intercept_and_objective(alpha, v, pos, C, p)
    return SMOResult(alpha=alpha, intercept=b, objective=objective, n_iter=n_iter,
                     gap=float(gap), converged=converged)
