"""Face steps: where SMO's pairwise steps crawl, minimise over the free multipliers at once.

On a face of the box (the bounded multipliers fixed) the dual ``1/2 a'Q a + p'a`` under
``y'a = 0`` is a quadratic in the free multipliers. Where ``Q`` is singular on that face
(a linear kernel of rank ``d`` with more free multipliers than that, a large ``C``) SMO
zig-zags along zero-curvature directions by tiny steps: raw breast_cancer with a linear
kernel at ``C = 100`` takes 4e8 of them. A face step follows such a direction to the
first bound at once, or takes the Newton step to the face's minimiser, and costs one
small eigenproblem. :class:`ktheory.csvm.CentralSVC` takes them where its SMO stalls, and
the compiled solver of :class:`ktheory.svm.SVC` hands its point over to them where it stalls
(:func:`stalled_polish`, called from the estimators' dual solve).

This module is the solver layer (numpy and scipy only).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.linalg import cho_solve

__all__ = ["face_steps", "FACE_MAX"]

#: Largest free set on which a face step is taken (each costs ``O(k^3)``).
FACE_MAX = 1500


def _face_basis(yF: np.ndarray) -> np.ndarray:
    """An orthonormal basis ``Z`` (k, k - 1) of ``{d : yF' d = 0}`` (a Householder reflector)."""
    k = yF.shape[0]
    u = yF / np.sqrt(k)
    u[0] += 1.0 if u[0] >= 0 else -1.0
    H = np.eye(k) - np.outer(u, u) * (2.0 / float(u @ u))
    return H[:, 1:]


def _newton_direction(H: np.ndarray, gz: np.ndarray) -> np.ndarray | None:
    """``-H^{-1} gz`` by Cholesky where ``H`` is clearly positive definite (every pivot
    ``L_ii^2`` above ``1e-10`` times the largest), else ``None`` (the caller
    eigendecomposes: a zero-curvature direction is to be followed, not inverted)."""
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return None
    piv = np.diagonal(L) ** 2
    if not (piv.size and piv.min() > 1e-10 * piv.max()):
        return None
    return -cho_solve((L, True), gz)


def face_steps(qcols: Callable[[np.ndarray], np.ndarray], y: np.ndarray,
               C: float | np.ndarray, alpha: np.ndarray, G: np.ndarray,
               k_max: int) -> np.ndarray:
    """Active-set steps on the free multipliers (``alpha`` in place); returns the new gradient.

    ``qcols(F)`` returns the columns ``Q[:, F]`` (``n x |F|``) of the dual's matrix, asked
    once, for the free set ``F0`` at the start (the free set only shrinks during the
    phase); ``G = Q alpha + p``; ``C`` one bound or one per variable.

    With the bounded multipliers fixed, the quadratic is minimised on the face
    ``{d : y_F' d = 0}`` in an orthonormal basis ``Z`` of that face, where the reduced
    Hessian ``Z' Q_FF Z`` is eigendecomposed. If the gradient has a component along a
    zero-curvature direction (``Q`` is singular), the objective decreases (almost)
    linearly along it: the step follows it to its line minimum or the first bound;
    otherwise it is the Newton step, cut at the first bound. A multiplier that reaches a
    bound leaves the free set and the next step is taken on the smaller face, until a
    Newton step reaches the face's minimiser, fewer than two multipliers are free, no step
    decreases the objective, or the steps' cost (``k^3`` each) would exceed what a few
    thousand SMO steps cost. This replaces SMO's zig-zag on degenerate faces, and its
    growth by small steps when ``C`` is large, by a few small eigenproblems.
    """
    Cv = np.broadcast_to(np.asarray(C, dtype=np.float64), alpha.shape)
    F0 = np.flatnonzero((alpha > 0) & (alpha < Cv))
    if F0.shape[0] < 2 or F0.shape[0] > k_max:
        return G
    Q0 = None
    budget = 1e9
    steps_left = None
    while True:
        F = np.flatnonzero((alpha > 0) & (alpha < Cv))
        k = F.shape[0]
        if steps_left is None:
            steps_left = 2 * k + 2  # each step fixes a multiplier or ends on the face
        if k < 2 or k > k_max or budget < 0 or steps_left <= 0:
            return G
        budget -= float(k) ** 3
        steps_left -= 1
        if Q0 is None:
            Q0 = qcols(F0)
        cols = Q0[:, np.searchsorted(F0, F)]   # Q[:, F]; F is a subset of F0
        Z = _face_basis(y[F])
        QF = cols[F]
        H = Z.T @ QF @ Z
        H = (H + H.T) / 2
        gF = G[F]
        gz = Z.T @ gF
        d = _newton_direction(H, gz)
        newton = d is not None
        if d is not None:
            d = Z @ d
        else:
            lam, V = np.linalg.eigh(H)
            scale = float(np.abs(lam).max()) if lam.size else 0.0
            null = lam <= 1e-10 * scale if scale > 0 else np.ones(lam.shape, dtype=bool)
            gn = V[:, null].T @ gz
            newton = not np.linalg.norm(gn) > 1e-12 * max(1.0, float(np.linalg.norm(gz)))
            if newton:
                keep = ~null
                d = -(Z @ (V[:, keep] @ ((V[:, keep].T @ gz) / lam[keep])))
            else:
                d = -(Z @ (V[:, null] @ gn))
        slope = float(gF @ d)
        if not (np.all(np.isfinite(d)) and slope < 0):
            return G
        curv = float(d @ QF @ d)
        t_line = -slope / curv if curv > 0 else np.inf
        aF = alpha[F]
        CF = Cv[F]
        with np.errstate(divide="ignore", invalid="ignore"):
            to_up = np.where(d > 0, (CF - aF) / d, np.inf)
            to_low = np.where(d < 0, -aF / d, np.inf)
        t_bound = min(float(to_up.min()), float(to_low.min()))
        t = min(t_line, t_bound)
        if not (np.isfinite(t) and t > 0):
            return G
        new = aF + t * d
        if t == t_bound:
            new[np.isclose(to_low, t, rtol=1e-12, atol=0)] = 0.0
            hit = np.isclose(to_up, t, rtol=1e-12, atol=0) & np.isfinite(CF)
            new[hit] = CF[hit]
        new = np.clip(new, 0.0, CF)
        delta = new - aF
        # the change of the objective, with the gradient's component along y_F removed: the
        # step is orthogonal to y_F up to the rounding of alpha, which that component (the
        # bias times y_F, large against the step) would otherwise turn into an increase
        g_face = gF - y[F] * (float(y[F] @ gF) / k)
        with np.errstate(over="ignore", invalid="ignore"):  # huge C kappa: steps near 1e150
            change = float(g_face @ delta + 0.5 * (delta @ QF @ delta))
        if not change <= 0:  # rounding (or an overflowing step): no descent left
            return G
        alpha[F] = new
        G = G + cols @ delta
        if newton and t < t_bound:
            return G
