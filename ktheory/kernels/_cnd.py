"""Numerical test of conditional negative definiteness.

Chapter 4, Schoenberg's theorem.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import helmert

from ktheory._validation import check_positive

from ._psd import _eigs, _psd_tol, _symmetric_square


def is_cnd(K: Any, tol: float | None = None) -> bool:
    """Whether ``K`` is conditionally negative definite (up to rounding).

    A symmetric matrix ``K = [psi(x_i, x_j)]`` is conditionally negative
    definite (CND) when ``c @ K @ c <= 0`` for every ``c`` with
    ``sum(c) == 0``. Writing ``c = V u`` with ``V`` an orthonormal basis of
    that subspace (the transposed Helmert matrix), this is: ``-V.T @ K @ V`` is
    positive semidefinite. By Schoenberg's theorem ``exp(-t K)`` (entrywise) is
    then positive semidefinite for every ``t > 0``.

    Parameters
    ----------
    K : array_like of shape (n, n)
        A finite real square matrix, e.g. the matrix of squared distances.
    tol : float, optional
        Eigenvalues of ``-V.T @ K @ V`` that are ``>= -tol`` count as
        non-negative. Default: ``n * eps * max |eigenvalue of K|``, the rounding
        level of ``K`` itself (the projected matrix can be much smaller than
        ``K``, e.g. zero for ``K[i, j] = g_i + g_j``, so its own rounding level
        would be too strict). Invariant to positive scaling of ``K``.

    Returns
    -------
    bool
        True when ``K`` is symmetric (the same rule as :func:`is_psd`) and the
        smallest eigenvalue of ``-V.T @ K @ V`` is ``>= -tol``. A ``1 x 1``
        matrix is CND (only ``c = 0`` sums to zero). Like :func:`is_psd`, on
        the Gram matrix of finitely many points this can refute, never prove,
        that a function ``psi`` is CND.

    Raises
    ------
    ValueError
        If ``K`` is not square, not 2-D, empty or contains NaN/inf, or ``tol < 0``.
    TypeError
        If ``K`` is complex or not numeric, or ``tol`` is not a real number.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.0, 1.0, 2.0])
    >>> is_cnd(np.abs(x[:, None] - x[None, :]) ** 2)     # |x - z|^2 is CND
    True
    >>> is_cnd(np.abs(x[:, None] - x[None, :]) ** 3)     # |x - z|^3 is not
    False
    """
    t_user = None if tol is None else check_positive(tol, "tol", allow_zero=True)
    checked = _symmetric_square(K)
    if checked is None:
        return False
    Ka, dt = checked
    n = Ka.shape[0]
    if n <= 1:
        return True
    eigs_K, c = _eigs(Ka)           # eigenvalues of K / c, c a power of two
    Ks = Ka / c if c != 1.0 else Ka
    Ks = (Ks + Ks.T) / 2.0
    V = helmert(n)                  # (n - 1, n): orthonormal rows orthogonal to 1
    A = -(V @ Ks @ V.T)
    lam = np.linalg.eigvalsh((A + A.T) / 2.0)
    t = _psd_tol(eigs_K, n, dt) if t_user is None else t_user / c
    return bool(lam[0] >= -t)
