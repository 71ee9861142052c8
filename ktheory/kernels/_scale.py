"""Scale-safe building blocks shared by the vector kernels.

Inputs are rescaled by a power of two ``c`` (exact in floating point) when
their magnitude is extreme, so that squared norms and inner products neither
overflow nor underflow; the scale is put back in one multiplier that may be
``inf`` or ``0`` without producing NaN. :func:`sqdist_rows` and
:func:`exp_neg_scaled` hold the Gaussian exponent ``-gamma ||x - y||^2``: the
only place where it is written.

Distances of the translation-invariant kernels
----------------------------------------------
``k(x + t, y + t) = k(x, y)`` for the Gaussian/RBF and Laplacian kernels, and their
computed values keep this relation to rounding, however far the data lie from the
origin. One specification, used by the kernel functions, the fast path of
``gram_matrix``, the Nystrom features (``ktheory.mercer``) and the compiled SVM solver
(``ktheory.svm``, which is given data centred by :func:`reference_point`):

* the inputs are rescaled exactly by a power of two ``c`` (:func:`scaled_pair`);
* Gaussian/RBF: the rows are centred at one common reference point ``r``, the mean of
  all rows of ``X / c`` and ``Y / c`` (:func:`reference_point`), and
  ``||x - y||^2 = ||x'||^2 + ||y'||^2 - 2 <x', y'>`` with ``x' = x / c - r``,
  ``y' = y / c - r`` (one matrix product), negative rounding residue clipped to 0,
  and exactly 0 on the diagonal when ``Y`` is ``X`` (so ``k(x, x) = 1`` exactly).
  Uncentred, the expansion cancels catastrophically: its error is
  ``eps (||x||^2 + ||y||^2)``, i.e. ``0.07`` in ``||x - y||^2`` for points ``1e7``
  from the origin; centred, it is ``eps (||x'||^2 + ||y'||^2)``, set by the spread
  of the data, not by their position (:func:`sqdist_error`);
* Laplacian: distances from the differences ``x - y`` (``scipy.spatial.distance``),
  whose rounding is relative to ``||x - y||`` itself; the expansion would not do here,
  since ``sqrt`` turns its absolute error ``e`` near ``x = y`` into ``sqrt(e)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import cdist, pdist, squareform

#: Largest Gram block (values) a kernel function or gram_matrix allocates: 2**30 (8 GiB).
MAX_OUTPUT_ELEMENTS = 1 << 30

#: Inputs with ``max |x|`` inside ``[2**-_SAFE_EXP, 2**_SAFE_EXP]`` are used unscaled.
_SAFE_EXP = 400


def check_output_size(n: int, m: int, what: str = "the kernel matrix") -> None:
    """Refuse up front an ``(n, m)`` result larger than ``MAX_OUTPUT_ELEMENTS``."""
    if n * m > MAX_OUTPUT_ELEMENTS:
        raise ValueError(
            f"{what} would have {n} x {m} = {n * m} values, more than the limit "
            f"MAX_OUTPUT_ELEMENTS = {MAX_OUTPUT_ELEMENTS} (8 GiB); compute it in blocks of rows of X"
        )


def pow2_scale(*arrays: np.ndarray) -> float:
    """A power of two ``c`` with ``max |A| / c`` of order 1, or 1.0 when no rescaling is needed."""
    big = 0.0
    for A in arrays:
        if A.size:
            big = max(big, float(A.max()), float(-A.min()))
    if big == 0.0:
        return 1.0
    e = math.frexp(big)[1]  # big = f * 2**e with 0.5 <= f < 1
    if -_SAFE_EXP <= e <= _SAFE_EXP:
        return 1.0
    return math.ldexp(1.0, e - 1)  # max / c in [1, 2); 2**1024 itself would overflow


def scaled_pair(Xa: np.ndarray, Ya: np.ndarray, same: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """``(X / c, Y / c, c)`` with ``c`` from :func:`pow2_scale` (no copy when ``c == 1``)."""
    c = pow2_scale(Xa) if same else pow2_scale(Xa, Ya)
    if c == 1.0:
        return Xa, Ya, 1.0
    Xs = Xa / c
    return Xs, (Xs if same else Ya / c), c


def safe_mul(a: float, b: float) -> float:
    """``a * b`` for non-negative floats with overflow to ``inf`` (never an exception)."""
    with np.errstate(over="ignore"):
        return float(np.float64(a) * np.float64(b))


def safe_div(a: float, b: float) -> float:
    """``a / b`` for positive floats with overflow to ``inf`` and underflow to 0."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.float64(a) / np.float64(b))


def gaussian_multiplier(c: float, *, gamma: float | None = None, sigma: float | None = None) -> float:
    """``gamma * c**2`` (or ``c**2 / (2 sigma**2)``), possibly ``inf`` or 0, never an exception."""
    if sigma is not None:
        t = safe_div(c, sigma)
        return safe_mul(0.5 * t, t)
    assert gamma is not None
    return safe_mul(safe_mul(gamma, c), c)


def squared_norms(A: np.ndarray) -> np.ndarray:
    """Row-wise ``||a||^2``."""
    return np.einsum("ij,ij->i", A, A)


def sqdist_rows(B: np.ndarray, xx: np.ndarray, yy: np.ndarray, r0: int, same: bool) -> None:
    """Turn ``B = X[r0:r1] @ Y.T`` into squared distances ``||x_i - y_j||^2``, in place.

    ``xx`` are the squared norms of the rows of this block, ``yy`` those of
    ``Y``. Negative rounding residue is clipped to 0 and, when ``Y`` is
    ``X``, the diagonal is set to exactly 0. ``-2 <x, y> + (||x||^2 + ||y||^2)``
    is exactly symmetric when ``Y`` is ``X``.
    """
    B *= -2.0
    step = max(1, (1 << 16) // max(1, B.shape[1]))   # row blocks: a 512 KiB temporary
    tmp = np.empty((min(step, B.shape[0]), B.shape[1]))
    for a in range(0, B.shape[0], step):
        rows = B[a:a + step]
        t = tmp[: rows.shape[0]]
        np.add.outer(xx[a:a + step], yy, out=t)      # ||x||^2 + ||y||^2, as one sum
        rows += t
    np.maximum(B, 0.0, out=B)
    if same:
        idx = np.arange(r0, r0 + B.shape[0])
        idx = idx[idx < B.shape[1]]
        B[idx - r0, idx] = 0.0


def exp_neg_scaled(B: np.ndarray, m: float) -> None:
    """``B <- exp(-m * B)`` in place for ``B >= 0`` and ``m`` in ``[0, inf]`` (``0 * inf = 0``)."""
    if math.isinf(m):
        pos = B > 0.0
        B.fill(1.0)
        B[pos] = 0.0
        return
    with np.errstate(over="ignore", under="ignore"):
        B *= -m
        np.exp(B, out=B)


def reference_point(Xs: np.ndarray, Ys: np.ndarray | None = None) -> np.ndarray:
    """The common reference point of the distance specification: the mean of the rows
    of ``Xs`` and ``Ys`` together (of ``Xs`` alone when ``Ys`` is None or ``Xs``).

    Computed without overflow for any finite input (through an exact power-of-two
    rescaling when the values are extreme). ``Xs`` must have at least one row.
    """
    parts = [Xs] if Ys is None or Ys is Xs else [Xs, Ys]
    c = pow2_scale(*parts)
    total = np.zeros(Xs.shape[1])
    rows = 0
    for A in parts:
        total += (A if c == 1.0 else A / c).sum(axis=0)
        rows += A.shape[0]
    total /= rows
    if c != 1.0:
        with np.errstate(over="ignore"):
            total *= c          # |mean| <= max |A|: finite
    return total


def centred_pair(Xs: np.ndarray, Ys: np.ndarray, same: bool,
                 center: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(Xs - r, Ys - r)`` with ``r = center`` (default :func:`reference_point`); when
    ``same``, the second is the very same array as the first (so that ``Xc @ Xc.T`` is
    exactly symmetric). Meant for rescaled inputs (``|value| < 2``: no overflow)."""
    r = reference_point(Xs, None if same else Ys) if center is None else center
    Xc = Xs - r
    return Xc, (Xc if same else Ys - r)


def sqdist_error(Xc: np.ndarray, Yc: np.ndarray | None = None) -> float:
    """A bound on the rounding error of the squared distances the specification gives
    for centred rows ``Xc`` (and ``Yc``): ``(2 d + 7) eps R^2``, ``R = max ||x'||``.

    With ``u = eps / 2`` and ``S = ||x'||^2 + ||y'||^2 <= 2 R^2``: the norms and the
    inner product of ``d`` terms carry at most ``d u`` of their magnitude
    (``|<x', y'>| <= S / 2``), so ``-2 <x', y'>`` and ``||x'||^2 + ||y'||^2`` at most
    ``d u S`` each, the two sums ``3 u S`` more (``||x - y||^2 <= 2 S``): ``(2 d + 3) u S``.
    Centring rounds each coordinate of ``x - r`` by at most ``u |x_k - r_k|``, which
    moves ``||x' - y'||^2`` by at most ``2 ||x' - y'|| u (||x'|| + ||y'||) <= 8 u R^2``.
    Summation order (BLAS blocking, FMA) does not matter to the bound.
    """
    d = Xc.shape[1]
    big = float(np.max(squared_norms(Xc))) if Xc.size else 0.0
    if Yc is not None and Yc is not Xc and Yc.size:
        big = max(big, float(np.max(squared_norms(Yc))))
    eps = float(np.finfo(np.float64).eps)
    with np.errstate(over="ignore"):
        return float((2 * d + 7) * eps * big)


def gaussian_block(Xs: np.ndarray, Ys: np.ndarray, m: float, same: bool) -> np.ndarray:
    """The Gaussian Gram block ``exp(-m ||xs - ys||^2)`` for (rescaled) inputs, with the
    distances of the specification above (centred at :func:`reference_point`)."""
    Xc, Yc = centred_pair(Xs, Ys, same)
    B = Xc @ Yc.T
    xx = squared_norms(Xc)
    yy = xx if same else squared_norms(Yc)
    sqdist_rows(B, xx, yy, 0, same)
    _exact_near_pairs(B, Xs, Ys, m, xx, yy)
    exp_neg_scaled(B, m)
    return B


def _exact_near_pairs(B: np.ndarray, Xs: np.ndarray, Ys: np.ndarray, m: float,
                      xx: np.ndarray, yy: np.ndarray) -> None:
    """Where the expansion's rounding matters to the kernel (``m * err > 1e-8``, ``err`` the
    bound of :func:`sqdist_error`: points far apart against the kernel's width, ``|x|`` of
    ``1e160`` with ``sigma = 1``), recompute the squared distances below ``2 err`` from the
    differences ``xs - ys``: coincident points then get distance 0 and kernel value 1 (the
    expansion leaves them a rounding residue that ``m`` blows up to ``exp(-inf) = 0``).
    Costs nothing in the usual regime, where ``m * err`` is tiny."""
    if not (B.size and m > 0):
        return
    big = max(float(np.max(xx)) if xx.size else 0.0, float(np.max(yy)) if yy.size else 0.0)
    err = (2 * Xs.shape[1] + 7) * float(np.finfo(np.float64).eps) * big
    if not m * err > 1e-8:
        return
    ii, jj = np.nonzero(B <= 2.0 * err)
    for a in range(0, ii.size, 65536):               # bounded temporaries
        i, j = ii[a:a + 65536], jj[a:a + 65536]
        D = Xs[i] - Ys[j]
        B[i, j] = np.einsum("ij,ij->i", D, D)


def distance_block(Xs: np.ndarray, Ys: np.ndarray, same: bool, metric: str) -> np.ndarray:
    """Distances ``||xs - ys||`` (``metric="euclidean"``) or ``||xs - ys||_1``
    (``"cityblock"``) from the differences, exactly symmetric with a zero diagonal
    when ``same`` (``pdist``, each pair once)."""
    if same:
        return squareform(pdist(Xs, metric=metric))
    return cdist(Xs, Ys, metric=metric)


def check_finite_result(K: np.ndarray, what: str, hint: str) -> np.ndarray:
    """Raise ValueError if the kernel values overflowed (one reduction in the common case)."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(K, axis=None)
    if not math.isfinite(float(total)) and not np.all(np.isfinite(K)):
        raise ValueError(f"{what} overflow float64 (|value| > 1.8e308): {hint}")
    return K
