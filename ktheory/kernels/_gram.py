"""Gram matrices computed block by block, with an in-place fast path for ktheory's kernels."""

from __future__ import annotations

import math
import numbers
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np

from ktheory._platform import effective_n_jobs
from ktheory._validation import check_pair, check_symmetric

from ._defaults import gamma_default, resolve_params
from ._pairwise import (
    Kernel,
    gaussian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    sigmoid_rows,
)
from ._scale import (
    centred_pair,
    check_finite_result,
    check_output_size,
    exp_neg_scaled,
    gaussian_multiplier,
    safe_mul,
    scaled_pair,
    sqdist_rows,
    squared_norms,
)

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
    check_symmetry: bool = True,
    **params: Any,
) -> np.ndarray:
    """Gram matrix ``K[i, j] = kernel(X[i], Y[j])`` computed block by block.

    ``kernel(A, B, **params)`` must return the ``(len(A), len(B))`` block for
    any row slices ``A`` of ``X`` and ``B`` of ``Y``. The output is allocated
    once; beyond it, the working memory is one block per worker (about
    ``block_size x block_size`` values, by default at most
    ``2**20`` values, i.e. 8 MiB, per block).

    When ``Y`` is None the matrix must be symmetric. With
    ``check_symmetry=True`` (the default) every block is computed, the
    whole matrix is checked (``max |K - K.T| <= 1e-10 max |K|``, the blocks
    below the diagonal against those above it), and the upper triangle is
    then mirrored so the result is exactly symmetric; a non-symmetric
    ``kernel`` raises instead of producing a silently wrong matrix. With
    ``check_symmetry=False`` only the blocks on and above the diagonal are
    computed (half the kernel evaluations) and the kernel is trusted.
    ktheory's own linear, polynomial, Gaussian/RBF and sigmoid kernels take a
    fast in-place path that is symmetric by construction.

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
        GIL in matrix products and ufuncs such as ``exp``). Where threads
        cannot be started (Pyodide, WASI: see :mod:`ktheory._platform`) the
        blocks run one after another in the calling thread, with the same
        result; ``n_jobs`` is still checked.
    check_symmetry : bool, default True
        Whether to verify the symmetry of a generic kernel when ``Y`` is None.
    **params
        Keyword arguments passed to ``kernel``.

    Returns
    -------
    numpy.ndarray of shape (n, m)

    Raises
    ------
    TypeError
        If ``kernel`` is not callable, or a parameter has the wrong type.
    ValueError
        If a block has the wrong shape or contains NaN/inf, or the kernel is
        not symmetric when ``Y`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> gram_matrix(linear_kernel, np.eye(2), block_size=1)
    array([[1., 0.],
           [0., 1.]])
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be a callable k(A, B, **params) -> array, got {type(kernel).__name__}")
    if not isinstance(check_symmetry, (bool, np.bool_)):
        raise TypeError(f"check_symmetry must be a bool, got {type(check_symmetry).__name__} {check_symmetry!r}")
    is_array = isinstance(X, np.ndarray) or (
        not isinstance(X, (list, tuple)) or (len(X) > 0 and not isinstance(X[0], str))
    )
    if is_array:
        Xa, Ya, _ = check_pair(X, Y)
        same = Y is None  # an explicitly passed Y (even X itself) is computed in full, without assuming symmetry
    else:
        Xa, same = list(X), Y is None
        if not same and isinstance(Y, str):
            raise TypeError("Y must be a sequence of items like X, not a single string")
        Ya = Xa if same else list(Y)
        if len(Xa) == 0 or len(Ya) == 0:
            raise ValueError("X and Y must contain at least one item")
    n, m = len(Xa), len(Ya)
    check_output_size(n, m, "the Gram matrix")
    if block_size is None:
        block_size = max(64, int(math.isqrt(DEFAULT_BLOCK_ELEMENTS)))
    elif isinstance(block_size, bool) or not isinstance(block_size, numbers.Integral):
        raise TypeError(f"block_size must be a positive integer, got {type(block_size).__name__} {block_size!r}")
    elif block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be a positive integer, got {type(n_jobs).__name__} {n_jobs!r}")
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    block_size, n_jobs = int(block_size), effective_n_jobs(int(n_jobs))  # 1 where no thread can start
    if is_array:
        fast = _inplace_gram(kernel, Xa, Ya, same, block_size, n_jobs, params)
        if fast is not None:
            return fast

    out = np.empty((n, m), dtype=np.float64)
    row_starts = range(0, n, block_size)
    col_starts = range(0, m, block_size)
    full = not same or check_symmetry
    tasks = [(i, j) for i in row_starts for j in col_starts if full or j >= i]

    def run(task: tuple[int, int]) -> None:
        i, j = task
        i1, j1 = min(i + block_size, n), min(j + block_size, m)
        if same and i == j:  # a diagonal block is itself a symmetric Gram matrix: pass the same object twice
            blk = Xa[i:i1]
            B = np.asarray(kernel(blk, blk, **params))
        else:
            B = np.asarray(kernel(Xa[i:i1], Ya[j:j1], **params))
        if B.dtype.kind == "c":
            raise TypeError("kernel returned complex values; a kernel must be real-valued")
        try:
            B = B.astype(np.float64, copy=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"kernel returned values that are not real numbers: {exc}") from None
        if B.shape != (i1 - i, j1 - j):
            raise ValueError(
                f"kernel returned a block of shape {B.shape} for inputs of lengths "
                f"{i1 - i} and {j1 - j}; expected {(i1 - i, j1 - j)}"
            )
        # one reduction instead of a boolean temporary: a NaN or inf makes the sum non-finite
        with np.errstate(over="ignore", invalid="ignore"):
            total = float(np.add.reduce(B, axis=None))
        if not math.isfinite(total) and not np.all(np.isfinite(B)):
            raise ValueError("kernel returned NaN or infinity")
        out[i:i1, j:j1] = B

    if n_jobs == 1 or len(tasks) == 1:
        for t in tasks:
            run(t)
    else:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            for _ in pool.map(run, tasks):
                pass
    if same:
        if check_symmetry:
            try:
                check_symmetric(out, "K")
            except ValueError as exc:
                raise ValueError(
                    "kernel(X, X) is not symmetric: a kernel must satisfy k(x, y) = k(y, x) "
                    f"({exc}); pass Y explicitly to compute a non-symmetric block"
                ) from None
        _mirror_upper(out)
    return out


def _mirror_upper(out: np.ndarray) -> None:
    """Copy the strict upper triangle onto the lower one, in square tiles (cache friendly)."""
    n = out.shape[0]
    t = _TRANSPOSE_TILE
    for i in range(0, n, t):
        for j in range(i, n, t):
            src = out[i : i + t, j : j + t]
            if i == j:
                iu = np.triu_indices(src.shape[0], 1)
                src.T[iu] = src[iu]
            else:
                out[j : j + t, i : i + t] = src.T


_FAST = {
    linear_kernel: "linear_kernel",
    polynomial_kernel: "polynomial_kernel",
    gaussian_kernel: "gaussian_kernel",
    rbf_kernel: "rbf_kernel",
    sigmoid_kernel: "sigmoid_kernel",
}


def _inplace_gram(
    kernel: Kernel, Xa: np.ndarray, Ya: np.ndarray, same: bool, block_size: int, n_jobs: int, params: dict
) -> np.ndarray | None:
    """Fast path of :func:`gram_matrix` for ktheory's own inner-product kernels.

    For ``linear``, ``polynomial``, ``gaussian``/``rbf`` and ``sigmoid`` kernels
    (possibly wrapped in ``functools.partial``) the Gram matrix is one matrix
    product written straight into the output, followed by an elementwise
    transform applied in place to row blocks, in ``n_jobs`` threads (for the
    Gaussian/RBF kernels on the rows centred at their reference point, as the
    kernel functions compute them: see ``ktheory.kernels._scale``). The only
    working memory beyond the output is one ``(block_size, m)`` temporary per
    thread. The parameters are completed from ``KERNEL_DEFAULTS`` (the kernel
    functions' own defaults). Returns None for any other kernel. ``n_jobs`` comes
    from :func:`gram_matrix`, already 1 where threads cannot be started.
    """
    func, kw = kernel, dict(params)
    while isinstance(func, partial):
        if func.args:
            return None
        kw = {**func.keywords, **kw}
        func = func.func
    name = _FAST.get(func)
    if name is None:
        return None
    kw = resolve_params(name, kw)
    # validate the parameters exactly as the kernel itself would, on a 1 x 1 problem
    func(Xa[:1], Ya[:1], **kw)
    n, m = len(Xa), len(Ya)
    Xs, Ys, c = (Xa, Ya, 1.0) if name in ("linear_kernel", "polynomial_kernel") else scaled_pair(Xa, Ya, same)
    if name in ("gaussian_kernel", "rbf_kernel"):
        # the distance specification of ``_scale``: rows centred at one reference point
        Xs, Ys = centred_pair(Xs, Ys, same)
    out = np.empty((n, m), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        np.matmul(Xs, Ys.T, out=out)  # exactly symmetric when Ys is Xs (BLAS syrk)
    if name == "linear_kernel":
        return check_finite_result(out, "linear kernel values <x, y>", "rescale X (and Y)")
    if name in ("gaussian_kernel", "rbf_kernel"):
        if name == "gaussian_kernel":
            mult = gaussian_multiplier(c, sigma=float(kw["sigma"]))
        else:
            mult = gaussian_multiplier(c, gamma=gamma_default(kw["gamma"], Xa.shape[1]))
        xx = squared_norms(Xs)
        yy = xx if same else squared_norms(Ys)

        def transform(r0: int, r1: int) -> None:
            B = out[r0:r1]
            sqdist_rows(B, xx[r0:r1], yy, r0, same)
            exp_neg_scaled(B, mult)

    elif name == "polynomial_kernel":
        degree, g, c0 = int(kw["degree"]), float(kw["gamma"]), float(kw["coef0"])

        def transform(r0: int, r1: int) -> None:
            B = out[r0:r1]
            with np.errstate(over="ignore", invalid="ignore"):
                B *= g
                B += c0
                np.power(B, degree, out=B)

    else:  # sigmoid
        m_sig = safe_mul(safe_mul(gamma_default(kw["gamma"], Xa.shape[1]), c), c)
        c0 = float(kw["coef0"])

        def transform(r0: int, r1: int) -> None:
            sigmoid_rows(out[r0:r1], m_sig, c0)

    rows = max(1, min(block_size, DEFAULT_BLOCK_ELEMENTS // max(m, 1)))
    spans = [(r, min(r + rows, n)) for r in range(0, n, rows)]
    if n_jobs == 1 or len(spans) == 1:
        for r0, r1 in spans:
            transform(r0, r1)
    else:
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            list(pool.map(lambda sp_: transform(*sp_), spans))
    if name == "polynomial_kernel":
        check_finite_result(out, "polynomial kernel values (gamma <x, y> + coef0) ** degree",
                            "rescale X (and Y), or lower gamma / coef0 / degree")
    return out
