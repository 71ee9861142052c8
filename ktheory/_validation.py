"""Input checks shared by every ktheory module.

Every public function validates its input here so that bad input produces a
``ValueError`` or ``TypeError`` that names the argument and says what was
expected, instead of an opaque numpy traceback or a silently wrong answer.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_array",
    "check_pair",
    "check_positive",
    "check_square_matrix",
    "check_symmetric",
    "floating_dtype",
    "symmetry_rtol",
]

#: Largest number of values an input array may hold (2**31: 16 GiB as float64); larger
#: input is refused before any conversion or copy.
MAX_ARRAY_ELEMENTS = 1 << 31

#: Relative symmetry tolerance for float64 input (and anything converted to float64).
DEFAULT_SYMMETRY_RTOL = 1e-10


def floating_dtype(X: Any) -> np.dtype:
    """The floating dtype whose rounding level describes the input ``X``.

    ``float32`` and ``float16`` arrays keep their dtype (their values carry
    that precision); everything else (float64, integers, bools, lists of
    Python numbers) is described by ``float64``.

    Examples
    --------
    >>> floating_dtype(np.ones(2, dtype=np.float32))
    dtype('float32')
    >>> floating_dtype([[1, 2], [3, 4]])
    dtype('float64')
    """
    dt = getattr(X, "dtype", None)
    if isinstance(dt, np.dtype) and dt.kind == "f" and dt.itemsize < 8:
        return dt
    return np.dtype(np.float64)


def symmetry_rtol(dtype: Any = np.float64) -> float:
    """Relative tolerance of the symmetry test for matrices of the given dtype.

    ``max(1e-10, 100 * eps(dtype))``: ``1e-10`` for float64 (the package's
    historical default) and ``100 * eps`` for lower precisions, e.g. about
    ``1.2e-5`` for float32, where a Gram matrix computed blockwise (or on a
    GPU) is symmetric only to rounding level.

    Examples
    --------
    >>> symmetry_rtol(np.float64)
    1e-10
    >>> round(symmetry_rtol(np.float32), 7)
    1.19e-05
    """
    dt = np.dtype(dtype)
    eps = float(np.finfo(dt).eps) if dt.kind == "f" else float(np.finfo(np.float64).eps)
    return max(DEFAULT_SYMMETRY_RTOL, 100.0 * eps)


def check_array(
    X: Any,
    name: str = "X",
    *,
    ndim: int = 2,
    allow_empty: bool = False,
    dtype: Any = np.float64,
) -> np.ndarray:
    """Convert ``X`` to a finite float array of dimension ``ndim``.

    Parameters
    ----------
    X : array_like
        The input.
    name : str
        Name of the argument, used in error messages.
    ndim : int
        Required number of dimensions (1 or 2).
    allow_empty : bool
        Whether an array with no elements is acceptable.
    dtype : numpy dtype
        Target dtype (float64 by default).

    Returns
    -------
    numpy.ndarray
        A C-contiguous array of the requested dtype.

    Raises
    ------
    TypeError
        If ``X`` cannot be converted to a numeric array, is complex (the
        imaginary part is never dropped silently), or holds strings, bytes or
        dates. Booleans are accepted as 0/1.
    ValueError
        If ``X`` has the wrong number of dimensions, is empty, contains
        NaN or infinity, or holds more than ``MAX_ARRAY_ELEMENTS`` values.
    """
    if X is None:
        raise TypeError(f"{name} must be an array, got None")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a string {X!r}")
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise TypeError(f"{name} must be a numeric array; could not convert it: {exc}") from None
    if raw.size > MAX_ARRAY_ELEMENTS:
        raise ValueError(
            f"{name} has {raw.size} values (shape {raw.shape}), more than the limit "
            f"MAX_ARRAY_ELEMENTS = {MAX_ARRAY_ELEMENTS} (16 GiB as float64)"
        )
    kind = raw.dtype.kind
    if kind == "c" or (kind == "O" and any(isinstance(v, complex) or np.iscomplexobj(v) for v in raw.flat)):
        raise TypeError(
            f"{name} must be a real array; got complex values (dtype {raw.dtype}). "
            f"Pass the real part ({name}.real) explicitly if that is what you mean"
        )
    if kind in "USVMm":
        raise TypeError(f"{name} must be a numeric array; got an array of dtype {raw.dtype}")
    try:
        arr = raw.astype(dtype, copy=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a numeric array; could not convert it to {np.dtype(dtype).name}: {exc}"
        ) from None
    if arr.ndim != ndim:
        if ndim == 2 and arr.ndim == 1:
            hint = (
                f" Reshape it with {name}.reshape(-1, 1) for a single feature "
                f"or {name}.reshape(1, -1) for a single sample."
            )
        else:
            hint = ""
        shape_word = "(n_samples, n_features)" if ndim == 2 else "(n_samples,)"
        raise ValueError(
            f"{name} must be a {ndim}-D array of shape {shape_word}; "
            f"got a {arr.ndim}-D array of shape {arr.shape}.{hint}"
        )
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample and one feature are needed")
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        n_bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains NaN or infinity ({n_bad} non-finite entries)")
    return np.ascontiguousarray(arr)


def check_pair(X: Any, Y: Any = None, names: tuple[str, str] = ("X", "Y")) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate a pair of sample matrices with the same number of features.

    Returns ``(X, Y, same)`` where ``same`` is True when ``Y`` was None or is
    the very object ``X`` (so that the Gram matrix is symmetric).
    """
    Xa = check_array(X, names[0])
    if Y is None or Y is X:
        return Xa, Xa, True
    Ya = check_array(Y, names[1])
    if Xa.shape[1] != Ya.shape[1]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of features (columns); "
            f"got {names[0]}.shape={Xa.shape} and {names[1]}.shape={Ya.shape}"
        )
    return Xa, Ya, False


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Check that ``value`` is a finite real number > 0 (or >= 0)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not np.isfinite(v) or (v < 0 if allow_zero else v <= 0):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return v


def check_square_matrix(K: Any, name: str = "K", *, symmetric: bool = False) -> np.ndarray:
    """Validate a finite square 2-D matrix (converted to float64).

    With ``symmetric=True`` the matrix must also be symmetric to the
    tolerance :func:`symmetry_rtol` of the *input's* dtype (so a float32
    matrix is judged at float32 rounding level, before the conversion).
    """
    Ka = check_array(K, name)
    if Ka.shape[0] != Ka.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {Ka.shape}")
    if symmetric:
        check_symmetric(Ka, name, dtype=floating_dtype(K))
    return Ka


def check_symmetric(
    K: np.ndarray,
    name: str = "K",
    rtol: float | None = None,
    block: int = 128,
    *,
    dtype: Any = None,
) -> np.ndarray:
    """Raise ``ValueError`` unless the square matrix ``K`` is symmetric to ``rtol``.

    The criterion is ``max |K - K.T| <= rtol * max |K|``. It is evaluated on
    square tiles (the upper ones against the transposed lower ones), so no
    ``n x n`` temporary is formed and the transposed reads stay in cache.

    ``rtol=None`` (the default) means :func:`symmetry_rtol` of ``dtype``, or
    of ``K.dtype`` when ``dtype`` is None: ``1e-10`` for float64, about
    ``1.2e-5`` for float32. Pass ``dtype=floating_dtype(original_input)``
    when ``K`` has already been converted to float64.
    """
    if rtol is None:
        rtol = symmetry_rtol(K.dtype if dtype is None else dtype)
    n = K.shape[0]
    if K.size == 0:
        return K
    scale = float(max(K.max(), -K.min()))
    asym = 0.0
    buf = np.empty((min(block, n), min(block, n)), dtype=np.result_type(K.dtype, np.float32))
    for i in range(0, n, block):
        for j in range(i, n, block):
            a = K[i : i + block, j : j + block]
            d = buf[: a.shape[0], : a.shape[1]]
            np.subtract(a, K[j : j + block, i : i + block].T, out=d)
            asym = max(asym, float(d.max()), float(-d.min()))
    if asym > rtol * max(scale, 1e-300):
        raise ValueError(
            f"{name} must be symmetric; max |{name} - {name}.T| = {asym:.3g} "
            f"exceeds {rtol:g} times max |{name}| = {scale:.3g}"
        )
    return K
