"""Numerical tests of positive semidefiniteness."""

from __future__ import annotations

from typing import Any

import numpy as np

from ktheory._validation import check_positive, check_square_matrix, floating_dtype, symmetry_rtol

from ._scale import pow2_scale

#: Relative tolerance of the symmetry test in :func:`is_psd` for float64 input
#: (lower-precision input uses ``ktheory._validation.symmetry_rtol`` of its dtype).
SYMMETRY_RTOL = 1e-10

#: Largest matrix order for the O(n^3) eigendecomposition of :func:`is_psd` / :func:`psd_tolerance`.
MAX_PSD_SIZE = 20_000


def _check_psd_size(K: Any) -> None:
    """Refuse up front (before any copy) a matrix too large for an eigendecomposition."""
    shape = getattr(K, "shape", None)
    if shape is not None and len(shape) == 2 and max(shape) > MAX_PSD_SIZE:
        raise ValueError(
            f"K has shape {tuple(shape)}: the eigendecomposition of an n x n matrix costs O(n^3) time and "
            f"n = {max(shape)} exceeds the limit MAX_PSD_SIZE = {MAX_PSD_SIZE}"
        )


def _eigs(Ka: np.ndarray) -> tuple[np.ndarray, float]:
    """Eigenvalues of the symmetric part of ``Ka / c`` and the power of two ``c`` (scale-safe)."""
    c = pow2_scale(Ka)
    Ks = Ka / c if c != 1.0 else Ka
    return np.linalg.eigvalsh((Ks + Ks.T) / 2.0), c


def _psd_tol(eigs: np.ndarray, n: int, dtype: Any = np.float64) -> float:
    return n * float(np.finfo(dtype).eps) * float(np.max(np.abs(eigs))) if n else 0.0


def psd_tolerance(K: Any) -> float:
    """The default eigenvalue tolerance of :func:`is_psd`: ``n * eps * max |eigenvalue|``.

    This is the size of the rounding error of a symmetric eigensolver on an
    ``n x n`` matrix (the rule ``numpy.linalg.matrix_rank`` uses for singular
    values): an exactly PSD matrix computed in floating point is not refuted
    because of rounding, while a negative eigenvalue above the rounding level
    is reported. It scales with ``K``, so the verdict of :func:`is_psd` does
    not change when ``K`` is multiplied by a positive number. ``eps`` is that
    of the input's dtype (float32 input: ``1.2e-7``).

    Examples
    --------
    >>> import numpy as np
    >>> bool(psd_tolerance(np.eye(2)) == 2 * np.finfo(float).eps)
    True
    """
    _check_psd_size(K)
    Ka = check_square_matrix(K)
    if Ka.shape[0] == 0:
        return 0.0
    eigs, c = _eigs(Ka)
    return _psd_tol(eigs, Ka.shape[0], floating_dtype(K)) * c


def _symmetric_square(K: Any) -> tuple[np.ndarray, np.dtype] | None:
    """The input checks :func:`is_psd` and ``is_cnd`` share: ``K`` validated as a square
    matrix (``ValueError``/``TypeError`` otherwise) with its floating dtype, or ``None``
    when it is not symmetric to the dtype's rounding level (then neither property holds)."""
    _check_psd_size(K)
    Ka = check_square_matrix(K)
    dt = floating_dtype(K)
    if Ka.size == 0:
        return Ka, dt
    scale = float(max(Ka.max(), -Ka.min()))
    with np.errstate(over="ignore"):
        asym = float(np.max(np.abs(Ka - Ka.T)))
    rtol = SYMMETRY_RTOL if dt == np.float64 else symmetry_rtol(dt)
    if asym > rtol * scale:
        return None
    return Ka, dt


def is_psd(K: Any, tol: float | None = None) -> bool:
    """Whether ``K`` is a symmetric positive semidefinite matrix (up to rounding).

    Parameters
    ----------
    K : array_like of shape (n, n)
        A finite real square matrix.
    tol : float, optional
        Eigenvalues ``>= -tol`` count as non-negative. Default:
        :func:`psd_tolerance`, ``n * eps * max |eigenvalue|``, which is
        invariant to positive scaling of ``K``.

    Returns
    -------
    bool
        True when ``K`` is symmetric, ``max |K - K.T| <= rtol * max |K|``
        (``rtol = SYMMETRY_RTOL = 1e-10`` for float64 input, ``100 eps`` of the
        input's dtype for float32: rounding-level asymmetry is accepted), and
        the smallest eigenvalue of its symmetric part is ``>= -tol``.
        A numerical test on finitely many points can only refute positive
        semidefiniteness of a *kernel*, never prove it. Matrices of extreme
        magnitude (``1e300``, ``1e-300``) are rescaled exactly by a power of two.

    Raises
    ------
    ValueError
        If ``K`` is not square, not 2-D or contains NaN/inf, or ``tol < 0``.
    TypeError
        If ``K`` is complex (a Hermitian test is not what this function does)
        or not numeric, or ``tol`` is not a real number.

    Examples
    --------
    >>> import numpy as np
    >>> is_psd(np.array([[2.0, 1.0], [1.0, 2.0]])), is_psd(np.array([[1.0, 2.0], [2.0, 1.0]]))
    (True, False)
    """
    t_user = None if tol is None else check_positive(tol, "tol", allow_zero=True)
    checked = _symmetric_square(K)
    if checked is None:
        return False
    Ka, dt = checked
    n = Ka.shape[0]
    if n == 0:
        return True
    eigs, c = _eigs(Ka)
    t = _psd_tol(eigs, n, dt) if t_user is None else t_user / c
    return bool(eigs[0] >= -t)
