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
* **shrinking** (Joachims 1998; libsvm's rule, Chang and Lin 2011, section 5.1). Every
  ``min(n, 1000)`` iterations the variables at a bound whose gradient says they
  look set to stay there are moved behind the *active set* (a prefix of the permuted
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
``t`` is sample ``base[t]``; the cache holds kernel rows keyed by *position*,
each the prefix of the row over the first ``len`` positions (a row computed
while the active set was short is short); a swap of two positions swaps the
two entries in every cached row, as libsvm's ``Cache::swap_index``. Regression
(``svr=True``, libsvm's ``SVR_Q``): ``2n`` variables on ``n`` samples, the cache
holds whole kernel rows keyed by *sample*, and the row over the ``2n`` variables is gathered from
one of them into one of two buffers. Rows hold kernel values, not ``Q = (y y^T) * K``:
the curvature ``K_ii + K_tt - 2 K_it`` needs no signs, and the gradient step of
``v_t = -y_t grad_t`` is ``-(y_i dalpha_i K_ti + y_j dalpha_j K_tj)``, no sign of ``t``.

Kernel values are kept in float64 (libsvm keeps ``float``): the cache holds half
as many entries per MiB as libsvm's, and the gradient carries no single-precision
error (see Chapter 9's note on libsvm's float cache). A row is computed with the data
held transposed (``d x n``): its inner products are summed feature by feature *across*
the row, each in the features' order, so the loop vectorises without reassociating any
sum; the RBF rows' exponentials are this module's own (:func:`_exp_nonpositive`, within
one unit in the last place, in vectorisable IEEE arithmetic). A linear or RBF kernel value
is thus the same, bit for bit, on every CPU numba compiles for, whatever its vector width
or C library (the portability check's premise, tested); the polynomial and sigmoid
kernels call the C library's ``pow`` and ``tanh``.

One file of about 1100 lines: the compiled functions call one another and share the
layout of the cache and the state arrays, and numba compiles and caches them as one
unit; split, that layout would be described in two places. It imports only the
solver layer's shared rules (:mod:`ktheory.svm._core`).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numba import njit

from ._core import (
    DEFAULT_CACHE_MB,
    intercept_and_objective,
    rounding_floor,
    shares_a_sample,
    violation,
)

__all__ = ["FastResult", "fast_smo", "KERNEL_CODES", "DEFAULT_CACHE_MB"]


#: Whether :func:`fast_smo` has run in this process (its caller, whichever estimator it is,
#: has then paid numba's load: :func:`ktheory.svm._kernel_svm._compiled_pays` reads it).
RAN = [False]

#: Kernel names and their codes in the compiled loop.
KERNEL_CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3, "precomputed": 4}

_TAU = 1e-12
_LOWER, _FREE, _UPPER = 0, 1, 2
# integer state (istate): positions
(_IT, _COUNTER, _ACTIVE, _UNSHRINK, _NEXTBUF, _STATUS, _SVR, _SHRINK, _CONSTD, _NSHRINK,
 _NUNSHRINK, _NHIST, _NRECON) = range(13)
#: Rows of the history (iteration, active set size, violation), one per shrinking check.
_HIST_CAP = 10_000
#: Iterations between two comparisons of the violation with the rounding floor.
FLOOR_CHECK = 1_000_000
# cache counters (cint): positions
_FREETOP, _HITS, _MISSES, _EVICT = range(4)
# status codes
_RUNNING, _CONVERGED, _MAXITER, _NONFINITE = 0, 1, 2, 3


# ---------------------------------------------------------------------------
# kernel values
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _dot(XT: np.ndarray, a: int, b: int) -> float:
    """``<x_a, x_b>`` from the transposed data ``XT`` (``d x n``), summed over the
    features in increasing order: the order in which :func:`_fill` sums a whole row."""
    d = XT.shape[0]
    s = XT[0, a] * XT[0, b]
    for k in range(1, d):
        s += XT[k, a] * XT[k, b]
    return s


@njit(cache=True)
def _sq_norms(XT: np.ndarray) -> np.ndarray:
    """``||x_a||^2`` for every sample, by the sum of :func:`_dot` (so that the squared
    distance of a sample to itself, ``2 ||x||^2 - 2 <x, x>``, is exactly 0)."""
    d, n = XT.shape
    out = np.empty(n)
    for a in range(n):
        out[a] = XT[0, a] * XT[0, a]
    for k in range(1, d):
        row = XT[k]
        for a in range(n):
            out[a] += row[a] * row[a]
    return out


# exp by fdlibm's reduction (x = k ln 2 + r, |r| <= ln(2) / 2, ln 2 in two parts so that
# k ln2_hi is exact) and a degree-14 Taylor polynomial for exp(r) (truncation error below
# 1e-17), without a division, so that the loop vectorises
_INV_LN2 = 1.44269504088896338700e00
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_MAGIC = 6755399441055744.0             # 2**52 + 2**51: k + _MAGIC holds k in its low bits
_MAGIC_BITS = 0x4338000000000000        # the bits of _MAGIC


@njit(cache=True)
def _exp_nonpositive(x: np.ndarray, out: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> None:
    """``out = exp(x)`` for ``x <= 0`` (NaN gives NaN), within one unit in the last place
    of the correctly rounded value (subnormal results included), by plain IEEE
    arithmetic in a fixed order: the same bits on every CPU, whatever its vector width,
    and about twice as fast as the C library's ``exp`` here, because the loops
    vectorise. ``s1``, ``s2``: scratch of ``x``'s length; ``x`` and ``out`` distinct.

    ``exp(x) = exp(r) 2**k``; the power of two is built from its bits, as two factors
    ``2**k1 2**k2`` (``k1 = floor(k / 2)``) that are normal numbers, so that a result in
    the subnormal range is rounded once, by the last product. ``x`` below -746 is -746
    (``exp`` is 0 there in float64) and ``x`` above 710 is 710 (``exp`` overflows to
    ``inf``), which keeps ``k`` finite; a positive ``x`` (no RBF row has one) is thus
    within one unit too, or ``inf``."""
    m = x.shape[0]
    for t in range(m):                       # the two powers of two, as integers + _MAGIC
        xt = x[t]
        xt = -746.0 if xt < -746.0 else (710.0 if xt > 710.0 else xt)
        kf = np.floor(xt * _INV_LN2 + 0.5)
        k1 = np.floor(kf * 0.5)
        s1[t] = k1 + _MAGIC
        s2[t] = (kf - k1) + _MAGIC
    for t in range(m):                       # exp(r)
        xt = x[t]
        xt = -746.0 if xt < -746.0 else (710.0 if xt > 710.0 else xt)
        kf = np.floor(xt * _INV_LN2 + 0.5)
        r = (xt - kf * _LN2_HI) - kf * _LN2_LO
        q = 1.0 / 87178291200.0
        q = q * r + 1.0 / 6227020800.0
        q = q * r + 1.0 / 479001600.0
        q = q * r + 1.0 / 39916800.0
        q = q * r + 1.0 / 3628800.0
        q = q * r + 1.0 / 362880.0
        q = q * r + 1.0 / 40320.0
        q = q * r + 1.0 / 5040.0
        q = q * r + 1.0 / 720.0
        q = q * r + 1.0 / 120.0
        q = q * r + 1.0 / 24.0
        q = q * r + 1.0 / 6.0
        q = q * r + 0.5
        out[t] = 1.0 + (r + (r * r) * q)
    b1 = s1.view(np.int64)
    b2 = s2.view(np.int64)
    for t in range(m):                       # 2**k: the exponent field k + 1023
        b1[t] = (b1[t] - _MAGIC_BITS + 1023) << 52
        b2[t] = (b2[t] - _MAGIC_BITS + 1023) << 52
    for t in range(m):
        out[t] = (out[t] * s1[t]) * s2[t]


@njit(cache=True, inline="always")
def _of_products(kind: int, o: np.ndarray, sq: np.ndarray, a: int, start: int,
                 kp: np.ndarray) -> bool:
    """The named kernel's values from the inner products ``o`` (in place, times ``kp[3]``)
    of sample ``a`` with the samples ``start, start + 1, ...``: the one definition of the
    kernels' functions, for :func:`_fill`'s rows and :func:`gram`'s blocks. For ``"rbf"``
    the squared norms ``sq`` give the distances (clipped at 0), and the sample's own entry
    (``t == a - start``) is exactly 1. False if a value is not finite."""
    gamma = kp[0]
    coef0 = kp[1]
    degree = kp[2]
    inv = kp[3]
    m = o.shape[0]
    ok = True
    if kind == 0 and inv == 1.0:
        for t in range(m):
            if not math.isfinite(o[t]):
                ok = False
        return ok
    if kind == 2:
        # x = -gamma d2 (0 for the sample itself and where d2 <= 0: exp gives exactly 1,
        # also for gamma = inf; a NaN distance stays NaN), then exp(x), vectorised
        sqa = sq[a]
        sqr = sq[start:start + m]
        me = a - start
        w = np.empty(3 * m)
        xs = w[:m]
        for t in range(m):
            d2 = (sqa + sqr[t]) - 2.0 * o[t]
            xs[t] = 0.0 if (t == me or d2 <= 0.0) else -gamma * d2
        _exp_nonpositive(xs, o, w[m:2 * m], w[2 * m:])
        for t in range(m):
            v = o[t] * inv
            o[t] = v
            if not math.isfinite(v):
                ok = False
        return ok
    for t in range(m):
        dt = o[t]
        if kind == 0:
            v = dt
        elif kind == 1:
            v = (gamma * dt + coef0) ** degree
        else:
            v = math.tanh(gamma * dt + coef0)
        v = v * inv
        o[t] = v
        if not math.isfinite(v):
            ok = False
    return ok


@njit(cache=True)
def _fill(kind: int, X: np.ndarray, sq: np.ndarray, kp: np.ndarray, Kpre: np.ndarray,
          ax: int, ak: int, cols: np.ndarray, start: int, stop: int,
          out: np.ndarray) -> bool:
    """``out[t] = k(x, x') / scale`` for ``start <= t < stop``: for a named kernel between
    samples ``ax`` and ``t`` of ``X``, the data *transposed* (``d x n``) and in the
    solver's order, so that a row of the kernel reads each feature's row of ``X`` from
    front to back, for
    ``"precomputed"`` ``Kpre[ak, cols[t]]``, and for kind 5 (a precomputed matrix less a
    rank-one term, :func:`fast_smo`'s ``rank_one``) ``Kpre[ak, c] - h[ak] h[c]``, ``c =
    cols[t]``, with ``h`` passed as ``sq``. False if a value is not finite.

    Each value is computed by the same arithmetic whichever row or part of a row asks for
    it (its inner product summed over the features in order, never reassociated), so a
    row computed twice is the same row, bit for bit, ``K`` is exactly symmetric (a BLAS
    product would round differently by position), and no CPU's vector width changes it.

    ``"rbf"`` follows the distance specification of :mod:`ktheory.kernels` (its
    ``_scale`` module): ``||x||^2 + ||x'||^2 - 2 <x, x'>`` clipped at 0, on the rows
    the caller has centred at their reference point (``KernelSVMBase._solver_rows``), and the
    entry of a sample in its own row exactly 1 (``t == ax``: the same sample in both
    layouts), as the diagonal of :func:`_diag`; the kernels' functions of the inner products
    are :func:`_of_products`."""
    inv = kp[3]
    ok = True
    if kind == 4:
        for t in range(start, stop):
            v = Kpre[ak, cols[t]] * inv
            out[t] = v
            if not math.isfinite(v):
                ok = False
        return ok
    if kind == 5:                       # Kpre - h h', h in sq
        ha = sq[ak]
        for t in range(start, stop):
            c = cols[t]
            v = (Kpre[ak, c] - ha * sq[c]) * inv
            out[t] = v
            if not math.isfinite(v):
                ok = False
        return ok
    # the inner products first, feature by feature: out[t] is the sum over the features
    # in increasing order (the same sum for (a, b) and (b, a), and :func:`_dot`'s); the
    # loop over t is across independent sums, so it vectorises without reordering any
    # (zero-based loops over views: an index the compiler knows is not negative needs no
    # wrap-around test, which would keep the loop from vectorising)
    d = X.shape[0]
    m = stop - start
    o = out[start:stop]
    xa = X[0, ax]
    r = X[0, start:stop]
    for t in range(m):
        o[t] = xa * r[t]
    for f in range(1, d):
        xa = X[f, ax]
        r = X[f, start:stop]
        for t in range(m):
            o[t] += xa * r[t]
    return _of_products(kind, o, sq, ax, start, kp)


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
           istate: np.ndarray) -> int:
    """Kernel values ``K(x_base[i], x_base[t])`` for the positions ``t < length``: row ``r``
    of ``pool`` (classification) or of ``buf`` (SVR), valid until the next-but-one call.
    The row of ``Q`` is ``y_i y_t`` times it; the loops put the signs in where needed.

    The general (slow) path: :func:`_solve` reads cache hits itself, without a call (a
    call that passes arrays costs numba's reference counting, more than a hit)."""
    base = prob[0]
    pool = cache[0]
    if istate[_SVR] == 0:
        s, start = _cache_row(i, length, cache)
        row = pool[s]
        if start < length:
            if not _fill(kind, X, sq, kp, Kpre, i, base[i], base, start, length, row):
                istate[_STATUS] = _NONFINITE
            cache[3][i] = length
        return s
    # SVR: a whole kernel row of sample base[i], then Q_it = y_i y_t K[base_i, base_t]
    a = base[i]
    n = ident.shape[0]
    s, start = _cache_row(a, n, cache)
    krow = pool[s]
    if start < n:
        if not _fill(kind, X, sq, kp, Kpre, a, a, ident, start, n, krow):
            istate[_STATUS] = _NONFINITE
        cache[3][a] = n
    nb = istate[_NEXTBUF]
    istate[_NEXTBUF] = 1 - nb
    out = buf[nb]
    for t in range(length):
        out[t] = krow[base[t]]
    return nb


@njit(cache=True)
def _swap(i: int, j: int, prob: Any, cache: Any, istate: np.ndarray) -> None:
    """Swap positions ``i < j`` of the problem (and of the cache, for classification)."""
    base = prob[0]
    tb = base[i]
    base[i] = base[j]
    base[j] = tb
    for k in range(1, 8):      # y, p, QD, alpha, U, L, G_bar: float64 arrays
        arr = prob[1] if k == 1 else prob[2] if k == 2 else prob[3] if k == 3 else (
            prob[4] if k == 4 else prob[5] if k == 5 else prob[6] if k == 6 else prob[7])
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
    status, active_set = prob[8], prob[9]
    ts = status[i]
    status[i] = status[j]
    status[j] = ts
    ta = active_set[i]
    active_set[i] = active_set[j]
    active_set[j] = ta
    Cv = prob[12]
    tc = Cv[i]
    Cv[i] = Cv[j]
    Cv[j] = tc
    if istate[_SVR] == 0:
        _cache_swap(i, j, cache)
        Xw, sqw = prob[10], prob[11]
        if Xw.shape[1] > j:            # the data (d x n) in the solver's order (named kernels)
            for k in range(Xw.shape[0]):
                tx = Xw[k, i]
                Xw[k, i] = Xw[k, j]
                Xw[k, j] = tx
        if sqw.shape[0] > j:
            tq = sqw[i]
            sqw[i] = sqw[j]
            sqw[j] = tq


# ---------------------------------------------------------------------------
# the solver
#
# The gradient is held as v_t = -y_t grad_t, twice, as in the reference: U_t = v_t for t
# in I_up (else -inf) and L_t = v_t for t in I_low (else +inf). The selection is then a
# branch-free max over U and a pass over L, and a gradient step adds the same change to
# both (-inf and +inf absorb it). Every variable is in I_up or I_low, so v_t is U_t or L_t.
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _v(U: np.ndarray, L: np.ndarray, t: int) -> float:
    u = U[t]
    return u if u != -np.inf else L[t]


@njit(cache=True, inline="always")
def _put_v(U: np.ndarray, L: np.ndarray, y: np.ndarray, status: np.ndarray, t: int,
           v: float) -> None:
    """Store ``v_t`` in ``U`` and/or ``L`` according to ``t``'s index sets."""
    st = status[t]
    if y[t] > 0:
        U[t] = v if st != _UPPER else -np.inf
        L[t] = v if st != _LOWER else np.inf
    else:
        U[t] = v if st != _LOWER else -np.inf
        L[t] = v if st != _UPPER else np.inf


@njit(cache=True)
def _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate) -> None:
    """Rebuild the gradient of the inactive variables (libsvm's ``reconstruct_gradient``)."""
    y, p, alpha, U, L, gbar, status = (prob[1], prob[2], prob[4], prob[5], prob[6], prob[7],
                                       prob[8])
    M = buf if istate[_SVR] != 0 else cache[0]
    l = U.shape[0]
    active = istate[_ACTIVE]
    if active == l:
        return
    istate[_NRECON] += 1
    G = np.empty(l - active)
    for t in range(active, l):
        G[t - active] = gbar[t] + p[t]
    nr_free = 0
    for t in range(active):
        if status[t] == _FREE:
            nr_free += 1
    if nr_free * l > 2 * active * (l - active):
        for i in range(active, l):
            r = _get_q(i, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
            acc = 0.0
            for t in range(active):
                if status[t] == _FREE:
                    acc += alpha[t] * y[t] * M[r, t]
            G[i - active] += y[i] * acc
    else:
        for i in range(active):
            if status[i] == _FREE:
                r = _get_q(i, l, kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
                ai = alpha[i] * y[i]
                for t in range(active, l):
                    G[t - active] += ai * y[t] * M[r, t]
    for t in range(active, l):
        _put_v(U, L, y, status, t, -y[t] * G[t - active])


@njit(cache=True)
def _be_shrunk(t: int, y: np.ndarray, G: float, status: np.ndarray, gmax1: float,
               gmax2: float) -> bool:
    if status[t] == _UPPER:
        if y[t] > 0:
            return -G > gmax1
        return -G > gmax2
    if status[t] == _LOWER:
        if y[t] > 0:
            return G > gmax2
        return G > gmax1
    return False


@njit(cache=True)
def _shrink(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate) -> None:
    """libsvm's ``do_shrinking``: unshrink once when the violation is below ``10 eps``,
    then move the variables that will stay at their bound behind the active set."""
    y, U, L, status = prob[1], prob[5], prob[6], prob[8]
    gmax1 = -np.inf    # max of -y G over I_up
    gmax2 = -np.inf    # max of  y G over I_low
    active = istate[_ACTIVE]
    for t in range(active):
        u = U[t]
        if u > gmax1:
            gmax1 = u
        w = -L[t]
        if w > gmax2:
            gmax2 = w
    if istate[_UNSHRINK] == 0 and gmax1 + gmax2 <= eps * 10.0:
        istate[_UNSHRINK] = 1
        _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
        istate[_ACTIVE] = U.shape[0]
        istate[_NUNSHRINK] += 1
    active = istate[_ACTIVE]
    t = 0
    while t < active:
        if _be_shrunk(t, y, -y[t] * _v(U, L, t), status, gmax1, gmax2):
            active -= 1
            while active > t:
                if not _be_shrunk(active, y, -y[active] * _v(U, L, active), status, gmax1,
                                  gmax2):
                    _swap(t, active, prob, cache, istate)
                    break
                active -= 1
        t += 1
    if active < istate[_ACTIVE]:
        istate[_NSHRINK] += 1
    istate[_ACTIVE] = active


@njit(cache=True)
def _solve(stop_iter, max_iter, eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident,
           istate, fstate, hist) -> None:
    """Run the iteration until convergence, ``max_iter`` updates, a non-finite value, or
    ``stop_iter`` updates (then return with the state saved, status ``_RUNNING``).

    One function, with the working-set selection, the cache hits and the updates written
    out in its loop: numba counts references of the arrays passed to a call (even an
    inlined one), which costs more than a cache hit; the rare paths are calls."""
    base, y, p, QD, alpha, U, L, gbar, status, active_set = prob[:10]
    Cv = prob[12]                      # the upper bound of each variable (libsvm's C_i)
    pool, slot_of, key_of, row_len, prev, nxt, free, cint = cache
    l = U.shape[0]
    n = ident.shape[0]
    svr = istate[_SVR] != 0
    M = buf if svr else pool           # rows of K are read from M[r, :]
    head = prev.shape[0] - 1           # the LRU list's sentinel
    const_diag = istate[_CONSTD] != 0
    recheck = False                    # selecting again after reconstructing the gradient
    while True:
        if not recheck:
            if istate[_IT] >= stop_iter and istate[_IT] < max_iter:
                return
            istate[_COUNTER] -= 1
            if istate[_COUNTER] == 0:
                istate[_COUNTER] = min(l, 1000)
                if istate[_SHRINK] != 0:
                    _shrink(eps, kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
                h = istate[_NHIST]
                if h < hist.shape[0]:
                    hist[h, 0] = istate[_IT]
                    hist[h, 1] = istate[_ACTIVE]
                    hist[h, 2] = fstate[2]
                    istate[_NHIST] = h + 1
        active = istate[_ACTIVE]
        # --- working-set selection (WSS3): i maximises v over I_up ----------------------
        gmax = -np.inf
        i = -1
        for t in range(active):
            u = U[t]
            if u > gmax:
                gmax = u
                i = t
        j = -1
        ri = -1
        gap = -np.inf
        if i >= 0:
            # row i (a cache hit read here; anything else through _get_q)
            if svr:
                a = base[i]
                s = slot_of[a]
                if s >= 0 and row_len[a] >= n:
                    pp = prev[s]
                    qq = nxt[s]
                    nxt[pp] = qq
                    prev[qq] = pp
                    last = prev[head]
                    nxt[last] = s
                    prev[s] = last
                    nxt[s] = head
                    prev[head] = s
                    cint[_HITS] += 1
                    ri = istate[_NEXTBUF]
                    istate[_NEXTBUF] = 1 - ri
                    for t in range(active):
                        buf[ri, t] = pool[s, base[t]]
                else:
                    ri = _get_q(i, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident,
                                istate)
            else:
                s = slot_of[i]
                if s >= 0 and row_len[i] >= active:
                    pp = prev[s]
                    qq = nxt[s]
                    nxt[pp] = qq
                    prev[qq] = pp
                    last = prev[head]
                    nxt[last] = s
                    prev[s] = last
                    nxt[s] = head
                    prev[head] = s
                    cint[_HITS] += 1
                    ri = s
                else:
                    ri = _get_q(i, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident,
                                istate)
            if istate[_STATUS] == _NONFINITE:
                return
            # j maximises b^2 / a over t in I_low with b = m - v_t > 0
            qdi = QD[i]
            gmin = np.inf
            best = 0.0
            for t in range(active):
                v = L[t]
                if v < gmin:
                    gmin = v
                b = gmax - v
                if b > 0.0:                 # a candidate (L_t = +inf never is)
                    a2 = qdi + QD[t] - 2.0 * M[ri, t]
                    if a2 < _TAU:
                        a2 = _TAU
                    bb = b * b
                    if bb > best * a2:      # b^2 / a > best, without a division per t
                        best = bb / a2
                        j = t
            gap = gmax - gmin
        fstate[2] = gap
        if i >= 0 and not (gap < np.inf):     # NaN or inf: the gradient overflowed
            istate[_STATUS] = _NONFINITE
            return
        if gap < eps or j < 0:
            if recheck:
                istate[_STATUS] = _CONVERGED
                return
            # optimal on the active set: rebuild the whole gradient and select again
            _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
            istate[_ACTIVE] = l
            recheck = True
            continue
        if recheck:
            recheck = False
            istate[_COUNTER] = 1               # shrink at the next iteration
        if istate[_IT] >= max_iter:
            istate[_STATUS] = _MAXITER
            _reconstruct(kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
            istate[_ACTIVE] = l
            return
        istate[_IT] += 1
        # --- row j -------------------------------------------------------------------
        if svr:
            a = base[j]
            s = slot_of[a]
            if s >= 0 and row_len[a] >= n:
                pp = prev[s]
                qq = nxt[s]
                nxt[pp] = qq
                prev[qq] = pp
                last = prev[head]
                nxt[last] = s
                prev[s] = last
                nxt[s] = head
                prev[head] = s
                cint[_HITS] += 1
                rj = istate[_NEXTBUF]
                istate[_NEXTBUF] = 1 - rj
                for t in range(active):
                    buf[rj, t] = pool[s, base[t]]
            else:
                rj = _get_q(j, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident,
                            istate)
        else:
            s = slot_of[j]
            if s >= 0 and row_len[j] >= active:
                pp = prev[s]
                qq = nxt[s]
                nxt[pp] = qq
                prev[qq] = pp
                last = prev[head]
                nxt[last] = s
                prev[s] = last
                nxt[s] = head
                prev[head] = s
                cint[_HITS] += 1
                rj = s
            else:
                rj = _get_q(j, active, kind, X, sq, kp, Kpre, prob, cache, buf, ident,
                            istate)
        if istate[_STATUS] == _NONFINITE:
            return
        # --- the two-variable subproblem, libsvm's clipping ----------------------------
        yi = y[i]
        yj = y[j]
        ui_ = U[i]
        uj_ = U[j]
        Gi = -yi * (ui_ if ui_ != -np.inf else L[i])
        Gj = -yj * (uj_ if uj_ != -np.inf else L[j])
        ai_old = alpha[i]
        aj_old = alpha[j]
        ai = ai_old
        aj = aj_old
        Ci = Cv[i]
        Cj = Cv[j]
        quad = QD[i] + QD[j] - 2.0 * M[ri, j]         # K_ii + K_jj - 2 K_ij
        if const_diag:
            if quad < _TAU:
                quad = _TAU
        elif quad <= 0.0:
            quad = _TAU
        if yi != yj:
            delta = (-Gi - Gj) / quad
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
            if diff > Ci - Cj:
                if ai > Ci:
                    ai = Ci
                    aj = Ci - diff
            elif aj > Cj:
                aj = Cj
                ai = Cj + diff
        else:
            delta = (Gi - Gj) / quad
            sm = ai + aj
            ai -= delta
            aj += delta
            if sm > Ci:
                if ai > Ci:
                    ai = Ci
                    aj = sm - Ci
            elif aj < 0.0:
                aj = 0.0
                ai = sm
            if sm > Cj:
                if aj > Cj:
                    aj = Cj
                    ai = sm - Cj
            elif ai < 0.0:
                ai = 0.0
                aj = sm
        alpha[i] = ai
        alpha[j] = aj
        # --- gradient: v_t -= y_t (Q_ti dai + Q_tj daj) = ci K_ti + cj K_tj ------------
        ci = yi * (ai - ai_old)
        cj = yj * (aj - aj_old)
        for t in range(active):
            d = M[ri, t] * ci + M[rj, t] * cj
            U[t] -= d
            L[t] -= d
        # --- index sets of i and j, and G_bar ------------------------------------------
        for k in range(2):
            t = i if k == 0 else j
            at = ai if k == 0 else aj
            st_old = status[t]
            st_new = _UPPER if at >= Cv[t] else (_LOWER if at <= 0.0 else _FREE)
            if st_new == st_old:
                continue
            u = U[t]
            vt = u if u != -np.inf else L[t]
            status[t] = st_new
            yt = y[t]
            if yt > 0:
                U[t] = vt if st_new != _UPPER else -np.inf
                L[t] = vt if st_new != _LOWER else np.inf
            else:
                U[t] = vt if st_new != _LOWER else -np.inf
                L[t] = vt if st_new != _UPPER else np.inf
            if (st_old == _UPPER) != (st_new == _UPPER):
                r = _get_q(t, l, kind, X, sq, kp, Kpre, prob, cache, buf, ident, istate)
                c = -Cv[t] * yt if st_old == _UPPER else Cv[t] * yt
                for q in range(l):
                    gbar[q] += c * y[q] * M[r, q]
        if istate[_STATUS] == _NONFINITE:
            return


@njit(cache=True)
def _diag(kind: int, X: np.ndarray, sq: np.ndarray, kp: np.ndarray, Kpre: np.ndarray,
          n: int) -> np.ndarray:
    """``k(x_a, x_a)`` for every sample (unscaled); exactly 1 for ``"rbf"``
    (``||x - x||^2 = 0``, whatever the magnitude of ``x``)."""
    out = np.empty(n)
    for a in range(n):
        if kind == 4:
            out[a] = Kpre[a, a]
            continue
        if kind == 5:
            out[a] = Kpre[a, a] - sq[a] * sq[a]
            continue
        if kind == 2:
            out[a] = 1.0
            continue
        dt = _dot(X, a, a)
        if kind == 0:
            out[a] = dt
        elif kind == 1:
            out[a] = (kp[0] * dt + kp[1]) ** kp[2]
        else:
            out[a] = math.tanh(kp[0] * dt + kp[1])
    return out


@njit(cache=True)
def _gather_data(X: np.ndarray, rows: np.ndarray, want_sq: bool) -> tuple:
    """The samples ``rows`` of ``X`` (``n x d``) transposed, ``d x len(rows)`` (a private
    copy, the layout :func:`_fill` reads), and their squared norms (``want_sq``; else a
    placeholder)."""
    m = rows.shape[0]
    d = X.shape[1]
    XT = np.empty((d, m))
    for t in range(m):
        r = rows[t]
        for f in range(d):
            XT[f, t] = X[r, f]
    sq = _sq_norms(XT) if want_sq else np.zeros(1)
    return XT, sq


@njit(cache=True)
def _new_state(base: np.ndarray, y: np.ndarray, pv: np.ndarray, QD: np.ndarray,
               Cs: np.ndarray, XT: np.ndarray, sq: np.ndarray, nslots: int, row_len: int,
               n_keys: int, n: int, svr: bool, shrinking: bool, tol: float,
               pool: np.ndarray) -> tuple:
    """The solver's state at ``alpha = 0`` (``v = -y p``: ``I_up = {y = +1}``, ``I_low =
    {y = -1}``): the problem tuple (private copies of the per-variable arrays, which
    shrinking permutes), an empty row cache in ``pool`` (``nslots x row_len``, allocated
    by numpy: a large block gets transparent huge pages there, and numba's own
    allocation of the pool made each SMO step of a 3000-sample problem about 40% slower),
    the buffers, and the integer and float state. One compiled call instead of a score of
    small numpy ones (a one-vs-one fit builds 45 of these)."""
    l = y.shape[0]
    alpha = np.zeros(l)
    U = np.empty(l)
    L = np.empty(l)
    for t in range(l):
        if y[t] > 0:
            U[t] = -pv[t]
            L[t] = np.inf
        else:
            U[t] = -np.inf
            L[t] = pv[t]
    const_diag = True
    for t in range(1, l):
        if QD[t] != QD[0]:
            const_diag = False
    prob = (base.copy(), y.copy(), pv.copy(), QD, alpha, U, L, np.zeros(l),
            np.zeros(l, dtype=np.int8), np.arange(l), XT, sq, Cs.copy())
    cache = (pool, np.full(n_keys, -1), np.full(nslots, -1),
             np.zeros(n_keys, dtype=np.int64), np.full(nslots + 1, nslots),
             np.full(nslots + 1, nslots), np.arange(nslots)[::-1].copy(),
             np.array([nslots, 0, 0, 0]))
    buf = np.empty((2, l)) if svr else np.empty((2, 1))
    ident = np.arange(n) if svr else np.zeros(1, dtype=np.int64)
    istate = np.zeros(13, dtype=np.int64)
    istate[_COUNTER] = min(l, 1000) + 1
    istate[_ACTIVE] = l
    istate[_SVR] = int(svr)
    istate[_SHRINK] = int(shrinking)
    istate[_CONSTD] = int(l > 0 and const_diag)
    fstate = np.array([Cs.max() if l else 0.0, tol, np.inf])
    return prob, cache, buf, ident, istate, fstate, np.empty((_HIST_CAP, 3))


@njit(cache=True)
def _unpermute(active_set: np.ndarray, alpha: np.ndarray, U: np.ndarray, L: np.ndarray,
               y: np.ndarray) -> tuple:
    """``alpha`` and the gradient ``-y v`` back in the caller's order (shrinking permuted
    them; ``active_set[t]`` is the caller's index of position ``t``), and whether every
    gradient entry is finite (a NaN can hide from the selection: NaN > m is false)."""
    l = alpha.shape[0]
    out_alpha = np.empty(l)
    out_G = np.empty(l)
    finite = True
    for t in range(l):
        v = U[t] if U[t] != -np.inf else L[t]
        g = -y[t] * v
        out_alpha[active_set[t]] = alpha[t]
        out_G[active_set[t]] = g
        if not math.isfinite(g):
            finite = False
    return out_alpha, out_G, finite


def _result(y: np.ndarray, p: np.ndarray | None, Cs: np.ndarray, scale: float,
            out_alpha: np.ndarray, out_G: np.ndarray, finite: bool, istate: np.ndarray,
            stats: dict) -> FastResult:
    """The certificate of a run (the maximal violation, libsvm's intercept and the
    objective, by the shared rules of :mod:`ktheory.svm._core`) and its result in the
    caller's units (``alpha / scale``)."""
    nonfinite = istate[_STATUS] == _NONFINITE or not finite
    pos = y > 0
    v = np.where(pos, -out_G, out_G)          # v = -y G
    gap = violation(out_alpha, v, pos, Cs)
    b, obj = intercept_and_objective(out_alpha, v, pos, Cs, p)
    if scale != 1.0:
        out_alpha = out_alpha / scale
        obj = obj / scale
    return FastResult(alpha=out_alpha, grad=out_G, intercept=b, objective=obj,
                      n_iter=int(istate[_IT]), gap=gap,
                      converged=istate[_STATUS] == _CONVERGED and not nonfinite,
                      nonfinite=bool(nonfinite), stats=stats)


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
    XT, sq, kp, K2 = _kernel_arrays(kind, X, kparams, 1.0, Kpre)
    n = K2.shape[0] if kind == 4 else XT.shape[1]
    return _diag(kind, XT, sq, kp, K2, n)


#: Rows of the Gram matrix whose inner products :func:`gram` asks the BLAS for at once.
_GRAM_ROWS = 128


def gram(kind: int, X: np.ndarray, kparams: tuple[float, float, float],
         inv_scale: float = 1.0) -> tuple[np.ndarray, bool]:
    """The whole Gram matrix ``k(X, X) * inv_scale`` of a named kernel (``kind < 4``), for a
    caller that needs every value (:class:`ktheory.csvm.CentralSVC`): the upper triangle by
    blocks of rows, each block's inner products by one matrix product (BLAS) and the
    kernel's function of them in compiled loops, then mirrored (exactly symmetric, each
    value computed once). The function is :func:`_fill`'s: for ``"rbf"`` ``||x||^2 +
    ||x'||^2 - 2 <x, x'>`` clipped at 0, on rows the caller has centred at their reference
    point, with the squared norms of :func:`_sq_norms`, a diagonal of exactly 1 and this
    module's ``exp``. The values agree with :func:`_fill`'s to the rounding of the inner
    products, which the BLAS sums in its own order. Returns ``(K, finite)``; ``finite`` is
    False if a value is NaN or infinite (the caller then computes the matrix another way)."""
    Xf = np.ascontiguousarray(X, dtype=np.float64)
    sq = _sq_norms(np.ascontiguousarray(Xf.T)) if kind == 2 else np.zeros(1)
    kp = np.array([*kparams, inv_scale], dtype=np.float64)
    n = Xf.shape[0]
    K = np.empty((n, n))
    buf = np.empty(min(n, _GRAM_ROWS) * n)   # one buffer for every block's products: a
    finite = True                            # fresh array each would page-fault afresh
    for a0 in range(0, n, _GRAM_ROWS):
        A = Xf[a0:a0 + _GRAM_ROWS]
        P = buf[:A.shape[0] * (n - a0)].reshape(A.shape[0], n - a0)
        np.matmul(A, Xf[a0:].T, out=P)
        finite &= bool(_gram_block(kind, P, a0, sq, kp, K))
    return K, finite


@njit(cache=True)
def _gram_block(kind: int, P: np.ndarray, a0: int, sq: np.ndarray, kp: np.ndarray,
                K: np.ndarray) -> bool:
    """:func:`gram`'s loops for the rows ``a0 <= a < a0 + len(P)``: ``K[a, a:]`` from the
    inner products ``P[a - a0, a - a0:]``, then ``K[t, a] = K[a, t]`` for ``t > a``."""
    n = K.shape[0]
    ok = True
    rows = P.shape[0]
    for r in range(rows):
        a = a0 + r
        out = K[a, a:]
        out[:] = P[r, r:]
        if not _of_products(kind, out, sq, a, a, kp):
            ok = False
    for t in range(a0 + 1, n):
        for r in range(min(rows, t - a0)):
            K[t, a0 + r] = K[a0 + r, t]
    return ok


def _kernel_arrays(kind: int, X: np.ndarray | None, kparams: tuple[float, float, float],
                   inv_scale: float, Kpre: np.ndarray | None,
                   rows: np.ndarray | None = None) -> tuple:
    """The arrays the compiled kernel reads: the data transposed (``d x n``, a private
    copy; of the samples ``rows`` only, in that order, if given), their squared norms
    (``"rbf"``), the parameters, and the Gram matrix (``"precomputed"``)."""
    dummy = np.zeros((1, 1))
    if kind == 4:
        K2 = np.ascontiguousarray(Kpre, dtype=np.float64)
        return dummy, np.zeros(1), np.array([0.0, 0.0, 1.0, inv_scale]), K2
    Xf = np.ascontiguousarray(X, dtype=np.float64)
    idx = np.arange(Xf.shape[0], dtype=np.int64) if rows is None else rows
    XT, sq = _gather_data(Xf, np.ascontiguousarray(idx, dtype=np.int64), kind == 2)
    gamma, coef0, degree = kparams
    return XT, sq, np.array([gamma, coef0, degree, inv_scale]), dummy


def _check_layout(kind: int, X: np.ndarray | None, Kpre: np.ndarray | None, y: np.ndarray,
                  C: float | np.ndarray, p: np.ndarray | None, base: np.ndarray,
                  diag: np.ndarray | None, n: int) -> None:
    """A ``ValueError`` for arguments of the wrong shape: the compiled loops index without
    bounds checks, so a short ``C`` or ``p``, a ``base`` entry outside ``0..n-1`` or data
    without a feature would read or write outside the arrays instead of failing."""
    l = y.shape[0]
    if kind == 4:
        if Kpre is None or Kpre.ndim != 2 or Kpre.shape[0] != Kpre.shape[1]:
            raise ValueError("kind 4 ('precomputed') needs a square Gram matrix Kpre")
    elif X is None or X.ndim != 2 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-D array with at least one feature, got shape "
                         f"{None if X is None else X.shape}")
    if np.ndim(C) not in (0, 1) or (np.ndim(C) == 1 and np.shape(C) != (l,)):
        raise ValueError(f"C must be a number or have shape ({l},), got shape {np.shape(C)}")
    if p is not None and np.shape(p) != (l,):
        raise ValueError(f"p must have shape ({l},), got {np.shape(p)}")
    if base.shape != (l,) or (l and (int(base.min()) < 0 or int(base.max()) >= n)):
        raise ValueError(f"base must hold {l} sample indices in 0..{n - 1}")
    if diag is not None and np.shape(diag) != (n,):
        raise ValueError(f"diag must have shape ({n},), got {np.shape(diag)}")


def fast_smo(kind: int, X: np.ndarray | None, y: np.ndarray, C: float | np.ndarray, tol: float,
             max_iter: int, *, kparams: tuple[float, float, float] = (0.0, 0.0, 1.0),
             Kpre: np.ndarray | None = None, base: np.ndarray | None = None,
             p: np.ndarray | None = None, cache_size: float = DEFAULT_CACHE_MB,
             shrinking: bool = True, verbose: bool = False, scale: float = 1.0,
             report: Callable[[str], None] | None = None,
             diag: np.ndarray | None = None, stall_window: int = 0,
             warm: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
             rank_one: np.ndarray | None = None) -> FastResult:
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
        for no limit); ``C`` may also hold one bound per variable (``(l,)``, libsvm's
        weighted ``C_i``).
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
        second (the loop runs in chunks sized from the last one's rate to take about
        0.1 s) and at the end,
        through ``report`` (default: ``print`` to stdout).
    scale : float
        Divide every kernel value by ``scale`` (the solution is then rescaled back:
        ``K -> K / s, C -> C s, alpha -> alpha s``; see ``_smo.tiny_scale``).
    report : callable, optional
        Where ``verbose`` sends its lines (default ``print``).
    diag : ndarray of shape (n,), optional
        The kernel's (unscaled) diagonal over all ``n`` samples, if the caller has it.
    stall_window : int
        If positive, stop (unconverged, ``stats["stalled"]``) once the violation has not
        halved within this many steps: for a caller that has a better move than SMO's
        pairwise steps where they crawl (face steps: :mod:`ktheory.svm._face`).
    warm : (alpha, grad, gbar), optional
        Start from this feasible ``alpha`` (each entry exactly ``0``, ``C_t`` or
        between), with the gradient ``grad = Q alpha + p`` and ``gbar_t = sum over
        the ``j`` with ``alpha_j = C_j`` of ``C_j Q_tj`` (libsvm's ``G_bar``), all in
        the caller's order and units, instead of ``alpha = 0``. Not for the ``2n``
        layout of SVR.
    rank_one : ndarray of shape (n,), optional
        With ``kind=4``: the kernel is ``Kpre - h h'`` (``h = rank_one``), its rows
        formed as they are read, so that the caller need not hold a second ``n x n``
        array (:class:`ktheory.csvm.CentralSVC`'s projected Gram matrix).
    """
    RAN[0] = True                       # numba's code is loaded by the calls below
    y = np.ascontiguousarray(y, dtype=np.float64)
    l = y.shape[0]
    n = Kpre.shape[0] if kind == 4 else X.shape[0]
    base = np.arange(l, dtype=np.int64) % n if base is None else np.ascontiguousarray(base, dtype=np.int64)
    _check_layout(kind, X, Kpre, y, C, p, base, diag, n)
    svr = shares_a_sample(base, n)
    inv = 1.0 / scale
    # the bounds in the caller's order (for the certificate) and the solver's own copy,
    # permuted with the other per-variable arrays by shrinking
    Cs = (np.full(l, float(C) * scale) if np.ndim(C) == 0
          else np.ascontiguousarray(np.asarray(C, dtype=np.float64) * scale))
    # the data in the solver's (position) order for classification, by sample for SVR
    XT, sq, kp, K2 = _kernel_arrays(kind, X, kparams, inv, Kpre,
                                    None if svr or kind == 4 else base)
    if rank_one is not None:
        if kind != 4 or np.shape(rank_one) != (n,):
            raise ValueError(f"rank_one needs kind=4 and shape ({n},), got kind {kind} and "
                             f"shape {np.shape(rank_one)}")
        kind, sq = 5, np.ascontiguousarray(rank_one, dtype=np.float64)
    if diag is None:
        dg = (_diag(kind, XT, sq, kp, K2, l) if kind < 4 and not svr
              else _diag(kind, XT, sq, kp, K2, n)[base])
    else:
        dg = np.asarray(diag)[base]
    QD = np.ascontiguousarray(dg * inv)
    pv = -np.ones(l) if p is None else np.array(p, dtype=np.float64)
    n_keys = n if svr else l
    row_len = n if svr else l
    nslots = _slots(cache_size, row_len, n_keys)
    # the problem's copy of the squared norms follows the positions (shrinking swaps it);
    # kind 5's h is indexed by sample, as Kpre, and is not swapped
    prob, cache, buf, ident, istate, fstate, hist = _new_state(
        base, y, pv, QD, Cs, XT, np.zeros(1) if kind == 5 else sq, nslots, row_len, n_keys,
        n, svr, bool(shrinking), float(tol), np.empty((nslots, row_len)))
    alpha, U, L, gbar, status, active_set = prob[4:10]
    if warm is not None:
        if svr:
            raise ValueError("a warm start is for the classification layout (one variable "
                             "per sample), not SVR's 2n variables")
        a0, g0, gb0 = (np.asarray(w, dtype=np.float64) for w in warm)
        status[:] = np.where(a0 <= 0.0, _LOWER, np.where(a0 * scale >= Cs, _UPPER, _FREE))
        alpha[:] = np.where(status == _LOWER, 0.0, np.where(status == _UPPER, Cs, a0 * scale))
        v = -y * g0                               # gradient and G_bar: unchanged by scale
        pos = y > 0
        U[:] = np.where(np.where(pos, status != _UPPER, status != _LOWER), v, -np.inf)
        L[:] = np.where(np.where(pos, status != _LOWER, status != _UPPER), v, np.inf)
        gbar[:] = gb0
    max_iter = min(int(max_iter), sys.maxsize)

    say = report if report is not None else print
    # runs of at most FLOOR_CHECK iterations: between them the violation is compared with
    # the rounding level of the gradient (_core.ROUNDING_FLOOR), where SMO stops instead of
    # looping (the numpy path checks it at every iteration)
    chunk = 1000 if verbose else min(max_iter, FLOOR_CHECK)
    if stall_window > 0:
        chunk = min(chunk, stall_window)
    kmax = pmax = None
    floor = 0.0
    last = time.perf_counter()
    window_it, window_gap, stalled = 0, np.inf, False
    while True:
        stop = min(max_iter, istate[_IT] + chunk)
        t0 = time.perf_counter()
        _solve(stop, max_iter, tol, kind, XT, sq, kp, K2, prob, cache, buf, ident,
               istate, fstate, hist)
        if istate[_STATUS] != _RUNNING:
            break
        if kmax is None:
            kmax = float(np.max(np.abs(QD))) if QD.size else 0.0
            pmax = float(np.max(np.abs(pv))) if pv.size else 0.0
        fl = rounding_floor(kmax, pmax, float(alpha.sum()))
        if fstate[2] < fl:
            floor = fl
            break
        if stall_window > 0 and istate[_IT] - window_it >= stall_window:
            if fstate[2] > 0.5 * window_gap:
                stalled = True
                break
            window_it, window_gap = int(istate[_IT]), float(fstate[2])
        if verbose:
            now = time.perf_counter()
            # the next chunk sized from this one's rate to take about 0.1 s
            chunk = int(min(10**8, max(100, chunk * 0.1 / max(now - t0, 1e-4))))
            if now - last >= 1.0:
                last = now
                say(_progress(istate, fstate, l, cache))
    stats = _stats(istate, cache, nslots, row_len)
    h = hist[:istate[_NHIST]]
    stats["history"] = {"iteration": h[:, 0].astype(np.int64), "active_size": h[:, 1].astype(np.int64),
                        "violation": h[:, 2].copy()}
    if verbose:
        say(_progress(istate, fstate, l, cache, final=True))

    if floor > 0:
        stats["floor"] = floor
    if stalled:
        stats["stalled"] = True
    out_alpha, out_G, finite = _unpermute(active_set, alpha, U, L, prob[1])
    return _result(y, None if p is None else pv, Cs, scale, out_alpha, out_G, finite, istate,
                   stats)


def _stats(istate: np.ndarray, cache: tuple, nslots: int, row_len: int) -> dict:
    cint = cache[7]
    return {"cache_rows": nslots, "row_length": row_len, "hits": int(cint[_HITS]),
            "misses": int(cint[_MISSES]), "evictions": int(cint[_EVICT]),
            "shrink_steps": int(istate[_NSHRINK]), "unshrinks": int(istate[_NUNSHRINK]),
            "reconstructions": int(istate[_NRECON]),
            "active_size": int(istate[_ACTIVE])}


def _progress(istate: np.ndarray, fstate: np.ndarray, l: int, cache: tuple,
              final: bool = False) -> str:
    cint = cache[7]
    req = int(cint[_HITS] + cint[_MISSES])
    hit = 100.0 * cint[_HITS] / req if req else 0.0
    head = "SMO done:" if final else "SMO"
    return (f"{head} iteration {int(istate[_IT])}, violation {fstate[2]:.3g}, "
            f"active {int(istate[_ACTIVE])}/{l}, cache hits {hit:.1f}%")
