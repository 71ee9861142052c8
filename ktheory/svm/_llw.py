"""The Lee–Lin–Wahba multicategory support vector machine (Chapter 9).

The model (Lee, Lin and Wahba 2004)
-----------------------------------
With ``k`` classes, class ``j`` is coded by the vector ``Y^(j)`` with entry 1 at ``j``
and ``-1/(k-1)`` elsewhere (its entries sum to 0). The classifier is a vector of
functions ``f = (f_1, ..., f_k)``, ``f_j = h_j + b_j`` with ``h_j`` in the RKHS of the
kernel, constrained by ``sum_j f_j(x) = 0`` (imposed as ``sum_j h_j = 0`` and
``sum_j b_j = 0``), and predicts ``argmax_j f_j(x)``. With ``L`` the ``k x k`` cost
matrix (zero diagonal; by default 1 off the diagonal) and ``Y_ij`` the code of
sample ``i``, the paper minimises

.. math::

    \\frac1n \\sum_i \\sum_j L_{y_i j}\\,(f_j(x_i) - Y_{ij})_+
    + \\frac{\\lambda}{2} \\sum_j \\|h_j\\|^2 .

Only ``j != y_i`` contributes (``L_{y_i y_i} = 0``), where ``Y_ij = -1/(k-1)``.

Parametrisation by ``C``
------------------------
:class:`MulticlassSVC` takes scikit-learn's ``C`` and minimises

.. math::

    P(f) = C \\sum_i \\sum_j L_{y_i j}\\,(f_j(x_i) - Y_{ij})_+ + \\frac14 \\sum_j \\|h_j\\|^2,

which is ``n C`` times the paper's objective with ``lambda = 1 / (2 n C)``. The
factor 1/4 is chosen so that **two classes give the binary SVM with the same C**:
for ``k = 2``, ``f = (f_1, -f_1)``, the loss of a sample of class 1 is
``(1 - f_1(x))_+``, that of class 2 is ``(1 + f_1(x))_+``, and
``(1/4)(||h_1||^2 + ||h_2||^2) = (1/2)||h_1||^2``: ``P`` is the soft-margin primal
``(1/2)||w||^2 + C sum_i (1 - t_i f(x_i))_+`` with ``t_i = +1`` on ``classes_[0]``.
So ``decision_function(X)[:, 0]`` of ``MulticlassSVC(C=c)`` equals minus
``SVC(C=c).decision_function(X)`` (whose positive class is ``classes_[1]``).

The dual
--------
With multipliers ``alpha_ij >= 0`` of ``xi_ij >= f_j(x_i) - Y_ij`` (``j != y_i``),
stationarity in ``h_j`` under ``sum_j h_j = 0`` gives the representer form
``h_j = sum_i c_ij k(x_i, .)`` with

.. math::

    c_{ij} = -2\\,(\\alpha_{ij} - \\bar\\alpha_i), \\qquad
    \\bar\\alpha_i = \\frac1k \\sum_l \\alpha_{il}\\quad(\\textstyle\\sum_j c_{ij} = 0),

(``alpha_{i y_i} = 0``), stationarity in the slacks gives ``0 <= alpha_ij <= C L_{y_i j}``
and in ``b_j`` gives ``sum_i alpha_ij`` equal for every ``j`` (``k - 1`` equations).
The dual is the convex QP (for a positive semidefinite kernel)

.. math::

    \\min_\\alpha\\; D(\\alpha) = \\sum_j (\\alpha_{\\cdot j} - \\bar\\alpha)^\\top K
    (\\alpha_{\\cdot j} - \\bar\\alpha) + \\sum_{i,j} \\alpha_{ij} Y_{ij}
    = \\alpha^\\top \\big((I_k - \\tfrac1k 11^\\top) \\otimes K\\big)\\alpha
      - \\frac{1}{k-1}\\sum_{i,j} \\alpha_{ij}

in the ``m = sum_i #{j : L_{y_i j} > 0}`` variables (``n (k-1)`` for 0/1 costs), and
``P(f*) = -D(alpha*)`` (strong duality). For ``k = 2`` it is the binary dual with
``a_i = alpha_{i, other class}``.

Solver
------
A dense primal–dual interior-point method (Mehrotra's predictor–corrector) on the
box-constrained QP, solved in ``a = alpha / C``: each iteration is one Cholesky
factorisation of the ``m x m`` matrix ``C Q + D`` and two solves; it stops when
the relative primal and dual residuals and the relative duality gap are below
``tol`` (about 15–30 iterations, nearly independent of the data). It is accurate
(``tol = 1e-10`` is reachable) and robust to degenerate problems, at
``O(m^3)`` time and ``3 m^2 * 8`` bytes of memory per fit, which is fine up to
``m`` of a few thousand (``fit`` refuses problems above ``MAX_QP_MB``).

Given the unique ``h``, the intercepts minimise the (piecewise linear) loss over
``b`` with ``sum_j b_j = 0``: a small linear program solved by
``scipy.optimize.linprog`` (HiGHS). The ``b`` need not be unique (then one
vertex of the optimal set is returned); the objective is, and so are the
decision values wherever some ``alpha_ij`` is strictly between its bounds.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from .._base import KTheoryClassifierMixin, atomic_fit
from .._validation import ComplexDataError, check_positive, check_psd_gram, class_labels, symmetrized
from ._core import ConvergenceWarning, check_max_iter
from ._kernel_svm import KernelSVMBase
from ._llw_qp import b_from_multipliers, box_qp, equality_rows, intercepts, polish

__all__ = ["MulticlassSVC", "llw_population_minimizer", "MAX_QP_MB", "MAX_POPULATION_CLASSES", "PSD_RTOL"]

#: Largest dense QP :class:`MulticlassSVC` sets up, in MiB: the interior-point
#: method holds about three ``m x m`` float64 matrices, ``m`` the number of dual
#: variables (``n (k-1)`` for 0/1 costs); 2 GiB allows ``m`` up to about 9400.
MAX_QP_MB = 2048.0

#: Largest number of classes :func:`llw_population_minimizer` accepts.
MAX_POPULATION_CLASSES = 1000

#: Relative tolerance of the positive-semidefiniteness test of the Gram matrix:
#: its smallest eigenvalue must be ``>= -PSD_RTOL * max |eigenvalue|``, or within the
#: rounding a named kernel's evaluation explains (``ktheory._validation.psd_gram_tolerance``
#: with :func:`ktheory.kernels.gram_entry_error`), whichever is larger.
PSD_RTOL = 1e-6

#: Iteration cap used for ``max_iter=-1`` (the interior-point method needs
#: 15–40 iterations; reaching this many means a numerical failure).
_IPM_CAP = 500


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _check_costs(costs: Any, k: int, name: str = "costs") -> np.ndarray:
    """The ``k x k`` cost matrix (0/1 off the diagonal for ``None``), checked."""
    if costs is None:
        return np.ones((k, k)) - np.eye(k)
    if isinstance(costs, (str, bytes)):
        raise TypeError(f"{name} must be a (k, k) array of nonnegative numbers, got a string {costs!r}")
    if sparse.issparse(costs):
        raise TypeError(f"{name} must be a dense (k, k) array; got a sparse {type(costs).__name__}")
    try:
        arr = np.asarray(costs)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular (k, k) array (ragged rows?): {exc}") from None
    if arr.dtype.kind == "c":
        raise ComplexDataError(f"Complex data not supported: {name} has dtype {arr.dtype}; costs are real")
    if arr.dtype.kind in "USVmM" or (arr.dtype.kind == "O" and any(isinstance(v, (str, bytes))
                                                                  for v in arr.ravel().tolist())):
        raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype} (strings or dates)")
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers; got an array of dtype {arr.dtype}") from None
    arr = np.asarray(arr, dtype=np.float64)
    if arr.shape != (k, k):
        raise ValueError(f"{name} must be a (k, k) = ({k}, {k}) matrix for the {k} classes; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be nonnegative; its smallest entry is {arr.min():g}")
    if np.any(np.diagonal(arr) != 0):
        raise ValueError(f"{name} must have a zero diagonal (no cost for the true class); got {np.diagonal(arr)}")
    return arr


# ---------------------------------------------------------------------------
# the population minimiser (Bayes consistency)
# ---------------------------------------------------------------------------


def llw_population_minimizer(p: Any, costs: Any = None) -> np.ndarray:
    """Minimiser of the conditional expected LLW loss at a point with class probabilities ``p``.

    Solves the linear program

    .. math::

        \\min_{f \\in \\mathbb R^k,\\ \\sum_l f_l = 0}\\;
        \\sum_j p_j \\sum_{l} L_{jl}\\,(f_l - Y^{(j)}_l)_+
        = \\sum_l \\Big(\\sum_j p_j L_{jl}\\Big) \\big(f_l + \\tfrac{1}{k-1}\\big)_+

    (``Y^(j)`` the code of class ``j``; the second form holds because
    ``L_jj = 0``) by ``scipy.optimize.linprog`` (HiGHS). Lee, Lin and Wahba
    (2004, Lemma 1) show that for 0/1 costs and a unique most probable class
    ``j*`` the minimiser is the code ``Y^(j*)``: its argmax is the Bayes rule.

    Parameters
    ----------
    p : array_like of shape (k,)
        Class probabilities: ``2 <= k <= MAX_POPULATION_CLASSES`` finite
        nonnegative numbers summing to 1 (to ``1e-9``, or to ``4 k eps`` of a
        float32 input).
    costs : array_like of shape (k, k), optional
        Cost matrix ``L`` (nonnegative, zero diagonal); default 1 off the diagonal.

    Returns
    -------
    numpy.ndarray of shape (k,)
        A minimiser ``f`` (entries sum to 0). Where the minimiser is not unique
        (ties among the most probable classes) one vertex of the optimal set.

    Raises
    ------
    ValueError
        If ``p`` is not 1-D of length ``>= 2``, holds NaN/inf or negative
        numbers, or does not sum to 1; if ``costs`` is not a nonnegative
        ``(k, k)`` matrix with zero diagonal.
    TypeError
        For complex or non-numeric ``p`` or ``costs``.

    Examples
    --------
    >>> import numpy as np
    >>> f = llw_population_minimizer([0.5, 0.3, 0.15, 0.05])
    >>> np.round(f, 12).tolist()
    [1.0, -0.333333333333, -0.333333333333, -0.333333333333]
    """
    if p is None or isinstance(p, (str, bytes)):
        raise TypeError(f"p must be a 1-D array of class probabilities, got {p!r}")
    arr = np.asarray(p)
    if arr.dtype.kind == "c":
        raise ComplexDataError("Complex data not supported: p holds complex numbers; probabilities are real")
    if arr.dtype.kind in "USVmM" or (arr.dtype.kind == "O" and any(isinstance(v, (str, bytes))
                                                                  for v in arr.ravel().tolist())):
        raise TypeError(f"p must hold numbers; got an array of dtype {arr.dtype} (strings or dates)")
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"p must hold numbers; got an array of dtype {arr.dtype}") from None
    in_eps = float(np.finfo(arr.dtype).eps) if arr.dtype.kind == "f" else 0.0
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ValueError(f"p must be a 1-D array of k >= 2 class probabilities; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("p contains NaN or infinity")
    if np.any(arr < 0):
        raise ValueError(f"p must be nonnegative (probabilities); its smallest entry is {arr.min():g}")
    k = arr.shape[0]
    if abs(arr.sum() - 1.0) > max(1e-9, 4 * k * in_eps):
        raise ValueError(f"p must sum to 1 (class probabilities); its sum is {arr.sum():.12g}")
    if k > MAX_POPULATION_CLASSES:
        raise ValueError(
            f"p has k = {k} classes, more than MAX_POPULATION_CLASSES = {MAX_POPULATION_CLASSES} "
            "(a linear program in 2k variables)"
        )
    if costs is None:
        w = arr.sum() - arr  # p @ (1 - I): weight of (f_l + 1/(k-1))_+
    else:
        w = arr @ _check_costs(costs, k)
    wmax = float(np.max(w))
    if wmax > 0:
        w = w / wmax  # the same minimisers; keeps HiGHS in range for costs near 1e200
    # variables (f_1..f_k, s_1..s_k): min w.s, s_l >= f_l + 1/(k-1), s >= 0, sum f = 0
    c = np.concatenate([np.zeros(k), w])
    eye = sparse.identity(k, format="csr")
    A_ub = sparse.hstack([eye, -eye], format="csr")
    b_ub = np.full(k, -1.0 / (k - 1))
    A_eq = sparse.csr_matrix(np.concatenate([np.ones(k), np.zeros(k)])[None, :])
    bounds = [(None, None)] * k + [(0, None)] * k
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[0.0], bounds=bounds, method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:  # pragma: no cover - a bounded feasible LP
        raise RuntimeError(f"linprog failed on the population problem: {res.message}")
    f = res.x[:k]
    return f - f.mean()


# ---------------------------------------------------------------------------
# the estimator
# ---------------------------------------------------------------------------


class MulticlassSVC(KTheoryClassifierMixin, KernelSVMBase):
    """Lee–Lin–Wahba multicategory SVM: ``k`` decision functions that sum to zero.

    Minimises ``C sum_i sum_j L[y_i, j] (f_j(x_i) + 1/(k-1))_+ + (1/4) sum_j ||h_j||^2``
    over ``f_j = h_j + b_j`` with ``sum_j f_j = 0`` (see the module docstring of
    ``ktheory.svm._llw`` for the model and its dual). This is ``n C`` times the
    objective of Lee, Lin and Wahba (2004),
    ``(1/n) sum loss + (lambda/2) sum_j ||h_j||^2``, with

    ``lambda = 1 / (2 n C)``, i.e. ``C = 1 / (2 n lambda)``,

    and for two classes it is exactly the binary soft-margin SVM with the same
    ``C``: ``decision_function(X)[:, 1] == SVC(C=C).decision_function(X)``
    (and column 0 its negative), up to the solvers' tolerances and to the
    intercept when that is not unique.

    Parameters
    ----------
    C : float, default 1.0
        Weight of the loss (``> 0``); see the mapping to ``lambda`` above.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default "rbf"
        As :class:`ktheory.svm.SVC` (same formulas, same ``gamma="scale"``).
        The Gram matrix must be positive semidefinite (the dual is then a
        convex QP); an indefinite one (e.g. some sigmoid kernels) is refused.
    degree : int, default 3
        Degree of the polynomial kernel.
    gamma : {"scale", "auto"} or float, default "scale"
        Kernel coefficient of "rbf", "poly" and "sigmoid", as in :class:`SVC`.
    coef0 : float, default 0.0
        Constant term of "poly" and "sigmoid".
    tol : float, default 1e-8
        Stopping tolerance of the interior-point method: relative primal and
        dual residuals and relative duality gap all below ``tol``.
    max_iter : int, default -1
        Iteration limit of the interior-point method; ``-1`` means a cap of
        500 (it needs 15–40). Stopping at the limit issues a
        :class:`ktheory.svm.ConvergenceWarning`.
    costs : array_like of shape (k, k), optional
        Misclassification costs ``L[true, j]`` (nonnegative, zero diagonal), in
        the order of ``classes_``. Default: 1 off the diagonal.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (k,)
        The labels, sorted; column ``j`` of ``decision_function`` is ``classes_[j]``.
    alpha_ : numpy.ndarray of shape (n_samples, k)
        Dual variables ``alpha_ij`` (0 where ``j`` is the sample's class or its cost is 0).
    dual_coef_ : numpy.ndarray of shape (n_samples, k)
        Representer coefficients: ``h_j(x) = sum_i dual_coef_[i, j] k(x_i, x)``;
        each row sums to 0.
    intercept_ : numpy.ndarray of shape (k,)
        ``b``, summing to 0 (one optimal choice where it is not unique).
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the training points with a nonzero row of ``dual_coef_``.
    support_vectors_ : numpy.ndarray of shape (n_SV, n_features)
        Those points (an empty ``(0, 0)`` array for ``"precomputed"``).
    objective_ : float
        The optimal value of ``P``, computed as the dual value ``-D(alpha_)``
        (module docstring of ``ktheory.svm._llw``).
    primal_objective_ : float
        ``P(f)`` evaluated at the fitted ``f``; equals ``objective_`` to about
        ``tol`` relative, plus ``C`` times the rounding error of the hinge
        terms (which dominates for huge ``C``: a hard-margin fit has every
        margin zero only to rounding).
    duality_gap_ : float
        The certificate of the fit: ``(primal_objective_ - objective_) /
        max(|objective_|, 1)``, nonnegative by weak duality. Above ``max(100 tol,
        1e-6)`` the fit is not certified optimal and ``fit`` says so with a
        :class:`~ktheory.svm.ConvergenceWarning`.
    n_iter_ : int
        Interior-point iterations.
    n_features_in_ : int
        Number of features of the training ``X``.

    Notes
    -----
    ``predict`` is the argmax of ``decision_function``; ties go to the lowest
    column index (the first class in ``classes_``). Memory: ``fit`` holds about
    three ``m x m`` float64 matrices, ``m = n (k-1)`` for 0/1 costs; problems
    above ``MAX_QP_MB`` MiB are refused up front.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 1.], [3., 0.], [3., 1.], [0., 4.], [1., 4.]])
    >>> clf = MulticlassSVC(C=1.0, kernel="linear").fit(X, ["a", "a", "b", "b", "c", "c"])
    >>> clf.predict([[0.2, 0.3], [2.8, 0.5], [0.5, 3.5]]).tolist()
    ['a', 'b', 'c']
    >>> f = clf.decision_function([[1.0, 1.0]])
    >>> f.shape, bool(abs(f.sum()) < 1e-12)
    ((1, 3), True)
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        tol: float = 1e-8,
        max_iter: int = -1,
        costs: Any = None,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.costs = costs

    def _check_params(self) -> None:
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        self._check_kernel_params()

    # -- fit -----------------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> "MulticlassSVC":
        """Fit the multicategory SVM (interior-point dual, then the intercepts by LP).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square, symmetric,
            positive semidefinite ``(n_samples, n_samples)`` Gram matrix.
        y : array_like of shape (n_samples,)
            Class labels: at least two distinct values (numbers or strings;
            floats must be whole numbers).

        Returns
        -------
        MulticlassSVC
            ``self``.

        Raises
        ------
        ValueError
            For NaN/inf, mismatched lengths, one class only, continuous labels,
            a bad ``costs`` matrix, a non-square, non-symmetric or indefinite
            Gram matrix, parameters out of range, or a problem above
            ``MAX_QP_MB``.
        TypeError
            For sparse, complex, string or ``None`` input and parameters of the
            wrong type.
        """
        self._check_params()
        name = type(self).__name__
        X, y = self._fit_input(X, y)
        n = X.shape[0]
        classes, codes = class_labels(y, estimator=name)
        k = classes.shape[0]
        L = _check_costs(self.costs, k)
        W = L[codes]                      # (n, k): cost of each (sample, class) pair
        ii, jj = np.nonzero(W > 0)        # the dual variables, row-major
        m = ii.size
        need_mb = 3.0 * m * m * 8 / 2**20
        if need_mb > MAX_QP_MB:
            raise ValueError(
                f"the dual QP has m = {m} variables (n_samples * (k - 1) = {n} * {k - 1} for 0/1 costs) "
                f"and needs about {need_mb:.0f} MiB (3 m**2 * 8 bytes), more than MAX_QP_MB = "
                f"{MAX_QP_MB:g}; subsample the training data"
            )
        self._set_kernel(X)
        if self.kernel == "precomputed":
            K = X
        else:
            K = self._gram(X, None, "training data")
            if callable(self.kernel):
                symmetrized(K, "the Gram matrix returned by the kernel callable", np.float64)
        check_psd_gram(K, "the precomputed Gram matrix X" if self.kernel == "precomputed"
                       else f"the Gram matrix of the {self._kernel_name()} kernel", rtol=PSD_RTOL,
                       why="the LLW dual is a convex QP only for a PSD kernel",
                       entry_error=self._gram_entry_error(X))

        C = float(self.C)
        tol = float(self.tol)
        max_iter = check_max_iter(self.max_iter)
        max_iter = min(max_iter, _IPM_CAP)
        alpha = np.zeros((n, k))
        n_iter = 0
        b_eq = None
        polished = True
        if m:
            # solved in a = alpha / s with s = min(C, 100 / max diag K): the box [0, L]
            # for moderate C, and for large C alpha's natural scale (the solution stops
            # growing with C: a box of (C / s) L >> 1 is practically absent; s chosen
            # on 3750 random problems, C up to 1e12, none stalled); the QP is then
            # min 1/2 a^T Q a + c^T a, 0 <= a <= (C / s) L, with
            # Q_ts = 2 s K[i_t, i_s] (delta(j_t, j_s) - 1/k)
            kd = float(np.max(np.abs(np.diagonal(K))))
            s = C if not (kd > 0 and np.isfinite(100.0 / kd)) else min(C, 100.0 / kd)
            Q = K[np.ix_(ii, ii)]
            same = jj[:, None] == jj[None, :]
            Q *= np.where(same, 2.0 * s * (1.0 - 1.0 / k), -2.0 * s / k)
            del same
            c = np.full(m, -1.0 / (k - 1))
            u = (C / s) * W[ii, jj]
            A = equality_rows(jj, k)
            with np.errstate(over="ignore", under="ignore"):
                sol = box_qp(Q, c, A, u, tol, max_iter)
            n_iter = int(sol["n_iter"])
            if sol["broke"] or not np.all(np.isfinite(sol["x"])):
                raise ValueError(
                    f"{name}: the interior-point method broke down (non-finite iterates or an indefinite "
                    "Newton matrix); the "
                    "Gram matrix is probably badly scaled or indefinite beyond rounding. Rescale X "
                    "or the kernel, or change C"
                )
            if not sol["converged"]:
                warnings.warn(
                    f"{name}: the interior-point method stopped at max_iter={n_iter} before reaching "
                    f"tol={tol:g} (residuals: primal {sol['res_p']:.2g}, dual {sol['res_d']:.2g}, "
                    f"gap {sol['gap']:.2g})",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            a, y_eq, polished = polish(Q, c, A, u, sol, tol)
            alpha[ii, jj] = np.minimum(s * a, C * W[ii, jj])
            b_eq = b_from_multipliers(A.T @ y_eq, jj, k)
        coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
        support = np.flatnonzero(np.any(alpha != 0, axis=1))
        Hh = K[:, support] @ coef[support] if support.size else np.zeros((n, k))
        b, loss = intercepts(Hh, codes, L, b_eq)
        pen = float(np.einsum("ij,ij->", coef[support], Hh[support]))  # sum_j ||h_j||^2
        Yc = -1.0 / (k - 1)
        dual_min = 0.25 * pen + Yc * float(alpha.sum())

        self.classes_ = classes
        self.alpha_ = alpha
        self.dual_coef_ = coef
        self.intercept_ = b
        self.support_ = support.astype(np.int32)
        self.objective_ = -dual_min
        self.primal_objective_ = 0.25 * pen + C * loss
        self.duality_gap_ = (self.primal_objective_ - self.objective_) / max(abs(self.objective_), 1.0)
        self.n_iter_ = max(n_iter, 1)
        self._polished_ = polished
        if self.duality_gap_ > max(100.0 * tol, 1e-6):
            warnings.warn(
                f"{name}: the fit is not certified optimal: the primal objective "
                f"{self.primal_objective_:.6g} exceeds the dual {self.objective_:.6g} by "
                f"{self.duality_gap_:.2g} (relative), more than max(100 tol, 1e-6); the "
                "decision functions may be off by about that much",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_support_vectors(X, support)
        return self

    # -- prediction ----------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """The ``k`` decision values ``f_j(x) = sum_i dual_coef_[i, j] k(x_i, x) + intercept_[j]``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test, k)
            Column ``j`` belongs to ``classes_[j]``; each row sums to 0 (to rounding).

        Raises
        ------
        NotFittedError
            If called before :meth:`fit`.
        ValueError
            For NaN/inf, a wrong number of columns, or kernel values that overflow.
        TypeError
            For sparse, complex or non-numeric input.
        """
        X = self._test_input(X)
        sup = self.support_
        coef = self.dual_coef_[sup]
        k = self.classes_.shape[0]
        if sup.size:
            out = self._sv_kernel_map(X, lambda Kt: Kt @ coef, k)
        else:
            out = np.zeros((X.shape[0], k))
        out += self.intercept_[None, :]
        out -= out.mean(axis=1, keepdims=True)
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[argmax_j f_j(x)]``, ties to the lowest index."""
        F = self.decision_function(X)
        return self.classes_[np.argmax(F, axis=1)]
