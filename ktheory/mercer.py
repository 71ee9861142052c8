"""Mercer expansions: eigenpairs of kernel integral operators, Nyström and random features (Chapter 5).

For a continuous positive definite kernel ``k`` on a compact set with a finite
measure ``mu`` of full support, Mercer's theorem writes

``k(x, y) = sum_i lambda_i phi_i(x) phi_i(y)``,

where ``lambda_i >= 0`` and ``phi_i`` are the eigenvalues and the
``L2(mu)``-orthonormal eigenfunctions of the integral operator
``(T f)(x) = int k(x, y) f(y) dmu(y)``. This module provides

* the analytic eigenpairs of two operators:
  the Brownian-motion kernel ``min(x, y)`` on ``[0, 1]`` with the Lebesgue
  measure (:func:`min_kernel_eigenvalues`, :func:`min_kernel_eigenfunctions`),
  and the Gaussian kernel under a Gaussian measure on the real line
  (:func:`gaussian_eigenvalues`, :func:`gaussian_eigenfunctions`);
* the Nyström estimate of the eigenpairs from a sample of ``mu``
  (:func:`nystrom_eigenpairs`), with eigenfunctions that can be evaluated at
  new points;
* two scikit-learn transformers whose features ``Z`` give ``Z Z^T ~ K``:
  :class:`NystromFeatures` and :class:`RandomFourierFeatures` (``TransformerMixin``,
  ``validate_data``, ``get_feature_names_out`` and ``set_output``).

The module stays one file because it is one idea, Mercer's expansion: exact (analytic),
estimated (Nyström) and approximated (feature maps), all under the kernel convention and
the rounding-level eigenvalue rule below, in the order Chapter 5 reads them.

Kernel convention
-----------------
One convention in the whole module (and in :func:`ktheory.kernels.gaussian_kernel`):
the Gaussian kernel of width ``sigma`` is

``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``,

which is scikit-learn's ``rbf`` kernel with ``gamma = 1 / (2 sigma^2)``.

Rounding-level eigenvalues
--------------------------
A Gram matrix computed in floating point is PSD only up to rounding: a Gaussian
Gram matrix of low-dimensional points has many eigenvalues near ``-1e-15``.
Here an eigenvalue ``w`` of an ``m x m`` Gram matrix with
``|w| <= m * eps * max|w|`` counts as zero (the rank rule of
``numpy.linalg.matrix_rank``: the eigensolver's rounding). A negative eigenvalue
is rounding too as long as it is above ``-tol``, ``tol = m * eps * max|w| + m *
delta`` (``ktheory._validation.psd_gram_tolerance``), where ``delta`` bounds the
rounding of each computed entry of the matrix, the kernel's own evaluation error
(:func:`ktheory.kernels.gram_entry_error` for ktheory's kernels: for the Gaussian
it grows with the spread of the points over ``sigma``, not with their distance from
the origin; ``eps * max|K|`` for any other callable): by Weyl's inequality, no
eigenvalue of a PSD matrix computed that way is below ``-tol``. Such an eigenvalue
counts as zero; a more negative one means the kernel is not positive semidefinite
on these points, and is an error unless an explicit option allows it. (``delta``
is a worst case, often a hundred times the actual error, so it decides refusals
only: a positive eigenvalue above the eigensolver's rounding is kept.) Nothing is
clipped silently.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from threadpoolctl import threadpool_limits

from ktheory._base import KTheoryEstimator, atomic_fit
from ktheory._kernel_setup import check_gamma, resolve_gamma
from ktheory._platform import effective_n_jobs
from ktheory._validation import (
    check_array,
    check_positive,
    check_symmetric,
    fit_data,
    predict_data,
    psd_gram_tolerance,
)
from ktheory.kernels import gaussian_kernel, gram_entry_error, reference_point

__all__ = [
    "min_kernel_eigenvalues",
    "min_kernel_eigenfunctions",
    "gaussian_eigenvalues",
    "gaussian_eigenfunctions",
    "nystrom_eigenpairs",
    "NystromEigenpairs",
    "NystromFeatures",
    "RandomFourierFeatures",
]

#: Largest number of float64 values one call may allocate for its output (1 GiB).
MAX_ELEMENTS = 1 << 27
#: Largest sample for the dense eigendecomposition of :func:`nystrom_eigenpairs`.
MAX_EIG_SAMPLES = 10_000

_EPS = float(np.finfo(np.float64).eps)


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _real_array(X: Any, name: str, ndim: int) -> np.ndarray:
    """``check_array`` that refuses complex input instead of dropping the imaginary part."""
    if np.iscomplexobj(X):
        raise TypeError(f"{name} must be real; got a complex array (the imaginary part would be lost)")
    return check_array(X, name, ndim=ndim)


def _n_terms(value: Any, name: str = "n_terms") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _check_size(n_elements: int, what: str) -> None:
    if n_elements > MAX_ELEMENTS:
        raise ValueError(
            f"{what} would have {n_elements:.3g} entries, more than MAX_ELEMENTS = {MAX_ELEMENTS} "
            f"(1 GiB of float64); evaluate it in smaller batches"
        )


def _rng(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(
            f"random_state must be None, a non-negative integer or a numpy Generator, got {random_state!r}"
        )
    if random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
    return np.random.default_rng(int(random_state))


def _gaussian_width(gamma: Any, sigma: Any, X: np.ndarray) -> float:
    """The width ``sigma`` of the Gaussian kernel an estimator's ``gamma`` or ``sigma`` names.

    ``gamma`` is the package's one vocabulary (scikit-learn's ``SVC``: ``"scale"``,
    ``"auto"`` or a number, with ``k = exp(-gamma ||x - y||^2)``); ``sigma``, the
    chapters' width, is the documented alternative ``gamma = 1 / (2 sigma^2)``. Giving
    ``sigma`` together with a ``gamma`` other than its default ``"scale"`` is an error.
    """
    if sigma is not None:
        if not (isinstance(gamma, str) and gamma == "scale"):
            raise ValueError(
                f"give the Gaussian kernel's gamma or its width sigma, not both (gamma={gamma!r}, "
                f"sigma={sigma!r}); gamma = 1 / (2 sigma^2)"
            )
        return check_positive(sigma, "sigma")
    check_gamma(gamma)
    g = resolve_gamma(gamma, X)
    s = math.sqrt(0.5 / g)
    if not (math.isfinite(s) and s > 0):
        raise ValueError(f"gamma={g!r} gives no representable width sigma = 1 / sqrt(2 gamma)")
    return s


def _resolve_kernel(kernel: Any, sigma: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The kernel as a function ``k(A, B) -> (len(A), len(B))`` block, with its output checked."""
    if isinstance(kernel, str):
        if kernel != "gaussian":
            raise ValueError(f"kernel must be 'gaussian' or a callable k(A, B), got {kernel!r}")
        return _GaussianKernel(check_positive(sigma, "sigma"))
    if not callable(kernel):
        raise TypeError(f"kernel must be 'gaussian' or a callable k(A, B), got {type(kernel).__name__}")
    return _CheckedKernel(kernel)


class _GaussianKernel:
    """``gaussian_kernel(A, B, sigma)`` as a picklable callable (fitted transformers pickle)."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return gaussian_kernel(A, B, sigma=self.sigma)


class _CheckedKernel:
    """A user kernel ``k(A, B)`` with its output checked (picklable if the kernel is)."""

    def __init__(self, kernel: Callable[..., Any]) -> None:
        self.kernel = kernel

    def __call__(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        kernel = self.kernel
        K = np.asarray(kernel(A, B))
        if np.iscomplexobj(K):
            raise TypeError("kernel returned a complex array; a real kernel is required")
        K = np.asarray(K, dtype=np.float64)
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(
                f"kernel(A, B) must return an array of shape (len(A), len(B)) = {(A.shape[0], B.shape[0])}, "
                f"got shape {K.shape}"
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("kernel returned NaN or infinity")
        return K


def _entry_error(k: Callable[[np.ndarray, np.ndarray], np.ndarray], X: np.ndarray) -> float | None:
    """The evaluation error of the entries of ``k(X, X)`` (``gram_entry_error``): bounded
    for the Gaussian kernel and for ktheory's kernel functions passed as callables, None
    (one rounding per entry) for any other callable."""
    if isinstance(k, _GaussianKernel):
        return gram_entry_error(partial(gaussian_kernel, sigma=k.sigma), X)
    if isinstance(k, _CheckedKernel):
        return gram_entry_error(k.kernel, X)
    return None  # pragma: no cover - _resolve_kernel returns one of the two


def _rank_tolerance(w: np.ndarray) -> float:
    """``m eps max|w|``: eigenvalues ``w`` of an ``m x m`` matrix within this of 0 are
    the eigensolver's rounding (the rank rule of the module's docstring)."""
    return w.size * _EPS * float(np.max(np.abs(w))) if w.size else 0.0


def _psd_tolerance(K: np.ndarray, w: np.ndarray, entry_error: float | None) -> float:
    """``m (eps max|w| + delta)``: no eigenvalue of a PSD kernel's computed Gram matrix ``K``
    (eigenvalues ``w``, entries within ``delta = entry_error`` of the exact ones) is below
    minus this (:func:`ktheory._validation.psd_gram_tolerance`)."""
    if not w.size:
        return 0.0
    return psd_gram_tolerance(K.shape[0], float(np.max(np.abs(w))), float(np.max(np.abs(K))),
                              entry_error)


def _sym_eigh(K: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """Eigenpairs of a symmetric matrix in descending order and the zero tolerance ``m eps max|w|``."""
    check_symmetric(K, name)
    w, U = np.linalg.eigh((K + K.T) / 2.0)
    w, U = w[::-1], U[:, ::-1]
    return w, U, _rank_tolerance(w)


# ---------------------------------------------------------------------------
# analytic eigenpairs: min(x, y) on [0, 1]
# ---------------------------------------------------------------------------


def min_kernel_eigenvalues(n_terms: int) -> np.ndarray:
    """Eigenvalues of the integral operator of ``k(x, y) = min(x, y)`` on ``[0, 1]``.

    With the Lebesgue measure on ``[0, 1]`` the operator
    ``(T f)(x) = int_0^1 min(x, y) f(y) dy`` has the eigenvalues
    ``lambda_k = 1 / ((k - 1/2)^2 pi^2)``, ``k = 1, 2, ...``, in decreasing order.
    Their sum is ``int_0^1 k(x, x) dx = 1/2``.

    Parameters
    ----------
    n_terms : int
        Number of eigenvalues, ``>= 1``.

    Returns
    -------
    numpy.ndarray of shape (n_terms,)

    Raises
    ------
    TypeError
        If ``n_terms`` is not an integer.
    ValueError
        If ``n_terms < 1`` or too large to allocate.

    Examples
    --------
    >>> lam = min_kernel_eigenvalues(3)
    >>> [round(float(v), 6) for v in lam]
    [0.405285, 0.045032, 0.016211]
    """
    n = _n_terms(n_terms)
    _check_size(n, "the eigenvalue array")
    k = np.arange(1, n + 1, dtype=np.float64)
    return 1.0 / ((k - 0.5) ** 2 * np.pi**2)


def min_kernel_eigenfunctions(x: Any, n_terms: int) -> np.ndarray:
    """Orthonormal eigenfunctions ``phi_k(x) = sqrt(2) sin((k - 1/2) pi x)`` of ``min(x, y)`` on ``[0, 1]``.

    Parameters
    ----------
    x : array_like of shape (n,)
        Points of ``[0, 1]``.
    n_terms : int
        Number of eigenfunctions, ``>= 1``.

    Returns
    -------
    numpy.ndarray of shape (n, n_terms)
        Column ``k - 1`` holds ``phi_k(x)`` (matching :func:`min_kernel_eigenvalues`).

    Raises
    ------
    ValueError
        If ``x`` is not 1-D, not finite or leaves ``[0, 1]``, or ``n_terms < 1``.
    TypeError
        If ``x`` is complex or not numeric, or ``n_terms`` is not an integer.

    Examples
    --------
    The truncated expansion approaches ``min(x, y)``:

    >>> import numpy as np
    >>> x = np.array([0.3, 0.8])
    >>> P = min_kernel_eigenfunctions(x, 2000)
    >>> K = (P * min_kernel_eigenvalues(2000)) @ P.T
    >>> np.round(K, 3)
    array([[0.3, 0.3],
           [0.3, 0.8]])
    """
    xa = _real_array(x, "x", 1)
    n = _n_terms(n_terms)
    if xa.min() < 0.0 or xa.max() > 1.0:
        raise ValueError(
            "x must lie in [0, 1] (the domain of the operator); "
            f"got values in [{xa.min():.3g}, {xa.max():.3g}]"
        )
    _check_size(xa.size * n, "the eigenfunction matrix")
    freq = (np.arange(1, n + 1, dtype=np.float64) - 0.5) * np.pi
    out = np.multiply.outer(xa, freq)
    np.sin(out, out=out)
    out *= math.sqrt(2.0)
    return out


# ---------------------------------------------------------------------------
# analytic eigenpairs: Gaussian kernel, Gaussian measure
# ---------------------------------------------------------------------------


def _gauss_constants(sigma: Any, scale: Any) -> tuple[float, float, float]:
    """``(log B, sqrt(1 + 2 rho), 2 / (1 + rho + sqrt(1 + 2 rho)))`` with ``rho = 2 scale^2 / sigma^2``."""
    s = check_positive(sigma, "sigma")
    t = check_positive(scale, "scale")
    ratio = t / s                       # inf where it overflows; a Python float power would raise
    rho = 2.0 * ratio * ratio if math.isfinite(ratio) and ratio < 1e154 else math.inf
    if not math.isfinite(rho):
        raise ValueError(
            f"scale / sigma = {t / s:.3g} is too large: the ratio 2 (scale/sigma)^2 overflows; "
            "the kernel is numerically a delta function under this measure"
        )
    root = math.sqrt(1.0 + 2.0 * rho)
    den = 1.0 + rho + root
    b_ratio = rho / den  # B = rho / den; 1 - B = (1 + root) / den
    if b_ratio == 0.0:  # sigma >> scale: the constant kernel, one eigenvalue 1
        log_b = -math.inf
    elif b_ratio < 0.5:
        log_b = math.log(b_ratio)
    else:
        log_b = math.log1p(-(1.0 + root) / den)
    return log_b, root, 2.0 / den


def gaussian_eigenvalues(n_terms: int, sigma: float = 1.0, scale: float = 1.0) -> np.ndarray:
    """Eigenvalues of the Gaussian kernel's operator under the measure ``N(0, scale^2)`` on the real line.

    For ``k(x, y) = exp(-(x - y)^2 / (2 sigma^2))`` and ``mu = N(0, scale^2)``
    (:cite:t:`zhu1998gaussian`; :cite:t:`rasmussen2006gaussian`, section 4.3.1),
    with ``a = 1 / (4 scale^2)``, ``b = 1 / (2 sigma^2)``, ``c = sqrt(a^2 + 2 a b)``,
    ``A = a + b + c`` and ``B = b / A``,

    ``lambda_k = sqrt(2 a / A) B^k``,  ``k = 0, 1, 2, ...``

    a geometric sequence whose sum is ``int k(x, x) dmu = 1``. Computed from the
    ratio ``rho = b / a = 2 scale^2 / sigma^2`` in logarithms, so no power
    overflows and tiny eigenvalues underflow gracefully to 0.

    Parameters
    ----------
    n_terms : int
        Number of eigenvalues, ``>= 1``.
    sigma : float, default 1.0
        Kernel width, ``> 0``.
    scale : float, default 1.0
        Standard deviation of the Gaussian measure, ``> 0``.

    Returns
    -------
    numpy.ndarray of shape (n_terms,)
        ``lambda_0 >= lambda_1 >= ...``.

    Raises
    ------
    TypeError
        If ``n_terms`` is not an integer or ``sigma``/``scale`` are not real numbers.
    ValueError
        If ``n_terms < 1``, ``sigma <= 0``, ``scale <= 0``, or ``scale / sigma``
        is so large that ``2 (scale/sigma)^2`` overflows.

    Examples
    --------
    >>> lam = gaussian_eigenvalues(4, sigma=1.0, scale=1.0)
    >>> [round(float(v), 6) for v in lam]
    [0.618034, 0.236068, 0.09017, 0.034442]
    >>> round(float(gaussian_eigenvalues(200).sum()), 12)
    1.0
    """
    n = _n_terms(n_terms)
    log_b, _, two_a_over_a = _gauss_constants(sigma, scale)
    _check_size(n, "the eigenvalue array")
    expo = np.zeros(n)
    expo[1:] = np.arange(1, n, dtype=np.float64) * log_b  # -inf when B = 0 (never 0 * -inf)
    return np.exp(0.5 * math.log(two_a_over_a) + expo)


def gaussian_eigenfunctions(x: Any, n_terms: int, sigma: float = 1.0, scale: float = 1.0) -> np.ndarray:
    """Orthonormal eigenfunctions of the Gaussian kernel under ``N(0, scale^2)``.

    With the constants of :func:`gaussian_eigenvalues`,

    ``phi_k(x) = (c/a)^(1/4) exp(-(c - a) x^2) H_k(sqrt(2 c) x) / sqrt(2^k k!)``,

    with ``H_k`` the physicists' Hermite polynomials; ``int phi_j phi_k dmu = [j = k]``.
    No factorial or power is formed: the normalized polynomials
    ``h_k = H_k / sqrt(2^k k!)`` obey ``h_{k+1}(t) = sqrt(2/(k+1)) t h_k(t) - sqrt(k/(k+1)) h_{k-1}(t)``,
    and since the recurrence is linear it is run on ``phi_k`` directly, starting
    from ``phi_0 = (c/a)^(1/4) exp(-(c - a) x^2)``. It is stable for hundreds of
    terms. Where ``exp(-(c - a) x^2)`` underflows (``|x|`` tens of ``scale``
    away from 0) the functions evaluate to 0.

    Parameters
    ----------
    x : array_like of shape (n,)
        Points of the real line.
    n_terms : int
        Number of eigenfunctions (``k = 0, ..., n_terms - 1``).
    sigma : float, default 1.0
        Kernel width, ``> 0``.
    scale : float, default 1.0
        Standard deviation of the Gaussian measure, ``> 0``.

    Returns
    -------
    numpy.ndarray of shape (n, n_terms)
        Column ``k`` holds ``phi_k(x)``.

    Raises
    ------
    ValueError
        If ``x`` is not a finite 1-D array, or a parameter is out of range.
    TypeError
        If ``x`` is complex or not numeric, or a parameter has the wrong type.

    Examples
    --------
    The expansion reproduces the kernel:

    >>> import numpy as np
    >>> x = np.array([-0.5, 0.0, 1.0])
    >>> P = gaussian_eigenfunctions(x, 60, sigma=0.7, scale=1.0)
    >>> K = (P * gaussian_eigenvalues(60, sigma=0.7, scale=1.0)) @ P.T
    >>> K_direct = np.exp(-np.subtract.outer(x, x) ** 2 / (2 * 0.7**2))
    >>> bool(np.allclose(K, K_direct, atol=1e-12))
    True
    """
    xa = _real_array(x, "x", 1)
    n = _n_terms(n_terms)
    _, root, _ = _gauss_constants(sigma, scale)
    t_scale = float(scale)
    _check_size(xa.size * n, "the eigenfunction matrix")
    u = xa / t_scale  # standardized points
    # c/a = root, (c - a) x^2 = u^2 / 4 * (root - 1) = u^2/4 * 2 rho / (root + 1),
    # t = sqrt(2c) x = root^(1/2) u / sqrt(2)
    with np.errstate(over="ignore", under="ignore"):
        expo = 0.25 * (u * u) * ((root * root - 1.0) / (root + 1.0))
        phi0 = root**0.25 * np.exp(-expo)
        t = math.sqrt(root) * u / math.sqrt(2.0)
    t = np.where(phi0 > 0.0, t, 0.0)  # the functions are 0 where phi_0 underflows
    out = np.empty((xa.size, n), dtype=np.float64)
    out[:, 0] = phi0
    if n > 1:
        out[:, 1] = math.sqrt(2.0) * t * phi0
    for k in range(1, n - 1):  # a loop over the terms, vectorized over the points
        out[:, k + 1] = math.sqrt(2.0 / (k + 1)) * t * out[:, k] - math.sqrt(k / (k + 1)) * out[:, k - 1]
    return out


# ---------------------------------------------------------------------------
# Nyström eigenpairs
# ---------------------------------------------------------------------------


class NystromEigenpairs:
    """Nyström estimate of the leading eigenpairs of a kernel integral operator.

    Built by :func:`nystrom_eigenpairs`; not meant to be constructed directly.

    Attributes
    ----------
    eigenvalues : numpy.ndarray of shape (n_components,)
        Estimated operator eigenvalues ``w_i / n`` (``w_i`` eigenvalues of the
        Gram matrix of the ``n`` sample points), largest ``|w_i|`` first.
    spectrum : numpy.ndarray of shape (n,)
        All eigenvalues of ``K / n``, in decreasing order (negative ones below
        the rounding level of the module's docstring only if the kernel is
        indefinite).
    X_fit : numpy.ndarray of shape (n, d)
        The sample of the measure.
    vectors : numpy.ndarray of shape (n, n_components)
        The unit eigenvectors ``u_i`` of the Gram matrix.
    """

    def __init__(self, eigenvalues: np.ndarray, spectrum: np.ndarray, X_fit: np.ndarray,
                 vectors: np.ndarray, kernel: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
        self.eigenvalues = eigenvalues
        self.spectrum = spectrum
        self.X_fit = X_fit
        self.vectors = vectors
        self._kernel = kernel

    def eigenfunctions(self, X: Any) -> np.ndarray:
        """Evaluate the estimated eigenfunctions at new points (the Nyström extension).

        ``phi_i(x) = (1 / (n lambda_i)) sum_j k(x, x_j) phi_i(x_j)`` with
        ``phi_i(x_j) = sqrt(n) u_ji``, i.e. ``phi_i(x) = sqrt(n) / w_i * k(x, X) u_i``
        :cite:p:`williams2001using`: the eigen-equation ``T phi = lambda phi`` with
        the integral replaced by the sample mean. At the sample points it returns
        ``sqrt(n) U``, orthonormal under the empirical measure.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Points with the same number of features as the sample.

        Returns
        -------
        numpy.ndarray of shape (m, n_components)

        Raises
        ------
        ValueError
            If ``X`` is not 2-D, has a different number of features, or holds NaN/inf.
        TypeError
            If ``X`` is complex or not numeric.
        """
        Xa = _real_array(X, "X", 2)
        if Xa.shape[1] != self.X_fit.shape[1]:
            raise ValueError(
                f"X has {Xa.shape[1]} features, but the eigenpairs were computed on {self.X_fit.shape[1]}"
            )
        n = self.X_fit.shape[0]
        _check_size(Xa.shape[0] * n, "the kernel block k(X, X_fit)")
        Kx = self._kernel(Xa, self.X_fit)
        return (Kx @ self.vectors) * (1.0 / (math.sqrt(n) * self.eigenvalues))

    def __repr__(self) -> str:
        return f"NystromEigenpairs(n_components={self.eigenvalues.size}, n_samples={self.X_fit.shape[0]})"


def nystrom_eigenpairs(
    X: Any,
    n_components: int,
    *,
    kernel: str | Callable[..., Any] = "gaussian",
    sigma: float = 1.0,
    allow_indefinite: bool = False,
) -> NystromEigenpairs:
    """Estimate the leading eigenpairs of ``T_k`` from a sample ``X`` of the measure.

    The integral ``int k(x, y) f(y) dmu(y)`` is replaced by the mean over the
    ``n`` sample points: the eigenvalues of ``T_k`` are estimated by those of
    ``K / n`` and the eigenfunctions by the Nyström extension of the Gram
    eigenvectors :cite:p:`williams2001using` (see
    :meth:`NystromEigenpairs.eigenfunctions`).

    Parameters
    ----------
    X : array_like of shape (n, d)
        An i.i.d. sample of the measure ``mu``; ``n <= MAX_EIG_SAMPLES``.
    n_components : int
        Number of eigenpairs, ``1 <= n_components <= n``; the selected
        eigenvalues must be nonzero (above ``n * eps * max|w|``).
    kernel : "gaussian" or callable, default "gaussian"
        ``"gaussian"`` (width ``sigma``, the module's convention) or a function
        ``k(A, B)`` returning the ``(len(A), len(B))`` block.
    sigma : float, default 1.0
        Width of the Gaussian kernel (ignored for a callable).
    allow_indefinite : bool, default False
        By default an eigenvalue of the Gram matrix below the rounding level
        ``-n * (eps * max|w| + delta)`` (``delta``: the kernel's entry error, see
        the module's docstring) raises ``ValueError`` (the kernel is not positive
        semidefinite on ``X``).
        With True, such eigenvalues are kept (in ``spectrum`` and, if among the
        largest in magnitude, in ``eigenvalues``): used to show how Mercer fails.

    Returns
    -------
    NystromEigenpairs
        With ``eigenvalues`` (largest ``|w|`` first), ``spectrum``, and the
        method ``eigenfunctions(X_new)``.

    Raises
    ------
    ValueError
        On NaN/inf, wrong shapes, ``n_components`` out of range or asking for
        rounding-level eigenvalues, a non-symmetric Gram matrix, a negative
        eigenvalue without ``allow_indefinite``, ``sigma <= 0``, or ``n > MAX_EIG_SAMPLES``.
    TypeError
        On complex or non-numeric ``X``, or parameters of the wrong type.

    Examples
    --------
    A sample of ``N(0, 1)`` recovers the analytic Gaussian spectrum:

    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((1000, 1))
    >>> est = nystrom_eigenpairs(X, 3, sigma=1.0)
    >>> np.round(est.eigenvalues, 3)
    array([0.63 , 0.234, 0.085])
    >>> np.round(gaussian_eigenvalues(3), 3)
    array([0.618, 0.236, 0.09 ])
    >>> est.eigenfunctions(X[:2]).shape
    (2, 3)
    """
    Xa = _real_array(X, "X", 2)
    m = _n_terms(n_components, "n_components")
    if not isinstance(allow_indefinite, (bool, np.bool_)):
        raise TypeError(f"allow_indefinite must be a bool, got {allow_indefinite!r}")
    k = _resolve_kernel(kernel, sigma)
    n = Xa.shape[0]
    if m > n:
        raise ValueError(f"n_components={m} exceeds the number of samples n={n}")
    if n > MAX_EIG_SAMPLES:
        raise ValueError(
            f"X has n={n} samples; the dense eigendecomposition costs O(n^3) time and n^2 memory and is "
            f"limited to MAX_EIG_SAMPLES = {MAX_EIG_SAMPLES}: subsample X, or use NystromFeatures "
            "with landmarks"
        )
    K = k(Xa, Xa)
    name = "the Gram matrix k(X, X)"
    check_symmetric(K, name)
    K = (K + K.T) / 2.0
    w = scipy.linalg.eigh(K, eigvals_only=True, check_finite=False)[::-1]  # all eigenvalues, decreasing
    tol = _rank_tolerance(w)
    tol_psd = _psd_tolerance(K, w, _entry_error(k, Xa))
    if w[-1] < -tol_psd and not allow_indefinite:
        raise ValueError(
            f"the kernel is not positive semidefinite on X: the Gram matrix has the eigenvalue {w[-1]:.3g} "
            f"< -{tol_psd:.3g} (the rounding level n * (eps * max|w| + the kernel's entry error)); pass "
            "allow_indefinite=True to study an indefinite kernel"
        )
    # a PSD kernel's negative eigenvalues (all above -tol_psd) are rounding: zero
    mag = np.abs(w) if allow_indefinite else np.maximum(w, 0.0)
    order = np.argsort(-mag, kind="stable")[:m]
    n_nonzero = int(np.count_nonzero(mag > tol))
    if np.any(mag[order] <= tol):
        raise ValueError(
            f"n_components={m}, but only {n_nonzero} eigenvalues of the Gram matrix are nonzero "
            f"(above n * eps * max|w| = {tol:.3g}); the rest are rounding noise and their "
            "eigenfunctions undefined"
        )
    if order.max() < m:  # the m largest: compute only their eigenvectors
        wm, U = scipy.linalg.eigh(K, subset_by_index=[n - m, n - 1], check_finite=False)
    else:  # negative eigenvalues among the selected (allow_indefinite): all eigenvectors
        wm, U = scipy.linalg.eigh(K, check_finite=False)
    # columns in the order of `order` (indices into the decreasing list w, i.e. n-1-i ascending)
    asc = n - 1 - order if wm.size == n else (m - 1 - order)
    return NystromEigenpairs(wm[asc] / n, w / n, Xa, np.ascontiguousarray(U[:, asc]), k)


# ---------------------------------------------------------------------------
# transformers
# ---------------------------------------------------------------------------


def _gaussian_block_product(X: np.ndarray, L: np.ndarray, sigma: float, W: np.ndarray,
                            rows: int = 2048, n_jobs: int = 2) -> np.ndarray:
    """``gaussian_kernel(X, L, sigma) @ W`` over row blocks, without forming the ``n x m`` kernel.

    The squared distances follow the specification of :mod:`ktheory.kernels`: the rows of
    ``X`` and ``L`` are centred at one reference point, that of the landmarks
    (:func:`ktheory.kernels.reference_point`), fixed for every block, so the features are
    translation invariant (``X + t`` and ``L + t`` give the same ``Z`` to rounding) and do
    not depend on the block size or the number of threads. Each block is one GEMM,
    in-place updates and ``exp`` on a cache-sized array, then a GEMM with ``W``; blocks run
    in ``n_jobs`` threads (numpy and BLAS release the GIL), or one after another in the
    calling thread where threads cannot be started (Pyodide, WASI: :func:`_run_blocks`).
    """
    r = reference_point(L)
    Lc = L - r
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # checked per block
        gamma = 0.5 / sigma / sigma
        ll = gamma * np.einsum("ij,ij->i", Lc, Lc)
        LT = np.ascontiguousarray(Lc.T) * (2.0 * gamma)
    out = np.empty((X.shape[0], W.shape[1]))

    eps_d = (2 * L.shape[1] + 7) * float(np.finfo(np.float64).eps)

    def block(start: int) -> None:
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            Xb = X[start : start + rows] - r
            xx = gamma * np.einsum("ij,ij->i", Xb, Xb)
            Kb = Xb @ LT
            Kb -= xx[:, None]
            Kb -= ll[None, :]
            # the expansion's rounding in the exponent (the bound of kernels.sqdist_error)
            delicate = not eps_d * max(float(xx.max()), float(ll.max())) <= 1e-8
        if not delicate and np.all(np.isfinite(Kb)):
            np.minimum(Kb, 0.0, out=Kb)
            np.exp(Kb, out=Kb)
        else:  # points far apart against sigma (or squared norms that overflow, inf - inf):
            # the kernel function, whose near pairs come from differences (k(x, x) = 1)
            Kb = gaussian_kernel(X[start : start + rows], L, sigma=sigma)
        np.matmul(Kb, W, out=out[start : start + rows])

    _run_blocks(block, X.shape[0], rows, n_jobs)
    return out


def _run_blocks(block: Callable[[int], None], n: int, rows: int, n_jobs: int) -> None:
    """Call ``block(start)`` for ``start = 0, rows, 2 rows, ...`` in ``n_jobs`` threads, BLAS
    single-threaded (threadpoolctl, a dependency of scikit-learn).

    Where threads cannot be started (Pyodide, WASI: :func:`ktheory._platform.effective_n_jobs`
    gives 1) the blocks run in order in the calling thread; each block writes its own rows,
    so the result is the same."""
    starts = range(0, n, rows)
    n_jobs = effective_n_jobs(n_jobs)
    if n_jobs <= 1 or n <= rows:
        for start in starts:
            block(start)
        return
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(n_jobs) as pool:
        list(pool.map(block, starts))


class NystromFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KTheoryEstimator):
    """Nyström feature map from ``n_components`` random landmarks: ``Z Z^T = K_nm K_mm^+ K_mn``.

    ``fit`` draws ``m = n_components`` landmarks from the rows of ``X`` and
    eigendecomposes their Gram matrix ``K_mm = U diag(w) U^T``; ``transform``
    returns ``Z = k(X, landmarks) U_r diag(w_r)^(-1/2)``, keeping the ``r``
    eigenvalues above ``m * eps * max w`` (rounding-level ones, and negative ones
    above the rounding level of the module's docstring, count as zero and are
    dropped, which is the pseudo-inverse). Column ``i`` of ``Z`` is the
    Nyström estimate of ``sqrt(lambda_i) phi_i(x)``, the ``i``-th coordinate of
    Mercer's feature map, from the empirical measure of the landmarks:
    ``sqrt(w_i / m) * (sqrt(m) / w_i) k(x, L) u_i = k(x, L) u_i / sqrt(w_i)``.
    ``Z Z^T`` equals the matrix of scikit-learn's ``Nystroem`` with the same
    landmarks (which returns ``Z U_r^T``, a rotation of these features).

    Parameters
    ----------
    n_components : int, default 100
        Number of landmarks ``m`` (at most the number of samples given to ``fit``).
    kernel : "gaussian" or callable, default "gaussian"
        ``"gaussian"``, ``exp(-gamma ||x - y||^2)``, or ``k(A, B)`` returning the block
        (then ``gamma`` and ``sigma`` are not used).
    gamma : {"scale", "auto"} or float, default "scale"
        The Gaussian kernel's coefficient, as in :class:`ktheory.svm.SVC`: ``"scale"`` is
        ``1 / (n_features * X.var())`` of the training ``X`` (so the default follows the
        units of the data), ``"auto"`` is ``1 / n_features``.
    sigma : float, optional
        The chapters' width instead of ``gamma``: ``exp(-||x - y||^2 / (2 sigma^2))``,
        i.e. ``gamma = 1 / (2 sigma^2)``. Give one of the two (``gamma`` left at its
        default when ``sigma`` is given).
    random_state : int, numpy Generator or None
        Seed of the landmark choice.

    Attributes
    ----------
    gamma_ : float
        The Gaussian kernel's coefficient used (``gamma`` or ``sigma`` resolved; NaN for a
        callable kernel).
    landmarks_ : numpy.ndarray of shape (m, d)
    component_indices_ : numpy.ndarray of shape (m,)
        Rows of the training ``X`` used as landmarks.
    eigenvalues_ : numpy.ndarray of shape (r,)
        Nonzero eigenvalues of the landmark Gram matrix, decreasing.
    normalization_ : numpy.ndarray of shape (m, r)
        ``U_r diag(w_r)^(-1/2)``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from ktheory.kernels import gaussian_kernel
    >>> X = np.random.default_rng(0).standard_normal((300, 2))
    >>> Z = NystromFeatures(n_components=60, sigma=1.0, random_state=0).fit_transform(X)
    >>> K = gaussian_kernel(X, sigma=1.0)
    >>> err = np.linalg.norm(Z @ Z.T - K) / np.linalg.norm(K)
    >>> bool(err < 1e-2)
    True
    """

    def __init__(self, n_components: int = 100, *, kernel: str | Callable[..., Any] = "gaussian",
                 gamma: str | float = "scale", sigma: float | None = None,
                 random_state: Any = None) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.sigma = sigma
        self.random_state = random_state

    @atomic_fit
    def fit(self, X: Any, y: Any = None) -> NystromFeatures:
        """Choose the landmarks and factor their Gram matrix.

        A fit that raises leaves the transformer as it was (a fitted one keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training samples; the landmarks are drawn from its rows.
        y : None
            Ignored (scikit-learn's transformer signature).

        Returns
        -------
        NystromFeatures
            ``self``.

        Raises
        ------
        ValueError
            If ``n_components`` is ``< 1`` or exceeds the number of samples, the
            landmark Gram matrix is not symmetric or has an eigenvalue below
            the rounding level ``-m * (eps * max|w| + delta)`` (the kernel is not
            PSD: no real feature map exists), ``X``, ``gamma`` or ``sigma`` are invalid, or
            both ``gamma`` and ``sigma`` are given.
        TypeError
            On parameters of the wrong type or complex/non-numeric ``X``.
        """
        Xa, _, _ = fit_data(self, X, requires_y=False)
        m = _n_terms(self.n_components, "n_components")
        gauss = isinstance(self.kernel, str)
        sigma = _gaussian_width(self.gamma, self.sigma, Xa) if gauss else None
        k = _resolve_kernel(self.kernel, sigma)
        rng = _rng(self.random_state)
        n = Xa.shape[0]
        if m > n:
            raise ValueError(f"n_components={m} landmarks requested, but X has only n={n} samples")
        # the landmark Gram matrix, its eigenvectors and LAPACK's workspace: 3 m^2 floats
        _check_size(3 * m * m, "the landmark eigenproblem (3 m^2 floats: the Gram matrix, its "
                    "eigenvectors and LAPACK's workspace)")
        idx = rng.choice(n, size=m, replace=False)
        L = np.ascontiguousarray(Xa[idx])
        K_L = k(L, L)
        w, U, tol = _sym_eigh(K_L, "the landmark Gram matrix")
        tol_psd = _psd_tolerance(K_L, w, _entry_error(k, L))
        if w[-1] < -tol_psd:
            raise ValueError(
                f"the landmark Gram matrix has the eigenvalue {w[-1]:.3g} < -{tol_psd:.3g} (the rounding "
                "level m * (eps * max|w| + the kernel's entry error)): the kernel is not positive "
                "semidefinite, and no real feature map Z with Z Z^T = K exists"
            )
        keep = w > tol
        self.component_indices_ = idx
        self.landmarks_ = L
        self.eigenvalues_ = w[keep]
        self.normalization_ = np.ascontiguousarray(U[:, keep] / np.sqrt(w[keep]))
        self._n_features_out = int(np.count_nonzero(keep))  # for get_feature_names_out
        self._k = k
        self._gauss_sigma = sigma
        self.gamma_ = 0.5 / sigma / sigma if sigma is not None else float("nan")
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Nyström features ``Z = k(X, landmarks_) @ normalization_`` of shape (n, r).

        Parameters
        ----------
        X : array_like of shape (n, n_features)

        Returns
        -------
        numpy.ndarray of shape (n, r)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            If ``X`` is not 2-D, has another number of features or holds NaN/inf.
        TypeError
            On complex or non-numeric ``X``.
        """
        Xa, _ = predict_data(self, X, fitted="normalization_")
        _check_size(Xa.shape[0] * self.normalization_.shape[1], "the feature matrix")
        if self._gauss_sigma is not None:  # blocked (threaded where possible): no n x m kernel matrix
            return _gaussian_block_product(Xa, self.landmarks_, self._gauss_sigma, self.normalization_)
        _check_size(Xa.shape[0] * self.landmarks_.shape[0], "the kernel block k(X, landmarks_)")
        return self._k(Xa, self.landmarks_) @ self.normalization_


class RandomFourierFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KTheoryEstimator):
    """Random Fourier features for the Gaussian kernel :cite:p:`rahimi2007random`.

    By Bochner's theorem ``exp(-||x - y||^2 / (2 sigma^2)) = E[cos(w^T (x - y))]``
    with ``w ~ N(0, I / sigma^2)``; with ``b ~ U[0, 2 pi)`` also
    ``= E[2 cos(w^T x + b) cos(w^T y + b)]``. The features
    ``z(x) = sqrt(2 / D) cos(W^T x + b)`` for ``D`` independent draws give
    ``z(x)^T z(y) -> k(x, y)`` with error ``O(D^(-1/2))``. This is
    scikit-learn's ``RBFSampler`` with ``gamma = 1 / (2 sigma^2)``.

    Parameters
    ----------
    n_components : int, default 100
        Number of features ``D``.
    gamma : {"scale", "auto"} or float, default "scale"
        The kernel ``exp(-gamma ||x - y||^2)``, as in :class:`ktheory.svm.SVC`:
        ``"scale"`` is ``1 / (n_features * X.var())`` of the training ``X``, ``"auto"``
        is ``1 / n_features``. (scikit-learn's ``RBFSampler`` defaults to ``gamma=1.0``.)
    sigma : float, optional
        The chapters' width instead of ``gamma`` (``gamma = 1 / (2 sigma^2)``); give one
        of the two.
    random_state : int, numpy Generator or None
        Seed of the frequencies and phases.

    Attributes
    ----------
    gamma_ : float
        The kernel coefficient used (``gamma`` or ``sigma`` resolved).
    frequencies_ : numpy.ndarray of shape (d, D)
        Columns ``w_j ~ N(0, 2 gamma_ I) = N(0, I / sigma^2)``.
    offsets_ : numpy.ndarray of shape (D,)
        Phases ``b_j ~ U[0, 2 pi)``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from ktheory.kernels import gaussian_kernel
    >>> X = np.random.default_rng(1).standard_normal((200, 3))
    >>> rff = RandomFourierFeatures(n_components=20000, sigma=2.0, random_state=0)
    >>> Z = rff.fit_transform(X)
    >>> bool(np.abs(Z @ Z.T - gaussian_kernel(X, sigma=2.0)).max() < 0.05)
    True
    """

    def __init__(self, n_components: int = 100, *, gamma: str | float = "scale",
                 sigma: float | None = None, random_state: Any = None) -> None:
        self.n_components = n_components
        self.gamma = gamma
        self.sigma = sigma
        self.random_state = random_state

    @atomic_fit
    def fit(self, X: Any, y: Any = None) -> RandomFourierFeatures:
        """Draw the frequencies and phases (``X`` gives the number of features, and its
        variance for ``gamma="scale"``).

        A fit that raises leaves the transformer as it was (a fitted one keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training samples (their number of features, and for ``gamma="scale"`` their
            variance, are used).
        y : None
            Ignored (scikit-learn's transformer signature).

        Returns
        -------
        RandomFourierFeatures
            ``self``.

        Raises
        ------
        ValueError
            If ``n_components < 1``, ``gamma`` or ``sigma`` is invalid (or both are
            given), the frequency matrix would be too large, or ``X`` is invalid.
        TypeError
            On parameters of the wrong type or complex/non-numeric ``X``.
        """
        Xa, _, _ = fit_data(self, X, requires_y=False)
        D = _n_terms(self.n_components, "n_components")
        s = _gaussian_width(self.gamma, self.sigma, Xa)
        rng = _rng(self.random_state)
        d = Xa.shape[1]
        _check_size(d * D, "the frequency matrix (n_features x n_components)")
        W = rng.standard_normal((d, D))
        W /= s
        self.frequencies_ = W
        self.offsets_ = rng.uniform(0.0, 2.0 * np.pi, size=D)
        self.gamma_ = 0.5 / s / s  # inf where sigma^2 underflows
        self._n_features_out = D  # for get_feature_names_out
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Features ``sqrt(2 / D) cos(X W + b)`` of shape (n, D).

        Parameters
        ----------
        X : array_like of shape (n, n_features)

        Returns
        -------
        numpy.ndarray of shape (n, D)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            If ``X`` is invalid, or ``X W`` overflows (rescale ``X`` or ``sigma``).
        TypeError
            On complex or non-numeric ``X``.
        """
        Xa, _ = predict_data(self, X, fitted="frequencies_")
        D = self.frequencies_.shape[1]
        _check_size(Xa.shape[0] * D, "the feature matrix")
        Z = np.empty((Xa.shape[0], D))
        scale = math.sqrt(2.0 / D)
        overflow = []
        rows = 2048

        def block(start: int) -> None:
            Zb = Z[start : start + rows]
            with np.errstate(over="ignore", invalid="ignore"):
                np.matmul(Xa[start : start + rows], self.frequencies_, out=Zb)
            if not np.all(np.isfinite(Zb)):
                overflow.append(start)
                return
            Zb += self.offsets_
            np.cos(Zb, out=Zb)
            Zb *= scale

        _run_blocks(block, Xa.shape[0], rows, 2)
        if overflow:
            raise ValueError(
                "X @ frequencies_ overflows (|x| / sigma too large): rescale X or choose a larger sigma"
            )
        return Z
