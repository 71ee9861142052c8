"""Kernel principal component analysis (Chapter 5).

Principal component analysis in the feature space of a kernel :cite:p:`scholkopf1998nonlinear`.
With the training samples ``x_1, ..., x_n``, their Gram matrix ``K`` and the centring matrix
``H = I - 1 1^T / n``, the feature vectors centred at their mean have the Gram matrix

``K_c = H K H``,

and the principal axes of the centred features are ``v_i = sum_j a_ji Phi_c(x_j)`` with
``K_c a_i = w_i a_i``: the eigenproblem of an ``n x n`` matrix replaces that of the
(possibly infinite) covariance operator ``C = (1/n) sum_j Phi_c(x_j) Phi_c(x_j)^T``, whose
non-zero eigenvalues are ``w_i / n``. With unit eigenvectors ``u_i`` of ``K_c`` the axis
``v_i = sum_j u_ji Phi_c(x_j) / sqrt(w_i)`` has unit norm, and the ``i``-th principal
component of a point ``x`` is

``<Phi_c(x), v_i> = k_c(x, X) u_i / sqrt(w_i)``,

where ``k_c(x, X)`` is the row of kernel values against the training samples, centred in
feature space (the training means of ``K`` subtracted as scikit-learn's ``KernelCenterer``
does). On the training samples the components are ``u_i sqrt(w_i)``. Without the centring
these are the Nyström estimates ``sqrt(lambda_i) phi_i(x)`` of Mercer's feature map from the
empirical measure of the sample (:func:`ktheory.mercer.nystrom_eigenpairs`); with it, the same
for the centred kernel.

:class:`KernelPCA` is a scikit-learn transformer with scikit-learn's names (``eigenvalues_``,
``eigenvectors_``, ``X_fit_``), the same sign convention, and the same components as
``sklearn.decomposition.KernelPCA`` with its dense eigensolver. Deliberate differences: a
kernel matrix that is not positive semidefinite (beyond rounding) is refused, eigenvalues at
the eigensolver's rounding level count as zero, and ``gamma`` speaks the package's vocabulary.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin

from ._base import KTheoryEstimator, atomic_fit
from ._kernel_setup import (
    check_kernel_params,
    kernel_block,
    named_entry_error,
    owned,
    resolve_gamma,
)
from ._validation import (
    check_positive,
    check_psd_gram,
    fit_data,
    predict_data,
    symmetrized,
)

__all__ = ["KernelPCA"]

#: Kernel names understood by :class:`KernelPCA` (scikit-learn's parametrisation).
KERNEL_NAMES: tuple[str, ...] = ("linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid")

#: Default limit (MiB) on the size of the training Gram matrix.
DEFAULT_GRAM_LIMIT_MB = 2048.0

_EPS = float(np.finfo(np.float64).eps)

_WHY_PSD = (
    "kernel PCA needs a positive semidefinite kernel: the Gram matrix of feature vectors is PSD, "
    "and a negative eigenvalue has no principal axis"
)


def _check_n_components_type(value: Any) -> None:
    """``TypeError`` unless ``n_components`` is an int (not a bool) or None."""
    if value is not None and (isinstance(value, (bool, np.bool_))
                              or not isinstance(value, numbers.Integral)):
        raise TypeError(
            f"n_components must be an int >= 1 or None, got {type(value).__name__} {value!r}"
        )


def _check_n_components(value: Any, n: int) -> int:
    """``n_components`` as an int in ``[1, n]`` (``None``: ``n``)."""
    _check_n_components_type(value)
    if value is None:
        return n
    if not 1 <= int(value) <= n:
        raise ValueError(
            f"n_components must be between 1 and the number of training samples n={n}; "
            f"got {value!r}"
        )
    return int(value)


def _center_gram(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(H K H, column means of K, mean of K)`` for the symmetric ``K`` (float64); ``K`` is
    centred in place (it must be a private copy) and returned symmetrised."""
    col = K.mean(axis=0)
    total = float(col.mean())
    K -= col[None, :]
    K -= col[:, None]
    K += total
    # the symmetric part, in place (numpy buffers the overlapping transpose)
    np.add(K, K.T, out=K)
    K *= 0.5
    return K, col, total


#: Up to this fraction of ``n`` components, ``fit`` computes only the top ``n_components``
#: eigenpairs (LAPACK's MRRR, ``driver="evr"``); above it, all of them by divide and conquer.
SUBSET_FRACTION = 0.2


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, KTheoryEstimator):
    """Kernel principal component analysis: the eigenvectors of the centred Gram matrix.

    ``fit`` computes the training Gram matrix ``K``, centres it in feature space,
    ``K_c = H K H`` with ``H = I - 1 1^T / n``, and keeps its ``n_components`` largest
    eigenpairs ``K_c u_i = w_i u_i`` (unit ``u_i``, ``w_1 >= w_2 >= ...``). ``transform``
    returns the principal components ``k_c(x, X) u_i / sqrt(w_i)``; on the training samples
    they are ``u_i sqrt(w_i)`` (:meth:`fit_transform`). The same numbers as
    ``sklearn.decomposition.KernelPCA`` (dense solver) with the same kernel, up to rounding.

    Parameters
    ----------
    n_components : int or None, default None
        Number of components, ``1 <= n_components <= n_samples``. ``None`` keeps every
        component with a non-zero eigenvalue (above the rounding level, see ``eigenvalues_``).
    kernel : {"linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid", "precomputed"} \
            or callable, default "linear"
        A name (scikit-learn's parametrisation, evaluated by :mod:`ktheory.kernels`), a
        callable ``k(A, B, **kernel_params)`` returning the ``(len(A), len(B))`` block of two
        sample matrices, or ``"precomputed"``: ``X`` in :meth:`fit` is then the symmetric
        ``(n, n)`` training Gram matrix and in :meth:`transform` the ``(m, n)`` kernel values
        against the training samples.
    gamma : {"scale", "auto"} or float, default "scale"
        Coefficient of ``"poly"``, ``"rbf"``, ``"laplacian"`` and ``"sigmoid"``, as in
        :class:`ktheory.svm.SVC`: ``"scale"`` is ``1 / (n_features * X.var())`` of the
        training ``X``, ``"auto"`` is ``1 / n_features`` (scikit-learn's ``KernelPCA``
        default ``gamma=None``), or a number ``> 0``.
    degree : int, default 3
        Degree of ``"poly"`` (``>= 1``).
    coef0 : float, default 1
        Constant of ``"poly"`` and ``"sigmoid"``.
    kernel_params : dict, optional
        Extra keyword arguments of a callable kernel.
    gram_limit_mb : float, default 2048
        Refuse (``ValueError``) a training Gram matrix larger than this many MiB.

    Attributes
    ----------
    eigenvalues_ : numpy.ndarray of shape (n_components,)
        Eigenvalues ``w_i`` of the centred Gram matrix, decreasing (``n`` times the
        eigenvalues of the covariance operator of the centred features). An eigenvalue
        within ``n * eps * max|w|`` of zero, the eigensolver's rounding, is stored as ``0.0``
        and its component is identically zero.
    eigenvectors_ : numpy.ndarray of shape (n_samples, n_components)
        The unit eigenvectors ``u_i``. Sign convention (scikit-learn's ``svd_flip``): the
        entry of largest absolute value of each column is positive (the first such entry
        on a tie). An eigenvector is unique up to this sign only for a simple eigenvalue;
        for a repeated one (or zero) only the subspace is.
    X_fit_ : numpy.ndarray of shape (n_samples, n_features)
        The training samples, a copy the estimator owns (the symmetric Gram matrix for
        ``"precomputed"``).
    gamma_ : float
        The number ``gamma`` stood for in the fit (NaN for ``"linear"``, a callable or
        ``"precomputed"``).
    n_features_in_ : int
        Number of columns of the training ``X``.

    Raises
    ------
    ValueError
        In :meth:`fit`: NaN/inf, empty or 1-D ``X``, ``n_components`` out of range, an
        unknown kernel name or parameter out of range, a precomputed Gram matrix that is
        not square or not symmetric, a kernel block of the wrong shape, and a training Gram
        matrix that is not positive semidefinite: smallest eigenvalue below ``-tol``,
        ``tol`` = :func:`ktheory._validation.psd_gram_tolerance` (the eigensolver's rounding
        plus the kernel's own evaluation error, :func:`ktheory.kernels.gram_entry_error`),
        so that the Gram matrix of a PSD kernel is never refused for its rounding. The check
        is made for ``"precomputed"``, callables, ``"sigmoid"`` and ``"poly"`` with
        ``coef0 < 0``; the other named kernels are PSD by construction.
    TypeError
        For parameters of the wrong type and non-numeric or complex input.

    Notes
    -----
    A fit that raises leaves the estimator as it was. :meth:`transform` uses the kernel
    settings of the last fit. For a translation-invariant kernel (``"rbf"``,
    ``"laplacian"``) the components do not change when every sample, training and new, is
    moved by the same vector.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [2.0, 3.0]])
    >>> kpca = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    >>> np.round(kpca.eigenvalues_, 4)
    array([1.2482, 0.9034])
    >>> Z = kpca.fit_transform(X)
    >>> np.round(Z, 4)
    array([[-0.5358, -0.0604],
           [-0.5546, -0.1452],
           [ 0.3734,  0.7576],
           [ 0.717 , -0.552 ]])
    >>> bool(np.allclose(kpca.transform(X), Z))
    True
    >>> # uncorrelated, variances w_i
    >>> bool(np.allclose(Z.T @ Z, np.diag(kpca.eigenvalues_)))
    True
    """

    def __init__(
        self,
        n_components: int | None = None,
        *,
        kernel: str | Callable[..., Any] = "linear",
        gamma: str | float = "scale",
        degree: int = 3,
        coef0: float = 1,
        kernel_params: dict[str, Any] | None = None,
        gram_limit_mb: float = DEFAULT_GRAM_LIMIT_MB,
    ) -> None:
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.gram_limit_mb = gram_limit_mb

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's transformer tags, ``pairwise`` for ``kernel="precomputed"``."""
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- helpers --------------------------------------------------------------
    def _check_params(self) -> None:
        check_positive(self.gram_limit_mb, "gram_limit_mb")
        if self.gamma is None:
            raise TypeError(
                "gamma must be 'scale', 'auto' or a positive float, got None "
                "(scikit-learn's gamma=None, 1 / n_features, is spelled gamma='auto')"
            )
        check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0, names=KERNEL_NAMES)
        if self.kernel_params is not None and not isinstance(self.kernel_params, dict):
            raise TypeError(
                f"kernel_params must be a dict or None, got {type(self.kernel_params).__name__}"
            )
        _check_n_components_type(self.n_components)

    def _uses_gamma(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel not in ("linear", "precomputed")

    def _psd_by_construction(self) -> bool:
        k = self.kernel
        if isinstance(k, str) and k in ("linear", "rbf", "laplacian"):
            return True
        return isinstance(k, str) and k in ("poly", "polynomial") and float(self.coef0) >= 0

    def _block(self, A: np.ndarray, B: np.ndarray | None, what: str,
               gamma: float | None) -> np.ndarray:
        return kernel_block(self.kernel, A, B, what, gamma=gamma, degree=self.degree,
                            coef0=self.coef0, kernel_params=self.kernel_params)

    def _training_gram(self, X: np.ndarray, dtype: Any, gamma: float | None) -> np.ndarray:
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "with kernel='precomputed', X must be the square (n_train, n_train) Gram "
                    f"matrix; got shape {X.shape}"
                )
            K = np.array(X, dtype=np.float64, order="C", copy=True)
            return symmetrized(K, "X (precomputed Gram matrix)", dtype)
        K = self._block(X, None, "training data", gamma)
        if callable(self.kernel):
            K = symmetrized(np.array(K, order="C"),
                            "the Gram matrix returned by the kernel callable", np.float64)
        return K

    # -- fit / transform ------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any = None) -> KernelPCA:
        """Compute the centred Gram matrix and its leading eigenpairs.

        A fit that raises leaves the estimator as it was (a fitted estimator keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training samples; for ``kernel="precomputed"`` the square training Gram matrix.
        y : None
            Ignored (scikit-learn's transformer signature).

        Returns
        -------
        KernelPCA
            ``self``.

        Raises
        ------
        ValueError
            See the class docstring.
        TypeError
            For parameters of the wrong type or non-numeric input.
        """
        self._check_params()
        Xa, _, dtype = fit_data(self, X, requires_y=False)
        n = Xa.shape[0]
        m = _check_n_components(self.n_components, n)
        need_mb = n * n * 8 / 2**20
        if need_mb > float(self.gram_limit_mb):
            raise ValueError(
                f"n_samples={n} needs a training Gram matrix of {need_mb:.0f} MiB, more than "
                f"gram_limit_mb={float(self.gram_limit_mb):g}; use fewer samples or raise "
                "gram_limit_mb"
            )
        gamma = resolve_gamma(self.gamma, Xa) if self._uses_gamma() else None
        K = self._training_gram(Xa, dtype, gamma)
        if not self._psd_by_construction():
            err = (named_entry_error(self.kernel, Xa, gamma, self.degree, self.coef0)
                   if isinstance(self.kernel, str) and self.kernel != "precomputed" else None)
            if self.kernel == "precomputed" and K.size:
                # entries given in a lower precision are rounded to it: that is their error
                input_eps = float(np.finfo(dtype).eps) * float(np.max(np.abs(K)))
                err = max(err or 0.0, input_eps)
            check_psd_gram(K, "the training Gram matrix", rtol=0.0, why=_WHY_PSD, entry_error=err)
        # kept for transform: the symmetrised float64 copy of a precomputed matrix
        fit_gram = K.copy() if self.kernel == "precomputed" else None
        Kc, col, total = _center_gram(K)  # in place: K is now the centred matrix
        del K
        if self.n_components is not None and n > 1 and SUBSET_FRACTION * n >= m:
            # a few components: only the top m eigenpairs (MRRR, as scikit-learn's dense
            # solver); the centred Gram matrix of a PSD kernel is PSD, so its largest
            # eigenvalue is also its largest in magnitude, up to rounding
            w_all, U_all = scipy.linalg.eigh(Kc, check_finite=False, overwrite_a=True,
                                             subset_by_index=[n - m, n - 1], driver="evr")
        else:
            # divide and conquer ("evd"), all eigenpairs at once: the fastest driver for them
            # and robust to clusters of tiny eigenvalues (scipy < 1.12 mis-sizes its
            # workspace for n = 1)
            w_all, U_all = scipy.linalg.eigh(Kc, check_finite=False, overwrite_a=True,
                                             driver="evd" if n > 1 else None)
        del Kc
        zero_tol = n * _EPS * float(np.max(np.abs(w_all)))
        if self.n_components is None:
            m = max(1, int(np.count_nonzero(w_all > zero_tol)))
        w, U = w_all[::-1][:m].copy(), np.ascontiguousarray(U_all[:, ::-1][:, :m])
        # the centred Gram matrix of a PSD kernel is PSD: what is within rounding of 0 is 0
        w = np.where(w > zero_tol, w, 0.0)
        # sign convention: the entry of largest absolute value of each column is positive
        rows = np.argmax(np.abs(U), axis=0)
        U *= np.sign(U[rows, np.arange(m)])[None, :]
        self.eigenvalues_ = w
        self.eigenvectors_ = U
        self.X_fit_ = fit_gram if self.kernel == "precomputed" else owned(Xa, X)
        self.gamma_ = float(gamma) if gamma is not None else float("nan")
        self._col_means = col
        self._total_mean = total
        self._n_features_out = m
        self._fit_settings = {name: copy.copy(getattr(self, name))
                              for name in ("kernel", "degree", "coef0", "kernel_params")}
        self._fit_gamma = gamma
        return self

    def _scaled_vectors(self) -> np.ndarray:
        w = self.eigenvalues_
        inv = np.zeros_like(w)
        inv[w > 0] = 1.0 / np.sqrt(w[w > 0])
        return self.eigenvectors_ * inv[None, :]

    def transform(self, X: Any) -> np.ndarray:
        """Principal components ``k_c(x, X_fit_) u_i / sqrt(w_i)`` of new samples.

        Parameters
        ----------
        X : array_like of shape (n, n_features)
            Samples; for ``kernel="precomputed"`` the ``(n, n_train)`` kernel values against
            the training samples.

        Returns
        -------
        numpy.ndarray of shape (n, n_components)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit` (a ``ValueError``).
        ValueError
            On NaN/inf, empty or 1-D input, or another number of features.
        TypeError
            On complex or non-numeric ``X``.
        """
        Xa, _ = predict_data(self, X, fitted="eigenvectors_")
        est = copy.copy(self)
        est.__dict__.update(self._fit_settings)
        if est.kernel == "precomputed":
            Kx = Xa
        else:
            Kx = est._block(Xa, self.X_fit_, "test data", self._fit_gamma)
        Kx = Kx - self._col_means[None, :] - Kx.mean(axis=1)[:, None] + self._total_mean
        return Kx @ self._scaled_vectors()

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> np.ndarray:
        """Fit and return the training components ``u_i sqrt(w_i)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training samples (the Gram matrix for ``"precomputed"``).
        y : None
            Ignored.
        **fit_params : dict
            Not used; accepted for scikit-learn's signature.

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_components)
        """
        self.fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)[None, :]
