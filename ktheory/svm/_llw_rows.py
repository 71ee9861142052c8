"""Kernel rows on demand for the LLW decomposition solver (solver layer, private).

:class:`KernelRowCache`: rows ``K[idx, :]`` computed in blocks by a callable and kept in
a preallocated store of at most ``cache_mb`` MiB, least recently used rows evicted;
:func:`recompute_h`: ``H = K coef`` from the rows of the support vectors. Used by
:mod:`ktheory.svm._llw_decomp`; imports nothing from the estimators.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["KernelRowCache", "recompute_h"]

_EPS = float(np.finfo(np.float64).eps)


# ---------------------------------------------------------------------------


class KernelRowCache:
    """Kernel rows ``K[idx, :]`` on demand from ``fn(idx) -> (len(idx), n)``, cached.

    Parameters
    ----------
    fn : callable
        ``fn(idx)`` returns the kernel rows of the samples ``idx`` (an integer array)
        against all ``n`` training samples, as a ``(len(idx), n)`` float64 array.
    n : int
        Number of training samples.
    cache_mb : float or None
        Size of the cache in MiB (``8 n`` bytes a row); it always holds at least
        ``min_rows`` rows (one working set). ``None``: no cache (``fn`` is cheap, e.g.
        rows of a Gram matrix held anyway).
    min_rows : int
        Rows the cache must hold at once (the largest block asked for).

    Attributes
    ----------
    capacity : int
        Rows held at most.
    n_computed : int
        Rows computed so far (``fn`` calls times their rows).
    max_block : int
        The most rows ``fn`` was asked for in one call.
    max_abs : float
        The largest ``|K_ij|`` computed so far.
    """

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], n: int,
                 cache_mb: float | None, min_rows: int) -> None:
        self._fn = fn
        self._n = n
        self.n_computed = 0
        self.max_block = 0
        self.max_abs = 0.0
        if cache_mb is None:
            self.capacity = 0
            return
        cap = int(float(cache_mb) * 2**20 // (8 * max(n, 1)))
        self.capacity = int(min(n, max(cap, min_rows)))
        self._store = np.empty((self.capacity, n))
        self._slot = np.full(n, -1, dtype=np.intp)     # sample -> slot (-1: not cached)
        self._owner = np.full(self.capacity, -1, dtype=np.intp)
        self._used = np.zeros(self.capacity, dtype=np.int64)
        self._tick = 0

    def _compute(self, idx: np.ndarray) -> np.ndarray:
        out = np.asarray(self._fn(idx), dtype=np.float64)
        if out.shape != (idx.size, self._n):
            raise ValueError(f"the kernel rows have shape {out.shape}; "
                             f"expected ({idx.size}, {self._n})")
        self.n_computed += idx.size
        self.max_block = max(self.max_block, idx.size)
        if out.size:
            self.max_abs = max(self.max_abs, float(np.max(np.abs(out))))
        return out

    def get(self, idx: np.ndarray) -> np.ndarray:
        """The rows ``K[idx, :]`` (a new array); ``idx`` has at most ``capacity`` distinct
        entries when the cache is on."""
        idx = np.asarray(idx, dtype=np.intp)
        if self.capacity == 0:
            return self._compute(idx)
        self._tick += 1
        uniq = np.unique(idx)
        miss = uniq[self._slot[uniq] < 0]
        if miss.size:
            free = np.flatnonzero(self._owner < 0)[: miss.size]
            r = miss.size - free.size
            if r > 0:        # evict the least recently used rows not asked for now
                used = self._used.copy()
                held = self._slot[uniq]
                used[held[held >= 0]] = np.iinfo(np.int64).max
                used[free] = np.iinfo(np.int64).max      # already taken, free slots
                evict = np.argpartition(used, r - 1)[:r] if r < used.size else np.arange(r)
                self._slot[self._owner[evict]] = -1
                free = np.concatenate([free, evict])
            self._store[free] = self._compute(miss)
            self._owner[free] = miss
            self._slot[miss] = free
        self._used[self._slot[uniq]] = self._tick
        return self._store[self._slot[idx]]

    def rows_iter(self, idx: np.ndarray, block: int):  # noqa: ANN201 (a generator)
        """``(chunk, K[chunk, :])`` over ``idx`` in chunks of at most ``block`` rows."""
        for a in range(0, idx.size, block):
            chunk = idx[a:a + block]
            yield chunk, self.get(chunk)


#: Extended precision where numpy has it (x86: 64-bit significand), else float64.
_LONG = np.longdouble if np.finfo(np.longdouble).eps < _EPS else np.float64
_LONG_EPS = float(np.finfo(_LONG).eps)

#: ``recompute_h`` accumulates in ``_LONG`` when the float64 rounding of ``H`` could
#: exceed this (decision-value units): huge ``C`` on data that are not separable.
_EXTENDED_ABOVE = 1e-12


def recompute_h(cache: KernelRowCache, coef: np.ndarray,
                block: int) -> tuple[np.ndarray, float, float]:
    """``H = K coef`` from the kernel rows of the nonzero rows of ``coef``; the largest
    entry of ``|K| |coef|`` (the scale of its rounding error); and the unit roundoff the
    sum was accumulated with (extended precision where float64 would leave an error
    above ``_EXTENDED_ABOVE``: then the error is that of the kernel values alone, which
    define the problem)."""
    n, k = coef.shape
    sup = np.flatnonzero(np.any(coef != 0, axis=1))
    cabs = np.abs(coef).max(axis=1)
    H = np.zeros((n, k))
    Habs = np.zeros(n)
    extended = False
    for chunk, R in cache.rows_iter(sup, block):
        H += R.T @ coef[chunk]
        Habs += np.abs(R).T @ cabs[chunk]
    habs = float(Habs.max(initial=0.0))
    if 8.0 * _EPS * habs > _EXTENDED_ABOVE and _LONG is not np.float64:
        HL = np.zeros((n, k), dtype=_LONG)
        cL = coef.astype(_LONG)
        for chunk, R in cache.rows_iter(sup, block):
            HL += R.T.astype(_LONG) @ cL[chunk]
        H = (HL - HL.mean(axis=1, keepdims=True)).astype(np.float64)
        extended = True
    else:
        H -= H.mean(axis=1, keepdims=True)
    # sum_j h_j = 0 in the model; the rows of coef sum to 0 only to rounding, which K
    # multiplies by |K| |alpha| (C huge): the centring removes that error
    return H, habs, (_LONG_EPS if extended else _EPS)
