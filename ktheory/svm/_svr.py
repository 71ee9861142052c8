"""Epsilon-support vector regression by the SMO solver of :class:`~ktheory.svm.SVC`.

The soft epsilon-insensitive primal (Chapter 9) is

.. math::

    \\min_{w, b, \\xi, \\xi^*}\\; \\tfrac12 \\|w\\|^2 + C \\sum_i (\\xi_i + \\xi_i^*)
    \\quad\\text{s.t.}\\quad z_i - f(x_i) \\le \\varepsilon + \\xi_i^*,\\;
    f(x_i) - z_i \\le \\varepsilon + \\xi_i,\\; \\xi, \\xi^* \\ge 0,

with ``f(x) = <w, phi(x)> + b`` and targets ``z``. Why its dual is a problem of
the same form as the classification dual: the Lagrangian's stationarity in
``w`` gives ``w = sum_i (alpha*_i - alpha_i) phi(x_i)``, in ``b`` gives
``sum_i (alpha*_i - alpha_i) = 0`` and in the slacks the boxes
``0 <= alpha_i, alpha*_i <= C``; substituting leaves

.. math::

    \\min\\; \\tfrac12 (\\alpha^* - \\alpha)^\\top K (\\alpha^* - \\alpha)
    + \\varepsilon\\, e^\\top(\\alpha^* + \\alpha) - z^\\top(\\alpha^* - \\alpha),

which is ``1/2 a^T Q a + p^T a`` over the ``2n`` variables ``a = (alpha*, alpha)``
with labels ``y2 = (+1, .., +1, -1, .., -1)`` (so ``Q_st = y2_s y2_t
K_{s mod n, t mod n}`` and ``sum_i (alpha*_i - alpha_i) = y2^T a = 0``),
linear term ``p = (eps - z, eps + z)`` and both boxes ``[0, C]``: libsvm's
``solve_epsilon_svr``. :func:`~ktheory.svm.smo_solve`'s iteration solves it
with the same working-set selection and clipping as the classifier, on the
``n x n`` matrix (variable ``s`` uses row ``s mod n``; no ``2n x 2n`` matrix),
and the intercept is libsvm's ``calculate_rho`` on the ``2n`` problem.

The regression function is ``f(x) = sum_i (alpha*_i - alpha_i) k(x_i, x) + b``
(``dual_coef_`` holds ``alpha* - alpha`` on the support vectors, the sign
scikit-learn reports). ``alpha*_i > 0`` only for points on or above the
upper edge of the tube (``z_i >= f(x_i) + eps``), ``alpha_i > 0`` only on or
below the lower edge; inside the tube both are 0.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable

import numpy as np

from sklearn.base import RegressorMixin

from .._base import atomic_fit
from .._validation import check_sample_weight, real_target, score_target
from ._core import DEFAULT_CACHE_MB, DEFAULT_GRAM_LIMIT_MB, check_max_iter
from ._kernel_svm import KernelSVMBase

__all__ = ["SVR"]

#: Problems with ``max(|z|, epsilon)`` above this (or below its inverse) are solved
#: rescaled (see :meth:`SVR.fit`).
_LARGE_TARGET = 1e100

#: ``tol`` is raised to ``TOL_FLOOR * max(max|z|, epsilon)`` where it is below that: a
#: violation of ``1e-3`` with targets near ``1e150`` is far below float64's resolution
#: (``eps * 1e150``), and SMO would never reach it.
TOL_FLOOR = 1e-12


class SVR(RegressorMixin, KernelSVMBase):
    """Epsilon-support vector regression trained by SMO, as libsvm.

    Mirrors ``sklearn.svm.SVR``: the same parameters (those listed here) with
    the same defaults, the same learned attributes and signs, and, because it
    runs the same algorithm (libsvm's ``solve_epsilon_svr`` on the SMO solver
    of :class:`SVC`, see the module docstring), the same solution to within
    the tolerance.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default "rbf"
        As in :class:`SVC`: a name (scikit-learn's parametrisation), a callable
        ``k(X, Y)`` returning the ``(len(X), len(Y))`` Gram block, or
        ``"precomputed"`` (``X`` is then the ``(n, n)`` training Gram matrix
        in :meth:`fit` and the ``(n_test, n_train)`` kernel values in
        :meth:`predict`). With a callable, ``X`` may be any sequence of samples
        (strings, graphs, ...), passed to it unchanged (see :class:`SVC`'s Notes).
    degree : int, default 3
        Degree of ``"poly"``.
    gamma : {"scale", "auto"} or float, default "scale"
        Kernel coefficient of ``"poly"``, ``"rbf"``, ``"sigmoid"``, as in
        :class:`SVC` (``"scale"`` is ``1 / (n_features * X.var())``).
    coef0 : float, default 0.0
        Constant of ``"poly"`` and ``"sigmoid"``.
    tol : float, default 1e-3
        Stopping tolerance on the maximal violation of the ``2n`` problem.
    C : float, default 1.0
        Box constraint ``0 <= alpha_i, alpha*_i <= C``; ``> 0``. ``C=float("inf")``
        (accepted by scikit-learn too) is the *hard tube*: no slack, every target within
        ``epsilon`` of ``f(x_i)``, and ``f`` the flattest such function. Where no
        function of the kernel's space (plus an intercept) fits every target to within
        ``epsilon``, that problem is infeasible (its dual unbounded) and :meth:`fit`
        raises a ``ValueError`` (scikit-learn's libsvm iterates until ``max_iter``);
        feasibility is decided by a linear program on the training Gram matrix
        (``gram_limit_mb`` then applies to every kernel).
    epsilon : float, default 0.1
        Half-width of the insensitive tube, ``>= 0``. An ``epsilon`` of at
        least half the range of the targets (minus ``tol / 2``) leaves every
        dual variable at 0: ``f`` is then the constant
        ``(max z + min z) / 2`` (libsvm's midpoint rule).
    shrinking : bool, default True
        libsvm's shrinking heuristic, as in :class:`SVC`.
    cache_size : float, default 200
        MiB of kernel rows to keep, as in :class:`SVC` (rows of the ``n``
        samples; the ``2n`` variables share them).
    verbose : bool, default False
        Report the progress of long fits, as in :class:`SVC`.
    max_iter : int, default -1
        Iteration limit, ``-1`` for none. A limit you set that is reached
        issues a :class:`ConvergenceWarning` and sets ``fit_status_ = 1``.
    gram_limit_mb : float, default 2048
        For a callable kernel, refuse a training Gram matrix larger than this
        many MiB, as in :class:`SVC`. (Not a parameter of scikit-learn's SVR.)
    solver : {"auto", "numpy", "compiled"}, default "auto"
        Which code runs SMO, as in :class:`SVC` (``"auto"``: numpy for at most 2048
        training samples or without numba, compiled otherwise, and compiled from the
        start once the process's ``"auto"`` fits have spent 20 000 numpy iterations or
        a compiled solve has run in it). (Not a parameter of scikit-learn's SVR.)

    Attributes
    ----------
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the support vectors (``alpha*_i - alpha_i != 0``), increasing.
    support_vectors_ : numpy.ndarray of shape (n_SV, n_features)
        The support vectors; an empty ``(0, 0)`` array for ``"precomputed"``.
    dual_coef_ : numpy.ndarray of shape (1, n_SV)
        ``alpha*_i - alpha_i`` on the support vectors (scikit-learn's sign).
    intercept_ : numpy.ndarray of shape (1,)
        ``b`` in ``f(x) = sum_i dual_coef_i k(sv_i, x) + b`` (libsvm's ``-rho``).
    alpha_ : numpy.ndarray of shape (n_samples,)
        ``alpha_i``, the multipliers of ``f(x_i) - z_i <= eps + xi_i`` (points
        on or below the tube's lower edge).
    alpha_star_ : numpy.ndarray of shape (n_samples,)
        ``alpha*_i``, the multipliers of ``z_i - f(x_i) <= eps + xi*_i``
        (points on or above the upper edge).
    n_support_ : numpy.ndarray of shape (1,)
        Number of support vectors (int32, as scikit-learn).
    n_iter_ : int
        Number of SMO iterations (an int, as scikit-learn's ``SVR.n_iter_``).
    fit_status_ : int
        0 if SMO reached ``tol``, 1 if it stopped at ``max_iter``.
    objective_ : float
        Final dual objective in libsvm's minimisation form
        ``1/2 b^T K b + eps sum(alpha + alpha*) - z^T b`` with ``b = alpha* - alpha``;
        minus the book's maximised dual ``W(alpha, alpha*)``.
    gap_ : float
        Final maximal violation (``< tol`` when ``fit_status_ == 0``).
    solver_stats_ : dict
        The solver's record (cache hits, misses, evictions, shrinking steps,
        history of the active set), as :attr:`SVC.solver_stats_`.
    coef_ : numpy.ndarray of shape (1, n_features)
        ``kernel="linear"`` only (a read-only property; ``AttributeError`` for any other
        kernel, as scikit-learn): ``w = sum_i dual_coef_i sv_i``, so that
        ``X @ coef_.T + intercept_`` is :meth:`predict`.
    shape_fit_ : tuple
        Shape of the training ``X`` (``(n_samples,)`` for a sequence of samples).
    n_features_in_ : int
        Number of features (columns) of the training ``X`` (not set for a sequence of
        samples).

    Notes
    -----
    Input as :class:`SVC`: dense arrays only, ``bool`` read as 0/1, ``float32``
    converted (a precomputed float32 Gram matrix is checked for symmetry to
    float32's rounding level), complex refused. The target must be a finite
    real 1-D vector (a column vector is flattened with a warning); a constant
    target is valid and its fit is that constant. Kernel rows are computed on
    demand and cached (``cache_size``); the ``2n`` dual reads rows of the
    ``n`` samples and never forms a ``2n x 2n`` (or ``n x n``) matrix.

    ``tol`` is absolute, in the units of the targets (as in libsvm), and raised to
    ``TOL_FLOOR * max(max|z|, epsilon)`` (``TOL_FLOOR = 1e-12``) where it is finer than
    float64 resolves (targets above ``1e9`` with the default ``tol``). A problem
    whose scale ``max(|z|, epsilon)`` lies beyond ``1e100`` or below ``1e-100``
    is solved divided by that scale (the dual is homogeneous in
    ``(z, epsilon, C, tol)``), so that the working-set selection neither
    overflows nor underflows; the result is that of the unscaled problem.
    Without support vectors the intercept is libsvm's midpoint, computed as
    ``(max z + min z) / 2`` (equal to libsvm's ``(max(z - eps) + min(z + eps)) / 2``
    in exact arithmetic, without its cancellation when ``eps`` is large).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> z = np.array([0.0, 1.1, 1.9, 3.0])
    >>> reg = SVR(kernel="linear", C=10.0, epsilon=0.1, tol=1e-8).fit(X, z)

    The flattest line whose 0.1-tube holds all four points, ``f(x) = 14x/15 + 0.1``:
    the first point lies on the lower edge, the last on the upper edge, and
    they are the support vectors.

    >>> np.round(reg.predict([[0.0], [3.0]]), 6).tolist()
    [0.1, 2.9]
    >>> reg.support_.tolist(), np.round(reg.dual_coef_, 6).tolist()
    ([0, 3], [[-0.311111, 0.311111]])
    """

    def __init__(
        self,
        *,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-3,
        C: float = 1.0,
        epsilon: float = 0.1,
        shrinking: bool = True,
        cache_size: float = DEFAULT_CACHE_MB,
        verbose: bool = False,
        max_iter: int = -1,
        gram_limit_mb: float = DEFAULT_GRAM_LIMIT_MB,
        solver: str = "auto",
    ) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.gram_limit_mb = gram_limit_mb
        self.solver = solver

    _hard_margin_and_sequences = True

    def _check_params(self) -> None:
        self._check_smo_params()
        eps = self.epsilon
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
            raise TypeError(f"epsilon must be a real number >= 0, got {type(eps).__name__} {eps!r}")
        if not (np.isfinite(float(eps)) and float(eps) >= 0.0):
            raise ValueError(f"epsilon must be a finite number >= 0, got {eps!r}")

    # -- fit / predict -------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "SVR":
        """Fit the regression function by SMO on the ``2n`` dual.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square
            ``(n_samples, n_samples)`` training Gram matrix.
        y : array_like of shape (n_samples,)
            Real targets (finite). A constant target is valid.
        sample_weight : array_like of shape (n_samples,) or float, optional
            Per-sample factors of ``C``, as libsvm: both multipliers of sample ``i`` get
            the box ``[0, C * sample_weight[i]]``. A sample of zero or negative weight is
            left out of the problem (scikit-learn's rule); ``support_``, ``alpha_`` and
            ``alpha_star_`` still index the samples as given.

        Returns
        -------
        SVR
            ``self``.

        Raises
        ------
        ValueError
            For NaN/inf in ``X``, ``y`` or ``sample_weight``, mismatched lengths, no
            sample of positive weight, a ``y`` that is not 1-D, a non-square or
            non-symmetric precomputed matrix, invalid parameters (``C <= 0``,
            ``epsilon < 0``, ...), a Gram matrix above ``gram_limit_mb``, or a Gram matrix
            that overflows.
        TypeError
            For a sparse precomputed matrix, complex, string or ``None`` input and
            parameters of the wrong type.
        """
        self._check_params()
        X, z = self._fit_input(X, y, y_numeric=True)
        z = real_target(z, estimator=type(self).__name__)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        Cb, keep = self._sample_bounds(sw)
        kept = np.arange(n) if keep is None else np.flatnonzero(keep)
        if kept.shape[0] == 0:
            raise ValueError("Invalid input - all samples have zero or negative weights; at "
                             "least one sample needs a positive sample_weight")

        # libsvm's 2n variables are (alpha*_0..alpha*_{n-1}, alpha_0..alpha_{n-1}) with
        # labels (+1.., -1..); here they go in reversed order (the samples reversed,
        # the -1 half first), so that numpy's first-index ties are libsvm's last-index ties.
        order = kept[::-1].copy()
        m = order.shape[0]
        self._set_kernel(X)
        eps = float(self.epsilon)
        zk = z[kept]
        # The dual is homogeneous: (z, eps, C, tol) -> (z, eps, C, tol) / t divides alpha and
        # b by t and the objective by t**2. Problems whose scale t = max(|z|, eps) is beyond
        # 1e+-100 are solved so scaled (the products b_it**2 of the working-set selection
        # would overflow or underflow); all others exactly as libsvm.
        t = max(float(np.max(np.abs(zk))), eps)
        if not (t > _LARGE_TARGET or 0.0 < t < 1.0 / _LARGE_TARGET):
            t = 1.0
        zr = z[order] / t
        y2 = np.concatenate([-np.ones(m), np.ones(m)])
        p = np.concatenate([eps / t + zr, eps / t - zr])
        # tol is absolute (libsvm), but no solver resolves a violation below the rounding of
        # targets of size max(|z|, eps): it is raised to TOL_FLOOR times that size
        scale = max(float(np.max(np.abs(zk))), eps)
        tol = max(float(self.tol), TOL_FLOOR * scale)
        res = self._dual(X, self._training_gram(X), np.concatenate([order, order]), y2, Cb / t,
                         tol / t, check_max_iter(self.max_iter), p=p)

        alpha = np.zeros(n)
        alpha_star = np.zeros(n)
        alpha[order] = res.alpha[:m] * t
        alpha_star[order] = res.alpha[m:] * t
        coef = alpha_star - alpha
        intercept = float(res.intercept) * t
        if not np.any(coef):
            # no support vector: libsvm's midpoint (max(z - eps) + min(z + eps)) / 2, written
            # without eps (equal in exact arithmetic; no cancellation when eps >> |z|)
            intercept = 0.5 * float(zk.max()) + 0.5 * float(zk.min())
        support = np.flatnonzero(coef != 0.0).astype(np.int32)

        self.alpha_ = alpha
        self.alpha_star_ = alpha_star
        self.support_ = support
        self.n_support_ = np.array([support.size], dtype=np.int32)
        self.dual_coef_ = coef[support].reshape(1, -1)
        self.intercept_ = np.array([intercept])
        self.n_iter_ = int(res.n_iter)
        self.fit_status_ = 0 if res.converged else 1
        self.objective_ = float(res.objective) * t * t
        self.gap_ = float(res.gap)
        self.solver_stats_ = res.stats
        self._set_support_vectors(X, support)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The regression function ``f(x) = sum_i dual_coef_i k(sv_i, x) + intercept``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test,)
            ``f(x)``; the constant intercept if there is no support vector.

        Raises
        ------
        NotFittedError
            If called before :meth:`fit`.
        ValueError
            For NaN/inf, a wrong number of columns, kernel values that overflow, or
            sparse input to a model fitted on dense data.
        TypeError
            For complex or non-numeric input.
        """
        X = self._test_input(X)
        coef = self.dual_coef_[0]
        if coef.size == 0:  # no support vector: f(x) = b
            out = np.zeros(X.shape[0])
        else:
            out = self._sv_kernel_map(X, lambda Kt: Kt @ coef, 0)
        out += self.intercept_[0]
        return out

    @property
    def coef_(self) -> np.ndarray:
        """Primal weights of the linear kernel, ``(1, n_features)``, read-only:
        ``w = sum_i dual_coef_i sv_i``, so ``X @ coef_.T + intercept_`` is :meth:`predict`.

        Raises
        ------
        AttributeError
            For a kernel other than ``"linear"`` (``"coef_ is only available when using a
            linear kernel"``, as scikit-learn), and (``NotFittedError``) before ``fit``.
        """
        self._check_linear_coef()
        return self._read_only(self.dual_coef_ @ self._support_dense())

    def score(self, X: Any, y: Any) -> float:
        """Coefficient of determination ``R^2 = 1 - SS_res / SS_tot`` of :meth:`predict`.

        As ``sklearn.metrics.r2_score``: a constant ``y`` gives 1.0 for a
        perfect prediction and 0.0 otherwise. (Written here rather than taken from
        ``RegressorMixin``: the sums of squares are formed on the residuals divided by
        their largest magnitude, so targets near ``1e200`` do not overflow.)

        Raises
        ------
        ValueError
            If ``y`` is not a finite real 1-D array with one target per row of
            ``X`` (a column vector is accepted), and as :meth:`predict`.
        TypeError
            For complex, string or sparse ``y``.
        """
        pred = self.predict(X)
        z = score_target(y, pred.shape[0], y_numeric=True)
        res, dev = z - pred, z - z.mean()
        s = max(float(np.max(np.abs(res))), float(np.max(np.abs(dev))))
        if s > 0.0:  # the ratio is scale free: squares of values near 1e200 would overflow
            res, dev = res / s, dev / s
        ss_res = float(np.sum(res * res))
        ss_tot = float(np.sum(dev * dev))
        if ss_tot == 0.0:
            return 1.0 if ss_res == 0.0 else 0.0
        return 1.0 - ss_res / ss_tot
