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
A decomposition (working-set) method, :mod:`ktheory.svm._llw_decomp` (its docstring
gives the design): working sets of a few samples with all their dual variables,
chosen by maximal KKT violation and solved exactly by a small dense active-set
method; kernel rows on demand, cached (``CACHE_MB``). Memory: ``O(n k)`` plus the
cache (no ``n x n`` Gram matrix for kernels PSD by construction, no matrix in the
``n (k-1)`` dual variables). It stops when the KKT conditions hold to ``tol`` in
decision-value units (the margins ``f_j(x_i) - Y_ij``, as libsvm's ``tol``: unchanged
by rescaling the kernel or ``C``), or at the rounding level of ``h`` if larger. The
dense interior-point method used before (``O(m^3)``; it broke down for a linear
kernel at large ``C``) stays in :mod:`ktheory.svm._llw_qp` as the tests' oracle.

The fit is **certified**: ``primal_objective_`` (``h`` summed in extended precision
where float64 would not do, the exact best intercepts for it, the hinge loss) against
the dual value ``objective_``. A relative gap above ``tol`` sends the solver on with a
tolerance 100 times tighter (down to ``1e-12``); a gap still above ``max(100 tol,
1e-6)`` is a :class:`ConvergenceWarning`. (For a hard margin at huge ``C`` the primal
value is ``C`` times the rounding of the margins: the gap certifies little there.)
The intercepts minimise the piecewise-linear loss over ``b`` with ``sum_j b_j = 0``,
exactly (:func:`ktheory.svm._llw_qp.intercepts`); ``b`` need not be unique (one point
of the optimal set is returned), the objective is.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from .._base import KTheoryClassifierMixin, atomic_fit
from .._validation import (ComplexDataError, check_positive, check_psd_gram, class_labels,
                           symmetrized)
from ._core import DEFAULT_CACHE_MB, DEFAULT_GRAM_LIMIT_MB, ConvergenceWarning, check_max_iter
from ._kernel_svm import KernelSVMBase
from ._llw_decomp import KernelRowCache, default_working_set, llw_decomposition
from ._llw_qp import intercepts

__all__ = ["MulticlassSVC", "llw_population_minimizer", "CACHE_MB", "GRAM_LIMIT_MB",
           "MAX_POPULATION_CLASSES", "PSD_RTOL"]

#: Kernel-row cache of :class:`MulticlassSVC`, MiB (``8 n`` bytes a row, least recently
#: used rows evicted): all of ``K`` fits up to ``n`` about 5100.
CACHE_MB = DEFAULT_CACHE_MB

#: Largest Gram matrix :class:`MulticlassSVC` builds, MiB: only for kernels checked PSD
#: on the data (a callable, ``"sigmoid"``, ``"poly"`` with ``coef0 < 0``).
GRAM_LIMIT_MB = DEFAULT_GRAM_LIMIT_MB

#: Largest number of classes :func:`llw_population_minimizer` accepts.
MAX_POPULATION_CLASSES = 1000

#: Relative tolerance of the positive-semidefiniteness test of the Gram matrix:
#: its smallest eigenvalue must be ``>= -PSD_RTOL * max |eigenvalue|``, or within the
#: rounding a named kernel's evaluation explains (``ktheory._validation.psd_gram_tolerance``
#: with :func:`ktheory.kernels.gram_entry_error`), whichever is larger.
PSD_RTOL = 1e-6

#: Tightest KKT tolerance the certificate loop of ``fit`` asks of the solver (the
#: solver itself stops at the rounding level of ``H`` where that is larger).
_TOL_FLOOR = 1e-12


def _relative_gap(primal: float, dual: float) -> float:
    """``(primal - dual) / max(|primal|, |dual|)`` (0 when both are 0): scale free."""
    den = max(abs(primal), abs(dual))
    return (primal - dual) / den if den > 0 else 0.0


def _certificate(alpha: np.ndarray, coef: np.ndarray, Hh: np.ndarray, codes: np.ndarray,
                 L: np.ndarray, b_kkt: np.ndarray | None) -> tuple[np.ndarray, float, float, float]:
    """``(b, loss, pen, dual_min)``: the intercepts minimising the loss given ``h`` (exact,
    :func:`ktheory.svm._llw_qp.intercepts`), that loss, ``sum_j ||h_j||^2`` and the dual
    minimum ``D(alpha)``; the primal is ``pen / 4 + C loss``."""
    k = alpha.shape[1]
    Hh = Hh - Hh.mean(axis=1, keepdims=True)      # sum_j h_j = 0 (exactly, in the model)
    b, loss = intercepts(Hh, codes, L, b_kkt)
    pen = float(np.einsum("ij,ij->", coef, Hh))   # sum_j c_j^T K c_j
    dual_min = 0.25 * pen - float(alpha.sum()) / (k - 1)
    return b, loss, pen, dual_min


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
    tol : float, default 1e-6
        KKT tolerance of the decomposition solver, in decision-value units (every
        margin ``f_j(x_i) - Y_ij`` on the right side of 0 to ``tol``), and the target
        of the certificate: a relative duality gap above ``tol`` makes the solver go
        on with a tighter tolerance (module docstring).
    max_iter : int, default -1
        Limit on the active-set steps of the solver, all working sets together
        (``-1``: none; the solver also stops when ten working sets in a row decrease
        the dual only by rounding). Stopping at the limit issues a
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
        max(|primal_objective_|, |objective_|)`` (0 when both are 0), nonnegative by
        weak duality up to rounding. Above ``max(100 tol, 1e-6)`` the fit is not
        certified optimal and ``fit`` says so with a
        :class:`~ktheory.svm.ConvergenceWarning`.
    n_iter_ : int
        Active-set steps of the solver, all working sets together (at least 1).
    kernel_rows_computed_ : int
        Kernel rows the solver computed (above ``n`` when ``CACHE_MB`` was too small).
    n_features_in_ : int
        Number of features of the training ``X``.

    Notes
    -----
    ``predict`` is the argmax of ``decision_function``; ties go to the lowest
    column index (the first class in ``classes_``). Memory: ``fit`` holds a few
    ``(n, k)`` arrays and at most ``CACHE_MB`` MiB of kernel rows; a callable, sigmoid
    or ``coef0 < 0`` polynomial kernel is checked positive semidefinite on its Gram
    matrix, which ``fit`` then holds (refused above ``GRAM_LIMIT_MB``).

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
        tol: float = 1e-6,
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

    def _kernel_rows(self, X: np.ndarray) -> tuple[Callable[[np.ndarray], np.ndarray], float | None]:
        """The kernel-row callable of the solver and its cache size (None: no cache).

        ``"linear"``, ``"rbf"`` and ``"poly"`` with ``coef0 >= 0`` are positive
        semidefinite by construction: their rows are computed on demand (blocks of
        rows against all of ``X``, checked finite) and cached (``CACHE_MB``). For the
        others the Gram matrix is held and checked positive semidefinite first (as
        given for ``"precomputed"``; for a callable, sigmoid or ``coef0 < 0``
        polynomial computed within ``GRAM_LIMIT_MB``).
        """
        kern = self._kernel_params_["kernel"]
        psd_by_construction = kern in ("linear", "rbf") or (kern == "poly" and float(self.coef0) >= 0)
        if psd_by_construction:
            return (lambda idx: self._gram(X[idx], X, "training data")), float(CACHE_MB)
        n = X.shape[0]
        if kern == "precomputed":
            K = X
        else:
            need_mb = n * n * 8 / 2**20
            if need_mb > GRAM_LIMIT_MB:
                raise ValueError(
                    f"the {self._kernel_name()} kernel must be checked positive semidefinite on the "
                    f"training data, which needs its Gram matrix: {need_mb:.0f} MiB for n={n}, more "
                    f"than GRAM_LIMIT_MB = {GRAM_LIMIT_MB:g}; use a kernel that is positive "
                    "semidefinite by construction (linear, rbf, poly with coef0 >= 0) or subsample"
                )
            K = self._gram(X, None, "training data")
            if callable(kern):
                K = symmetrized(K, "the Gram matrix returned by the kernel callable", np.float64)
        check_psd_gram(K, "the precomputed Gram matrix X" if kern == "precomputed"
                       else f"the Gram matrix of the {self._kernel_name()} kernel", rtol=PSD_RTOL,
                       why="the LLW dual is a convex QP only for a PSD kernel",
                       entry_error=self._gram_entry_error(X))
        return (lambda idx: K[idx]), None

    # -- fit -----------------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> "MulticlassSVC":
        """Fit the multicategory SVM (decomposition solver of the dual, exact intercepts).

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
            Gram matrix, parameters out of range, kernel values that overflow, or a
            kernel whose Gram matrix must be checked and exceeds ``GRAM_LIMIT_MB``.
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
        self._set_kernel(X)
        rows, cache_mb = self._kernel_rows(X)
        C = float(self.C)
        tol = float(self.tol)
        max_iter = check_max_iter(self.max_iter)
        q = default_working_set(n, k)
        cache = KernelRowCache(rows, n, cache_mb, min_rows=q)
        alpha = np.zeros((n, k))
        Hh = np.zeros((n, k))
        b_kkt = None
        n_iter = 0
        stopped = stalled = False
        if np.any(W > 0):
            with np.errstate(over="ignore", under="ignore"), threadpool_limits(1, user_api="blas"):
                res = llw_decomposition(cache, W, C, tol, max_iter, q=q)
            alpha, Hh, b_kkt, n_iter = res.alpha, res.H, res.b, res.n_iter
            stopped, stalled = not res.converged and not res.stalled, res.stalled
        coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
        b, loss, pen, dual_min = _certificate(alpha, coef, Hh, codes, L, b_kkt)
        gap = _relative_gap(0.25 * pen + C * loss, -dual_min)
        # the certificate: a relative duality gap above the KKT tolerance sends the solver
        # on with a tolerance 100 times tighter (down to the rounding level of H)
        tol_k = tol
        while (gap > tol and not stopped and not stalled and n_iter < max_iter
               and tol_k > _TOL_FLOOR):
            tol_k = max(tol_k / 100.0, _TOL_FLOOR)
            with np.errstate(over="ignore", under="ignore"), threadpool_limits(1, user_api="blas"):
                res = llw_decomposition(cache, W, C, tol_k, max_iter - n_iter, q=q,
                                        alpha0=alpha, H0=Hh)
            alpha, Hh, b_kkt = res.alpha, res.H, res.b
            n_iter += res.n_iter
            stopped, stalled = not res.converged and not res.stalled, res.stalled
            coef = -2.0 * (alpha - alpha.mean(axis=1, keepdims=True))
            b, loss, pen, dual_min = _certificate(alpha, coef, Hh, codes, L, b_kkt)
            gap = _relative_gap(0.25 * pen + C * loss, -dual_min)
        if stopped:
            warnings.warn(
                f"{name}: the decomposition solver stopped at max_iter={n_iter} active-set steps "
                f"before reaching tol={tol:g} (KKT violation {res.violation:.2g})",
                ConvergenceWarning,
                stacklevel=2,
            )
        support = np.flatnonzero(np.any(alpha != 0, axis=1))

        self.classes_ = classes
        self.alpha_ = alpha
        self.dual_coef_ = coef
        self.intercept_ = b
        self.support_ = support.astype(np.int32)
        self.objective_ = -dual_min
        self.primal_objective_ = 0.25 * pen + C * loss
        self.duality_gap_ = _relative_gap(self.primal_objective_, self.objective_)
        self.n_iter_ = max(n_iter, 1)
        self.kernel_rows_computed_ = int(cache.n_computed)
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
