"""The SMO solver at scale: kernel rows on demand, a row cache, shrinking, compiled (private).

:func:`ktheory.svm.smo_solve` (module :mod:`ktheory.svm._smo`) is the readable
reference: the whole Gram matrix in memory and eleven numpy calls per iteration.
This module runs *the same iteration* (the same working-set selection, the same
two-variable step and clipping, the same ties: lowest position wins) the way
libsvm's ``Solver`` runs it, so that it scales:

* **kernel rows on demand.** An SMO step needs two rows of ``Q`` (``Q_st = y_s y_t
  K(x_s, x_t)``). They are computed when asked for, from the data ``X`` (one pass
  over ``n`` points of dimension ``d``, the named kernels only) or read from a
  precomputed Gram matrix, and kept in a **cache of** ``cache_size`` **MiB**, least
  recently used row out first. Memory is ``O(n d + cache)``, not ``O(n^2)``.
* **shrinking** (Joachims 1998; libsvm's rule, Fan, Chen and Lin 2005). Every
  ``min(n, 1000)`` iterations the variables at a bound whose gradient says they
  will stay there are moved behind the *active set* (a prefix of the permuted
  problem); selection, gradient update and kernel rows then touch the active
  set only. The gradient of the inactive variables is frozen; ``G_bar``, the
  part of the gradient due to variables at the upper bound, is kept for all
  variables so that the whole gradient can be rebuilt (``reconstruct``). When the
  violation first drops below ``10 tol`` the problem is unshrunk once, and when
  the active set looks optimal it is unshrunk and checked again: the stopping
  test is always made on *all* variables.
* **a compiled loop.** The iteration is compiled by numba (``nopython``, cached on
  disk after the first call), about libsvm's cost per iteration instead of the
  ~10 microseconds of numpy call overhead of the reference.

Two problem layouts share the code. Classification (``svr=False``): variable
``t`` is sample ``base[t]``; the cache holds rows of ``Q`` keyed by *position*,
each the prefix of the row over the first ``len`` positions (a row computed
while the active set was short is short); a swap of two positions swaps the
two entries in every cached row, as libsvm's ``Cache::swap_index``. Regression
(``svr=True``, libsvm's ``SVR_Q``): ``2n`` variables on ``n`` samples, the cache
holds whole kernel rows keyed by *sample*, and a row of ``Q`` is assembled from
one of them into one of two buffers.

Kernel values are kept in float64 (libsvm keeps ``float``): the cache holds half
as many entries per MiB as libsvm's, and the gradient carries no single-precision
error (see Chapter 9's note on libsvm's float cache).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numba import njit

from ._smo import DEFAULT_CACHE_MB, _intercept_and_objective, _violation

__all__ = ["FastResult", "fast_smo", "KERNEL_CODES", "DEFAULT_CACHE_MB"]


#: Kernel names and their codes in the compiled loop.
KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3, "precomputed": 4}

_TAU = 1e-12
_LOWER, _FREE, _UPPER = 0, 1, 2
# integer state (istate): positions
(_IT, _COUNTER, _ACTIVE, _UNSHRINK, _NEXTBUF, _STATUS, _SVR, _SHRINK, _CONSTD, _NSHRINK,
 _NUNSHRINK, _NHIST) = range(12)
#: Rows of the history (iteration, active set size, violation), one per shrinking check.
_HIST_CAP = 10_000
# cache counters (cint): positions
_FREETOP, _HITS, _MISSES, _EVICT = range(4)
# status codes
_RUNNING, _CONVERGED, _MAXITER, _NONFINITE = 0, 1, 2, 3


# ---------------------------------------------------------------------------
# kernel values
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _dot(X: np.ndarray, a: int, b: int) -> float:
    d = X.shape[1]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    k = 0
    while k + 4 <= d:
        s0 += X[a, k] * X[b, k]
        s1 += X[a, k + 1] * X[b, k + 1]
        s2 += X[a, k + 2] * X[b, k + 2]
        s3 += X[a, k + 3] * X[b, k + 3]
        k += 4
    while k < d:
        s0 += X[a, k] * X[b, k]
        k += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def _fill(kind: int, X: np.ndarray, sq: np.ndarray, kp: np.ndarray, Kpre: np.ndarray,
          a: int, cols: np.ndarray, ys: np.ndarray, ya: float, start: int, stop: int,
          out: np.ndarray) -> bool:
    """``out[t] = ya * ys[t] * k(x_a, x_cols[t]) / scale`` for ``start <= t < stop``;
    False if a value is not finite."""
    gamma = kp[0]
    coef0 = kp[1]
    degree = kp[2]
    inv = kp[3]
    ok = True
    if kind == 4:
        for t in range(start, stop):
            v = ya * ys[t] * Kpre[a, cols[t]] * inv
            out[t] = v
            if not math.isfinite(v):
                ok = False
        return ok
    for t in range(start, stop):
        b = cols[t]
        dt = _dot(X, a, b)
        if kind == 0:
            v = dt
        elif kind == 1:
            v = (gamma * dt + coef0) ** degree
        elif kind == 2:
            v = math.exp(-gamma * (sq[a] + sq[b] - 2.0 * dt))
        else:
            v = math.tanh(gamma * dt + coef0)
        v = ya * ys[t] * v * inv
        out[t] = v
        if not math.isfinite(v):
            ok = False
    return ok


# ---------------------------------------------------------------------------
# the row cache: fixed slots of one row each, a doubly linked LRU list
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _lru_unlink(prev: np.ndarray, nxt: np.ndarray, s: int) -> None:
    p = prev[s]
    q = nxt[s]
    nxt[p] = q
    prev[q] = p


@njit(cache=True, inline="always")
def _lru_append(prev: np.ndarray, nxt: np.ndarray, s: int) -> None:
    head = prev.shape[0] - 1   # the sentinel; nxt[head] is the least recently used
    last = prev[head]
    nxt[last] = s
    prev[s] = last
    nxt[s] = head
    prev[head] = s


@njit(cache=True)
def _cache_row(key: int, length: int, cache: Any) -> tuple:
    """Slot of ``key`` (most recently used now) and the first entry still to compute."""
    pool, slot_of, key_of, row_len, prev, nxt, free, cint = cache
    s = slot_of[key]
    if s >= 0:
        _lru_unlink(prev, nxt, s)
        _lru_append(prev, nxt, s)
        start = row_len[key]
        if start >= length:
            cint[_HITS] += 1
            return s, length
        cint[_MISSES] += 1
        return s, start
    cint[_MISSES] += 1
    if cint[_FREETOP] > 0:
        cint[_FREETOP] -= 1
        s = free[cint[_FREETOP]]
    else:                                  # evict the least recently used row
        head = prev.shape[0] - 1
        s = nxt[head]
        _lru_unlink(prev, nxt, s)
        old = key_of[s]
        slot_of[old] = -1
        row_len[old] = 0
        cint[_EVICT] += 1
    slot_of[key] = s
    key_of[s] = key
    row_len[key] = 0
    _lru_append(prev, nxt, s)
    return s, 0


@njit(cache=True)
def _cache_swap(i: int, j: int, cache: Any) -> None:
    """Positions ``i < j`` swapped: relabel their rows and swap the two entries in every
    cached row (a row too short to hold ``j`` but holding ``i`` is dropped)."""
    pool, slot_of, key_of, row_len, prev, nxt, free, cint = cache
    si = slot_of[i]
    sj = slot_of[j]
    slot_of[i] = sj
    slot_of[j] = si
    if si >= 0:
        key_of[si] = j
    if sj >= 0:
        key_of[sj] = i
    li = row_len[i]
    row_len[i] = row_len[j]
    row_len[j] = li
    head = prev.shape[0] - 1
    s = nxt[head]
    while s != head:
        s_next = nxt[s]
        k = key_of[s]
        L = row_len[k]
        if L > i:
            if L > j:
                tmp = pool[s, i]
                pool[s, i] = pool[s, j]
                pool[s, j] = tmp
            else:
                _lru_unlink(prev, nxt, s)
                slot_of[k] = -1
                row_len[k] = 0
                free[cint[_FREETOP]] = s
                cint[_FREETOP] += 1
        s = s_next


# ---------------------------------------------------------------------------
# rows of Q
# ---------------------------------------------------------------------------
@njit(cache=True)
def _get_q(i: int, length: int, kind: int, X: np.ndarray, sq: np.ndarray, kp: np.ndarray,
           Kpre: np.ndarray, prob: Any, cache: Any, buf: np.ndarray, ident: np.ndarray,
           ones: np.ndarray, istate: np.ndarray) -> np.ndarray:
    """Row ``i`` of ``Q`` over the positions ``0 .. length-1`` (a view; valid until the
    next-but-one call)."""
    base, y = prob[0], prob[1]
    pool = cache[0]
    if istate[_SVR] == 0:
        s, start = _cache_row(i, length, cache)
        row = pool[s]
        if start < length:
            if not _fill(kind, X, sq, kp, Kpre, base[i], base, y, y[i], start, length, row):
                istate[_STATUS] = _NONFINITE
            cache[3][i] = length
        return row
    # SVR: a whole kernel row of sample base[i], then Q_it = y_i y_t K[base_i, base_t]
    a = base[i]
    n = ident.shape[0]
    s, start = _cache_row(a, n, cache)
    krow = pool[s]
    if start < n:
        if not _fill(kind, X, sq, kp, Kpre, a, ident, ones, 1.0, start, n, krow):
            istate[_STATUS] = _NONFINITE
        cache[3][a] = n
    nb = istate[_NEXTBUF]
    istate[_NEXTBUF] = 1 - nb
    out = buf[nb]
    yi = y[i]
    for t in range(length):
        out[t] = yi * y[t] * krow[base[t]]
    return out


@njit(cache=True)
def _swap(i: int, j: int, prob: Any, cache: Any, istate: np.ndarray) -> None:
    """Swap positions ``i < j`` of the problem (and of the cache, for classification)."""
    base = prob[0]
    tb = base[i]
    base[i] = base[j]
    base[j] = tb
    for k in range(1, 7):      # y, p, QD, alpha, G, G_bar: float64 arrays
        arr = prob[1] if k == 1 else prob[2] if k == 2 else prob[3] if k == 3 else (
            prob[4] if k == 4 else prob[5] if k == 5 else prob[6])
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
    status, active_set = prob[7], prob[8]
    ts = status[i]
    status[i] = status[j]
    status[j] = ts
    ta = active_set[i]
    active_set[i] = active_set[j]
    active_set[j] = ta
    if istate[_SVR] == 0:
        _cache_swap(i, j, cache)


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------
@njit(cache=True)
def _status_of(a: float, C: float) -> int:
    if a >= C:
        return _UPPER
    if a <= 0.0:
        return _LOWER
    return _FREE


@njit(cache=True)
def _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate) -> None:
    """Rebuild the gradient of the inactive variables (libsvm's ``reconstruct_gradient``)."""
    p, alpha, G, gbar, status = prob[2], prob[4], prob[5], prob[6], prob[7]
    l = G.shape[0]
    active = istate[_ACTIVE]
    if active == l:
        return
    for t in range(active, l):
        G[t] = gbar[t] + p[t]
    nr_free = 0
    for t in range(active):
        if status[t] == _FREE:
            nr_free += 1
    if nr_free * l > 2 * active * (l - active):
        for i in range(active, l):
            Qi = _get_q(i, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            acc = 0.0
            for t in range(active):
                if status[t] == _FREE:
                    acc += alpha[t] * Qi[t]
            G[i] += acc
    else:
        for i in range(active):
            if status[i] == _FREE:
                Qi = _get_q(i, l, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
                ai = alpha[i]
                for t in range(active, l):
                    G[t] += ai * Qi[t]


@njit(cache=True)
def _be_shrunk(t: int, y: np.ndarray, G: np.ndarray, status: np.ndarray, gmax1: float,
               gmax2: float) -> bool:
    if status[t] == _UPPER:
        if y[t] > 0:
            return -G[t] > gmax1
        return -G[t] > gmax2
    if status[t] == _LOWER:
        if y[t] > 0:
            return G[t] > gmax2
        return G[t] > gmax1
    return False


@njit(cache=True)
def _shrink(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate) -> None:
    """libsvm's ``do_shrinking``: unshrink once when the violation is below ``10 eps``,
    then move the variables that will stay at their bound behind the active set."""
    y, G, status = prob[1], prob[5], prob[7]
    gmax1 = -np.inf    # max of -y G over I_up
    gmax2 = -np.inf    # max of  y G over I_low
    active = istate[_ACTIVE]
    for t in range(active):
        if y[t] > 0:
            if status[t] != _UPPER and -G[t] >= gmax1:
                gmax1 = -G[t]
            if status[t] != _LOWER and G[t] >= gmax2:
                gmax2 = G[t]
        else:
            if status[t] != _UPPER and -G[t] >= gmax2:
                gmax2 = -G[t]
            if status[t] != _LOWER and G[t] >= gmax1:
                gmax1 = G[t]
    if istate[_UNSHRINK] == 0 and gmax1 + gmax2 <= eps * 10.0:
        istate[_UNSHRINK] = 1
        _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
        istate[_ACTIVE] = G.shape[0]
        istate[_NUNSHRINK] += 1
    active = istate[_ACTIVE]
    t = 0
    while t < active:
        if _be_shrunk(t, y, G, status, gmax1, gmax2):
            active -= 1
            while active > t:
                if not _be_shrunk(active, y, G, status, gmax1, gmax2):
                    _swap(t, active, prob, cache, istate)
                    break
                active -= 1
        t += 1
    if active < istate[_ACTIVE]:
        istate[_NSHRINK] += 1
    istate[_ACTIVE] = active


@njit(cache=True)
def _select(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate,
            fstate) -> tuple:
    """Working-set selection WSS3 over the active set: ``(i, j)`` or ``(-1, -1)`` when the
    active set is optimal to ``eps``. The violation ``m - M`` goes to ``fstate[2]``."""
    y, QD, G, status = prob[1], prob[3], prob[5], prob[7]
    active = istate[_ACTIVE]
    gmax = -np.inf
    imax = -1
    for t in range(active):
        if y[t] > 0:
            if status[t] != _UPPER:
                v = -G[t]
                if v > gmax:
                    gmax = v
                    imax = t
        elif status[t] != _LOWER:
            v = G[t]
            if v > gmax:
                gmax = v
                imax = t
    if imax < 0:
        fstate[2] = -np.inf
        return -1, -1
    Qi = _get_q(imax, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
    yi = y[imax]
    qdi = QD[imax]
    gmin = np.inf
    jbest = -1
    best = 0.0
    for t in range(active):
        if y[t] > 0:
            if status[t] == _LOWER:
                continue
            v = -G[t]
        else:
            if status[t] == _UPPER:
                continue
            v = G[t]
        if v < gmin:
            gmin = v
        b = gmax - v
        if b > 0.0:
            a = qdi + QD[t] - 2.0 * yi * y[t] * Qi[t]
            if a < _TAU:
                a = _TAU
            obj = b * b / a
            if obj > best:
                best = obj
                jbest = t
    gap = gmax - gmin
    fstate[2] = gap
    if not (gap < np.inf):       # NaN or inf: the gradient overflowed
        istate[_STATUS] = _NONFINITE
        return -1, -1
    if gap < eps or jbest < 0:
        return -1, -1
    return imax, jbest


@njit(cache=True)
def _solve(stop_iter, max_iter, C, eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones,
           istate, fstate, hist) -> None:
    """Run the iteration until convergence, ``max_iter`` updates, a non-finite value, or
    ``stop_iter`` updates (then return with the state saved, status ``_RUNNING``)."""
    y, p, QD, alpha, G, gbar, status = (prob[1], prob[2], prob[3], prob[4], prob[5],
                                        prob[6], prob[7])
    l = G.shape[0]
    const_diag = istate[_CONSTD] != 0
    while True:
        if istate[_IT] >= stop_iter and istate[_IT] < max_iter:
            return
        istate[_COUNTER] -= 1
        if istate[_COUNTER] == 0:
            istate[_COUNTER] = min(l, 1000)
            if istate[_SHRINK] != 0:
                _shrink(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            h = istate[_NHIST]
            if h < hist.shape[0]:
                hist[h, 0] = istate[_IT]
                hist[h, 1] = istate[_ACTIVE]
                hist[h, 2] = fstate[2]
                istate[_NHIST] = h + 1
        i, j = _select(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate,
                       fstate)
        if istate[_STATUS] == _NONFINITE:
            return
        if i < 0:
            _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            istate[_ACTIVE] = l
            i, j = _select(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate,
                           fstate)
            if istate[_STATUS] == _NONFINITE:
                return
            if i < 0:
                istate[_STATUS] = _CONVERGED
                return
            istate[_COUNTER] = 1      # shrink at the next iteration
        if istate[_IT] >= max_iter:
            istate[_STATUS] = _MAXITER
            _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            istate[_ACTIVE] = l
            return
        istate[_IT] += 1
        active = istate[_ACTIVE]
        Qi = _get_q(i, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
        Qj = _get_q(j, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
        if istate[_STATUS] == _NONFINITE:
            return
        ai_old = alpha[i]
        aj_old = alpha[j]
        ai = ai_old
        aj = aj_old
        if y[i] != y[j]:
            quad = QD[i] + QD[j] + 2.0 * Qi[j]
            if const_diag:
                if quad < _TAU:
                    quad = _TAU
            elif quad <= 0.0:
                quad = _TAU
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            ai += delta
            aj += delta
            if diff > 0.0:
                if aj < 0.0:
                    aj = 0.0
                    ai = diff
            elif ai < 0.0:
                ai = 0.0
                aj = -diff
            if diff > 0.0:
                if ai > C:
                    ai = C
                    aj = C - diff
            elif aj > C:
                aj = C
                ai = C + diff
        else:
            quad = QD[i] + QD[j] - 2.0 * Qi[j]
            if const_diag:
                if quad < _TAU:
                    quad = _TAU
            elif quad <= 0.0:
                quad = _TAU
            delta = (G[i] - G[j]) / quad
            s = ai + aj
            ai -= delta
            aj += delta
            if s > C:
                if ai > C:
                    ai = C
                    aj = s - C
            elif aj < 0.0:
                aj = 0.0
                ai = s
            if s > C:
                if aj > C:
                    aj = C
                    ai = s - C
            elif ai < 0.0:
                ai = 0.0
                aj = s
        alpha[i] = ai
        alpha[j] = aj
        dai = ai - ai_old
        daj = aj - aj_old
        for t in range(active):
            G[t] += Qi[t] * dai + Qj[t] * daj
        ui = status[i] == _UPPER
        uj = status[j] == _UPPER
        status[i] = _status_of(ai, C)
        status[j] = _status_of(aj, C)
        if ui != (status[i] == _UPPER):
            Qi = _get_q(i, l, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            c = -C if ui else C
            for t in range(l):
                gbar[t] += c * Qi[t]
        if uj != (status[j] == _UPPER):
            Qj = _get_q(j, l, kind, X, sq, kp, Kpre, prob, cache, buf, ident, ones, istate)
            c = -C if uj else C
            for t in range(l):
                gbar[t] += c * Qj[t]
        if istate[_STATUS] == _NONFINITE:
            return


@njit(cache=True)
def _diag(kind: int, X: np.ndarray, sq: np.ndarray, kp: np.ndarray, Kpre: np.ndarray,
          n: int) -> np.ndarray:
    """``k(x_a, x_a)`` for every sample (unscaled)."""
    out = np.empty(n)
    kq = kp.copy()
    kq[3] = 1.0
    one = np.ones(1)
    col = np.zeros(1, dtype=np.int64)
    tmp = np.empty(1)
    for a in range(n):
        col[0] = a
        _fill(kind, X, sq, kq, Kpre, a, col, one, 1.0, 0, 1, tmp)
        out[a] = tmp[0]
    return out


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
@dataclass
class FastResult:
    """What :func:`fast_smo` returns: the solution in the caller's variable order."""

    alpha: np.ndarray
    grad: np.ndarray          # gradient of 1/2 a^T Q a + p^T a at alpha
    intercept: float
    objective: float
    n_iter: int
    gap: float
    converged: bool
    nonfinite: bool
    stats: dict = field(default_factory=dict)


def _slots(cache_size: float, row_len: int, n_keys: int) -> int:
    """Rows the cache holds: ``cache_size`` MiB of float64 rows, at least 2, at most all."""
    per_row = 8 * max(1, row_len)
    return int(max(2, min(n_keys, (cache_size * 2**20) // per_row)))


def kernel_diag(kind: int, X: np.ndarray, kparams: tuple[float, float, float],
                Kpre: np.ndarray | None = None) -> np.ndarray:
    """``k(x_a, x_a)`` for every sample, computed by the compiled kernel."""
    X2, sq, kp, K2 = _kernel_arrays(kind, X, kparams, 1.0, Kpre)
    n = K2.shape[0] if kind == 4 else X2.shape[0]
    return _diag(kind, X2, sq, kp, K2, n)


def _kernel_arrays(kind: int, X: np.ndarray | None, kparams: tuple[float, float, float],
                   inv_scale: float, Kpre: np.ndarray | None) -> tuple:
    dummy = np.zeros((1, 1))
    if kind == 4:
        K2 = np.ascontiguousarray(Kpre, dtype=np.float64)
        return dummy, np.zeros(1), np.array([0.0, 0.0, 1.0, inv_scale]), K2
    X2 = np.ascontiguousarray(X, dtype=np.float64)
    sq = np.einsum("ij,ij->i", X2, X2) if kind == 2 else np.zeros(1)
    gamma, coef0, degree = kparams
    return X2, sq, np.array([gamma, coef0, degree, inv_scale]), dummy


def fast_smo(kind: int, X: np.ndarray | None, y: np.ndarray, C: float, tol: float,
             max_iter: int, *, kparams: tuple[float, float, float] = (0.0, 0.0, 1.0),
             Kpre: np.ndarray | None = None, base: np.ndarray | None = None,
             p: np.ndarray | None = None, cache_size: float = DEFAULT_CACHE_MB,
             shrinking: bool = True, verbose: bool = False, scale: float = 1.0,
             report: Callable[[str], None] | None = None) -> FastResult:
    """Solve ``min 1/2 a^T Q a + p^T a``, ``y^T a = 0``, ``0 <= a <= C`` by compiled SMO.

    Parameters
    ----------
    kind : int
        Kernel code (:data:`KERNEL_CODES`); 4 reads ``Kpre``.
    X : ndarray of shape (n, d) or None
        The samples (named kernels).
    y : ndarray of shape (l,)
        Labels ``+-1`` of the variables, in the caller's order (ties go to the lowest
        position, as in :func:`ktheory.svm.smo_solve`).
    C, tol, max_iter
        As :func:`ktheory.svm.smo_solve` (``max_iter`` already an int, ``sys.maxsize``
        for no limit).
    kparams : (gamma, coef0, degree)
    Kpre : ndarray of shape (n, n), optional
        The Gram matrix (``kind=4``).
    base : ndarray of shape (l,), optional
        Sample of each variable (default ``arange(l)``). With ``l = 2n`` variables on
        ``n`` samples (``svr``) the cache keys whole kernel rows by sample.
    p : ndarray of shape (l,), optional
        Linear term (default ``-1``).
    cache_size : float
        MiB of kernel rows to keep.
    shrinking : bool
        libsvm's shrinking heuristic.
    verbose : bool
        Report iterations, the violation, the active set and the cache about once a
        second (and at the end) through ``report`` (default: ``print`` to stdout).
    scale : float
        Divide every kernel value by ``scale`` (the solution is then rescaled back:
        ``K -> K / s, C -> C s, alpha -> alpha s``; see ``_smo._tiny_scale``).
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    l = y.shape[0]
    n = Kpre.shape[0] if kind == 4 else X.shape[0]
    base = np.arange(l, dtype=np.int64) % n if base is None else np.ascontiguousarray(base, dtype=np.int64)
    svr = l != np.unique(base).shape[0]
    inv = 1.0 / scale
    Cs = C * scale
    X2, sq, kp, K2 = _kernel_arrays(kind, X, kparams, inv, Kpre)
    dg = _diag(kind, X2, sq, kp, K2, n) * inv
    QD = np.ascontiguousarray(dg[base])
    const_diag = bool(QD.size) and bool(np.all(QD == QD[0]))
    pv = -np.ones(l) if p is None else np.array(p, dtype=np.float64)
    alpha = np.zeros(l)
    G = pv.copy()
    gbar = np.zeros(l)
    status = np.zeros(l, dtype=np.int8)
    active_set = np.arange(l, dtype=np.int64)
    prob = (base.copy(), y.copy(), pv.copy(), QD, alpha, G, gbar, status, active_set)

    n_keys = n if svr else l
    row_len = n if svr else l
    nslots = _slots(cache_size, row_len, n_keys)
    pool = np.empty((nslots, row_len))
    cache = (pool, np.full(n_keys, -1, dtype=np.int64), np.full(nslots, -1, dtype=np.int64),
             np.zeros(n_keys, dtype=np.int64), np.full(nslots + 1, nslots, dtype=np.int64),
             np.full(nslots + 1, nslots, dtype=np.int64),
             np.arange(nslots, dtype=np.int64)[::-1].copy(),
             np.array([nslots, 0, 0, 0], dtype=np.int64))
    buf = np.empty((2, l)) if svr else np.empty((2, 1))
    ident = np.arange(n, dtype=np.int64) if svr else np.zeros(1, dtype=np.int64)
    ones = np.ones(n) if svr else np.ones(1)
    istate = np.zeros(12, dtype=np.int64)
    hist = np.empty((_HIST_CAP, 3))
    istate[_COUNTER] = min(l, 1000) + 1
    istate[_ACTIVE] = l
    istate[_SVR] = int(svr)
    istate[_SHRINK] = int(bool(shrinking))
    istate[_CONSTD] = int(const_diag)
    fstate = np.array([Cs, tol, np.inf])
    max_iter = min(int(max_iter), sys.maxsize)

    say = report if report is not None else print
    chunk = 20_000 if verbose else max_iter
    last = time.perf_counter()
    while True:
        stop = min(max_iter, istate[_IT] + chunk)
        _solve(stop, max_iter, Cs, tol, kind, X2, sq, kp, K2, prob, cache, buf, ident, ones,
               istate, fstate, hist)
        if istate[_STATUS] != _RUNNING:
            break
        if verbose and time.perf_counter() - last >= 1.0:
            last = time.perf_counter()
            say(_progress(istate, fstate, l, cache))
    stats = _stats(istate, cache, nslots, row_len)
    h = hist[:istate[_NHIST]]
    stats["history"] = {"iteration": h[:, 0].astype(np.int64), "active_size": h[:, 1].astype(np.int64),
                        "violation": h[:, 2].copy()}
    if verbose:
        say(_progress(istate, fstate, l, cache, final=True))

    out_alpha = np.empty(l)
    out_G = np.empty(l)
    out_alpha[active_set] = alpha
    out_G[active_set] = G
    nonfinite = istate[_STATUS] == _NONFINITE
    pos = y > 0
    v = np.where(pos, -out_G, out_G)          # v = -y G
    gap = _violation(out_alpha, v, pos, Cs)
    b, obj = _intercept_and_objective(out_alpha, v, pos, Cs, None if p is None else pv)
    if scale != 1.0:
        out_alpha = out_alpha / scale
        obj = obj / scale
    return FastResult(alpha=out_alpha, grad=out_G, intercept=b, objective=obj,
                      n_iter=int(istate[_IT]), gap=gap,
                      converged=istate[_STATUS] == _CONVERGED, nonfinite=bool(nonfinite),
                      stats=stats)


def _stats(istate: np.ndarray, cache: tuple, nslots: int, row_len: int) -> dict:
    cint = cache[7]
    return {"cache_rows": nslots, "row_length": row_len, "hits": int(cint[_HITS]),
            "misses": int(cint[_MISSES]), "evictions": int(cint[_EVICT]),
            "shrink_steps": int(istate[_NSHRINK]), "unshrinks": int(istate[_NUNSHRINK]),
            "active_size": int(istate[_ACTIVE])}


def _progress(istate: np.ndarray, fstate: np.ndarray, l: int, cache: tuple,
              final: bool = False) -> str:
    cint = cache[7]
    req = int(cint[_HITS] + cint[_MISSES])
    hit = 100.0 * cint[_HITS] / req if req else 0.0
    head = "SMO done:" if final else "SMO"
    return (f"{head} iteration {int(istate[_IT])}, violation {fstate[2]:.3g}, "
            f"active {int(istate[_ACTIVE])}/{l}, cache hits {hit:.1f}%")
