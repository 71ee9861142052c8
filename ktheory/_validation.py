"""Input checks shared by every ktheory module.

Every public function validates its input here so that bad input produces a
``ValueError`` or ``TypeError`` that names the argument and says what was
expected, instead of an opaque numpy traceback or a silently wrong answer.

Two layers:

* the functions and kernels (``check_array``, ``check_pair``, ``check_symmetric``, ...):
  numpy input, the package's own wording, and what only ``ktheory`` needs (symmetry and
  positive semi-definiteness of Gram matrices at the input's rounding level);
* the estimators (``fit_data``, ``predict_data``, ``class_labels``, ``real_target``):
  scikit-learn's ``validate_data`` and target checks (``n_features_in_``,
  ``feature_names_in_``, its messages and warnings), with the package's dtype rules in
  front of them: complex numbers, strings, dates and ``None`` are a ``TypeError`` naming the
  argument, never a silent real part or a conversion error from deep inside numpy.

:mod:`ktheory.alignment` does not use the estimator layer: it accepts arrays of any
array-API library, which scikit-learn's validation would convert to numpy.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "ComplexDataError",
    "check_array",
    "class_labels",
    "fit_data",
    "predict_data",
    "real_target",
    "score_target",
    "accuracy",
    "check_pair",
    "check_positive",
    "check_psd_gram",
    "psd_gram_tolerance",
    "check_square_matrix",
    "check_symmetric",
    "floating_dtype",
    "symmetrized",
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


def _all_finite(arr: np.ndarray) -> bool:
    """Whether every entry is finite: one reduction (a NaN or an infinity makes the sum
    non-finite), and the entry-wise test only where the sum is not finite (it may have
    overflowed on finite entries), so the common case allocates no boolean array."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(arr, axis=None)
    return bool(np.isfinite(total)) or bool(np.all(np.isfinite(arr)))


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
    if arr.dtype.kind in "fc" and not _all_finite(arr):
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


def check_gram_input_size(X: Any, limit_mb: float, *, knob: str = "gram_limit_mb",
                          copies: int = 1) -> None:
    """Refuse, before any conversion, a precomputed Gram matrix ``X`` whose float64 copies
    would take more than ``limit_mb`` MiB: ``fit`` holds ``copies`` private float64 copies
    of it (``n_rows * n_cols * 8`` bytes each), whatever ``X``'s dtype, order or strides
    (``np.broadcast_to`` gives a 50 000 x 50 000 "matrix" of a few bytes whose copy is
    18.6 GiB). ``knob`` names the parameter that raises the limit."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        return  # lists and other shapes: validated (and sized) by the caller's validation
    need_mb = copies * float(shape[0]) * float(shape[1]) * 8 / 2**20
    if need_mb > limit_mb:
        raise ValueError(
            f"X (precomputed Gram matrix) has shape {tuple(shape)}: fit would hold "
            f"{copies} float64 cop{'y' if copies == 1 else 'ies'} of it, {need_mb:.0f} MiB, more "
            f"than {knob}={limit_mb:g}; use fewer samples or raise {knob}"
        )


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray | None:
    """``fit``'s ``sample_weight``: None (no weights), a real number (the same weight for
    every sample) or a finite 1-D array of ``n_samples`` reals, returned as a float64
    array of shape ``(n_samples,)`` (None stays None). Zero and negative weights are
    valid input here: the estimators document what they do with them."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        w = float(sample_weight)
        if not np.isfinite(w):
            raise ValueError(f"sample_weight must be finite, got {sample_weight!r}")
        return np.full(n_samples, w)
    w = check_array(sample_weight, "sample_weight", ndim=1, allow_empty=True)
    if w.shape[0] != n_samples:
        raise ValueError(f"sample_weight has {w.shape[0]} entries but X has {n_samples} "
                         f"samples; expected shape ({n_samples},)")
    return w


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a bool: ``True``/``False`` (or numpy's); anything else, a string such as
    ``"no"`` included, is a ``TypeError`` naming ``name`` (a truthy string is not True)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


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
    block: int = 256,
    *,
    dtype: Any = None,
    max_abs: float | None = None,
) -> np.ndarray:
    """Raise ``ValueError`` unless the square matrix ``K`` is symmetric to ``rtol``.

    The criterion is ``max |K - K.T| <= rtol * max |K|``. It is evaluated on
    square tiles (the upper ones against the transposed lower ones), so no
    ``n x n`` temporary is formed and the transposed reads stay in cache.

    ``rtol=None`` (the default) means :func:`symmetry_rtol` of ``dtype``, or
    of ``K.dtype`` when ``dtype`` is None: ``1e-10`` for float64, about
    ``1.2e-5`` for float32. Pass ``dtype=floating_dtype(original_input)``
    when ``K`` has already been converted to float64. ``max_abs``: ``max|K|`` if the
    caller has it (it is not computed again).
    """
    if rtol is None:
        rtol = symmetry_rtol(K.dtype if dtype is None else dtype)
    n = K.shape[0]
    if K.size == 0:
        return K
    scale = float(max(K.max(), -K.min())) if max_abs is None else float(max_abs)
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


def symmetrized(K: np.ndarray, name: str, in_dtype: Any) -> np.ndarray:
    """``K`` (float64) checked for symmetry to the tolerance of the dtype it came with
    (:func:`symmetry_rtol`); a low-precision input admitted with a rounding-level
    asymmetry is replaced by its symmetric part ``(K + K.T) / 2`` (then a private copy),
    so that a solver sees an exactly symmetric matrix."""
    try:
        dt = np.dtype(in_dtype if in_dtype is not None else np.float64)
    except TypeError:
        dt = np.dtype(np.float64)
    rtol = symmetry_rtol(dt)
    check_symmetric(K, name, rtol=rtol)
    if rtol > DEFAULT_SYMMETRY_RTOL:
        K = 0.5 * (K + K.T)
    return K


def psd_gram_tolerance(n: int, max_abs_eig: float, max_abs_entry: float,
                       entry_error: float | None = None) -> float:
    """How negative an eigenvalue of an ``n x n`` Gram matrix computed in float64 may be
    when the exact matrix is positive semidefinite:
    ``n * eps * max|eigenvalue| + n * max(entry_error, eps * max|K_ij|)``.

    The computed matrix is ``K + E``. By Weyl's inequality every eigenvalue moves by at
    most ``||E||_2 <= n max|E_ij|``, and a symmetric eigensolver adds its own rounding,
    ``n * eps * max|eigenvalue|`` (the rank rule of ``numpy.linalg.matrix_rank``).
    ``entry_error`` bounds ``max|E_ij|``, the kernel's own evaluation error
    (:func:`ktheory.kernels.gram_entry_error` for ktheory's kernels); at least
    ``eps * max|K_ij|`` is assumed, each entry rounded once. The tolerance scales
    with ``K``: the verdict does not change when ``K`` is multiplied by a positive number
    (``entry_error`` scaling with it).
    """
    eps = float(np.finfo(np.float64).eps)
    floor = eps * max_abs_entry
    err = floor if entry_error is None or not entry_error > floor else float(entry_error)
    with np.errstate(over="ignore"):
        return float(n * (eps * max_abs_eig + err))


def check_psd_gram(K: np.ndarray, what: str, *, rtol: float, why: str,
                   entry_error: float | None = None) -> None:
    """``ValueError`` if the symmetric float64 matrix ``K`` is clearly indefinite.

    A Cholesky factorisation of ``K + 1e-9 max|diag K| I`` accepts (the fast path);
    otherwise the smallest eigenvalue must be ``>= -max(rtol * max|eigenvalue|, tol)``
    with ``tol`` = :func:`psd_gram_tolerance` (the eigensolver's rounding and the
    kernel's evaluation error ``entry_error``, so that a positive semidefinite kernel
    computed in float64 is never refused). ``rtol`` may be larger (a Gram matrix
    computed in single precision is PSD only to about ``1e-6``). ``what`` names the
    matrix in the message and ``why`` says why it must be PSD.
    """
    n = K.shape[0]
    d = np.abs(np.diagonal(K))
    s = float(d.max()) if n else 0.0
    if s == 0.0:
        s = float(np.max(np.abs(K))) if n else 0.0
        if s == 0.0:
            return
    try:
        np.linalg.cholesky(K + (1e-9 * s) * np.eye(n))
        return
    except np.linalg.LinAlgError:
        pass
    ev = np.linalg.eigvalsh(K)
    big = float(np.max(np.abs(ev)))
    tol = max(rtol * big, psd_gram_tolerance(n, big, float(np.max(np.abs(K))), entry_error))
    if ev[0] < -tol:
        raise ValueError(
            f"{what} is not positive semidefinite (smallest eigenvalue {ev[0]:.3g} < -{tol:.3g}, "
            f"largest {ev[-1]:.3g}); {why}"
        )


# --------------------------------------------------------------------------- estimators
class ComplexDataError(TypeError, ValueError):
    """Complex input where real numbers are needed: a ``TypeError`` (the wrong kind of
    number), and a ``ValueError`` as scikit-learn's estimator checks expect."""


def _reject_non_numbers(A: Any, name: str, max_ndim: int | None = None) -> None:
    """``TypeError`` for what is not an array of real numbers (sparse input is left to
    scikit-learn, which refuses it with its own ``TypeError``); ``ValueError`` for ragged
    input and for more than ``max_ndim`` dimensions."""
    what = "a 2-D array of numbers" if max_ndim == 2 else "an array of numbers"
    if A is None:
        raise TypeError(f"{name} must be {what}, got None")
    if isinstance(A, (str, bytes)):
        raise TypeError(f"{name} must be {what}, got a string {A!r}")
    if hasattr(A, "toarray") or type(A).__module__.startswith("scipy.sparse"):
        return
    try:
        raw = np.asarray(A)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular array of numbers (ragged rows?): {exc}") from None
    if max_ndim == 2 and raw.ndim == 1:
        raise ValueError(
            f"Expected a 2-D array for {name}, got a 1-D array of shape {raw.shape} instead. "
            f"Reshape your data either using {name}.reshape(-1, 1) if it has a single feature "
            f"or {name}.reshape(1, -1) if it contains a single sample."
        )
    if max_ndim is not None and (raw.ndim > max_ndim or raw.ndim == 0):
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got a {raw.ndim}-D array "
            f"of shape {raw.shape}"
        )
    if raw.size > MAX_ARRAY_ELEMENTS:
        raise ValueError(
            f"{name} has {raw.size} values (shape {raw.shape}), more than the limit "
            f"MAX_ARRAY_ELEMENTS = {MAX_ARRAY_ELEMENTS} (16 GiB as float64)"
        )
    kind = raw.dtype.kind
    if kind == "c":
        raise ComplexDataError(
            f"Complex data not supported: {name} has dtype {raw.dtype}; real numbers are needed "
            f"(pass np.real({name}) if the real part is what you mean)"
        )
    if kind in "USV":
        raise TypeError(f"{name} must hold numbers; got an array of dtype {raw.dtype} (strings or bytes)")
    if kind in "Mm":
        raise TypeError(f"{name} must hold numbers; got an array of dtype {raw.dtype} (dates or times)")
    if kind == "O":
        try:
            np.asarray(raw, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            if any(isinstance(v, complex) for v in raw.flat):
                raise ComplexDataError(
                    f"Complex data not supported: {name} holds complex numbers; real numbers are needed"
                ) from None
            raise TypeError(
                f"{name} must hold numbers; its object entries could not be converted to float ({exc})"
            ) from None


def _n_rows(A: Any) -> int | None:
    """The number of rows of an array-like, or None if it has no shape."""
    shape = getattr(A, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    if isinstance(A, (list, tuple)):
        return len(A)
    return None


def _as_float64(Xv: Any) -> tuple[np.ndarray, np.dtype]:
    dtype = np.dtype(Xv.dtype)
    return np.ascontiguousarray(Xv, dtype=np.float64), dtype


def fit_data(estimator: Any, X: Any, y: Any = None, *, y_numeric: bool = False,
             requires_y: bool = True) -> tuple[np.ndarray, Any, np.dtype]:
    """``(X, y, dtype)`` for ``fit``: scikit-learn's ``validate_data(reset=True)`` behind the
    package's dtype rules. ``X`` comes back as C-contiguous float64 and ``dtype`` is the
    floating type whose rounding describes the input (float32 stays float32, everything
    else is float64) so that tolerances can follow it. ``y`` is 1-D (a column vector is
    ravelled with scikit-learn's ``DataConversionWarning``); with ``y_numeric`` it is
    float64. ``requires_y=False`` validates ``X`` alone (transformers).

    Sets ``n_features_in_`` (and ``feature_names_in_``) at once, as ``validate_data``
    does: decorate ``fit`` with :func:`ktheory._base.atomic_fit` so that a failure puts
    them back.
    """
    from sklearn.utils.validation import validate_data

    _reject_non_numbers(X, "X", max_ndim=2)
    if not requires_y:
        Xf, dtype = _as_float64(validate_data(estimator, X, reset=True, dtype=[np.float64, np.float32]))
        return Xf, None, dtype
    if y is not None and y_numeric:
        _reject_non_numbers(y, "y")
    elif y is not None:
        _reject_complex(y)
    nx, ny = _n_rows(X), _n_rows(y)
    if nx is not None and ny is not None and nx != ny:
        what = "targets" if y_numeric else "labels"
        raise ValueError(f"X has {nx} samples (rows) but y has {ny} {what}; they must be equal")
    Xv, yv = validate_data(estimator, X, y, reset=True, dtype=[np.float64, np.float32],
                           y_numeric=y_numeric)
    Xf, dtype = _as_float64(Xv)
    if y_numeric:
        yv = np.asarray(yv, dtype=np.float64)
    return Xf, yv, dtype


def _reject_complex(y: Any) -> None:
    try:
        raw = np.asarray(y)
    except (TypeError, ValueError):
        return
    if raw.dtype.kind == "c" or (raw.dtype.kind == "O" and any(isinstance(v, complex) for v in raw.flat)):
        raise ComplexDataError("Complex data not supported: y holds complex numbers; y must hold class labels")


def predict_data(estimator: Any, X: Any, *, fitted: str | list[str] | None = None) -> tuple[np.ndarray, np.dtype]:
    """``(X, dtype)`` for ``predict``, ``transform``, ...: scikit-learn's ``check_is_fitted``
    (its ``NotFittedError``; ``fitted`` names the attributes that mark a fit) then
    ``validate_data(reset=False)`` (the feature count and names seen in ``fit``)."""
    from sklearn.utils.validation import check_is_fitted, validate_data

    check_is_fitted(estimator, fitted)
    _reject_non_numbers(X, "X", max_ndim=2)
    Xv = validate_data(estimator, X, reset=False, dtype=[np.float64, np.float32])
    return _as_float64(Xv)


def class_labels(y: np.ndarray, *, estimator: str, max_classes: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, codes)`` of class labels validated by :func:`fit_data`: ``classes``
    sorted, ``codes`` in ``0..k-1`` with ``classes[codes] == y``. scikit-learn's
    ``check_classification_targets`` refuses continuous and multi-output targets; then at
    least two classes, and at most ``max_classes``."""
    from sklearn.utils.multiclass import check_classification_targets

    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"the labels in y must be mutually comparable values (one type): {exc}") from None
    check_classification_targets(y)
    codes = codes.ravel()
    if classes.shape[0] < 2:
        one = "n_samples=1: " if y.shape[0] == 1 else ""
        raise ValueError(
            f"{one}y contains a single class ({classes[0]!r}), one class only; "
            f"{estimator} needs at least two classes"
        )
    if max_classes is not None and classes.shape[0] > max_classes:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: "
            f"y contains {classes.shape[0]} classes; {estimator} takes {max_classes}"
        )
    return classes, codes


def real_target(y: np.ndarray, *, estimator: str) -> np.ndarray:
    """A real target validated by :func:`fit_data` with ``y_numeric=True``, checked finite
    (scikit-learn checks it too; this names the estimator)."""
    if not np.all(np.isfinite(y)):
        raise ValueError(f"y contains NaN or infinity; {estimator} needs finite real targets")
    return y


def score_target(y: Any, n_samples: int, *, y_numeric: bool) -> np.ndarray:
    """The ``y`` of a ``score`` written by the package (where scikit-learn's mixin does not
    fit): not None, 1-D (a column vector is ravelled with a ``DataConversionWarning``),
    ``n_samples`` long; with ``y_numeric`` real, finite float64."""
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise ValueError("score requires y to be passed, but the target y is None")
    if y_numeric:
        _reject_non_numbers(y, "y")
    else:
        _reject_complex(y)
    try:
        arr = column_or_1d(y, warn=True)
    except ValueError as exc:
        raise ValueError(f"y must be a 1-D array with one target per row of X: {exc}") from None
    if arr.shape[0] != n_samples:
        what = "targets" if y_numeric else "labels"
        raise ValueError(f"X has {n_samples} samples (rows) but y has {arr.shape[0]} {what} (y has shape "
                         f"{np.shape(y)}); y must have shape ({n_samples},), one per sample")
    if y_numeric:
        arr = np.asarray(arr, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError("y contains NaN or infinity")
    return arr


def accuracy(pred: np.ndarray, y: Any) -> float:
    """Mean accuracy of the predictions ``pred`` against the labels ``y`` (checked by
    :func:`score_target`). Written here rather than taken from ``ClassifierMixin.score``:
    its ``accuracy_score`` refuses labels whose type it cannot name (integers held in an
    object array against integer predictions) and ``y=None`` with a message about its own
    parameters."""
    return float(np.mean(pred == score_target(y, pred.shape[0], y_numeric=False)))
