"""Array-namespace helpers of :mod:`ktheory.alignment` (the array API standard).

:mod:`ktheory.alignment` keeps its numpy code for numpy input (and for lists, scalars and
anything ``array-api-compat`` does not recognise, converted by ``numpy.asarray`` as
before). Any other array that ``array-api-compat`` supports (array-api-strict, Dask,
torch, JAX, CuPy) is computed in its own namespace and on its own device with the
functions here; only scalars cross to the host (``float(...)``, one synchronisation for
several of them; for Dask, one ``dask.compute``).

Accuracy in low precision (float32): column sums are pairwise (:func:`colsum`, error
``O(log2(n) eps)`` instead of the ``O(n eps)`` of a sequential sum down the rows), and
sums over row blocks are merged pairwise (:class:`PairwiseSum`, :func:`block_sum`).

``array-api-compat`` is imported only when a non-numpy array arrives, so the numpy path
works (and imports) without it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "namespace",
    "is_dask",
    "device_of",
    "as_float",
    "host_floats",
    "realize",
    "colsum",
    "block_sum",
    "PairwiseSum",
    "scale_pow2",
    "exponent",
    "finfo",
]

#: Objects that take the numpy path as they are (numpy arrays and their subclasses, lists,
#: Python and numpy scalars).
_HOST_TYPES = (np.ndarray, np.generic, list, tuple, int, float, bool, complex, str, bytes)
#: Modules whose arrays need array-api-compat (a clear ImportError rather than a conversion).
_FOREIGN_MODULES = ("torch", "jax", "jaxlib", "cupy", "dask", "array_api_strict", "ndonnx", "sparse")


def _compat() -> Any:
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - exercised only where array-api-compat is absent
        return None
    return array_api_compat


def _is_foreign(a: Any, name: str) -> bool:
    """Whether ``a`` is an array of a non-numpy array library that array-api-compat supports."""
    if a is None or isinstance(a, _HOST_TYPES):
        return False
    c = _compat()
    if c is None:
        mod = type(a).__module__.split(".")[0]
        if mod in _FOREIGN_MODULES or hasattr(a, "__array_namespace__"):
            raise ImportError(
                f"{name} is a {mod} array: ktheory.alignment computes on such arrays with the "
                f"package array-api-compat, which is not installed (pip install array-api-compat)"
            )
        return False
    return bool(c.is_array_api_obj(a)) and not c.is_numpy_array(a)


def namespace(arrays: Sequence[Any], names: Sequence[str]) -> Any:
    """The array namespace in which to compute, or ``None`` for the numpy path.

    ``None`` when no argument is an array of another library than numpy. Otherwise the
    ``array_api_compat`` namespace of those arrays; a numpy array mixed with them is a
    ``TypeError`` (no silent transfer either way), arrays of two libraries are a
    ``TypeError`` and arrays on two devices a ``ValueError``, each naming the arguments.
    Lists and scalars beside them are converted by the caller (:func:`to_namespace`).
    """
    foreign = [(a, nm) for a, nm in zip(arrays, names) if _is_foreign(a, nm)]
    if not foreign:
        return None
    c = _compat()
    numpy_args = [nm for a, nm in zip(arrays, names) if isinstance(a, np.ndarray)]
    if numpy_args:
        raise TypeError(
            f"{', '.join(numpy_args)} {'is a numpy array' if len(numpy_args) == 1 else 'are numpy arrays'} "
            f"but {foreign[0][1]} is a {type(foreign[0][0]).__module__.split('.')[0]} array: pass "
            f"arrays of one library (convert one of them explicitly; ktheory does not move data)"
        )
    try:
        xp = c.array_namespace(*(a for a, _ in foreign))
    except TypeError:
        kinds = ", ".join(f"{nm}: {type(a).__module__.split('.')[0]}" for a, nm in foreign)
        raise TypeError(f"the arrays come from different array libraries ({kinds}); pass arrays of one library") from None
    devs = [(c.device(a), nm) for a, nm in foreign]
    for dv, nm in devs[1:]:
        if dv != devs[0][0]:
            raise ValueError(
                f"{devs[0][1]} and {nm} are on different devices ({devs[0][0]} and {dv}); "
                f"move one of them: the computation runs on the inputs' device"
            )
    return xp


def is_dask(a: Any) -> bool:
    c = _compat()
    return c is not None and bool(c.is_dask_array(a))


def device_of(a: Any) -> Any:
    return _compat().device(a)


def to_namespace(xp: Any, a: Any, like: Any, name: str) -> Any:
    """``a`` as an array of ``xp`` on the device of ``like`` (lists and scalars only)."""
    if _is_foreign(a, name):
        return a
    if a is None:
        raise TypeError(f"{name} must be an array, got None")
    if isinstance(a, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got a string {a!r}")
    try:
        raw = np.asarray(a)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array; could not convert it: {exc}") from None
    if raw.dtype.kind not in "biuf":
        if raw.dtype.kind == "c":
            raise TypeError(f"{name} must be a real array; got complex values (dtype {raw.dtype})")
        raise TypeError(f"{name} must be a numeric array; got an array of dtype {raw.dtype}")
    dev = device_of(like)
    return xp.asarray(raw.astype(np.float64 if raw.dtype.kind in "biu" else raw.dtype),
                      dtype=_default_float(xp, dev) if raw.dtype.kind in "biu" else None, device=dev)


def _default_float(xp: Any, dev: Any) -> Any:
    try:
        return xp.__array_namespace_info__().default_dtypes(device=dev)["real floating"]
    except Exception:  # noqa: BLE001 - namespaces without the inspection API
        return xp.float64


def finfo(xp: Any, dtype: Any) -> Any:
    return xp.finfo(dtype)


def as_float(xp: Any, A: Any, name: str) -> Any:
    """``A`` as a real floating array of its namespace and device.

    Real floating dtypes of at least 32 bits are kept (float32 stays float32: no upcast);
    float16/bfloat16 become float32; integers and booleans become the device's default
    real floating dtype (float32 where float64 is missing). Complex and other dtypes are a
    ``TypeError`` naming the argument.
    """
    dt = A.dtype
    if xp.isdtype(dt, "complex floating"):
        raise TypeError(
            f"{name} must be a real array; got complex values (dtype {dt}). "
            f"Pass the real part explicitly if that is what you mean"
        )
    if xp.isdtype(dt, "real floating"):
        if xp.finfo(dt).bits < 32:
            return xp.astype(A, xp.float32)
        return A
    if xp.isdtype(dt, ("integral", "bool")):
        return xp.astype(A, _default_float(xp, device_of(A)))
    raise TypeError(f"{name} must be a numeric array; got an array of dtype {dt}")


def check_shape(A: Any, name: str, ndim: int = 2) -> tuple[int, ...]:
    """The shape of ``A`` as ints, with the messages of ``_validation.check_array``."""
    shape = tuple(A.shape)
    if any(s is None or (isinstance(s, float) and math.isnan(s)) for s in shape):
        raise ValueError(
            f"{name} has unknown dimensions {shape} (a lazy array with unknown chunk sizes); "
            f"compute them first (for Dask: {name}.compute_chunk_sizes())"
        )
    shape = tuple(int(s) for s in shape)
    if len(shape) != ndim:
        hint = ""
        if ndim == 2 and len(shape) == 1:
            hint = (f" Reshape it with {name}.reshape(-1, 1) for a single feature "
                    f"or {name}.reshape(1, -1) for a single sample.")
        raise ValueError(
            f"{name} must be a {ndim}-D array of shape (n_samples, n_features); "
            f"got a {len(shape)}-D array of shape {shape}.{hint}"
        )
    if math.prod(shape) == 0:
        raise ValueError(f"{name} is empty (shape {shape}); at least one sample and one feature are needed")
    return shape


def raise_non_finite(xp: Any, A: Any, name: str) -> None:
    """The ``ValueError`` for an array found to hold NaN/inf (the count is computed here, on the error path)."""
    bad = host_floats(xp, xp.sum(xp.astype(~xp.isfinite(A), xp.int32)))[0]
    raise ValueError(f"{name} contains NaN or infinity ({int(bad)} non-finite entries)")


def host_floats(xp: Any, *scalars: Any) -> list[float]:
    """0-d arrays of ``xp`` as Python floats: one ``dask.compute`` for Dask, else ``float()`` each."""
    if scalars and is_dask(scalars[0]):
        import dask

        return [float(v) for v in dask.compute(*scalars)]
    return [float(s) for s in scalars]


def realize(xp: Any, *arrays: Any) -> list[Any]:
    """Evaluate lazy (Dask) arrays together, so that a later step does not repeat their graph.

    Small results only (column statistics): for Dask the values are computed in one
    ``dask.compute`` and wrapped again as in-memory Dask arrays; eager arrays are returned as
    they are.
    """
    if arrays and is_dask(arrays[0]):
        import dask
        import dask.array as da

        return [da.from_array(v, chunks=-1) for v in dask.compute(*arrays)]
    return list(arrays)


def colsum(xp: Any, X: Any) -> Any:
    """Column sums of a 2-D array by pairwise (cascade) summation down the rows.

    A sum down the rows of a row-major array is sequential in numpy (error ``n eps`` times the
    sum of magnitudes: 10**6 float32 rows lose everything); halving the rows instead,
    ``X[:h] + X[h:2h]``, has error ``log2(n) eps``. Lazy Dask arrays are summed per row chunk
    (:func:`block_sum`).
    """
    if is_dask(X):
        d = int(X.shape[1])
        return block_sum(xp, lambda b: colsum(_compat().array_namespace(b), b), [X], [], d, X.dtype)
    n = int(X.shape[0])
    rest = None
    while n > 32:
        h = n // 2
        if n % 2:
            last = X[n - 1, :]
            rest = last if rest is None else rest + last
        X = X[:h, :] + X[h : 2 * h, :]
        n = h
    s = xp.sum(X, axis=0)
    return s if rest is None else s + rest


class PairwiseSum:
    """Sum of a stream of arrays merged pairwise (a binary counter): ``O(log k)`` partial
    sums held, error ``O(log2(k) eps)`` instead of ``O(k eps)``."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, Any]] = []

    def add(self, v: Any) -> None:
        level = 0
        while self._stack and self._stack[-1][0] == level:
            v = self._stack.pop()[1] + v
            level += 1
        self._stack.append((level, v))

    def total(self) -> Any:
        if not self._stack:
            raise ValueError("empty sum")
        out = self._stack[-1][1]
        for _, v in reversed(self._stack[:-1]):
            out = v + out
        return out


def block_sum(xp: Any, func: Callable[..., Any], arrays: Sequence[Any], consts: Sequence[Any],
              length: int, dtype: Any, block_rows: int | None = None) -> Any:
    """``sum_b func(*row_block_b, *consts)`` over row blocks of 2-D arrays with the same rows.

    ``func`` returns a 1-D array of ``length`` values computed on one block in the block's
    own namespace. Eager arrays: blocks of ``block_rows`` rows (about 2**22 values), merged by
    :class:`PairwiseSum`. Dask arrays: one task per row chunk (``map_blocks``) and Dask's
    tree reduction, a graph that the default scheduler or a ``distributed`` cluster runs
    chunk by chunk; ``consts`` (small arrays) are evaluated once and shipped with the tasks.
    """
    if is_dask(arrays[0]):
        import dask
        import dask.array as da
        from dask.array.utils import meta_from_array

        first = arrays[0].rechunk({1: -1})
        rows = first.chunks[0]
        arrs = [first] + [a.rechunk((rows, -1)) for a in arrays[1:]]
        cvals = list(dask.compute(*consts)) if consts else []
        k = len(rows)

        def task(*blocks: Any) -> Any:
            out = func(*blocks, *cvals)
            return _compat().array_namespace(out).reshape(out, (1, length))

        parts = da.map_blocks(task, *arrs, chunks=((1,) * k, (length,)), dtype=dtype,
                              meta=meta_from_array(arrs[0], ndim=2))
        return xp.sum(parts, axis=0)
    n = int(arrays[0].shape[0])
    if block_rows is None:
        width = sum(int(a.shape[1]) for a in arrays)
        block_rows = max(1024, min(1 << 17, (1 << 22) // max(width, 1)))
    acc = PairwiseSum()
    for i in range(0, n, block_rows):
        j = min(i + block_rows, n)  # the standard leaves out-of-bounds slice stops unspecified
        acc.add(func(*(a[i:j, :] for a in arrays), *consts))
    return acc.total()


def exponent(m: float) -> int:
    """``e`` with ``m / 2**e`` in ``[1, 2)`` (0 for 0, inf or nan)."""
    if m == 0.0 or not math.isfinite(m):
        return 0
    return math.frexp(m)[1] - 1


def scale_pow2(A: Any, e: int) -> Any:
    """``A * 2**e`` (exact barring under/overflow), in steps of at most ``2**+-60`` so that
    every factor is representable in float32."""
    while e != 0:
        step = max(-60, min(60, e))
        A = A * math.ldexp(1.0, step)
        e -= step
    return A
