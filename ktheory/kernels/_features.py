"""The explicit feature map of the polynomial kernel."""

from __future__ import annotations

import math
import numbers
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from ktheory._validation import check_array, check_positive

from ._defaults import POLY_COEF0, POLY_DEGREE, check_degree

#: Largest number of monomials (rows of :func:`polynomial_feature_powers`) built on request.
MAX_FEATURE_DIMENSION = 1 << 20
#: Largest number of values ``n_samples * D`` that :func:`polynomial_feature_map` returns (512 MiB).
MAX_FEATURE_MAP_ELEMENTS = 1 << 26
#: Working memory of one block of the feature map, in values.
_MAP_BLOCK_ELEMENTS = 1 << 22


def _check_n_features(n_features: Any) -> int:
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral):
        raise TypeError(f"n_features must be an integer >= 1, got {type(n_features).__name__} {n_features!r}")
    if n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
    return int(n_features)


def _check_homogeneous(homogeneous: Any) -> bool:
    if not isinstance(homogeneous, (bool, np.bool_)):
        raise TypeError(f"homogeneous must be a bool, got {type(homogeneous).__name__} {homogeneous!r}")
    return bool(homogeneous)


#: Largest number of decimal digits :func:`polynomial_feature_dimension` computes exactly.
MAX_DIMENSION_DIGITS = 100_000


def _log10_dimension(n: int, d: int, homogeneous: bool) -> float:
    """``log10`` of the dimension, from log-gamma (cheap for any size)."""
    top = n + d - 1 if homogeneous else n + d
    return (math.lgamma(top + 1) - math.lgamma(d + 1) - math.lgamma(top - d + 1)) / math.log(10)


def polynomial_feature_dimension(n_features: int, degree: int, homogeneous: bool = False) -> int:
    """Dimension of the explicit feature map: ``C(n + d, d)``, or ``C(n + d - 1, d)`` if homogeneous.

    An exact Python integer, however large (nothing is allocated).

    Raises
    ------
    ValueError
        If ``n_features < 1`` or ``degree < 1``.
    TypeError
        If they are not integers, or ``homogeneous`` is not a bool.

    Examples
    --------
    >>> polynomial_feature_dimension(20, 5)
    53130
    """
    n = _check_n_features(n_features)
    d = check_degree(degree)
    homog = _check_homogeneous(homogeneous)
    digits = _log10_dimension(n, d, homog)
    if digits > MAX_DIMENSION_DIGITS:
        raise ValueError(
            f"the dimension for n_features = {n} and degree = {d} has about {digits:.3g} decimal digits, "
            f"more than the limit MAX_DIMENSION_DIGITS = {MAX_DIMENSION_DIGITS}"
        )
    if homog:
        return math.comb(n + d - 1, d)
    return math.comb(n + d, d)


def polynomial_feature_powers(n_features: int, degree: int, homogeneous: bool = False) -> np.ndarray:
    """Exponent vectors of the monomials in the polynomial kernel's feature map.

    Returns an integer array of shape ``(D, n_features)`` whose rows are the
    exponents ``(k_1, ..., k_n)`` with ``sum k_i <= degree`` (``== degree``
    when ``homogeneous``), in graded order: constant first, then degree 1,
    and so on.

    Raises
    ------
    ValueError
        If ``n_features < 1`` or ``degree < 1``, or ``D`` exceeds
        ``MAX_FEATURE_DIMENSION`` (2**20): the size is refused up front, with
        the size and the limit in the message.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> polynomial_feature_powers(2, 2)
    array([[0, 0],
           [1, 0],
           [0, 1],
           [2, 0],
           [1, 1],
           [0, 2]])
    """
    n = _check_n_features(n_features)
    d = check_degree(degree)
    homog = _check_homogeneous(homogeneous)
    D = (
        MAX_FEATURE_DIMENSION + 1
        if _log10_dimension(n, d, homog) > 7
        else polynomial_feature_dimension(n, d, homog)
    )
    if D > MAX_FEATURE_DIMENSION:
        raise ValueError(
            f"the feature map of degree {d} in {n} features has D = C({n + d - (1 if homog else 0)}, {d}) "
            f"~ 10^{_log10_dimension(n, d, homog):.1f} coordinates, more than the limit "
            f"MAX_FEATURE_DIMENSION = {MAX_FEATURE_DIMENSION}; use the kernel (polynomial_kernel) instead "
            "of the explicit map"
        )
    out = np.zeros((D, n), dtype=np.int64)
    r = 0
    for total in ([d] if homog else range(d + 1)):
        for combo in combinations_with_replacement(range(n), total):
            for idx in combo:
                out[r, idx] += 1
            r += 1
    return out


def polynomial_feature_map(X: Any, degree: int = POLY_DEGREE, coef0: float = POLY_COEF0) -> np.ndarray:
    """Explicit feature map ``phi`` with ``phi(x) . phi(z) = (x . z + coef0) ** degree``.

    By the multinomial theorem,
    ``(x . z + c)^d = sum_k  d! / (k_0! k_1! ... k_n!) c^{k_0} prod_i (x_i z_i)^{k_i}``
    over all ``k_0 + k_1 + ... + k_n = d``; so the coordinate of ``phi(x)`` for
    the exponent vector ``(k_1, ..., k_n)`` (with ``k_0 = d - sum k_i``) is
    ``sqrt(d! c^{k_0} / (k_0! ... k_n!)) prod_i x_i^{k_i}``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Samples.
    degree : int, default 2
        Degree ``d >= 1``.
    coef0 : float, default 1.0
        The constant ``c >= 0``. With ``c > 0`` the map has
        ``C(n + d, d)`` coordinates (all monomials of degree ``<= d``); with
        ``c = 0`` only the ``C(n + d - 1, d)`` monomials of degree exactly ``d``.

    Returns
    -------
    numpy.ndarray of shape (n_samples, D)
        Rows ``phi(x)`` with columns ordered as
        :func:`polynomial_feature_powers`.

    Raises
    ------
    ValueError
        On invalid ``X``, ``degree < 1``, ``coef0 < 0``; when ``D`` exceeds
        ``MAX_FEATURE_DIMENSION`` or ``n_samples * D`` exceeds
        ``MAX_FEATURE_MAP_ELEMENTS`` (2**26 values, 512 MiB), refused up front
        with the size and the limit; or when a coordinate overflows float64.

    Examples
    --------
    >>> phi = polynomial_feature_map([[1.0, 2.0]], degree=2, coef0=1.0)
    >>> float((phi @ phi.T)[0, 0])   # (1 + 4 + 1)^2
    36.0
    """
    Xa = check_array(X)
    d = check_degree(degree)
    c = check_positive(coef0, "coef0", allow_zero=True)
    n_samples, n_features = Xa.shape
    powers = polynomial_feature_powers(n_features, d, homogeneous=(c == 0.0))  # refuses D > the limit
    D = powers.shape[0]
    if n_samples * D > MAX_FEATURE_MAP_ELEMENTS:
        raise ValueError(
            f"the feature map of {n_samples} samples has {n_samples} x {D} = {n_samples * D} values, more than "
            f"the limit MAX_FEATURE_MAP_ELEMENTS = {MAX_FEATURE_MAP_ELEMENTS}; use polynomial_kernel instead"
        )
    k0 = d - powers.sum(axis=1)
    log_fact = np.array([math.lgamma(k + 1) for k in range(d + 1)])
    log_coef = math.lgamma(d + 1) - log_fact[k0] - log_fact[powers].sum(axis=1)
    # with c = 0 the map is homogeneous, so every k0 is 0 and the factor c^k0 is 1
    log_c = k0 * math.log(c) if c > 0 else np.zeros(len(k0))
    log_w2 = log_coef + log_c
    with np.errstate(over="ignore"):
        weights = np.sqrt(np.exp(log_w2))
    big = ~np.isfinite(weights)  # c**k0 itself overflows: take the square root in log space
    weights[big] = np.exp(0.5 * log_w2[big])
    out = np.empty((n_samples, D))
    rows = max(1, _MAP_BLOCK_ELEMENTS // max(1, D * n_features))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for r0 in range(0, n_samples, rows):
            blk = Xa[r0 : r0 + rows]
            np.prod(blk[:, None, :] ** powers[None, :, :], axis=2, out=out[r0 : r0 + rows])
        out *= weights[None, :]
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"polynomial feature values overflow float64 (|value| > 1.8e308) for degree {d} and "
            f"max |X| = {float(np.max(np.abs(Xa))):.3g}: rescale X or lower degree / coef0"
        )
    return out
