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

Implementation. ``N = (K C)(K C)'`` is formed with one BLAS ``syrk`` from the
within-class centred Gram matrix (centred in place, row block by row block),
so a fit holds two ``n x n`` arrays at its peak (the Gram matrix is freed once
``N`` is formed; a precomputed Gram matrix passed by the caller is not counted)
and no ``n x n x c`` temporary. ``N + mu I = R' R`` is Cholesky-factorised, and since
``M = G G'`` with ``G`` of ``c`` columns, the generalised problem reduces
exactly to the ``c x c`` symmetric problem ``(H' H) v = lambda v`` with
``H = R^{-T} G``, solved by :func:`scipy.linalg.eigh`; then
``alpha = R^{-1} H v / sqrt(lambda)``. The eigenvectors are normalised as
``scipy.linalg.eigh(M, N + mu I)`` normalises them:
``alpha' (N + mu I) alpha = 1``. With ``mu = 0`` the problem is solved on
the range of ``N`` (the pseudo-inverse solution, a convention: the
unregularised quotient is unbounded when the class means have a component in
the null space of ``N``), whitened by an in-place eigendecomposition of ``N``
(again two ``n x n`` arrays at the peak: ``N`` and its eigenvectors).

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
from sklearn.base import TransformerMixin

from ._base import KTheoryClassifierMixin, KTheoryEstimator, atomic_fit
from ._validation import (
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

_NAMED_KERNELS = ("linear", "poly", "polynomial", "rbf", "gaussian", "laplacian", "sigmoid")
_ROW_BLOCK = 1 << 20  # values per row block when centring in place (8 MiB)
_EIG_RTOL = 1e-10  # eigenvalues of M at most this times the largest are treated as zero


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
    >>> # class means 0.5 and 3.5: (n0 n1 / n) (3.5 - 0.5)^2 = 9; within-class 4 * 0.5^2 = 1
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

    Maximises ``alpha' M alpha / alpha' (N + mu I) alpha`` (see the module
    docstring for ``M`` and ``N``) by the generalised symmetric eigenproblem
    ``M alpha = lambda (N + mu I) alpha``. The projection of ``x`` on
    direction ``j`` is ``h_j(x) = sum_i alphas_[i, j] k(x_i, x)``; ``predict``
    returns the class whose projected mean is nearest (Euclidean distance in
    the projected space, where the eigenvector normalisation makes the
    regularised within-class scatter the identity). For two classes the
    nearest-mean rule is the threshold rule ``decision_function(x) > 0``
    with the threshold halfway between the two projected class means.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "gaussian", "laplacian", "sigmoid", "precomputed"} \
or callable, default "rbf"
        A name (scikit-learn's parametrisation, see
        :func:`ktheory.kernels.make_kernel`), a callable ``k(X, Y)`` returning
        the ``(len(X), len(Y))`` Gram block, or ``"precomputed"``: then ``fit``
        takes the ``(n, n)`` training Gram matrix and ``transform`` /
        ``predict`` the ``(n_test, n)`` matrix of kernel values against the
        training samples.
    mu : float, default 1e-3
        Regularisation ``mu >= 0`` added to ``N`` (Mika et al. 1999). ``N`` is
        singular (rank at most ``n - c``). ``mu = 0`` solves the problem on the
        range of ``N`` (the pseudo-inverse solution): a convention, not the
        limit ``mu -> 0``, which turns towards the null space of ``N`` where
        the quotient is infinite and the class labels are interpolated.
    n_components : int, optional
        Number of discriminant directions, ``1 <= n_components <= c - 1``;
        default ``c - 1``.
    gamma : float, optional
        Coefficient of ``poly``, ``rbf``, ``laplacian``, ``sigmoid``; default
        ``1 / n_features``.
    degree : int, default 3
        Degree of ``poly``.
    coef0 : float, default 0.0
        Constant of ``poly`` and ``sigmoid``.
    sigma : float, optional
        Width of ``gaussian``.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (c,)
        Sorted class labels.
    alphas_ : numpy.ndarray of shape (n_train, n_components)
        Expansion coefficients of the directions, ordered by decreasing
        eigenvalue and normalised to ``alpha' (N + mu I) alpha = 1``; the sign
        of each column makes the largest-magnitude centred projected class
        mean (projected class mean minus the projected overall mean) positive
        (for two classes: class ``classes_[1]`` projects above
        ``classes_[0]``). Directions whose eigenvalue is at most
        ``1e-10`` times the largest are dropped with a warning (they are
        arbitrary vectors of the null space of ``M``: ``rank M < n_components``,
        e.g. three classes and a linear kernel on 1-D data), so there can be
        fewer columns than ``n_components``.
    eigenvalues_ : numpy.ndarray of shape (n_components,)
        The regularised Rayleigh quotients ``alpha' M alpha / alpha' (N + mu I) alpha``.
    means_ : numpy.ndarray of shape (c, n_components)
        Projected class means.
    threshold_ : float
        Two classes only: the midpoint of the two projected class means.
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
    """

    def __init__(
        self,
        kernel: str | Callable[..., Any] = "rbf",
        *,
        mu: float = 1e-3,
        n_components: int | None = None,
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 0.0,
        sigma: float | None = None,
    ) -> None:
        self.kernel = kernel
        self.mu = mu
        self.n_components = n_components
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.sigma = sigma

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
            raise ValueError(f"mu must be a finite number >= 0 (the regularisation of N), got {mu!r}")
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
        if self.gamma is not None:
            g = self.gamma
            if isinstance(g, bool) or not isinstance(g, numbers.Real):
                raise TypeError(f"gamma must be a positive number or None, got {type(g).__name__} {g!r}")
            if not (np.isfinite(g) and g > 0):
                raise ValueError(f"gamma must be a finite number > 0, got {g!r}")
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be an integer, got {type(self.degree).__name__} {self.degree!r}")
        if self.degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}")
        c0 = self.coef0
        if isinstance(c0, bool) or not isinstance(c0, numbers.Real) or not np.isfinite(c0):
            raise TypeError(f"coef0 must be a finite real number, got {self.coef0!r}")
        if self.sigma is not None:
            s = self.sigma
            if isinstance(s, bool) or not isinstance(s, numbers.Real):
                raise TypeError(f"sigma must be a positive number or None, got {type(s).__name__} {s!r}")
            if not (np.isfinite(s) and s > 0):
                raise ValueError(f"sigma must be a finite number > 0, got {s!r}")
        return mu, ncomp

    def _gram(self, A: np.ndarray, B: np.ndarray | None) -> np.ndarray:
        """Kernel block k(A, B) (B None: the symmetric training Gram matrix)."""
        from . import kernels as kk

        k = self.kernel
        d = A.shape[1]
        g = float(self.gamma) if self.gamma is not None else 1.0 / d
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
        if k == "linear":
            func, params = kk.linear_kernel, {}
        elif k in ("poly", "polynomial"):
            func = kk.polynomial_kernel
            params = {"degree": int(self.degree), "gamma": g, "coef0": float(self.coef0)}
        elif k == "rbf":
            func, params = kk.rbf_kernel, {"gamma": g}
        elif k == "gaussian":
            func, params = kk.gaussian_kernel, {"sigma": 1.0 if self.sigma is None else float(self.sigma)}
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
            ``n_components`` outside ``1 .. c - 1``, a non-square or
            non-symmetric precomputed Gram matrix, more than
            ``MAX_SAMPLES`` samples, identical class means in feature space
            (``M = 0``), a kernel that overflows. The estimator is then left
            as it was before the call (also on a refit).
        TypeError
            Complex, non-numeric or sparse input; parameters of the wrong type.
        """
        precomputed = isinstance(self.kernel, str) and self.kernel == "precomputed"
        Xa, ya, _ = fit_data(self, X, y)
        if precomputed and Xa.shape[0] != Xa.shape[1]:
            raise ValueError(
                "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                f"got shape {Xa.shape}"
            )
        n = Xa.shape[0]
        classes, codes = class_labels(ya, estimator="KernelFisherDiscriminant")
        mu, ncomp = self._check_params(len(classes))
        if n > MAX_SAMPLES:
            raise ValueError(
                f"n_samples = {n} exceeds MAX_SAMPLES = {MAX_SAMPLES}: a fit holds two n x n float64 "
                f"arrays ({16 * n * n / 1e9:.0f} GB); subsample or use a low-rank approximation"
            )
        if precomputed:
            # the tolerance of the input's own precision (float16 too, which validation widens)
            check_symmetric(Xa, "X (precomputed Gram matrix)", dtype=floating_dtype(X))
            K = Xa.copy()  # centred in place below; Xa may be the caller's array
            X_fit = np.empty((0, 0))
        else:
            X_fit = Xa.copy()  # never a view of the caller's array
            K = self._gram(X_fit, None)
        _check_scale(K, "the training Gram matrix")
        holder = [K]
        del K  # _solve holds the only reference and frees K once N is formed
        alphas, means, lam = self._solve(holder, codes, len(classes), mu, ncomp)
        self.X_fit_ = X_fit
        self.classes_ = classes
        self.alphas_, self.means_, self.eigenvalues_ = alphas, means, lam
        if len(classes) == 2:
            self.threshold_ = float(0.5 * (means[0, 0] + means[1, 0]))
        else:
            self.__dict__.pop("threshold_", None)  # a two-class fit's threshold does not apply
        return self

    def _solve(self, holder: list[np.ndarray], codes: np.ndarray, c: int, mu: float,
               ncomp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(alphas, projected class means, eigenvalues)`` from the Gram matrix in ``holder``,
        which is emptied (the caller's reference is the only other one, and it deletes it)."""
        K = holder.pop()  # the only reference: ``del K`` below frees the Gram matrix
        n = K.shape[0]
        counts = np.bincount(codes, minlength=c).astype(np.float64)
        L = np.zeros((n, c))
        L[np.arange(n), codes] = 1.0 / counts[codes]
        means = K @ L  # (n, c): column c is the kernel class mean m_c = K l_c / n_c
        overall = means @ (counts / n)  # m = K 1 / n
        G = (means - overall[:, None]) * np.sqrt(counts)  # M = G G'
        scale = max(float(np.max(np.abs(K))), 1e-300)
        if float(np.max(np.abs(G))) <= 1e-12 * scale * np.sqrt(n):
            raise ValueError(
                "the class means coincide in feature space (M = 0): the kernel does not separate "
                "the classes at all (e.g. a constant kernel matrix); check the kernel and its parameters"
            )
        # K C: subtract from each column j the class-mean column of its class, row block by row block
        rows = max(1, _ROW_BLOCK // n)
        for r0 in range(0, n, rows):
            r1 = min(r0 + rows, n)
            K[r0:r1] -= means[r0:r1][:, codes]
        # N = (K C)(K C)' by syrk: the upper triangle of a Fortran-ordered n x n array
        N = _blas.dsyrk(1.0, K.T, trans=1, lower=0)  # K.T is Fortran-ordered: no copy
        del K  # freed here (the fit passed its only reference): at most two n x n arrays live
        ridge = mu if mu > 0 else 0.0
        idx = np.arange(n)
        if ridge > 0:
            N[idx, idx] += ridge
            try:
                R, _ = sla.cho_factor(N, lower=False, overwrite_a=True, check_finite=False)
            except np.linalg.LinAlgError:
                # N is PSD, but its rounding errors are of order eps * ||N||: a smaller mu cannot fix them
                raise ValueError(
                    f"N + mu I is numerically singular: mu = {mu:g} is below the rounding level of N "
                    f"(about eps * max|N|); increase mu, or standardise the features so that N is "
                    "better conditioned"
                ) from None
            H = sla.solve_triangular(R, G, trans="T", lower=False, check_finite=False)
            lam, V = self._top_eigen(H, ncomp)
            U = H @ V / np.sqrt(np.maximum(lam, 1e-300))
            alphas = sla.solve_triangular(R, U, lower=False, check_finite=False)
        else:
            # pseudo-inverse: whiten on the range of N (eigenvalues above rounding). eigh reads
            # the upper triangle written by syrk and overwrites N; then N is freed, so the
            # peak is N and the eigenvectors Q: two n x n arrays, as with mu > 0
            ev, Q = sla.eigh(N, lower=False, overwrite_a=True, check_finite=False)
            del N
            keep = ev > ev.max() * n * np.finfo(float).eps
            scale_cols = np.zeros(n)
            scale_cols[keep] = 1.0 / np.sqrt(ev[keep])
            Q *= scale_cols  # in place: columns outside the range of N become zero
            W = Q
            H = W.T @ G
            lam, V = self._top_eigen(H, ncomp)
            U = H @ V / np.sqrt(np.maximum(lam, 1e-300))
            alphas = W @ U
        proj_means = (G / np.sqrt(counts) + overall[:, None]).T @ alphas  # (c, k): m_c' alpha
        # sign convention: the largest-magnitude projected (centred) class mean is positive
        centred = proj_means - (counts / n) @ proj_means
        flip = np.sign(centred[np.argmax(np.abs(centred), axis=0), np.arange(alphas.shape[1])])
        flip[flip == 0] = 1.0
        if c == 2:
            flip = np.sign(proj_means[1] - proj_means[0])
            flip[flip == 0] = 1.0
        return alphas * flip, proj_means * flip, lam

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
        More classes: ``-||z - means_[c]||^2 / 2`` for each class ``c``, with
        ``z = transform(x)`` (the nearest projected class mean scores highest).

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
        d2 = (
            np.einsum("ij,ij->i", Z, Z)[:, None]
            - 2.0 * Z @ self.means_.T
            + np.einsum("ij,ij->i", self.means_, self.means_)[None, :]
        )
        return -0.5 * d2

    def predict(self, X: Any) -> np.ndarray:
        """The class whose projected mean is nearest to the projection of ``x``.

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
