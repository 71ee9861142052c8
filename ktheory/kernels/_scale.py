"""Scale-safe building blocks shared by the vector kernels.

Inputs are rescaled by a power of two ``c`` (exact in floating point) when
their magnitude is extreme, so that squared norms and inner products neither
overflow nor underflow; the scale is put back in one multiplier that may be
``inf`` or ``0`` without producing NaN. :func:`sqdist_rows` and
:func:`exp_neg_scaled` hold the Gaussian exponent ``-gamma ||x - y||^2``: the
only place where it is written.
"""

from __future__ import annotations

import math

import numpy as np

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


def gaussian_block(Xs: np.ndarray, Ys: np.ndarray, m: float, same: bool) -> np.ndarray:
    """The Gaussian Gram block ``exp(-m ||xs - ys||^2)`` for (rescaled) inputs."""
    B = Xs @ Ys.T
    xx = squared_norms(Xs)
    yy = xx if same else squared_norms(Ys)
    sqdist_rows(B, xx, yy, 0, same)
    exp_neg_scaled(B, m)
    return B


def check_finite_result(K: np.ndarray, what: str, hint: str) -> np.ndarray:
    """Raise ValueError if the kernel values overflowed (one reduction in the common case)."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(K, axis=None)
    if not math.isfinite(float(total)) and not np.all(np.isfinite(K)):
        raise ValueError(f"{what} overflow float64 (|value| > 1.8e308): {hint}")
    return K
