"""Kernel ridge regression, the first instance of the representer theorem (Chapter 6).

The problem

.. math::

    \\min_{f \\in \\mathcal{H}_k} \\; \\sum_{i=1}^n (y_i - f(x_i))^2 + \\lambda \\|f\\|_{\\mathcal{H}_k}^2

has, by the representer theorem, the solution
:math:`f = \\sum_i \\alpha_i k(x_i, \\cdot)` with

.. math::

    (K + \\lambda I)\\, \\alpha = y, \\qquad K_{ij} = k(x_i, x_j).

The regularisation constant is called ``alpha`` here, as in scikit-learn's
``KernelRidge`` (the book writes :math:`\\lambda`): the loss is the *sum* (not
the mean) of squared residuals, so ``alpha`` is exactly scikit-learn's
``alpha`` and the dual coefficients are the same numbers.

:class:`KernelRidge` solves the system by a Cholesky factorisation (no
explicit inverse), offers the closed-form leave-one-out residuals
(:meth:`KernelRidge.loo_residuals`) and a regularisation path from one
eigendecomposition (:meth:`KernelRidge.path`, :func:`kernel_ridge_path`). It is a
scikit-learn regressor (``RegressorMixin``, ``validate_data``, ``check_is_fitted``).

The module stays one file because it holds one idea, the ridge system
``(K + alpha I) a = y``: its solution for one ``alpha`` (the estimator), for many (the
path) and its leave-one-out residuals share the PSD rule and the Gram-matrix set-up.
"""

from __future__ import annotations

import copy
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg as sla
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import KTheoryEstimator, atomic_fit
from ._kernel_setup import (
    check_kernel_params,
    kernel_block,
    named_entry_error,
    owned,
    real_matrix,
    resolve_gamma,
)
from ._validation import (
    check_array,
    check_positive,
    check_psd_gram,
    check_symmetric,
    fit_data,
    predict_data,
    psd_gram_tolerance,
    symmetrized,
)
from .kernels import gram_entry_error, make_kernel

__all__ = ["KernelRidge", "LeastSquaresWarning", "IllConditionedWarning", "RidgePath",
           "kernel_ridge_path", "FIT_ERROR_RTOL"]

#: Kernel names understood by :class:`KernelRidge` (scikit-learn's parametrisation).
KERNEL_NAMES: tuple[str, ...] = ("linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid")

#: Parameters that define the fitted function (recorded by :meth:`KernelRidge.fit`).
_FIT_SETTINGS: tuple[str, ...] = ("kernel", "gamma", "degree", "coef0", "kernel_params")

#: Default limit (MiB) on the size of a training Gram matrix.
DEFAULT_GRAM_LIMIT_MB = 2048.0


class LeastSquaresWarning(UserWarning):
    """Issued when the ridge system is solved by least squares (``alpha = 0``)."""


class IllConditionedWarning(sla.LinAlgWarning):
    """Issued when :class:`KernelRidge` cannot certify its fitted values to
    :data:`FIT_ERROR_RTOL` (``alpha`` tiny against ``K``: ``K + alpha I`` is nearly singular)."""


#: Relative accuracy to which :meth:`KernelRidge.fit` certifies the fitted values
#: ``K dual_coef_`` (see ``fit_error_bound_``); a larger bound draws an
#: :class:`IllConditionedWarning`. The same level as the SVMs' duality-gap certificate.
FIT_ERROR_RTOL = 1e-6


def _certificate(A: np.ndarray, factor: Any, Y: np.ndarray, coef: np.ndarray,
                 alpha: float) -> tuple[float, float, float]:
    """``(fit_error_bound, backward_error, condition_number)`` of a Cholesky solve
    ``A coef = Y`` with ``A = K + alpha I`` (``factor`` from ``cho_factor``).

    The residual ``R = Y - A coef`` bounds the error of the fitted values: the exact
    solution ``c`` has ``coef - c = -A^{-1} R``, so ``K (coef - c) = -K A^{-1} R`` and
    ``||K A^{-1}||_2 = max_i mu_i / (mu_i + alpha) < 1`` for a PSD ``K``:
    ``||K coef - K c|| <= ||R||``, returned relative to ``max(||K coef||, ||Y||)`` (the
    fitted values' scale, or the targets' when heavy regularisation shrinks the fitted
    values towards 0). ``R`` is itself computed in floating point; its
    rounding, ``sqrt(n) eps ||A||_F ||coef||_F`` by the statistical model of rounding
    errors, is added. ``backward_error`` is the normwise relative backward error
    ``||R||_F / (||A||_F ||coef||_F + ||Y||_F)``; ``condition_number`` LAPACK's estimate
    of ``kappa_1(A)`` (``?pocon``), which bounds the relative error of ``coef`` itself
    by about ``condition_number * backward_error``.
    """
    n = A.shape[0]
    eps = float(np.finfo(np.float64).eps)
    AC = A @ coef
    R = Y - AC
    fitted = AC - alpha * coef                          # K coef
    r, c_norm = float(np.linalg.norm(R)), float(np.linalg.norm(coef))
    a_fro = float(np.linalg.norm(A))
    rounding = np.sqrt(n) * eps * a_fro * c_norm
    y_norm = float(np.linalg.norm(Y))
    scale = max(float(np.linalg.norm(fitted)), y_norm)  # 0 only for y = 0, coef = 0
    bound = (r + rounding) / scale if scale > 0 else 0.0
    denom = a_fro * c_norm + y_norm
    backward = r / denom if denom > 0 else 0.0
    # ||A||_1 = the largest row sum of |A| (A is symmetric), in row blocks: no |A| copy
    a_one = max(float(np.abs(A[i:i + 1024]).sum(axis=1).max()) for i in range(0, n, 1024))
    rcond, info = sla.lapack.dpocon(factor[0], a_one, uplo="L" if factor[1] else "U")
    cond = 1.0 / rcond if info == 0 and rcond > 0 else np.inf
    return float(bound), float(backward), float(cond)


# --------------------------------------------------------------------------- input helpers
def _check_alphas(alphas: Any, name: str = "alphas") -> np.ndarray:
    a = check_array(alphas, name, ndim=1)
    if np.any(a <= 0):
        raise ValueError(f"{name} must all be > 0; got min {float(a.min())!r}")
    return a


def _targets(y: Any, n_samples: int) -> np.ndarray:
    """The targets of :class:`KernelRidge`, 1-D or one column per target.

    Not :func:`ktheory._validation.fit_data`'s ``y``: that is single-output (scikit-learn's
    ``validate_data`` with ``multi_output=False`` ravels a column and refuses more), and a
    ``(n, 1)`` target stays 2-D here, as in scikit-learn's ``KernelRidge``.
    """
    if y is None:
        raise ValueError("KernelRidge requires y to be passed, but the target y is None")
    ya = real_matrix(y, "y", ndim=(1, 2))
    if ya.shape[0] != n_samples:
        raise ValueError(
            f"X and y must have the same number of samples; got {n_samples} samples in X and "
            f"y.shape={ya.shape}"
        )
    return ya


def _check_gram_size(n: int, limit_mb: float, what: str = "training Gram matrix") -> None:
    need_mb = n * n * 8 / 2**20
    if need_mb > limit_mb:
        raise ValueError(
            f"n_samples={n} needs a {what} of {need_mb:.0f} MiB, more than "
            f"gram_limit_mb={limit_mb:g}; use fewer samples or raise gram_limit_mb"
        )


# --------------------------------------------------------------------------- the PSD rule
#: Relative size of a negative eigenvalue (times sqrt(n)) still taken for rounding.
PSD_RTOL = 1e-6


def _psd_tolerance(n: int, scale: float, K: np.ndarray | None = None,
                   entry_error: float | None = None, kmax: float | None = None) -> float:
    """Eigenvalues of a kernel matrix below ``-tol`` are not rounding.

    ``tol = PSD_RTOL * scale * sqrt(n)`` with ``scale`` the largest |eigenvalue|:
    generous enough for a Gram matrix computed in single precision (rounding of
    order 1e-7, also when it arrives as a list of Python floats), far below the
    negative eigenvalues of an indefinite "kernel" such as the sigmoid. Given the
    matrix ``K``, at least :func:`ktheory._validation.psd_gram_tolerance` (the
    eigensolver's rounding and the kernel's own evaluation error ``entry_error``,
    :func:`ktheory.kernels.gram_entry_error`), so that a positive semidefinite kernel
    is never refused because of its rounding, whatever the data. ``kmax`` (the largest
    ``|K_ij|``) stands in for ``K`` where the matrix itself is gone.
    """
    tol = PSD_RTOL * max(scale, 1e-300) * max(1, n) ** 0.5
    if kmax is None and K is not None and K.size:
        kmax = float(max(K.max(), -K.min()))
    if kmax is not None and n:
        tol = max(tol, psd_gram_tolerance(n, scale, kmax, entry_error))
    return tol


#: Why the kernel matrix must be PSD (the end of the message that refuses one).
_WHY_PSD = (
    "kernel ridge regression needs a PSD kernel matrix (a non-PSD 'kernel' has no RKHS), "
    "at every alpha"
)


def _not_psd_error(smallest: float, largest: float) -> ValueError:
    return ValueError(
        f"K is not positive semidefinite (smallest eigenvalue {smallest:.3g}, largest "
        f"{largest:.3g}); {_WHY_PSD}"
    )


def _check_psd(K: np.ndarray, entry_error: float | None = None) -> None:
    """Raise unless the symmetric ``K`` is positive semidefinite up to :func:`_psd_tolerance`.

    The rule of :func:`kernel_ridge_path` (a smallest eigenvalue below
    ``-_psd_tolerance(n, max|eigenvalue|, K, entry_error)`` is an error), checked by
    :func:`ktheory._validation.check_psd_gram` (a Cholesky factorisation first; the
    eigenvalues only when it fails).
    """
    n = K.shape[0]
    if n:
        check_psd_gram(K, "K", rtol=_psd_tolerance(n, 1.0), why=_WHY_PSD, entry_error=entry_error)


# --------------------------------------------------------------------------- the path
@dataclass(frozen=True)
class RidgePath:
    """Kernel ridge solutions for several values of ``alpha`` (see :func:`kernel_ridge_path`).

    Attributes
    ----------
    alphas : numpy.ndarray of shape (n_alphas,)
        The regularisation values, in the order given.
    dual_coef : numpy.ndarray of shape (n_alphas, n_samples) or (n_alphas, n_samples, n_targets)
        ``dual_coef[k]`` solves ``(K + alphas[k] I) a = y``.
    loo_residuals : numpy.ndarray, same shape as ``dual_coef``
        Leave-one-out residuals ``y_i - f^{(-i)}(x_i)`` for each ``alpha``.
    eigenvalues : numpy.ndarray of shape (n_samples,)
        Eigenvalues of ``K`` (ascending; rounding-level negatives clipped to 0).
    """

    alphas: np.ndarray
    dual_coef: np.ndarray
    loo_residuals: np.ndarray
    eigenvalues: np.ndarray

    def loo_mse(self) -> np.ndarray:
        """Mean squared leave-one-out residual for each ``alpha`` (averaged over targets)."""
        r = self.loo_residuals.reshape(self.loo_residuals.shape[0], -1)
        return np.mean(r**2, axis=1)


def kernel_ridge_path(K: Any, y: Any, alphas: Any) -> RidgePath:
    """Kernel ridge solutions for many ``alpha`` from one eigendecomposition of ``K``.

    With :math:`K = Q \\Lambda Q^\\top`,

    .. math::

        a(\\lambda) = Q (\\Lambda + \\lambda I)^{-1} Q^\\top y, \\qquad
        \\big[(K + \\lambda I)^{-1}\\big]_{ii} = \\sum_j \\frac{Q_{ij}^2}{\\lambda_j + \\lambda},

    so after the :math:`O(n^3)` decomposition each value of :math:`\\lambda`
    costs :math:`O(n^2)`; the leave-one-out residuals
    :math:`a_i / [(K + \\lambda I)^{-1}]_{ii}` come with it.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric positive semidefinite training Gram matrix.
    y : array_like of shape (n,) or (n, n_targets)
        Targets.
    alphas : array_like of shape (n_alphas,)
        Regularisation values, all ``> 0``.

    Returns
    -------
    RidgePath

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric or clearly not positive
        semidefinite (an eigenvalue below ``-1e-6 * max|eigenvalue| * sqrt(n)``;
        smaller negative eigenvalues are taken for rounding and clipped to 0),
        if lengths differ, if any ``alpha <= 0``, or on NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> p = kernel_ridge_path(K, [1.0, 0.0], [1.0, 2.0])
    >>> np.allclose(p.dual_coef[0], np.linalg.solve(K + np.eye(2), [1.0, 0.0]))
    True
    """
    Ka = real_matrix(K, "K")
    if Ka.shape[0] != Ka.shape[1]:
        raise ValueError(f"K must be a square matrix; got shape {Ka.shape}")
    check_symmetric(Ka, "K")
    ya = real_matrix(y, "y", ndim=(1, 2))
    if ya.shape[0] != Ka.shape[0]:
        raise ValueError(
            f"y must have one row per row of K; got K.shape={Ka.shape} and y.shape={ya.shape}"
        )
    lam = _check_alphas(alphas)
    return _path_from_gram(Ka, ya, lam)


def _path_from_gram(K: np.ndarray, y: np.ndarray, lam: np.ndarray,
                    entry_error: float | None = None, *, own: bool = False) -> RidgePath:
    """The path from the Gram matrix ``K``; ``own=True``: ``K`` is a private copy that the
    eigensolver may overwrite (no second n x n array)."""
    n = K.shape[0]
    kmax = float(max(K.max(), -K.min())) if K.size else 0.0  # before K may be overwritten
    # divide and conquer ("evd") is the fastest driver; scipy < 1.12 mis-sizes its workspace for n = 1
    evals, Q = sla.eigh(K, check_finite=False, driver="evd" if n > 1 else None,
                        overwrite_a=own)
    del K
    scale = float(np.max(np.abs(evals)))
    if evals[0] < -_psd_tolerance(n, scale, entry_error=entry_error, kmax=kmax):
        raise _not_psd_error(float(evals[0]), float(evals[-1]))
    evals = np.maximum(evals, 0.0)
    Y = y.reshape(y.shape[0], -1)
    t = Y.shape[1]
    QtY = Q.T @ Y                                      # (n, t)
    inv = 1.0 / (evals[None, :] + lam[:, None])        # (n_alphas, n)
    # dual coefficients Q diag(inv_k) Q^T y for every k at once: one GEMM with the columns
    # inv_k * (Q^T y)_t, ordered (k, t)
    W = (inv[:, :, None] * QtY[None, :, :]).transpose(1, 0, 2).reshape(n, -1)
    coef = (Q @ W).reshape(n, lam.size, t).transpose(1, 0, 2)  # (n_alphas, n, t)
    np.square(Q, out=Q)                                # Q is not needed any more
    diag = Q @ inv.T                                   # (n, n_alphas): diag of (K + lam I)^{-1}
    loo = coef / diag.T[:, :, None]
    if y.ndim == 1:
        coef, loo = coef[:, :, 0], loo[:, :, 0]
    return RidgePath(alphas=lam.copy(), dual_coef=coef, loo_residuals=loo, eigenvalues=evals)


# --------------------------------------------------------------------------- the estimator
class KernelRidge(RegressorMixin, KTheoryEstimator):
    """Kernel ridge regression: ``(K + alpha I) dual_coef = y``, solved by Cholesky.

    Mirrors ``sklearn.kernel_ridge.KernelRidge`` (same parameters, defaults,
    learned attributes and, to rounding, the same predictions for positive
    semidefinite kernels), with a few additions: :meth:`loo_residuals`,
    :meth:`path` and a size guard. Deliberate differences: a non-PSD kernel
    matrix is refused (see Raises), ``alpha = 0`` always means least squares,
    and predictions use the settings of the last fit (see Notes).

    Parameters
    ----------
    alpha : float, default 1.0
        Regularisation constant ``>= 0`` (scikit-learn's ``alpha``, the book's
        :math:`\\lambda`; the loss is the sum of squared residuals). ``alpha = 0``
        always gives the minimum-norm least-squares fit, with a
        :class:`LeastSquaresWarning`. (This is not scikit-learn's behaviour:
        scikit-learn tries Cholesky at ``alpha = 0`` too, and warns and falls
        back to least squares only when it fails, i.e. for a singular ``K``;
        for a positive definite ``K`` both give the interpolant. scikit-learn
        also accepts one alpha per target; this class takes a single number.)
    kernel : {"linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid", "precomputed"} \
            or callable, default "linear"
        A name (scikit-learn's parametrisation, evaluated with the kernel
        functions of :mod:`ktheory.kernels`), a callable ``k(X, Y, **kernel_params)``
        returning the ``(len(X), len(Y))`` Gram block of two *sample matrices*
        (scikit-learn calls a callable on pairs of single samples instead), or
        ``"precomputed"``: then ``X`` in :meth:`fit` is the ``(n, n)`` training
        Gram matrix and in :meth:`predict` the ``(n_test, n_train)`` matrix of
        kernel values against the training points.
    gamma : {"scale", "auto"} or float, optional
        Coefficient of ``"poly"``, ``"rbf"``, ``"laplacian"``, ``"sigmoid"``: a number
        ``> 0``, or the package's names as in :class:`ktheory.svm.SVC`: ``"scale"``,
        ``1 / (n_features * X.var())`` of the training ``X``, which follows the units
        of the data, and ``"auto"``, ``1 / n_features``. The default ``None`` is
        ``"auto"``, scikit-learn's ``KernelRidge`` default, kept so that the two give the
        same fit with the same arguments.
    degree : int, default 3
        Degree of ``"poly"`` (``>= 1``).
    coef0 : float, default 1
        Constant of ``"poly"`` and ``"sigmoid"``.
    kernel_params : dict, optional
        Extra keyword arguments for a callable kernel.
    gram_limit_mb : float, default 2048
        Refuse (``ValueError``) to build a training Gram matrix larger than
        this many MiB (``n**2 * 8`` bytes: 5000 samples need 191 MiB).

    Attributes
    ----------
    dual_coef_ : numpy.ndarray of shape (n_samples,) or (n_samples, n_targets)
        The representer coefficients: ``f(x) = sum_i dual_coef_[i] k(X_fit_[i], x)``.
    X_fit_ : numpy.ndarray of shape (n_samples, n_features)
        Training inputs, a copy the estimator owns (the symmetric training Gram matrix for
        ``"precomputed"``).
    gamma_ : float
        The number ``gamma`` stood for in the last fit (``gamma`` resolved; NaN for
        ``"linear"``, a callable or ``"precomputed"``).
    fit_error_bound_ : float
        The certificate of the fit: a bound on the error ``||K dual_coef_ - K a*||`` of
        the fitted values (``a*`` the exact solution), relative to
        ``max(||K dual_coef_||, ||y||)``, from the residual of the solve (``K (K + alpha I)^{-1}`` has norm below
        1, so the residual bounds the fitted values' error; its own rounding is added by the
        statistical model, ``sqrt(n) eps``). Above :data:`FIT_ERROR_RTOL` fit issues an
        :class:`IllConditionedWarning`. NaN on the least-squares routes (``alpha = 0``, or
        ``K + alpha I`` numerically singular), which draw a :class:`LeastSquaresWarning`.
    backward_error_ : float
        Normwise relative backward error of the solve,
        ``||R||_F / (||K + alpha I||_F ||dual_coef_||_F + ||y||_F)`` with
        ``R = y - (K + alpha I) dual_coef_`` (NaN on the least-squares routes).
    condition_number_ : float
        LAPACK's estimate of the 1-norm condition number of ``K + alpha I`` (``inf`` on the
        least-squares routes): ``dual_coef_`` itself is accurate to about
        ``condition_number_ * backward_error_`` (relative), the fitted values to
        ``fit_error_bound_``.
    n_features_in_ : int
        Number of columns of the training ``X``.

    Raises
    ------
    ValueError
        In :meth:`fit`: ``alpha < 0``, mismatched lengths, NaN/inf, complex or
        1-D ``X``, an unknown kernel name, a precomputed Gram matrix that is not
        square or not symmetric, and a training kernel matrix ``K`` that is not
        positive semidefinite: smallest eigenvalue below
        ``-1e-6 * max|eigenvalue| * sqrt(n)`` (generous enough for a Gram matrix
        computed in single precision), the rule of :func:`kernel_ridge_path`
        and :meth:`path`, at *every* ``alpha`` (also when
        ``K + alpha I`` happens to be positive definite, and at ``alpha = 0``).
        A non-PSD "kernel" has no RKHS, and the ridge objective in the dual
        coefficients has no minimiser (along an eigenvector with eigenvalue
        :math:`\\mu \\in (-\\alpha, 0)` it is unbounded below); scikit-learn solves
        the stationarity equations anyway. The check is made for
        ``"precomputed"``, callables, ``"sigmoid"`` (whose Gram matrices are
        almost never PSD, so that this name is in effect refused) and
        ``"poly"`` with ``coef0 < 0``; it costs one more Cholesky
        factorisation (an eigendecomposition only when that fails). ``"linear"``,
        ``"rbf"``, ``"laplacian"`` and ``"poly"`` with ``coef0 >= 0`` are PSD
        by construction and are not checked.

    Notes
    -----
    :meth:`predict` and :meth:`loo_residuals` use the kernel settings (and
    ``alpha``) of the last :meth:`fit`: changing them with :meth:`set_params`
    takes effect at the next fit. (scikit-learn's ``predict`` uses the current
    kernel settings with the old ``dual_coef_``.)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> y = np.array([0.0, 1.0, 4.0])
    >>> krr = KernelRidge(alpha=0.1, kernel="rbf", gamma=0.5).fit(X, y)
    >>> np.round(krr.predict([[1.5]]), 6)
    array([2.557094])
    >>> np.round(krr.loo_residuals(), 6)
    array([ 0.345489, -0.963939,  3.305208])
    """

    def __init__(
        self,
        alpha: float = 1.0,
        *,
        kernel: str | Callable[..., Any] = "linear",
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 1,
        kernel_params: dict[str, Any] | None = None,
        gram_limit_mb: float = DEFAULT_GRAM_LIMIT_MB,
    ) -> None:
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.gram_limit_mb = gram_limit_mb

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's regressor tags, with several targets and ``pairwise`` for
        ``kernel="precomputed"`` (``X`` is then a kernel matrix)."""
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- helpers --------------------------------------------------------------
    def _check_params(self) -> float:
        a = self.alpha
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Real):
            raise TypeError(
                f"alpha must be a real number >= 0, got {type(a).__name__} {a!r} "
                "(one alpha per target is not supported)"
            )
        alpha = check_positive(a, "alpha", allow_zero=True)
        check_positive(self.gram_limit_mb, "gram_limit_mb")
        check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0, names=KERNEL_NAMES)
        if self.kernel_params is not None and not isinstance(self.kernel_params, dict):
            raise TypeError(f"kernel_params must be a dict or None, got {type(self.kernel_params).__name__}")
        return alpha

    def _kernel(self, A: np.ndarray, B: np.ndarray | None, what: str) -> np.ndarray:
        """Gram block ``k(A, B)`` (``B=None``: ``k(A, A)``) with this estimator's settings."""
        return kernel_block(self.kernel, A, B, what, gamma=self.gamma, degree=self.degree,
                            coef0=self.coef0, kernel_params=self.kernel_params)

    def _resolved_gamma(self, X: np.ndarray) -> float:
        """``gamma`` as a number for the training samples ``X`` (None is ``"auto"``)."""
        return resolve_gamma("auto" if self.gamma is None else self.gamma, X)

    def _entry_error(self, X: np.ndarray) -> float | None:
        """The evaluation error of the entries of a named kernel's Gram matrix on ``X``
        (:func:`ktheory.kernels.gram_entry_error`); None for a callable or precomputed one."""
        k = self.kernel
        if not isinstance(k, str) or k == "precomputed":
            return None
        return named_entry_error(k, X, self._resolved_gamma(X), self.degree, self.coef0)

    def _training_gram(self, X: np.ndarray, dtype: Any = None) -> np.ndarray:
        """A private, writable copy of the training Gram matrix. A precomputed one is checked
        for symmetry at the rounding level of ``dtype``, the input's floating type (and
        replaced by its symmetric part when that is float32: ``symmetrized``)."""
        if self.kernel == "precomputed":
            K = np.array(X, dtype=np.float64, order="C", copy=True)
            return symmetrized(K, "X (precomputed Gram matrix)", dtype)
        K = self._kernel(X, None, "training data")
        if callable(self.kernel):
            check_symmetric(K, "the Gram matrix returned by the kernel callable")
            K = np.array(K, order="C")  # never overwrite what the callable returned
        return K

    def _check_Xy(self, X: Any, y: Any, *, into: KernelRidge) -> tuple[np.ndarray, np.ndarray, np.dtype]:
        """``(X, y, dtype)`` for a fit: ``X`` by :func:`~ktheory._validation.fit_data` (which sets
        ``n_features_in_`` on ``into``), ``y`` by :func:`_targets` (one or several targets)."""
        Xa, _, dtype = fit_data(into, X, requires_y=False)
        ya = _targets(y, Xa.shape[0])
        if self.kernel == "precomputed" and Xa.shape[0] != Xa.shape[1]:
            raise ValueError(
                "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                f"got shape {Xa.shape}"
            )
        return Xa, ya, dtype

    # -- fit / predict -------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> KernelRidge:
        """Fit the model: Cholesky-solve ``(K + alpha I) dual_coef_ = y``.

        A fit that raises leaves the estimator as it was (a fitted estimator keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square training
            Gram matrix.
        y : array_like of shape (n_samples,) or (n_samples, n_targets)
            Targets.

        Returns
        -------
        KernelRidge
            ``self``.

        Raises
        ------
        ValueError
            See the class docstring.
        TypeError
            For parameters of the wrong type or non-numeric input.
        """
        alpha = self._check_params()
        Xa, ya, dtype = self._check_Xy(X, y, into=self)
        n = Xa.shape[0]
        certificate = (np.nan, np.nan, np.inf)  # the least-squares routes are not certified
        _check_gram_size(n, float(self.gram_limit_mb))
        est = self._with_gamma(Xa)
        K = est._training_gram(Xa, dtype)
        err = est._entry_error(Xa)
        if not self._psd_by_construction():
            _check_psd(K, err)
        if self.kernel == "precomputed":
            X_fit = K.copy()  # the (symmetrized) Gram matrix that loo_residuals starts from
        else:
            X_fit = owned(Xa, X)
        Y = ya.reshape(n, -1)
        if alpha == 0.0:
            warnings.warn(
                "alpha=0: kernel ridge regression reduces to least squares; "
                "using the minimum-norm least-squares solution",
                LeastSquaresWarning,
                stacklevel=3,
            )
            coef = sla.lstsq(K, Y, check_finite=False)[0]
        else:
            K.flat[:: n + 1] += alpha
            try:
                # K stays intact (the factor is a copy): the certificate needs K + alpha I
                factor = sla.cho_factor(K, lower=True, overwrite_a=False, check_finite=False)
            except np.linalg.LinAlgError:
                K.flat[:: n + 1] -= alpha
                coef = self._not_pd(K, Y, alpha, err)
            else:
                coef = sla.cho_solve(factor, Y, overwrite_b=False, check_finite=False)
                certificate = _certificate(K, factor, Y, coef, alpha)
        self.X_fit_ = X_fit
        self.dual_coef_ = coef.ravel() if ya.ndim == 1 else coef
        self.fit_error_bound_, self.backward_error_, self.condition_number_ = certificate
        if certificate[0] > FIT_ERROR_RTOL:
            warnings.warn(
                f"KernelRidge: the fitted values are certified only to {certificate[0]:.2g} "
                f"(relative; FIT_ERROR_RTOL = {FIT_ERROR_RTOL:g}): K + alpha*I has condition "
                f"number about {certificate[2]:.2g} (alpha={alpha:g} is tiny against K); "
                "increase alpha",
                IllConditionedWarning,
                stacklevel=3,
            )
        # the settings dual_coef_ belongs to: predict and loo_residuals use these, not
        # parameters changed by set_params after the fit
        self._fit_settings = {name: copy.copy(getattr(est, name)) for name in _FIT_SETTINGS}
        self._fit_settings["alpha"] = alpha
        self.gamma_ = float(est.gamma) if est.gamma is not None else float("nan")
        return self

    def _uses_gamma(self) -> bool:
        return isinstance(self.kernel, str) and self.kernel not in ("linear", "precomputed")

    def _with_gamma(self, X: np.ndarray) -> KernelRidge:
        """A shallow copy whose ``gamma`` is the number it stands for on the training
        samples ``X`` (``None`` where no named kernel uses it)."""
        est = copy.copy(self)
        est.gamma = self._resolved_gamma(X) if self._uses_gamma() else None
        return est

    def _psd_by_construction(self) -> bool:
        """True for the named kernels whose Gram matrices are PSD for every input."""
        k = self.kernel
        if isinstance(k, str) and k in ("linear", "rbf", "laplacian"):
            return True
        return isinstance(k, str) and k in ("poly", "polynomial") and float(self.coef0) >= 0

    def _as_fitted(self) -> KernelRidge:
        """A shallow copy carrying the kernel settings of the last :meth:`fit`."""
        check_is_fitted(self, "dual_coef_")
        est = copy.copy(self)
        est.__dict__.update(getattr(self, "_fit_settings", {}))
        return est

    @staticmethod
    def _not_pd(K: np.ndarray, Y: np.ndarray, alpha: float,
                entry_error: float | None = None) -> np.ndarray:
        """``K + alpha I`` failed Cholesky: a non-PSD ``K`` is an error, rounding is not
        (:func:`_psd_tolerance`, with the kernel's evaluation error ``entry_error``)."""
        evals = sla.eigvalsh(K, check_finite=False)
        if evals[0] < -_psd_tolerance(K.shape[0], float(np.max(np.abs(evals))), K, entry_error):
            raise ValueError(
                f"K + alpha*I is not positive definite: the kernel matrix is not positive semidefinite "
                f"(smallest eigenvalue {evals[0]:.3g}, alpha={alpha:g}); use a positive definite kernel"
            )
        warnings.warn(
            "K + alpha*I is numerically singular (alpha is tiny compared with K); "
            "using the minimum-norm least-squares solution",
            LeastSquaresWarning,
            stacklevel=4,
        )
        A = K.copy()
        A.flat[:: K.shape[0] + 1] += alpha
        return sla.lstsq(A, Y, check_finite=False)[0]

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``f(x) = sum_i dual_coef_[i] k(X_fit_[i], x)``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values against the training points.

        Returns
        -------
        numpy.ndarray of shape (n_test,) or (n_test, n_targets)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ValueError
            On NaN/inf, a wrong number of features, or 1-D input.
        """
        Xa, _ = predict_data(self, X, fitted="dual_coef_")
        est = self._as_fitted()
        Kt = Xa if est.kernel == "precomputed" else est._kernel(Xa, self.X_fit_, "test data")
        return Kt @ self.dual_coef_

    def score(self, X: Any, y: Any) -> float:
        """Coefficient of determination :math:`R^2` of :meth:`predict` (averaged uniformly over targets).

        Not ``RegressorMixin.score``: the targets are rescaled before they are squared, so
        that targets near ``1e200`` give their :math:`R^2` where scikit-learn's ``r2_score``
        overflows; the value is the same otherwise (no ``sample_weight``).

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
        y : array_like of shape (n_test,) or (n_test, n_targets)

        Returns
        -------
        float
        """
        pred = self.predict(X)
        if y is None:
            raise ValueError("score needs the true targets y, got None")
        ya = real_matrix(y, "y", ndim=(1, 2))
        if ya.shape != pred.shape:
            # one target may come as (n,) or (n, 1); anything else is another layout (a
            # transposed or flattened multi-target y would be scored against the wrong columns)
            one_target = ya.shape[0] == pred.shape[0] and ya.size == pred.size == pred.shape[0]
            if not one_target:
                raise ValueError(
                    f"y must have shape {pred.shape}, one row per sample of X and one column per "
                    f"target as in fit; got shape {ya.shape}"
                )
            ya = ya.reshape(pred.shape)
        Y = ya.reshape(ya.shape[0], -1)
        P = pred.reshape(pred.shape[0], -1)
        # R^2 is scale-invariant: rescale each target so that squaring cannot overflow
        scale = np.maximum(np.max(np.abs(Y), axis=0), np.max(np.abs(P), axis=0))
        scale = np.where(scale > 0, scale, 1.0)
        Y, P = Y / scale, P / scale
        ss_res = ((Y - P) ** 2).sum(axis=0)
        ss_tot = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(ss_tot > 0, 1.0 - ss_res / np.where(ss_tot > 0, ss_tot, 1.0),
                          np.where(ss_res == 0, 1.0, 0.0))
        return float(np.mean(r2))

    # -- closed-form leave-one-out and the path -------------------------------
    def loo_residuals(self) -> np.ndarray:
        """Leave-one-out residuals ``y_i - f^{(-i)}(x_i)`` in closed form.

        Uses ``alpha`` and the kernel settings of the last :meth:`fit` (the ones
        ``dual_coef_`` belongs to), not parameters changed since by
        :meth:`set_params`; refit to get the residuals for new settings.

        With :math:`G = (K + \\alpha I)^{-1}` and :math:`a = G y` (``dual_coef_``),
        the model refitted without sample ``i`` predicts
        :math:`y_i - a_i / G_{ii}` at :math:`x_i`. Computed on demand from
        ``X_fit_`` (one more Gram matrix and Cholesky factorisation, plus a
        triangular inverse for the diagonal of :math:`G`), so :meth:`fit`
        pays nothing for it.

        Returns
        -------
        numpy.ndarray of shape (n_samples,) or (n_samples, n_targets)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ValueError
            If ``alpha = 0`` (the interpolant's leave-one-out residuals are not
            given by this formula; ``1 - H_ii`` vanishes).
        """
        est = self._as_fitted()
        alpha = float(est.alpha)
        if alpha == 0.0:
            raise ValueError(
                "loo_residuals needs alpha > 0: with alpha = 0 the hat matrix has ones on its diagonal"
            )
        K = est._training_gram(self.X_fit_)
        n = K.shape[0]
        K.flat[:: n + 1] += alpha
        try:
            L = sla.cholesky(K, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise ValueError("K + alpha*I is not positive definite; the closed-form LOO needs it") from None
        Linv = sla.solve_triangular(L, np.eye(n), lower=True, check_finite=False, overwrite_b=True)
        diag = np.einsum("ij,ij->j", Linv, Linv)     # G_ii = ||L^{-1} e_i||^2
        a = self.dual_coef_
        return a / diag if a.ndim == 1 else a / diag[:, None]

    def path(self, X: Any, y: Any, alphas: Any) -> RidgePath:
        """Solutions for every value in ``alphas`` from one eigendecomposition.

        Uses this estimator's kernel settings (``alpha`` itself is ignored) and
        returns a :class:`RidgePath`; the estimator is not modified. See
        :func:`kernel_ridge_path`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs (the Gram matrix for ``"precomputed"``).
        y : array_like of shape (n_samples,) or (n_samples, n_targets)
        alphas : array_like of shape (n_alphas,)
            Values ``> 0``.

        Returns
        -------
        RidgePath
        """
        self._check_params()
        # validated as by fit, on a copy: the estimator is not modified (no n_features_in_)
        Xa, ya, dtype = self._check_Xy(X, y, into=copy.copy(self))
        lam = _check_alphas(alphas)
        _check_gram_size(Xa.shape[0], float(self.gram_limit_mb))
        est = self._with_gamma(Xa)
        return _path_from_gram(est._training_gram(Xa, dtype), ya, lam, est._entry_error(Xa),
                               own=True)
