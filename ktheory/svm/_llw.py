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
A dense primal–dual interior-point method (Mehrotra's predictor–corrector) on the
box-constrained QP, solved in ``a = alpha / C``: each iteration is one Cholesky
factorisation of the ``m x m`` matrix ``C Q + D`` and two solves; it stops when
the relative primal and dual residuals and the relative duality gap are below
``tol`` (about 15–30 iterations, nearly independent of the data). It is accurate
(``tol = 1e-10`` is reachable) and robust to degenerate problems, at
``O(m^3)`` time and ``3 m^2 * 8`` bytes of memory per fit, which is fine up to
``m`` of a few thousand (``fit`` refuses problems above ``MAX_QP_MB``).

Given the unique ``h``, the intercepts minimise the (piecewise linear) loss over
``b`` with ``sum_j b_j = 0``: a small linear program solved by
``scipy.optimize.linprog`` (HiGHS). The ``b`` need not be unique (then one
vertex of the optimal set is returned); the objective is, and so are the
decision values wherever some ``alpha_ij`` is strictly between its bounds.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import scipy.linalg as sla
from scipy import sparse
from scipy.optimize import linprog

from .._base import ParamsMixin
from .._validation import check_positive
from ._input import (
    ComplexDataError,
    _is_sparse,
    not_fitted_error,
    validate_X,
    validate_y,
)
from ._smo import SVC, ConvergenceWarning, _check_max_iter, _checked_symmetric

__all__ = ["MulticlassSVC", "llw_population_minimizer", "MAX_QP_MB", "MAX_POPULATION_CLASSES", "PSD_RTOL"]

#: Largest dense QP :class:`MulticlassSVC` sets up, in MiB: the interior-point
#: method holds about three ``m x m`` float64 matrices, ``m`` the number of dual
#: variables (``n (k-1)`` for 0/1 costs); 2 GiB allows ``m`` up to about 9400.
MAX_QP_MB = 2048.0

#: Largest number of classes :func:`llw_population_minimizer` accepts.
MAX_POPULATION_CLASSES = 1000

#: Relative tolerance of the positive-semidefiniteness test of the Gram matrix:
#: its smallest eigenvalue must be ``>= -PSD_RTOL * max |eigenvalue|``.
PSD_RTOL = 1e-6

#: Iteration cap used for ``max_iter=-1`` (the interior-point method needs
#: 15–40 iterations; reaching this many means a numerical failure).
_IPM_CAP = 500


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _check_costs(costs: Any, k: int, name: str = "costs") -> np.ndarray:
    """The ``k x k`` cost matrix (0/1 off the diagonal for ``None``), checked."""
    if costs is None:
        return np.ones((k, k)) - np.eye(k)
    if isinstance(costs, (str, bytes)):
        raise TypeError(f"{name} must be a (k, k) array of nonnegative numbers, got a string {costs!r}")
    if _is_sparse(costs):
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
# the interior-point QP solver
# ---------------------------------------------------------------------------


def _box_qp(Q: np.ndarray, c: np.ndarray, A: np.ndarray, u: np.ndarray, tol: float,
            max_iter: int) -> dict[str, Any]:
    """Minimise ``1/2 x^T Q x + c^T x`` s.t. ``A x = 0``, ``0 <= x <= u`` (``u > 0``).

    Mehrotra predictor–corrector primal–dual interior-point method. Optimality
    conditions: ``Q x + c - A^T y - z + v = 0``, ``A x = 0``, ``x z = 0``,
    ``(u - x) v = 0``, ``z, v >= 0``. Returns ``x, y, z, v``, the iteration
    count, whether ``tol`` was reached, and the final residuals.
    """
    m = c.shape[0]
    p = A.shape[0]
    x = np.minimum(0.5 * u, 1.0)
    w = u - x
    z = np.ones(m)
    v = np.minimum(1.0, 1.0 / w)  # w v <= 1 also for far (practically absent) upper bounds
    y = np.zeros(p)
    cnorm = float(np.max(np.abs(c))) if m else 0.0
    unorm = float(np.max(u)) if m else 0.0
    diagQ = np.diagonal(Q).copy()
    qscale = float(np.max(np.abs(diagQ))) if m else 0.0
    converged = False
    broke = False
    it = 0
    res_p = res_d = gap = np.inf
    M = np.empty_like(Q)
    for it in range(max_iter + 1):
        Qx = Q @ x
        rd = Qx + c - A.T @ y - z + v
        rp = A @ x
        pobj = 0.5 * float(x @ Qx) + float(c @ x)
        xz = x * z
        wv = w * v
        mu = (float(xz.sum()) + float(wv.sum())) / (2 * m)
        res_d = float(np.max(np.abs(rd))) / (1.0 + cnorm + float(np.max(np.abs(Qx))))
        res_p = float(np.max(np.abs(rp))) / (1.0 + unorm) if p else 0.0
        gap = 2 * m * mu / (1.0 + abs(pobj))
        if not np.isfinite(res_p + res_d + gap):
            broke = True
            break
        if max(res_p, res_d, gap) <= tol:
            converged = True
            break
        if it == max_iter:
            break
        D = z / x + v / w
        chol = None
        reg = 0.0
        for attempt in range(8):
            np.copyto(M, Q)
            M[np.diag_indices(m)] += D + reg
            try:
                chol = sla.cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
                break
            except np.linalg.LinAlgError:
                reg = max(reg * 100.0, 1e-14 * max(qscale, 1.0))
        if chol is None:  # Q + D not positive definite: Q is indefinite
            broke = True
            break
        if p:
            MAt = sla.cho_solve(chol, A.T, check_finite=False)
            S = A @ MAt
            S_f = sla.cho_factor(S, lower=True, check_finite=False)

        def solve(r_xz: np.ndarray, r_wv: np.ndarray) -> tuple[np.ndarray, ...]:
            r = -rd - r_xz / x + r_wv / w
            Mr = sla.cho_solve(chol, r, check_finite=False)
            if p:
                dy = sla.cho_solve(S_f, -rp - A @ Mr, check_finite=False)
                dx = Mr + MAt @ dy
            else:
                dy = np.zeros(0)
                dx = Mr
            dz = (-r_xz - z * dx) / x
            dv = (-r_wv + v * dx) / w
            return dx, dy, dz, dv

        def step(dx: np.ndarray, dz: np.ndarray, dv: np.ndarray) -> float:
            a = 1.0
            for val, d in ((x, dx), (w, -dx), (z, dz), (v, dv)):
                neg = d < 0
                if np.any(neg):
                    a = min(a, float(np.min(-val[neg] / d[neg])))
            return a

        dx, dy, dz, dv = solve(xz, wv)
        a_aff = step(dx, dz, dv)
        mu_aff = (float((x + a_aff * dx) @ (z + a_aff * dz))
                  + float((w - a_aff * dx) @ (v + a_aff * dv))) / (2 * m)
        sigma = (mu_aff / mu) ** 3
        dx, dy, dz, dv = solve(xz + dx * dz - sigma * mu, wv - dx * dv - sigma * mu)
        a = min(1.0, 0.995 * step(dx, dz, dv))
        x = x + a * dx
        w = u - x
        # keep strictly interior despite rounding in u - x
        tiny = 1e-300
        x = np.maximum(x, tiny)
        w = np.maximum(w, tiny)
        y = y + a * dy
        z = np.maximum(z + a * dz, tiny)
        v = np.maximum(v + a * dv, tiny)
    return {"x": x, "y": y, "z": z, "v": v, "n_iter": it, "converged": converged, "broke": broke,
            "res_p": res_p, "res_d": res_d, "gap": gap}


def _polish(Q: np.ndarray, c: np.ndarray, A: np.ndarray, u: np.ndarray, sol: dict[str, Any],
            tol: float) -> tuple[np.ndarray, np.ndarray, bool]:
    """Exact solution on the active set guessed from the interior-point iterate.

    Each variable is classified as at its lower bound (``x/u`` below the scaled bound
    multiplier ``z``), at its upper bound (likewise with ``1 - x/u`` and ``v``) or free;
    the equality-constrained QP over the free variables is then one linear (KKT) system,
    solved by least squares (``Q`` may be singular). Variables that leave their box are
    moved to the bound and the system re-solved (at most 5 rounds). The result is
    accepted if it is feasible, satisfies the sign conditions of the bound multipliers
    to ``max(tol, 1e-9)`` and its objective is not worse than the iterate's; otherwise
    the iterate is returned with its near-zero variables set to 0. Returns ``(x, y,
    polished)`` (``y`` the multipliers of ``A x = 0``).
    """
    x0, z, v, y0 = sol["x"], sol["z"], sol["v"], sol["y"]
    p = A.shape[0]
    gs = max(float(np.max(np.abs(c))), 1e-300)
    us = np.minimum(u, 1.0)  # the natural scale of x (far upper bounds play no role)
    lower = x0 / us < z / gs
    upper = ~lower & ((u - x0) / us < v / gs)
    obj0 = 0.5 * float(x0 @ (Q @ x0)) + float(c @ x0)
    fallback = (np.where(lower, 0.0, x0), y0, False)
    for _ in range(5):
        free = ~(lower | upper)
        xb = np.where(upper, u, 0.0)
        F = np.flatnonzero(free)
        nf = F.size
        KKT = np.zeros((nf + p, nf + p))
        KKT[:nf, :nf] = Q[np.ix_(F, F)]
        KKT[:nf, nf:] = -A[:, F].T
        KKT[nf:, :nf] = A[:, F]
        rhs = np.concatenate([-c[F] - Q[F] @ xb, -(A @ xb)])
        sol_f = np.linalg.lstsq(KKT, rhs, rcond=1e-13)[0]
        x = xb.copy()
        x[F] = sol_f[:nf]
        y = sol_f[nf:]
        out_lo = free & (x < 0)
        out_hi = free & (x > u)
        if not (np.any(out_lo) or np.any(out_hi)):
            break
        lower |= out_lo
        upper |= out_hi
    else:
        return fallback
    g = Q @ x + c - A.T @ y           # = z - v at an exact solution
    dtol = max(tol, 1e-9) * (1.0 + gs + float(np.max(np.abs(Q @ x))))
    ok = (np.all(g[lower] >= -dtol) and np.all(g[upper] <= dtol)
          and float(np.max(np.abs(g[~(lower | upper)]), initial=0.0)) <= dtol
          and float(np.max(np.abs(A @ x), initial=0.0)) <= 1e-12 * (1.0 + float(np.max(u)))
          and 0.5 * float(x @ (Q @ x)) + float(c @ x) <= obj0 + max(tol, 1e-12) * (1.0 + abs(obj0)))
    return (x, y, True) if ok else fallback


def _b_from_multipliers(Aty: np.ndarray, jj: np.ndarray, k: int) -> np.ndarray:
    """``b_j`` read off ``A^T y`` (constant over the variables of column ``j``), centred;
    a column without variables gets the value that makes the sum 0."""
    b = np.zeros(k)
    has = np.zeros(k, bool)
    for j in range(k):
        sel = jj == j
        if np.any(sel):
            b[j] = Aty[sel][0]
            has[j] = True
    if not np.all(has):
        b[~has] = -b[has].sum() / max(1, int(np.sum(~has)))
    return b - b.mean()


def _intercepts(Hh: np.ndarray, codes: np.ndarray, L: np.ndarray,
                b_eq: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """``b`` (sum 0) minimising ``sum_ij L_{y_i j} (Hh_ij + b_j - Y_ij)_+``, and that minimum.

    A linear program in ``b`` (free) and one slack per pair ``(i, j)`` with
    positive cost, solved by HiGHS (dual simplex, tolerances ``1e-10``). The
    intercepts ``b_eq`` read off the QP's equality multipliers are a second
    candidate (exact when some variable of every column is free); the one with
    the smaller loss is returned.
    """
    n, k = Hh.shape
    W = L[codes]  # (n, k) costs of each sample's row
    ii, jj = np.nonzero(W > 0)
    m = ii.size
    if m == 0:
        return np.zeros(k), 0.0
    Yc = -1.0 / (k - 1)

    def loss_of(b: np.ndarray) -> float:
        return float(np.sum(W[ii, jj] * np.maximum(Hh[ii, jj] + b[jj] - Yc, 0.0)))
    # constraints b_j - s_t <= Yc - Hh_ij
    rows = np.arange(m)
    A_ub = sparse.csr_matrix(
        (np.concatenate([np.ones(m), -np.ones(m)]),
         (np.concatenate([rows, rows]), np.concatenate([jj, k + rows]))),
        shape=(m, k + m),
    )
    b_ub = Yc - Hh[ii, jj]
    cost = np.concatenate([np.zeros(k), W[ii, jj]])
    A_eq = sparse.csr_matrix(np.concatenate([np.ones(k), np.zeros(m)])[None, :])
    bounds = [(None, None)] * k + [(0, None)] * m
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[0.0], bounds=bounds, method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - a bounded feasible LP
        raise RuntimeError(f"linprog failed to find the intercepts: {res.message}")
    b = res.x[:k] - res.x[:k].mean()
    loss = loss_of(b)
    if b_eq is not None:
        loss_eq = loss_of(b_eq)
        if loss_eq <= loss:
            return b_eq, loss_eq
    return b, loss


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------


class MulticlassSVC(ParamsMixin):
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
    tol : float, default 1e-8
        Stopping tolerance of the interior-point method: relative primal and
        dual residuals and relative duality gap all below ``tol``.
    max_iter : int, default -1
        Iteration limit of the interior-point method; ``-1`` means a cap of
        500 (it needs 15–40). Stopping at the limit issues a
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
        each row sums to 0.
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
    n_iter_ : int
        Interior-point iterations.
    n_features_in_ : int
        Number of features of the training ``X``.

    Notes
    -----
    ``predict`` is the argmax of ``decision_function``; ties go to the lowest
    column index (the first class in ``classes_``). Memory: ``fit`` holds about
    three ``m x m`` float64 matrices, ``m = n (k-1)`` for 0/1 costs; problems
    above ``MAX_QP_MB`` MiB are refused up front.

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
        tol: float = 1e-8,
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

    # the kernel machinery of SVC (gamma="scale", named kernels, callables,
    # test-input checks), used through a private SVC that holds the kernel
    # parameters only
    _validate_test_X = SVC._validate_test_X

    def _kernel_holder(self) -> SVC:
        return SVC(kernel=self.kernel, degree=self.degree, gamma=self.gamma, coef0=self.coef0)

    def _check_params(self) -> None:
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        _check_max_iter(self.max_iter)
        self._kernel_holder()._check_params()  # kernel, degree, gamma, coef0

    def _check_fitted(self) -> None:
        if not hasattr(self, "dual_coef_"):
            raise not_fitted_error(self)

    # -- fit -----------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> "MulticlassSVC":
        """Fit the multicategory SVM (interior-point dual, then the intercepts by LP).

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
            Gram matrix, parameters out of range, or a problem above
            ``MAX_QP_MB``.
        TypeError
            For sparse, complex, string or ``None`` input and parameters of the
            wrong type.
        """
        self._check_params()
        name = type(self).__name__
        X, in_dtype = validate_X(X, "X", estimator=name)
        n = X.shape[0]
        classes, codes = validate_y(y, n, estimator=name, max_classes=None)
        k = classes.shape[0]
        L = _check_costs(self.costs, k)
        W = L[codes]                      # (n, k): cost of each (sample, class) pair
        ii, jj = np.nonzero(W > 0)        # the dual variables, row-major
        m = ii.size
        need_mb = 3.0 * m * m * 8 / 2**20
        if need_mb > MAX_QP_MB:
            raise ValueError(
                f"the dual QP has m = {m} variables (n_samples * (k - 1) = {n} * {k - 1} for 0/1 costs) "
                f"and needs about {need_mb:.0f} MiB (3 m**2 * 8 bytes), more than MAX_QP_MB = "
                f"{MAX_QP_MB:g}; subsample the training data"
            )
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                    f"got shape {X.shape}"
                )
            K = _checked_symmetric(X, "X (precomputed Gram matrix)", in_dtype)
        kh = self._kernel_holder()
        kh._set_kernel(X)
        if self.kernel != "precomputed":
            K = kh._gram(X, None, "training data")
            if callable(self.kernel):
                _checked_symmetric(K, "the Gram matrix returned by the kernel callable", np.float64)
        _check_psd(K, "the precomputed Gram matrix X" if self.kernel == "precomputed"
                   else f"the Gram matrix of the {kh._kernel_name()} kernel")

        C = float(self.C)
        tol = float(self.tol)
        max_iter = _check_max_iter(self.max_iter)
        max_iter = min(max_iter, _IPM_CAP)
        alpha = np.zeros((n, k))
        n_iter = 0
        b_eq = None
        polished = True
        if m:
            # solved in a = alpha / s with s = min(C, 100 / max diag K): the box [0, L]
            # for moderate C, and for large C alpha's natural scale (the solution stops
            # growing with C: a box of (C / s) L >> 1 is practically absent; s chosen
            # on 3750 random problems, C up to 1e12, none stalled); the QP is then
            # min 1/2 a^T Q a + c^T a, 0 <= a <= (C / s) L, with
            # Q_ts = 2 s K[i_t, i_s] (delta(j_t, j_s) - 1/k)
            kd = float(np.max(np.abs(np.diagonal(K))))
            s = C if not (kd > 0 and np.isfinite(100.0 / kd)) else min(C, 100.0 / kd)
            Q = K[np.ix_(ii, ii)]
            same = jj[:, None] == jj[None, :]
            Q *= np.where(same, 2.0 * s * (1.0 - 1.0 / k), -2.0 * s / k)
            del same
            c = np.full(m, -1.0 / (k - 1))
            u = (C / s) * W[ii, jj]
            A = _equality_rows(jj, k)
            with np.errstate(over="ignore", under="ignore"):
                sol = _box_qp(Q, c, A, u, tol, max_iter)
            n_iter = int(sol["n_iter"])
            if sol["broke"] or not np.all(np.isfinite(sol["x"])):
                raise ValueError(
                    f"{name}: the interior-point method broke down (non-finite iterates or an indefinite "
                    "Newton matrix); the "
                    "Gram matrix is probably badly scaled or indefinite beyond rounding. Rescale X "
                    "or the kernel, or change C"
                )
            if not sol["converged"]:
                warnings.warn(
                    f"{name}: the interior-point method stopped at max_iter={n_iter} before reaching "
                    f"tol={tol:g} (residuals: primal {sol['res_p']:.2g}, dual {sol['res_d']:.2g}, "
                    f"gap {sol['gap']:.2g})",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            a, y_eq, polished = _polish(Q, c, A, u, sol, tol)
            alpha[ii, jj] = np.minimum(s * a, C * W[ii, jj])
            b_eq = _b_from_multipliers(A.T @ y_eq, jj, k)
        coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
        support = np.flatnonzero(np.any(alpha != 0, axis=1))
        Hh = K[:, support] @ coef[support] if support.size else np.zeros((n, k))
        b, loss = _intercepts(Hh, codes, L, b_eq)
        pen = float(np.einsum("ij,ij->", coef[support], Hh[support]))  # sum_j ||h_j||^2
        Yc = -1.0 / (k - 1)
        dual_min = 0.25 * pen + Yc * float(alpha.sum())

        self.classes_ = classes
        self.alpha_ = alpha
        self.dual_coef_ = coef
        self.intercept_ = b
        self.support_ = support.astype(np.int32)
        self.objective_ = -dual_min
        self.primal_objective_ = 0.25 * pen + C * loss
        self.n_iter_ = max(n_iter, 1)
        self.n_features_in_ = X.shape[1]
        self.shape_fit_ = X.shape
        self._kernel_ = kh
        self._polished_ = polished
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[support]
        return self

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
        self._check_fitted()
        X = self._validate_test_X(X)
        sup = self.support_
        coef = self.dual_coef_[sup]
        k = self.classes_.shape[0]
        out = np.zeros((X.shape[0], k))
        if sup.size:
            if self.kernel == "precomputed":
                out = X[:, sup] @ coef
            else:
                step = max(1, (1 << 22) // sup.size)
                for a in range(0, X.shape[0], step):
                    Kt = self._kernel_._gram(X[a:a + step], self.support_vectors_, "test data")
                    out[a:a + step] = Kt @ coef
        out += self.intercept_[None, :]
        out -= out.mean(axis=1, keepdims=True)
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[argmax_j f_j(x)]``, ties to the lowest index."""
        F = self.decision_function(X)
        return self.classes_[np.argmax(F, axis=1)]

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


def _equality_rows(jj: np.ndarray, k: int) -> np.ndarray:
    """Rows of ``sum_i a_ij = sum_i a_{i,ref}`` for ``j != ref`` (``ref`` a class with
    variables), without duplicates (classes without variables all give the same row)."""
    counts = np.bincount(jj, minlength=k)
    ref = int(np.argmax(counts > 0))
    rows = []
    empty_done = False
    for j in range(k):
        if j == ref:
            continue
        if counts[j] == 0:
            if empty_done:
                continue
            empty_done = True
        rows.append((jj == j).astype(np.float64) - (jj == ref))
    return np.array(rows).reshape(len(rows), jj.size)


def _check_psd(K: np.ndarray, what: str) -> None:
    """Raise ValueError if ``K`` is clearly indefinite (the dual would not be convex).

    A Cholesky factorisation of ``K + 1e-9 max|diag K| I`` accepts (fast path);
    otherwise the smallest eigenvalue must be ``>= -PSD_RTOL`` times the largest
    absolute one (``1e-6``: a Gram matrix computed in single precision is PSD
    only to about that level; the interior-point method copes with it).
    """
    rtol = PSD_RTOL
    n = K.shape[0]
    d = np.abs(np.diagonal(K))
    s = float(d.max()) if n else 0.0
    if s == 0.0:
        s = float(np.max(np.abs(K))) if n else 0.0
        if s == 0.0:
            return
    try:
        np.linalg.cholesky(K + (1e-9 * s) * np.eye(n))
        return
    except np.linalg.LinAlgError:
        pass
    ev = np.linalg.eigvalsh(K)
    big = float(np.max(np.abs(ev)))
    if ev[0] < -rtol * big:
        raise ValueError(
            f"{what} is not positive semidefinite (smallest eigenvalue {ev[0]:.3g}, largest "
            f"{ev[-1]:.3g}); the LLW dual is a convex QP only for a PSD kernel"
        )
