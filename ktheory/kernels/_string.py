"""The string subsequence kernel of Lodhi et al. (2002), numeric and exact.

Domain of the decay
-------------------
Both paths accept ``lam`` in ``(0, 1]``: a float (numeric path) or an exact
sympy number such as ``Rational(1, 2)`` (exact path). At ``lam = 0`` every
feature vector is zero (and the normalised kernel is 0/0), above 1 the
weights grow with the gaps; both are refused. A sympy *symbol* (or an
expression with free symbols) is accepted by :func:`subsequence_kernel` and
gives the kernel as a polynomial in ``lam``, meant to be evaluated on
``(0, 1]``.

Scale
-----
Every value carries the factor ``lam**(2 n)``. The numeric recursions run on
``k / lam**(2 n)`` (every term a power ``lam**(gaps) <= 1``, the diagonal
``>= 1``), so the normalised kernel never underflows; the unnormalised value
is put back with that factor and an error is raised, never a silent 0, when
it underflows or overflows float64.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Largest ``n * |s| * |t|`` for the exact recursion with an exact number (sympy Rational), pure Python.
MAX_EXACT_WORK = 100_000
#: Largest ``n * |s| * |t|`` for the exact recursion with a symbolic ``lam`` (expression trees grow fast).
MAX_SYMBOLIC_WORK = 600
#: Largest ``|s| * |t|`` of one pair for the numeric recursion (its working arrays).
MAX_PAIR_CELLS = 1 << 24
#: Largest total ``n * sum |s| |t|`` over the pairs of one call (about a minute of work).
MAX_WORK = 1 << 31
#: Largest Gram matrix returned by :func:`subsequence_gram` (values; 1 GiB).
MAX_GRAM_ELEMENTS = 1 << 27

#: Strings up to this length use the matrix-product form of the decay recurrences.
_MATMUL_MAX_LEN = 96
#: Values in one batch's ``(pairs, |s|, |t|)`` arrays of the numeric recursion (within the
#: caller's ``max_elements``): 512 KiB, so that they stay in the CPU's cache (batches of four
#: million values, the former size, took four times as long on the benchmark's strings).
_BATCH_ELEMENTS = 1 << 16
_TINY = float(np.finfo(np.float64).tiny)


def _check_string(s: Any, name: str) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{name} must be a str, got {type(s).__name__} {s!r}")
    return s


def _sympy_basic(lam: Any) -> bool:
    """Whether ``lam`` is a sympy object (without importing sympy when it is not loaded)."""
    sp = sys.modules.get("sympy")
    return sp is not None and isinstance(lam, sp.Basic)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n (subsequence length) must be an integer >= 1, got {type(n).__name__} {n!r}")
    if n < 1:
        raise ValueError(f"n (subsequence length) must be an integer >= 1, got {n!r}")
    return int(n)


def _check_lam(lam: Any, symbolic_ok: bool) -> tuple[Any, bool]:
    """``(lam, exact)``: a float in (0, 1], or (exact path) a sympy number in (0, 1] or a symbolic expression."""
    if _sympy_basic(lam):
        if not symbolic_ok:
            if lam.is_number:
                lam = float(lam) if lam.is_real else lam
            else:
                raise TypeError(f"lam (decay) must be a number in (0, 1] here, got the expression {lam!r}")
        elif lam.free_symbols:
            return lam, True
        elif not lam.is_Float:
            if lam.is_real is not True:
                raise TypeError(f"lam (decay) must be a real number in (0, 1], got {lam!r}")
            if not (bool(lam > 0) and bool(lam <= 1)):
                raise ValueError(f"lam (decay) must lie in (0, 1], got {lam!r}")
            return lam, True
        else:
            lam = float(lam)
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam (decay) must be a real number in (0, 1], got {type(lam).__name__} {lam!r}")
    v = float(lam)
    if not (0.0 < v <= 1.0):
        raise ValueError(f"lam (decay) must lie in (0, 1], got {lam!r}")
    return v, False


def _subsequence_exact(s: str, t: str, n: int, lam: Any) -> Any:
    """The recursion of Lodhi et al. with exact arithmetic (sympy).

    ``Kp[i][a][b] = K'_i(s[:a], t[:b])``; ``Kpp`` is the auxiliary ``K''``.
    """
    p, q = len(s), len(t)
    zero = lam * 0
    one = zero + 1
    Kp_prev = [[one] * (q + 1) for _ in range(p + 1)]  # K'_0 = 1
    for _i in range(1, n):
        Kp = [[zero] * (q + 1) for _ in range(p + 1)]
        for a in range(1, p + 1):
            kpp = zero
            for b in range(1, q + 1):
                kpp = lam * kpp + (lam * lam * Kp_prev[a - 1][b - 1] if s[a - 1] == t[b - 1] else zero)
                Kp[a][b] = lam * Kp[a - 1][b] + kpp
        Kp_prev = Kp
    total = zero
    for a in range(1, p + 1):
        for b in range(1, q + 1):
            if s[a - 1] == t[b - 1]:
                total += lam * lam * Kp_prev[a - 1][b - 1]
    if _sympy_basic(total):
        import sympy

        return sympy.expand(total)
    return total


def _encode(strings: Sequence[str], length: int, fill: int) -> np.ndarray:
    """Integer codes of characters, padded with ``fill`` (which matches nothing)."""
    codes = np.full((len(strings), max(length, 1)), fill, dtype=np.int64)
    for r, s in enumerate(strings):  # one pass per string, not per pair
        if s:
            codes[r, : len(s)] = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    return codes


def _decay_matrix(length: int, lam: float) -> np.ndarray:
    """Upper-triangular ``D[j, b] = lam**(b - j)`` for ``j <= b``: ``u @ D`` solves ``y_b = lam y_{b-1} + u_b``."""
    k = np.arange(length)
    diff = k[None, :] - k[:, None]
    with np.errstate(under="ignore"):
        return np.where(diff >= 0, lam ** np.maximum(diff, 0).astype(np.float64), 0.0)


def _shifted_decay(length: int, lam: float) -> np.ndarray:
    """``M[j, b] = lam**(b - 1 - j)`` for ``j < b`` (else 0): ``u @ M`` is the solution of
    ``y_b = lam y_{b-1} + u_b`` shifted by one place (``0`` at ``b = 0``)."""
    M = np.zeros((length, length))
    M[:, 1:] = _decay_matrix(length, lam)[:, :-1]
    return M


def _subsequence_batch(A: np.ndarray, B: np.ndarray, n: int, lam: float) -> np.ndarray:
    """Scaled kernel values ``k_n(s, t) / lam**(2 n)`` for a batch of string pairs (padded code arrays).

    ``A`` has shape (P, p) and ``B`` (P, q); padding codes differ between A
    and B so padded positions never match (padding at the end does not change
    the kernel). Implements the recursion of Lodhi et al.

        K''_i[a, b] = lam K''_i[a, b-1] + lam^2 [s_a = t_b] K'_{i-1}[a-1, b-1]
        K'_i[a, b]  = lam K'_i[a-1, b] + K''_i[a, b]
        K_n(s, t)   = lam^2 sum_{a, b} [s_a = t_b] K'_{n-1}[a-1, b-1]

    for all pairs at once, with the factor ``lam^2`` of every level taken out
    (so ``K'_i`` is divided by ``lam^(2 i)``: every term is ``lam**(gaps)``).

    Each first-order recurrence ``y_b = lam y_{b-1} + u_b`` along an axis, and the shift
    by one place that follows it, is applied either as one matrix product with the
    shifted triangular decay matrix (short strings: one BLAS call for the
    whole batch; arrays are laid out as (a, pair, b) so both products are single GEMMs) or
    with ``scipy.signal.lfilter`` (long strings: O(length) work per row).
    """
    P, p = A.shape
    q = B.shape[1]
    W = (A.T[:, :, None] == B[None, :, :]).astype(np.float64)  # (p, P, q): [s_a = t_b]
    use_mm = max(p, q) <= _MATMUL_MAX_LEN
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if use_mm:
            Mq = _shifted_decay(q, lam)
            MpT = np.ascontiguousarray(_shifted_decay(p, lam).T)
            Kp = np.ones((p, P, q))
            U = W  # K'_0 = 1
            for _i in range(1, n):
                # K'_i[a-1, b-1]: the decayed sums along b and a, each shifted by one place
                Kp = (MpT @ (U.reshape(p * P, q) @ Mq).reshape(p, P * q)).reshape(p, P, q)
                if _i < n - 1:
                    U = W * Kp
            return np.einsum("apb,apb->p", W, Kp)
        from scipy.signal import lfilter  # here: scipy.signal costs 0.1 s to import

        Kp = np.ones((p, P, q))  # K'_0[a-1, b-1] for a = 1..p, b = 1..q
        for _i in range(1, n):
            Kpp = lfilter([1.0], [1.0, -lam], W * Kp, axis=2)
            Kfull = lfilter([1.0], [1.0, -lam], Kpp, axis=0)
            # K'_i[a-1, b-1]: shift by one along a and b (row and column 0 are zero)
            Kp = np.zeros((p, P, q))
            Kp[1:, :, 1:] = Kfull[:-1, :, :-1]
        return np.einsum("apb,apb->p", W, Kp)


def _shares_subsequence(A: np.ndarray, B: np.ndarray, n: int) -> np.ndarray:
    """Whether each pair of (padded) strings has a common subsequence of length ``n``.

    The recursion of :func:`_subsequence_batch` at ``lam = 1`` with values
    capped at 1 (so it is a logical "exists", immune to overflow).
    """
    P, p = A.shape
    q = B.shape[1]
    W = A.T[:, :, None] == B[None, :, :]
    Kp = np.ones((p, P, q), dtype=np.int64)
    for _i in range(1, n):
        Kfull = np.minimum(np.cumsum(np.cumsum(W * Kp, axis=2), axis=0), 1)
        Kp = np.zeros((p, P, q), dtype=np.int64)
        Kp[1:, :, 1:] = Kfull[:-1, :, :-1]
    return np.einsum("apb,apb->p", W.astype(np.int64), Kp) > 0


def _check_work(pair_cells: int, work: int, what: str) -> None:
    if pair_cells > MAX_PAIR_CELLS:
        raise ValueError(
            f"{what}: one pair of strings needs |s| * |t| = {pair_cells} cells, more than the limit "
            f"MAX_PAIR_CELLS = {MAX_PAIR_CELLS}; split the strings or use shorter ones"
        )
    if work > MAX_WORK:
        raise ValueError(
            f"{what}: the recursion needs n * sum |s| |t| = {work} steps, more than the limit "
            f"MAX_WORK = {MAX_WORK} (hours of computation); use fewer or shorter strings or a smaller n"
        )


def _overflow_error(what: str, n: int, lam: float) -> ValueError:
    return ValueError(
        f"{what} overflow float64 (n = {n}, lam = {lam}): the strings share too many subsequences; "
        "use a smaller lam, a smaller n or shorter strings"
    )


def _unscale(V: np.ndarray, n: int, lam: float, shares: Any, max_len_sum: int) -> np.ndarray:
    """``V * lam**(2 n)``, raising ValueError where a non-zero value underflows (never a silent 0).

    ``shares(idx)`` tells, for the entries ``idx`` with ``V == 0``, whether the
    true value is non-zero (a common subsequence exists); it is asked only when
    the smallest possible term, ``lam**(|s| + |t|)`` times the factor, can
    underflow (``max_len_sum`` bounds ``|s| + |t|``).
    """
    log_f = 2 * n * math.log(lam)
    f = math.exp(log_f)
    if f >= _TINY:
        K = V * f
    else:
        with np.errstate(divide="ignore", under="ignore"):
            K = np.where(V > 0, np.exp(np.log(np.where(V > 0, V, 1.0)) + log_f), 0.0)
    small = K < _TINY
    if np.any(small):
        lost = small & (V > 0)
        can_vanish = math.log(lam) * max_len_sum + log_f < math.log(_TINY)
        cand = np.flatnonzero(small & (V == 0)) if can_vanish else np.zeros(0, dtype=np.intp)
        if cand.size and not np.any(lost):
            lost_cand = shares(cand)
            if np.any(lost_cand):
                lost = np.zeros(V.shape, dtype=bool)
                lost[cand[lost_cand]] = True
        if np.any(lost):
            raise ValueError(
                f"the unnormalized subsequence kernel underflows float64 (n = {n}, lam = {lam}: every value "
                f"carries the factor lam**(2n) = 10^{log_f / math.log(10):.0f}), a non-zero value would be "
                "returned as 0; use normalize=True (computed in a safe scale) or a larger lam"
            )
    return K


def subsequence_kernel(s: str, t: str, n: int, lam: Any) -> Any:
    """String subsequence kernel ``k_n(s, t)`` of :cite:t:`lodhi2002text`.

    ``k_n(s, t) = sum_{u in Sigma^n} sum_{i: s[i] = u} sum_{j: t[j] = u} lam^(l(i) + l(j))``
    where ``l(i) = i_n - i_1 + 1`` is the span of the index sequence ``i``.
    Computed by the ``O(n |s| |t|)`` dynamic programme of Lodhi et al.

    Parameters
    ----------
    s, t : str
        The two strings.
    n : int
        Subsequence length ``>= 1``.
    lam : float in (0, 1], exact sympy number in (0, 1], or sympy expression
        Decay. A float uses the vectorised numeric recursion. An exact sympy
        number (``Rational(1, 2)``, ``Integer(1)``) or a sympy symbol gives the
        exact value, or the exact polynomial in ``lam`` (pure-Python recursion,
        limited to ``n |s| |t| <= MAX_EXACT_WORK`` = 100000 for a number and
        ``MAX_SYMBOLIC_WORK`` = 600 for a symbol). The domain is the same for
        both: ``lam = 0`` and ``lam > 1`` are refused.

    Returns
    -------
    float or sympy expression
        The (unnormalized) kernel value; 0 when either string is shorter than ``n``.

    Raises
    ------
    TypeError
        If ``s`` or ``t`` is not a string, ``n`` is not an integer or ``lam`` is
        not a real number.
    ValueError
        If ``n < 1``, ``lam`` is outside (0, 1], the size exceeds the limits
        (``MAX_EXACT_WORK``, ``MAX_SYMBOLIC_WORK``, ``MAX_PAIR_CELLS``, ``MAX_WORK``; the message gives
        the size and the limit), or the value over- or underflows float64.

    Examples
    --------
    >>> import sympy as sp
    >>> lam = sp.Symbol("lambda")
    >>> subsequence_kernel("cat", "car", 2, lam)
    lambda**4
    >>> subsequence_kernel("cat", "car", 2, 0.5)
    0.0625
    """
    _check_string(s, "s")
    _check_string(t, "t")
    n = _check_n(n)
    lam, exact = _check_lam(lam, symbolic_ok=True)
    if exact:
        work = n * len(s) * len(t)
        symbolic = bool(lam.free_symbols)
        limit = MAX_SYMBOLIC_WORK if symbolic else MAX_EXACT_WORK
        if work > limit:
            raise ValueError(
                f"the exact (sympy) recursion for strings of lengths {len(s)} and {len(t)} with n = {n} needs "
                f"n * |s| * |t| = {work} steps, more than the limit "
                f"{'MAX_SYMBOLIC_WORK' if symbolic else 'MAX_EXACT_WORK'} = {limit}; "
                "pass a float lam for the numeric recursion"
            )
        return _subsequence_exact(s, t, n, lam)
    if len(s) < n or len(t) < n:
        return 0.0
    _check_work(len(s) * len(t), n * len(s) * len(t), "subsequence_kernel")
    A = _encode([s], len(s), -1)
    B = _encode([t], len(t), -2)
    V = _subsequence_batch(A, B, n, lam)
    if not np.all(np.isfinite(V)):
        raise _overflow_error("the subsequence kernel value would", n, lam)
    K = _unscale(V, n, lam, lambda idx: _shares_subsequence(A, B, n)[idx], len(s) + len(t))
    return float(K[0])


def _pairs_kernel(S: list[str], T: list[str], I: np.ndarray, J: np.ndarray, n: int, lam: float,
                  max_elements: int, exists: bool = False) -> np.ndarray:
    """Scaled kernel values (or, with ``exists``, common-subsequence flags) for the pairs ``(S[I[k]], T[J[k]])``.

    Each string is encoded once; pairs are sorted by their lengths and
    processed in chunks padded to the chunk's longest strings, so that one
    chunk's ``(pairs, |s|, |t|)`` arrays hold at most ``max_elements`` values.
    """
    out = np.zeros(len(I), dtype=bool if exists else np.float64)
    if len(I) == 0:
        return out
    ls_all = np.array([len(x) for x in S])
    lt_all = ls_all if T is S else np.array([len(x) for x in T])
    CS = _encode(S, int(ls_all.max()), -1)
    CT = _encode(T, int(lt_all.max()), -2)
    ls, lt = ls_all[I], lt_all[J]
    keep = np.flatnonzero((ls >= n) & (lt >= n))  # shorter strings have k_n = 0
    order = keep[np.lexsort((lt[keep], ls[keep]))]
    start = 0
    while start < len(order):
        p = int(ls[order[start]])
        q_max = int(lt[order[start:]].max())
        size = max(1, min(max_elements, _BATCH_ELEMENTS) // max(1, p * q_max))
        chunk = order[start : start + size]
        p = int(ls[chunk].max())
        q = int(lt[chunk].max())
        A, B = CS[I[chunk], :p], CT[J[chunk], :q]
        out[chunk] = _shares_subsequence(A, B, n) if exists else _subsequence_batch(A, B, n, lam)
        start += len(chunk)
    return out


def _subsequence_features(codes: np.ndarray, n: int, lam: float, n_symbols: int) -> np.ndarray:
    """Scaled explicit feature vectors ``phi_n(s) / lam**n`` in ``R^(n_symbols^n)`` for padded code rows.

    ``F_k[a]`` collects the subsequences of length ``k`` whose last index is
    ``a``, weighted by ``lam^(a - i_1 + 1 - k)`` (``lam`` to the number of gaps):

        F_1[a] = e_{s_a},    F_k[a] = (sum_{a' < a} lam^(a - a' - 1) F_{k-1}[a']) (x) e_{s_a},

    and ``phi_n(s) / lam^n = sum_a F_n[a]``. ``codes`` (shape (N, L)) holds symbol
    indices in ``0..n_symbols-1`` and ``-1`` for padding. Arrays are laid out
    as (position, string, feature) so each decayed sum is a single GEMM.
    """
    N, L = codes.shape
    onehot = (codes.T[:, :, None] == np.arange(n_symbols)[None, None, :]).astype(np.float64)  # (L, N, A)
    if n == 1:
        return onehot.sum(axis=0)
    k = np.arange(L)
    diff = k[:, None] - k[None, :]  # a - a'
    with np.errstate(under="ignore"):
        MsT = np.where(diff > 0, lam ** np.maximum(diff - 1, 0).astype(np.float64), 0.0)  # [a, a'], a' < a
    F = onehot  # F_1, shape (L, N, D) with D = A
    for _k in range(2, n + 1):
        D = F.shape[2]
        G = (MsT @ F.reshape(L, N * D)).reshape(L, N, D)  # decayed sums over earlier positions
        if _k < n:
            F = (G[:, :, :, None] * onehot[:, :, None, :]).reshape(L, N, D * n_symbols)
        else:  # the last level only needs the sum over positions: phi = sum_a G[a] (x) e_{s_a}
            return np.matmul(G.transpose(1, 2, 0), onehot.transpose(1, 0, 2)).reshape(N, D * n_symbols)
    raise AssertionError("unreachable")  # pragma: no cover


def _feature_gram(S: list[str], T: list[str] | None, n: int, lam: float, max_elements: int):
    """Scaled Gram matrix (``/ lam**(2n)``) through explicit features when ``alphabet^n`` is small, else None.

    Returns ``(K, diag_S, diag_T)``. The cost is linear in the number of strings
    (features) plus one matrix product, instead of one DP per pair.
    """
    strings = S if T is None else S + list(T)
    alphabet = sorted(set("".join(strings)))
    A = max(len(alphabet), 1)
    L = max(max(len(x) for x in strings), 1)
    if n * math.log(A) > math.log(4096) or len(strings) * L * A**n > max_elements:
        return None
    index = {c: i for i, c in enumerate(alphabet)}
    codes = np.full((len(strings), L), -1, dtype=np.int64)
    for r, x in enumerate(strings):  # one pass per string
        codes[r, : len(x)] = [index[c] for c in x]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Phi = _subsequence_features(codes, n, lam, A)
        PS = Phi[: len(S)]
        if T is None:
            K = PS @ PS.T
            d = np.einsum("ij,ij->i", PS, PS)
            return K, d, d
        PT = Phi[len(S):]
        return PS @ PT.T, np.einsum("ij,ij->i", PS, PS), np.einsum("ij,ij->i", PT, PT)


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def subsequence_gram(
    S: Sequence[str],
    T: Sequence[str] | None = None,
    *,
    n: int,
    lam: float,
    normalize: bool = True,
    max_elements: int = 1 << 22,
) -> np.ndarray:
    """Gram matrix of the string subsequence kernel for lists of strings.

    All pairs are computed together in batches (strings of similar length are
    padded to a common length), so the cost is that of a few vectorized
    array passes per batch rather than a Python loop per pair.

    Parameters
    ----------
    S : sequence of str
        First list of strings.
    T : sequence of str, optional
        Second list; ``None`` means ``S`` (only the upper triangle is computed).
    n : int
        Subsequence length ``>= 1``.
    lam : float in (0, 1]
        Decay (an exact sympy number in (0, 1] is converted to float).
    normalize : bool, default True
        Return ``k(s, t) / sqrt(k(s, s) k(t, t))``, the cosine of the angle
        between the feature vectors, in [0, 1]; computed on ``k / lam**(2n)``
        so it never underflows. A string shorter than ``n`` has the zero
        feature vector, for which the cosine is 0/0; the convention here is
        that such a string is similar only to itself: its normalized value is
        1 with an identical string and 0 with any other (as if it had its own
        unit feature). The normalized Gram matrix is then a valid kernel
        matrix with unit diagonal. Values outside [0, 1] beyond rounding raise
        an error (they would reveal a numerical failure); rounding excess is
        then clipped.
    max_elements : int
        Working-memory budget: at most this many float64 values in one batch's
        ``(pairs, |s|, |t|)`` arrays (the pair recursion's batches are at most
        65536 values in any case, sized for the CPU's cache; a single pair of
        longer strings is one batch).

    Returns
    -------
    numpy.ndarray of shape (len(S), len(T))

    Raises
    ------
    TypeError
        If an item is not a string, or a parameter has the wrong type.
    ValueError
        If a list is empty, ``n < 1``, ``lam`` is outside (0, 1], the size
        exceeds the limits (``MAX_GRAM_ELEMENTS``, ``MAX_PAIR_CELLS``,
        ``MAX_WORK``; the message gives the size and the limit), or the
        unnormalized values over- or underflow float64.

    Examples
    --------
    >>> subsequence_gram(["cat", "car", "a"], n=2, lam=0.5).round(4)
    array([[1.    , 0.4444, 0.    ],
           [0.4444, 1.    , 0.    ],
           [0.    , 0.    , 1.    ]])
    """
    n = _check_n(n)
    lam, _ = _check_lam(lam, symbolic_ok=False)
    normalize = _check_bool(normalize, "normalize")
    if isinstance(max_elements, bool) or not isinstance(max_elements, numbers.Integral):
        raise TypeError(f"max_elements must be a positive integer, got {type(max_elements).__name__}")
    if max_elements < 1:
        raise ValueError(f"max_elements must be a positive integer, got {max_elements!r}")
    if isinstance(S, str) or (T is not None and isinstance(T, str)):
        raise TypeError("S and T must be sequences of strings, not a single string")
    S = [_check_string(s, f"S[{i}]") for i, s in enumerate(S)]
    same = T is None
    T = S if same else [_check_string(t, f"T[{j}]") for j, t in enumerate(T)]
    if len(S) == 0 or len(T) == 0:
        raise ValueError("S and T must contain at least one string")
    if len(S) * len(T) > MAX_GRAM_ELEMENTS:
        raise ValueError(
            f"the Gram matrix would have {len(S)} x {len(T)} = {len(S) * len(T)} values, more than the limit "
            f"MAX_GRAM_ELEMENTS = {MAX_GRAM_ELEMENTS}"
        )
    max_elements = int(max_elements)
    feats = _feature_gram(S, None if same else T, n, lam, max_elements)
    if feats is not None:
        K, ds, dt = feats
    else:
        ds = dt = np.zeros(0)
        ls = np.array([len(x) for x in S], dtype=np.int64)
        lt = ls if same else np.array([len(x) for x in T], dtype=np.int64)
        ls_ok, lt_ok = ls[ls >= n], lt[lt >= n]
        if ls_ok.size and lt_ok.size:
            if same:
                pair_sum = (int(ls_ok.sum()) ** 2 + int((ls_ok**2).sum())) // 2
            else:
                pair_sum = int(ls_ok.sum()) * int(lt_ok.sum())
            _check_work(int(ls_ok.max()) * int(lt_ok.max()), n * pair_sum, "subsequence_gram")
        if same:
            I, J = np.triu_indices(len(S))
        else:
            I, J = (a.ravel() for a in np.meshgrid(np.arange(len(S)), np.arange(len(T)), indexing="ij"))
        vals = _pairs_kernel(S, T, I, J, n, lam, max_elements)
        K = np.zeros((len(S), len(T)))
        K[I, J] = vals
        if same:
            K[J, I] = vals
            ds = dt = np.diag(K).copy()
        elif normalize:
            idx_s, idx_t = np.arange(len(S)), np.arange(len(T))
            ds = _pairs_kernel(S, S, idx_s, idx_s, n, lam, max_elements)
            dt = _pairs_kernel(T, T, idx_t, idx_t, n, lam, max_elements)
    if not (np.all(np.isfinite(K)) and np.all(np.isfinite(ds)) and np.all(np.isfinite(dt))):
        raise _overflow_error("subsequence kernel values (even divided by lam**(2n))", n, lam)
    if not normalize:
        def shares(idx: np.ndarray) -> np.ndarray:
            I_, J_ = np.unravel_index(idx, K.shape)
            return _pairs_kernel(S, T, I_, J_, n, lam, max_elements, exists=True)

        max_len_sum = max(len(x) for x in S) + max(len(x) for x in T)
        return _unscale(K, n, lam, shares, max_len_sum)
    return _normalize(K, ds, dt, S, T, n, lam)


def _normalize(K: np.ndarray, ds: np.ndarray, dt: np.ndarray, S: list[str], T: list[str], n: int,
               lam: float) -> np.ndarray:
    """Cosine normalisation with the documented convention for zero feature vectors."""
    ok_s, ok_t = ds > 0, dt > 0  # a string of length >= n has a scaled diagonal >= 1
    denom = np.sqrt(np.outer(np.where(ok_s, ds, 1.0), np.where(ok_t, dt, 1.0)))
    Kn = K / denom
    zero_s, zero_t = np.flatnonzero(~ok_s), np.flatnonzero(~ok_t)
    Kn[zero_s, :] = 0.0
    Kn[:, zero_t] = 0.0
    if zero_s.size and zero_t.size:
        where_t: dict[str, list[int]] = {}
        for j in zero_t:
            where_t.setdefault(T[j], []).append(int(j))
        for i in zero_s:
            for j in where_t.get(S[i], ()):
                Kn[i, j] = 1.0
    lo, hi = float(Kn.min()), float(Kn.max())
    if lo < -1e-12 or hi > 1.0 + 1e-12:
        raise ValueError(
            f"normalized subsequence kernel values lie in [{lo!r}, {hi!r}], outside [0, 1] beyond rounding "
            f"(n = {n}, lam = {lam}): a numerical failure, not a valid result"
        )
    np.clip(Kn, 0.0, 1.0, out=Kn)
    return Kn
