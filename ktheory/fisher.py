"""The kernel Fisher discriminant (KFD, also called KLDA or KFDA).

Fisher's linear discriminant looks for a direction ``w`` that maximises the
Rayleigh quotient ``J(w) = w' S_b w / w' S_w w`` of the between-class and the
within-class scatter. In a feature space ``phi(x)`` with kernel
``k(x, z) = <phi(x), phi(z)>`` a maximiser can be taken in the span of the
training images, ``w = sum_i alpha_i phi(x_i)`` (Chapter 10 explains which
version of the representer theorem gives this), and the quotient becomes

``J(alpha) = alpha' M alpha / alpha' N alpha``

with ``n x n`` matrices built from the Gram matrix ``K`` alone:

* ``M = sum_c n_c (m_c - m)(m_c - m)'``, where ``m_c = K l_c / n_c`` is the
  kernel class mean (``l_c`` the indicator of class ``c``) and ``m = K 1 / n``
  (the between-class scatter weighted by class size, as scikit-learn's
  ``LinearDiscriminantAnalysis``; for two classes
  ``M = (n_0 n_1 / n) (m_1 - m_0)(m_1 - m_0)'``);
* ``N = K C K`` with ``C = I - sum_c l_c l_c' / n_c`` the within-class
  centring projection, equivalently ``N = K K' - sum_c n_c m_c m_c'``.

``rank N <= min(rank K, n - c)``, so ``N`` is always singular and the
regularised ``N + mu I`` of Mika et al. (1999) is used. The directions solve
the generalised symmetric eigenproblem ``M alpha = lambda (N + mu I) alpha``
(at most ``c - 1`` non-zero eigenvalues); for two classes the solution is
``alpha ∝ (N + mu I)^{-1} (m_1 - m_0)``.

Units of ``mu``. ``N`` carries the units of ``K^2`` (``x^4`` for the linear
kernel), so an absolute ``mu`` makes the direction depend on the units of the
data, while LDA, the linear-kernel limit, does not. The estimator's ``mu`` is
therefore *relative*: the ridge added to ``N`` is ``mu * trace(N) / n``, ``mu``
times the mean diagonal entry (the mean eigenvalue) of ``N`` (stored as
``ridge_``). It scales with ``N``, so multiplying the kernel by ``s > 0``
changes nothing but the scale of ``alpha``; it is the normalisation of
scikit-learn's shrinkage in ``LinearDiscriminantAnalysis`` (the Ledoit-Wolf
target ``trace(S) / d``); it costs one pass over ``K C``, which the fit forms
anyway (the largest eigenvalue would need an iterative solver); and it depends
continuously on the data (a largest eigenvalue can jump between eigenvectors).
When ``N = 0`` (no class has any spread) the ridge is ``mu * trace(M) / n``
instead, which only fixes the normalisation: every ridge then gives the same
directions.

Implementation. Forming ``N = F F'`` from the factor ``F = K C`` (``C`` is a
projection) squares the condition number: on the raw breast-cancer data with
the linear kernel ``F`` has condition about ``8e11`` on its range and ``N``
about ``6e23``, beyond float64, and the LDA direction is lost in the computed
``N``. The fit therefore forms ``N`` only where that loses nothing, and works
with ``F`` otherwise. ``F`` is the Gram matrix centred within the classes in
place, row block by row block; since ``M = G G'`` with ``G`` of ``c`` columns
``sqrt(n_c) (m_c - m)``, the generalised problem is whitened by a triangular
factor and reduces exactly to the ``c x c`` symmetric problem
``(H' H) v = lambda v``, solved by :func:`scipy.linalg.eigh`:

* ``mu > 0``: a triangular ``R_mu`` with ``N + ridge I = R_mu' R_mu``;
  ``H = R_mu^{-T} G`` and ``alpha = R_mu^{-1} H v / sqrt(lambda)``, normalised
  as ``scipy.linalg.eigh(M, N + ridge I)`` normalises its eigenvectors,
  ``alpha' (N + ridge I) alpha = 1``. When ``eps (1 + n / mu) <= 1e-8``, a bound
  on ``eps cond(N + ridge I)`` (the largest eigenvalue of ``N`` is at most
  ``trace N = n ridge / mu``), the Cholesky factorisation of the formed
  ``N + ridge I`` is accurate to that level and is used (``N`` by one BLAS
  ``syrk``); this covers the default ``mu = 1e-3`` up to ``n = 45 000`` (unless
  ``trace N`` is within ``1e300`` of float64's limits).
  Otherwise (small ``mu``) ``N`` is never formed: the QR factorisation
  ``F' = Q R`` in place (LAPACK ``geqrf``; ``N = R' R``, ``Q`` is never
  formed), then ``R_mu`` as the QR factorisation of the stacked
  ``[R; sqrt(ridge) I]`` (LAPACK ``tpqrt``), the route of ridge least squares
  that never forms normal equations.
* ``mu = 0``: the problem is solved on the numerical range of ``N`` (the
  pseudo-inverse solution, a convention: the unregularised quotient is
  unbounded when the class means have a component in the null space of ``N``).
  The range is found by the rank-revealing QR factorisation with column
  pivoting ``F' P = Q R`` (LAPACK ``geqp3``, as in the least-squares driver
  ``gelsy``), truncated to the ``r`` rows with ``|R_kk| > n eps |R_11|`` (the
  rank tolerance of :func:`numpy.linalg.matrix_rank`); with ``B = P R_1'``
  (``n x r``, ``N = B B'`` up to the discarded rows) and ``B = P Q_2 T`` its
  QR factorisation, ``W = P Q_2 T^{-T}`` satisfies ``W W' = N^+`` and
  ``W' N W = I``; ``H = W' G`` and ``alpha = W H v / sqrt(lambda)``.

A fit holds two ``n x n`` arrays at its peak (``F`` and ``N``, ``F`` and
``sqrt(ridge) I``, or ``F`` and ``R_1'``; a precomputed Gram matrix passed by
the caller is not counted) and no ``n x n x c`` temporary.

Classification. ``predict`` applies, by default (``threshold="prior"``), the
LDA rule to the projected training data: class-conditional Gaussians with the
class means ``means_``, the pooled within-class covariance ``covariance_`` of
the projections and the class frequencies ``priors_`` as priors. For two
classes this is a threshold on ``h(x)``: with projected means ``m_0 < m_1``,
within-class variance ``s^2`` and priors ``pi_0, pi_1``, comparing
``log pi_c - (h - m_c)^2 / (2 s^2)`` gives

``h > (m_0 + m_1) / 2 + s^2 log(pi_0 / pi_1) / (m_1 - m_0)``,

the midpoint moved away from the more frequent class. ``threshold="midpoint"``
keeps the midpoint (more classes: the nearest projected mean).

:class:`KernelFisherDiscriminant` is a scikit-learn classifier and transformer
(``KTheoryClassifierMixin`` and ``TransformerMixin`` on
:class:`ktheory._base.KTheoryEstimator`); its input is validated by
:mod:`ktheory._validation` (scikit-learn's ``validate_data``). The module stays
one file although it is long: it holds one idea, the discriminant, whose
matrices :func:`fisher_matrices` writes out densely for teaching and testing.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas as _blas
from scipy.linalg import lapack as _lapack
from sklearn.base import TransformerMixin

from ._base import KTheoryClassifierMixin, KTheoryEstimator, atomic_fit
from ._kernel_setup import check_gamma, resolve_gamma
from ._validation import (
    check_gram_input_size,
    check_positive,
    check_square_matrix,
    check_symmetric,
    class_labels,
    fit_data,
    floating_dtype,
    predict_data,
)

__all__ = ["KernelFisherDiscriminant", "fisher_matrices"]

#: Largest number of training samples a fit accepts: a fit holds two n x n
#: float64 arrays (16 n^2 bytes, 25.6 GB at n = 40 000); larger problems are
#: refused before anything is allocated.
MAX_SAMPLES = 40_000

#: The peak memory of a fit, in float64 ``n x n`` arrays (measured with tracemalloc: 2.0).
PEAK_GRAMS = 2

_NAMED_KERNELS = ("linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid")
_THRESHOLDS = ("prior", "midpoint")
_ROW_BLOCK = 1 << 20  # values per row block when centring in place (8 MiB)
_EIG_RTOL = 1e-10  # eigenvalues of M at most this times the largest are treated as zero
_COV_RTOL = 1e-12  # a projected covariance with an eigenvalue below this times the largest is singular
_TPQRT_BLOCK = 64  # block size of LAPACK tpqrt
#: The Cholesky factorisation of the formed N + ridge I is used when eps (1 + n / mu), a bound
#: on eps cond(N + ridge I) (the largest eigenvalue of N is at most trace N), is at most this:
#: forming N then loses nothing that matters at this accuracy; otherwise QR of K C.
_CHOLESKY_RTOL = 1e-8


# ---------------------------------------------------------------------------
# input checks: what scikit-learn's validation (ktheory._validation) does not say
# ---------------------------------------------------------------------------


def _matrix_labels(y: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted classes and integer codes of the labels of an ``n x n`` Gram matrix, for
    :func:`fisher_matrices` (a function: there is no estimator to validate against)."""
    from sklearn.utils.validation import column_or_1d

    if y is None:
        raise ValueError("fisher_matrices requires y, the class labels of the samples; got None")
    ya = column_or_1d(y, warn=True)
    if ya.shape[0] != n:
        raise ValueError(f"K has {n} samples (rows) but y has {ya.shape[0]} labels; they must be equal")
    return class_labels(ya, estimator="the Fisher discriminant")


def _check_scale(K: np.ndarray, name: str) -> None:
    """Refuse a Gram matrix whose products K K' would overflow float64."""
    n = K.shape[0]
    big = float(np.max(np.abs(K))) if K.size else 0.0
    limit = np.sqrt(np.finfo(np.float64).max / max(n, 1)) / 4.0
    if big > limit:
        raise ValueError(
            f"{name} has entries up to {big:.3g}: N = K C K would overflow float64 "
            f"(limit about {limit:.3g} for n = {n}); rescale the kernel"
        )


def _check_fit_scale(K: np.ndarray) -> float:
    """``max|K|``, refusing a Gram matrix whose factor ``K C`` and its QR factorisation
    (column norms up to ``2 sqrt(n) max|K|``) would overflow float64: the limit is
    ``max|K| <= max_float / (4 n)``. (The fit forms ``N = K C K`` only when ``trace N`` is
    far inside float64's range; otherwise it takes the QR route, which does not form it.)"""
    n = K.shape[0]
    big = _max_abs(K)
    limit = np.finfo(np.float64).max / (4.0 * max(n, 1))
    if big > limit:
        raise ValueError(
            f"the training Gram matrix has entries up to {big:.3g}: its within-class centred "
            f"factor K C would overflow float64 (limit about {limit:.3g} for n = {n}); rescale "
            "the kernel"
        )
    return big


def _max_abs(A: np.ndarray) -> float:
    """``max|A|`` of a C-ordered 2-D array, row block by row block (no ``|A|`` temporary)."""
    if A.size == 0:
        return 0.0
    rows = max(1, _ROW_BLOCK // max(A.shape[1], 1))
    return max(float(np.max(np.abs(A[r0:r0 + rows]))) for r0 in range(0, A.shape[0], rows))


def _frobenius(A: np.ndarray) -> float:
    """``||A||_F`` without overflow or underflow (scaled by ``max|A|``), row block by row
    block."""
    big = _max_abs(A)
    if big == 0.0:
        return 0.0
    rows = max(1, _ROW_BLOCK // max(A.shape[1], 1))
    ss = 0.0
    for r0 in range(0, A.shape[0], rows):
        blk = A[r0:r0 + rows] / big
        ss += float(np.einsum("ij,ij->", blk, blk))
    return big * np.sqrt(ss)


# ---------------------------------------------------------------------------
# the matrices M and N (small problems, for teaching and testing)
# ---------------------------------------------------------------------------


def fisher_matrices(K: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """The kernel Fisher matrices ``M`` (between-class) and ``N`` (within-class).

    ``M = sum_c n_c (m_c - m)(m_c - m)'`` with ``m_c = K l_c / n_c`` and
    ``m = K 1 / n``; ``N = K C K'`` with ``C = I - sum_c l_c l_c' / n_c``
    (equal to ``K K' - sum_c n_c m_c m_c'``). For ``w = sum_i alpha_i phi(x_i)``,
    ``alpha' M alpha = w' S_b w`` and ``alpha' N alpha = w' S_w w``.

    This forms dense ``n x n`` matrices; :class:`KernelFisherDiscriminant`
    does not call it (it never forms ``M``).

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric Gram matrix of the training samples.
    y : array_like of shape (n,)
        Class labels (at least two classes).

    Returns
    -------
    M, N : numpy.ndarray of shape (n, n)
        Both symmetric positive semidefinite.

    Raises
    ------
    ValueError
        If ``K`` is not square and symmetric, contains NaN/inf or is so large
        that ``K K'`` overflows, or ``y`` has the wrong length or a single class.
    TypeError
        If ``K`` is complex or not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> M, N = fisher_matrices(X @ X.T, [0, 0, 1, 1])
    >>> alpha = np.array([1.0, 0.0, 0.0, 0.0])      # w = phi(x_1) = 0: projections all 0
    >>> float(alpha @ M @ alpha), float(alpha @ N @ alpha)
    (0.0, 0.0)
    >>> alpha = np.array([0.0, 1.0, 0.0, 0.0])      # w = 1: projections are the points
    >>> # class means 0.5 and 3.5: (n0 n1 / n) (3.5 - 0.5)^2 = 9;
    >>> # within-class 4 * 0.5^2 = 1
    >>> round(float(alpha @ M @ alpha), 12), round(float(alpha @ N @ alpha), 12)
    (9.0, 1.0)
    """
    Ka = check_square_matrix(K, "K", symmetric=True)
    classes, codes = _matrix_labels(y, Ka.shape[0])
    _check_scale(Ka, "K")
    counts = np.bincount(codes).astype(float)
    L = np.zeros((Ka.shape[0], len(classes)))
    L[np.arange(Ka.shape[0]), codes] = 1.0
    means = Ka @ (L / counts)  # column c is m_c
    G = (means - Ka.mean(axis=1, keepdims=True)) * np.sqrt(counts)
    M = G @ G.T
    KC = Ka - means[:, codes]
    N = KC @ KC.T
    return 0.5 * (M + M.T), 0.5 * (N + N.T)


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------


class KernelFisherDiscriminant(KTheoryClassifierMixin, TransformerMixin, KTheoryEstimator):
    """Kernel Fisher discriminant: projection onto at most ``c - 1`` directions and classification.

    Maximises ``alpha' M alpha / alpha' (N + ridge I) alpha`` (see the module
    docstring for ``M`` and ``N``) by the generalised symmetric eigenproblem
    ``M alpha = lambda (N + ridge I) alpha``, where ``ridge = mu * trace(N) / n``
    is relative to the scale of ``N``. The projection of ``x`` on direction
    ``j`` is ``h_j(x) = sum_i alphas_[i, j] k(x_i, x)``. ``predict`` applies the
    LDA rule to the projection (``threshold="prior"``, the default): the
    projected classes are modelled as Gaussians with means ``means_``, the
    common covariance ``covariance_`` and the class frequencies ``priors_`` as
    priors. For two classes that is the threshold rule
    ``decision_function(x) > 0`` with

    ``threshold_ = (m_0 + m_1) / 2 + s^2 log(pi_0 / pi_1) / (m_1 - m_0)``

    (``m_c`` the projected class means, ``s^2`` the within-class variance of
    the projected training data, ``pi_c = n_c / n``): the midpoint, moved
    towards the rarer class by the log prior ratio measured in units of the
    spread, which is LDA's (and scikit-learn's
    ``LinearDiscriminantAnalysis(solver="eigen")``'s) rule on the projection.
    ``threshold="midpoint"`` ignores the priors: the midpoint of the projected
    means, and for more classes the nearest projected mean (Euclidean distance
    in the projected space, where the eigenvector normalisation makes the
    regularised within-class scatter the identity).

    Multiplying the data (or, for ``kernel="precomputed"``, the Gram matrix) by
    a constant changes neither the directions nor the predictions with the
    linear kernel, or with the RBF kernel and ``gamma`` divided by the square
    of the constant (``gamma="scale"`` does that by itself).

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "laplacian", "sigmoid", "precomputed"} \
or callable, default "rbf"
        A name (scikit-learn's parametrisation, see
        :func:`ktheory.kernels.make_kernel`), a callable ``k(X, Y)`` returning
        the ``(len(X), len(Y))`` Gram block, or ``"precomputed"``: then ``fit``
        takes the ``(n, n)`` training Gram matrix and ``transform`` /
        ``predict`` the ``(n_test, n)`` matrix of kernel values against the
        training samples.
    mu : float, default 1e-3
        Relative regularisation ``mu >= 0``: ``ridge_ = mu * trace(N) / n``
        (``mu`` times the mean eigenvalue of ``N``) is added to ``N``
        (Mika et al. 1999), so the result does not depend on the units of
        the data. ``N`` is singular (rank at most ``n - c``). ``mu = 0``
        solves the problem on the numerical range of ``N`` (the
        pseudo-inverse solution): a convention, not the limit ``mu -> 0``,
        which turns towards the null space of ``N`` where the quotient is
        infinite and the class labels are interpolated.
    n_components : int, optional
        Number of discriminant directions, ``1 <= n_components <= c - 1``;
        default ``c - 1``.
    threshold : {"prior", "midpoint"}, default "prior"
        The classification rule on the projection: ``"prior"`` is LDA's rule
        with the class frequencies as priors (two classes: the threshold
        above); ``"midpoint"`` the midpoint of the two projected class means
        (several classes: the nearest projected mean), which ignores the
        class sizes. Only ``predict``, ``decision_function`` and ``score``
        depend on it.
    gamma : {"scale", "auto"} or float, default "scale"
        Coefficient of ``poly``, ``rbf``, ``laplacian``, ``sigmoid``, as in
        scikit-learn's ``SVC``: ``"scale"`` is ``1 / (n_features * X.var())``
        (the variance of all entries of the training ``X``), ``"auto"`` is
        ``1 / n_features``, a number is used as it is. ``rbf`` is
        ``exp(-gamma ||x - z||^2)``, i.e. ``gamma = 1 / (2 sigma^2)`` for the
        Gaussian of width ``sigma``.
    degree : int, default 3
        Degree of ``poly``.
    coef0 : float, default 0.0
        Constant of ``poly`` and ``sigmoid``.
    gram_limit_mb : float, default 2048
        Refuse (``ValueError``, before any n x n array exists) a fit whose peak memory,
        ``PEAK_GRAMS = 2`` float64 ``n x n`` arrays (the Gram matrix and its centred
        factor), exceeds this many MiB: 2048 admits about 11 500 samples. The package's
        one memory knob (as :class:`ktheory.svm.SVC` and :class:`ktheory.ridge.KernelRidge`).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (c,)
        Sorted class labels.
    alphas_ : numpy.ndarray of shape (n_train, n_components)
        Expansion coefficients of the directions, ordered by decreasing
        eigenvalue and normalised to ``alpha' (N + ridge_ I) alpha = 1``; the
        sign of each column makes the largest-magnitude centred projected
        class mean (projected class mean minus the projected overall mean)
        positive (for two classes: class ``classes_[1]`` projects above
        ``classes_[0]``). Directions whose eigenvalue is at most ``1e-10``
        times the largest are dropped with a warning (they are arbitrary
        vectors of the null space of ``M``: ``rank M < n_components``, e.g.
        three classes and a linear kernel on 1-D data), so there can be
        fewer columns than ``n_components``.
    eigenvalues_ : numpy.ndarray of shape (n_components,)
        The regularised Rayleigh quotients ``alpha' M alpha / alpha' (N + ridge_ I) alpha``.
    ridge_ : float
        The absolute regularisation ``mu * trace(N) / n`` added to ``N``
        (``mu * trace(M) / n`` if ``N = 0``; 0 for ``mu = 0``).
    means_ : numpy.ndarray of shape (c, n_components)
        Projected class means.
    priors_ : numpy.ndarray of shape (c,)
        Class frequencies ``n_c / n``, the priors of ``threshold="prior"``.
    covariance_ : numpy.ndarray of shape (n_components, n_components)
        Pooled within-class covariance of the projected training data,
        ``alphas_' N alphas_ / n`` (maximum likelihood: divided by ``n``, as
        ``LinearDiscriminantAnalysis(solver="eigen")``).
    threshold_ : float
        Two classes only: the threshold of ``decision_function`` (see
        ``threshold``; the midpoint when the projected classes have no
        spread, ``s^2 = 0``).
    X_fit_ : numpy.ndarray of shape (n_train, n_features)
        Training inputs (an empty ``(0, 0)`` array for ``"precomputed"``).
    n_features_in_ : int
        Number of features (``n_train`` for ``"precomputed"``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> r = np.r_[np.full(30, 1.0), np.full(30, 3.0)] + 0.1 * rng.standard_normal(60)
    >>> t = rng.uniform(0, 2 * np.pi, 60)
    >>> X = np.c_[r * np.cos(t), r * np.sin(t)]          # two concentric rings
    >>> y = np.r_[np.zeros(30, int), np.ones(30, int)]
    >>> kfd = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-3).fit(X, y)
    >>> kfd.transform(X).shape
    (60, 1)
    >>> float(kfd.score(X, y))
    1.0
    >>> k1000 = KernelFisherDiscriminant(kernel="rbf").fit(1000 * X, y)  # gamma="scale"
    >>> k1 = KernelFisherDiscriminant().fit(X, y)
    >>> bool(np.all(k1000.predict(1000 * X) == k1.predict(X)))
    True
    """

    def __init__(
        self,
        kernel: str | Callable[..., Any] = "rbf",
        *,
        mu: float = 1e-3,
        n_components: int | None = None,
        threshold: str = "prior",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 0.0,
        gram_limit_mb: float = 2048.0,
    ) -> None:
        self.kernel = kernel
        self.mu = mu
        self.n_components = n_components
        self.threshold = threshold
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.gram_limit_mb = gram_limit_mb

    # -- scikit-learn plumbing ------------------------------------------------

    def __sklearn_tags__(self) -> Any:
        """The mixins' tags (a classifier and a transformer); ``pairwise`` for a precomputed
        Gram matrix."""
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags

    # -- parameters -----------------------------------------------------------

    def _check_params(self, n_classes: int) -> tuple[float, int]:
        k = self.kernel
        if not (callable(k) or (isinstance(k, str) and (k == "precomputed" or k in _NAMED_KERNELS))):
            raise ValueError(
                f"kernel must be one of {_NAMED_KERNELS}, 'precomputed' or a callable k(X, Y); got {k!r}"
            )
        mu = self.mu
        if isinstance(mu, bool) or not isinstance(mu, numbers.Real):
            raise TypeError(f"mu must be a real number >= 0, got {type(mu).__name__} {mu!r}")
        mu = float(mu)
        if not np.isfinite(mu) or mu < 0:
            raise ValueError(
                f"mu must be a finite number >= 0 (the regularisation of N relative to its mean "
                f"eigenvalue), got {mu!r}"
            )
        nc = self.n_components
        if nc is None:
            ncomp = n_classes - 1
        else:
            if isinstance(nc, bool) or not isinstance(nc, numbers.Integral):
                raise TypeError(
                    f"n_components must be an integer or None, got {type(nc).__name__} {nc!r}"
                )
            if not 1 <= nc <= n_classes - 1:
                raise ValueError(
                    f"n_components must be between 1 and n_classes - 1 = {n_classes - 1} "
                    f"(M has rank at most c - 1); got {nc}"
                )
            ncomp = int(nc)
        if not (isinstance(self.threshold, str) and self.threshold in _THRESHOLDS):
            raise ValueError(f"threshold must be one of {_THRESHOLDS}, got {self.threshold!r}")
        check_gamma(self.gamma)  # scikit-learn's SVC vocabulary: "scale", "auto" or a number > 0
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be an integer, got {type(self.degree).__name__} {self.degree!r}")
        if self.degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        c0 = self.coef0
        if isinstance(c0, bool) or not isinstance(c0, numbers.Real) or not np.isfinite(c0):
            raise TypeError(f"coef0 must be a finite real number, got {self.coef0!r}")
        return mu, ncomp

    def _gram(self, A: np.ndarray, B: np.ndarray | None) -> np.ndarray:
        """Kernel block k(A, B) (B None: the symmetric training Gram matrix), with the
        coefficient ``_gamma_`` resolved by ``fit``."""
        from . import kernels as kk

        k = self.kernel
        if callable(k):
            G = np.asarray(k(A, A if B is None else B), dtype=np.float64)
            m = A.shape[0] if B is None else B.shape[0]
            if G.shape != (A.shape[0], m):
                raise ValueError(f"the kernel callable returned shape {G.shape}; expected {(A.shape[0], m)}")
            if not np.all(np.isfinite(G)):
                raise ValueError("the kernel callable returned NaN or infinity")
            if B is None:
                check_symmetric(G, "the Gram matrix returned by the kernel callable")
            return G
        g = self._gamma_
        if k == "linear":
            func, params = kk.linear_kernel, {}
        elif k in ("poly", "polynomial"):
            func = kk.polynomial_kernel
            params = {"degree": int(self.degree), "gamma": g, "coef0": float(self.coef0)}
        elif k == "rbf":
            func, params = kk.rbf_kernel, {"gamma": g}
        elif k == "sigmoid":
            func, params = kk.sigmoid_kernel, {"gamma": g, "coef0": float(self.coef0)}
        else:  # laplacian, scikit-learn's parametrisation exp(-gamma ||x - z||_1)
            f = kk.make_kernel("laplacian", gamma=g)
            return np.asarray(f(A, B), dtype=np.float64)
        try:
            return kk.gram_matrix(func, A, B, **params)
        except ValueError as exc:
            if "NaN or infinity" in str(exc) or "not finite" in str(exc):
                raise ValueError(
                    f"the {k!r} kernel matrix of X overflows (NaN or infinity); rescale X "
                    "(e.g. standardise the features)"
                ) from None
            raise

    # -- fit ------------------------------------------------------------------

    @atomic_fit
    def fit(self, X: Any, y: Any) -> KernelFisherDiscriminant:
        """Fit the discriminant directions.

        Parameters
        ----------
        X : array_like of shape (n, d), or (n, n) for ``kernel="precomputed"``
            Training inputs, or the symmetric training Gram matrix.
        y : array_like of shape (n,)
            Class labels; at least two classes. A class with a single sample
            is allowed: its block of the within-class centring ``C`` is the
            ``1 x 1`` zero, so it adds nothing to ``N`` (it has no spread).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            NaN/inf, wrong shapes, fewer than two classes, ``mu < 0``,
            ``n_components`` outside ``1 .. c - 1``, an unknown ``threshold``
            or ``gamma`` string, a non-square or non-symmetric precomputed
            Gram matrix, more than ``MAX_SAMPLES`` samples, identical class
            means in feature space (``M = 0``), a kernel that overflows. The
            estimator is then left as it was before the call (also on a refit).
        TypeError
            Complex, non-numeric or sparse input; parameters of the wrong type.
        """
        precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        limit = check_positive(self.gram_limit_mb, "gram_limit_mb")
        if precomputed:  # before validation copies it
            check_gram_input_size(X, limit, copies=PEAK_GRAMS)
        Xa, ya, _ = fit_data(self, X, y)
        if precomputed and Xa.shape[0] != Xa.shape[1]:
            raise ValueError(
                "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                f"got shape {Xa.shape}"
            )
        n = Xa.shape[0]
        classes, codes = class_labels(ya, estimator="KernelFisherDiscriminant")
        mu, ncomp = self._check_params(len(classes))
        need_mb = PEAK_GRAMS * 8.0 * n * n / 2**20
        if n > MAX_SAMPLES or need_mb > limit:
            raise ValueError(
                f"n_samples = {n}: a fit holds {PEAK_GRAMS} n x n float64 arrays, {need_mb:.0f} MiB, "
                f"more than gram_limit_mb={limit:g} (or n above MAX_SAMPLES = {MAX_SAMPLES}); "
                "subsample, use a low-rank approximation or raise gram_limit_mb"
            )
        uses_gamma = not (precomputed or callable(self.kernel) or self.kernel == "linear")
        self._gamma_ = resolve_gamma(self.gamma, Xa) if uses_gamma else None
        if precomputed:
            # the tolerance of the input's own precision (float16 too, which validation widens)
            check_symmetric(Xa, "X (precomputed Gram matrix)", dtype=floating_dtype(X))
            K = Xa.copy()  # centred in place below; Xa may be the caller's array
            X_fit = np.empty((0, 0))
        else:
            X_fit = Xa.copy()  # never a view of the caller's array
            K = self._gram(X_fit, None)
        big = _check_fit_scale(K)
        holder = [K]
        del K  # _solve holds the only reference and frees K once it is factorised
        alphas, means, lam, ridge, cov = self._solve(holder, codes, len(classes), mu, ncomp, big)
        self.X_fit_ = X_fit
        self.classes_ = classes
        self.alphas_, self.means_, self.eigenvalues_ = alphas, means, lam
        self.ridge_ = ridge
        self.priors_ = np.bincount(codes, minlength=len(classes)) / n
        self.covariance_ = cov
        self._set_rule(self.threshold)
        return self

    def _set_rule(self, rule: str) -> None:
        """The classification rule on the projection: ``threshold_`` (two classes) or the
        quadratic form and offsets of the class scores (``_precision_``, ``_log_priors_``)."""
        means, cov, priors = self.means_, self.covariance_, self.priors_
        k = means.shape[1]
        ev = np.linalg.eigvalsh(cov) if k else np.zeros(0)
        # no within-class spread along some projected direction: priors cannot be weighed
        # against distances (the limit of the prior rule as the spread vanishes is the midpoint)
        singular = not (ev.size and ev[-1] > 0 and ev[0] > _COV_RTOL * ev[-1])
        prior = rule == "prior" and not singular
        if len(self.classes_) == 2:
            m0, m1 = float(means[0, 0]), float(means[1, 0])
            t = 0.5 * (m0 + m1)
            if prior and m1 > m0:
                t += float(cov[0, 0]) * float(np.log(priors[0] / priors[1])) / (m1 - m0)
            self.threshold_ = t
            self.__dict__.pop("_precision_", None)
            self.__dict__.pop("_log_priors_", None)
            return
        self.__dict__.pop("threshold_", None)  # a two-class fit's threshold does not apply
        if prior:
            P = np.linalg.inv(cov)
            self._precision_ = 0.5 * (P + P.T)
            self._log_priors_ = np.log(priors)
        else:
            self._precision_ = np.eye(k)
            self._log_priors_ = np.zeros(len(self.classes_))

    def _solve(self, holder: list[np.ndarray], codes: np.ndarray, c: int, mu: float,
               ncomp: int, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
        """``(alphas, projected class means, eigenvalues, ridge, projected covariance)`` from
        the Gram matrix in ``holder``, which is emptied (the caller's reference is the only
        other one, and it deletes it); ``scale`` is ``max|K|``."""
        K = holder.pop()  # the only reference: ``del K`` below frees the Gram matrix
        n = K.shape[0]
        counts = np.bincount(codes, minlength=c).astype(np.float64)
        L = np.zeros((n, c))
        L[np.arange(n), codes] = 1.0 / counts[codes]
        means = K @ L  # (n, c): column c is the kernel class mean m_c = K l_c / n_c
        overall = means @ (counts / n)  # m = K 1 / n
        G = (means - overall[:, None]) * np.sqrt(counts)  # M = G G'
        scale = max(scale, 1e-300)
        if float(np.max(np.abs(G))) <= 1e-12 * scale * np.sqrt(n):
            raise ValueError(
                "the class means coincide in feature space (M = 0): the kernel does not separate "
                "the classes at all (e.g. a constant kernel matrix); check the kernel and its parameters"
            )
        # F = K C: subtract from each column j the class-mean column of its class, row block by
        # row block. K is symmetric and C-ordered, so its memory read in Fortran order (K.T) is F'
        rows = max(1, _ROW_BLOCK // n)
        for r0 in range(0, n, rows):
            r1 = min(r0 + rows, n)
            K[r0:r1] -= means[r0:r1][:, codes]
        Ft = K.T  # F' = C K, Fortran-ordered: LAPACK factorises it in place
        del K
        size_N = _frobenius(Ft.T)  # sqrt(trace N) = ||F||_F
        if mu > 0:
            # ridge = mu trace(N) / n (mu trace(M) / n when N = 0); its square root never overflows
            root = np.sqrt(mu) * (size_N if size_N > 0 else _frobenius(G)) / np.sqrt(n)
            with np.errstate(over="ignore"):  # only for an absurd mu: then ridge_ is inf
                ridge = root * root
            Rmu = None
            # trace N = size_N^2 bounds every |N_ij|: N and the ridge well inside float64's range
            in_range = 1e-125 < size_N < 1e150 and ridge > 1e-250
            if in_range and np.finfo(np.float64).eps * (1.0 + n / mu) <= _CHOLESKY_RTOL:
                # well conditioned: N = F F' by one BLAS syrk (the upper triangle of a
                # Fortran-ordered array; Ft' Ft = F F'), then N + ridge I = R_mu' R_mu in place
                N = _blas.dsyrk(1.0, Ft, trans=1, lower=0)
                N.flat[:: n + 1] += ridge
                try:
                    Rmu, _ = sla.cho_factor(N, lower=False, overwrite_a=True, check_finite=False)
                except np.linalg.LinAlgError:  # pragma: no cover - excluded by the bound above
                    Rmu = None
                del N
            if Rmu is None:
                # F' = Q R in place (N = F F' = R' R; Q is never formed)
                qr, _tau, _, info = _lapack.dgeqrf(Ft, overwrite_a=1)
                del _tau
                if info != 0:  # pragma: no cover - LAPACK reports only illegal arguments here
                    raise np.linalg.LinAlgError(f"LAPACK geqrf failed (info = {info})")
                # [R; sqrt(ridge) I] = Q_mu [R_mu; 0]: R_mu' R_mu = R' R + ridge I = N + ridge I
                B = np.zeros((n, n), order="F")
                B.flat[:: n + 1] = root
                Rmu, _, _, info = _lapack.dtpqrt(n, min(_TPQRT_BLOCK, n), qr, B, overwrite_a=1,
                                                 overwrite_b=1)
                del B, qr
                if info != 0:  # pragma: no cover
                    raise np.linalg.LinAlgError(f"LAPACK tpqrt failed (info = {info})")
            del Ft
            H = sla.solve_triangular(Rmu, G, trans="T", lower=False, check_finite=False)
            lam, V = self._top_eigen(H, ncomp)
            U = H @ V / np.sqrt(np.maximum(lam, 1e-300))
            alphas = sla.solve_triangular(Rmu, U, lower=False, check_finite=False)
            del Rmu
            # alpha' N alpha = alpha' (N + ridge I) alpha - ridge |alpha|^2 = I - ridge A'A
            RA = root * alphas
            nmat = np.eye(alphas.shape[1]) - RA.T @ RA
        else:
            ridge = 0.0
            # rank-revealing QR: F' P = Q R, |R_11| >= |R_22| >= ... (N = P R' R P')
            qr, jpvt, _tau, _, info = _lapack.dgeqp3(Ft, overwrite_a=1)
            del Ft, _tau
            if info != 0:  # pragma: no cover
                raise np.linalg.LinAlgError(f"LAPACK geqp3 failed (info = {info})")
            perm = jpvt - 1
            diag = np.abs(np.diagonal(qr))
            r = int(np.sum(diag > diag[0] * n * np.finfo(np.float64).eps)) if diag[0] > 0 else 0
            if r == 0:
                raise ValueError(
                    "N = 0 (no class has any within-class spread in feature space), so its range "
                    "is empty and mu = 0 has no solution; use mu > 0"
                )
            # B = P R_1' (n x r): N = B B' up to the discarded rows of R. B = P Q2 T (QR of R_1')
            Bt = np.triu(qr[:r]).T  # R_1' as a Fortran-ordered n x r array (a copy)
            del qr
            qr2, tau2, _, info = _lapack.dgeqrf(Bt, overwrite_a=1)
            del Bt
            if info != 0:  # pragma: no cover
                raise np.linalg.LinAlgError(f"LAPACK geqrf failed (info = {info})")
            T = qr2[:r, :r]  # upper triangle: T; W = P Q2 T^{-T}, W W' = N^+, W' N W = I
            QtG = self._apply_q(qr2, tau2, G[perm], "T")[:r]  # Q2' P' G
            H = sla.solve_triangular(T, QtG, lower=False, check_finite=False)  # W' G
            lam, V = self._top_eigen(H, ncomp)
            U = H @ V / np.sqrt(np.maximum(lam, 1e-300))
            Y = np.zeros((n, U.shape[1]))
            Y[:r] = sla.solve_triangular(T, U, trans="T", lower=False, check_finite=False)
            alphas = np.empty_like(Y)
            alphas[perm] = self._apply_q(qr2, tau2, Y, "N")  # W U = P Q2 T^{-T} U
            nmat = np.eye(alphas.shape[1])  # W' N W = I on the range
        if not np.all(np.isfinite(alphas)):
            raise ValueError(
                "the discriminant directions are not finite: the kernel matrix is too large or "
                "too small for float64 at this mu; rescale the kernel or increase mu"
            )
        proj_means = (G / np.sqrt(counts) + overall[:, None]).T @ alphas  # (c, k): m_c' alpha
        # sign convention: the largest-magnitude projected (centred) class mean is positive
        centred = proj_means - (counts / n) @ proj_means
        flip = np.sign(centred[np.argmax(np.abs(centred), axis=0), np.arange(alphas.shape[1])])
        flip[flip == 0] = 1.0
        if c == 2:
            flip = np.sign(proj_means[1] - proj_means[0])
            flip[flip == 0] = 1.0
        cov = 0.5 * (nmat + nmat.T) * np.outer(flip, flip) / n
        return alphas * flip, proj_means * flip, lam, float(ridge), cov

    @staticmethod
    def _apply_q(qr: np.ndarray, tau: np.ndarray, C: np.ndarray, trans: str) -> np.ndarray:
        """``Q C`` (``trans="N"``) or ``Q' C`` (``"T"``) for the Householder factor ``Q`` held
        by LAPACK ``geqrf`` in ``qr, tau`` (LAPACK ``ormqr``)."""
        C = np.asfortranarray(C, dtype=np.float64)
        lwork = max(1, 64 * C.shape[1])
        out, _, info = _lapack.dormqr("L", trans, qr, tau, C, lwork, overwrite_c=1)
        if info != 0:  # pragma: no cover
            raise np.linalg.LinAlgError(f"LAPACK ormqr failed (info = {info})")
        return out

    @staticmethod
    def _top_eigen(H: np.ndarray, ncomp: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``ncomp`` largest eigenpairs of ``H' H``, without those at rounding level."""
        lam, V = sla.eigh(H.T @ H)
        order = np.argsort(lam)[::-1][:ncomp]
        lam, V = lam[order], V[:, order]
        if not lam[0] > 0:
            raise ValueError(
                "the between-class scatter is zero on the range of N (all eigenvalues are 0): "
                "the class means differ only in the null space of N; use mu > 0"
            )
        good = lam > _EIG_RTOL * lam[0]
        if not np.all(good):
            warnings.warn(
                f"only {int(good.sum())} of the {len(lam)} requested discriminant directions have a "
                f"non-zero eigenvalue (rank M < n_components; eigenvalues {lam}); the others "
                "would be arbitrary vectors of the null space of M and are dropped",
                UserWarning,
                stacklevel=5,  # _top_eigen, _solve, fit, atomic_fit's wrapper, the caller
            )
            lam, V = lam[good], V[:, good]
        return lam, V

    # -- prediction -----------------------------------------------------------

    def _test_kernel(self, X: Any) -> np.ndarray:
        """``k(X, X_train)``; for ``"precomputed"``, ``X`` itself (``n_train`` columns: the
        feature count that ``fit`` saw)."""
        Xa, _ = predict_data(self, X, fitted="alphas_")
        if isinstance(self.kernel, str) and self.kernel == "precomputed":
            return Xa
        return self._gram(Xa, self.X_fit_)

    def transform(self, X: Any) -> np.ndarray:
        """Project onto the discriminant directions: ``k(X, X_train) @ alphas_``.

        Parameters
        ----------
        X : array_like of shape (m, d), or (m, n_train) for ``"precomputed"``

        Returns
        -------
        numpy.ndarray of shape (m, n_components)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        return self._test_kernel(X) @ self.alphas_

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores whose sign (two classes) or argmax (several) is ``predict``.

        Two classes: ``h(x) - threshold_``, positive meaning ``classes_[1]``.
        More classes, with ``z = transform(x)``: ``threshold="prior"`` gives LDA's
        log posterior up to a constant, ``log priors_[c] - (z - means_[c])' S^{-1}
        (z - means_[c]) / 2`` with ``S = covariance_``; ``"midpoint"`` gives
        ``-||z - means_[c]||^2 / 2`` (the nearest projected mean scores highest).

        Parameters
        ----------
        X : array_like of shape (m, d), or (m, n_train) for ``"precomputed"``

        Returns
        -------
        numpy.ndarray of shape (m,) for two classes, (m, c) otherwise
        """
        Z = self.transform(X)
        if len(self.classes_) == 2:
            return Z[:, 0] - self.threshold_
        P, means = self._precision_, self.means_
        ZP = Z @ P
        d2 = (
            np.einsum("ij,ij->i", ZP, Z)[:, None]
            - 2.0 * ZP @ means.T
            + np.einsum("ij,ij->i", means @ P, means)[None, :]
        )
        return self._log_priors_[None, :] - 0.5 * d2

    def predict(self, X: Any) -> np.ndarray:
        """The class of the largest score: the threshold rule for two classes, the largest
        LDA posterior on the projection (``threshold="prior"``) or the nearest projected mean
        (``"midpoint"``) for more.

        Parameters
        ----------
        X : array_like of shape (m, d), or (m, n_train) for ``"precomputed"``

        Returns
        -------
        numpy.ndarray of shape (m,)
            Labels from ``classes_``.
        """
        f = self.decision_function(X)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]
