"""The decomposition (working-set) solver of the Lee–Lin–Wahba dual (solver layer, private).

The problem
-----------
With ``W`` the ``(n, k)`` costs of each (sample, class) pair (0 on the sample's own
class), ``U = C W`` and ``Yc = -1/(k-1)``, the dual of :mod:`ktheory.svm._llw` is

.. math::

    \\min_\\alpha\\; D(\\alpha) = \\sum_j \\beta_{\\cdot j}^\\top K \\beta_{\\cdot j}
    + Y_c \\sum_{ij} \\alpha_{ij},\\qquad \\beta = \\alpha - \\bar\\alpha\\ \\text{(row-centred)},

over ``0 <= alpha_ij <= U_ij`` (``alpha_ij = 0`` where ``W_ij = 0``) with the ``k - 1``
equations "``sum_i alpha_ij`` is the same for every column ``j``". Its gradient is
``G = Yc - H`` with ``H = K c``, ``c = -2 beta`` (the representer coefficients): ``H`` is
the matrix of the functions ``h_j`` at the training points, and ``-G_ij - b_j`` the
margin ``f_ij - Y_ij`` once intercepts ``b`` are added. The KKT conditions say that for
some ``b`` with ``sum_j b_j = 0`` (the multipliers of the column equations),
``alpha_ij < U_ij => f_ij - Y_ij <= 0`` and ``alpha_ij > 0 => f_ij - Y_ij >= 0``. The
solver stops when they hold to ``tol`` in these decision-value units, for the ``b``
of :func:`column_multipliers`: a measure that does not change when ``K`` is rescaled
(with ``C`` rescaled inversely) or when ``C`` is huge, as libsvm's ``tol``.

Why this design
---------------
The column equations couple all the variables: two variables of one column can move
in opposite directions (a *pair* step, as in SMO), but the common column sum moves only
with one variable of every column at once (a *tuple* step). A method of single pair and
tuple steps (the SMO of the binary case) converges, but in pure numpy each step costs
the Python overhead of a dozen array operations, and for large ``C`` with a low-rank
(linear) kernel two-variable steps can need very many iterations (as libsvm does).
So each iteration here takes a **working set of ``q`` samples with all their
variables** (``q (k-1)`` for 0/1 costs) and solves the dual restricted to it
**exactly** (:func:`block_qp`, a primal active-set method on a dense matrix of at most
a few hundred entries a side), which also moves the column sums. The working set
always contains the rows of the most violating elementary direction (the worst pair of
a column, or the tuple when the column sums are the worst), so every iteration
decreases ``D`` at least as much as that pair or tuple step would (the convergence
argument of SMO with maximal-violation selection); the rest of it is filled with the
samples of largest KKT violation. Exact sub-solutions put variables exactly on their
bounds (an interior-point sub-solver would leave them ``1e-12`` inside and the
violation test would keep selecting them). Problems of at most ``WHOLE_PROBLEM``
variables are one working set (the large-``C`` linear fits of iris: one exact solve).
The iteration also stops when ten working sets in a row decrease ``D`` only by rounding.

Kernel rows come from a callable, in blocks, through :class:`KernelRowCache` (least
recently used rows evicted beyond ``cache_mb``). Memory: a few ``(n, k)`` arrays plus the
cache; no ``n x n`` matrix, no matrix in the ``n (k-1)`` dual variables. ``H`` is updated
incrementally (``H += K[:, B] dc_B``) and recomputed from the kernel rows of the support
vectors whenever the stopping test passes (in extended precision where float64 would
leave an error above ``1e-12``), so that the final test is made on an accurate ``H``;
the tolerance is raised to the rounding level of ``H`` where that is larger.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._llw_rows import KernelRowCache, recompute_h

__all__ = ["KernelRowCache", "LLWDualResult", "block_qp", "column_multipliers",
           "default_working_set", "llw_decomposition"]

_EPS = float(np.finfo(np.float64).eps)


# ---------------------------------------------------------------------------
# multipliers and violations
# ---------------------------------------------------------------------------


def _distribute(lo: np.ndarray, hi: np.ndarray, total: float) -> np.ndarray:
    """``lam_j = clip(theta, lo_j, hi_j)`` with ``sum lam = total`` (inverted intervals
    count as their midpoint); where no ``theta`` reaches ``total`` the extreme ``lam`` is
    shifted uniformly (the violation is then spread over the columns)."""
    ok = lo <= hi
    mid = _inside(lo, hi)
    a = np.where(ok, lo, mid)
    b = np.where(ok, hi, mid)
    m = a.size
    sa, sb = float(a.sum()), float(b.sum())
    if sa > total:
        return a + (total - sa) / m
    if sb < total:
        return b + (total - sb) / m
    pts = np.unique(np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]]))
    if pts.size == 0:
        return np.full(m, total / m)
    fp = np.clip(pts[:, None], a[None, :], b[None, :]).sum(axis=1)
    if total <= fp[0]:
        s = int(np.sum(a == -np.inf))
        theta = pts[0] - (fp[0] - total) / s if s else pts[0]
    elif total >= fp[-1]:
        s = int(np.sum(b == np.inf))
        theta = pts[-1] + (total - fp[-1]) / s if s else pts[-1]
    else:
        theta = float(np.interp(total, fp, pts))
    return np.clip(theta, a, b)


def column_multipliers(G: np.ndarray, up: np.ndarray, low: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The intercept estimate ``b`` (sum 0) and the per-column extremes of the gradient.

    ``lo_j = max G_ij`` over variables that can decrease (``low``), ``hi_j = min G_ij``
    over those that can increase (``up``); the KKT conditions hold iff some ``b`` with
    ``sum b = 0`` lies in every ``[lo_j, hi_j]``. ``b`` is that point where it exists
    (:func:`_distribute`), otherwise one that spreads the violation. Returns
    ``(b, lo, hi, argmax rows of lo, argmin rows of hi)``.
    """
    Gu = np.where(up, G, np.inf)
    Gl = np.where(low, G, -np.inf)
    ihi = np.argmin(Gu, axis=0)
    ilo = np.argmax(Gl, axis=0)
    cols = np.arange(G.shape[1])
    hi = Gu[ihi, cols]
    lo = Gl[ilo, cols]
    return _distribute(lo, hi, 0.0), lo, hi, ilo, ihi


def _violations(G: np.ndarray, b: np.ndarray, up: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Per-variable KKT violation in decision-value units: ``f - Y`` above 0 where
    ``alpha`` can still increase, below 0 where it can decrease (0 elsewhere)."""
    r = b[None, :] - G                     # = f_ij - Y_ij
    return np.maximum(np.where(up, r, 0.0), np.where(low, -r, 0.0))


# ---------------------------------------------------------------------------
# the sub-problem: exact dense QP on one working set
# ---------------------------------------------------------------------------


def _newton_direction(Q: np.ndarray, grad: np.ndarray, F: np.ndarray, cjF: np.ndarray,
                      cols: np.ndarray, tau_free: bool, sigma: float) -> np.ndarray:
    """The step of the equality-constrained QP on the free variables ``F`` (minimum-norm
    least squares of its KKT system), or, where that system is inconsistent (a direction
    of zero curvature and negative slope exists), that direction."""
    nf = F.size
    t = 1 if tau_free else 0
    nc = cols.size
    size = nf + t + nc
    M = np.zeros((size, size))
    M[:nf, :nf] = Q[np.ix_(F, F)] / sigma
    A = (cjF[None, :] == cols[:, None]).astype(np.float64)
    M[nf + t:, :nf] = A
    M[:nf, nf + t:] = A.T
    if t:
        M[nf, nf + 1:] = -1.0
        M[nf + 1:, nf] = -1.0
    rhs = np.zeros(size)
    rhs[:nf] = -grad[F] / sigma
    try:
        sol = np.linalg.solve(M, rhs)
        res = rhs - M @ sol
        if np.all(np.isfinite(sol)) and np.linalg.norm(res) <= 1e-10 * np.linalg.norm(rhs):
            return sol[:nf]
    except np.linalg.LinAlgError:
        pass
    sol = np.linalg.lstsq(M, rhs, rcond=1e-12)[0]
    res = rhs - M @ sol
    if np.linalg.norm(res[:nf + t]) > 1e-8 * np.linalg.norm(rhs):
        return res[:nf]
    return sol[:nf]


def _inside(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """A point of each interval ``[lo_j, hi_j]`` (its midpoint where both ends are finite;
    the midpoint also where the interval is inverted)."""
    both = np.isfinite(lo) & np.isfinite(hi)
    return np.where(both, 0.5 * (lo + hi), np.where(np.isfinite(lo), lo,
                                                    np.where(np.isfinite(hi), hi, 0.0)))


def _face_lambda(nu: np.ndarray, nfj: np.ndarray, grad: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray, cj: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Column multipliers at a stationary point of a face: ``nu_j`` where column ``j`` has
    free variables; for the others a point of ``[max grad at upper, min grad at lower]``,
    with the columns' sum 0 where every column is in the working set."""
    k = nu.size
    lam = nu.copy()
    J0 = present & (nfj == 0)
    if not np.any(J0):
        return lam
    lo = np.full(k, -np.inf)
    hi = np.full(k, np.inf)
    np.maximum.at(lo, cj[upper], grad[upper])
    np.minimum.at(hi, cj[lower], grad[lower])
    if np.all(present):
        lam[J0] = _distribute(lo[J0], hi[J0], -float(lam[nfj > 0].sum()))
    else:
        lam[J0] = _inside(lo[J0], hi[J0])
    return lam


def _project(d: np.ndarray, cjF: np.ndarray, nfj: np.ndarray, tau_free: bool) -> np.ndarray:
    """``d`` projected (Euclidean) onto the directions that keep the column sums of the
    working set equal: ``sum_{F_j} d = tau`` for every column, ``tau`` free if every
    column has free variables, else 0. Applied to every step, so that rounding in a
    least-squares solve never breaks the equality constraints."""
    k = nfj.size
    s = np.bincount(cjF, weights=d, minlength=k)
    has = nfj > 0
    tau = float(np.sum(s[has] / nfj[has]) / np.sum(1.0 / nfj[has])) if tau_free else 0.0
    corr = np.zeros(k)
    corr[has] = (s[has] - tau) / nfj[has]
    return d - corr[cjF]


def _unflat(x: np.ndarray, ri: np.ndarray, cj: np.ndarray, q: int, k: int) -> np.ndarray:
    out = np.zeros((q, k))
    out[ri, cj] = x
    return out


def block_qp(Kbb: np.ndarray, a: np.ndarray, u: np.ndarray, msk: np.ndarray, g: np.ndarray,
             tol: float, max_steps: int) -> tuple[np.ndarray, bool, float, int]:
    """The LLW dual restricted to a working set, solved exactly by a primal active-set method.

    Minimises ``1/2 d^T Q d + g^T d`` over the displacement ``d = x - a`` of the
    variables ``msk`` of the ``q`` working-set rows, ``Q = 2 Kbb (x) (I - 11^T/k)``, with
    ``0 <= x <= u`` and equal column sums of ``d``. Each step solves the equality
    constrained QP on the free variables (a KKT system; least squares where it is
    singular, a zero-curvature descent direction where it is inconsistent) and moves
    along it by an exact line search clipped to the box, fixing the variable that
    blocks; at a stationary point of the face the fixed variable of largest multiplier
    violation (:func:`_distribute` gives the column multipliers) is released. Stops when
    every violation is below ``tol`` (decision-value units) or after ``max_steps``.
    The objective never increases and variables on a bound are exactly on it.

    Returns
    -------
    (x, optimal, decrease, steps) : (numpy.ndarray of shape (q, k), bool, float, int)
        The new values, whether they are optimal to ``tol``, the decrease of the
        objective (the sum of the line searches' predicted decreases) and the steps
        taken (each a line search or a release).
    """
    q, k = a.shape
    ri, cj = np.nonzero(msk)
    x = a[ri, cj].copy()
    ub = u[ri, cj]
    grad = g[ri, cj].copy()
    same = cj[:, None] == cj[None, :]
    Kv = 0.5 * (Kbb + Kbb.T)[np.ix_(ri, ri)]
    Q = 2.0 * Kv * np.where(same, 1.0 - 1.0 / k, -1.0 / k)
    sigma = float(np.max(np.abs(np.diagonal(Q)), initial=0.0))
    if not sigma > 0 or not np.isfinite(sigma):
        sigma = 1.0
    lower = x <= 0.0
    upper = ~lower & (x >= ub)
    present = np.bincount(cj, minlength=k) > 0
    optimal = False
    decrease = 0.0
    released = -1
    slow = 0
    last_r = np.inf
    steps = 0
    for steps in range(1, max_steps + 1):
        free = ~(lower | upper)
        F = np.flatnonzero(free)
        cjF = cj[F]
        nfj = np.bincount(cjF, minlength=k)
        tau_free = bool(np.all(nfj > 0))
        sgj = np.bincount(cjF, weights=grad[F], minlength=k)
        if tau_free:        # least-squares multipliers of the face: (diag(n_j) + 11^T) nu = s_j
            inv = 1.0 / nfj
            r_tau = float(sgj @ inv) / (1.0 + float(inv.sum()))   # = sum(nu)
            nu = (sgj - r_tau) * inv
        else:
            nu = sgj / np.maximum(nfj, 1)
            r_tau = 0.0
        r = grad[F] - nu[cjF]
        rmax = max(float(np.max(np.abs(r), initial=0.0)), abs(r_tau))
        if rmax <= tol or slow >= 3:
            slow = 0
            last_r = np.inf
            lam = _face_lambda(nu, nfj, grad, lower, upper, cj, present)
            viol = np.where(lower & (x < ub), lam[cj] - grad,
                            np.where(upper & (x > 0.0), grad - lam[cj], -np.inf))
            v = int(np.argmax(viol))
            if not viol[v] > tol:
                optimal = rmax <= tol
                break
            lower[v] = upper[v] = False
            released = v
            continue
        slow = slow + 1 if rmax > 0.5 * last_r else 0   # Newton steps on one face that
        last_r = rmax                                    # stopped improving: rounding level
        d = _newton_direction(Q, grad, F, cjF, np.arange(k) if tau_free else np.flatnonzero(nfj),
                              tau_free, sigma)
        for attempt in range(2):
            if np.all(np.isfinite(d)):
                d = _project(d, cjF, nfj, tau_free)
            slope = float(grad[F] @ d)
            if attempt or not (np.all(np.isfinite(d)) and slope < 0.0):
                d = _project(-r, cjF, nfj, tau_free)   # the projected gradient: descent
                slope = float(grad[F] @ d)
            dmax = float(np.max(np.abs(d), initial=0.0))
            if not (dmax > 0 and slope < 0):
                return _unflat(x, ri, cj, q, k), False, decrease, steps
            d = d / dmax
            slope /= dmax
            xf = x[F]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(d > 0, (ub[F] - xf) / d, np.where(d < 0, xf / -d, np.inf))
            jb = int(np.argmin(ratio))
            t_max = float(ratio[jb])
            if not (t_max == 0.0 and F[jb] == released):
                break
        Qd = Q[:, F] @ d
        kappa = float(d @ Qd[F])
        t_star = -slope / kappa if kappa > 0 else np.inf
        t = min(t_star, t_max)
        if not np.isfinite(t):
            break                          # unbounded: only from rounding; leave as is
        x[F] = xf + t * d
        grad += t * Qd
        decrease -= t * slope + 0.5 * t * t * kappa
        if t_max <= t_star:               # a new face
            slow = 0
            last_r = np.inf
            v = F[jb]
            x[v] = ub[v] if d[jb] > 0 else 0.0
            upper[v] = d[jb] > 0
            lower[v] = d[jb] < 0
        moved_lo = F[(d < 0) & (x[F] <= 0.0)]
        moved_hi = F[(d > 0) & (x[F] >= ub[F])]
        x[moved_lo] = 0.0
        lower[moved_lo] = True
        x[moved_hi] = ub[moved_hi]
        upper[moved_hi] = True
        released = -1
    return _unflat(x, ri, cj, q, k), optimal, decrease, steps


# ---------------------------------------------------------------------------
# the decomposition
# ---------------------------------------------------------------------------


@dataclass
class LLWDualResult:
    """What :func:`llw_decomposition` returns."""

    #: The dual variables, ``(n, k)``.
    alpha: np.ndarray
    #: ``H = K coef`` at the training points, recomputed from the kernel rows at the end.
    H: np.ndarray
    #: The intercept estimate of the KKT conditions (sum 0).
    b: np.ndarray
    #: Steps of the active-set sub-solver, all working sets together (the unit ``max_iter``
    #: counts: a line search or the release of a bound).
    n_iter: int
    #: Working sets solved.
    n_sets: int
    #: Final KKT violation (decision-value units).
    violation: float
    #: The tolerance the test used: ``tol``, or the rounding level of ``H`` if larger.
    tol_used: float
    #: Whether the violation reached ``tol_used``.
    converged: bool
    #: Whether the iteration stopped because a working set brought no decrease.
    stalled: bool


#: Problems with at most this many dual variables are solved as one working set.
WHOLE_PROBLEM = 512

#: Dual variables per working set otherwise (``q (k - 1)`` for 0/1 costs).
BLOCK_VARIABLES = 128


def default_working_set(n: int, k: int) -> int:
    """Rows per working set: all ``n`` for ``n (k-1) <= WHOLE_PROBLEM``, else about
    ``BLOCK_VARIABLES`` dual variables, and at least ``k + 1`` rows."""
    if n * (k - 1) <= WHOLE_PROBLEM:
        return n
    return int(min(n, max(k + 1, BLOCK_VARIABLES // (k - 1))))


def llw_decomposition(cache: KernelRowCache, W: np.ndarray, C: float, tol: float,
                      max_iter: int, *, q: int | None = None, alpha0: np.ndarray | None = None,
                      H0: np.ndarray | None = None) -> LLWDualResult:
    """Solve the LLW dual (module docstring) by working sets of ``q`` samples.

    Parameters
    ----------
    cache : KernelRowCache
        The kernel rows.
    W : numpy.ndarray of shape (n, k)
        Costs of each (sample, class) pair, 0 on the sample's class.
    C : float
        The box is ``0 <= alpha <= C W``.
    tol : float
        KKT tolerance in decision-value units (see the module docstring).
    max_iter : int
        Most active-set steps, all working sets together (``LLWDualResult.n_iter``).
    q : int, optional
        Samples per working set (:func:`default_working_set`).
    alpha0, H0 : numpy.ndarray of shape (n, k), optional
        A feasible starting point and its ``H = K coef`` (recomputed if omitted).

    Returns
    -------
    LLWDualResult
    """
    n, k = W.shape
    mask = W > 0
    with np.errstate(over="ignore"):
        U = np.where(mask, C * W, 0.0)
    Yc = -1.0 / (k - 1)
    q = default_working_set(n, k) if q is None else int(min(max(q, 2), n))
    block = max(q, min(cache.capacity, 256)) if cache.capacity else 256
    alpha = np.zeros((n, k)) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    if H0 is not None:
        H = np.array(H0, dtype=np.float64)
    elif np.any(alpha):
        H = recompute_h(cache, -2.0 * (alpha - alpha.mean(axis=1, keepdims=True)), block)[0]
    else:
        H = np.zeros((n, k))
    b = np.zeros(k)
    if not np.all(mask.any(axis=0)):
        # a column without variables: its sum is 0, so every alpha is 0
        return LLWDualResult(np.zeros((n, k)), np.zeros((n, k)), b, 0, 0, 0.0, tol, True, False)
    fresh = False
    stalled = False
    converged = False
    it = 0
    viol = np.inf
    n_sets = 0
    flat = 0                      # consecutive working sets that decreased D by rounding only
    coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
    dual = 0.25 * float(np.sum(coef * H)) + Yc * float(alpha.sum())
    unit = _EPS
    while True:
        # the rounding level of H = K coef: unit roundoff times a bound on |K| |coef|
        csum = float(np.sum(np.abs(alpha).max(axis=1))) * 2.0
        tol_used = max(float(tol), 4.0 * unit * cache.max_abs * csum)
        G = Yc - H
        up = mask & (alpha < U)
        low = mask & (alpha > 0.0)
        b, lo, hi, ilo, ihi = column_multipliers(G, up, low)
        V = _violations(G, b, up, low)
        row_v = V.max(axis=1)
        viol = float(row_v.max())
        if viol <= tol_used:
            if fresh:
                converged = True
                break
            coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
            H, _, unit = recompute_h(cache, coef, block)
            fresh = True
            continue
        if it >= max_iter or flat >= 10:
            stalled = flat >= 10
            break
        # the most violating elementary direction: the worst column pair, or a tuple
        pair = lo - hi
        jp = int(np.argmax(pair))
        cand = (float(pair[jp]), 2.0 * float(lo.sum()) / k, -2.0 * float(hi.sum()) / k)
        kind = int(np.argmax(cand))
        forced = (np.array([ilo[jp], ihi[jp]]), ilo, ihi)[kind]
        if kind and not np.isfinite(cand[kind]):
            forced = np.array([int(np.argmax(row_v))])
        forced = np.unique(forced)
        if q >= n:
            B = np.arange(n)
        else:
            rest = q - forced.size
            top = np.argpartition(-row_v, min(q, n - 1))[:q]
            top = top[(row_v[top] > 0) & ~np.isin(top, forced)]
            top = top[np.argsort(-row_v[top], kind="stable")[:max(rest, 0)]]
            B = np.union1d(forced, top)
        R = cache.get(B)
        Kbb = R[:, B]
        x_new, _, dec, steps = block_qp(Kbb, alpha[B], U[B], mask[B], G[B], 0.25 * tol_used,
                                        max_steps=min(20 * int(mask[B].sum()) + 50, max_iter - it))
        delta = x_new - alpha[B]
        it += steps
        n_sets += 1
        if not np.any(delta):
            if it >= max_iter:
                break
            stalled = True
            break
        flat = flat + 1 if not dec > 8.0 * _EPS * abs(dual) else 0
        dual -= dec
        alpha[B] = x_new
        dc = -2.0 * (delta - delta.mean(axis=1, keepdims=True))
        H += R.T @ dc
        fresh = False
    return LLWDualResult(alpha, H, b, it, n_sets, viol, tol_used, converged, stalled)
