"""Numerical tests of positive semidefiniteness."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from ktheory._validation import (
    check_array,
    check_positive,
    check_square_matrix,
    floating_dtype,
    symmetry_rtol,
)

from ._defaults import gamma_default, resolve_params
from ._pairwise import (
    gaussian_kernel,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from ._scale import (
    gaussian_multiplier,
    pow2_scale,
    reference_point,
    safe_mul,
    sqdist_error,
    squared_norms,
)

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


def _psd_tol(eigs: np.ndarray, n: int, dtype: Any = np.float64, kmax: float = 0.0) -> float:
    """``n * eps * (max |eigenvalue| + kmax)`` (``kmax``: ``max |K_ij|``, same scale)."""
    return n * float(np.finfo(dtype).eps) * (float(np.max(np.abs(eigs))) + kmax) if n else 0.0


def _max_abs(Ks: np.ndarray) -> float:
    return float(max(Ks.max(), -Ks.min())) if Ks.size else 0.0


def psd_tolerance(K: Any) -> float:
    """The default eigenvalue tolerance of :func:`is_psd`:
    ``n * eps * (max |eigenvalue| + max |K_ij|)``.

    Two roundings, neither of which can make a PSD matrix indefinite beyond it: that
    of a symmetric eigensolver on an ``n x n`` matrix, ``n * eps * max |eigenvalue|``
    (the rule ``numpy.linalg.matrix_rank`` uses for singular values), and that of the
    matrix itself, each entry of a computed matrix at best rounded once
    (``|E_ij| <= eps * max |K_ij|``, which by Weyl's inequality moves no eigenvalue by
    more than ``n * eps * max |K_ij|``). An exactly PSD matrix computed in floating
    point is thus not refuted because of rounding, while a negative eigenvalue above
    the rounding level is reported. It scales with ``K``, so the verdict of
    :func:`is_psd` does not change when ``K`` is multiplied by a positive number.
    ``eps`` is that of the input's dtype (float32 input: ``1.2e-7``). A Gram matrix
    whose entries carry more error than one rounding (a Gaussian kernel on points
    spread far wider than ``sigma``: :func:`gram_entry_error`) needs the larger
    tolerance ``n * (eps * max |eigenvalue| + gram_entry_error)``, passed to
    :func:`is_psd` as ``tol``; ktheory's estimators use that rule
    (``ktheory._validation.psd_gram_tolerance``).

    Examples
    --------
    >>> import numpy as np
    >>> bool(psd_tolerance(np.eye(2)) == 2 * np.finfo(float).eps * (1 + 1))
    True
    """
    _check_psd_size(K)
    Ka = check_square_matrix(K)
    if Ka.shape[0] == 0:
        return 0.0
    eigs, c = _eigs(Ka)
    return _psd_tol(eigs, Ka.shape[0], floating_dtype(K), _max_abs(Ka) / c) * c


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
        :func:`psd_tolerance`, ``n * eps * (max |eigenvalue| + max |K_ij|)``
        (the eigensolver's rounding and the entries' own), which is invariant
        to positive scaling of ``K``.

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
    >>> (is_psd(np.array([[2.0, 1.0], [1.0, 2.0]])),
    ...  is_psd(np.array([[1.0, 2.0], [2.0, 1.0]])))
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
    t = _psd_tol(eigs, n, dt, _max_abs(Ka) / c) if t_user is None else t_user / c
    return bool(eigs[0] >= -t)


_EPS = float(np.finfo(np.float64).eps)


def _kernel_name(kernel: Any) -> tuple[str | None, dict]:
    """The name of ktheory's kernel function behind ``kernel`` (possibly a
    ``functools.partial``, as :func:`make_kernel` returns) and its keyword parameters."""
    funcs = {linear_kernel: "linear_kernel", polynomial_kernel: "polynomial_kernel",
             gaussian_kernel: "gaussian_kernel", rbf_kernel: "rbf_kernel",
             laplacian_kernel: "laplacian_kernel", sigmoid_kernel: "sigmoid_kernel"}
    func, kw = kernel, {}
    while isinstance(func, partial):
        if func.args:
            return None, {}
        kw = {**func.keywords, **kw}
        func = func.func
    try:
        name = funcs.get(func)
    except TypeError:               # an unhashable callable
        return None, {}
    return name, ({} if name is None else resolve_params(name, kw))


def gram_entry_error(kernel: Any, X: Any) -> float | None:
    """A bound on the rounding error of each entry of the Gram matrix ``kernel(X)``
    computed by ktheory's kernel functions: ``max |K_computed[i, j] - k(x_i, x_j)|``.

    The positive-semidefiniteness checks of the estimators allow for it
    (``ktheory._validation.psd_gram_tolerance``: by Weyl's inequality no eigenvalue of
    the computed matrix is below ``-n`` times this bound when the kernel is positive
    semidefinite), so a PSD kernel is not refused because of its own rounding.
    With ``d`` features, ``u = eps / 2``, ``M = max ||x_i||^2``:

    * linear: ``(d + 2) eps M`` (an inner product of ``d`` terms);
    * polynomial: ``(p (d + 2) + 1) eps (gamma M + |coef0|)^p``;
    * Gaussian/RBF: ``eps + exp(-gamma max(s - E, 0)) (1 - exp(-gamma E))`` with
      ``E = (2 d + 7) eps R^2`` the rounding of the centred squared distances
      (``ktheory.kernels._scale.sqdist_error``; ``R`` the largest distance of a row from
      the reference point) and ``s`` the smallest squared distance between two rows:
      about ``gamma E`` when that is small; ``s`` (nearest neighbours, from differences)
      is computed only when ``gamma E > 1e-8``, where it can make the bound smaller
      (points far apart on the scale of ``sigma``: both values are 0);
    * Laplacian: ``(d + 6) eps / 2``: the distances come from differences, relative
      error ``(d + 4) u``, and ``t exp(-t) <= 1 / e``;
    * sigmoid: ``eps + (d + 2) eps (gamma M + |coef0|)``, at most 2.

    Parameters
    ----------
    kernel : callable
        One of ktheory's kernel functions, or a ``functools.partial`` of one (what
        :func:`make_kernel` returns), its parameters bound by keyword.
    X : array_like of shape (n, d)
        The samples.

    Returns
    -------
    float or None
        The bound (``inf`` where the values overflow), or None for any other callable.

    Examples
    --------
    >>> import numpy as np
    >>> from ktheory.kernels import make_kernel
    >>> X = np.random.default_rng(0).standard_normal((50, 3)) + 1e7   # far from 0
    >>> bool(gram_entry_error(make_kernel("rbf", gamma=0.5), X) < 1e-13)
    True
    """
    name, kw = _kernel_name(kernel)
    if name is None:
        return None
    Xa = check_array(X, "X")
    d = Xa.shape[1]
    if name == "laplacian_kernel":
        return (d + 6) * _EPS / 2.0
    c = pow2_scale(Xa)
    Xs = Xa if c == 1.0 else Xa / c
    if name in ("gaussian_kernel", "rbf_kernel"):
        if name == "gaussian_kernel":
            m = gaussian_multiplier(c, sigma=check_positive(kw["sigma"], "sigma"))
        else:
            m = gaussian_multiplier(c, gamma=gamma_default(kw["gamma"], d))
        return _gaussian_entry_error(Xs - reference_point(Xs), m)
    big = safe_mul(safe_mul(float(np.max(squared_norms(Xs))), c), c)   # M, possibly inf
    if name == "linear_kernel":
        return safe_mul((d + 2) * _EPS, big)
    g = gamma_default(kw["gamma"], d)
    base = safe_mul(g, big) + abs(float(kw["coef0"]))
    if name == "polynomial_kernel":
        p = int(kw["degree"])
        with np.errstate(over="ignore"):
            return safe_mul((p * (d + 2) + 1) * _EPS, float(np.float64(base) ** p))
    return min(2.0, _EPS + safe_mul((d + 2) * _EPS, base))   # sigmoid, not PSD in general


def _gaussian_entry_error(Xc: np.ndarray, m: float) -> float:
    """The Gaussian bound of :func:`gram_entry_error` for centred (rescaled) rows ``Xc``
    and exponent multiplier ``m`` (``gamma`` in the rows' units, possibly ``inf``).

    For a pair at computed and exact squared distances ``t``, ``s`` with ``|t - s| <= E``,
    both ``>= s_min - E``: ``|exp(-m t) - exp(-m s)| <= exp(-m max(s_min - E, 0))
    (1 - exp(-m E))``; the exponential's own rounding adds less than ``eps``."""
    e = sqdist_error(Xc)
    if e == 0.0:                      # all rows equal: every distance is exactly 0
        return _EPS
    bound = -math.expm1(-safe_mul(m, e))             # 1 - exp(-m E), in [0, 1]
    if bound > 1e-8 and Xc.shape[0] > 1:
        dist = cKDTree(Xc).query(Xc, k=2)[0][:, 1]   # nearest-neighbour distances
        gap = max(float(np.min(dist)) ** 2 - e, 0.0)
        bound *= math.exp(-(0.0 if gap == 0.0 else safe_mul(m, gap)))
    return min(1.0, _EPS + bound)
