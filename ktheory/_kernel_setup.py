"""The kernel set-up of the Gram-matrix estimators, written once.

:class:`ktheory.ridge.KernelRidge` and :class:`ktheory.csvm.CentralSVC` take scikit-learn's
kernel parameters (``kernel``, ``gamma``, ``degree``, ``coef0``) and evaluate their Gram
blocks in the same way; both also offer functions that take a kernel matrix or samples
outside an estimator (:func:`ktheory.ridge.kernel_ridge_path`,
:func:`ktheory.csvm.max_feasible_epsilon`, :func:`ktheory.csvm.shortcut_weights`).

* :func:`check_kernel_params` -- the kernel parameters' types and ranges (checked in ``fit``,
  so that ``__init__`` and ``set_params`` only store them, as scikit-learn requires);
* :func:`kernel_block` -- the block ``k(A, B)`` of a named kernel (scikit-learn's
  parametrisation, evaluated with :mod:`ktheory.kernels`) or of a callable, checked for
  shape and finiteness;
* :func:`owned` -- the validated training samples as an array the estimator owns (kept as
  ``X_fit_``: a caller who reuses the buffer of ``X`` must not change the fitted model);
* :func:`real_matrix` -- the input of those functions: :func:`ktheory._validation.check_array`
  with complex and sparse input refused as the estimators refuse them (complex data is a
  :class:`ktheory._validation.ComplexDataError`);
* :func:`check_gamma` and :func:`resolve_gamma` -- scikit-learn's ``SVC`` vocabulary for
  ``gamma`` (``"scale"``, ``"auto"`` or a number ``> 0``), checked in ``fit`` and resolved
  to a number for the training samples.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse

from ktheory import kernels as kk
from ktheory._validation import ComplexDataError, check_array, check_positive

__all__ = [
    "check_gamma", "check_kernel_params", "kernel_block", "named_entry_error", "named_kernel",
    "owned", "real_matrix", "resolve_gamma",
]


def check_kernel_params(kernel: Any, gamma: Any, degree: Any, coef0: Any, *,
                        names: tuple[str, ...]) -> None:
    """Raise unless the kernel parameters are valid.

    Parameters
    ----------
    kernel : str or callable
        One of ``names``, ``"precomputed"`` or a callable ``k(X, Y)``.
    gamma : {"scale", "auto"} or float or None
        ``None`` (``1 / n_features``, scikit-learn's ``KernelRidge``), ``"scale"`` or
        ``"auto"`` (:func:`resolve_gamma`) or a finite number ``> 0``.
    degree : int
        An integer ``>= 1`` (an integral float is accepted, as scikit-learn does).
    coef0 : float
        A finite real number.
    names : tuple of str
        The kernel names the estimator understands.

    Raises
    ------
    ValueError
        For an unknown kernel name or a value out of range.
    TypeError
        For a parameter of the wrong type.
    """
    if not (callable(kernel) or (isinstance(kernel, str) and (kernel == "precomputed" or kernel in names))):
        raise ValueError(
            f"kernel must be one of {names}, 'precomputed' or a callable k(X, Y); got {kernel!r}"
        )
    if gamma is not None:
        check_gamma(gamma)
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Real):
        raise TypeError(f"degree must be an integer >= 1, got {type(degree).__name__} {degree!r}")
    if not np.isfinite(float(degree)) or degree < 1 or float(degree) != int(degree):
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
    if isinstance(coef0, (bool, np.bool_)) or not isinstance(coef0, numbers.Real):
        raise TypeError(f"coef0 must be a real number, got {type(coef0).__name__} {coef0!r}")
    if not np.isfinite(float(coef0)):
        raise ValueError(f"coef0 must be finite, got {coef0!r}")


def named_kernel(name: str, A: np.ndarray, B: np.ndarray | None, gamma: float | None,
                 degree: Any, coef0: Any) -> np.ndarray:
    """A named kernel in scikit-learn's parametrisation (``gamma=None``: ``1 / n_features``),
    evaluated by :mod:`ktheory.kernels`: the one implementation of the names every estimator
    uses (``"linear"``, ``"poly"``/``"polynomial"``, ``"rbf"``, ``"laplacian"``,
    ``"sigmoid"``)."""
    if name == "linear":
        return kk.linear_kernel(A, B)
    g = 1.0 / A.shape[1] if gamma is None else float(gamma)
    if name in ("poly", "polynomial"):
        return kk.polynomial_kernel(A, B, degree=int(degree), gamma=g, coef0=float(coef0))
    if name == "rbf":
        return kk.rbf_kernel(A, B, gamma=g)
    if name == "laplacian":  # exp(-gamma ||x - y||_1), as scikit-learn
        return kk.laplacian_kernel(A, B, sigma=1.0 / g, metric="manhattan")
    if name == "sigmoid":
        return kk.sigmoid_kernel(A, B, gamma=g, coef0=float(coef0))
    raise ValueError(f"unknown kernel name {name!r}")  # pragma: no cover - names are checked in fit


def named_entry_error(name: str, X: np.ndarray, gamma: float | None, degree: Any,
                      coef0: Any) -> float:
    """The evaluation error of the entries of the named kernel's Gram matrix on ``X``
    (:func:`ktheory.kernels.gram_entry_error`), which a positive-semidefiniteness test
    allows for; the parameters as in :func:`named_kernel`."""
    g = 1.0 / X.shape[1] if gamma is None else float(gamma)
    poly = name in ("poly", "polynomial")
    kern = kk.make_kernel(name, gamma=g, degree=int(degree) if poly else None,
                          coef0=float(coef0) if poly or name == "sigmoid" else None,
                          metric="manhattan" if name == "laplacian" else None)
    return kk.gram_entry_error(kern, X)


def kernel_block(
    kernel: str | Callable[..., Any],
    A: np.ndarray,
    B: np.ndarray | None,
    what: str,
    *,
    gamma: float | None,
    degree: Any,
    coef0: Any,
    kernel_params: dict[str, Any] | None = None,
) -> np.ndarray:
    """The Gram block ``k(A, B)`` (``B=None``: ``k(A, A)``) as float64, checked.

    Parameters
    ----------
    kernel : str or callable
        A name checked by :func:`check_kernel_params` (not ``"precomputed"``), or a callable
        ``k(X, Y, **kernel_params)`` returning the ``(len(X), len(Y))`` block.
    A, B : numpy.ndarray
        Sample matrices (float64, validated).
    what : str
        What the block is for ("training data", "test data"), for the messages.
    gamma, degree, coef0 : optional
        The named kernels' parameters.
    kernel_params : dict, optional
        Extra keyword arguments of a callable kernel.

    Returns
    -------
    numpy.ndarray of shape (len(A), len(B))

    Raises
    ------
    ValueError
        If the block has the wrong shape or holds NaN or infinity (an overflow).
    """
    if callable(kernel):
        K = kernel(A, A if B is None else B, **(kernel_params or {}))
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            K = named_kernel(kernel, A, B, gamma, degree, coef0)
    K = np.asarray(K, dtype=np.float64)
    m = A.shape[0] if B is None else B.shape[0]
    if K.shape != (A.shape[0], m):
        raise ValueError(
            f"the kernel returned an array of shape {K.shape} for the {what}; expected {(A.shape[0], m)}"
        )
    if not np.all(np.isfinite(K)):
        raise ValueError(
            f"the kernel returned NaN or infinite values for the {what} (overflow?); "
            "rescale X or change gamma / coef0 / degree"
        )
    return K


def owned(Xa: np.ndarray, X: Any) -> np.ndarray:
    """``Xa`` (validated from ``X``), copied if it shares memory with the caller's ``X``.

    Parameters
    ----------
    Xa : numpy.ndarray
        The validated array (possibly ``X`` itself or a view of it).
    X : array_like
        What the caller passed.

    Returns
    -------
    numpy.ndarray
        ``Xa``, or a copy when it may share memory with ``X``.
    """
    if Xa is X or (isinstance(X, np.ndarray) and np.may_share_memory(Xa, X)):
        return Xa.copy()
    return Xa


def real_matrix(A: Any, name: str, ndim: int | tuple[int, ...] = 2) -> np.ndarray:
    """``A`` as a finite float64 array for the functions that take arrays outside an estimator.

    :func:`ktheory._validation.check_array`, with complex input a
    :class:`~ktheory._validation.ComplexDataError` ("Complex data not supported", a
    ``ValueError`` as for the estimators) and sparse input a ``TypeError``.

    Parameters
    ----------
    A : array_like
        The input.
    name : str
        Its argument name, for the messages.
    ndim : int or tuple of int, default 2
        The accepted numbers of dimensions; the first is required when none matches.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    TypeError
        For sparse, string, object or ``None`` input.
    ComplexDataError
        For complex input.
    ValueError
        For the wrong number of dimensions, empty input, NaN or infinity.
    """
    ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if sparse.issparse(A):
        raise TypeError(
            f"Sparse input is not supported: {name} is a scipy.sparse matrix; pass a dense array "
            f"({name}.toarray())"
        )
    probe = None
    if A is not None and not isinstance(A, (str, bytes)):
        try:
            probe = np.asarray(A)
        except (TypeError, ValueError):  # ragged input: check_array says so
            probe = None
    if probe is None:
        return check_array(A, name, ndim=ndims[0])
    if probe.dtype.kind == "c" or (
        probe.dtype == object and any(isinstance(v, complex) for v in probe.ravel()[:1000])
    ):
        raise ComplexDataError(
            f"Complex data not supported: {name} has complex values; real numbers are needed "
            f"(pass np.real({name}) if the real part is what you mean)"
        )
    return check_array(probe, name, ndim=probe.ndim if probe.ndim in ndims else ndims[0])


def check_gamma(gamma: Any) -> None:
    """Raise unless ``gamma`` is ``"scale"``, ``"auto"`` or a finite number ``> 0``.

    Parameters
    ----------
    gamma : {"scale", "auto"} or float
        scikit-learn's ``SVC`` vocabulary (see :func:`resolve_gamma`).

    Raises
    ------
    ValueError
        For another string or a number ``<= 0``, NaN or infinite.
    TypeError
        For anything else (``None`` included: ``1 / n_features`` is spelled ``"auto"``).
    """
    if isinstance(gamma, str):
        if gamma not in ("scale", "auto"):
            raise ValueError(f"gamma must be 'scale', 'auto' or a positive float, got {gamma!r}")
        return
    if gamma is None:
        raise TypeError(
            "gamma must be 'scale', 'auto' or a positive float, got None "
            "(1 / n_features is spelled gamma='auto')"
        )
    check_positive(gamma, "gamma")


def resolve_gamma(gamma: Any, X: np.ndarray) -> float:
    """The number ``gamma`` stands for, for the training samples ``X``, as scikit-learn's ``SVC``.

    ``"scale"`` is ``1 / (n_features * X.var())`` (``1`` when ``X.var() == 0``), computed
    through ``X / max|X|`` where ``X.var()`` itself would overflow or underflow; ``"auto"``
    is ``1 / n_features``; a number is returned as a float.

    Parameters
    ----------
    gamma : {"scale", "auto"} or float
        Checked by :func:`check_gamma`.
    X : numpy.ndarray of shape (n_samples, n_features)
        The training samples (float64, validated).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``"scale"`` is not representable in float64 (values of ``X`` near ``1e+-160``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 2.0], [2.0, 0.0]])
    >>> resolve_gamma("scale", X), resolve_gamma("auto", X), resolve_gamma(0.5, X)
    (0.5, 0.5, 0.5)
    >>> resolve_gamma("scale", 10 * X)   # X -> 10 X: gamma -> gamma / 100
    0.005
    """
    if gamma == "auto":
        return 1.0 / X.shape[1]
    if not isinstance(gamma, str):
        return float(gamma)
    s = float(np.max(np.abs(X))) if X.size else 0.0
    if s == 0.0:
        return 1.0
    if 1e-150 < s < 1e150:
        var = float(X.var())
        return 1.0 / (X.shape[1] * var) if var != 0.0 else 1.0
    rel = float((X / s).var())
    if rel == 0.0:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        g = 1.0 / (X.shape[1] * rel) / s / s
    if not (np.isfinite(g) and g >= np.finfo(np.float64).tiny):
        log_var = 2.0 * np.log10(s) + np.log10(rel)
        raise ValueError(
            f"gamma='scale' is 1 / (n_features * X.var()) with X.var() about 1e{log_var:.0f}, "
            "which is not representable in float64 (X's values are too "
            f"{'large' if s > 1 else 'small'}, max |X| = {s:.3g}). Rescale X (e.g. standardise "
            "its columns) or pass a numeric gamma."
        )
    return g
