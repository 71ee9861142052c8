"""The central support vector machine (CSVM, Chapter 11).

The CSVM replaces the SVM's boundary margin by the *central separation margin*,
the summed distance of the two class centres from the hyperplane. With
``l_i = 1/n_+`` for the positive class and ``1/n_-`` for the negative class and
``m = x_+ - x_-`` the difference of the class centres (in feature space), the soft
primal is ::

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
    s.t.            sum_i l_i y_i <w, phi(x_i)> = <w, m> = 1,
                    y_i (<w, phi(x_i)> + b) >= epsilon - xi_i,   xi_i >= 0,

(``C = inf``: the hard primal, no slack). Its Lagrangian dual has box-constrained
multipliers ``alpha`` and a *free* multiplier ``beta`` of the equality constraint::

    max_{alpha, beta}  epsilon sum_i alpha_i + beta
                       - 1/2 || sum_i (alpha_i + beta l_i) y_i phi(x_i) ||^2
    s.t.               sum_i y_i alpha_i = 0,  0 <= alpha_i <= C,  beta in R.

Because ``beta`` enters unconstrained and quadratically it is eliminated in closed
form, ``beta(alpha) = (1 - v' alpha) / s`` with ``g_i = <phi(x_i), m>``,
``v_i = y_i g_i`` and ``s = ||m||^2``; what remains is an ordinary SVM dual on the
kernel projected orthogonally to ``m``, ``K~ = K - g g' / s``, with the
per-sample linear term ``p_i = epsilon - y_i g_i / s``. :class:`CentralSVC` solves
it by SMO with second-order working-set selection :cite:p:`fan2005working`, with
active-set ("face") steps on the free multipliers where SMO stalls, then recovers
``beta``, ``w`` and the bias from the KKT conditions, and returns only with a
certificate: the duality gap relative to the primal objective at most ``tol`` (or, where
that is finer than float64 can resolve, at most the rounding level of the gap's own
evaluation); otherwise it says what it reached in a
:class:`ktheory.svm.ConvergenceWarning`. The dual is solved on ``K / kappa`` with
``C kappa``, ``kappa = max_i K(x_i, x_i)``: the same minimiser (``w`` scaled by
``sqrt(kappa)``, ``b`` and the slacks unchanged), so that ``X -> s X`` with ``C -> C / s^2``
(linear kernel) is the same computation and no product of kernel values overflows. Where
``C kappa`` is so large that the rounding level itself exceeds a relative gap of
``1e-3``, the fit still returns, with a ConvergenceWarning that says how weak its
certificate is (``gap_bound_``).

Two paths compute it. The numpy path forms ``K~`` and signs it, ``Qt = (y y') * K~``, and
its SMO reads one row per step. The compiled path (a finite ``C`` and ``solver="compiled"``,
or ``"auto"`` from ``COMPILED_MIN_SAMPLES`` samples, with numba) holds ``K`` alone: the
compiled solver of :mod:`ktheory.svm` forms the rows of ``K - h h'`` (``h = g / sqrt(s)``)
as it reads them, the rounds after it compute what they need from ``K`` and ``h``, and the
Gram matrix of a linear, polynomial or RBF kernel is computed by the compiled kernel code
(each value once, exactly symmetric), except where its values are not finite or, for the
RBF kernel, the data lie far from their mean against the kernel's width (then, and for the
Laplacian kernel, :mod:`ktheory.kernels` computes it). That makes it one ``n x n`` array
instead of two and saves the passes that form and sign the second, about half of the fit's
time at 2000 samples.

Averaging the margin constraints of each class gives ``<w, x_+> + b >= epsilon`` and
``-(<w, x_-> + b) >= epsilon``, whose sum is ``<w, m> = 1 >= 2 epsilon``: the hard margin
is feasible only for ``epsilon <= 1/2``, for every data set, and only for
``epsilon <= 0`` when the classes are not strictly separable. ``epsilon`` is measured in
units of the centre separation along ``w`` and is therefore scale-free; the default
``epsilon="auto"`` is half of that bound, ``1/4`` (for ``C=inf``, half of the largest
feasible ``epsilon``, which the hard margin computes anyway).

The seed's "shortcut" ``w = (1 - lam) w_SVM + lam (x_+ - x_-)`` is *not* the CSVM
optimum in general; it is available, clearly named, as :func:`shortcut_weights`.

:class:`CentralSVC` is a scikit-learn classifier (``KTheoryClassifierMixin``, ``validate_data``,
``check_is_fitted``); its kernel set-up is shared with :class:`ktheory.ridge.KernelRidge`
(:mod:`ktheory._kernel_setup`). The module stays one file because it holds one problem,
the CSVM dual: its solver (SMO with its active-set polish), its feasibility LP and the
estimator use the same reduced dual and are read together in Chapter 11.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import linprog
from sklearn.utils.validation import column_or_1d

from ._base import KTheoryClassifierMixin, KTheoryEstimator, atomic_fit
from ._kernel_setup import (
    check_gamma,
    check_kernel_params,
    kernel_block,
    owned,
    real_matrix,
    resolve_gamma,
)
from ._validation import (
    ComplexDataError,
    check_gram_input_size,
    check_positive,
    class_labels,
    fit_data,
    predict_data,
    symmetrized,
    symmetry_rtol,
)
from .kernels import reference_point
from .svm import ConvergenceWarning
from .svm import compiled_solver, face_steps

__all__ = ["CentralSVC", "max_feasible_epsilon", "shortcut_weights"]

KERNEL_NAMES = ("linear", "poly", "rbf", "laplacian")
#: Largest training set :class:`CentralSVC` accepts (the dense n x n matrices it keeps).
MAX_SAMPLES = 20_000

#: The peak memory of a fit, in float64 ``n x n`` arrays, that ``gram_limit_mb`` is checked
#: against: the numpy path's (the Gram matrix and the signed projected matrix: 2.7 measured
#: with tracemalloc at n = 1500), with room to spare; the compiled path holds the Gram
#: matrix and the solver's row cache (at most ``_COMPILED_CACHE_MB``).
PEAK_GRAMS = 4
_TAU = 1e-12  # curvature floor of the two-variable subproblem (as libsvm)
_EPS = float(np.finfo(np.float64).eps)
#: The KKT violation is not asked below ``_FLOOR * eps`` times the largest term summed into
#: the gradient (``max(max|p|, max|Q~| * sum(alpha))``): below that it is rounding.
_FLOOR = 64.0
#: Largest free set on which a face (active-set) step is taken where SMO stalls.
_FACE_MAX = 1500
#: Rounds of "tighten the KKT violation and resume" before the solver gives up certifying.
_MAX_ROUNDS = 8
#: ``solver="auto"`` takes the compiled solver of :mod:`ktheory.svm` where numba is
#: installed and the training set has at least this many samples: from there the numpy
#: SMO costs a tenth of a second and more (O(n) per step, O(n) steps and more), about
#: ten times the compiled steps, while a first compiled fit in a process first loads numba
#: and its cached code (about 0.4 s). Smaller sets, the book's examples among them, never
#: load numba; the choice depends on the problem alone, so a fit stays reproducible.
COMPILED_MIN_SAMPLES = 1000
#: MiB of rows the compiled solver caches (rows of ``K - h h'``, formed from the Gram
#: matrix it reads anyway): a bounded addition to the Gram matrix.
_COMPILED_CACHE_MB = 32.0
#: The margin ``epsilon="auto"`` asks for with a finite ``C``: half of 1/2, the upper bound
#: of the largest feasible margin ``epsilon_max`` for every data set (attained whenever the
#: Gram matrix is nonsingular, e.g. for the RBF kernel on distinct samples).
AUTO_EPSILON = 0.25


# --------------------------------------------------------------------------- input helpers
def _signs(codes: np.ndarray) -> np.ndarray:
    """``+1`` for the class ``classes_[1]`` (code 1), ``-1`` for ``classes_[0]``."""
    return np.where(codes == 1, 1.0, -1.0)


def _function_labels(y: Any, n: int, *, caller: str, samples: str) -> np.ndarray:
    """Binary labels given to a function (not an estimator) as ``s`` in {-1, +1}.

    scikit-learn's ``column_or_1d`` (a column is ravelled with its ``DataConversionWarning``)
    and :func:`ktheory._validation.class_labels` (classification targets, two classes);
    ``samples`` names the array whose rows the labels belong to.
    """
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"y must be a 1-D array of class labels, got {y!r}")
    try:
        ya = column_or_1d(y, warn=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be a 1-D array of class labels: {exc}") from None
    if ya.dtype.kind == "c" or (ya.dtype == object and any(isinstance(v, complex) for v in ya)):
        raise ComplexDataError(
            "Complex data not supported: y holds complex numbers; y must hold class labels"
        )
    if ya.shape[0] != n:
        raise ValueError(
            f"{samples} and y must have the same number of samples; got {n} samples in {samples} "
            f"and {ya.shape[0]} in y"
        )
    _, codes = class_labels(ya, estimator=caller, max_classes=2)
    return _signs(codes)


def _check_epsilon(epsilon: Any) -> float | None:
    """The numeric ``epsilon``, or ``None`` for ``"auto"`` (resolved in ``fit``)."""
    if isinstance(epsilon, str):
        if epsilon == "auto":
            return None
        raise ValueError(f"epsilon must be 'auto' or a finite number > 0, got {epsilon!r}")
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(
            f"epsilon must be 'auto' or a real number > 0, got {type(epsilon).__name__} {epsilon!r}"
        )
    e = float(epsilon)
    if not np.isfinite(e) or e <= 0:
        raise ValueError(
            f"epsilon must be a finite number > 0, got {epsilon!r} (epsilon = 0 drops the margin "
            "requirement of the closest samples; see Chapter 11)"
        )
    return e


def _check_C(C: Any) -> float:
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, numbers.Real):
        raise TypeError(
            f"C must be a real number > 0 (or inf for the hard margin), got {type(C).__name__} {C!r}"
        )
    c = float(C)
    if np.isnan(c) or c <= 0:
        raise ValueError(f"C must be > 0 (or inf for the hard margin), got {C!r}")
    return c


def _check_gram(K: np.ndarray, name: str, dtype: Any = None) -> np.ndarray:
    """A symmetric positive semidefinite Gram matrix (a clear ValueError otherwise), symmetrised.

    Symmetry is :func:`ktheory._validation.symmetrized` at the rounding level of ``dtype``
    (the input's floating type; ``None``: float64). Positive semidefinite means a smallest
    eigenvalue ``>= -r * n * max|K_ij|`` with ``r = max(1e-8, symmetry_rtol(dtype))``
    (``1e-8`` for float64, ``1.2e-5`` for float32, whose rounding alone makes a Gram matrix
    indefinite at about ``1e-7`` of its scale).
    """
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {K.shape}")
    scale = float(np.max(np.abs(K))) if K.size else 0.0
    K = symmetrized(K, name, dtype)
    K = (K + K.T) / 2
    if K.shape[0] > 0 and scale > 0:
        lam_min = float(np.linalg.eigvalsh(K)[0])
        rtol = max(1e-8, symmetry_rtol(np.float64 if dtype is None else dtype))
        if lam_min < -rtol * scale * K.shape[0]:
            raise ValueError(
                f"{name} must be positive semidefinite (a kernel matrix); its smallest eigenvalue "
                f"is {lam_min:.3g}"
            )
    return K


def _centre_terms(K: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``l`` (1/n_+ or 1/n_-), ``g_i = <phi(x_i), m>`` and ``s = ||m||^2`` from the Gram matrix."""
    pos = y > 0
    n_pos = int(np.count_nonzero(pos))
    l = np.where(pos, 1.0 / n_pos, 1.0 / (y.shape[0] - n_pos))
    g = K @ (l * y)
    s = float((l * y) @ g)
    scale = float(np.max(np.abs(np.diag(K)))) if K.size else 0.0
    if not s > 1e-12 * max(scale, np.finfo(float).tiny):
        raise ValueError(
            "the two class centres coincide in feature space (||x_+ - x_-||^2 = "
            f"{s:.3g}); the central margin constraint <w, x_+ - x_-> = 1 cannot be met. "
            "Use another kernel or check y"
        )
    return l, g, s


# --------------------------------------------------------------------------- the solver
#: A certificate weaker than this relative duality gap (gap_bound_ raised to float64's
#: rounding level by a huge C times the kernel's scale) draws a ConvergenceWarning.
_WEAK_CERTIFICATE = 1e-3


def _kkt_floor(p_max: float, q_max: float, alpha_sum: float) -> float:
    """The rounding level of the gradient ``G = Qt alpha - p``: ``_FLOOR * eps`` times the
    largest term summed into it, ``max(max|p|, max|Qt| * sum(alpha))`` (``alpha >= 0``)."""
    return _FLOOR * _EPS * max(p_max, q_max * alpha_sum)


class _DenseQ:
    """The reduced dual's matrix ``Qt = (y y') * (K - h h')``, held as an ``n x n`` array
    (the numpy SMO's: one row read per step)."""

    def __init__(self, Qt: np.ndarray) -> None:
        self.Qt = Qt
        self.diag = np.diag(Qt).copy()
        # max|Qt| without an n x n copy: the scale of the terms summed into the gradient
        self.qmax = float(max(Qt.max(), -Qt.min())) if Qt.size else 0.0

    def row(self, i: int) -> np.ndarray:
        return self.Qt[i]

    def cols(self, F: np.ndarray) -> np.ndarray:
        return self.Qt[:, F]

    def matvec(self, a: np.ndarray) -> np.ndarray:
        return self.Qt @ a


class _LowRankQ:
    """The same matrix, ``Qt = (y y') * (K - h h')``, never formed: its rows, columns and
    products are computed from ``K`` and ``h`` when asked for (the compiled path's, whose
    solver forms its rows as it reads them; one ``n x n`` array instead of two, and no pass
    to form and sign the second). ``qmax``, the scale of the terms summed into a gradient
    computed this way, is ``max |K_ij| + max h_i^2``, with ``max |K_ij| = max K_ii`` where
    ``K`` is known to be positive semidefinite (``psd``: every kernel but a polynomial one
    with ``coef0 < 0``; a precomputed or callable one has been checked), else read from
    ``K``. Its rows, columns and diagonal are those of the formed matrix, bit for bit (the
    signs are exact); its products differ by rounding."""

    def __init__(self, K: np.ndarray, h: np.ndarray, y: np.ndarray, psd: bool = True) -> None:
        self.K, self.h, self.y = K, h, y
        dK = np.diagonal(K)
        self.diag = dK - h * h
        if not h.size:
            self.qmax = 0.0
            return
        kmax = float(np.max(np.abs(dK))) if psd else float(max(K.max(), -K.min()))
        self.qmax = kmax + float(np.max(h * h))

    def row(self, i: int) -> np.ndarray:
        out = self.K[i] - self.h[i] * self.h
        out *= self.y
        out *= self.y[i]
        return out

    def cols(self, F: np.ndarray) -> np.ndarray:
        out = self.K[:, F]                  # a copy: the rank-one term and the signs in place
        for j in range(0, F.shape[0], 64):  # (no second n x |F| array for the rank-one term)
            out[:, j:j + 64] -= np.outer(self.h, self.h[F[j:j + 64]])
        out *= self.y[:, None]
        out *= self.y[F]
        return out

    def matvec(self, a: np.ndarray) -> np.ndarray:
        u = self.y * a
        out = self.K @ u
        out -= self.h * float(self.h @ u)
        out *= self.y
        return out


def _extremes(alpha: np.ndarray, G: np.ndarray, y: np.ndarray, pos: np.ndarray,
              C: float) -> tuple[int, float, float, np.ndarray, np.ndarray]:
    """The maximal KKT violation's two ends: ``m_up = max_{I_up} -y G`` (at ``i``, the lowest
    such index) and ``M_low = min_{I_low} -y G``, with ``-y G`` and the mask of ``I_low``
    (``pos = y > 0``). The violation is ``m_up - M_low``."""
    at_upper = alpha >= C
    at_lower = alpha <= 0
    up = np.where(pos, ~at_upper, ~at_lower)
    low = np.where(pos, ~at_lower, ~at_upper)
    myG = -y * G
    gu = np.where(up, myG, -np.inf)
    i = int(np.argmax(gu))
    M_low = float(np.min(np.where(low, myG, np.inf)))
    return i, gu[i], M_low, myG, low


def _smo(Q: Any, p: np.ndarray, y: np.ndarray, C: float, target: float, max_iter: int,
         alpha: np.ndarray | None = None,
         G: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int, float, float]:
    """Minimise 1/2 a'Qt a - p'a s.t. y'a = 0, 0 <= a <= C by SMO (second-order selection).

    ``Q`` holds ``Qt`` (:class:`_DenseQ` or :class:`_LowRankQ`).

    It stops when the maximal KKT violation ``max_{I_up} -y G - min_{I_low} -y G`` (in units
    of the functional margin) is at most ``max(target, floor)``, ``floor`` the rounding
    level of the gradient (:func:`_kkt_floor`), checked once more on the gradient
    recomputed from ``alpha`` after the free multipliers have been moved to the minimiser
    of their face (:func:`_face_phase`, where the free set is small enough for it to be
    cheap). Where SMO stalls (the violation did not halve within a window of steps) it
    takes face steps too: on a face with zero-curvature directions (the projected kernel
    is singular, of rank ``d - 1`` for the linear kernel) SMO's pairwise steps are tiny
    when ``C`` is large, and a face step goes to the first bound at once.

    ``alpha`` (feasible) warm-starts the iteration, with its gradient ``G`` where the caller
    has computed it. Returns ``(alpha, G, n_steps,
    violation, floor)`` with ``G = Qt alpha - p``.
    """
    n = y.shape[0]
    if alpha is None:
        alpha = np.zeros(n)
        G = -p.copy()
    else:
        alpha = alpha.copy()
        G = Q.matvec(alpha) - p if G is None else G.copy()
    QD = Q.diag
    pos = y > 0
    q_max = Q.qmax
    p_max = float(np.max(np.abs(p))) if n else 0.0
    a_sum = float(alpha.sum())
    # a face step at the end costs O(k^3) for k free multipliers: only where that is
    # small against a window of SMO steps (O(n) each)
    end_face = max(50, int(round((1000.0 * n) ** (1.0 / 3.0))))
    viol = np.inf
    it = 0
    window = max(50, min(n, 500))
    window_start = np.inf
    since_refresh = 1
    while it < max_iter:
        if it and since_refresh and it % window == 0:
            if viol > 0.5 * window_start:
                G = _face_phase(Q, y, C, alpha, G, _FACE_MAX)
                a_sum = float(alpha.sum())
            window_start = viol
        i, m_up, M_low, myG, low = _extremes(alpha, G, y, pos, C)
        viol = float(m_up - M_low)
        floor = _kkt_floor(p_max, q_max, a_sum)
        if viol <= max(target, floor):
            if since_refresh == 0:
                break
            # the free multipliers to their face's minimiser, then G recomputed from alpha
            # (no drift of the O(n) updates): stop only if the violation holds there too
            G = _face_phase(Q, y, C, alpha, G, end_face)
            G = Q.matvec(alpha) - p
            a_sum = float(alpha.sum())
            since_refresh = 0
            continue
        Qi = Q.row(i)
        a = QD[i] + QD - 2.0 * y[i] * y * Qi
        a = np.maximum(a, _TAU)
        bb = m_up - myG
        cand = low & (bb > 0)
        j = int(np.argmin(np.where(cand, -(bb * bb) / a, np.inf)))
        t = bb[j] / a[j]
        # feasible step along d_i = y_i, d_j = -y_j
        lim_i = (C - alpha[i]) if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else (C - alpha[j])
        t = min(t, lim_i, lim_j)
        if not np.isfinite(t):
            raise ValueError(
                "the CSVM solver met a non-finite step (the kernel values overflow in its "
                "gradient); rescale X or the kernel"
            )
        if np.isinf(C) and t > 1e15:
            raise ValueError(
                "the CSVM dual is unbounded: the hard-margin problem (C=inf) is infeasible for this epsilon; "
                "use a finite C or a smaller epsilon"
            )
        ai = alpha[i] + y[i] * t
        aj = alpha[j] - y[j] * t
        # snap to the bounds that limited the step (no drift from rounding)
        if t == lim_i:
            ai = C if y[i] > 0 else 0.0
        if t == lim_j:
            aj = 0.0 if y[j] > 0 else C
        di, dj = ai - alpha[i], aj - alpha[j]
        alpha[i], alpha[j] = ai, aj
        a_sum += di + dj
        G += Qi * di + Q.row(j) * dj
        it += 1
        since_refresh += 1
    return alpha, G, it, viol, _kkt_floor(p_max, q_max, a_sum)


def _compiled_smo(Q: _LowRankQ, y: np.ndarray, C: float, p: np.ndarray, target: float,
                  max_iter: int, fast: Any) -> tuple[np.ndarray | None, int]:
    """The first round of :func:`_smo` by the compiled solver of :mod:`ktheory.svm`
    (``fast``, its ``_fast`` module): the same problem ``1/2 a'Qt a - p'a``, ``Qt = y y'
    (K - h h')`` (``Q``; the solver forms the rows of ``K - h h'`` as it reads them), from
    ``alpha = 0`` to a maximal KKT violation ``target``, with libsvm's working-set
    selection, row cache and shrinking, in compiled code. Returns ``(alpha, steps)``, with
    ``alpha`` None where its gradient is not finite (the numpy SMO then solves from 0, and
    reports it); ``steps`` counts against the fit's ``max_iter`` either way.

    Where the pairwise steps crawl (the violation does not halve within ``10 n`` steps, at
    least 10 000: a degenerate face, as of a linear kernel, whose projected Gram matrix has
    rank ``d - 1``) the free multipliers take face steps once
    (:func:`ktheory.svm.face_steps`, on ``Qt``'s columns) and the compiled SMO resumes from
    there, warm, as :class:`~ktheory.svm.SVC` does. Where it stalls again its point is
    returned: the numpy SMO, which takes face steps every few hundred steps, goes on from
    it (at a large ``C`` each compiled round would spend two windows of steps before its
    face steps, and fifty of them the whole ``max_iter``). The check of the violation on a
    recomputed gradient and the certificate are the numpy path's."""
    window = max(10 * y.shape[0], 10_000)   # no halving of the violation in this many

    def solve(warm: Any, iters: int) -> Any:
        return fast.fast_smo(4, None, y, C, target, iters, Kpre=Q.K, rank_one=Q.h, p=-p,
                             cache_size=_COMPILED_CACHE_MB,   # K is in units of max K_ii,
                             stall_window=window, warm=warm)  # as the numpy SMO reads it

    def finite(r: Any) -> bool:
        return not r.nonfinite and bool(np.all(np.isfinite(r.alpha)))

    res = solve(None, max_iter)
    done = int(res.n_iter)
    if res.stats.get("stalled") and finite(res) and done < max_iter:
        alpha = _snap_to_bounds(np.clip(res.alpha, 0.0, C), C)
        before = alpha.copy()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            face_steps(Q.cols, y, C, alpha, Q.matvec(alpha) - p, _FACE_MAX)
        alpha = _snap_to_bounds(alpha, C)
        if not np.array_equal(alpha, before):
            G = Q.matvec(alpha) - p
            gbar = Q.matvec(np.where(alpha >= C, C, 0.0))  # sum over j at C of C Qt_tj
            res = solve((alpha, G, gbar), max_iter - done)
            done += int(res.n_iter)
    if not finite(res):
        return None, done
    return np.clip(res.alpha, 0.0, C), done


def _signed_in_place(M: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``M <- (y y') * M`` in place (``y`` of ``+-1``: exact, and its own inverse)."""
    M *= y[:, None]
    M *= y[None, :]
    return M


def _symmetrise(K: np.ndarray, block: int = 128) -> np.ndarray:
    """``K <- (K + K') / 2`` in place, block by block (the same values, no second array)."""
    n = K.shape[0]
    for i in range(0, n, block):
        for j in range(i, n, block):
            a = K[i:i + block, j:j + block]
            b = K[j:j + block, i:i + block]
            m = a + b.T
            m *= 0.5
            a[...] = m
            b[...] = m.T
    return K


def _face_phase(Q: Any, y: np.ndarray, C: float, alpha: np.ndarray, G: np.ndarray,
                k_max: int) -> np.ndarray:
    """:func:`ktheory.svm.face_steps` with floating-point overflow silenced: for a huge ``C kappa``
    (the weakly certified regime) its steps and their products can overflow, and every
    non-finite quantity already ends the phase (the gradient is returned unchanged)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return face_steps(Q.cols, y, C, alpha, G, k_max)


def _snap_to_bounds(alpha: np.ndarray, C: float) -> np.ndarray:
    """``alpha`` with every multiplier within ``1000 eps`` (relative: to ``max alpha`` for
    the bound 0, to ``C`` for the bound ``C``) of a bound set to that bound.

    Such an ``alpha_i`` (``1e-16``, say) is the rounding of the final linear solve, left
    there on one machine and exactly at the bound on another (as the BLAS rounds). Counted
    as free it would make the bias its own ``-y_i G_i``, one end of the interval of optimal
    biases, where another machine takes the midpoint of that interval.
    """
    rel = 1e3 * np.finfo(np.float64).eps
    out = alpha.copy()
    out[out <= rel * (float(alpha.max()) if alpha.size else 0.0)] = 0.0
    if np.isfinite(C):
        out[out >= C - rel * C] = C
    return out


def _bias(alpha: np.ndarray, G: np.ndarray, y: np.ndarray, C: float) -> float:
    """The bias from the KKT conditions ``G_i + y_i b`` (=0 free, >=0 at 0, <=0 at C),
    for ``alpha`` snapped by :func:`_snap_to_bounds` (free means strictly inside)."""
    myG = -y * G
    above = alpha > 0.0                     # not at 0
    below = alpha < C                       # not at C (always, for C = inf)
    free = above & below
    if np.any(free):
        return float(np.mean(myG[free]))
    pos = y > 0
    up = np.where(pos, below, above)
    low = np.where(pos, above, below)
    lo = float(np.max(myG[up])) if np.any(up) else -np.inf
    hi = float(np.min(myG[low])) if np.any(low) else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return (lo + hi) / 2
    return lo if np.isfinite(lo) else hi


#: Coefficients beyond this size make :func:`_certificate` work in units of the largest one.
_SIGMA_FROM = 1e100


def _abs_matvec(K: np.ndarray, u: np.ndarray, block: int | None = None) -> np.ndarray:
    """``|K| @ u`` in blocks of rows (no second ``n x n`` array), each block's ``|K|`` small
    enough to stay in the CPU's cache (about 2 MiB: a block of 1024 rows of 2000 columns,
    16 MiB, took four times as long)."""
    if block is None:
        block = max(16, 2**18 // max(1, K.shape[1]))
    out = np.empty(K.shape[0])
    for i in range(0, K.shape[0], block):
        out[i : i + block] = np.abs(K[i : i + block]) @ u
    return out


def _certificate(K: np.ndarray, l: np.ndarray, v: np.ndarray, sq: float, y: np.ndarray, C: float,
                 eps: float, alpha: np.ndarray, G: np.ndarray,
                 nonneg: bool = False) -> dict[str, Any]:
    """The primal point of ``alpha`` and its optimality certificate.

    ``beta = (1 - v'alpha) / s`` (so that ``<w, m> = 1``), ``w`` through the sample
    coefficients ``(alpha_i + beta l_i) y_i``, the bias of :func:`_bias`, the slacks
    ``xi_i = max(0, -r_i)`` of the margin residuals ``r_i = y_i f(x_i) - epsilon``, and the
    two objectives. The duality gap is evaluated as the sum of nonnegative terms it equals
    at a dual feasible ``alpha`` (``y'alpha = 0``, ``<w, m> = 1``),
    ``P - D = sum_i alpha_i r_i + C sum_i xi_i = sum_i c_i |r_i|`` with ``c_i = alpha_i``
    where ``r_i >= 0`` and ``C - alpha_i`` where ``r_i < 0`` (for ``C = inf``: ``alpha_i``),
    free of the cancellation of two large objectives; ``floor`` is its rounding level,
    ``sum_i c_i rho_i`` with ``rho_i = 4 eps (sum_j |K_ij coef_j| + |b| + epsilon)`` (the
    rounding of ``r_i``, which no solver can push the residuals below), plus that of ``P``
    itself. Both are returned relative to ``P > 0`` (``P >= 1 / (2 s)``).

    Where the coefficients are huge (``C kappa`` beyond about ``1e100``, so that
    ``||w||^2 ~ coef' K coef`` would overflow), every term is computed divided by
    ``sigma = max_i |coef_i|`` (the gap and its floor are ratios, unchanged); ``primal`` and
    ``dual`` are returned as ``primal_s * sigma`` and ``dual_s * sigma`` with ``sigma``, so
    that a caller can rescale them before multiplying (``inf`` only if the objective itself
    is beyond float64). Below that ``sigma = 1``: the same operations as without it.
    ``nonneg``: every ``K_ij >= 0`` (the RBF and Laplacian kernels), so that ``|K| = K``.
    """
    beta = (1.0 - float(v @ alpha)) / sq
    coef = (alpha + beta * l) * y
    b = _bias(alpha, G, y, C)
    big = float(np.max(np.abs(coef))) if coef.size else 0.0
    sigma = big if (np.isfinite(big) and big > _SIGMA_FROM) else 1.0
    cs = coef / sigma if sigma != 1.0 else coef
    Kc = K @ cs                                   # K coef / sigma
    f = sigma * Kc + b if sigma != 1.0 else Kc + b
    r = y * f - eps
    w2 = float(cs @ Kc)                           # ||w||^2 / sigma^2
    slack = np.maximum(0.0, -r)
    finite = bool(np.isfinite(C))
    slack_term = C / sigma * float(slack.sum()) if finite else 0.0  # C sum(xi) / sigma
    half_w2 = 0.5 * sigma * w2 if sigma != 1.0 else 0.5 * w2        # ||w||^2 / (2 sigma)
    primal = half_w2 + slack_term
    dual = (eps * float(alpha.sum()) + beta) / sigma - half_w2 if sigma != 1.0 else (
        eps * float(alpha.sum()) + beta - half_w2)
    c = np.where(r >= 0, alpha, C - alpha) if finite else alpha
    absmv = (lambda u: K @ u) if nonneg else (lambda u: _abs_matvec(K, u))
    if sigma != 1.0:
        c = c / sigma
        rho = 4.0 * _EPS * (sigma * absmv(np.abs(cs)) + abs(b) + eps)
    else:
        rho = 4.0 * _EPS * (absmv(np.abs(coef)) + abs(b) + eps)
    floor = float(c @ rho) + 4.0 * _EPS * (abs(half_w2) + slack_term)
    max_slack = float(slack.max()) if slack.size else 0.0
    if primal > 0:
        gap, floor = float(c @ np.abs(r)) / primal, floor / primal
    else:  # pragma: no cover - P >= 1 / (2 s) > 0 unless the rounding is total
        gap, floor = float("inf"), 0.0
    return {"beta": beta, "coef": coef, "b": b, "primal_s": primal, "dual_s": dual,
            "sigma": sigma, "gap": gap, "floor": floor, "max_slack": max_slack,
            "rho_max": float(rho.max()) if rho.size else 0.0}


def max_feasible_epsilon(K: Any, y: Any) -> float:
    """The largest ``epsilon`` for which the hard-margin CSVM is feasible.

    It is the optimum of the linear program ::

        max_{c, b, t}  t   s.t.  y_i ((K c)_i + b) >= t,   g' c = 1,

    with ``w = sum_j c_j phi(x_j)`` and ``g_i = <phi(x_i), x_+ - x_->`` (so that
    ``g' c = <w, x_+ - x_->``), solved by scipy's HiGHS. It is finite whenever the
    class centres differ, and positive exactly when the classes are strictly
    separable in feature space.

    Parameters
    ----------
    K : array_like of shape (n_samples, n_samples)
        Symmetric positive semidefinite Gram matrix of the training samples.
    y : array_like of shape (n_samples,)
        Binary class labels (two distinct values).

    Returns
    -------
    float
        ``epsilon_max``; the hard-margin CSVM is feasible iff ``0 < epsilon <= epsilon_max``.

    Raises
    ------
    ValueError
        For a Gram matrix that is not square, symmetric, finite and PSD, labels of the
        wrong length or with one class only, or class centres that coincide.
    TypeError
        For complex, string or sparse input.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1, -1, 1, 1])
    >>> round(max_feasible_epsilon(X @ X.T, y), 6)   # w = 1/3: margins (3 - 1)/2 * 1/3
    0.333333
    """
    shape = np.shape(K) if not isinstance(K, (str, bytes)) and hasattr(K, "shape") else None
    if shape is not None and len(shape) >= 1 and shape[0] > MAX_SAMPLES:
        raise ValueError(
            f"K has {shape[0]} samples; at most {MAX_SAMPLES} are supported (a dense LP of that size)"
        )
    Ka = real_matrix(K, "K")
    if Ka.shape[0] > MAX_SAMPLES:
        raise ValueError(f"K has {Ka.shape[0]} samples; at most {MAX_SAMPLES} are supported")
    Ka = _check_gram(Ka, "K")
    s = _function_labels(y, Ka.shape[0], caller="max_feasible_epsilon", samples="K")
    l, g, _ = _centre_terms(Ka, s)
    return _lp_epsilon(Ka, s, g)


def _lp_epsilon(K: np.ndarray, y: np.ndarray, g: np.ndarray) -> float:
    n = y.shape[0]
    # epsilon_max is invariant under K -> c K (w scales by 1/sqrt(c), the margins do not):
    # normalise, so that HiGHS never sees coefficients it would drop as zero
    scale = float(np.max(np.abs(K)))
    K, g = K / scale, g / scale
    # variables z = (c_1..c_n, b, t); minimise -t
    cost = np.zeros(n + 2)
    cost[-1] = -1.0
    A_ub = np.hstack([-(y[:, None] * K), -y[:, None], np.ones((n, 1))])
    b_ub = np.zeros(n)
    A_eq = np.concatenate([g, [0.0, 0.0]])[None, :]
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(None, None)] * (n + 2),
                  method="highs")
    if res.status != 0:  # pragma: no cover - bounded and feasible when s > 0
        raise ValueError(f"the feasibility linear program failed: {res.message}")
    return float(-res.fun)


# --------------------------------------------------------------------------- the estimator
class CentralSVC(KTheoryClassifierMixin, KTheoryEstimator):
    """The central support vector machine, solved exactly in its dual.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the slacks, ``> 0``; ``float("inf")`` gives the hard-margin CSVM
        (a ``ValueError`` suggesting a finite ``C`` when it is infeasible).
    epsilon : "auto" or float, default="auto"
        The required functional margin ``y_i (w . x_i + b) >= epsilon`` of every
        sample, relative to the centre normalisation ``w . (x_+ - x_-) = 1``;
        ``> 0``. Small ``epsilon``: the class-mean direction; larger: the SVM
        direction and beyond (Chapter 11). It is measured in units of the centre
        separation along ``w``, so it does not change when ``X`` is rescaled. Averaging
        the constraints of each class gives ``1 = w . (x_+ - x_-) >= 2 epsilon``: all of
        them can hold only for ``epsilon <= epsilon_max <= 1/2`` (``epsilon_max <= 0``
        when the classes are not strictly separable; :func:`max_feasible_epsilon`), and
        a larger ``epsilon`` makes every fit pay slack (with unbalanced classes, in favour
        of the larger class). ``"auto"``: ``1/4``, half of the bound ``1/2`` (which
        ``epsilon_max`` attains whenever the Gram matrix is nonsingular, e.g. for the
        RBF kernel on distinct samples; ``epsilon_max`` itself is a linear program over a
        dense ``n x n`` matrix, dozens of times the cost of the fit); for ``C=inf``,
        ``epsilon_max / 2``, which the hard margin computes anyway. The value used is
        ``epsilon_``.
    kernel : {"linear", "poly", "rbf", "laplacian", "precomputed"} or callable, default="linear"
        As scikit-learn: ``poly`` is ``(gamma x.z + coef0)^degree``, ``rbf``
        ``exp(-gamma ||x - z||^2)``, ``laplacian`` ``exp(-gamma ||x - z||_1)``;
        a callable ``k(X, Y)`` returns the ``(n, m)`` Gram block.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of ``poly``, ``rbf`` and ``laplacian``, in the vocabulary of
        scikit-learn's ``SVC`` and :class:`ktheory.svm.SVC`: ``"scale"`` is
        ``1 / (n_features * X.var())`` of the training samples (``1`` if ``X.var() == 0``),
        ``"auto"`` is ``1 / n_features``, a number ``> 0`` is used as is. The value used is
        ``gamma_``. With ``"scale"`` the RBF Gram matrix does not change when ``X`` is
        rescaled; the Laplacian's ``||x - z||_1`` scales linearly, so for it ``"scale"`` is
        only scikit-learn's convention.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    tol : float, default=1e-10
        The duality gap relative to the primal objective at which ``fit`` returns:
        ``(P - D) / P <= tol``, or at most the rounding level of the gap's evaluation where
        that is larger (``gap_bound_``; it grows with ``C`` times the kernel's scale, to
        between ``1e-7`` and ``1e-4`` at ``C = 1e8`` for data of unit scale). The SMO
        iterations stop at a maximal KKT violation (in units of the functional margin) of
        ``tol``, or of the rounding level of the gradient where that is larger; while the
        gap exceeds its bound, the free multipliers are moved to the minimiser of their
        face and SMO resumes with a hundred times smaller violation. The relative gap is
        the same for ``(s X, C / s^2)`` as for ``(X, C)``, so ``tol`` means the same at
        every scale of the data. A fit that cannot certify its point issues a
        :class:`ktheory.svm.ConvergenceWarning` saying what it reached.
    max_iter : int, default=1_000_000
        Maximal number of SMO steps, over all rounds (a
        :class:`ktheory.svm.ConvergenceWarning` if they do not suffice).
    gram_limit_mb : float, default 2048
        Refuse (``ValueError``, before any n x n array exists) a fit whose peak memory,
        ``PEAK_GRAMS = 4`` float64 ``n x n`` arrays (the numpy path's Gram matrix and signed
        projected matrix, 2.7 measured, with room to spare; the compiled path holds the
        Gram matrix and a row cache of at most 32 MiB), exceeds this many MiB: 2048 admits
        about 8 000 samples. The package's one memory knob (as :class:`ktheory.svm.SVC`).
    solver : {"auto", "numpy", "compiled"}, default="auto"
        Who takes the SMO steps of the first round (the later rounds and the certificate
        are the same for all): ``"numpy"`` the readable SMO of this module;
        ``"compiled"`` the compiled solver of :class:`ktheory.svm.SVC` (libsvm's
        selection, row cache and shrinking on the projected Gram matrix, whose rows it
        forms from the Gram matrix as it reads them, with face steps where it stalls,
        after which it resumes; the Gram matrix of a linear, polynomial or RBF kernel is
        then computed by its kernel code too; needs numba,
        ``pip install 'ktheory[fast]'``), about ten times faster per step; ``"auto"``
        the compiled solver where numba is installed and ``n_samples >=
        COMPILED_MIN_SAMPLES`` (1000), the numpy SMO otherwise. Both reach the same certified optimum (``duality_gap_ <=
        gap_bound_``), by steps that may differ where the selection ties. ``C=inf`` is
        always solved by the numpy SMO, which detects an unbounded dual.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class (``y = +1``).
    n_features_in_ : int
        Number of columns of the training ``X`` (of training samples, if precomputed).
    X_fit_ : numpy.ndarray of shape (n_samples, n_features) or None
        The training samples (a copy the estimator owns); ``None`` if precomputed.
    epsilon_ : float
        The margin used (``epsilon``, or the value ``"auto"`` stands for).
    gamma_ : float or None
        The kernel coefficient used (``None`` for kernels without one).
    alpha_ : numpy.ndarray of shape (n_samples,)
        The multipliers of the margin constraints, ``0 <= alpha_i <= C``.
    beta_ : float
        The (sign-free) multiplier of the centre constraint ``w . (x_+ - x_-) = 1``.
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the samples with ``alpha_i > 0``.
    dual_coef_ : numpy.ndarray of shape (1, n_SV)
        ``alpha_i y_i`` for the support vectors (the SVM-like part of ``w``).
    sample_coef_ : numpy.ndarray of shape (n_samples,)
        ``(alpha_i + beta l_i) y_i``: ``f(x) = sum_i sample_coef_i k(x_i, x) + b``.
        Every training sample enters through the centre term ``beta (x_+ - x_-)``.
    intercept_ : numpy.ndarray of shape (1,)
        The bias ``b``.
    coef_ : numpy.ndarray of shape (1, n_features)
        ``w`` (linear kernel only).
    dual_objective_, primal_objective_ : float
        The two objective values at the returned point.
    duality_gap_ : float
        ``(P - D) / P``, the duality gap relative to the primal objective ``P`` (which is
        at least ``1 / (2 ||x_+ - x_-||^2) > 0``), evaluated as
        ``sum_i alpha_i max(r_i, 0) + (C - alpha_i) max(-r_i, 0)`` over the margin
        residuals ``r_i = y_i f(x_i) - epsilon``, the nonnegative terms ``P - D`` is made of
        at the dual feasible point (free of the cancellation between two objectives of size
        ``C``). It is invariant under rescaling ``X`` (with ``C`` rescaled to match). With a
        finite ``C`` the primal point is feasible by construction and
        ``duality_gap_ <= gap_bound_`` certifies both objectives to that relative accuracy.
        With ``C=inf`` the primal objective ``||w||^2 / 2`` ignores margin violations: when
        ``max_slack_`` exceeds ``1e-8 * max(1, epsilon)`` the point is not feasible,
        ``duality_gap_`` is ``inf`` and the fit warns.
    gap_bound_ : float
        ``max(tol, rounding level of the gap's evaluation)``: the bound ``duality_gap_`` was
        certified against (a :class:`ktheory.svm.ConvergenceWarning` where it is not met).
    max_slack_ : float
        The largest margin violation ``max_i max(0, epsilon - y_i f(x_i))`` on the training set.
    kkt_violation_ : float
        The final maximal KKT violation of the reduced dual, in units of the functional margin.
    n_iter_ : int
        SMO steps taken (over all rounds).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0],
    ...               [3.0, 3.0], [4.0, 3.0], [3.0, 4.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = CentralSVC(C=10.0, epsilon=0.1).fit(X, y)
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
    [0, 1]
    >>> # the class-mean direction (x_+ - x_-) / ||x_+ - x_-||^2
    >>> np.round(clf.coef_, 6).tolist()
    [[0.166667, 0.166667]]
    >>> bool(clf.duality_gap_ <= clf.gap_bound_ == clf.tol)   # certified to tol = 1e-10
    True
    >>> CentralSVC().fit(X, y).epsilon_    # epsilon="auto": half of the bound 1/2
    0.25
    """

    def __init__(
        self,
        C: float = 1.0,
        *,
        epsilon: float | str = "auto",
        kernel: str | Callable[..., Any] = "linear",
        gamma: float | str = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-10,
        max_iter: int = 1_000_000,
        gram_limit_mb: float = 2048.0,
        solver: str = "auto",
    ) -> None:
        self.gram_limit_mb = gram_limit_mb
        self.solver = solver
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's classifier tags: binary only, and ``pairwise`` for
        ``kernel="precomputed"`` (``X`` is then a kernel matrix)."""
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- helpers --------------------------------------------------------------
    def _check_params(self) -> tuple[float, float | None]:
        C = _check_C(self.C)
        eps = _check_epsilon(self.epsilon)
        check_positive(self.tol, "tol")
        mi = self.max_iter
        if isinstance(mi, (bool, np.bool_)) or not isinstance(mi, numbers.Integral):
            raise TypeError(f"max_iter must be an integer >= 1, got {type(mi).__name__} {mi!r}")
        if mi < 1:
            raise ValueError(f"max_iter must be an integer >= 1, got {mi!r}")
        check_kernel_params(self.kernel, None, self.degree, self.coef0, names=KERNEL_NAMES)
        check_gamma(self.gamma)
        if not isinstance(self.solver, str):
            raise TypeError(f"solver must be 'auto', 'numpy' or 'compiled' (a str), got "
                            f"{type(self.solver).__name__} {self.solver!r}")
        if self.solver not in ("auto", "numpy", "compiled"):
            raise ValueError(f"solver must be 'auto', 'numpy' or 'compiled', got {self.solver!r}")
        return C, eps

    def _compiled(self) -> Any:
        """The compiled solver for ``solver="compiled"`` (an ImportError without numba)."""
        fast = compiled_solver()
        if fast is None:
            raise ImportError(
                "solver='compiled' needs numba, which cannot be imported here; install the "
                "optional extra (pip install 'ktheory[fast]') or use solver='auto' or 'numpy'"
            )
        return fast

    def _compiled_gram(self, fast: Any, Xa: np.ndarray,
                       gamma: float | None) -> tuple[np.ndarray | None, float | None]:
        """``(K / kappa, kappa)`` for a named kernel the compiled solver computes
        (``"linear"``, ``"poly"``, ``"rbf"``), by its own kernel code
        (:func:`ktheory.svm._fast.gram`: the inner products by the BLAS, then each value
        once, exactly symmetric), ``kappa = max_i K_ii``; ``(None, None)``
        where the numpy kernels are to compute it instead: the Laplacian kernel, values
        that are not finite, and the regime where :func:`ktheory.kernels.rbf_kernel`
        recomputes the distances of near pairs from their differences (data far from
        their mean against the kernel's width: ``gamma (2 d + 7) eps max ||x - r||^2 >
        1e-8``), so that the values agree with :mod:`ktheory.kernels` to rounding."""
        kind = fast.KERNEL_CODES.get(self.kernel, 4) if isinstance(self.kernel, str) else 4
        if kind >= 4 or Xa.shape[0] == 0:
            return None, None
        kp = (float(gamma or 0.0), float(self.coef0), float(self.degree))
        rows = Xa
        if self.kernel == "rbf":
            with np.errstate(over="ignore", invalid="ignore"):
                rows = Xa - reference_point(Xa)
                big = float(np.max(np.einsum("ij,ij->i", rows, rows)))
            if not (np.isfinite(big) and kp[0] * (2 * Xa.shape[1] + 7) * _EPS * big <= 1e-8):
                return None, None
        with np.errstate(over="ignore", invalid="ignore"):
            kappa = float(np.max(np.abs(fast.kernel_diag(kind, rows, kp))))
        if not (kappa > 0 and np.isfinite(kappa)):
            return None, None
        K, finite = fast.gram(kind, rows, kp, 1.0 / kappa)
        return (K, kappa) if finite else (None, None)

    def _kernel(self, A: np.ndarray, B: np.ndarray, what: str, gamma: float | None) -> np.ndarray:
        """Gram block ``k(A, B)`` with this estimator's kernel settings and coefficient ``gamma``."""
        return kernel_block(self.kernel, A, B, what, gamma=gamma, degree=self.degree, coef0=self.coef0)

    # -- fit / predict -------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> CentralSVC:
        """Solve the CSVM dual, certify the optimum and recover ``w`` (through ``sample_coef_``),
        ``beta`` and ``b``.

        A fit that raises leaves the estimator as it was (a fitted estimator keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), or (n_samples, n_samples) if precomputed
            Training samples, or their Gram matrix for ``kernel="precomputed"``.
        y : array_like of shape (n_samples,)
            Binary class labels.

        Returns
        -------
        CentralSVC
            ``self``, fitted.

        Raises
        ------
        ValueError
            For NaN/inf, wrong shapes, one class only, a non-symmetric or non-PSD
            precomputed Gram matrix, ``epsilon <= 0``, ``C <= 0``, coinciding class
            centres, or an infeasible hard margin (``C=inf``; the message gives the
            largest feasible epsilon).
        TypeError
            For complex/string/sparse input and parameters of the wrong type.

        Warns
        -----
        ktheory.svm.ConvergenceWarning
            If the returned point is not certified (``duality_gap_ > gap_bound_``:
            ``max_iter`` exhausted, or a violation at the rounding level of the
            gradient that still leaves too large a gap), or, for ``C=inf``, violates
            the hard margin.
        """
        C, eps_param = self._check_params()
        limit = check_positive(self.gram_limit_mb, "gram_limit_mb")
        if self.kernel == "precomputed":  # before validation copies it
            check_gram_input_size(X, limit, copies=PEAK_GRAMS)
        Xa, ya, dtype = fit_data(self, X, y)
        classes, codes = class_labels(ya, estimator="CentralSVC", max_classes=2)
        s = _signs(codes)
        n = Xa.shape[0]
        need_mb = PEAK_GRAMS * 8.0 * n * n / 2**20
        if n > MAX_SAMPLES or need_mb > limit:
            raise ValueError(
                f"X has {n} samples: CentralSVC keeps {PEAK_GRAMS} dense (n, n) float64 matrices, "
                f"{need_mb:.0f} MiB, more than gram_limit_mb={limit:g} (or n above MAX_SAMPLES = "
                f"{MAX_SAMPLES}); use fewer samples or raise gram_limit_mb"
            )
        gamma = None
        fast = None                         # the first round's SMO steps compiled?
        if self.solver == "compiled" and np.isfinite(C):
            fast = self._compiled()
        elif self.solver == "auto" and np.isfinite(C) and n >= COMPILED_MIN_SAMPLES:
            fast = compiled_solver()        # None without numba: the numpy SMO
        K = kappa = None
        if self.kernel == "precomputed":
            if Xa.shape[1] != n:
                raise ValueError(
                    "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                    f"got shape {Xa.shape}"
                )
            K = _check_gram(Xa, "X (precomputed Gram matrix)", dtype)
        else:
            if isinstance(self.kernel, str) and self.kernel != "linear":
                gamma = resolve_gamma(self.gamma, Xa)
            if fast is not None:
                K, kappa = self._compiled_gram(fast, Xa, gamma)
            if K is None:
                K = self._kernel(Xa, Xa, "training data", gamma)
                if callable(self.kernel):
                    K = _check_gram(K, "the Gram matrix returned by the kernel callable")
                else:
                    K = _symmetrise(K)      # the kernel's own array
        # Solved on K / kappa with C kappa, kappa = max diag K: the same minimiser (w' =
        # sqrt(kappa) w, b and the slacks unchanged; alpha, beta, the coefficients and the
        # objectives scale by kappa), so that X -> s X with C -> C / s^2 is the same problem
        # to the bit and no product of kernel values overflows or underflows
        scaled = kappa is not None         # the compiled Gram matrix is K / kappa already
        if not scaled:
            kappa = float(np.max(np.abs(np.diagonal(K)))) if n else 1.0
            if not (kappa > 0 and np.isfinite(kappa)):
                kappa = 1.0
        C_user = C
        C = C * kappa
        if np.isfinite(C_user) and not np.isfinite(C):
            raise ValueError(
                f"C={self.C!r} times the kernel's scale max K(x, x) = {kappa:.3g} overflows; "
                "rescale X (or the kernel) or use a smaller C"
            )
        if scaled:
            pass
        elif K is Xa or callable(self.kernel):
            K = K / kappa               # not the caller's (or the callable's) array
        elif kappa != 1.0:              # (1 for the RBF and Laplacian kernels)
            K /= kappa
        l, g, sq = _centre_terms(K, s)
        if np.isinf(C):
            eps_max = _lp_epsilon(K, s, g)
            eps = eps_max / 2 if eps_param is None else eps_param
            if eps_max <= 0 or eps > eps_max * (1 + 1e-9):
                what = f"epsilon={self.epsilon!r}" if eps_param is not None else "every epsilon > 0"
                raise ValueError(
                    f"the hard-margin CSVM (C=inf) is infeasible for {what}: the largest "
                    f"feasible epsilon for these data is {eps_max:.6g}"
                    + (" (the classes are not separable)" if eps_max <= 0 else "")
                    + "; use a finite C (soft margin) or a smaller epsilon"
                )
        else:
            eps = AUTO_EPSILON if eps_param is None else eps_param
        v = s * g
        h = g / np.sqrt(sq)                 # outer(g, g) itself overflows near |K| ~ 1e154
        p = eps - v / sq
        tol, max_iter = float(self.tol), int(self.max_iter)
        hard_slack = 1e-8 * max(1.0, eps)
        nonneg = self.kernel in ("rbf", "laplacian")   # exp(-...): |K| = K
        target, alpha, n_iter, faced_at_floor = tol, None, 0, False
        if fast is not None:
            # the first round compiled, from alpha = 0: its solver forms the rows of
            # K~ = K - h h' as it reads them, and so do the rounds after it
            psd = not (self.kernel in ("poly", "polynomial") and self.coef0 < 0)
            Q: Any = _LowRankQ(K, h, s, psd)
            alpha, n_iter = _compiled_smo(Q, s, C, p, target, max_iter, fast)
        else:
            Qt = np.outer(h, h)
            np.subtract(K, Qt, out=Qt)      # K~ = K - h h'
            Q = _DenseQ(_signed_in_place(Qt, s))  # Qt = (s s') * K~, in place
        # SMO to a KKT violation `target`, then the certificate; while the gap exceeds its
        # bound, a face step and a hundred times smaller violation (down to its rounding level)
        checked = None
        if alpha is not None:
            # the compiled round's point, checked as it is (its violation on the gradient
            # recomputed from alpha, then the certificate): the numpy SMO only where that
            # fails (its end-of-round face step is for the finer rounds; on a degenerate
            # face it can move a certified point off its violation and cost hundreds of
            # numpy steps to come back)
            G = Q.matvec(alpha) - p
            _, m_up, M_low, _, _ = _extremes(alpha, G, s, s > 0, C)
            viol = float(m_up - M_low)
            floor = _kkt_floor(float(np.max(np.abs(p))), Q.qmax, float(alpha.sum()))
            if viol <= max(target, floor) or n_iter >= max_iter:  # (max_iter spent: as it is)
                checked = (alpha, G, 0, viol, floor)
            else:
                alpha, G, steps, viol, floor = _smo(Q, p, s, C, target, max_iter - n_iter,
                                                    alpha, G)
                checked = (alpha, G, steps, viol, floor)
        for _ in range(_MAX_ROUNDS + 1):
            if checked is None:
                alpha, G, steps, viol, floor = _smo(Q, p, s, C, target, max_iter - n_iter,
                                                    alpha)
            else:
                alpha, G, steps, viol, floor = checked
                checked = None
            n_iter += steps
            alpha = _snap_to_bounds(alpha, C)
            cert = _certificate(K, l, v, sq, s, C, eps, alpha, G, nonneg)
            infeasible = bool(np.isinf(C) and cert["max_slack"] > hard_slack)
            gap = float("inf") if infeasible else cert["gap"]
            bound = max(tol, cert["floor"])
            at_floor = target <= floor
            if gap <= bound or n_iter >= max_iter or (at_floor and faced_at_floor):
                break
            # the free multipliers to their face's minimiser (exact margins on the free set:
            # what a gap of C times their residuals needs when C is large), then SMO on
            G = _face_phase(Q, s, C, alpha, G, _FACE_MAX)
            faced_at_floor = at_floor
            target = max(floor, target * 1e-2)
        if not gap <= bound:
            if infeasible:
                what = (
                    f"the hard-margin (C=inf) solution violates the margin constraints by up to "
                    f"{cert['max_slack']:.3g}: it is not a feasible point, and duality_gap_ is set "
                    "to inf (no optimality certificate)"
                )
            else:
                what = (
                    f"the relative duality gap {gap:.3g} exceeds its bound gap_bound_ = {bound:.3g} "
                    f"(tol={self.tol!r})"
                )
            if n_iter >= max_iter:
                why = f"max_iter={self.max_iter} SMO steps exhausted"
            elif at_floor:
                why = "the KKT violation reached the rounding level of the gradient"
            else:  # pragma: no cover - each round lowers the violation a hundredfold
                why = f"{_MAX_ROUNDS} rounds of a smaller KKT violation did not suffice"
            warnings.warn(
                f"CentralSVC did not certify its solution: {what}; {why} (KKT violation "
                f"{viol:.3g}); raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )
        if gap <= bound and bound > max(_WEAK_CERTIFICATE, tol):  # the floor, not the tol asked
            warnings.warn(
                f"CentralSVC certified its solution only to a relative duality gap of "
                f"{bound:.3g} (gap_bound_, the rounding level of float64 for this problem: C "
                f"times the kernel's scale, {C:.3g}, is too large for a finer certificate); the "
                "decision values may be off by about that much; use a smaller C",
                ConvergenceWarning,
                stacklevel=3,
            )
        coef, b = cert["coef"] / kappa, cert["b"]
        alpha = alpha / kappa
        self.classes_ = classes
        self.X_fit_ = owned(Xa, X) if self.kernel != "precomputed" else None
        self.epsilon_ = float(eps)
        self.gamma_ = gamma
        self.alpha_ = alpha
        self.beta_ = float(cert["beta"]) / kappa
        self.support_ = np.flatnonzero(alpha > 0)
        self.dual_coef_ = (alpha * s)[self.support_].reshape(1, -1)
        self.sample_coef_ = coef
        self.centre_coef_ = l * s
        self.intercept_ = np.array([b])
        if self.kernel == "linear":
            self.coef_ = (coef @ Xa).reshape(1, -1)
        else:
            self.__dict__.pop("coef_", None)  # a refit with another kernel has no w to show
        sig = cert["sigma"]  # objectives in units of sigma (1 unless C kappa is huge)
        self.dual_objective_ = float(cert["dual_s"]) / kappa if sig == 1.0 else float(
            cert["dual_s"]) * (sig / kappa)
        self.primal_objective_ = float(cert["primal_s"]) / kappa if sig == 1.0 else float(
            cert["primal_s"]) * (sig / kappa)
        self.duality_gap_ = float(gap)
        self.gap_bound_ = float(bound)
        self.max_slack_ = float(cert["max_slack"])
        self.kkt_violation_ = float(viol)
        self.n_iter_ = int(n_iter)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = sum_i (alpha_i + beta l_i) y_i k(x_i, x) + b``; positive means ``classes_[1]``.

        The centre term ``beta <x_+ - x_-, phi(x)>`` needs ``x`` against every training
        sample (the class centres live in feature space).

        Parameters
        ----------
        X : array_like of shape (n_test, n_features), or (n_test, n_train) if precomputed
            Test samples, or ``k(test, train)`` for ``kernel="precomputed"``.

        Returns
        -------
        numpy.ndarray of shape (n_test,)
            The decision values.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ValueError
            For NaN/inf, 1-D input or another number of features (of training samples, if
            precomputed) than in :meth:`fit`.
        """
        Xa, _ = predict_data(self, X, fitted="sample_coef_")
        Kt = (Xa if self.kernel == "precomputed"
              else self._kernel(Xa, self.X_fit_, "test data", self.gamma_))
        return Kt @ self.sample_coef_ + self.intercept_[0]

    def predict(self, X: Any) -> np.ndarray:
        """Class labels, ``classes_[1]`` where ``decision_function(X) > 0``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features), or (n_test, n_train) if precomputed
            Test samples.

        Returns
        -------
        numpy.ndarray of shape (n_test,)
            Predicted labels.
        """
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]


def shortcut_weights(
    X: Any, y: Any, lam: float, *, C: float = 1.0, epsilon: float | str = "auto",
    svm_C: float | None = None,
) -> tuple[np.ndarray, float]:
    """The seed's *shortcut* ``w = (1 - lam) w_SVM + lam (x_+ - x_-)`` (linear kernel only).

    This is **not** the CSVM optimum (Chapter 11 measures how far it is). ``w_SVM``
    is the soft-margin SVM of :class:`ktheory.svm.SVC` (linear kernel) with penalty
    ``svm_C``, by default ``C / epsilon``: the SVM to which the CSVM with ``(C, epsilon)``
    reduces, up to the factor ``epsilon``, when its multiplier ``beta`` is 0. The
    mixture is rescaled to meet the centre constraint
    ``w . (x_+ - x_-) = 1``, and ``b`` minimises the CSVM slack
    ``sum_i max(0, epsilon - y_i (w . x_i + b))`` over the breakpoints
    (the midpoint of the best interval).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Training samples.
    y : array_like of shape (n_samples,)
        Binary labels; ``max(y)`` is the positive class.
    lam : float
        The mixing weight; the seed's trade-off is ``0 <= lam <= 1``, but any real
        ``lam`` is accepted (``lam < 0`` moves *away* from the class-mean direction).
    C : float, default=1.0
        The CSVM penalty of the slacks (finite), used to choose ``b``.
    epsilon : "auto" or float, default="auto"
        The CSVM margin, used to choose ``b``; ``"auto"`` is ``1/4``, as for
        :class:`CentralSVC` with a finite ``C``.
    svm_C : float or None, default=None
        Penalty of the SVM part; ``None`` means ``C / epsilon``.

    Returns
    -------
    w : numpy.ndarray of shape (n_features,)
        The rescaled mixture, ``w . (x_+ - x_-) = 1``.
    b : float
        The bias.

    Raises
    ------
    ValueError
        For bad ``X``/``y``, a non-finite ``lam``, or a mixture with
        ``w . (x_+ - x_-) <= 0`` (it cannot be rescaled onto the constraint).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 3.0], [4.0, 3.0]])
    >>> # lam = 1: the class-mean direction
    >>> w, b = shortcut_weights(X, [0, 0, 1, 1], 1.0, epsilon=0.1)
    >>> np.round(w, 6).tolist()
    [0.166667, 0.166667]
    """
    from .svm import SVC

    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
        raise TypeError(
            f"lam must be a real number (any finite value; 0 gives w_SVM, 1 the centre "
            f"direction), got {type(lam).__name__} {lam!r}"
        )
    if not np.isfinite(float(lam)):
        raise ValueError(f"lam must be a finite real number, got {lam!r}")
    Cv = _check_C(C)
    if not np.isfinite(Cv):
        raise ValueError("C must be finite for the shortcut (the SVM part needs a finite penalty)")
    eps = _check_epsilon(epsilon)
    eps = AUTO_EPSILON if eps is None else eps
    Cs = Cv / eps if svm_C is None else _check_C(svm_C)
    if not np.isfinite(Cs):
        raise ValueError(f"svm_C must be finite, got {svm_C!r}")
    Xa = real_matrix(X, "X")
    s = _function_labels(y, Xa.shape[0], caller="shortcut_weights", samples="X")
    svc = SVC(C=Cs, kernel="linear", tol=1e-8).fit(Xa, s)
    w_svm = svc.dual_coef_[0] @ Xa[svc.support_]
    m = Xa[s > 0].mean(axis=0) - Xa[s < 0].mean(axis=0)
    if not float(m @ m) > 0:
        raise ValueError(
            "the two class centres coincide; the centre constraint w . (x_+ - x_-) = 1 cannot be met"
        )
    w = (1.0 - float(lam)) * w_svm + float(lam) * m
    wm = float(w @ m)
    if not wm > 0:
        raise ValueError(f"the mixture has w . (x_+ - x_-) = {wm:.3g} <= 0 and cannot be rescaled to 1")
    w = w / wm
    return w, _best_bias(Xa @ w, s, eps)


def _best_bias(u: np.ndarray, y: np.ndarray, eps: float) -> float:
    """argmin_b sum_i max(0, eps - y_i (u_i + b)), the midpoint of the minimising interval.

    With ``P_i = eps - u_i`` (positives) and ``N_j = -eps - u_j`` (negatives) the
    objective is ``sum_i max(0, P_i - b) + sum_j max(0, b - N_j)``, convex and piecewise
    linear; it is evaluated at every breakpoint with sorted cumulative sums (O(n log n)).
    """
    P = np.sort(eps - u[y > 0])
    N = np.sort(-eps - u[y < 0])
    cand = np.unique(np.r_[P, N])
    cP = np.r_[0.0, np.cumsum(P[::-1])][::-1]  # cP[k] = sum of P[k:]
    cN = np.r_[0.0, np.cumsum(N)]               # cN[k] = sum of N[:k]
    kp = np.searchsorted(P, cand, side="right")  # P[kp:] > b
    kn = np.searchsorted(N, cand, side="left")   # N[:kn] < b
    vals = (cP[kp] - (P.shape[0] - kp) * cand) + (kn * cand - cN[kn])
    best = np.flatnonzero(vals <= vals.min() + 1e-12 * max(1.0, abs(float(vals.min()))))
    return float((cand[best[0]] + cand[best[-1]]) / 2)
