"""Kernel functions and Gram matrices (Chapter 2).

Every vector kernel here takes sample matrices ``X`` of shape ``(n, d)`` and
``Y`` of shape ``(m, d)`` (``Y=None`` means ``Y = X``) and returns the
``(n, m)`` block of kernel values ``K[i, j] = k(X[i], Y[j])``.

The string (subsequence) kernel of :cite:t:`lodhi2002text` works on Python
strings; :func:`subsequence_gram` builds its (normalized) Gram matrix for
lists of strings.

The package is organised by idea: ``_pairwise`` (vector kernels and
:func:`make_kernel`), ``_gram`` (:func:`gram_matrix`), ``_psd`` (PSD tests), ``_cnd`` (the CND test),
``_features`` (explicit polynomial feature map), ``_string`` (subsequence
kernel), ``_scale`` (the scale-safe Gaussian exponent and the distances of the
translation-invariant kernels, written once) and ``_defaults`` (the defaults,
written once). Import everything from
``ktheory.kernels``.

Parametrizations and defaults
-----------------------------
The defaults of every kernel function live in one place,
``KERNEL_DEFAULTS``; the function signatures, :func:`make_kernel` (which
binds only the parameters it is given) and the fast path of
:func:`gram_matrix` all use it:

========================  ====================================================
``polynomial_kernel``     ``degree=2, gamma=1, coef0=1``: the book's ``(x . y + 1)^2``
                          (scikit-learn's function: ``degree=3, gamma=1/d, coef0=1``)
``gaussian_kernel``       ``sigma=1``: ``exp(-||x - y||^2 / (2 sigma^2))``
``rbf_kernel``            ``gamma=1/d``: ``exp(-gamma ||x - y||^2)``, as scikit-learn
``laplacian_kernel``      ``sigma=1, metric="euclidean"``: ``exp(-||x - y|| / sigma)``
                          (``metric="manhattan"``: scikit-learn's, ``gamma = 1/sigma``)
``sigmoid_kernel``        ``gamma=1/d, coef0=1``: ``tanh(gamma <x, y> + coef0)``
========================  ====================================================

Estimators (``ktheory.svm.SVC``) keep the defaults of the scikit-learn
estimator they mirror (``degree=3, coef0=0``) and pass them explicitly.

Translation-invariant kernels
-----------------------------
The Gaussian/RBF and Laplacian kernels satisfy ``k(x + t, y + t) = k(x, y)``, and their
computed values keep this relation to rounding wherever the data lie: the Gaussian's
squared distances are computed from rows centred at one common reference point
(:func:`reference_point`, the mean of the rows of ``X`` and ``Y``), the Laplacian's from
the differences ``x - y``; the diagonal of ``k(X)`` is exactly 1. The compiled SVM
solver computes its RBF rows by the same specification (``ktheory.kernels._scale``
describes it). :func:`gram_entry_error` bounds the rounding error of a Gram matrix
computed by these functions; the positive-semidefiniteness checks of the estimators
allow for it (``ktheory._validation.psd_gram_tolerance``). Both functions are public
helpers, importable from here like the constants, and not in ``__all__``.

Hostile and extreme input
-------------------------
Complex, string and object input is refused with a ``TypeError``; inputs of
extreme magnitude are rescaled exactly (by a power of two) where the kernel
allows it, and values that cannot be represented in float64 raise a
``ValueError`` instead of returning NaN or a silent 0. Sizes that would run
for hours or exhaust memory are refused up front with the size and the
limit (``MAX_OUTPUT_ELEMENTS``, ``MAX_PSD_SIZE``, ``MAX_FEATURE_DIMENSION``, ``MAX_FEATURE_MAP_ELEMENTS``,
``MAX_EXACT_WORK``, ``MAX_SYMBOLIC_WORK``, ``MAX_PAIR_CELLS``, ``MAX_WORK``, ``MAX_GRAM_ELEMENTS``).
"""

from __future__ import annotations

# Constants (limits, defaults) are importable from here too; they are not in ``__all__``.
from ._defaults import KERNEL_DEFAULTS
from ._features import (
    MAX_DIMENSION_DIGITS,
    MAX_FEATURE_DIMENSION,
    MAX_FEATURE_MAP_ELEMENTS,
    polynomial_feature_dimension,
    polynomial_feature_map,
    polynomial_feature_powers,
)
from ._gram import DEFAULT_BLOCK_ELEMENTS, gram_matrix
from ._pairwise import (
    Kernel,
    gaussian_kernel,
    laplacian_kernel,
    linear_kernel,
    make_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from ._cnd import is_cnd
from ._psd import MAX_PSD_SIZE, SYMMETRY_RTOL, gram_entry_error, is_psd, psd_tolerance
from ._scale import MAX_OUTPUT_ELEMENTS, reference_point
from ._string import (
    MAX_EXACT_WORK,
    MAX_GRAM_ELEMENTS,
    MAX_PAIR_CELLS,
    MAX_SYMBOLIC_WORK,
    MAX_WORK,
    subsequence_gram,
    subsequence_kernel,
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
    "is_cnd",
    "polynomial_feature_map",
    "polynomial_feature_powers",
    "polynomial_feature_dimension",
    "subsequence_kernel",
    "subsequence_gram",
]

# The public functions belong to ``ktheory.kernels`` (documentation, pickling, reprs),
# wherever in the package they are written.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
