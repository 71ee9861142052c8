"""The one source of default parameters of ktheory's kernel functions.

:data:`KERNEL_DEFAULTS` holds, for each kernel function, the default value of
every parameter. The signatures of the kernel functions are built from it,
:func:`ktheory.kernels.make_kernel` binds only the parameters it is given (so
a factory kernel uses exactly these defaults), and the fast Gram path of
:func:`ktheory.kernels.gram_matrix` resolves the parameters through
:func:`resolve_params`. The three cannot differ.

The defaults are the book's (``(x . y + 1)^2`` for the polynomial kernel),
not scikit-learn's; estimators such as ``ktheory.svm.SVC`` keep the defaults
of the scikit-learn estimator they mirror and pass them explicitly.
"""

from __future__ import annotations

import math
import numbers
from types import MappingProxyType
from typing import Any

from ktheory._validation import check_positive

#: Default parameters of the kernel functions (``gamma=None`` means ``1 / n_features``).
KERNEL_DEFAULTS = MappingProxyType(
    {
        "linear_kernel": MappingProxyType({}),
        "polynomial_kernel": MappingProxyType({"degree": 2, "gamma": 1.0, "coef0": 1.0}),
        "rbf_kernel": MappingProxyType({"gamma": None}),
        "gaussian_kernel": MappingProxyType({"sigma": 1.0}),
        "laplacian_kernel": MappingProxyType({"sigma": 1.0, "metric": "euclidean"}),
        "sigmoid_kernel": MappingProxyType({"gamma": None, "coef0": 1.0}),
    }
)

POLY_DEGREE: int = KERNEL_DEFAULTS["polynomial_kernel"]["degree"]
POLY_GAMMA: float = KERNEL_DEFAULTS["polynomial_kernel"]["gamma"]
POLY_COEF0: float = KERNEL_DEFAULTS["polynomial_kernel"]["coef0"]
GAUSSIAN_SIGMA: float = KERNEL_DEFAULTS["gaussian_kernel"]["sigma"]
LAPLACIAN_SIGMA: float = KERNEL_DEFAULTS["laplacian_kernel"]["sigma"]
LAPLACIAN_METRIC: str = KERNEL_DEFAULTS["laplacian_kernel"]["metric"]
SIGMOID_COEF0: float = KERNEL_DEFAULTS["sigmoid_kernel"]["coef0"]


def resolve_params(func_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` completed with the defaults of ``func_name``; unknown names raise TypeError."""
    defaults = KERNEL_DEFAULTS[func_name]
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise TypeError(f"{func_name}() got unexpected keyword argument(s) {unknown}; it takes {sorted(defaults)}")
    return {**defaults, **params}


def gamma_default(gamma: Any, d: int, name: str = "gamma") -> float:
    """``gamma`` checked to be a finite number > 0, or ``1 / d`` when None."""
    if gamma is None:
        return 1.0 / d
    return check_positive(gamma, name)


def check_real(value: Any, name: str) -> float:
    """A finite real number (bools and complex numbers rejected with TypeError)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite real number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return v


def check_degree(degree: Any, name: str = "degree") -> int:
    """An integer >= 1 (bools and floats rejected with TypeError)."""
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {type(degree).__name__} {degree!r}")
    if degree < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {degree!r}")
    return int(degree)
