"""Vector kernels ``k(X, Y) -> (n, m)`` and the factory :func:`make_kernel`."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from ktheory._validation import check_pair, check_positive

from ._defaults import (
    GAUSSIAN_SIGMA,
    LAPLACIAN_METRIC,
    LAPLACIAN_SIGMA,
    POLY_COEF0,
    POLY_DEGREE,
    POLY_GAMMA,
    SIGMOID_COEF0,
    check_degree,
    check_real,
    gamma_default,
)
from ._scale import (
    check_finite_result,
    check_output_size,
    distance_block,
    exp_neg_scaled,
    gaussian_block,
    gaussian_multiplier,
    safe_div,
    safe_mul,
    scaled_pair,
)

Kernel = Callable[..., np.ndarray]

_OVERFLOW_HINT = "rescale X (and Y), or lower gamma / coef0 / degree"


def linear_kernel(X: Any, Y: Any = None) -> np.ndarray:
    """Linear kernel ``k(x, y) = <x, y>``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.

    Returns
    -------
    numpy.ndarray of shape (n, m)
        The Gram block ``X @ Y.T``.

    Raises
    ------
    ValueError
        If the inputs are invalid or an inner product overflows float64.
    TypeError
        If an input is not a real numeric array (complex arrays included).

    Examples
    --------
    >>> linear_kernel([[1.0, 2.0]], [[3.0, 4.0]])
    array([[11.]])
    """
    Xa, Ya, _ = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    with np.errstate(over="ignore", invalid="ignore"):
        K = Xa @ Ya.T
    return check_finite_result(K, "linear kernel values <x, y>", "rescale X (and Y)")


def polynomial_kernel(
    X: Any, Y: Any = None, degree: int = POLY_DEGREE, gamma: float = POLY_GAMMA, coef0: float = POLY_COEF0
) -> np.ndarray:
    """Polynomial kernel ``k(x, y) = (gamma <x, y> + coef0) ** degree``.

    With the defaults (``KERNEL_DEFAULTS``) this is the book's ``(x . y + 1)^2``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    degree : int, default 2
        Degree ``p >= 1``.
    gamma : float, default 1.0
        Scale of the inner product, ``> 0``.
    coef0 : float, default 1.0
        Additive constant, ``>= 0`` for a positive semidefinite kernel (a
        negative value is allowed but documented as not PSD in general).

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Raises
    ------
    ValueError
        If ``degree < 1``, ``gamma <= 0``, or the values overflow float64.
    TypeError
        If ``degree`` is not an integer or ``coef0`` not a real number.

    Examples
    --------
    >>> polynomial_kernel([[1.0, 2.0]], [[3.0, 4.0]])   # (11 + 1)^2
    array([[144.]])
    """
    p = check_degree(degree)
    g = check_positive(gamma, "gamma")
    c = check_real(coef0, "coef0")
    Xa, Ya, _ = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    with np.errstate(over="ignore", invalid="ignore"):
        K = Xa @ Ya.T
        K *= g
        K += c
        K = K**p
    return check_finite_result(K, "polynomial kernel values (gamma <x, y> + coef0) ** degree", _OVERFLOW_HINT)


def rbf_kernel(X: Any, Y: Any = None, gamma: float | None = None) -> np.ndarray:
    """Radial basis function kernel ``k(x, y) = exp(-gamma ||x - y||^2)``.

    Computed as ``exp(-gamma (||x'||^2 + ||y'||^2 - 2 <x', y'>))`` for the rows
    centred at one common reference point (``x' = x - r``, ``y' = y - r``, ``r``
    the mean of the rows of ``X`` and ``Y``), with one matrix product and in-place
    updates: the values are those of the translated data, ``k(X + t, Y + t) =
    k(X, Y)`` to rounding, for data far from the origin too (the uncentred
    expansion loses ``eps ||x||^2`` to cancellation). Negative squared distances
    from rounding are clipped to 0 so that ``k <= 1`` exactly, and ``k(x, x) = 1``
    exactly on the diagonal when ``Y`` is ``X`` (or None). Inputs of extreme
    magnitude (beyond ``2**+-400``) are rescaled by a power of two first, so
    ``x ~ 1e200`` or ``gamma ~ 1e300`` give the correct value (0 or 1 where it
    rounds to that), never NaN.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    gamma : float, optional
        ``> 0``; default ``1 / d`` (scikit-learn's default).

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Examples
    --------
    >>> rbf_kernel([[0.0], [1.0]], gamma=1.0).round(6)
    array([[1.      , 0.367879],
           [0.367879, 1.      ]])
    """
    Xa, Ya, same = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    g = gamma_default(gamma, Xa.shape[1])
    Xs, Ys, c = scaled_pair(Xa, Ya, same)
    return gaussian_block(Xs, Ys, gaussian_multiplier(c, gamma=g), same)


def gaussian_kernel(X: Any, Y: Any = None, sigma: float = GAUSSIAN_SIGMA) -> np.ndarray:
    """Gaussian kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    sigma : float, default 1.0
        Width ``> 0``. Equals :func:`rbf_kernel` with ``gamma = 1/(2 sigma^2)``
        (the same centred distances, translation invariant to rounding, and an
        exact diagonal of 1 when ``Y`` is ``X``); any finite positive value works
        (``1e-300`` or ``1e300`` included: the exponent is formed without
        computing ``sigma**2``).

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite positive number, or the inputs are invalid.

    Examples
    --------
    >>> gaussian_kernel([[0.0], [2.0]], sigma=2.0).round(6)
    array([[1.      , 0.606531],
           [0.606531, 1.      ]])
    """
    s = check_positive(sigma, "sigma")
    Xa, Ya, same = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    Xs, Ys, c = scaled_pair(Xa, Ya, same)
    return gaussian_block(Xs, Ys, gaussian_multiplier(c, sigma=s), same)


_METRICS = ("euclidean", "manhattan")


def laplacian_kernel(
    X: Any, Y: Any = None, sigma: float = LAPLACIAN_SIGMA, metric: str = LAPLACIAN_METRIC
) -> np.ndarray:
    """Laplacian (exponential) kernel ``k(x, y) = exp(-||x - y|| / sigma)``.

    Note the norm is *not* squared: ``exp(-||x - y|| / (2 sigma^2))``, which
    some notes print as "the Gaussian kernel", is this kernel with width
    ``2 sigma^2``.

    The distances are computed from the differences ``x - y``
    (``scipy.spatial.distance``), so their rounding is relative to ``||x - y||``:
    translation invariant (``k(X + t, Y + t) = k(X, Y)`` to rounding) and exact
    near ``x = y``, where the expansion ``||x||^2 + ||y||^2 - 2 <x, y>`` would
    lose ``sqrt(eps) ||x||`` under the square root. When ``Y`` is ``X`` each pair
    is computed once: the matrix is exactly symmetric, with diagonal exactly 1.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    sigma : float, default 1.0
        Width ``> 0``.
    metric : {"euclidean", "manhattan"}, default "euclidean"
        The norm. ``"manhattan"`` (the L1 norm) equals scikit-learn's
        ``laplacian_kernel`` with ``gamma = 1 / sigma``. Both are computed by
        ``scipy.spatial.distance`` with no ``(n, m, d)`` temporary.

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Examples
    --------
    >>> laplacian_kernel([[0.0, 0.0]], [[3.0, 4.0]], sigma=5.0).round(6)   # exp(-5/5)
    array([[0.367879]])
    >>> laplacian_kernel([[0.0, 0.0]], [[3.0, 4.0]], sigma=7.0,
    ...                  metric="manhattan").round(6)
    array([[0.367879]])
    """
    s = check_positive(sigma, "sigma")
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a str, one of {_METRICS}; got {type(metric).__name__} {metric!r}")
    if metric not in _METRICS:
        raise ValueError(f"metric must be 'euclidean' or 'manhattan', got {metric!r}")
    Xa, Ya, same = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    Xs, Ys, c = scaled_pair(Xa, Ya, same)
    D = distance_block(Xs, Ys, same, "euclidean" if metric == "euclidean" else "cityblock")
    exp_neg_scaled(D, safe_div(c, s))
    return D


def sigmoid_kernel(
    X: Any, Y: Any = None, gamma: float | None = None, coef0: float = SIGMOID_COEF0
) -> np.ndarray:
    """Sigmoid kernel ``k(x, y) = tanh(gamma <x, y> + coef0)``.

    Not positive semidefinite in general (see Chapter 2 for a counterexample
    Gram matrix); parametrization as in scikit-learn, defaults from
    ``KERNEL_DEFAULTS`` (``coef0 = 1``). Values are always in ``[-1, 1]``:
    an inner product beyond float64 range gives ``tanh(+-inf) = +-1``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    gamma : float, optional
        ``> 0``; default ``1 / d``.
    coef0 : float, default 1.0
        Additive constant (any real number).

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Examples
    --------
    >>> sigmoid_kernel([[1.0]], [[2.0]], gamma=0.5, coef0=0.0).round(6)   # tanh(1)
    array([[0.761594]])
    """
    Xa, Ya, same = check_pair(X, Y)
    check_output_size(len(Xa), len(Ya))
    g = gamma_default(gamma, Xa.shape[1])
    c = check_real(coef0, "coef0")
    Xs, Ys, sc = scaled_pair(Xa, Ya, same)
    K = Xs @ Ys.T
    sigmoid_rows(K, safe_mul(safe_mul(g, sc), sc), c)
    return K


def sigmoid_rows(B: np.ndarray, m: float, c: float) -> None:
    """``B <- tanh(m B + c)`` in place, with ``m`` possibly ``inf`` (``inf * 0 = 0``)."""
    if np.isinf(m):
        np.sign(B, out=B)
        with np.errstate(invalid="ignore"):
            B *= np.inf
        np.nan_to_num(B, copy=False, nan=0.0, posinf=np.inf, neginf=-np.inf)
    else:
        with np.errstate(over="ignore"):
            B *= m
    B += c
    np.tanh(B, out=B)


_NAMED = ("linear", "poly", "polynomial", "rbf", "gaussian", "laplacian", "sigmoid")


def make_kernel(
    kernel: str | Kernel,
    *,
    gamma: float | None = None,
    degree: int | None = None,
    coef0: float | None = None,
    sigma: float | None = None,
    metric: str | None = None,
) -> Kernel:
    """Turn a kernel name into a callable ``k(X, Y=None)``.

    The result is ``functools.partial(<kernel function>, **given)`` with only
    the parameters that were given (and that apply to the kernel) bound; the
    others take the kernel function's defaults, ``KERNEL_DEFAULTS`` (the one
    source of defaults: the factory and the functions cannot differ). The
    partial can be pickled. Parameters that do not apply to the named kernel
    are ignored (``degree`` for ``"rbf"``, say), as in scikit-learn.

    Parameters
    ----------
    kernel : str or callable
        ``"linear"``, ``"poly"``/``"polynomial"``
        (``(gamma <x,y> + coef0)^degree``), ``"rbf"`` (``exp(-gamma ||x-y||^2)``),
        ``"gaussian"`` (``sigma``), ``"laplacian"`` (``exp(-||x-y|| / sigma)``
        with ``sigma = 1 / gamma`` when ``gamma`` is given, and ``metric``),
        ``"sigmoid"`` (``tanh(gamma <x,y> + coef0)``), or a callable
        ``k(X, Y) -> array`` returned unchanged.
    gamma : float, optional
        Kernel coefficient of ``poly``, ``rbf``, ``laplacian``, ``sigmoid``.
        When None: the function's default (``1 / n_features`` at call time for
        ``rbf`` and ``sigmoid``, ``1`` for ``poly``).
    degree : int, optional
        Degree of ``poly`` (default 2).
    coef0 : float, optional
        Constant of ``poly`` and ``sigmoid`` (default 1).
    sigma : float, optional
        Width of ``gaussian`` and ``laplacian`` (default 1).
    metric : {"euclidean", "manhattan"}, optional
        Norm of ``laplacian`` (default ``"euclidean"``; ``"manhattan"`` with
        ``gamma`` is scikit-learn's ``laplacian_kernel``).

    Returns
    -------
    callable
        ``k(X, Y=None) -> numpy.ndarray``.

    Raises
    ------
    ValueError
        If ``kernel`` is an unknown name or a parameter is out of range.
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> k = make_kernel("poly", degree=3)
    >>> k([[1.0]], [[2.0]])   # (1 * 2 + 1)^3 with the default gamma = coef0 = 1
    array([[27.]])
    """
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str) or kernel not in _NAMED:
        raise ValueError(f"kernel must be one of {_NAMED} or a callable, got {kernel!r}")
    given: dict[str, Any] = {}
    if gamma is not None:
        given["gamma"] = check_positive(gamma, "gamma")
    if degree is not None:
        given["degree"] = check_degree(degree)
    if coef0 is not None:
        given["coef0"] = check_real(coef0, "coef0")
    if sigma is not None:
        given["sigma"] = check_positive(sigma, "sigma")
    if metric is not None:
        if not isinstance(metric, str) or metric not in _METRICS:
            raise ValueError(f"metric must be 'euclidean' or 'manhattan', got {metric!r}")
        given["metric"] = metric

    def pick(*names: str) -> dict[str, Any]:
        return {k: given[k] for k in names if k in given}

    if kernel == "linear":
        return linear_kernel
    if kernel in ("poly", "polynomial"):
        return partial(polynomial_kernel, **pick("degree", "gamma", "coef0"))
    if kernel == "rbf":
        return partial(rbf_kernel, **pick("gamma"))
    if kernel == "gaussian":
        return partial(gaussian_kernel, **pick("sigma"))
    if kernel == "laplacian":
        kw = pick("sigma", "metric")
        if "gamma" in given and "sigma" not in given:
            kw["sigma"] = 1.0 / given["gamma"]
        return partial(laplacian_kernel, **kw)
    return partial(sigmoid_kernel, **pick("gamma", "coef0"))
