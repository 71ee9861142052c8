"""Input checks of the SVM estimators (private).

The estimators validate their input here rather than in :mod:`ktheory._validation`
because their messages follow scikit-learn's wording where its estimator checks
(``sklearn.utils.estimator_checks``) look for it: ``"Reshape your data"``,
``"0 feature(s) (shape=(12, 0)) while a minimum of 1 is required."``,
``"Complex data not supported"``, ``"Unknown label type: continuous"``,
``"Only binary classification is supported."``, ``"requires y to be passed,
but the target y is None"``, ``"X has 1 features, but SVC is expecting 4
features as input"``, a message naming *sparse* input. scikit-learn is not
imported: where its checks test an exception's class (``NotFittedError``) or a
warning's class (``DataConversionWarning``), the raised object subclasses
scikit-learn's class as well *if scikit-learn is already imported*, and ours
only otherwise.
"""

from __future__ import annotations

import sys
import warnings
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "NotFittedError",
    "ComplexDataError",
    "DataConversionWarning",
    "not_fitted_error",
    "validate_X",
    "as_1d_target",
    "validate_y",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when an estimator is used before ``fit``.

    Subclasses both ``ValueError`` and ``AttributeError``, like scikit-learn's
    exception of the same name; when scikit-learn is imported, the raised
    object is also an instance of ``sklearn.exceptions.NotFittedError``.
    """


class ComplexDataError(TypeError, ValueError):
    """Complex input where real numbers are needed.

    A ``TypeError`` (the wrong kind of number), and also a ``ValueError``
    because scikit-learn's estimator checks expect one.
    """


class DataConversionWarning(UserWarning):
    """Warned when a column vector ``y`` of shape ``(n, 1)`` is flattened."""


def _flavoured(ours: type, sklearn_name: str) -> type:
    """``ours``, or a subclass of ``ours`` and scikit-learn's class of that name when
    scikit-learn is already imported (never imports it)."""
    sk = sys.modules.get("sklearn.exceptions")
    theirs = getattr(sk, sklearn_name, None) if sk is not None else None
    return ours if theirs is None else _combined(ours, theirs)


@lru_cache(maxsize=None)
def _combined(ours: type, theirs: type) -> type:
    return type(ours.__name__, (ours, theirs), {"__module__": ours.__module__, "__doc__": ours.__doc__})


def not_fitted_error(estimator: Any) -> NotFittedError:
    """The error an unfitted ``estimator`` raises (see :class:`NotFittedError`)."""
    return _flavoured(NotFittedError, "NotFittedError")(
        f"This {type(estimator).__name__} instance is not fitted yet. "
        "Call 'fit' with appropriate arguments before using this estimator."
    )


def _is_sparse(X: Any) -> bool:
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(X):
        return True
    return type(X).__module__.startswith("scipy.sparse")


def _to_float(arr: np.ndarray, name: str) -> np.ndarray:
    """Numeric (or bool, or object-of-numbers) array -> float64, with clear errors."""
    kind = arr.dtype.kind
    if kind == "c":
        raise ComplexDataError(
            f"Complex data not supported: {name} has dtype {arr.dtype}; an SVM needs real "
            f"numbers (pass np.real({name}) if the real part is what you mean)"
        )
    if kind in "USV":
        raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype} (strings or bytes)")
    if kind == "M" or kind == "m":
        raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype} (dates or times)")
    if kind == "O":
        try:
            return np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            reason = str(exc)
            try:
                np.asarray(arr, dtype=np.complex128)
            except (TypeError, ValueError):
                pass
            else:
                raise ComplexDataError(
                    f"Complex data not supported: {name} holds complex numbers; an SVM needs real numbers"
                ) from None
            raise TypeError(
                f"{name} must hold numbers; its object entries could not be converted to float ({reason})"
            ) from None
    return np.asarray(arr, dtype=np.float64)


def validate_X(X: Any, name: str = "X", *, estimator: str = "SVC") -> tuple[np.ndarray, np.dtype]:
    """A finite float64 ``(n_samples, n_features)`` array, and the dtype it came with.

    ``bool`` arrays are accepted as 0/1 and ``float32`` is converted (its dtype is
    returned so that tolerances can follow it).

    Raises
    ------
    TypeError
        ``None``, sparse matrices, strings, complex numbers (also a ValueError).
    ValueError
        Not 2-D, ragged, no samples or no features, NaN or infinity.
    """
    if X is None:
        raise TypeError(f"{name} must be a 2-D array of numbers, got None")
    if _is_sparse(X):
        raise TypeError(
            f"{estimator} does not support sparse input: {name} is a {type(X).__name__}. "
            f"Sparse data is not supported; convert it with {name}.toarray()"
        )
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D array of numbers, got a string {X!r}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.VisibleDeprecationWarning)
            arr = np.asarray(X)
    except (ValueError, np.exceptions.VisibleDeprecationWarning) as exc:
        raise ValueError(f"{name} must be a rectangular 2-D array of numbers (ragged rows?): {exc}") from None
    if arr.ndim != 2:
        if arr.ndim == 1:
            raise ValueError(
                f"Expected a 2-D array for {name}, got a 1-D array of shape {arr.shape} instead. "
                f"Reshape your data either using {name}.reshape(-1, 1) if it has a single feature "
                f"or {name}.reshape(1, -1) if it contains a single sample."
            )
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {arr.ndim}-D, shape {arr.shape}"
        )
    dtype = arr.dtype
    out = _to_float(arr, name)
    if out.shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={out.shape}) while a minimum of 1 is required: {name} is empty."
        )
    if out.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={out.shape}) while a minimum of 1 is required: {name} has no columns."
        )
    if not np.isfinite(np.add.reduce(out, axis=None)) and not np.all(np.isfinite(out)):
        n_bad = int(out.size - np.count_nonzero(np.isfinite(out)))
        raise ValueError(f"{name} contains NaN or infinity ({n_bad} non-finite entries)")
    return np.ascontiguousarray(out), dtype


def as_1d_target(y: Any, n_samples: int, *, estimator: str, labels: bool) -> np.ndarray:
    """The checks every supervised target shares: not ``None``, not sparse, not a string, not
    ragged, 1-D (a column vector is ravelled with scikit-learn's ``DataConversionWarning``), of
    length ``n_samples``. ``labels`` selects the wording: class labels (classifiers) or real
    targets (regressors). Returns the array, not yet converted."""
    what = "class labels" if labels else "real targets"
    short = "labels" if labels else "targets"
    if y is None:
        hint = "the class labels of the training samples" if labels else "the real-valued targets of the samples"
        raise ValueError(f"{estimator} requires y to be passed, but the target y is None; pass {hint}")
    if _is_sparse(y):
        raise TypeError(f"{estimator} does not support a sparse y; pass the {short} as a 1-D array")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"y must be a 1-D array of {what}, got a string {y!r}")
    try:
        arr = np.asarray(y)
    except ValueError as exc:
        raise ValueError(f"y must be a 1-D array of {what} (ragged input?): {exc}") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            _flavoured(DataConversionWarning, "DataConversionWarning")(
                "A column-vector y was passed when a 1d array was expected. Please change "
                "the shape of y to (n_samples,), for example using ravel()."
            ),
            stacklevel=4,
        )
        arr = arr.ravel()
    if arr.ndim != 1:
        multi = "multi-output or multilabel targets" if labels else "multi-output targets"
        raise ValueError(
            f"y must be a 1-D array of shape (n_samples,); got shape {arr.shape}. "
            f"{estimator} does not support {multi}."
        )
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"X has {n_samples} samples (rows) but y has {arr.shape[0]} {short}; they must be equal"
        )
    return arr


def validate_y(
    y: Any, n_samples: int, *, estimator: str = "SVC", max_classes: int | None = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Class labels: returns ``(classes, codes)`` with ``classes`` sorted and ``codes`` in
    ``0..k-1`` (``classes[codes] == y``); at least two classes and at most ``max_classes``
    (two by default, for binary classifiers; ``None`` for any number).

    A column vector ``(n, 1)`` is flattened with a :class:`DataConversionWarning`
    (as scikit-learn does).

    Raises
    ------
    ValueError
        ``None``, not 1-D, wrong length, NaN/inf, continuous (non-integer float)
        values, one class only, more than ``max_classes`` classes.
    TypeError
        Sparse, complex (also a ValueError), labels that cannot be compared.
    """
    arr = as_1d_target(y, n_samples, estimator=estimator, labels=True)
    kind = arr.dtype.kind
    if kind == "c":
        raise ComplexDataError("Complex data not supported: y holds complex numbers; y must hold class labels")
    if kind == "O":
        vals = arr.tolist()
        if any(v is None for v in vals):
            raise ValueError("y contains None; every sample needs a class label")
        if any(isinstance(v, complex) for v in vals):
            raise ComplexDataError("Complex data not supported: y holds complex numbers")
        if any(isinstance(v, float) and not np.isfinite(v) for v in vals):
            raise ValueError("y contains NaN or infinity")
    if kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("y contains NaN or infinity")
        if np.any(arr != np.round(arr)):
            raise ValueError(
                "Unknown label type: continuous. y holds non-integer floats (a regression target?); "
                f"{estimator} is a classifier and y must hold class labels"
            )
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"the labels in y must be mutually comparable values (one type): {exc}") from None
    codes = codes.ravel()
    if classes.shape[0] < 2:
        one = "n_samples=1: " if n_samples == 1 else ""
        raise ValueError(
            f"{one}y contains a single class ({classes[0]!r}), one class only; "
            f"{estimator} needs at least two classes"
        )
    if max_classes is not None and classes.shape[0] > max_classes:
        raise ValueError(
            f"Only binary classification is supported. The type of the target is multiclass: "
            f"y contains {classes.shape[0]} classes. Multiclass SVMs come in Chapter 9 (MulticlassSVC)."
        )
    return classes, codes
