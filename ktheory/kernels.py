"""Kernel functions and Gram matrices (Chapter 2).

Every vector kernel here takes sample matrices ``X`` of shape ``(n, d)`` and
``Y`` of shape ``(m, d)`` (``Y=None`` means ``Y = X``) and returns the
``(n, m)`` block of kernel values ``K[i, j] = k(X[i], Y[j])``.

The string (subsequence) kernel of :cite:t:`lodhi2002text` works on Python
strings; :func:`subsequence_gram` builds its (normalized) Gram matrix for
lists of strings.

Parametrizations
----------------
* ``gaussian_kernel`` is parametrized by the width ``sigma``:
  ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``; ``rbf_kernel`` by
  ``gamma = 1 / (2 sigma^2)`` as in scikit-learn.
* ``polynomial_kernel`` defaults to the book's ``(x . y + 1)^p``
  (``gamma=1, coef0=1``); scikit-learn's defaults differ
  (``gamma=1/d, coef0=1, degree=3``).
* ``sigmoid_kernel`` uses scikit-learn's parametrization and defaults.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
from scipy.signal import lfilter

from ktheory._validation import (
    check_array,
    check_pair,
    check_positive,
    check_square_matrix,
)

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "gaussian_kernel",
    "rbf_kernel",
    "laplacian_kernel",
    "sigmoid_kernel",
    "make_kernel",
    "gram_matrix",
    "is_psd",
    "psd_tolerance",
    "polynomial_feature_map",
    "polynomial_feature_powers",
    "polynomial_feature_dimension",
    "subsequence_kernel",
    "subsequence_gram",
]

Kernel = Callable[..., np.ndarray]


# ---------------------------------------------------------------------------
# Vector kernels
# ---------------------------------------------------------------------------


def _gamma_default(gamma: Any, d: int, name: str = "gamma") -> float:
    if gamma is None:
        return 1.0 / d
    return check_positive(gamma, name)


def _check_real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise TypeError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


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

    Examples
    --------
    >>> linear_kernel([[1.0, 2.0]], [[3.0, 4.0]])
    array([[11.]])
    """
    Xa, Ya, _ = check_pair(X, Y)
    return Xa @ Ya.T


def polynomial_kernel(
    X: Any, Y: Any = None, degree: int = 2, gamma: float = 1.0, coef0: float = 1.0
) -> np.ndarray:
    """Polynomial kernel ``k(x, y) = (gamma <x, y> + coef0) ** degree``.

    With the defaults this is the book's ``(x . y + 1)^2``.

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
        If ``degree`` is not a positive integer or ``gamma <= 0``.
    """
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    g = check_positive(gamma, "gamma")
    c = _check_real(coef0, "coef0")
    Xa, Ya, _ = check_pair(X, Y)
    K = Xa @ Ya.T
    K *= g
    K += c
    return K ** int(degree)


def rbf_kernel(X: Any, Y: Any = None, gamma: float | None = None) -> np.ndarray:
    """Radial basis function kernel ``k(x, y) = exp(-gamma ||x - y||^2)``.

    Computed as ``exp(gamma (2 <x, y> - ||x||^2 - ||y||^2))`` with one matrix
    product and in-place updates; tiny positive exponents from rounding are
    clipped to 0 so that ``k <= 1`` exactly and ``k(x, x) = 1``.

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
    """
    Xa, Ya, same = check_pair(X, Y)
    g = _gamma_default(gamma, Xa.shape[1])
    return _rbf_block(Xa, Ya, g, same)


def _rbf_block(Xa: np.ndarray, Ya: np.ndarray, gamma: float, same: bool) -> np.ndarray:
    K = Xa @ Ya.T
    xx = np.einsum("ij,ij->i", Xa, Xa)
    yy = xx if same else np.einsum("ij,ij->i", Ya, Ya)
    K *= 2.0 * gamma
    # one outer sum (exactly symmetric when Y is X, since a + b == b + a in floating point)
    K -= np.add.outer(gamma * xx, gamma * yy)
    np.minimum(K, 0.0, out=K)
    if same:
        np.fill_diagonal(K, 0.0)
    np.exp(K, out=K)
    return K


def gaussian_kernel(X: Any, Y: Any = None, sigma: float = 1.0) -> np.ndarray:
    """Gaussian kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    sigma : float, default 1.0
        Width ``> 0``. Equals :func:`rbf_kernel` with ``gamma = 1/(2 sigma^2)``.

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite positive number, or the inputs are invalid.
    """
    s = check_positive(sigma, "sigma")
    Xa, Ya, same = check_pair(X, Y)
    return _rbf_block(Xa, Ya, 1.0 / (2.0 * s * s), same)


def laplacian_kernel(X: Any, Y: Any = None, sigma: float = 1.0, metric: str = "euclidean") -> np.ndarray:
    """Laplacian (exponential) kernel ``k(x, y) = exp(-||x - y|| / sigma)``.

    Note the norm is *not* squared: ``exp(-||x - y|| / (2 sigma^2))``, which
    some notes print as "the Gaussian kernel", is this kernel with width
    ``2 sigma^2``.

    Parameters
    ----------
    X : array_like of shape (n, d)
        First set of samples.
    Y : array_like of shape (m, d), optional
        Second set of samples; ``None`` means ``X``.
    sigma : float, default 1.0
        Width ``> 0``.
    metric : {"euclidean", "manhattan"}
        The norm. ``"manhattan"`` (the L1 norm) equals scikit-learn's
        ``laplacian_kernel`` with ``gamma = 1 / sigma``.

    Returns
    -------
    numpy.ndarray of shape (n, m)
    """
    s = check_positive(sigma, "sigma")
    Xa, Ya, same = check_pair(X, Y)
    if metric == "euclidean":
        D = Xa @ Ya.T
        xx = np.einsum("ij,ij->i", Xa, Xa)
        yy = xx if same else np.einsum("ij,ij->i", Ya, Ya)
        D *= -2.0
        D += np.add.outer(xx, yy)  # exactly symmetric when Y is X
        np.maximum(D, 0.0, out=D)
        if same:
            np.fill_diagonal(D, 0.0)
        np.sqrt(D, out=D)
    elif metric == "manhattan":
        D = np.abs(Xa[:, None, :] - Ya[None, :, :]).sum(axis=2)
    else:
        raise ValueError(f"metric must be 'euclidean' or 'manhattan', got {metric!r}")
    D *= -1.0 / s
    np.exp(D, out=D)
    return D


def sigmoid_kernel(X: Any, Y: Any = None, gamma: float | None = None, coef0: float = 1.0) -> np.ndarray:
    """Sigmoid kernel ``k(x, y) = tanh(gamma <x, y> + coef0)``.

    Not positive semidefinite in general (see Chapter 2 for a counterexample
    Gram matrix); parameters as in scikit-learn.

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
    """
    Xa, Ya, _ = check_pair(X, Y)
    g = _gamma_default(gamma, Xa.shape[1])
    c = _check_real(coef0, "coef0")
    K = Xa @ Ya.T
    K *= g
    K += c
    np.tanh(K, out=K)
    return K


_NAMED = ("linear", "poly", "polynomial", "rbf", "gaussian", "laplacian", "sigmoid")


def make_kernel(
    kernel: str | Kernel,
    *,
    gamma: float | None = None,
    degree: int = 3,
    coef0: float = 0.0,
    sigma: float | None = None,
) -> Kernel:
    """Turn a kernel name (scikit-learn's parametrization) into a callable ``k(X, Y)``.

    Parameters
    ----------
    kernel : str or callable
        ``"linear"``, ``"poly"`` (``(gamma <x,y> + coef0)^degree``), ``"rbf"``
        (``exp(-gamma ||x-y||^2)``), ``"gaussian"`` (``sigma``), ``"laplacian"``
        (``exp(-gamma ||x-y||_1)``, as scikit-learn), ``"sigmoid"``
        (``tanh(gamma <x,y> + coef0)``), or a callable ``k(X, Y) -> array``
        returned unchanged.
    gamma : float, optional
        Kernel coefficient for ``poly``, ``rbf``, ``laplacian``, ``sigmoid``;
        default ``1 / n_features`` at call time.
    degree : int, default 3
        Degree of ``poly``.
    coef0 : float, default 0.0
        Constant of ``poly`` and ``sigmoid``.
    sigma : float, optional
        Width of ``gaussian`` (default 1).

    Returns
    -------
    callable
        ``k(X, Y=None) -> numpy.ndarray``.
    """
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str) or kernel not in _NAMED:
        raise ValueError(f"kernel must be one of {_NAMED} or a callable, got {kernel!r}")
    if gamma is not None:
        check_positive(gamma, "gamma")

    def _g(X: Any) -> float:
        return gamma if gamma is not None else 1.0 / check_array(X).shape[1]

    if kernel == "linear":
        return linear_kernel
    if kernel in ("poly", "polynomial"):
        return lambda X, Y=None: polynomial_kernel(X, Y, degree=degree, gamma=_g(X), coef0=coef0)
    if kernel == "rbf":
        return lambda X, Y=None: rbf_kernel(X, Y, gamma=_g(X))
    if kernel == "gaussian":
        return lambda X, Y=None: gaussian_kernel(X, Y, sigma=1.0 if sigma is None else sigma)
    if kernel == "laplacian":
        return lambda X, Y=None: laplacian_kernel(X, Y, sigma=1.0 / _g(X), metric="manhattan")
    return lambda X, Y=None: sigmoid_kernel(X, Y, gamma=_g(X), coef0=coef0)


# ---------------------------------------------------------------------------
# Gram matrices
# ---------------------------------------------------------------------------

#: Number of kernel values computed per block by :func:`gram_matrix` by default
#: (2**20 float64 values = 8 MiB of working memory per block and worker).
DEFAULT_BLOCK_ELEMENTS = 1 << 20
_TRANSPOSE_TILE = 256


def gram_matrix(
    kernel: Kernel,
    X: Any,
    Y: Any = None,
    *,
    block_size: int | None = None,
    n_jobs: int = 2,
    **params: Any,
) -> np.ndarray:
    """Gram matrix ``K[i, j] = kernel(X[i], Y[j])`` computed block by block.

    ``kernel(A, B, **params)`` must return the ``(len(A), len(B))`` block for
    any row slices ``A`` of ``X`` and ``B`` of ``Y``. The output is allocated
    once; beyond it, the working memory is one block per worker (about
    ``block_size x block_size`` values, by default at most
    ``2**20`` values, i.e. 8 MiB, per block).

    When ``Y`` is None the matrix is symmetric and only the blocks on and above
    the diagonal are computed; the others are filled by transposition. The
    diagonal blocks are checked for symmetry, so a non-symmetric ``kernel``
    raises an error instead of producing a silently wrong matrix.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B, **params) -> array`` of shape ``(len(A), len(B))``,
        e.g. :func:`gaussian_kernel`. Works for arrays and for sequences such
        as lists of strings.
    X : array_like of shape (n, d) or sequence of length n
        First set of samples.
    Y : array_like of shape (m, d) or sequence of length m, optional
        Second set of samples; ``None`` means ``X`` (symmetric Gram).
    block_size : int, optional
        Rows (and columns) per block; default chosen from
        ``DEFAULT_BLOCK_ELEMENTS``.
    n_jobs : int, default 2
        Number of threads evaluating blocks concurrently (numpy releases the
        GIL in matrix products and ufuncs such as ``exp``).
    **params
        Keyword arguments passed to ``kernel``.

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Raises
    ------
    TypeError
        If ``kernel`` is not callable.
    ValueError
        If a block has the wrong shape or contains NaN/inf, or the kernel is
        not symmetric when ``Y`` is None.
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be a callable k(A, B, **params) -> array, got {type(kernel).__name__}")
    is_array = isinstance(X, np.ndarray) or (
        not isinstance(X, (list, tuple)) or (len(X) > 0 and not isinstance(X[0], str))
    )
    if is_array:
        Xa, Ya, _ = check_pair(X, Y)
        same = Y is None  # an explicitly passed Y (even X itself) is computed in full, without assuming symmetry
    else:
        Xa, same = list(X), Y is None
        Ya = Xa if same else list(Y)
        if len(Xa) == 0 or len(Ya) == 0:
            raise ValueError("X and Y must contain at least one item")
    n, m = len(Xa), len(Ya)
    if block_size is None:
        block_size = max(64, int(math.isqrt(DEFAULT_BLOCK_ELEMENTS)))
    elif isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    if is_array:
        fast = _inplace_gram(kernel, Xa, Ya, same, int(block_size), int(n_jobs), params)
        if fast is not None:
            return fast

    out = np.empty((n, m), dtype=np.float64)
    row_starts = range(0, n, block_size)
    col_starts = range(0, m, block_size)
    if same:
        tasks = [(i, j) for i in row_starts for j in col_starts if j >= i]
    else:
        tasks = [(i, j) for i in row_starts for j in col_starts]

    def run(task: tuple[int, int]) -> None:
        i, j = task
        i1, j1 = min(i + block_size, n), min(j + block_size, m)
        if same and i == j:  # a diagonal block is itself a symmetric Gram matrix: pass the same object twice
            blk = Xa[i:i1]
            B = np.asarray(kernel(blk, blk, **params), dtype=np.float64)
        else:
            B = np.asarray(kernel(Xa[i:i1], Ya[j:j1], **params), dtype=np.float64)
        if B.shape != (i1 - i, j1 - j):
            raise ValueError(
                f"kernel returned a block of shape {B.shape} for inputs of lengths "
                f"{i1 - i} and {j1 - j}; expected {(i1 - i, j1 - j)}"
            )
        # one reduction instead of a boolean temporary: a NaN or inf makes the sum non-finite
        if not math.isfinite(float(np.add.reduce(B, axis=None))) and not np.all(np.isfinite(B)):
            raise ValueError("kernel returned NaN or infinity")
        if same and i == j:
            scale = max(float(np.max(np.abs(B))), 1e-300)
            if float(np.max(np.abs(B - B.T))) > 1e-10 * scale:
                raise ValueError(
                    "kernel(X, X) is not symmetric: a kernel must satisfy k(x, y) = k(y, x); "
                    "pass Y explicitly to compute a non-symmetric block"
                )
        out[i:i1, j:j1] = B
        if same and j > i:
            # mirror in square tiles so the transposed reads stay in cache
            t = _TRANSPOSE_TILE
            for r in range(0, i1 - i, t):
                for c in range(0, j1 - j, t):
                    out[j + c : j + min(c + t, j1 - j), i + r : i + min(r + t, i1 - i)] = B[
                        r : r + t, c : c + t
                    ].T

    if n_jobs == 1 or len(tasks) == 1:
        for t in tasks:
            run(t)
    else:
        with ThreadPoolExecutor(max_workers=int(n_jobs)) as pool:
            for _ in pool.map(run, tasks):
                pass
    return out


def _inplace_gram(
    kernel: Kernel, Xa: np.ndarray, Ya: np.ndarray, same: bool, block_size: int, n_jobs: int, params: dict
) -> np.ndarray | None:
    """Fast path of :func:`gram_matrix` for ktheory's own inner-product kernels.

    For ``linear``, ``polynomial``, ``gaussian``/``rbf`` and ``sigmoid`` kernels
    (possibly wrapped in ``functools.partial``) the Gram matrix is one matrix
    product written straight into the output, followed by an elementwise
    transform applied in place to row blocks, in ``n_jobs`` threads. The only
    working memory beyond the output is one ``(block_size, m)`` temporary per
    thread. Returns None for any other kernel.
    """
    func, kw = kernel, dict(params)
    while isinstance(func, partial):
        kw = {**func.keywords, **kw}
        func = func.func
    if func not in (linear_kernel, polynomial_kernel, gaussian_kernel, rbf_kernel, sigmoid_kernel):
        return None
    # validate the parameters exactly as the kernel itself would, on a 1 x 1 problem
    func(Xa[:1], Ya[:1], **kw)
    n, m = len(Xa), len(Ya)
    out = np.empty((n, m), dtype=np.float64)
    np.matmul(Xa, Ya.T, out=out)  # exactly symmetric when Ya is Xa (BLAS syrk)
    if func is linear_kernel:
        return out
    if func in (gaussian_kernel, rbf_kernel):
        if func is gaussian_kernel:
            sig = kw.get("sigma", 1.0)
            gamma = 1.0 / (2.0 * sig * sig)
        else:
            gamma = _gamma_default(kw.get("gamma"), Xa.shape[1])
        gx = gamma * np.einsum("ij,ij->i", Xa, Xa)
        gy = gx if same else gamma * np.einsum("ij,ij->i", Ya, Ya)

        def transform(r0: int, r1: int) -> None:
            B = out[r0:r1]
            B *= 2.0 * gamma
            B -= np.add.outer(gx[r0:r1], gy)
            np.minimum(B, 0.0, out=B)
            if same:
                idx = np.arange(r0, r1)
                B[idx - r0, idx] = 0.0  # k(x, x) = 1 exactly
            np.exp(B, out=B)

    elif func is polynomial_kernel:
        degree, g, c = int(kw.get("degree", 2)), float(kw.get("gamma", 1.0)), float(kw.get("coef0", 1.0))

        def transform(r0: int, r1: int) -> None:
            B = out[r0:r1]
            B *= g
            B += c
            np.power(B, degree, out=B)

    else:  # sigmoid
        g = _gamma_default(kw.get("gamma"), Xa.shape[1])
        c = float(kw.get("coef0", 1.0))

        def transform(r0: int, r1: int) -> None:
            B = out[r0:r1]
            B *= g
            B += c
            np.tanh(B, out=B)

    rows = max(1, min(block_size, DEFAULT_BLOCK_ELEMENTS // max(m, 1)))
    spans = [(r, min(r + rows, n)) for r in range(0, n, rows)]
    if n_jobs == 1 or len(spans) == 1:
        for r0, r1 in spans:
            transform(r0, r1)
    else:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            list(pool.map(lambda sp_: transform(*sp_), spans))
    return out


#: Relative tolerance of the symmetry test in :func:`is_psd`.
SYMMETRY_RTOL = 1e-10


def psd_tolerance(K: Any) -> float:
    """The default eigenvalue tolerance of :func:`is_psd`: ``n * eps * max |eigenvalue|``.

    This is the size of the rounding error of a symmetric eigensolver on an
    ``n x n`` matrix (the rule ``numpy.linalg.matrix_rank`` uses for singular
    values): an exactly PSD matrix computed in floating point is not refuted
    because of rounding, while a negative eigenvalue above the rounding level
    is reported. It scales with ``K``, so the verdict of :func:`is_psd` does
    not change when ``K`` is multiplied by a positive number.
    """
    Ka = check_square_matrix(K)
    eigs = np.linalg.eigvalsh((Ka + Ka.T) / 2.0)
    return _psd_tol(eigs, Ka.shape[0])


def _psd_tol(eigs: np.ndarray, n: int) -> float:
    return n * np.finfo(np.float64).eps * float(np.max(np.abs(eigs))) if n else 0.0


def is_psd(K: Any, tol: float | None = None) -> bool:
    """Whether ``K`` is a symmetric positive semidefinite matrix (up to rounding).

    Parameters
    ----------
    K : array_like of shape (n, n)
        A finite square matrix.
    tol : float, optional
        Eigenvalues ``>= -tol`` count as non-negative. Default:
        :func:`psd_tolerance`, ``n * eps * max |eigenvalue|``, which is
        invariant to positive scaling of ``K``.

    Returns
    -------
    bool
        True when ``K`` is symmetric, ``max |K - K.T| <= SYMMETRY_RTOL * max |K|``
        (``SYMMETRY_RTOL = 1e-10``: rounding-level asymmetry is accepted), and
        the smallest eigenvalue of its symmetric part is ``>= -tol``.
        A numerical test on finitely many points can only refute positive
        semidefiniteness of a *kernel*, never prove it.

    Raises
    ------
    ValueError
        If ``K`` is not square, not 2-D or contains NaN/inf, or ``tol < 0``.
    """
    Ka = check_square_matrix(K)
    n = Ka.shape[0]
    scale = float(np.max(np.abs(Ka))) if n else 0.0
    if float(np.max(np.abs(Ka - Ka.T))) > SYMMETRY_RTOL * scale:
        return False
    eigs = np.linalg.eigvalsh((Ka + Ka.T) / 2.0)
    t = _psd_tol(eigs, n) if tol is None else check_positive(tol, "tol", allow_zero=True)
    return bool(eigs[0] >= -t)


# ---------------------------------------------------------------------------
# Explicit polynomial feature map
# ---------------------------------------------------------------------------


def polynomial_feature_powers(n_features: int, degree: int, homogeneous: bool = False) -> np.ndarray:
    """Exponent vectors of the monomials in the polynomial kernel's feature map.

    Returns an integer array of shape ``(D, n_features)`` whose rows are the
    exponents ``(k_1, ..., k_n)`` with ``sum k_i <= degree`` (``== degree``
    when ``homogeneous``), in graded order: constant first, then degree 1,
    and so on.
    """
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}")
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    rows = []
    degrees = [degree] if homogeneous else range(degree + 1)
    for total in degrees:
        for combo in combinations_with_replacement(range(n_features), total):
            p = np.zeros(n_features, dtype=np.int64)
            for idx in combo:
                p[idx] += 1
            rows.append(p)
    return np.array(rows, dtype=np.int64).reshape(-1, n_features)


def polynomial_feature_dimension(n_features: int, degree: int, homogeneous: bool = False) -> int:
    """Dimension of the explicit feature map: ``C(n + d, d)``, or ``C(n + d - 1, d)`` if homogeneous."""
    if homogeneous:
        return math.comb(n_features + degree - 1, degree)
    return math.comb(n_features + degree, degree)


def polynomial_feature_map(X: Any, degree: int = 2, coef0: float = 1.0) -> np.ndarray:
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
    """
    Xa = check_array(X)
    c = check_positive(coef0, "coef0", allow_zero=True)
    powers = polynomial_feature_powers(Xa.shape[1], degree, homogeneous=(c == 0.0))
    k0 = degree - powers.sum(axis=1)
    log_fact = np.array([math.lgamma(k + 1) for k in range(degree + 1)])
    log_coef = math.lgamma(degree + 1) - log_fact[k0] - log_fact[powers].sum(axis=1)
    # with c = 0 the map is homogeneous, so every k0 is 0 and the factor c^k0 is 1
    log_c = k0 * math.log(c) if c > 0 else np.zeros(len(k0))
    weights = np.sqrt(np.exp(log_coef + log_c))
    monomials = np.prod(Xa[:, None, :] ** powers[None, :, :], axis=2)
    return monomials * weights[None, :]


# ---------------------------------------------------------------------------
# String subsequence kernel (Lodhi et al. 2002)
# ---------------------------------------------------------------------------


def _check_string(s: Any, name: str) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{name} must be a str, got {type(s).__name__} {s!r}")
    return s


def _check_n_lam(n: Any, lam: Any, symbolic_ok: bool) -> None:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n (subsequence length) must be an integer >= 1, got {n!r}")
    if symbolic_ok and _is_symbolic(lam):
        return
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam (decay) must be a real number in (0, 1], got {lam!r}")
    if not (0.0 < float(lam) <= 1.0):
        raise ValueError(f"lam (decay) must lie in (0, 1], got {lam!r}")


def _is_symbolic(lam: Any) -> bool:
    try:
        import sympy

        return isinstance(lam, sympy.Basic) and not lam.is_Float
    except ImportError:  # pragma: no cover
        return False


def _subsequence_exact(s: str, t: str, n: int, lam: Any) -> Any:
    """The recursion of Lodhi et al. with exact arithmetic (sympy or Fraction).

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
    try:
        import sympy

        if isinstance(total, sympy.Basic):
            return sympy.expand(total)
    except ImportError:  # pragma: no cover
        pass
    return total


def _encode(strings: Sequence[str], length: int, fill: int) -> np.ndarray:
    """Integer codes of characters, padded with ``fill`` (which matches nothing)."""
    codes = np.full((len(strings), max(length, 1)), fill, dtype=np.int64)
    for r, s in enumerate(strings):  # one pass per string, not per pair
        if s:
            codes[r, : len(s)] = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    return codes


#: Strings up to this length use the matrix-product form of the decay recurrences.
_MATMUL_MAX_LEN = 96


def _decay_matrix(length: int, lam: float) -> np.ndarray:
    """Upper-triangular ``D[j, b] = lam**(b - j)`` for ``j <= b``: ``u @ D`` solves ``y_b = lam y_{b-1} + u_b``."""
    k = np.arange(length)
    diff = k[None, :] - k[:, None]
    return np.where(diff >= 0, lam ** np.maximum(diff, 0).astype(np.float64), 0.0)


def _subsequence_batch(A: np.ndarray, B: np.ndarray, n: int, lam: float) -> np.ndarray:
    """Kernel values for a batch of string pairs given as padded code arrays.

    ``A`` has shape (P, p) and ``B`` (P, q); padding codes differ between A
    and B so padded positions never match (padding at the end does not change
    the kernel). Implements the recursion of Lodhi et al.

        K''_i[a, b] = lam K''_i[a, b-1] + lam^2 [s_a = t_b] K'_{i-1}[a-1, b-1]
        K'_i[a, b]  = lam K'_i[a-1, b] + K''_i[a, b]
        K_n(s, t)   = lam^2 sum_{a, b} [s_a = t_b] K'_{n-1}[a-1, b-1]

    for all pairs at once. Each first-order recurrence ``y_b = lam y_{b-1} + u_b``
    along an axis is applied either as one matrix product with the
    triangular decay matrix (short strings: one BLAS call for the whole batch;
    arrays are laid out as (a, pair, b) so both products are single GEMMs)
    or with ``scipy.signal.lfilter`` (long strings: O(length) work per row).
    """
    P, p = A.shape
    q = B.shape[1]
    lam2 = lam * lam
    W = (A.T[:, :, None] == B[None, :, :]) * lam2  # (p, P, q): lam^2 [s_a = t_b]
    use_mm = max(p, q) <= _MATMUL_MAX_LEN
    if use_mm:
        Dq = _decay_matrix(q, lam)
        DpT = np.ascontiguousarray(_decay_matrix(p, lam).T)
    Kp = np.ones((p, P, q))  # K'_0[a-1, b-1] for a = 1..p, b = 1..q
    for _i in range(1, n):
        U = W * Kp
        if use_mm:
            Kpp = (U.reshape(p * P, q) @ Dq).reshape(p, P, q)  # along b
            Kfull = (DpT @ Kpp.reshape(p, P * q)).reshape(p, P, q)  # along a
        else:
            Kpp = lfilter([1.0], [1.0, -lam], U, axis=2)
            Kfull = lfilter([1.0], [1.0, -lam], Kpp, axis=0)
        # K'_i[a-1, b-1]: shift by one along a and b (row and column 0 are zero)
        Kp = np.zeros((p, P, q))
        Kp[1:, :, 1:] = Kfull[:-1, :, :-1]
    return np.einsum("apb,apb->p", W, Kp)


def _subsequence_features(codes: np.ndarray, n: int, lam: float, n_symbols: int) -> np.ndarray:
    """Explicit feature vectors ``phi_n(s)`` in ``R^(n_symbols^n)`` for padded code rows.

    ``F_k[a]`` collects the subsequences of length ``k`` whose last index is
    ``a``, weighted by ``lam^(a - i_1 + 1)``:

        F_1[a] = lam e_{s_a},    F_k[a] = (sum_{a' < a} lam^(a - a') F_{k-1}[a']) (x) e_{s_a},

    and ``phi_n(s) = sum_a F_n[a]``. ``codes`` (shape (N, L)) holds symbol
    indices in ``0..n_symbols-1`` and ``-1`` for padding. Arrays are laid out
    as (position, string, feature) so each decayed sum is a single GEMM.
    """
    N, L = codes.shape
    onehot = (codes.T[:, :, None] == np.arange(n_symbols)[None, None, :]).astype(np.float64)  # (L, N, A)
    if n == 1:
        return lam * onehot.sum(axis=0)
    k = np.arange(L)
    diff = k[:, None] - k[None, :]  # a - a'
    MsT = np.where(diff > 0, lam ** np.maximum(diff, 0).astype(np.float64), 0.0)  # [a, a'], a' < a
    F = lam * onehot  # F_1, shape (L, N, D) with D = A
    for _k in range(2, n + 1):
        D = F.shape[2]
        G = (MsT @ F.reshape(L, N * D)).reshape(L, N, D)  # decayed sums over earlier positions
        if _k < n:
            F = (G[:, :, :, None] * onehot[:, :, None, :]).reshape(L, N, D * n_symbols)
        else:  # the last level only needs the sum over positions: phi = sum_a G[a] (x) e_{s_a}
            return np.matmul(G.transpose(1, 2, 0), onehot.transpose(1, 0, 2)).reshape(N, D * n_symbols)
    raise AssertionError("unreachable")  # pragma: no cover


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
    lam : float in (0, 1], or a sympy expression
        Decay. A sympy symbol or exact number gives the exact polynomial in
        ``lam`` (pure-Python recursion; meant for small strings).

    Returns
    -------
    float or sympy expression
        The (unnormalized) kernel value; 0 when either string is shorter than ``n``.

    Raises
    ------
    TypeError
        If ``s`` or ``t`` is not a string or ``lam`` is not a number.
    ValueError
        If ``n < 1`` or ``lam`` is outside (0, 1].

    Examples
    --------
    >>> import sympy as sp
    >>> lam = sp.Symbol("lambda")
    >>> subsequence_kernel("cat", "car", 2, lam)
    lambda**4
    """
    _check_string(s, "s")
    _check_string(t, "t")
    _check_n_lam(n, lam, symbolic_ok=True)
    if _is_symbolic(lam):
        return _subsequence_exact(s, t, int(n), lam)
    if len(s) < n or len(t) < n:
        return 0.0
    A = _encode([s], len(s), -1)
    B = _encode([t], len(t), -2)
    return float(_subsequence_batch(A, B, int(n), float(lam))[0])


def _pairs_kernel(S: list[str], T: list[str], I: np.ndarray, J: np.ndarray, n: int, lam: float,
                  max_elements: int) -> np.ndarray:
    """Kernel values for the pairs ``(S[I[k]], T[J[k]])``.

    Each string is encoded once; pairs are sorted by their lengths and
    processed in chunks padded to the chunk's longest strings, so that one
    chunk's ``(pairs, |s|, |t|)`` arrays hold at most ``max_elements`` values.
    """
    out = np.zeros(len(I))
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
        size = max(1, max_elements // max(1, p * q_max))
        chunk = order[start : start + size]
        p = int(ls[chunk].max())
        q = int(lt[chunk].max())
        out[chunk] = _subsequence_batch(CS[I[chunk], :p], CT[J[chunk], :q], n, lam)
        start += len(chunk)
    return out


def _feature_gram(S: list[str], T: list[str] | None, n: int, lam: float, max_elements: int):
    """Gram matrix through explicit features when ``alphabet^n`` is small, else None.

    Returns ``(K, diag_S, diag_T)``. The cost is linear in the number of strings
    (features) plus one matrix product, instead of one DP per pair.
    """
    strings = S if T is None else S + list(T)
    alphabet = sorted(set("".join(strings)))
    A = max(len(alphabet), 1)
    L = max(max(len(x) for x in strings), 1)
    if A**n > 4096 or len(strings) * L * A**n > max_elements:
        return None
    index = {c: i for i, c in enumerate(alphabet)}
    codes = np.full((len(strings), L), -1, dtype=np.int64)
    for r, x in enumerate(strings):  # one pass per string
        codes[r, : len(x)] = [index[c] for c in x]
    Phi = _subsequence_features(codes, n, lam, A)
    PS = Phi[: len(S)]
    if T is None:
        K = PS @ PS.T
        d = np.einsum("ij,ij->i", PS, PS)
        return K, d, d
    PT = Phi[len(S):]
    return PS @ PT.T, np.einsum("ij,ij->i", PS, PS), np.einsum("ij,ij->i", PT, PT)


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
        Decay.
    normalize : bool, default True
        Return ``k(s, t) / sqrt(k(s, s) k(t, t))``, the cosine of the angle
        between the feature vectors, in [0, 1]. A string shorter than ``n``
        has the zero feature vector; its normalized values are defined as 0
        (including with itself), as for a zero vector under normalization.
    max_elements : int
        Working-memory budget: the number of float64 values in one batch's
        ``(pairs, |s|, |t|)`` arrays.

    Returns
    -------
    numpy.ndarray of shape (len(S), len(T))

    Raises
    ------
    TypeError
        If an item is not a string.
    ValueError
        If a list is empty, ``n < 1`` or ``lam`` is outside (0, 1].
    """
    _check_n_lam(n, lam, symbolic_ok=False)
    if isinstance(S, str) or (T is not None and isinstance(T, str)):
        raise TypeError("S and T must be sequences of strings, not a single string")
    S = [_check_string(s, f"S[{i}]") for i, s in enumerate(S)]
    same = T is None
    T = S if same else [_check_string(t, f"T[{j}]") for j, t in enumerate(T)]
    if len(S) == 0 or len(T) == 0:
        raise ValueError("S and T must contain at least one string")
    n, lam = int(n), float(lam)
    feats = _feature_gram(S, None if same else T, n, lam, max_elements)
    if feats is not None:
        K, ds, dt = feats
        if not normalize:
            return K
        denom = np.sqrt(np.outer(ds, dt))
        with np.errstate(divide="ignore", invalid="ignore"):
            Kn = np.where(denom > 0, K / np.where(denom > 0, denom, 1.0), 0.0)
        return np.clip(Kn, 0.0, 1.0)
    if same:
        I, J = np.triu_indices(len(S))
    else:
        I, J = (a.ravel() for a in np.meshgrid(np.arange(len(S)), np.arange(len(T)), indexing="ij"))
    vals = _pairs_kernel(S, T, I, J, n, lam, max_elements)
    K = np.zeros((len(S), len(T)))
    K[I, J] = vals
    if same:
        K[J, I] = vals
    if not normalize:
        return K
    if same:
        ds = dt = np.diag(K).copy()
    else:
        idx_s = np.arange(len(S))
        idx_t = np.arange(len(T))
        ds = _pairs_kernel(S, S, idx_s, idx_s, n, lam, max_elements)
        dt = _pairs_kernel(T, T, idx_t, idx_t, n, lam, max_elements)
    denom = np.sqrt(np.outer(ds, dt))
    with np.errstate(divide="ignore", invalid="ignore"):
        Kn = np.where(denom > 0, K / np.where(denom > 0, denom, 1.0), 0.0)
    return np.clip(Kn, 0.0, 1.0)
