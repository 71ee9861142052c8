"""Kernel alignment: KTA, centering, CKA, HSIC and alignment-based kernel learning.

This module accompanies Chapter 12 of *Kernel Theory*. Every function takes
Gram (kernel) matrices (NumPy arrays, or arrays of other libraries: see below), except ``linear_cka``, which works
directly with feature matrices and never forms an ``n x n`` matrix,
``minibatch_cka``, which takes feature matrices and forms only
``batch_size x batch_size`` Gram matrices, ``minibatch_cka_batches``, the
same from a stream of ``(X_i, Y_i)`` batches, and ``kta_deviation_bound``,
which takes a sample size and a probability.

The module stays one file although it is long (about 1600 lines): it is Chapter 12's
toolbox, and its measures (KTA, CKA, HSIC), the kernel-learning weights and the tests all
share the same centring, norms and degenerate-input rules written once at its top; the
array-API versions of the measures sit at its end, beside the numpy ones they mirror.

Arrays of other libraries
-------------------------
``center_kernel``, ``kta``, ``cka``, ``linear_cka``, ``hsic`` (biased and unbiased),
``minibatch_cka`` and ``minibatch_cka_batches`` accept any array that ``array-api-compat``
supports (array-api-strict, Dask, torch, JAX, CuPy) and compute in that array's namespace,
on its device and in its floating dtype (float32 stays float32; integers become the
device's default float); only the scalar result crosses to the host, as a Python float
(``center_kernel`` returns an array of the input's namespace and device). The validation
is the same (NaN/inf, shapes, symmetry, the argument named in the error), done on the
device: non-finite values are found through ``max``/``min`` (NaN propagates), the
symmetry on row panels. NumPy input (and lists) takes the numpy code as before, in
float64. Arrays of two libraries (numpy included) or two devices are refused. On a Dask
array ``linear_cka`` is a graph over row chunks (two passes: column statistics, then
the centred ``d x d`` cross-products summed over chunks), so rows that do not fit in
memory are fine; the other functions build Dask graphs of their ``n x n`` operations.

float32
-------
On float32 input of another library than numpy the functions compute in float32 and
centre before any cross-product: the column means are summed pairwise (error
``log2(n) eps`` rather than the ``n eps`` of a sequential sum), subtracted (exactly, when
the offset dominates), and the small remaining mean of the shifted block is removed from
the products (a correction of rounding size, not the catastrophic ``X^T X - n m m^T``).
``linear_cka`` then agrees with float64 on the same data to ``1e-5`` for ``n`` up to
``10**6`` rows and feature means ``10**4`` times their standard deviation (tested). Gram
matrices are centred by columns, then rows, then columns again; a float32 Gram matrix
carries the rounding of its own entries, which no centring undoes.

Conventions
-----------
* ``H = I - 11^T / n`` is the centering matrix; ``center_kernel(K) = H K H``.
* Kernel-target alignment (Cristianini et al., 2002):
  ``kta(K1, K2) = <K1, K2>_F / (||K1||_F ||K2||_F)``.
* Centered kernel alignment (Cortes, Mohri and Rostamizadeh, 2012):
  ``cka(K1, K2) = kta(H K1 H, H K2 H)``.
* Biased HSIC (Gretton et al., 2005): ``tr(K H L H) / (n - 1)^2``.
  Unbiased HSIC: the estimator of Song et al. (2012), Theorem 2.

Degenerate input
----------------
A matrix whose (centered) Frobenius norm is numerically zero (a constant
kernel, for instance, has ``H K H = 0``) makes an alignment a ratio 0/0.
The functions here raise ``ValueError`` naming the argument in that case;
they never return ``nan``. "Numerically zero" means a Frobenius norm at most
``100 * n * eps * max|K|`` (for feature matrices
``100 * sqrt(n * d) * eps * max|X|``), the size of the rounding error of
the centering itself (``eps`` of the
input's dtype: float32 Gram matrices are judged at float32 rounding level).

Complex, float32 and extreme-scale input
----------------------------------------
Complex matrices are refused with a ``TypeError``. Symmetry is checked to
the tolerance of the input's dtype (``1e-10`` relative for float64, about
``1.2e-5`` for float32, so a float32 Gram matrix computed blockwise or on a
GPU is accepted). The scale-invariant quantities (``kta``, ``cka``,
``linear_cka``, alignment weights) are computed on inputs rescaled exactly by
a power of two, so ``kta(1e200 K, K)`` and ``kta(1e-160 K, K)`` equal
``kta(K, K)``, and results lie in ``[-1, 1]`` (``[0, 1]`` for ``linear_cka``);
``hsic`` is rescaled and the scale put back, with an error if the value
itself overflows float64.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import itertools
import math

import numpy as np
from scipy.linalg.blas import dsyrk
from scipy.optimize import nnls

from . import _xp
from ._xp import as_float, block_sum, check_shape, colsum, host_floats, realize, scale_pow2, to_namespace
from ._validation import (
    check_array,
    check_positive,
    check_square_matrix,
    check_symmetric,
    floating_dtype,
)

__all__ = [
    "center_kernel",
    "kta",
    "cka",
    "linear_cka",
    "hsic",
    "ideal_kernel",
    "align_weights",
    "alignf_weights",
    "kta_deviation_bound",
    "minibatch_cka",
    "minibatch_cka_batches",
    "hsic_permutation_test",
    "HSICTestResult",
]

_EPS = np.finfo(np.float64).eps
#: Largest ideal kernel (values) built from labels: 2**30 (8 GiB).
_MAX_IDEAL_ELEMENTS = 1 << 30


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _max_abs(A: np.ndarray) -> float:
    """``max|A|`` without allocating ``|A|``."""
    return float(max(A.max(), -A.min())) if A.size else 0.0


def _pow2_unit(A: np.ndarray, m: float | None = None) -> float:
    """The power of two ``c`` with ``max|A| / c`` in ``[1, 2)`` (1.0 for a zero array); scaling by it is exact.
    ``m``: ``max|A|`` if the caller has it."""
    m = _max_abs(A) if m is None else m
    if m == 0.0 or not math.isfinite(m):
        return 1.0
    return math.ldexp(1.0, math.frexp(m)[1] - 1)


#: Inputs with ``max|A|`` in ``[2**-300, 2**300]`` are used as they are (no copy); others are rescaled.
_SAFE_EXP = 300


def _unit(A: np.ndarray, m: float | None = None) -> tuple[np.ndarray, float]:
    """``(A / c, c)`` with ``c`` from :func:`_pow2_unit` (exact) when ``max|A|`` is extreme, else ``(A, 1.0)``.

    Within ``2**+-300`` the squares and sums of ``n**2`` entries can neither overflow nor underflow, so
    the common case costs no copy. ``m``: ``max|A|`` if the caller has it.
    """
    c = _pow2_unit(A, m)
    if -_SAFE_EXP <= math.frexp(c)[1] - 1 <= _SAFE_EXP:
        return A, 1.0
    return A / c, c


def _eps(X: Any) -> float:
    """Machine epsilon of the input's floating dtype (float64 unless the input is float32/float16)."""
    return float(np.finfo(floating_dtype(X)).eps)


#: Rows per block of :func:`_center` (256 KiB of float64 at n = 512, 2 MiB at n = 4096).
_CENTER_ROWS = 64


def _center(K: np.ndarray) -> np.ndarray:
    """``H K H`` for a validated square float array, in O(n^2) from means.

    In blocks of rows, each read from memory once per pass while it is in cache: one pass
    for the row sums and the column sums together, one for ``K - col - row``."""
    n = K.shape[0]
    b = _CENTER_ROWS
    col = np.zeros(n, dtype=K.dtype)
    row = np.empty(n, dtype=K.dtype)
    for i in range(0, n, b):
        blk = K[i:i + b]
        np.add.reduce(blk, axis=1, out=row[i:i + b])
        col += np.add.reduce(blk, axis=0)
    col /= n
    row /= n
    row -= float(col.mean())            # row mean minus grand mean
    Kc = np.empty_like(K)
    for i in range(0, n, b):
        out = Kc[i:i + b]
        np.subtract(K[i:i + b], col[None, :], out=out)
        out -= row[i:i + b, None]
    return Kc


def _kernel_matrix(K: Any, name: str, *, symmetric: bool = True, min_n: int = 1) -> np.ndarray:
    """Validate a finite square (symmetric) kernel matrix with at least ``min_n`` rows.

    Symmetry is judged at the rounding level of the input's dtype (float32: ``100 eps``).
    """
    Ka = check_square_matrix(K, name)
    if Ka.shape[0] < min_n:
        raise ValueError(f"{name} must have at least {min_n} rows and columns; got shape {Ka.shape}")
    if symmetric:
        check_symmetric(Ka, name, dtype=floating_dtype(K))
    return Ka


def _gram_fro_norm(A: np.ndarray) -> float:
    """``||A^T A||_F`` using the symmetric rank-k update (half the flops of ``A.T @ A``)."""
    S = dsyrk(1.0, A.T, trans=0)  # upper triangle of A^T A; A.T is Fortran-ordered, no copy
    up = np.triu(S)
    return float(np.sqrt(max(2.0 * np.vdot(up, up) - np.vdot(np.diag(S), np.diag(S)), 0.0)))


def _paired_samples(X: Any, Y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two finite real 2-D representations of the same samples (equal numbers of rows)."""
    Xa = check_array(X, "X")
    Ya = check_array(Y, "Y")
    if Xa.shape[0] != Ya.shape[0]:
        raise ValueError(
            f"X and Y must describe the same samples (same number of rows); "
            f"got X.shape={Xa.shape} and Y.shape={Ya.shape}"
        )
    return Xa, Ya


def _same_size(K1: np.ndarray, K2: np.ndarray, names: tuple[str, str]) -> None:
    if K1.shape != K2.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must be Gram matrices of the same sample, i.e. of the same "
            f"shape; got {names[0]}.shape={K1.shape} and {names[1]}.shape={K2.shape}"
        )


def _check_nonzero(norm: float, scale: float, size: float, name: str, what: str, eps: float = _EPS) -> None:
    """Raise ValueError when ``norm`` is zero up to rounding (``100 * size * eps * scale``)."""
    if not norm > 100.0 * size * eps * scale:
        raise ValueError(
            f"{name} has {what} Frobenius norm {norm:.3g}, numerically zero "
            f"(a constant kernel, or a constant feature matrix, has this property); "
            f"the alignment is a ratio 0/0 and is undefined"
        )


def _centered_and_norm(K: np.ndarray, name: str, eps: float = _EPS,
                       max_abs: float | None = None) -> tuple[np.ndarray, float]:
    """``H K H`` and its Frobenius norm (refused if it is zero to rounding); ``max_abs``:
    ``max|K|`` if the caller has it."""
    Kc = _center(K)
    norm = float(np.sqrt(np.vdot(Kc, Kc)))
    _check_nonzero(norm, _max_abs(K) if max_abs is None else max_abs, K.shape[0], name,
                   "a centered", eps)
    return Kc, norm


def _unit_kernel(K: Any, name: str) -> tuple[np.ndarray, float]:
    """A finite symmetric kernel matrix of at least 2 rows (as :func:`_kernel_matrix`) at
    unit scale (:func:`_unit`), and its ``max|.|``: ``max|K|`` is found once, for the
    symmetry check and the scale (exact: ``c`` is a power of 2)."""
    A = _kernel_matrix(K, name, symmetric=False, min_n=2)
    m = _max_abs(A)
    check_symmetric(A, name, dtype=floating_dtype(K), max_abs=m)
    U, c = _unit(A, m)
    return U, (m if c == 1.0 else m / c)


def _cosine(num: float, na: float, nb: float) -> float:
    """``num / (na nb)`` for a Cauchy-Schwarz ratio, with rounding excess beyond [-1, 1] removed."""
    return float(min(1.0, max(-1.0, num / (na * nb))))


# ---------------------------------------------------------------------------
# centering and alignment
# ---------------------------------------------------------------------------
def center_kernel(K: Any) -> np.ndarray:
    """Center a kernel matrix in feature space: return ``H K H`` with ``H = I - 11^T/n``.

    Computed in ``O(n^2)`` time from the row means, the column means and the
    grand mean, ``[K_c]_ij = K_ij - mean_u K_uj - mean_v K_iv + mean_uv K_uv``,
    never by multiplying with ``H``.

    Parameters
    ----------
    K : array_like of shape (n, n)
        A finite square matrix (symmetry is not required: ``H K H`` is defined
        for any square matrix, and the result is symmetric when ``K`` is).

    Returns
    -------
    numpy.ndarray of shape (n, n)
        The centered matrix ``H K H`` (a new array; ``K`` is not modified).

    Raises
    ------
    ValueError
        If ``K`` is not a square 2-D matrix, is empty, or contains NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> center_kernel(np.ones((3, 3)))
    array([[0., 0., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    """
    xp = _xp.namespace((K,), ("K",))
    if xp is not None:
        return _xp_center_kernel(xp, K)
    A, c = _unit(check_square_matrix(K, "K"))
    Kc = _center(A)
    if c != 1.0:
        with np.errstate(over="ignore"):
            Kc *= c
        if not np.all(np.isfinite(Kc)):
            raise ValueError("K is too large: its centered entries overflow float64 (|value| > 1.8e308)")
    return Kc


def kta(K1: Any, K2: Any) -> float:
    """Kernel-target alignment (uncentered) of two kernel matrices.

    ``kta(K1, K2) = <K1, K2>_F / (||K1||_F ||K2||_F)`` (Cristianini et al., 2002).
    For positive semidefinite inputs the value lies in ``[0, 1]``.

    Parameters
    ----------
    K1, K2 : array_like of shape (n, n)
        Finite symmetric matrices of the same shape.

    Returns
    -------
    float
        The alignment, the cosine of the angle between ``K1`` and ``K2`` in
        the Frobenius inner product.

    Raises
    ------
    ValueError
        On non-square, non-symmetric or non-finite input, on a shape
        mismatch, or if either matrix is (numerically) zero.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> round(kta(np.outer(y, y), np.outer(y, y)), 12)
    1.0
    """
    xp = _xp.namespace((K1, K2), ("K1", "K2"))
    if xp is not None:
        return _xp_kta(xp, K1, K2)
    A, _ = _unit(_kernel_matrix(K1, "K1"))
    B, _ = _unit(_kernel_matrix(K2, "K2"))
    _same_size(A, B, ("K1", "K2"))
    na = float(np.sqrt(np.vdot(A, A)))
    nb = float(np.sqrt(np.vdot(B, B)))
    _check_nonzero(na, _max_abs(A), 1.0, "K1", "a", _eps(K1))
    _check_nonzero(nb, _max_abs(B), 1.0, "K2", "a", _eps(K2))
    return _cosine(float(np.vdot(A, B)), na, nb)


def cka(K1: Any, K2: Any) -> float:
    """Centered kernel alignment of two kernel matrices.

    ``cka(K1, K2) = <K1c, K2c>_F / (||K1c||_F ||K2c||_F)`` with
    ``Kc = H K H`` (Cortes, Mohri and Rostamizadeh, 2012). It equals
    ``HSIC(K1, K2) / sqrt(HSIC(K1, K1) HSIC(K2, K2))`` with the biased HSIC
    and is the CKA of Kornblith et al. (2019).

    For positive semidefinite ``K1`` and ``K2`` the value lies in ``[0, 1]``.
    For indefinite symmetric matrices it can be negative (it is still the
    cosine of an angle, in ``[-1, 1]``); no PSD check is made, so that the
    formula can be studied on such matrices.

    Parameters
    ----------
    K1, K2 : array_like of shape (n, n)
        Finite symmetric matrices of the same shape, ``n >= 2``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On non-square, non-symmetric or non-finite input, on a shape
        mismatch, or if a centered matrix is numerically zero (for example a
        constant kernel): centered alignment is then undefined.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(4, 2) ** 2
    >>> K = X @ X.T
    >>> round(cka(K, 3.0 * K + 5.0), 12)   # invariant to scaling and constant offsets
    1.0
    """
    xp = _xp.namespace((K1, K2), ("K1", "K2"))
    if xp is not None:
        return _xp_cka(xp, K1, K2)
    A, ma = _unit_kernel(K1, "K1")
    B, mb = _unit_kernel(K2, "K2")
    _same_size(A, B, ("K1", "K2"))
    Ac, na = _centered_and_norm(A, "K1", _eps(K1), ma)
    Bc, nb = _centered_and_norm(B, "K2", _eps(K2), mb)
    return _cosine(float(np.vdot(Ac, Bc)), na, nb)


def linear_cka(X: Any, Y: Any) -> float:
    """Linear CKA computed in feature space, without any ``n x n`` matrix.

    With column-centered ``Xc`` and ``Yc``,
    ``linear_cka(X, Y) = ||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F)``,
    which equals ``cka(X @ X.T, Y @ Y.T)``. Cost ``O(n (d1 + d2)^2)`` time
    and ``O(n (d1 + d2) + (d1 + d2)^2)`` memory (the centered copies and three
    small cross-product matrices): ``O(n d)`` when ``d <= n``. When the number of features exceeds the
    number of samples, the Gram form ``cka(X @ X.T, Y @ Y.T)`` is cheaper.

    Parameters
    ----------
    X : array_like of shape (n_samples, d1)
    Y : array_like of shape (n_samples, d2)
        Two representations of the same ``n_samples >= 2`` examples (the
        numbers of features may differ).

    Returns
    -------
    float
        A value in ``[0, 1]``.

    Raises
    ------
    ValueError
        If the inputs are not 2-D finite arrays with the same number of rows,
        or if either is constant across samples (zero after centering).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 4))
    >>> Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    >>> round(linear_cka(X, 2.5 * X @ Q), 12)
    1.0
    """
    xp = _xp.namespace((X, Y), ("X", "Y"))
    if xp is not None:
        return _xp_linear_cka(xp, X, Y)
    Xa, Ya = _paired_samples(X, Y)
    n = Xa.shape[0]
    if n < 2:
        raise ValueError(f"X and Y need at least 2 samples; got {n}")
    Xa, _ = _unit(Xa)  # CKA is scale invariant: work at unit scale (exact rescaling)
    Ya, _ = _unit(Ya)
    Xc = Xa - Xa.mean(axis=0)
    Yc = Ya - Ya.mean(axis=0)
    for arr, c, name, orig in ((Xa, Xc, "X", X), (Ya, Yc, "Y", Y)):
        _check_nonzero(
            float(np.linalg.norm(c)), _max_abs(arr), np.sqrt(arr.size), name, "a centered", _eps(orig)
        )
    # rescale the centered copies as well: a feature that varies at 1e-9 of max|X| must not underflow
    Xc, _ = _unit(Xc)
    Yc, _ = _unit(Yc)
    cross = Yc.T @ Xc
    num = float(np.vdot(cross, cross))
    den = _gram_fro_norm(Xc) * _gram_fro_norm(Yc)
    return float(min(1.0, max(0.0, num / den)))


def hsic(K: Any, L: Any, unbiased: bool = False) -> float:
    """Hilbert-Schmidt independence criterion estimated from two Gram matrices.

    Biased estimator (Gretton et al., 2005), with their normalisation
    ``1/(n - 1)^2``::

        HSIC_b(K, L) = tr(K H L H) / (n - 1)^2,           n >= 2.

    Unbiased estimator (Song et al., 2012, Theorem 2), with ``Kt`` and ``Lt``
    the matrices with their diagonals set to zero::

        HSIC_u = [tr(Kt Lt) + (1^T Kt 1)(1^T Lt 1) / ((n-1)(n-2))
                  - 2/(n-2) 1^T Kt Lt 1] / (n (n-3)),       n >= 4.

    ``HSIC_u`` is the U-statistic of the population HSIC and can be negative.

    Parameters
    ----------
    K, L : array_like of shape (n, n)
        Finite symmetric Gram matrices of the same sample.
    unbiased : bool, default False
        Use the unbiased estimator instead of the biased one.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On non-square, non-symmetric or non-finite input, on a shape
        mismatch, or when ``n < 2`` (biased) or ``n < 4`` (unbiased).
    TypeError
        If ``unbiased`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> hsic(K, K)   # tr(KHKH) / 1 = 1.0
    1.0
    """
    if not isinstance(unbiased, (bool, np.bool_)):
        raise TypeError(f"unbiased must be a bool, got {type(unbiased).__name__} {unbiased!r}")
    xp = _xp.namespace((K, L), ("K", "L"))
    if xp is not None:
        return _xp_hsic(xp, K, L, bool(unbiased))
    min_n = 4 if unbiased else 2
    A, ca = _unit(_kernel_matrix(K, "K"))  # HSIC is bilinear: compute at unit scale, put ca * cb back
    B, cb = _unit(_kernel_matrix(L, "L"))
    _same_size(A, B, ("K", "L"))
    n = A.shape[0]
    if n < min_n:
        kind = "unbiased" if unbiased else "biased"
        raise ValueError(f"the {kind} HSIC estimator needs n >= {min_n} samples; got n = {n}")
    if not unbiased:
        # tr(K H L H) = <H K H, L>_F because H is a symmetric idempotent.
        return _rescale_back(float(np.vdot(_center(A), B) / (n - 1) ** 2), ca, cb)
    return _rescale_back(_hsic_u(A, B), ca, cb)


def _hsic_u(A: np.ndarray, B: np.ndarray) -> float:
    """Unbiased HSIC (Song et al. 2012, Theorem 2) of validated symmetric (n, n) arrays, n >= 4."""
    n = A.shape[0]
    At = A.copy()
    np.fill_diagonal(At, 0.0)
    Bt = B.copy()
    np.fill_diagonal(Bt, 0.0)
    ra = At.sum(axis=1)  # Kt 1
    rb = Bt.sum(axis=1)  # Lt 1
    term1 = float(np.einsum("ij,ij->", At, Bt))  # tr(Kt Lt), both symmetric
    term2 = float(ra.sum() * rb.sum()) / ((n - 1) * (n - 2))
    term3 = 2.0 * float(ra @ rb) / (n - 2)  # 1^T Kt Lt 1
    return (term1 + term2 - term3) / (n * (n - 3))


def _rescale_back(value: float, ca: float, cb: float) -> float:
    """``value * ca * cb`` for powers of two, raising ValueError if the result overflows float64."""
    try:
        out = math.ldexp(value, math.frexp(ca)[1] - 1 + math.frexp(cb)[1] - 1) if value != 0.0 else 0.0
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(
            "the HSIC value overflows float64 (|value| > 1.8e308): K and L are too large; "
            "rescale them (HSIC is bilinear, hsic(a K, b L) = a b hsic(K, L))"
        )
    return float(out)


def ideal_kernel(y: Any) -> np.ndarray:
    """The ideal (target) kernel of a label vector.

    For two classes, labels are coded as ``+-1`` and ``K_Y = y y^T``: entry
    ``+1`` for a pair from the same class, ``-1`` otherwise (the result does
    not depend on which class is called +1). For ``c > 2`` classes, entry
    ``1`` for the same class and ``-1/(c-1)`` otherwise: the Gram matrix of
    the unit vectors pointing at the vertices of a regular simplex, which
    reduces to ``y y^T`` for ``c = 2``.

    Parameters
    ----------
    y : array_like of shape (n,)
        Class labels (any values that can be compared for equality; at least
        two distinct classes).

    Returns
    -------
    numpy.ndarray of shape (n, n)

    Raises
    ------
    ValueError
        If ``y`` is not 1-D, is empty, contains NaN/inf, or has a single class.

    Examples
    --------
    >>> ideal_kernel([0, 0, 1])
    array([[ 1.,  1., -1.],
           [ 1.,  1., -1.],
           [-1., -1.,  1.]])
    """
    ya = np.asarray(y)
    if ya.dtype.kind == "c":
        raise TypeError(f"y must hold real or categorical labels; got complex values (dtype {ya.dtype})")
    if ya.ndim != 1:
        raise ValueError(f"y must be a 1-D array of labels; got shape {ya.shape}")
    if ya.size == 0:
        raise ValueError("y is empty; at least two labelled samples are needed")
    if ya.dtype.kind in "fc" and not np.all(np.isfinite(ya)):
        raise ValueError("y contains NaN or infinity")
    if ya.size * ya.size > _MAX_IDEAL_ELEMENTS:
        raise ValueError(
            f"y has {ya.size} labels: the ideal kernel would have {ya.size}^2 = {ya.size * ya.size} values, "
            f"more than the limit {_MAX_IDEAL_ELEMENTS} (8 GiB)"
        )
    try:
        classes, codes = np.unique(ya, return_inverse=True)
    except TypeError:  # labels of mixed types cannot be sorted: code them in order of appearance
        index: dict[Any, int] = {}
        codes = np.array([index.setdefault(v, len(index)) for v in ya.tolist()])
        classes = np.array(list(index), dtype=object)
    c = classes.size
    if c < 2:
        raise ValueError(f"y has a single class ({classes[0]!r}); the ideal kernel needs at least two classes")
    same = codes[:, None] == codes[None, :]
    return np.where(same, 1.0, -1.0 / (c - 1))


# ---------------------------------------------------------------------------
# alignment-based multiple kernel learning
# ---------------------------------------------------------------------------
def _kernel_stack(kernels: Any, n: int) -> list[np.ndarray]:
    if isinstance(kernels, np.ndarray):
        if kernels.ndim != 3:
            raise ValueError(
                f"kernels must be a sequence of (n, n) matrices or an array of shape (p, n, n); "
                f"got an array of shape {kernels.shape}"
            )
        seq: Sequence[Any] = list(kernels)
    elif isinstance(kernels, Sequence) and not isinstance(kernels, (str, bytes)):
        seq = kernels
    else:
        raise TypeError(f"kernels must be a sequence of (n, n) matrices, got {type(kernels).__name__}")
    if len(seq) == 0:
        raise ValueError("kernels is empty; at least one base kernel is needed")
    out = []
    for k, K in enumerate(seq):
        Ka = _kernel_matrix(K, f"kernels[{k}]")
        if Ka.shape[0] != n:
            raise ValueError(f"kernels[{k}] has shape {Ka.shape} but y has {n} labels; expected ({n}, {n})")
        out.append(Ka)
    return out


def _alignment_problem(kernels: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a_k = <K_kc, K_Y>_F`` and ``M_kl = <K_kc, K_lc>_F``."""
    KY = ideal_kernel(y)
    Ks = _kernel_stack(kernels, KY.shape[0])
    # one common power of two for all base kernels: the weights are unchanged, nothing overflows
    c = max(_pow2_unit(K) for K in Ks)
    Kcs = [_center(K / c if c != 1.0 else K) for K in Ks]
    p = len(Kcs)
    a = np.array([np.vdot(Kc, KY) for Kc in Kcs])
    M = np.empty((p, p))
    for k in range(p):
        for l in range(k, p):
            M[k, l] = M[l, k] = np.vdot(Kcs[k], Kcs[l])
    return a, M


def align_weights(kernels: Any, y: Any, q: float = 2) -> np.ndarray:
    """Weights of the independent alignment algorithm ``align``.

    Solves ``max_mu sum_k mu_k a_k`` subject to ``sum_k |mu_k|^q <= 1`` with
    ``a_k = <K_kc, K_Y>_F`` and ``K_Y = ideal_kernel(y)``; by Hoelder's
    inequality (or a Lagrange multiplier) the solution is
    ``mu_k = sign(a_k) |a_k|^{1/(q-1)} / ||a||_{q/(q-1)}^{1/(q-1)}``, so
    ``||mu||_q = 1``. For positive semidefinite base kernels every
    ``a_k = y^T K_kc y >= 0`` and the weights are non-negative.

    The weights refer to the kernels as given. In the ``align`` algorithm of
    Cortes, Mohri and Rostamizadeh (2012) the weights are proportional to the
    individual alignments ``cka(K_k, K_Y)``; that is this function with
    ``q = 2`` applied to kernels normalised to unit centered Frobenius norm.

    Parameters
    ----------
    kernels : sequence of array_like of shape (n, n), or array of shape (p, n, n)
        Finite symmetric base kernel matrices on the training sample.
    y : array_like of shape (n,)
        Class labels (see ``ideal_kernel``).
    q : float, default 2
        Exponent of the norm constraint, ``q > 1``.

    Returns
    -------
    numpy.ndarray of shape (p,)
        The weights, with ``sum_k |mu_k|^q = 1``.

    Raises
    ------
    ValueError
        On invalid kernels or labels, ``q <= 1``, or when every ``a_k`` is 0
        (no kernel is aligned with the target, the objective is constant).

    Examples
    --------
    The target itself and the identity on four points with balanced labels:
    ``a = (y^T y)^2, y^T H y = (16, 4)``, so for ``q = 2`` the weights are
    ``(16, 4) / sqrt(16^2 + 4^2)``.

    >>> import numpy as np
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> mu = align_weights([np.outer(y, y), np.eye(4)], y)
    >>> mu.round(6)
    array([0.970143, 0.242536])
    >>> bool(np.allclose(mu, np.array([16.0, 4.0]) / np.hypot(16.0, 4.0)))
    True
    """
    qv = check_positive(q, "q")
    if not qv > 1.0:
        raise ValueError(f"q must be > 1 (q = 1 makes the problem a linear program with a vertex solution); got {q!r}")
    a, _ = _alignment_problem(kernels, y)
    scale = float(np.max(np.abs(a)))
    if scale == 0.0:
        raise ValueError("every base kernel has <K_kc, K_Y>_F = 0: the objective is constant, the weights undefined")
    r = a / scale  # rescale to avoid overflow for large exponents
    mu = np.sign(r) * np.abs(r) ** (1.0 / (qv - 1.0))
    return mu / np.sum(np.abs(mu) ** qv) ** (1.0 / qv)


def alignf_weights(kernels: Any, y: Any, nonnegative: bool = True) -> np.ndarray:
    """Weights maximising the centered alignment of ``K_mu = sum_k mu_k K_k`` with the target.

    Maximises ``cka(K_mu, K_Y) = mu^T a / (sqrt(mu^T M mu) ||K_Yc||_F)`` over
    ``||mu||_2 = 1`` (``nonnegative=False``, the *linear* combination) or over
    ``||mu||_2 = 1, mu >= 0`` (``nonnegative=True``, the *convex* case of
    Cortes, Mohri and Rostamizadeh 2012), where
    ``a_k = <K_kc, K_Y>_F`` and ``M_kl = <K_kc, K_lc>_F``.

    * Linear case: ``mu = M^+ a / ||M^+ a||`` (the pseudo-inverse; with an
      invertible ``M`` this is the textbook ``M^{-1} a / ||M^{-1} a||``).
      Weights may be negative and ``K_mu`` then need not be PSD.
    * Convex case: ``v* = argmin_{v >= 0} v^T M v - 2 v^T a`` and
      ``mu = v*/||v*||``. The quadratic program is solved as the
      non-negative least-squares problem ``min_{v >= 0} ||R v - b||^2`` with
      ``M = R^T R`` and ``R^T b = a`` (from the eigen-decomposition of
      ``M``), by ``scipy.optimize.nnls``.

    When ``M`` is singular (the centered base kernels are linearly
    dependent), the optimal *combined kernel* is unique but the weights are
    not; the function returns one maximiser (in the linear case the one
    orthogonal to the null space of ``M``).

    Parameters
    ----------
    kernels : sequence of array_like of shape (n, n), or array of shape (p, n, n)
        Finite symmetric base kernel matrices on the training sample. For the
        convex case to yield a PSD combination they should be PSD.
    y : array_like of shape (n,)
        Class labels (see ``ideal_kernel``).
    nonnegative : bool, default True
        Restrict to ``mu >= 0`` (convex case).

    Returns
    -------
    numpy.ndarray of shape (p,)
        Weights with ``||mu||_2 = 1``. Alignment is scale invariant, so
        ``mu / mu.sum()`` (a convex combination) is equally optimal.

    Raises
    ------
    ValueError
        On invalid kernels or labels, or when no non-zero combination is
        positively aligned with the target (``a`` is zero, or, in the
        convex case, ``v* = 0``).
    TypeError
        If ``nonnegative`` is not a bool.

    Examples
    --------
    XOR on the four points ``(+-1, +-1)``: the homogeneous quadratic kernel
    ``(x^T z)^2`` is, after centering, a multiple of ``yy^T``, and the convex
    ``alignf`` puts all the weight on it.

    >>> import numpy as np
    >>> from ktheory.kernels import gaussian_kernel, linear_kernel, polynomial_kernel
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> y = X[:, 0] * X[:, 1]
    >>> Ks = [linear_kernel(X), polynomial_kernel(X, degree=2, coef0=0.0),
    ...       gaussian_kernel(X, sigma=1.0)]
    >>> alignf_weights(Ks, y).round(9) + 0.0
    array([0., 1., 0.])
    """
    if not isinstance(nonnegative, (bool, np.bool_)):
        raise TypeError(f"nonnegative must be a bool, got {type(nonnegative).__name__} {nonnegative!r}")
    a, M = _alignment_problem(kernels, y)
    w, V = np.linalg.eigh(M)
    wmax = float(max(w.max(), 0.0))
    keep = w > max(len(a), 1) * 1e3 * _EPS * wmax
    if wmax == 0.0 or not np.any(keep) or not np.any(a != 0):
        raise ValueError(
            "no combination of the base kernels is aligned with the target: every centered base "
            "kernel is zero or orthogonal to K_Y; the weights are undefined"
        )
    Vk, wk = V[:, keep], w[keep]
    if not nonnegative:
        v = Vk @ ((Vk.T @ a) / wk)  # M^+ a
    else:
        R = np.sqrt(wk)[:, None] * Vk.T  # M ~= R^T R
        b = (Vk.T @ a) / np.sqrt(wk)  # R^T b = projection of a on range(M) = a
        v, _ = nnls(R, b)
    nv = float(np.linalg.norm(v))
    if not nv > 0.0 or not float(v @ a) > 0.0:
        raise ValueError(
            "no non-negative combination of the base kernels is positively aligned with the target "
            "(the optimum of the convex problem is v = 0); the weights are undefined"
        )
    return v / nv


# ---------------------------------------------------------------------------
# concentration, minibatch CKA and the HSIC permutation test
# ---------------------------------------------------------------------------
#: Largest batch of ``minibatch_cka``: ``batch_size**2`` at most 2**28 values (2 GiB per Gram matrix).
_MAX_BATCH_ELEMENTS = 1 << 28
#: Largest amount of work of ``hsic_permutation_test``: ``n_permutations * n**2`` at most 2**34.
_MAX_PERMUTATION_WORK = 1 << 34


def _check_int(value: Any, name: str, low: int) -> int:
    """An integer (not a bool) ``>= low``; TypeError / ValueError naming ``name`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _rng(random_state: Any) -> np.random.Generator:
    """``numpy.random.default_rng`` of ``None``, a non-negative int or a Generator."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(
            f"random_state must be None, an int or a numpy.random.Generator, "
            f"got {type(random_state).__name__} {random_state!r}"
        )
    if random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
    return np.random.default_rng(int(random_state))


def kta_deviation_bound(n_samples: int, delta: float, beta: float = 1.0) -> float:
    """High-probability bound on the deviation of the empirical alignment from the true one.

    Let ``K`` and ``K'`` be kernels with ``|K| <= 1`` and ``|K'| <= 1``,
    ``beta = 1 / min(E[K^2], E[K'^2])`` (expectations over independent
    ``x, x' ~ D``; ``beta >= 1``), and ``A`` the alignment of the two kernel
    functions. For an i.i.d. sample of size ``m = n_samples``, with
    probability at least ``1 - delta`` the empirical alignment ``A_hat``
    (``kta`` of the two Gram matrices) satisfies::

        |A_hat - A| <= 4 beta (sqrt(8 ln(6/delta) / m) + 2/m).

    Each of the three V-statistics ``(1/m^2) sum_ij K K'``, ``... K^2``,
    ``... K'^2`` has bounded differences ``4/m`` (McDiarmid's inequality,
    ``delta/3`` each) and bias at most ``2/m`` (the diagonal); a ratio
    argument turns the three deviations into the bound (Chapter 12 proves
    it). The bound is loose: it is informative only for large ``m``.

    Parameters
    ----------
    n_samples : int
        Sample size ``m >= 1``.
    delta : float
        Failure probability, ``0 < delta < 1``.
    beta : float, default 1.0
        ``1 / min(E[K^2], E[K'^2])``; must be ``>= 1`` (for kernels bounded
        by 1 it always is).

    Returns
    -------
    float
        The bound (it can exceed 2, where it says nothing).

    Raises
    ------
    TypeError
        If ``n_samples`` is not an integer or ``delta``/``beta`` are not real.
    ValueError
        If ``n_samples < 1``, ``delta`` is not in ``(0, 1)`` or ``beta < 1``.

    Examples
    --------
    >>> round(kta_deviation_bound(10_000, 0.05), 4)
    0.2483
    """
    m = _check_int(n_samples, "n_samples", 1)
    d = check_positive(delta, "delta")
    if not d < 1.0:
        raise ValueError(f"delta must be a probability in (0, 1), got {delta!r}")
    b = check_positive(beta, "beta")
    if not b >= 1.0:
        raise ValueError(
            f"beta = 1/min(E[K^2], E[K'^2]) is >= 1 for kernels bounded by 1; got beta = {beta!r}"
        )
    return 4.0 * b * (math.sqrt(8.0 * math.log(6.0 / d) / m) + 2.0 / m)


def _check_batch_size(batch_size: Any, n: int) -> int:
    """``batch_size`` of :func:`minibatch_cka`: an integer in ``[4, n]`` whose Gram matrix
    fits :data:`_MAX_BATCH_ELEMENTS` (numpy and array-API paths alike)."""
    b = _check_int(batch_size, "batch_size", 4)
    if b > n:
        raise ValueError(f"batch_size must be <= n_samples = {n}; got batch_size = {b}")
    if b * b > _MAX_BATCH_ELEMENTS:
        raise ValueError(
            f"batch_size = {b} would need {b}^2 = {b * b} values per Gram matrix, more than the "
            f"limit {_MAX_BATCH_ELEMENTS} (2 GiB); use a smaller batch_size"
        )
    return b


def _check_batch_shapes(i: int, sx: tuple, sy: tuple,
                        dims: tuple[int, int] | None) -> tuple[int, int]:
    """Batch ``i`` of :func:`minibatch_cka_batches` with shapes ``sx``, ``sy``: the same
    rows, at least 4 and within :data:`_MAX_BATCH_ELEMENTS`, and the features of batch 0
    (``dims``, None for batch 0). Returns the features."""
    if sx[0] != sy[0]:
        raise ValueError(
            f"batch {i}: X_{i} and Y_{i} must have the same number of rows; got "
            f"X_{i}.shape={sx} and Y_{i}.shape={sy}"
        )
    b = sx[0]
    if b < 4:
        raise ValueError(f"batch {i} has {b} rows; the unbiased HSIC needs at least 4")
    if b * b > _MAX_BATCH_ELEMENTS:
        raise ValueError(
            f"batch {i} has {b} rows and would need {b}^2 = {b * b} values per Gram "
            f"matrix, more than the limit {_MAX_BATCH_ELEMENTS} (2 GiB); use smaller batches"
        )
    if dims is not None and (sx[1], sy[1]) != dims:
        raise ValueError(
            f"batch {i} has {sx[1]} + {sy[1]} features; batch 0 had "
            f"{dims[0]} + {dims[1]}: every batch must have the same features"
        )
    return (sx[1], sy[1])


def minibatch_cka(X: Any, Y: Any, batch_size: int, random_state: Any = None) -> float:
    """Linear CKA for large ``n`` from unbiased HSIC averaged over minibatches.

    The rows are shuffled with ``random_state`` and cut into
    ``k = n // batch_size`` batches of ``batch_size`` rows (the remaining
    ``n mod batch_size`` rows are not used). With ``K_i``, ``L_i`` the
    linear Gram matrices of batch ``i`` and ``HSIC_u`` the unbiased
    estimator of Song et al. (2012), the estimate of Nguyen, Raghu and
    Kornblith (2021) is::

        sum_i HSIC_u(K_i, L_i) / sqrt(sum_i HSIC_u(K_i, K_i) * sum_i HSIC_u(L_i, L_i)).

    Each sum is an unbiased estimate of ``k`` times a population HSIC, so
    the ratio converges to the *population* linear CKA
    ``||C_XY||_F^2 / (||C_XX||_F ||C_YY||_F)`` as ``k`` grows, at any batch
    size. It is not the full-sample ``linear_cka`` (which uses the biased
    HSIC on all pairs and has an upward bias of order ``1/n`` for
    independent data), it is not confined to ``[0, 1]``, and as a ratio it
    is consistent but not unbiased. Time ``O(n batch_size (d1 + d2))``.
    Memory: ``X`` and ``Y`` are held whole, as by ``linear_cka``; beyond them
    the function needs ``O(n)`` for the shuffle and ``O(batch_size**2 +
    batch_size (d1 + d2))`` for one batch. When the representations do not fit
    in memory, stream them with :func:`minibatch_cka_batches`.

    Parameters
    ----------
    X : array_like of shape (n_samples, d1)
    Y : array_like of shape (n_samples, d2)
        Two representations of the same examples.
    batch_size : int
        Rows per batch, ``4 <= batch_size <= n_samples`` (the unbiased
        estimator needs 4 points).
    random_state : None, int or numpy.random.Generator, default None
        Seed of the shuffle (``None``: fresh entropy, not reproducible).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On non-finite input, different numbers of rows, an out-of-range
        ``batch_size``, a batch too large for memory, or when the summed
        ``HSIC_u(K_i, K_i)`` (or ``(L_i, L_i)``) is not positive (constant
        features, or too few batches to estimate a tiny variance).
    TypeError
        If ``batch_size`` is not an integer or ``random_state`` is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 3))
    >>> round(minibatch_cka(X, 2.0 * X, batch_size=50, random_state=0), 12)
    1.0
    """
    xp = _xp.namespace((X, Y), ("X", "Y"))
    if xp is not None:
        return _xp_minibatch_cka(xp, X, Y, batch_size, random_state)
    Xa, Ya = _paired_samples(X, Y)
    n = Xa.shape[0]
    b = _check_batch_size(batch_size, n)
    g = _rng(random_state)
    Xa, _ = _unit(Xa)
    Ya, _ = _unit(Ya)
    order = g.permutation(n)[: (n // b) * b].reshape(-1, b)
    return _minibatch_ratio((Xa[idx], Ya[idx]) for idx in order)


def _minibatch_ratio(pairs: Any, scale: tuple[float, float] | None = (1.0, 1.0)) -> float:
    """Accumulate the three sums of unbiased HSIC over validated ``(X_i, Y_i)`` pairs.

    ``scale=None`` takes exact power-of-two scales for X and Y from the first batch
    (streamed input, where no global maximum is known). Holds one batch at a time.
    """
    kl = kk = ll = 0.0
    for Xb, Yb in pairs:  # a loop over batches, not samples: each step is O(b^2 d)
        if scale is None:
            scale = (_unit(Xb)[1], _unit(Yb)[1])
        if scale != (1.0, 1.0):
            Xb, Yb = Xb / scale[0], Yb / scale[1]
        # HSIC_u is invariant to shifts of the features: center each batch, which avoids
        # cancellation when the features have a large common offset
        with np.errstate(over="ignore", invalid="ignore"):  # overflow: reported below
            Xb = Xb - Xb.mean(axis=0)
            Yb = Yb - Yb.mean(axis=0)
            Kb, Lb = Xb @ Xb.T, Yb @ Yb.T
            kl += _hsic_u(Kb, Lb)
            kk += _hsic_u(Kb, Kb)
            ll += _hsic_u(Lb, Lb)
    if not (math.isfinite(kl) and math.isfinite(kk) and math.isfinite(ll)):
        raise ValueError(
            "the summed unbiased HSIC overflows float64: the batches differ in scale by more "
            "than about 1e150 from the first one; rescale X and Y (CKA is scale invariant)"
        )
    for val, name in ((kk, "X"), (ll, "Y")):
        if not val > 0.0:
            raise ValueError(
                f"the summed unbiased HSIC of {name} with itself is {val:.3g}, not positive: {name} "
                f"is constant across samples, or there are too few batches; the ratio is undefined"
            )
    return float(kl / math.sqrt(kk * ll))


def _checked_batches(batches: Any):
    """Validate the batches of :func:`minibatch_cka_batches` one at a time (a generator)."""
    if isinstance(batches, (str, bytes, np.ndarray)) or not hasattr(batches, "__iter__"):
        raise TypeError(
            f"batches must be an iterable of (X_i, Y_i) pairs of 2-D arrays (a list or a "
            f"generator), got {type(batches).__name__}"
        )
    dims = None
    count = 0
    for i, pair in enumerate(batches):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(
                f"batches must yield pairs (X_i, Y_i); batch {i} is a {type(pair).__name__}"
            )
        Xb = check_array(pair[0], f"X_{i} (batch {i})")
        Yb = check_array(pair[1], f"Y_{i} (batch {i})")
        dims = _check_batch_shapes(i, tuple(Xb.shape), tuple(Yb.shape), dims)
        count += 1
        yield Xb, Yb
    if count == 0:
        raise ValueError("batches is empty: at least one (X_i, Y_i) pair is needed")


_NO_BATCH = object()


def minibatch_cka_batches(batches: Any) -> float:
    """Minibatch CKA from a stream of batches, holding one batch in memory at a time.

    The streamed form of :func:`minibatch_cka`: ``batches`` yields pairs
    ``(X_i, Y_i)`` of two representations of the same ``b_i`` examples (for
    instance the activations of two layers of a network, computed batch by
    batch), and the result is::

        sum_i HSIC_u(K_i, L_i) / sqrt(sum_i HSIC_u(K_i, K_i) * sum_i HSIC_u(L_i, L_i))

    with the linear Gram matrices ``K_i = X_i X_i^T`` and ``L_i = Y_i Y_i^T``.
    A generator is consumed once and never materialised: memory is
    ``O(b^2 + b (d1 + d2))`` for batches of at most ``b`` rows, whatever the
    number of batches. Batches may have different sizes (each at least 4 rows);
    the batches should be random samples of the data (shuffle first), as the
    estimate is unbiased for the population HSIC batch by batch. For very large
    or very small values, X and Y are rescaled by exact powers of two taken from
    the first batch.

    Parameters
    ----------
    batches : iterable of (array_like, array_like)
        Pairs ``(X_i, Y_i)`` of shapes ``(b_i, d1)`` and ``(b_i, d2)``, finite and
        real, with ``b_i >= 4`` and the same ``d1``, ``d2`` in every batch.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``batches`` is not an iterable of pairs, or a batch is complex or
        not numeric.
    ValueError
        On non-finite values, a batch with fewer than 4 rows or too many to
        hold, mismatched rows or features, no batches, or when the summed
        ``HSIC_u`` of X (or Y) with itself is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> def stream(n_batches, seed=0):
    ...     g = np.random.default_rng(seed)
    ...     for _ in range(n_batches):          # e.g. activations of a network
    ...         X = g.standard_normal((50, 3))
    ...         yield X, 2.0 * X @ np.diag([1.0, -1.0, 1.0])
    >>> round(minibatch_cka_batches(stream(20)), 12)
    1.0

    One batch holding every row is the debiased CKA of the whole sample, as in
    :func:`minibatch_cka` with ``batch_size = n``:

    >>> X = np.random.default_rng(1).standard_normal((200, 4))
    >>> Y = np.tanh(X[:, :2]) + 0.5 * X[:, 2:]
    >>> bool(np.isclose(minibatch_cka_batches([(X, Y)]), minibatch_cka(X, Y, 200)))
    True
    """
    if (isinstance(batches, (str, bytes, np.ndarray)) or not hasattr(batches, "__iter__")
            or _xp._is_foreign(batches, "batches")):
        raise TypeError(
            f"batches must be an iterable of (X_i, Y_i) pairs of 2-D arrays (a list or a "
            f"generator), got {type(batches).__name__}"
        )
    it = iter(batches)
    first = next(it, _NO_BATCH)
    if first is _NO_BATCH:
        raise ValueError("batches is empty: at least one (X_i, Y_i) pair is needed")
    stream = itertools.chain([first], it)
    xp = None
    if not isinstance(first, (str, bytes)) and hasattr(first, "__len__") and len(first) == 2:
        xp = _xp.namespace(first, ("X_0 (batch 0)", "Y_0 (batch 0)"))
    if xp is None:
        return _minibatch_ratio(_checked_batches(stream), scale=None)
    flags: list = []
    return _xp_minibatch_ratio(xp, _xp_checked_batches(xp, stream, flags), None, flags)


class HSICTestResult(NamedTuple):
    """Result of :func:`hsic_permutation_test`.

    Attributes
    ----------
    statistic : float
        The biased HSIC ``tr(K H L H) / (n - 1)^2`` of the sample.
    pvalue : float
        ``(1 + #{b : T_b >= statistic}) / (1 + n_permutations)``.
    null_distribution : numpy.ndarray of shape (n_permutations,)
        The statistic after each random permutation of the pairing.
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray


HSICTestResult.statistic.__doc__ = "The biased HSIC of the observed pairing."
HSICTestResult.pvalue.__doc__ = "The permutation p-value (1 + #{T_b >= T}) / (1 + B)."
HSICTestResult.null_distribution.__doc__ = "The B statistics of the permuted pairings."


def hsic_permutation_test(
    K: Any, L: Any, n_permutations: int = 999, random_state: Any = None
) -> HSICTestResult:
    """Permutation test of independence with the biased HSIC as statistic.

    Under the null hypothesis that the paired samples ``x_i`` (Gram matrix
    ``K``) and ``z_i`` (Gram matrix ``L``) are independent, the pairs
    ``(x_i, z_pi(i))`` have the same joint law for every permutation ``pi``,
    so the statistic ``T = HSIC_b(K, L)`` and its permuted copies
    ``T_b = HSIC_b(K, P_b L P_b^T)`` are exchangeable and the p-value
    ``(1 + #{T_b >= T}) / (1 + B)`` satisfies ``P(p <= alpha) <= alpha`` for
    every ``alpha`` (a valid test at every sample size). With characteristic
    kernels (e.g. Gaussian on both sides) the population HSIC is zero only
    under independence, so the test detects any dependence for large ``n``.
    Each permutation costs ``O(n^2)``. A ``T_b`` within ``1e-12`` of the
    Cauchy-Schwarz bound ``||H K H||_F ||L||_F / (n - 1)^2`` below ``T`` counts
    as a tie (``T_b >= T``): differences that small are rounding, and which way
    they fall depends on the machine's BLAS (with a constant ``L``, ``T`` is 0
    and the p-value 1 on every machine).

    Parameters
    ----------
    K, L : array_like of shape (n, n)
        Finite symmetric Gram matrices of the same ``n >= 2`` paired samples.
    n_permutations : int, default 999
        Number ``B >= 1`` of random permutations.
    random_state : None, int or numpy.random.Generator, default None
        Seed of the permutations.

    Returns
    -------
    HSICTestResult
        ``(statistic, pvalue, null_distribution)``.

    Raises
    ------
    ValueError
        On invalid Gram matrices, a shape mismatch, ``n < 2``,
        ``n_permutations < 1``, or more than ``2**34`` units of work
        (``n_permutations * n**2``).
    TypeError
        If ``n_permutations`` is not an integer or ``random_state`` is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=(60, 1))
    >>> K = np.exp(-(x - x.T) ** 2)
    >>> L = np.exp(-(x**2 - x.T**2) ** 2)          # z = x^2: uncorrelated with x
    >>> hsic_permutation_test(K, L, 199, random_state=0).pvalue
    0.005
    """
    B = _check_int(n_permutations, "n_permutations", 1)
    g = _rng(random_state)
    A, ca = _unit(_kernel_matrix(K, "K"))
    Bm, cb = _unit(_kernel_matrix(L, "L"))
    _same_size(A, Bm, ("K", "L"))
    n = A.shape[0]
    if n < 2:
        raise ValueError(f"the HSIC permutation test needs n >= 2 paired samples; got n = {n}")
    if B * n * n > _MAX_PERMUTATION_WORK:
        raise ValueError(
            f"n_permutations * n^2 = {B} * {n}^2 = {B * n * n} exceeds the limit "
            f"{_MAX_PERMUTATION_WORK}; use fewer permutations"
        )
    Ac = _center(A)
    scale = (n - 1) ** 2
    stat = float(np.vdot(Ac, Bm)) / scale
    null = np.empty(B)
    for b in range(B):  # a loop over permutations; each one is a vectorised O(n^2) product
        p = g.permutation(n)
        # einsum, not vdot: a BLAS dot of this size gains nothing from threads and can
        # lose 100x to thread contention on a loaded machine
        null[b] = float(np.einsum("ij,ij->", Ac, Bm[np.ix_(p, p)])) / scale
    # A permuted statistic equal to T up to rounding counts as >= T. Rounding is measured
    # against the Cauchy-Schwarz bound |<Ac, P'BP>| <= ||Ac|| ||B|| (the same for every
    # permutation), not against T: when T is 0 in exact arithmetic (a constant L, say) T and
    # its copies are all rounding noise, and which noise is larger depends on the BLAS.
    bound = float(np.linalg.norm(Ac)) * float(np.linalg.norm(Bm)) / scale
    count = int(np.count_nonzero(null >= stat - 1e-12 * max(bound, abs(stat) + _max_abs(null))))
    pvalue = (1.0 + count) / (1.0 + B)
    stat_out = _rescale_back(stat, ca, cb)
    if ca != 1.0 or cb != 1.0:  # extreme scales: put the exact power-of-two scale back
        null = np.array([_rescale_back(float(v), ca, cb) for v in null])
    return HSICTestResult(stat_out, float(pvalue), null)


# ---------------------------------------------------------------------------
# the array-API path: arrays of other libraries than numpy (issue 32)
# ---------------------------------------------------------------------------
# Everything below computes in the input's namespace, on its device and in its floating
# dtype (float32 stays float32); only scalars cross to the host, through _xp.host_floats.


def _xp_eps(xp: Any, A: Any) -> float:
    return float(xp.finfo(A.dtype).eps)


def _xp_safe_exp(xp: Any, A: Any) -> int:
    """Exponent range within which a Gram matrix is used unscaled (float64: 300, as numpy; float32: 24)."""
    return _SAFE_EXP if xp.finfo(A.dtype).bits >= 64 else 24


def _xp_prescale_range(xp: Any, A: Any) -> tuple[int, int]:
    """Exponents of ``max|X|`` for which a feature matrix is summed unscaled (no overflow of
    ``n`` summed values, no subnormal sums): float32 ``[-86, 88]``, float64 ``[-982, 984]``."""
    fi = xp.finfo(A.dtype)
    emax = _xp.exponent(float(fi.max)) + 1
    emin = _xp.exponent(float(fi.smallest_normal))
    return emin + 40, emax - 40


def _xp_array(xp: Any, A: Any, name: str, like: Any) -> Any:
    return as_float(xp, to_namespace(xp, A, like, name), name)


def _xp_extrema(xp: Any, A: Any, name: str) -> float:
    """``max|A|`` as a host float, raising the NaN/inf ``ValueError`` naming ``A``.

    NaN and infinities propagate into ``max``/``min`` (array API standard), so the
    finiteness check costs no pass of its own.
    """
    hi, lo = host_floats(xp, xp.max(A), xp.min(A))
    if not (math.isfinite(hi) and math.isfinite(lo)):
        _xp.raise_non_finite(xp, A, name)
    return max(hi, -lo)


def _xp_unit_exp(xp: Any, A: Any, m: float) -> int:
    """``-e`` with ``2**e`` the power of two of ``max|A| = m`` when it is outside the safe range, else 0."""
    e = _xp.exponent(m)
    return -e if abs(e) > _xp_safe_exp(xp, A) else 0


def _xp_gram(xp: Any, K: Any, name: str, like: Any, *, symmetric: bool = True, min_n: int = 1) -> tuple[Any, float]:
    """Validate a square (symmetric) finite kernel matrix of ``xp``: ``(K, max|K|)``.

    Symmetry: ``max|K - K.T| <= symmetry_rtol(dtype) max|K|`` evaluated on row panels of about
    2**24 values (no ``n x n`` temporary), on the device; one synchronisation for the three scalars.
    """
    A = _xp_array(xp, K, name, like)
    shape = check_shape(A, name)
    if shape[0] != shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {shape}")
    n = shape[0]
    if n < min_n:
        raise ValueError(f"{name} must have at least {min_n} rows and columns; got shape {shape}")
    scalars = [xp.max(A), xp.min(A)]
    if symmetric and n > 1:
        panel = max(1, (1 << 24) // n)
        parts = [xp.max(xp.abs(A[i : min(i + panel, n), i:] - xp.matrix_transpose(A[i:, i : min(i + panel, n)])))
                 for i in range(0, n, panel)]
        scalars.append(xp.max(xp.stack(parts)) if len(parts) > 1 else parts[0])
    vals = host_floats(xp, *scalars)
    hi, lo = vals[0], vals[1]
    if not (math.isfinite(hi) and math.isfinite(lo)):
        _xp.raise_non_finite(xp, A, name)
    scale = max(hi, -lo)
    if symmetric and n > 1:
        rtol = max(1e-10, 100.0 * _xp_eps(xp, A))
        if vals[2] > rtol * max(scale, 1e-300):
            raise ValueError(
                f"{name} must be symmetric; max |{name} - {name}.T| = {vals[2]:.3g} "
                f"exceeds {rtol:g} times max |{name}| = {scale:.3g}"
            )
    return A, scale


def _xp_center(xp: Any, A: Any) -> Any:
    """``H A H`` in ``A``'s namespace: columns first (``R = A - 1 c^T`` is exact when the
    offset dominates), then the rows of ``R``; in low precision the columns once more, which
    removes the rounding of the first column means (a rank-one error otherwise)."""
    n = int(A.shape[0])
    R = A - colsum(xp, A) / n
    Kc = R - xp.expand_dims(xp.sum(R, axis=1) / n, axis=1)
    if _xp_eps(xp, A) > 1e-10:
        Kc = Kc - colsum(xp, Kc) / n
    return Kc


def _xp_center_kernel(xp: Any, K: Any) -> Any:
    A, m = _xp_gram(xp, K, "K", K, symmetric=False)
    e = _xp_unit_exp(xp, A, m)
    Kc = _xp_center(xp, scale_pow2(A, e) if e else A)
    if e:
        Kc = scale_pow2(Kc, -e)
        hi, lo = host_floats(xp, xp.max(Kc), xp.min(Kc))
        if not (math.isfinite(hi) and math.isfinite(lo)):
            raise ValueError(f"K is too large: its centered entries overflow {Kc.dtype}")
    return Kc


def _xp_pair(xp: Any, K1: Any, K2: Any, names: tuple[str, str], min_n: int) -> tuple[Any, int, Any, int]:
    A, ma = _xp_gram(xp, K1, names[0], K1 if _xp._is_foreign(K1, names[0]) else K2, min_n=min_n)
    B, mb = _xp_gram(xp, K2, names[1], A, min_n=min_n)
    if tuple(A.shape) != tuple(B.shape):
        raise ValueError(
            f"{names[0]} and {names[1]} must be Gram matrices of the same sample, i.e. of the same "
            f"shape; got {names[0]}.shape={tuple(A.shape)} and {names[1]}.shape={tuple(B.shape)}"
        )
    if A.dtype != B.dtype:
        dt = xp.result_type(A.dtype, B.dtype)
        A, B = xp.astype(A, dt), xp.astype(B, dt)
    ea, eb = _xp_unit_exp(xp, A, ma), _xp_unit_exp(xp, B, mb)
    A = scale_pow2(A, ea) if ea else A
    B = scale_pow2(B, eb) if eb else B
    return A, ea, B, eb


def _xp_kta(xp: Any, K1: Any, K2: Any) -> float:
    A, _, B, _ = _xp_pair(xp, K1, K2, ("K1", "K2"), 1)
    aa, bb, ab, ma, mb = host_floats(
        xp, xp.sum(A * A), xp.sum(B * B), xp.sum(A * B), xp.max(xp.abs(A)), xp.max(xp.abs(B)))
    na, nb = math.sqrt(aa), math.sqrt(bb)
    _check_nonzero(na, ma, 1.0, "K1", "a", _xp_eps(xp, A))
    _check_nonzero(nb, mb, 1.0, "K2", "a", _xp_eps(xp, B))
    return _cosine(ab, na, nb)


def _xp_cka(xp: Any, K1: Any, K2: Any) -> float:
    A, _, B, _ = _xp_pair(xp, K1, K2, ("K1", "K2"), 2)
    Ac, Bc = _xp_center(xp, A), _xp_center(xp, B)
    aa, bb, ab, ma, mb = host_floats(
        xp, xp.sum(Ac * Ac), xp.sum(Bc * Bc), xp.sum(Ac * Bc), xp.max(xp.abs(A)), xp.max(xp.abs(B)))
    na, nb = math.sqrt(aa), math.sqrt(bb)
    n = int(A.shape[0])
    _check_nonzero(na, ma, n, "K1", "a centered", _xp_eps(xp, A))
    _check_nonzero(nb, mb, n, "K2", "a centered", _xp_eps(xp, B))
    return _cosine(ab, na, nb)


def _xp_hsic_u(xp: Any, A: Any, B: Any) -> Any:
    """Unbiased HSIC of symmetric ``(n, n)`` arrays of ``xp``, ``n >= 4``, as a 0-d array (no sync)."""
    n = int(A.shape[0])
    off = 1.0 - xp.eye(n, dtype=A.dtype, device=_xp.device_of(A))
    At, Bt = A * off, B * off
    ra, rb = xp.sum(At, axis=1), xp.sum(Bt, axis=1)
    term1 = xp.sum(At * Bt)
    term2 = xp.sum(ra) * xp.sum(rb) / ((n - 1) * (n - 2))
    term3 = 2.0 * xp.sum(ra * rb) / (n - 2)
    return (term1 + term2 - term3) / (n * (n - 3))


def _xp_hsic(xp: Any, K: Any, L: Any, unbiased: bool) -> float:
    min_n = 4 if unbiased else 2
    A = _xp_array(xp, K, "K", K if _xp._is_foreign(K, "K") else L)
    B = _xp_array(xp, L, "L", A)
    A, ea, B, eb = _xp_pair(xp, A, B, ("K", "L"), 1)
    n = int(A.shape[0])
    if n < min_n:
        kind = "unbiased" if unbiased else "biased"
        raise ValueError(f"the {kind} HSIC estimator needs n >= {min_n} samples; got n = {n}")
    if unbiased:
        val = _xp_hsic_u(xp, A, B)
    else:
        # tr(K H L H) = <H K H, L>_F = <H K H, H L H>_F; in low precision centre L as well,
        # so that its offset does not cancel in the sum
        Bc = _xp_center(xp, B) if _xp_eps(xp, B) > 1e-10 else B
        val = xp.sum(_xp_center(xp, A) * Bc) / ((n - 1) ** 2)
    (v,) = host_floats(xp, val)
    return _rescale_back(v, math.ldexp(1.0, -ea), math.ldexp(1.0, -eb))


def _xp_features(xp: Any, X: Any, Y: Any) -> tuple[Any, Any]:
    """Two real floating 2-D arrays of ``xp`` with the same rows (shapes checked, values not)."""
    Xa = _xp_array(xp, X, "X", X if _xp._is_foreign(X, "X") else Y)
    Ya = _xp_array(xp, Y, "Y", Xa)
    sx, sy = check_shape(Xa, "X"), check_shape(Ya, "Y")
    if sx[0] != sy[0]:
        raise ValueError(
            f"X and Y must describe the same samples (same number of rows); "
            f"got X.shape={sx} and Y.shape={sy}"
        )
    if Xa.dtype != Ya.dtype:
        dt = xp.result_type(Xa.dtype, Ya.dtype)
        Xa, Ya = xp.astype(Xa, dt), xp.astype(Ya, dt)
    return Xa, Ya


def _xp_concat(xp: Any, parts: list) -> Any:
    return xp.concat([xp.reshape(p, (-1,)) for p in parts])


def _xp_linear_cka(xp: Any, X: Any, Y: Any) -> float:
    """linear_cka in ``X``'s namespace: two passes over the rows, in row blocks.

    Pass 1: column sums (pairwise), column maxima and minima (which also detect NaN/inf).
    Pass 2: the shifted blocks ``Xs = X - m1`` (exact subtraction when the offset dominates),
    their column sums and the products ``Xs^T Xs``, ``Ys^T Ys``, ``Xs^T Ys`` summed over
    blocks; then the centred products ``Xs^T Ys - (1^T Xs)^T (1^T Ys) / n``, a correction of
    rounding size only, since ``m1`` is the mean up to ``log2(n) eps``. Everything is scaled
    by exact powers of two so that ``max|Xs| ~ 1`` (no overflow, no underflow).
    """
    Xa, Ya = _xp_features(xp, X, Y)
    n, d1 = (int(s) for s in Xa.shape)
    d2 = int(Ya.shape[1])
    if n < 2:
        raise ValueError(f"X and Y need at least 2 samples; got {n}")
    lo_e, hi_e = _xp_prescale_range(xp, Xa)

    def pass1(ex: int, ey: int) -> Any:
        def f(xb: Any, yb: Any) -> Any:
            bx = _xp._compat().array_namespace(xb)
            return _xp_concat(bx, [colsum(bx, scale_pow2(xb, ex)), colsum(bx, scale_pow2(yb, ey))])

        return block_sum(xp, f, [Xa, Ya], [], d1 + d2, Xa.dtype)

    s1 = pass1(0, 0)
    cmx, cnx, cmy, cny = xp.max(Xa, axis=0), xp.min(Xa, axis=0), xp.max(Ya, axis=0), xp.min(Ya, axis=0)
    s1, cmx, cnx, cmy, cny = realize(xp, s1, cmx, cnx, cmy, cny)
    hx, lx, hy, ly = host_floats(xp, xp.max(cmx), xp.min(cnx), xp.max(cmy), xp.min(cny))
    if not (math.isfinite(hx) and math.isfinite(lx)):
        _xp.raise_non_finite(xp, Xa, "X")
    if not (math.isfinite(hy) and math.isfinite(ly)):
        _xp.raise_non_finite(xp, Ya, "Y")
    mx, my = max(hx, -lx), max(hy, -ly)
    ex = ey = 0
    if not lo_e <= _xp.exponent(mx) <= hi_e:
        ex = -_xp.exponent(mx)
    if not lo_e <= _xp.exponent(my) <= hi_e:
        ey = -_xp.exponent(my)
    if ex or ey:  # extreme magnitudes: the sums again, on exactly rescaled values
        (s1,) = realize(xp, pass1(ex, ey))
    # ranges of the columns (scaled): max |X - m1| <= max_j (max_j - min_j)
    rx, ry = host_floats(xp, xp.max(scale_pow2(cmx, ex) - scale_pow2(cnx, ex)),
                         xp.max(scale_pow2(cmy, ey) - scale_pow2(cny, ey)))
    eps = _xp_eps(xp, Xa)
    for r, m, e, name, d in ((rx, mx, ex, "X", d1), (ry, my, ey, "Y", d2)):
        if r == 0.0:  # every column constant
            _check_nonzero(0.0, math.ldexp(m, e), math.sqrt(n * d), name, "a centered", eps)
    px, py = -_xp.exponent(rx), -_xp.exponent(ry)
    m1x, m1y = s1[:d1] / n, s1[d1:] / n

    def pass2(xb: Any, yb: Any, mxv: Any, myv: Any) -> Any:
        bx = _xp._compat().array_namespace(xb)
        xs = scale_pow2(scale_pow2(xb, ex) - mxv, px)
        ys = scale_pow2(scale_pow2(yb, ey) - myv, py)
        xt = bx.matrix_transpose(xs)
        return _xp_concat(bx, [colsum(bx, xs), colsum(bx, ys), xt @ xs,
                               bx.matrix_transpose(ys) @ ys, xt @ ys])

    out = block_sum(xp, pass2, [Xa, Ya], [m1x, m1y], d1 + d2 + d1 * d1 + d2 * d2 + d1 * d2, Xa.dtype)
    sx, sy = out[:d1], out[d1 : d1 + d2]
    o = d1 + d2
    Gxx = xp.reshape(out[o : o + d1 * d1], (d1, d1))
    o += d1 * d1
    Gyy = xp.reshape(out[o : o + d2 * d2], (d2, d2))
    o += d2 * d2
    Gxy = xp.reshape(out[o:], (d1, d2))
    def col(v: Any) -> Any:
        return xp.reshape(v, (-1, 1))

    def row(v: Any) -> Any:
        return xp.reshape(v, (1, -1))
    Cxx = Gxx - col(sx) * row(sx) / n
    Cyy = Gyy - col(sy) * row(sy) / n
    Cxy = Gxy - col(sx) * row(sy) / n
    dev = _xp.device_of(Xa)
    num, fx, fy, tx, ty = host_floats(
        xp, xp.sum(Cxy * Cxy), xp.sum(Cxx * Cxx), xp.sum(Cyy * Cyy),
        xp.sum(Cxx * xp.eye(d1, dtype=Cxx.dtype, device=dev)),
        xp.sum(Cyy * xp.eye(d2, dtype=Cyy.dtype, device=dev)))
    for t, m, e, p, name, d in ((tx, mx, ex, px, "X", d1), (ty, my, ey, py, "Y", d2)):
        try:
            m_scaled = math.ldexp(m, e + p)  # max|X| in the units of the scaled, centred copy
        except OverflowError:
            m_scaled = math.inf
        _check_nonzero(math.sqrt(max(t, 0.0)), m_scaled, math.sqrt(n * d), name, "a centered", eps)
    if not (math.isfinite(num) and math.isfinite(fx) and math.isfinite(fy)):  # pragma: no cover - scaled to ~1
        raise ValueError("the cross-products of X and Y overflow; rescale X and Y (CKA is scale invariant)")
    return float(min(1.0, max(0.0, num / (math.sqrt(fx) * math.sqrt(fy)))))


def _xp_minibatch_ratio(xp: Any, pairs: Any, scale: tuple[int, int] | None, flags: list | None = None) -> float:
    """:func:`_minibatch_ratio` in ``xp``: batch sums kept on the device (merged pairwise), one
    synchronisation at the end. ``scale`` holds the exponents of exact power-of-two scalings
    (``None``: taken from the first batch). ``flags`` collects ``(name, finite?)`` pairs of the
    streamed batches, checked at the end, before the sums."""
    kl, kk, ll = _xp.PairwiseSum(), _xp.PairwiseSum(), _xp.PairwiseSum()
    dtype = None
    for Xb, Yb in pairs:
        if scale is None:
            scale = (_xp_unit_exp(xp, Xb, _xp_extrema(xp, Xb, "X_0 (batch 0)")),
                     _xp_unit_exp(xp, Yb, _xp_extrema(xp, Yb, "Y_0 (batch 0)")))
        b = int(Xb.shape[0])
        Xb, Yb = scale_pow2(Xb, scale[0]), scale_pow2(Yb, scale[1])
        # HSIC_u is invariant to shifts of the features: centre each batch (pairwise means)
        Xb = Xb - colsum(xp, Xb) / b
        Yb = Yb - colsum(xp, Yb) / b
        Kb, Lb = Xb @ xp.matrix_transpose(Xb), Yb @ xp.matrix_transpose(Yb)
        kl.add(_xp_hsic_u(xp, Kb, Lb))
        kk.add(_xp_hsic_u(xp, Kb, Kb))
        ll.add(_xp_hsic_u(xp, Lb, Lb))
        dtype = Xb.dtype
    flags = flags or []
    vals = host_floats(xp, kl.total(), kk.total(), ll.total(), *(f for _, f in flags))
    for (name, _), ok in zip(flags, vals[3:]):
        if not ok:
            raise ValueError(f"{name} contains NaN or infinity")
    kl_v, kk_v, ll_v = vals[:3]
    if not (math.isfinite(kl_v) and math.isfinite(kk_v) and math.isfinite(ll_v)):
        raise ValueError(
            f"the summed unbiased HSIC overflows {dtype}: the batches differ in scale by more "
            f"than the dtype's range allows from the first one; rescale X and Y (CKA is scale invariant)"
        )
    for val, name in ((kk_v, "X"), (ll_v, "Y")):
        if not val > 0.0:
            raise ValueError(
                f"the summed unbiased HSIC of {name} with itself is {val:.3g}, not positive: {name} "
                f"is constant across samples, or there are too few batches; the ratio is undefined"
            )
    return float(kl_v / math.sqrt(kk_v * ll_v))


def _xp_minibatch_cka(xp: Any, X: Any, Y: Any, batch_size: int, random_state: Any) -> float:
    Xa, Ya = _xp_features(xp, X, Y)
    mx, my = _xp_extrema(xp, Xa, "X"), _xp_extrema(xp, Ya, "Y")
    n = int(Xa.shape[0])
    b = _check_batch_size(batch_size, n)
    g = _rng(random_state)
    order = g.permutation(n)[: (n // b) * b].reshape(-1, b)  # the shuffle: host indices, as numpy's
    scale = (_xp_unit_exp(xp, Xa, mx), _xp_unit_exp(xp, Ya, my))
    if _xp.is_dask(Xa):
        pairs = ((Xa[idx, :], Ya[idx, :]) for idx in order)
    else:
        dev = _xp.device_of(Xa)
        try:
            idt = xp.__array_namespace_info__().default_dtypes(device=dev)["indexing"]
        except Exception:  # noqa: BLE001
            idt = xp.int64
        index = xp.asarray(order, dtype=idt, device=dev)  # indices to the device, data stays there
        pairs = ((xp.take(Xa, index[i, :], axis=0), xp.take(Ya, index[i, :], axis=0))
                 for i in range(order.shape[0]))
    return _xp_minibatch_ratio(xp, pairs, scale)


def _xp_checked_batches(xp: Any, pairs: Any, flags: list):
    """Validate streamed batches of ``xp`` arrays (shapes now; finiteness at the end, no sync per batch)."""
    dims = None
    count = 0
    like = None
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"batches must yield pairs (X_i, Y_i); batch {i} is a {type(pair).__name__}")
        names = (f"X_{i} (batch {i})", f"Y_{i} (batch {i})")
        if _xp.namespace(pair, names) is not xp and like is not None:
            raise TypeError(
                f"batch {i} holds arrays of another library or kind than batch 0; every batch "
                f"must come from the same array library"
            )
        Xb = _xp_array(xp, pair[0], names[0], like if like is not None else pair[0])
        Yb = _xp_array(xp, pair[1], names[1], Xb)
        like = Xb
        sx, sy = check_shape(Xb, names[0]), check_shape(Yb, names[1])
        dims = _check_batch_shapes(i, tuple(sx), tuple(sy), dims)
        if Xb.dtype != Yb.dtype:
            dt = xp.result_type(Xb.dtype, Yb.dtype)
            Xb, Yb = xp.astype(Xb, dt), xp.astype(Yb, dt)
        if i > 0:  # batch 0 is checked at once (its maximum sets the scale)
            for A, nm in ((Xb, names[0]), (Yb, names[1])):
                flags.append((nm, xp.isfinite(xp.max(A)) & xp.isfinite(xp.min(A))))
        count += 1
        yield Xb, Yb
    if count == 0:  # pragma: no cover - the caller has seen batch 0
        raise ValueError("batches is empty: at least one (X_i, Y_i) pair is needed")
