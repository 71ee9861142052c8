"""The central support vector machine (CSVM, Chapter 11).

The CSVM replaces the SVM's boundary margin by the *central separation margin*,
the summed distance of the two class centres from the hyperplane. With
``l_i = 1/n_+`` for the positive class and ``1/n_-`` for the negative class and
``m = x_+ - x_-`` the difference of the class centres (in feature space), the soft
primal is ::

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
    s.t.            sum_i l_i y_i <w, phi(x_i)> = <w, m> = 1,
                    y_i (<w, phi(x_i)> + b) >= epsilon - xi_i,   xi_i >= 0,

(``C = inf``: the hard primal, no slack). Its Lagrangian dual has box-constrained
multipliers ``alpha`` and a *free* multiplier ``beta`` of the equality constraint::

    max_{alpha, beta}  epsilon sum_i alpha_i + beta
                       - 1/2 || sum_i (alpha_i + beta l_i) y_i phi(x_i) ||^2
    s.t.               sum_i y_i alpha_i = 0,  0 <= alpha_i <= C,  beta in R.

Because ``beta`` enters unconstrained and quadratically it is eliminated in closed
form, ``beta(alpha) = (1 - v' alpha) / s`` with ``g_i = <phi(x_i), m>``,
``v_i = y_i g_i`` and ``s = ||m||^2``; what remains is an ordinary SVM dual on the
kernel projected orthogonally to ``m``, ``K~ = K - g g' / s``, with the
per-sample linear term ``p_i = epsilon - y_i g_i / s``. :class:`CentralSVC` solves
it by SMO with second-order working-set selection :cite:p:`fan2005working`
(exactly, to a KKT violation ``tol``), then recovers ``beta``, ``w`` and the
bias from the KKT conditions.

The seed's "shortcut" ``w = (1 - lam) w_SVM + lam (x_+ - x_-)`` is *not* the CSVM
optimum in general; it is available, clearly named, as :func:`shortcut_weights`.

:class:`CentralSVC` is a scikit-learn classifier (``KTheoryClassifierMixin``, ``validate_data``,
``check_is_fitted``); its kernel set-up is shared with :class:`ktheory.ridge.KernelRidge`
(:mod:`ktheory._kernel_setup`). The module stays one file because it holds one problem,
the CSVM dual: its solver (SMO with its active-set polish), its feasibility LP and the
estimator use the same reduced dual and are read together in Chapter 11.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import linprog
from sklearn.utils.validation import column_or_1d

from ._base import KTheoryClassifierMixin, KTheoryEstimator, atomic_fit
from ._kernel_setup import check_kernel_params, kernel_block, owned, real_matrix
from ._validation import (
    ComplexDataError,
    check_positive,
    class_labels,
    fit_data,
    predict_data,
    symmetrized,
)

__all__ = ["CentralSVC", "max_feasible_epsilon", "shortcut_weights"]

KERNEL_NAMES = ("linear", "poly", "rbf", "laplacian")
#: Largest training set :class:`CentralSVC` accepts (the dense n x n matrices it keeps).
MAX_SAMPLES = 20_000
_TAU = 1e-12  # curvature floor of the two-variable subproblem (as libsvm)


# --------------------------------------------------------------------------- input helpers
def _signs(codes: np.ndarray) -> np.ndarray:
    """``+1`` for the class ``classes_[1]`` (code 1), ``-1`` for ``classes_[0]``."""
    return np.where(codes == 1, 1.0, -1.0)


def _function_labels(y: Any, n: int, *, caller: str, samples: str) -> np.ndarray:
    """Binary labels given to a function (not an estimator) as ``s`` in {-1, +1}.

    scikit-learn's ``column_or_1d`` (a column is ravelled with its ``DataConversionWarning``)
    and :func:`ktheory._validation.class_labels` (classification targets, two classes);
    ``samples`` names the array whose rows the labels belong to.
    """
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"y must be a 1-D array of class labels, got {y!r}")
    try:
        ya = column_or_1d(y, warn=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must be a 1-D array of class labels: {exc}") from None
    if ya.dtype.kind == "c" or (ya.dtype == object and any(isinstance(v, complex) for v in ya)):
        raise ComplexDataError(
            "Complex data not supported: y holds complex numbers; y must hold class labels"
        )
    if ya.shape[0] != n:
        raise ValueError(
            f"{samples} and y must have the same number of samples; got {n} samples in {samples} "
            f"and {ya.shape[0]} in y"
        )
    _, codes = class_labels(ya, estimator=caller, max_classes=2)
    return _signs(codes)


def _check_epsilon(epsilon: Any) -> float:
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a real number > 0, got {type(epsilon).__name__} {epsilon!r}")
    e = float(epsilon)
    if not np.isfinite(e) or e <= 0:
        raise ValueError(
            f"epsilon must be a finite number > 0, got {epsilon!r} (epsilon = 0 drops the margin "
            "requirement of the closest samples; see Chapter 11)"
        )
    return e


def _check_C(C: Any) -> float:
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, numbers.Real):
        raise TypeError(
            f"C must be a real number > 0 (or inf for the hard margin), got {type(C).__name__} {C!r}"
        )
    c = float(C)
    if np.isnan(c) or c <= 0:
        raise ValueError(f"C must be > 0 (or inf for the hard margin), got {C!r}")
    return c


def _check_gram(K: np.ndarray, name: str, dtype: Any = None) -> np.ndarray:
    """A symmetric positive semidefinite Gram matrix (a clear ValueError otherwise), symmetrised.

    Symmetry is :func:`ktheory._validation.symmetrized` at the rounding level of ``dtype``
    (the input's floating type; ``None``: float64). Positive semidefinite means a smallest
    eigenvalue ``>= -1e-8 * n * max|K_ij|``.
    """
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {K.shape}")
    scale = float(np.max(np.abs(K))) if K.size else 0.0
    K = symmetrized(K, name, dtype)
    K = (K + K.T) / 2
    if K.shape[0] > 0 and scale > 0:
        lam_min = float(np.linalg.eigvalsh(K)[0])
        if lam_min < -1e-8 * scale * K.shape[0]:
            raise ValueError(
                f"{name} must be positive semidefinite (a kernel matrix); its smallest eigenvalue "
                f"is {lam_min:.3g}"
            )
    return K


def _centre_terms(K: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``l`` (1/n_+ or 1/n_-), ``g_i = <phi(x_i), m>`` and ``s = ||m||^2`` from the Gram matrix."""
    pos = y > 0
    n_pos = int(np.count_nonzero(pos))
    l = np.where(pos, 1.0 / n_pos, 1.0 / (y.shape[0] - n_pos))
    g = K @ (l * y)
    s = float((l * y) @ g)
    scale = float(np.max(np.abs(np.diag(K)))) if K.size else 0.0
    if not s > 1e-12 * max(scale, np.finfo(float).tiny):
        raise ValueError(
            "the two class centres coincide in feature space (||x_+ - x_-||^2 = "
            f"{s:.3g}); the central margin constraint <w, x_+ - x_-> = 1 cannot be met. "
            "Use another kernel or check y"
        )
    return l, g, s


# --------------------------------------------------------------------------- the solver
def _smo(Qt: np.ndarray, p: np.ndarray, y: np.ndarray, C: float, tol: float,
         max_iter: int) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Minimise 1/2 a'Qt a - p'a s.t. y'a = 0, 0 <= a <= C by SMO (second-order selection).

    Returns ``(alpha, G, n_iter, violation)`` with ``G = Qt alpha - p`` and the final
    maximal KKT violation ``max_{I_up} -y G - min_{I_low} -y G``.
    """
    n = y.shape[0]
    alpha = np.zeros(n)
    G = -p.copy()
    QD = np.diag(Qt).copy()
    pos = y > 0
    viol = np.inf
    it = 0
    polish_every = max(50, min(n, 500))
    window_start = np.inf
    while it < max_iter:
        if it and it % polish_every == 0:
            # an active-set step only where SMO stalls (the violation did not halve in a window)
            if viol > 0.5 * window_start:
                G = _newton_polish(Qt, p, y, C, alpha, G)
            window_start = viol
        at_upper = alpha >= C
        at_lower = alpha <= 0
        up = np.where(pos, ~at_upper, ~at_lower)
        low = np.where(pos, ~at_lower, ~at_upper)
        myG = -y * G
        gu = np.where(up, myG, -np.inf)
        i = int(np.argmax(gu))
        m_up = gu[i]
        M_low = float(np.min(np.where(low, myG, np.inf)))
        viol = m_up - M_low
        if viol <= tol:
            break
        Qi = Qt[i]
        a = QD[i] + QD - 2.0 * y[i] * y * Qi
        a = np.maximum(a, _TAU)
        bb = m_up - myG
        cand = low & (bb > 0)
        j = int(np.argmin(np.where(cand, -(bb * bb) / a, np.inf)))
        t = bb[j] / a[j]
        # feasible step along d_i = y_i, d_j = -y_j
        lim_i = (C - alpha[i]) if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else (C - alpha[j])
        t = min(t, lim_i, lim_j)
        if not np.isfinite(t) or t > 1e15:
            raise ValueError(
                "the CSVM dual is unbounded: the hard-margin problem (C=inf) is infeasible for this epsilon; "
                "use a finite C or a smaller epsilon"
            )
        ai = alpha[i] + y[i] * t
        aj = alpha[j] - y[j] * t
        # snap to the bounds that limited the step (no drift from rounding)
        if t == lim_i:
            ai = C if y[i] > 0 else 0.0
        if t == lim_j:
            aj = 0.0 if y[j] > 0 else C
        di, dj = ai - alpha[i], aj - alpha[j]
        alpha[i], alpha[j] = ai, aj
        G += Qi * di + Qt[j] * dj
        it += 1
    return alpha, G, it, float(viol)


def _newton_polish(Qt: np.ndarray, p: np.ndarray, y: np.ndarray, C: float, alpha: np.ndarray,
                   G: np.ndarray) -> np.ndarray:
    """One active-set step on the free multipliers (``alpha`` in place); returns the new gradient.

    With the bounded multipliers fixed, the quadratic is minimised on the face
    ``{d : y_F' d = 0}`` in an orthonormal basis ``Z`` of that face, where the
    reduced Hessian ``Z' Qt_FF Z`` is eigendecomposed. If the gradient has a
    component along a zero-curvature direction (``Qt`` is singular, e.g. of rank
    ``d - 1`` for the linear kernel), the objective decreases *linearly* along it and
    the step runs to the first bound; otherwise it is the Newton step, cut back at
    the first bound. This replaces SMO's slow zig-zag on degenerate faces by one
    small eigenproblem.
    """
    from scipy.linalg import null_space

    F = np.flatnonzero((alpha > 0) & (alpha < C))
    k = F.shape[0]
    if k < 2 or k > 1500:
        return G
    Z = null_space(y[F][None, :])  # (k, k - 1), orthonormal
    H = Z.T @ Qt[np.ix_(F, F)] @ Z
    gz = Z.T @ G[F]
    lam, V = np.linalg.eigh((H + H.T) / 2)
    scale = max(float(np.abs(lam).max()) if lam.size else 0.0, 1e-300)
    null = lam <= 1e-10 * scale
    gn = V[:, null].T @ gz
    if np.linalg.norm(gn) > 1e-12 * max(1.0, float(np.linalg.norm(gz))):
        d = -(Z @ (V[:, null] @ gn))  # zero curvature, linear decrease: go to the bound
        newton = False
    else:
        pos = ~null
        d = -(Z @ (V[:, pos] @ ((V[:, pos].T @ gz) / lam[pos])))
        newton = True
    if not np.all(np.isfinite(d)) or not float(G[F] @ d) < 0:
        return G
    with np.errstate(divide="ignore", invalid="ignore"):
        to_up = np.where(d > 0, (C - alpha[F]) / d, np.inf)
        to_low = np.where(d < 0, -alpha[F] / d, np.inf)
    step = min(float(np.min(to_up)), float(np.min(to_low)))
    if newton:
        step = min(step, 1.0)
    if not (step > 0 and np.isfinite(step)):
        return G
    new = alpha[F] + step * d
    hit_low = np.isclose(to_low, step, rtol=1e-12, atol=0) if not newton or step < 1 else np.zeros(k, bool)
    hit_up = np.isclose(to_up, step, rtol=1e-12, atol=0) if not newton or step < 1 else np.zeros(k, bool)
    new[hit_low] = 0.0
    if np.isfinite(C):
        new[hit_up] = C
    trial = alpha.copy()
    trial[F] = np.clip(new, 0.0, C)
    G_new = Qt @ trial - p
    if 0.5 * float(trial @ (G_new - p)) <= 0.5 * float(alpha @ (G - p)):  # 1/2 a'Qt a - p'a, Qt a = G + p
        alpha[:] = trial
        return G_new
    return G


def _snap_to_bounds(alpha: np.ndarray, C: float) -> np.ndarray:
    """``alpha`` with every multiplier within ``1000 eps`` (relative: to ``max alpha`` for
    the bound 0, to ``C`` for the bound ``C``) of a bound set to that bound.

    Such an ``alpha_i`` (``1e-16``, say) is the rounding of the final linear solve, left
    there on one machine and exactly at the bound on another (as the BLAS rounds). Counted
    as free it would make the bias its own ``-y_i G_i``, one end of the interval of optimal
    biases, where another machine takes the midpoint of that interval.
    """
    rel = 1e3 * np.finfo(np.float64).eps
    out = alpha.copy()
    out[out <= rel * (float(alpha.max()) if alpha.size else 0.0)] = 0.0
    if np.isfinite(C):
        out[out >= C - rel * C] = C
    return out


def _bias(alpha: np.ndarray, G: np.ndarray, y: np.ndarray, C: float) -> float:
    """The bias from the KKT conditions ``G_i + y_i b`` (=0 free, >=0 at 0, <=0 at C),
    for ``alpha`` snapped by :func:`_snap_to_bounds` (free means strictly inside)."""
    myG = -y * G
    above = alpha > 0.0                     # not at 0
    below = alpha < C                       # not at C (always, for C = inf)
    free = above & below
    if np.any(free):
        return float(np.mean(myG[free]))
    pos = y > 0
    up = np.where(pos, below, above)
    low = np.where(pos, above, below)
    lo = float(np.max(myG[up])) if np.any(up) else -np.inf
    hi = float(np.min(myG[low])) if np.any(low) else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return (lo + hi) / 2
    return lo if np.isfinite(lo) else hi


def max_feasible_epsilon(K: Any, y: Any) -> float:
    """The largest ``epsilon`` for which the hard-margin CSVM is feasible.

    It is the optimum of the linear program ::

        max_{c, b, t}  t   s.t.  y_i ((K c)_i + b) >= t,   g' c = 1,

    with ``w = sum_j c_j phi(x_j)`` and ``g_i = <phi(x_i), x_+ - x_->`` (so that
    ``g' c = <w, x_+ - x_->``), solved by scipy's HiGHS. It is finite whenever the
    class centres differ, and positive exactly when the classes are strictly
    separable in feature space.

    Parameters
    ----------
    K : array_like of shape (n_samples, n_samples)
        Symmetric positive semidefinite Gram matrix of the training samples.
    y : array_like of shape (n_samples,)
        Binary class labels (two distinct values).

    Returns
    -------
    float
        ``epsilon_max``; the hard-margin CSVM is feasible iff ``0 < epsilon <= epsilon_max``.

    Raises
    ------
    ValueError
        For a Gram matrix that is not square, symmetric, finite and PSD, labels of the
        wrong length or with one class only, or class centres that coincide.
    TypeError
        For complex, string or sparse input.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1, -1, 1, 1])
    >>> round(max_feasible_epsilon(X @ X.T, y), 6)   # w = 1/3: margins (3 - 1)/2 * 1/3
    0.333333
    """
    shape = np.shape(K) if not isinstance(K, (str, bytes)) and hasattr(K, "shape") else None
    if shape is not None and len(shape) >= 1 and shape[0] > MAX_SAMPLES:
        raise ValueError(
            f"K has {shape[0]} samples; at most {MAX_SAMPLES} are supported (a dense LP of that size)"
        )
    Ka = real_matrix(K, "K")
    if Ka.shape[0] > MAX_SAMPLES:
        raise ValueError(f"K has {Ka.shape[0]} samples; at most {MAX_SAMPLES} are supported")
    Ka = _check_gram(Ka, "K")
    s = _function_labels(y, Ka.shape[0], caller="max_feasible_epsilon", samples="K")
    l, g, _ = _centre_terms(Ka, s)
    return _lp_epsilon(Ka, s, g)


def _lp_epsilon(K: np.ndarray, y: np.ndarray, g: np.ndarray) -> float:
    n = y.shape[0]
    # epsilon_max is invariant under K -> c K (w scales by 1/sqrt(c), the margins do not):
    # normalise, so that HiGHS never sees coefficients it would drop as zero
    scale = float(np.max(np.abs(K)))
    K, g = K / scale, g / scale
    # variables z = (c_1..c_n, b, t); minimise -t
    cost = np.zeros(n + 2)
    cost[-1] = -1.0
    A_ub = np.hstack([-(y[:, None] * K), -y[:, None], np.ones((n, 1))])
    b_ub = np.zeros(n)
    A_eq = np.concatenate([g, [0.0, 0.0]])[None, :]
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(None, None)] * (n + 2),
                  method="highs")
    if res.status != 0:  # pragma: no cover - bounded and feasible when s > 0
        raise ValueError(f"the feasibility linear program failed: {res.message}")
    return float(-res.fun)


# --------------------------------------------------------------------------- the estimator
class CentralSVC(KTheoryClassifierMixin, KTheoryEstimator):
    """The central support vector machine, solved exactly in its dual.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the slacks, ``> 0``; ``float("inf")`` gives the hard-margin CSVM
        (a ``ValueError`` suggesting a finite ``C`` when it is infeasible).
    epsilon : float, default=1.0
        The required functional margin ``y_i (w . x_i + b) >= epsilon`` of every
        sample, relative to the centre normalisation ``w . (x_+ - x_-) = 1``;
        ``> 0``. Small ``epsilon``: the class-mean direction; large: the SVM
        direction and beyond (Chapter 11).
    kernel : {"linear", "poly", "rbf", "laplacian", "precomputed"} or callable, default="linear"
        As scikit-learn: ``poly`` is ``(gamma x.z + coef0)^degree``, ``rbf``
        ``exp(-gamma ||x - z||^2)``, ``laplacian`` ``exp(-gamma ||x - z||_1)``;
        a callable ``k(X, Y)`` returns the ``(n, m)`` Gram block.
    gamma : float or None, default=None
        Kernel coefficient; ``None`` means ``1 / n_features``.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    tol : float, default=1e-10
        Stop when the maximal KKT violation of the reduced dual is ``<= tol``.
    max_iter : int, default=1_000_000
        Maximal number of SMO steps (a ``ValueError`` if they do not suffice).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class (``y = +1``).
    n_features_in_ : int
        Number of columns of the training ``X`` (of training samples, if precomputed).
    X_fit_ : numpy.ndarray of shape (n_samples, n_features) or None
        The training samples (a copy the estimator owns); ``None`` if precomputed.
    alpha_ : numpy.ndarray of shape (n_samples,)
        The multipliers of the margin constraints, ``0 <= alpha_i <= C``.
    beta_ : float
        The (sign-free) multiplier of the centre constraint ``w . (x_+ - x_-) = 1``.
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the samples with ``alpha_i > 0``.
    dual_coef_ : numpy.ndarray of shape (1, n_SV)
        ``alpha_i y_i`` for the support vectors (the SVM-like part of ``w``).
    sample_coef_ : numpy.ndarray of shape (n_samples,)
        ``(alpha_i + beta l_i) y_i``: ``f(x) = sum_i sample_coef_i k(x_i, x) + b``.
        Every training sample enters through the centre term ``beta (x_+ - x_-)``.
    intercept_ : numpy.ndarray of shape (1,)
        The bias ``b``.
    coef_ : numpy.ndarray of shape (1, n_features)
        ``w`` (linear kernel only).
    dual_objective_, primal_objective_ : float
        The two objective values at the returned point.
    duality_gap_ : float
        ``(primal - dual) / max(1, |primal|)``: the duality gap relative to the primal
        objective when ``|primal| >= 1`` and absolute below 1 (so that a tiny objective does
        not inflate it). With a finite ``C`` the primal point is feasible by construction and
        a small gap certifies optimality. With ``C=inf`` the primal objective ``||w||^2 / 2``
        ignores margin violations, so the gap certifies only a feasible point: when
        ``max_slack_`` exceeds ``1e-8 * max(1, epsilon)`` a warning is issued and
        ``duality_gap_`` is ``inf``.
    max_slack_ : float
        The largest margin violation ``max_i max(0, epsilon - y_i f(x_i))`` on the training set.
    kkt_violation_ : float
        The final maximal KKT violation of the reduced dual.
    n_iter_ : int
        SMO steps taken.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0], [4.0, 3.0], [3.0, 4.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = CentralSVC(C=10.0, epsilon=0.1).fit(X, y)
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
    [0, 1]
    >>> np.round(clf.coef_, 6).tolist()   # the class-mean direction (x_+ - x_-) / ||x_+ - x_-||^2
    [[0.166667, 0.166667]]
    >>> bool(clf.duality_gap_ < 1e-9)
    True
    """

    def __init__(
        self,
        C: float = 1.0,
        *,
        epsilon: float = 1.0,
        kernel: str | Callable[..., Any] = "linear",
        gamma: float | None = None,
        degree: int = 3,
        coef0: float = 0.0,
        tol: float = 1e-10,
        max_iter: int = 1_000_000,
    ) -> None:
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's classifier tags: binary only, and ``pairwise`` for
        ``kernel="precomputed"`` (``X`` is then a kernel matrix)."""
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- helpers --------------------------------------------------------------
    def _check_params(self) -> tuple[float, float]:
        C = _check_C(self.C)
        eps = _check_epsilon(self.epsilon)
        check_positive(self.tol, "tol")
        mi = self.max_iter
        if isinstance(mi, (bool, np.bool_)) or not isinstance(mi, numbers.Integral):
            raise TypeError(f"max_iter must be an integer >= 1, got {type(mi).__name__} {mi!r}")
        if mi < 1:
            raise ValueError(f"max_iter must be an integer >= 1, got {mi!r}")
        check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0, names=KERNEL_NAMES)
        return C, eps

    def _kernel(self, A: np.ndarray, B: np.ndarray, what: str) -> np.ndarray:
        """Gram block ``k(A, B)`` with this estimator's kernel settings."""
        return kernel_block(self.kernel, A, B, what, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    # -- fit / predict -------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any) -> CentralSVC:
        """Solve the CSVM dual exactly and recover ``w`` (through ``sample_coef_``), ``beta`` and ``b``.

        A fit that raises leaves the estimator as it was (a fitted estimator keeps its fit).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), or (n_samples, n_samples) if precomputed
            Training samples, or their Gram matrix for ``kernel="precomputed"``.
        y : array_like of shape (n_samples,)
            Binary class labels.

        Returns
        -------
        CentralSVC
            ``self``, fitted.

        Raises
        ------
        ValueError
            For NaN/inf, wrong shapes, one class only, a non-symmetric or non-PSD
            precomputed Gram matrix, ``epsilon <= 0``, ``C <= 0``, coinciding class
            centres, an infeasible hard margin (``C=inf``; the message gives the
            largest feasible epsilon), or ``max_iter`` exhausted.
        TypeError
            For complex/string/sparse input and parameters of the wrong type.
        """
        C, eps = self._check_params()
        Xa, ya, dtype = fit_data(self, X, y)
        classes, codes = class_labels(ya, estimator="CentralSVC", max_classes=2)
        s = _signs(codes)
        n = Xa.shape[0]
        if n > MAX_SAMPLES:
            raise ValueError(
                f"X has {n} samples; CentralSVC keeps dense (n, n) matrices and supports at most "
                f"{MAX_SAMPLES}"
            )
        if self.kernel == "precomputed":
            if Xa.shape[1] != n:
                raise ValueError(
                    "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                    f"got shape {Xa.shape}"
                )
            K = _check_gram(Xa, "X (precomputed Gram matrix)", dtype)
        else:
            K = self._kernel(Xa, Xa, "training data")
            if callable(self.kernel):
                K = _check_gram(K, "the Gram matrix returned by the kernel callable")
            else:
                K = (K + K.T) / 2
        l, g, sq = _centre_terms(K, s)
        if np.isinf(C):
            eps_max = _lp_epsilon(K, s, g)
            if eps > eps_max * (1 + 1e-9):
                raise ValueError(
                    f"the hard-margin CSVM (C=inf) is infeasible for epsilon={eps!r}: the largest "
                    f"feasible epsilon for these data is {eps_max:.6g}"
                    + (" (the classes are not separable)" if eps_max <= 0 else "")
                    + "; use a finite C (soft margin) or a smaller epsilon"
                )
        v = s * g
        Kt = K - np.outer(g, g) / sq
        Qt = (s[:, None] * s[None, :]) * Kt
        p = eps - v / sq
        alpha, G, it, viol = _smo(Qt, p, s, C, float(self.tol), int(self.max_iter))
        alpha = _snap_to_bounds(alpha, C)
        if viol > self.tol:
            raise ValueError(
                f"SMO did not reach tol={self.tol!r} in max_iter={self.max_iter} steps "
                f"(KKT violation {viol:.3g}); raise max_iter or tol"
            )
        beta = (1.0 - v @ alpha) / sq
        coef = (alpha + beta * l) * s
        b = _bias(alpha, G, s, C)
        # objectives
        f_train = K @ coef + b
        w2 = float(coef @ K @ coef)
        dual = eps * float(alpha.sum()) + beta - 0.5 * w2
        slack = np.maximum(0.0, eps - s * f_train)
        primal = 0.5 * w2 + (C * float(slack.sum()) if np.isfinite(C) else 0.0)
        max_slack = float(slack.max())
        gap = float((primal - dual) / max(1.0, abs(primal)))
        if np.isinf(C) and max_slack > 1e-8 * max(1.0, eps):
            # an infeasible hard-margin point: the objective gap proves nothing
            gap = float("inf")
            warnings.warn(
                f"the hard-margin (C=inf) solution violates the margin constraints by up to "
                f"{max_slack:.3g}: it is not a feasible point, and duality_gap_ is set to inf "
                f"(no optimality certificate); lower tol (now {self.tol!r})",
                RuntimeWarning,
                stacklevel=3,
            )
        self.classes_ = classes
        self.X_fit_ = owned(Xa, X) if self.kernel != "precomputed" else None
        self.alpha_ = alpha
        self.beta_ = float(beta)
        self.support_ = np.flatnonzero(alpha > 0)
        self.dual_coef_ = (alpha * s)[self.support_].reshape(1, -1)
        self.sample_coef_ = coef
        self.centre_coef_ = l * s
        self.intercept_ = np.array([b])
        if self.kernel == "linear":
            self.coef_ = (coef @ Xa).reshape(1, -1)
        else:
            self.__dict__.pop("coef_", None)  # a refit with another kernel has no w to show
        self.dual_objective_ = float(dual)
        self.primal_objective_ = float(primal)
        self.duality_gap_ = gap
        self.max_slack_ = max_slack
        self.kkt_violation_ = viol
        self.n_iter_ = it
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = sum_i (alpha_i + beta l_i) y_i k(x_i, x) + b``; positive means ``classes_[1]``.

        The centre term ``beta <x_+ - x_-, phi(x)>`` needs ``x`` against every training
        sample (the class centres live in feature space).

        Parameters
        ----------
        X : array_like of shape (n_test, n_features), or (n_test, n_train) if precomputed
            Test samples, or ``k(test, train)`` for ``kernel="precomputed"``.

        Returns
        -------
        numpy.ndarray of shape (n_test,)
            The decision values.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        ValueError
            For NaN/inf, 1-D input or another number of features (of training samples, if
            precomputed) than in :meth:`fit`.
        """
        Xa, _ = predict_data(self, X, fitted="sample_coef_")
        Kt = Xa if self.kernel == "precomputed" else self._kernel(Xa, self.X_fit_, "test data")
        return Kt @ self.sample_coef_ + self.intercept_[0]

    def predict(self, X: Any) -> np.ndarray:
        """Class labels, ``classes_[1]`` where ``decision_function(X) > 0``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features), or (n_test, n_train) if precomputed
            Test samples.

        Returns
        -------
        numpy.ndarray of shape (n_test,)
            Predicted labels.
        """
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]


def shortcut_weights(
    X: Any, y: Any, lam: float, *, C: float = 1.0, epsilon: float = 1.0, svm_C: float | None = None
) -> tuple[np.ndarray, float]:
    """The seed's *shortcut* ``w = (1 - lam) w_SVM + lam (x_+ - x_-)`` (linear kernel only).

    This is **not** the CSVM optimum (Chapter 11 measures how far it is). ``w_SVM``
    is the soft-margin SVM of :class:`ktheory.svm.SVC` (linear kernel) with penalty
    ``svm_C``, by default ``C / epsilon``: the SVM to which the CSVM with ``(C, epsilon)``
    reduces, up to the factor ``epsilon``, when its multiplier ``beta`` is 0. The
    mixture is rescaled to meet the centre constraint
    ``w . (x_+ - x_-) = 1``, and ``b`` minimises the CSVM slack
    ``sum_i max(0, epsilon - y_i (w . x_i + b))`` over the breakpoints
    (the midpoint of the best interval).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Training samples.
    y : array_like of shape (n_samples,)
        Binary labels; ``max(y)`` is the positive class.
    lam : float
        The mixing weight; the seed's trade-off is ``0 <= lam <= 1``, but any real
        ``lam`` is accepted (``lam < 0`` moves *away* from the class-mean direction).
    C : float, default=1.0
        The CSVM penalty of the slacks (finite), used to choose ``b``.
    epsilon : float, default=1.0
        The CSVM margin, used to choose ``b``.
    svm_C : float or None, default=None
        Penalty of the SVM part; ``None`` means ``C / epsilon``.

    Returns
    -------
    w : numpy.ndarray of shape (n_features,)
        The rescaled mixture, ``w . (x_+ - x_-) = 1``.
    b : float
        The bias.

    Raises
    ------
    ValueError
        For bad ``X``/``y``, a non-finite ``lam``, or a mixture with
        ``w . (x_+ - x_-) <= 0`` (it cannot be rescaled onto the constraint).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 3.0], [4.0, 3.0]])
    >>> w, b = shortcut_weights(X, [0, 0, 1, 1], 1.0, epsilon=0.1)   # lam = 1: the class-mean direction
    >>> np.round(w, 6).tolist()
    [0.166667, 0.166667]
    """
    from .svm import SVC

    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
        raise TypeError(
            f"lam must be a real number (any finite value; 0 gives w_SVM, 1 the centre "
            f"direction), got {type(lam).__name__} {lam!r}"
        )
    if not np.isfinite(float(lam)):
        raise ValueError(f"lam must be a finite real number, got {lam!r}")
    Cv = _check_C(C)
    if not np.isfinite(Cv):
        raise ValueError("C must be finite for the shortcut (the SVM part needs a finite penalty)")
    eps = _check_epsilon(epsilon)
    Cs = Cv / eps if svm_C is None else _check_C(svm_C)
    if not np.isfinite(Cs):
        raise ValueError(f"svm_C must be finite, got {svm_C!r}")
    Xa = real_matrix(X, "X")
    s = _function_labels(y, Xa.shape[0], caller="shortcut_weights", samples="X")
    svc = SVC(C=Cs, kernel="linear", tol=1e-8).fit(Xa, s)
    w_svm = svc.dual_coef_[0] @ Xa[svc.support_]
    m = Xa[s > 0].mean(axis=0) - Xa[s < 0].mean(axis=0)
    if not float(m @ m) > 0:
        raise ValueError(
            "the two class centres coincide; the centre constraint w . (x_+ - x_-) = 1 cannot be met"
        )
    w = (1.0 - float(lam)) * w_svm + float(lam) * m
    wm = float(w @ m)
    if not wm > 0:
        raise ValueError(f"the mixture has w . (x_+ - x_-) = {wm:.3g} <= 0 and cannot be rescaled to 1")
    w = w / wm
    return w, _best_bias(Xa @ w, s, eps)


def _best_bias(u: np.ndarray, y: np.ndarray, eps: float) -> float:
    """argmin_b sum_i max(0, eps - y_i (u_i + b)), the midpoint of the minimising interval.

    With ``P_i = eps - u_i`` (positives) and ``N_j = -eps - u_j`` (negatives) the
    objective is ``sum_i max(0, P_i - b) + sum_j max(0, b - N_j)``, convex and piecewise
    linear; it is evaluated at every breakpoint with sorted cumulative sums (O(n log n)).
    """
    P = np.sort(eps - u[y > 0])
    N = np.sort(-eps - u[y < 0])
    cand = np.unique(np.r_[P, N])
    cP = np.r_[0.0, np.cumsum(P[::-1])][::-1]  # cP[k] = sum of P[k:]
    cN = np.r_[0.0, np.cumsum(N)]               # cN[k] = sum of N[:k]
    kp = np.searchsorted(P, cand, side="right")  # P[kp:] > b
    kn = np.searchsorted(N, cand, side="left")   # N[:kn] < b
    vals = (cP[kp] - (P.shape[0] - kp) * cand) + (kn * cand - cN[kn])
    best = np.flatnonzero(vals <= vals.min() + 1e-12 * max(1.0, abs(float(vals.min()))))
    return float((cand[best[0]] + cand[best[-1]]) / 2)
