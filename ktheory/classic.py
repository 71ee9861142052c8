"""Nonlinear classifiers before kernels (Chapter 1): the instruments of the opening chapter.

* :class:`PiecewiseLinearClassifier`: each class is the union of ``l_i`` subclasses, each
  subclass has a linear discriminant ``g_i^l(x) = a_i^l . (x, 1)``, the class score is
  ``g_i(x) = max_l g_i^l(x)`` and ``x`` goes to the class with the largest score. Trained by
  the error-correction rule of the seed notes (a multi-class perceptron over subclasses),
  started from the subclass means found by a seeded k-means in each class (which alone is the
  minimum-distance classifier to subclass means, ``max_passes=0``).
* :class:`GaussianQuadraticClassifier`: the plug-in Gaussian (quadratic) discriminant
  ``g_i(x) = K_i^2 - (x - m_i)^T S_i^{-1} (x - m_i)`` with ``K_i^2 = 2 ln P_i - ln det S_i``.
* :class:`MLPClassifier`: a small multilayer perceptron with logistic units, squared error,
  full-batch gradient descent with momentum; :func:`mlp_loss_gradient` is its backpropagation
  and :func:`gradient_check` compares any gradient with central finite differences.

These are teaching instruments: small, deterministic (every random choice comes from
``random_state``), vectorised over samples except where the algorithm itself is sequential
(the error-correction rule visits one sample at a time by definition). The estimators are
scikit-learn classifiers (``KTheoryClassifierMixin`` on :class:`ktheory._base.KTheoryEstimator`);
their input is validated by :mod:`ktheory._validation` (scikit-learn's ``validate_data``).

The module stays one file although it is long: it is Chapter 1's toolbox, read alongside
that chapter, and its three classifiers share the input checks and the scale limit below.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.special import expit as _expit

from ._base import KTheoryClassifierMixin, KTheoryEstimator, atomic_fit
from ._validation import (
    ComplexDataError,
    check_array,
    check_bool,
    class_labels,
    fit_data,
    predict_data,
)

#: GaussianQuadraticClassifier's memory limit (MiB) for its peak of QDA_PEAK_COPIES
#: stacks of ``c`` float64 ``d x d`` matrices (the estimators' default gram_limit_mb).
QDA_LIMIT_MB = 2048.0
QDA_PEAK_COPIES = 3

#: Most sample visits (``max_passes * n_samples``) PiecewiseLinearClassifier admits: its rule
#: visits one sample at a time, about 8 microseconds each, so this is about a minute.
MAX_VISITS = 5_000_000

__all__ = [
    "PiecewiseLinearClassifier",
    "GaussianQuadraticClassifier",
    "MLPClassifier",
    "mlp_loss_gradient",
    "gradient_check",
]

#: Largest number of parameters an MLP may have (refused up front above it).
MAX_MLP_PARAMETERS = 10_000_000

#: Largest (and smallest non-zero) magnitude of an input entry the estimators accept: squares and
#: products of entries must stay inside the float64 range.
MAX_ABS_INPUT = 1e150


# --------------------------------------------------------------------------- input checks
def _check_scale(Xa: np.ndarray, name: str = "X") -> np.ndarray:
    """``Xa`` unchanged, or a ``ValueError`` if its largest magnitude is outside
    ``(1 / MAX_ABS_INPUT, MAX_ABS_INPUT)`` (all zeros is accepted)."""
    if not Xa.size:
        top = 0.0
    elif Xa.dtype.kind == "f":   # max(max, -min): no |x| temporary; NaN makes both NaN
        top = float(max(Xa.max(), -Xa.min()))
    else:
        top = float(np.abs(Xa).max())
    if top > MAX_ABS_INPUT or 0.0 < top < 1.0 / MAX_ABS_INPUT:
        raise ValueError(
            f"{name} has entries of magnitude up to {top:.3g}; squares and products of such values "
            f"leave the float64 range. Rescale {name} (e.g. standardise it) so that "
            f"1e-150 < max|{name}| < 1e150"
        )
    return Xa


def _check_matrix(X: Any, name: str) -> np.ndarray:
    """A finite float64 2-D array for :func:`mlp_loss_gradient` (not an estimator: no
    ``n_features_in_``); complex input is a :class:`ComplexDataError`, empty input is
    reported in scikit-learn's words."""
    if hasattr(X, "toarray") and type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"{name} is a sparse matrix; sparse data is not supported, convert it with {name}.toarray()"
        )
    try:
        return check_array(X, name)
    except TypeError as exc:
        if "complex" in str(exc):
            raise ComplexDataError(f"Complex data not supported: {exc}") from None
        raise
    except ValueError as exc:
        if "is empty" in str(exc):
            shape = np.shape(X)
            what = "sample(s)" if shape[0] == 0 else "feature(s)"
            raise ValueError(
                f"Found array with 0 {what} (shape={shape}) while a minimum of 1 is required: "
                f"{name} is empty"
            ) from None
        raise


def _fit_Xy(est: Any, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, classes, codes)`` for ``fit``: :func:`ktheory._validation.fit_data` (which sets
    ``n_features_in_``: ``fit`` is :func:`ktheory._base.atomic_fit`), the scale limit and
    :func:`ktheory._validation.class_labels` (at least two classes).
    """
    Xa, ya, _ = fit_data(est, X, y)
    _check_scale(Xa)
    classes, codes = class_labels(ya, estimator=type(est).__name__)
    return Xa, classes, codes


def _predict_X(est: Any, X: Any, fitted: str) -> np.ndarray:
    """``X`` for prediction: fitted (``fitted`` names the attribute), the feature count of
    ``fit`` (:func:`ktheory._validation.predict_data`), and the scale limit."""
    Xa, _ = predict_data(est, X, fitted=fitted)
    return _check_scale(Xa)


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_real(value: Any, name: str, low: float, high: float = np.inf, *, low_open: bool = False,
                high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    v = float(value)
    bad = not np.isfinite(v)                       # inf is never a usable step, tolerance or rate
    bad = bad or v < low or (low_open and v == low) or v > high or (high_open and v == high)
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open or high == np.inf else "]"
        raise ValueError(f"{name} must be a finite number in {lo}{low}, {high}{hi}, got {value!r}")
    return v


def _rng(random_state: Any) -> np.random.Generator:
    rs = random_state
    if rs is None or isinstance(rs, numbers.Integral) and not isinstance(rs, bool):
        return np.random.default_rng(rs)
    if isinstance(rs, np.random.Generator):
        return rs
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(rs).__name__}")


# --------------------------------------------------------------------------- k-means
def _kmeans(X: np.ndarray, k: int, rng: np.random.Generator, n_iter: int = 100) -> np.ndarray:
    """Lloyd's algorithm from k distinct random samples; returns k centres (empty ones keep their seed)."""
    uniq = np.unique(X, axis=0)
    if uniq.shape[0] < k:
        raise ValueError(
            f"n_subclasses asks for {k} subclasses in a class with only {uniq.shape[0]} distinct samples"
        )
    C = uniq[rng.choice(uniq.shape[0], size=k, replace=False)].copy()
    for _ in range(n_iter):
        d2 = (X * X).sum(1)[:, None] - 2 * X @ C.T + (C * C).sum(1)[None, :]
        lab = np.argmin(d2, axis=1)
        counts = np.bincount(lab, minlength=k)
        sums = np.zeros_like(C)
        np.add.at(sums, lab, X)
        newC = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], C)
        if np.array_equal(newC, C):
            break
        C = newC
    return C


# --------------------------------------------------------------------------- piecewise linear
class PiecewiseLinearClassifier(KTheoryClassifierMixin, KTheoryEstimator):
    """Piecewise linear discriminant with subclasses, trained by error correction.

    Class ``i`` has ``l_i`` subclasses with augmented weight vectors ``a_i^l`` (the last
    component is the offset); ``g_i(x) = max_l a_i^l . (x, 1)`` and the prediction is the
    class with the largest ``g_i``. Training: the weights start at the minimum-distance
    classifier to subclass means (``a = (m, -|m|^2/2)``, means by k-means inside each class)
    or at small random numbers, then the error-correction rule visits the samples in a fixed
    (seeded) order: a sample ``y_k`` of class ``j`` whose best own subclass ``m`` does not beat
    every subclass of every other class strictly gets ``a_j^m += rho y_k`` and
    ``a_i^n -= rho y_k`` for the best rival subclass ``n``. Passes repeat until a pass makes no
    correction (``converged_``), a pass-end state repeats exactly (``cycle_length_``: the rule
    is deterministic, so it will cycle forever) or ``max_passes`` is reached. There is no
    general convergence theorem for this rule.

    The rule is not translation-equivariant on raw coordinates: the augmented coordinate 1
    fixes an origin, and far from it (``x`` of size ``1e4`` against that 1) a correction moves
    the weights almost only, the offsets hardly. With ``center=True`` (the default) the rule
    runs on ``(x - center_, 1)``, ``center_`` the training mean, so that shifting the
    training and test data by the same vector changes no prediction (up to rounding);
    ``center=False`` is the textbook rule on ``(x, 1)`` (Chapter 1 uses it where it follows
    the construction step by step).

    Parameters
    ----------
    n_subclasses : int or sequence of int
        Subclasses per class (one int for all, or one per class in ``classes_`` order).
    learning_rate : float
        The step ``rho > 0`` (finite).
    max_passes : int
        Passes over the training set (0: keep the initial weights).
    init : {"means", "random", "zeros"}
        Starting weights: subclass means (minimum-distance classifier), uniform numbers in
        ``[-0.01, 0.01]``, or zeros.
    random_state : int, numpy Generator or None
        Seeds k-means, the random start and the visiting order.
    shuffle : bool
        Visit the samples in one seeded random order (fixed over passes); otherwise as given.
    center : bool, default True
        Run the rule on ``x - center_`` (the training mean subtracted), which makes the
        classifier translation-equivariant; ``False`` runs it on the raw ``x``.

    Attributes
    ----------
    classes_, n_features_in_ : the labels (sorted) and the number of features.
    center_ : ndarray of shape (n_features,)
        The training mean (``center=True``) or zeros: the weights act on ``(x - center_, 1)``.
    coef_ : ndarray of shape (n_subclasses_total, n_features + 1)
        Augmented weight vectors on ``(x - center_, 1)``, grouped by class.
    subclass_class_ : ndarray of int
        Class index (into ``classes_``) of each row of ``coef_``.
    converged_ : bool
        True if the last pass made no correction. With ``max_passes=0`` no pass is made and
        ``converged_`` says whether the strict rule would make none: every training sample's own
        class score beats every other class's strictly (a tie counts as an error, as in training).
    n_passes_ : int
    n_errors_ : list of int
        Corrections made in each pass.
    cycle_length_ : int or None
        Length in passes of the detected cycle, if any.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [1., 1.], [0., 1.], [1., 0.]])
    >>> y = np.array([0, 0, 1, 1])                          # XOR
    >>> clf = PiecewiseLinearClassifier(n_subclasses=2, random_state=0).fit(X, y)
    >>> clf.predict(X).tolist(), clf.converged_
    ([0, 0, 1, 1], True)
    >>> plc = PiecewiseLinearClassifier(n_subclasses=1, init="zeros", shuffle=False)
    >>> plc.fit(X, y).cycle_length_
    1
    """


    def __init__(self, n_subclasses: int | Sequence[int] = 2, learning_rate: float = 1.0,
                 max_passes: int = 100, init: str = "means", random_state: Any = 0,
                 shuffle: bool = True, center: bool = True) -> None:
        self.n_subclasses = n_subclasses
        self.learning_rate = learning_rate
        self.max_passes = max_passes
        self.init = init
        self.random_state = random_state
        self.shuffle = shuffle
        self.center = center

    def _counts(self, n_classes: int) -> np.ndarray:
        ns = self.n_subclasses
        if isinstance(ns, numbers.Integral) and not isinstance(ns, bool):
            return np.full(n_classes, _check_int(ns, "n_subclasses", 1))
        if isinstance(ns, (str, bytes)) or not hasattr(ns, "__len__"):
            raise TypeError(f"n_subclasses must be an int or a sequence of ints, got {type(ns).__name__}")
        counts = [_check_int(v, "n_subclasses[i]", 1) for v in ns]
        if len(counts) != n_classes:
            raise ValueError(
                f"n_subclasses has {len(counts)} entries but y has {n_classes} classes; "
                "give one count per class"
            )
        return np.array(counts)

    @atomic_fit
    def fit(self, X: Any, y: Any) -> PiecewiseLinearClassifier:
        """Find subclass weights by k-means and error correction.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs.
        y : array_like of shape (n_samples,)
            Class labels; at least two classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad ``X``/``y`` (NaN/inf, mismatched lengths, one class), ``n_subclasses`` of the
            wrong length or larger than a class's number of distinct samples, bad parameters.
            The estimator is then left as it was before the call.
        TypeError
            Non-numeric or complex input, parameters of the wrong type.
        """
        rho = _check_real(self.learning_rate, "learning_rate", 0.0, low_open=True)
        passes = _check_int(self.max_passes, "max_passes", 0)
        if self.init not in ("means", "random", "zeros"):
            raise ValueError(f"init must be 'means', 'random' or 'zeros', got {self.init!r}")
        center_data = check_bool(self.center, "center")
        shuffle = check_bool(self.shuffle, "shuffle")
        Xa, classes, codes = _fit_Xy(self, X, y)
        counts = self._counts(len(classes))
        center = Xa.mean(axis=0) if center_data else np.zeros(Xa.shape[1])
        if center_data:
            Xa = Xa - center
        visits = passes * Xa.shape[0]
        if visits > MAX_VISITS or visits * counts.sum() * (Xa.shape[1] + 1) > 5e9:
            raise ValueError(
                f"max_passes * n_samples = {visits:.3g} sample visits (at most "
                f"MAX_VISITS = {MAX_VISITS:.0e}, about a minute: the rule visits one sample at a "
                "time) or max_passes * n_samples * n_subclasses * (n_features + 1) above 5e9 "
                "operations; reduce max_passes"
            )
        rng = _rng(self.random_state)
        n, d = Xa.shape
        owner = np.repeat(np.arange(len(classes)), counts)
        if self.init == "means":
            W = np.vstack([_kmeans(Xa[codes == c], int(k), rng) for c, k in enumerate(counts)])
            A = np.hstack([W, -0.5 * (W * W).sum(1, keepdims=True)])
        elif self.init == "random":
            A = rng.uniform(-0.01, 0.01, size=(counts.sum(), d + 1))
        else:
            A = np.zeros((counts.sum(), d + 1))
        Y = np.hstack([Xa, np.ones((n, 1))])
        order = rng.permutation(n) if shuffle else np.arange(n)
        own = owner[None, :] == codes[:, None]            # (n, L): subclass belongs to the sample's class
        errors: list[int] = []
        seen: dict[bytes, int] = {A.tobytes(): 0}
        cycle_length: int | None = None
        S0 = Y @ A.T                                       # strict rule, as in a training pass
        own_best = np.where(own, S0, -np.inf).max(axis=1)
        rival_best = np.where(own, -np.inf, S0).max(axis=1)
        converged = passes == 0 and bool(np.all(own_best > rival_best))
        with np.errstate(over="ignore", invalid="ignore"):     # overflow is reported below
            for p in range(1, passes + 1):
                n_err = 0
                for k in order:                                # sequential by definition of the rule
                    s = A @ Y[k]
                    mine = np.where(own[k], s, -np.inf)
                    other = np.where(own[k], -np.inf, s)
                    m, r = int(np.argmax(mine)), int(np.argmax(other))
                    if s[m] <= s[r]:
                        A[m] += rho * Y[k]
                        A[r] -= rho * Y[k]
                        n_err += 1
                errors.append(n_err)
                if not np.all(np.isfinite(A)):
                    raise ValueError(
                        f"learning_rate={rho!r} makes the weights overflow to infinity in pass {p}; "
                        "use a smaller learning_rate (or rescale X)"
                    )
                if n_err == 0:
                    converged = True
                    break
                key = A.tobytes()
                if key in seen:
                    cycle_length = p - seen[key]
                    break
                seen[key] = p
        self.center_ = center
        self.coef_ = A
        self.subclass_class_ = owner
        self.classes_ = classes
        self.converged_ = converged
        self.cycle_length_ = cycle_length
        self.n_errors_ = errors
        self.n_passes_ = len(errors)
        return self

    def class_scores(self, X: Any) -> np.ndarray:
        """The class scores ``g_i(x) = max_l a_i^l . (x - center_, 1)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_classes)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        Xa = _predict_X(self, X, "coef_")
        S = np.hstack([Xa - self.center_, np.ones((Xa.shape[0], 1))]) @ self.coef_.T
        return np.column_stack([S[:, self.subclass_class_ == c].max(axis=1)
                                for c in range(len(self.classes_))])

    def decision_function(self, X: Any) -> np.ndarray:
        """Two classes: ``g_1(x) - g_0(x)``, shape ``(n_samples,)`` (positive predicts
        ``classes_[1]``); more: :meth:`class_scores`, shape ``(n_samples, n_classes)``."""
        G = self.class_scores(X)
        return G[:, 1] - G[:, 0] if G.shape[1] == 2 else G

    def predict(self, X: Any) -> np.ndarray:
        """The class with the largest ``g_i(x)`` (ties to the first), shape ``(n_samples,)``."""
        idx = np.argmax(self.class_scores(X), axis=1)
        return self.classes_[idx]


# --------------------------------------------------------------------------- Gaussian quadratic
class GaussianQuadraticClassifier(KTheoryClassifierMixin, KTheoryEstimator):
    """Plug-in Gaussian (quadratic) discriminant with priors.

    For class ``i`` with mean ``m_i``, covariance ``S_i`` and prior ``P_i``,

    ``g_i(x) = K_i^2 - (x - m_i)^T S_i^{-1} (x - m_i)``, ``K_i^2 = 2 ln P_i - ln det S_i``,

    which is twice the log of ``P_i N(x; m_i, S_i)`` plus ``d ln(2 pi)`` (a constant common to
    all classes). ``x`` goes to the class with the largest ``g_i``.

    Parameters
    ----------
    priors : array_like of shape (n_classes,) or None
        Class priors (positive, summing to 1); None: the class frequencies.
    covariance : {"ml", "unbiased"}
        Maximum likelihood (divide by ``N_i``; what the default QDA of scikit-learn 1.9.1 uses;
        up to 1.9.0 it divided by ``N_i - 1``) or unbiased
        (divide by ``N_i - 1``; the seed's estimator).
    reg_param : float in [0, 1]
        ``S_i <- (1 - reg_param) S_i + reg_param I`` (as scikit-learn's ``reg_param``).

    Attributes
    ----------
    classes_, n_features_in_, means_ (c, d), covariance_ (c, d, d), priors_ (c,),
    thresholds_ (c,) : the ``K_i^2``, which may be negative.

    Raises
    ------
    ValueError
        In ``fit``, for a singular class covariance (names the class; use ``reg_param``) or a
        class with fewer than two samples under ``covariance="unbiased"``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(3, 0.5, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> clf = GaussianQuadraticClassifier().fit(X, y)
    >>> clf.predict([[0.0, 0.0], [3.0, 3.0]]).tolist()
    [0, 1]
    >>> bool(np.allclose(np.exp(clf.predict_log_proba(X)).sum(1), 1.0))
    True
    """

    def __init__(self, priors: Any = None, covariance: str = "ml", reg_param: float = 0.0) -> None:
        self.priors = priors
        self.covariance = covariance
        self.reg_param = reg_param

    @atomic_fit
    def fit(self, X: Any, y: Any) -> GaussianQuadraticClassifier:
        """Estimate means, covariances and priors; precompute ``K_i^2`` and ``S_i^{-1}``
        (from one symmetric eigendecomposition ``S_i = V_i diag(w_i) V_i^T`` per class).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs.
        y : array_like of shape (n_samples,)
            Class labels; at least two classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad ``X``/``y`` or parameters, a singular class covariance or a class too small
            for its covariance. The estimator is then left as it was before the call.
        TypeError
            Non-numeric or complex input, parameters of the wrong type.
        """
        if self.covariance not in ("ml", "unbiased"):
            raise ValueError(f"covariance must be 'ml' or 'unbiased', got {self.covariance!r}")
        reg = _check_real(self.reg_param, "reg_param", 0.0, 1.0)
        Xa, classes, codes = _fit_Xy(self, X, y)
        c, d = len(classes), Xa.shape[1]
        counts = np.bincount(codes, minlength=c)
        if self.priors is None:
            priors = counts / counts.sum()
        else:
            priors = check_array(self.priors, "priors", ndim=1)
            if priors.shape[0] != c:
                raise ValueError(f"priors has {priors.shape[0]} entries but y has {c} classes")
            if np.any(priors <= 0) or abs(priors.sum() - 1) > 1e-8:
                raise ValueError(f"priors must be positive and sum to 1, got {priors.tolist()}")
        need_mb = QDA_PEAK_COPIES * c * d * d * 8 / 2**20
        if need_mb > QDA_LIMIT_MB:
            raise ValueError(
                f"X has {d} features: a fit holds {QDA_PEAK_COPIES} stacks of {c} covariance "
                f"matrices of {d}x{d} (the covariances, their eigenvectors scaled into "
                f"whitening matrices, and their inverses), {need_mb:.0f} MiB, more than "
                f"QDA_LIMIT_MB = {QDA_LIMIT_MB:g}; reduce the number of features"
            )
        ddof = 1 if self.covariance == "unbiased" else 0
        means = np.zeros((c, d))
        covs = np.zeros((c, d, d))
        for i in range(c):
            Z = Xa[codes == i]                     # a copy: centred in place below
            if Z.shape[0] - ddof < 1:
                raise ValueError(
                    f"class {classes[i].tolist()!r} has {Z.shape[0]} sample(s): too few for a "
                    f"covariance (covariance={self.covariance!r})"
                )
            means[i] = Z.mean(axis=0)
            Z -= means[i]
            covs[i] = (1 - reg) * (Z.T @ Z) / (Z.shape[0] - ddof) + reg * np.eye(d)
        # one symmetric eigendecomposition per class gives everything: the singularity test
        # (scale-relative), ln det S_i, S_i^{-1} and the whitening S_i^{-1} = A_i A_i^T
        w, V = np.linalg.eigh(covs)
        scale = np.maximum(np.abs(w).max(axis=1), np.finfo(float).tiny)
        bad = np.nonzero(w.min(axis=1) <= d * np.finfo(float).eps * scale)[0]
        if bad.size:
            raise ValueError(
                f"the covariance of class {classes[bad[0]].tolist()!r} is singular (fewer samples than "
                "features or collinear features); set reg_param > 0 to regularise it"
            )
        priors = np.asarray(priors, float)
        whiten = V
        whiten /= np.sqrt(w)[:, None, :]                # A_i = V_i diag(w_i)^(-1/2), in place
        self.classes_ = classes
        self.means_, self.covariance_, self.priors_ = means, covs, priors
        self.precision_ = whiten @ whiten.transpose(0, 2, 1)
        self._whiten_ = whiten
        self.thresholds_ = 2 * np.log(priors) - np.log(w).sum(axis=1)
        return self

    def discriminant_function(self, X: Any) -> np.ndarray:
        """The discriminants ``g_i(x) = K_i^2 - (x - m_i)^T S_i^{-1} (x - m_i)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_classes)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        return self._discriminant(_predict_X(self, X, "precision_")).T.copy()

    def _discriminant(self, Xa: np.ndarray) -> np.ndarray:
        """The discriminants of validated ``Xa``, transposed: shape ``(n_classes, n_samples)``.

        Per class, the centred block ``Xa - m_i`` times the whitening ``A_i`` (``S_i^{-1} =
        A_i A_i^T``) in one GEMM, then the row sums of squares; one pair of ``(n, d)``
        workspaces serves all classes. Classes along the first axis keep every row contiguous
        and make the reductions over classes elementwise."""
        whiten = self.__dict__.get("_whiten_")
        if whiten is None:                 # fitted by an older ktheory: from the precision
            whiten = np.linalg.cholesky(self.precision_)
        c = self.means_.shape[0]
        G = np.empty((c, Xa.shape[0]))
        Z = np.empty(Xa.shape)
        Y = np.empty(Xa.shape)
        for i in range(c):
            np.subtract(Xa, self.means_[i], out=Z)
            np.matmul(Z, whiten[i], out=Y)
            np.einsum("nd,nd->n", Y, Y, out=G[i])
        np.subtract(self.thresholds_[:, None], G, out=G)
        return G

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log posteriors ``ln P(class i | x)`` (a log-sum-exp of ``g_i / 2``), shape
        ``(n_samples, n_classes)``."""
        H = self._discriminant(_predict_X(self, X, "precision_"))
        H *= 0.5
        top = H.max(axis=0)
        E = np.subtract(H, top)
        np.exp(E, out=E)
        lse = E.sum(axis=0)
        np.log(lse, out=lse)
        lse += top
        H -= lse
        return H.T.copy()

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior probabilities, shape ``(n_samples, n_classes)``, rows summing to 1."""
        return np.exp(self.predict_log_proba(X))

    def decision_function(self, X: Any) -> np.ndarray:
        """Two classes: ``(g_1 - g_0) / 2``, the log-odds of ``classes_[1]`` (as scikit-learn's
        QDA), shape ``(n_samples,)``; more classes: ``g_i / 2`` up to a common constant, shape
        ``(n_samples, n_classes)``."""
        H = 0.5 * self._discriminant(_predict_X(self, X, "precision_"))
        return H[1] - H[0] if H.shape[0] == 2 else H.T.copy()

    def predict(self, X: Any) -> np.ndarray:
        """The class with the largest ``g_i(x)``, shape ``(n_samples,)``."""
        idx = np.argmax(self._discriminant(_predict_X(self, X, "precision_")), axis=0)
        return self.classes_[idx]


# --------------------------------------------------------------------------- MLP
def _logistic(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The logistic ``1 / (1 + exp(-a))`` without overflow (scipy's ``expit``: one pass, no
    masks), into ``out`` where given (``out=a`` works in place)."""
    return _expit(a) if out is None else _expit(a, out=out)


def _layer_sizes(layer_sizes: Any) -> list[int]:
    if isinstance(layer_sizes, (str, bytes)) or not hasattr(layer_sizes, "__len__"):
        raise TypeError(f"layer_sizes must be a sequence of ints, got {type(layer_sizes).__name__}")
    sizes = [_check_int(v, "layer_sizes[i]", 1) for v in layer_sizes]
    if len(sizes) < 2:
        raise ValueError(f"layer_sizes needs at least an input and an output size, got {sizes}")
    n_par = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
    if n_par > MAX_MLP_PARAMETERS:
        raise ValueError(f"layer_sizes {sizes} means {n_par} parameters (> {MAX_MLP_PARAMETERS}); refused")
    return sizes


def _unpack(w: np.ndarray, sizes: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    params, pos = [], 0
    for a, b in zip(sizes[:-1], sizes[1:]):
        W = w[pos:pos + a * b].reshape(a, b)
        pos += a * b
        params.append((W, w[pos:pos + b]))
        pos += b
    return params


def mlp_loss_gradient(w: Any, X: Any, T: Any, layer_sizes: Sequence[int]) -> tuple[float, np.ndarray]:
    """Loss and gradient of a logistic MLP by backpropagation.

    The network has layer widths ``layer_sizes = (n_0, ..., n_L)`` with ``n_0`` inputs; layer
    ``l`` computes ``x^l = f(x^{l-1} W^l + b^l)`` with the logistic ``f``. The loss is the
    mean over samples of ``1/2 ||t - x^L||^2``. Backpropagation: ``delta^L = -(t - x^L) x^L
    (1 - x^L)``, ``delta^l = x^l (1 - x^l) (delta^{l+1} W^{l+1 T})``, ``dE/dW^l = x^{l-1 T}
    delta^l / n`` and ``dE/db^l`` the mean of ``delta^l``.

    Parameters
    ----------
    w : array_like, shape (n_params,)
        All weights, layer by layer, ``W^l`` (row-major ``n_{l-1} x n_l``) then ``b^l``.
    X : array_like, shape (n_samples, n_0)
    T : array_like, shape (n_samples, n_L)
        Targets.
    layer_sizes : sequence of int

    Returns
    -------
    loss : float
    grad : ndarray of shape (n_params,)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> sizes = [3, 4, 2]
    >>> w = rng.normal(size=3 * 4 + 4 + 4 * 2 + 2)
    >>> X, T = rng.normal(size=(5, 3)), rng.uniform(size=(5, 2))
    >>> loss, g = mlp_loss_gradient(w, X, T, sizes)
    >>> gradient_check(lambda v: mlp_loss_gradient(v, X, T, sizes), w)[2] < 1e-6
    True
    """
    sizes = _layer_sizes(layer_sizes)
    wa = check_array(w, "w", ndim=1)
    n_par = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
    if wa.shape[0] != n_par:
        raise ValueError(f"w has {wa.shape[0]} entries but layer_sizes {sizes} needs {n_par}")
    _check_scale(wa, "w")
    Xa = _check_scale(_check_matrix(X, "X"))
    Ta = _check_scale(_check_matrix(T, "T"), "T")
    if Xa.shape[1] != sizes[0]:
        raise ValueError(f"X has {Xa.shape[1]} features but layer_sizes[0] is {sizes[0]}")
    if Ta.shape != (Xa.shape[0], sizes[-1]):
        raise ValueError(f"T must have shape {(Xa.shape[0], sizes[-1])}, got {Ta.shape}")
    loss, grad = _Backprop(sizes, Xa.shape[0]).loss_gradient(wa, Xa, Ta)
    return loss, grad


class _Backprop:
    """Backpropagation for :func:`mlp_loss_gradient` and :meth:`MLPClassifier.fit` on ``n``
    samples with workspaces allocated once: the activations, the deltas and ``1 - x^l`` of
    every layer, the gradient (written in place through views of the flat layout), so an
    epoch allocates nothing of size ``n``. Inputs are trusted (validated by the callers)."""

    def __init__(self, sizes: list[int], n: int) -> None:
        self.sizes, self.n = sizes, n
        self.acts = [np.empty((n, b)) for b in sizes[1:]]       # x^1 .. x^L
        self.deltas = [np.empty((n, b)) for b in sizes[1:]]
        self.work = [np.empty((n, b)) for b in sizes[1:]]       # 1 - x^l
        self.grad = np.empty(sum((sizes[k] + 1) * sizes[k + 1] for k in range(len(sizes) - 1)))
        self.grad_views = _unpack(self.grad, sizes)

    def loss(self, params: list[tuple[np.ndarray, np.ndarray]], X: np.ndarray, T: np.ndarray) -> float:
        """Forward pass (``x^l = f(x^{l-1} W^l + b^l)``) and the loss; leaves ``deltas[-1]``
        holding ``x^L - t`` for :meth:`gradient`."""
        a = X
        for (W, b), out in zip(params, self.acts):
            np.matmul(a, W, out=out)
            out += b
            _logistic(out, out=out)
            a = out
        diff = np.subtract(a, T, out=self.deltas[-1])           # -(t - x^L), exactly
        sq = np.multiply(diff, diff, out=self.work[-1])
        return 0.5 * float(np.sum(sq)) / self.n

    def gradient(self, params: list[tuple[np.ndarray, np.ndarray]], X: np.ndarray) -> np.ndarray:
        """The gradient after :meth:`loss` (the same weights), in the buffer ``self.grad``."""
        n, L = self.n, len(params)
        out = self.acts[-1]
        delta = self.deltas[-1]
        delta *= out
        delta *= np.subtract(1.0, out, out=self.work[-1])
        for l in range(L - 1, -1, -1):
            gW, gb = self.grad_views[l]
            np.sum(delta, axis=0, out=gb)
            gb /= n
            np.matmul((X if l == 0 else self.acts[l - 1]).T, delta, out=gW)
            gW /= n
            if l > 0:
                a = self.acts[l - 1]
                nxt = np.matmul(delta, params[l][0].T, out=self.deltas[l - 1])
                nxt *= a
                nxt *= np.subtract(1.0, a, out=self.work[l - 1])
                delta = nxt
        return self.grad

    def loss_gradient(self, w: np.ndarray, X: np.ndarray, T: np.ndarray) -> tuple[float, np.ndarray]:
        params = _unpack(w, self.sizes)
        loss = self.loss(params, X, T)
        return loss, self.gradient(params, X)


def gradient_check(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], w: Any, *,
                   eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray, float]:
    """Compare an analytic gradient with central finite differences.

    Parameters
    ----------
    fun : callable
        ``fun(w) -> (loss, grad)``.
    w : array_like, shape (n,)
        The point.
    eps : float
        Relative step: coordinate ``k`` uses ``h_k = eps * max(1, |w_k|)`` in
        ``(f(w + h_k e_k) - f(w - h_k e_k)) / (2 h_k)``.

    Returns
    -------
    grad, grad_fd : ndarray of shape (n,)
    rel_error : float
        ``||grad - grad_fd|| / max(||grad||, ||grad_fd||)`` (0 when both vanish).

    Examples
    --------
    >>> import numpy as np
    >>> f = lambda v: (float(np.sum(v ** 3)), 3 * v ** 2)
    >>> g, g_fd, err = gradient_check(f, np.array([1.0, -2.0]))
    >>> bool(err < 1e-9)
    True
    """
    if not callable(fun):
        raise TypeError(f"fun must be callable, returning (loss, grad); got {type(fun).__name__}")
    h = _check_real(eps, "eps", 0.0, 1.0, low_open=True)
    wa = check_array(w, "w", ndim=1)
    if wa.shape[0] > 1_000_000:
        raise ValueError(f"w has {wa.shape[0]} entries: 2 x that many loss evaluations are refused")
    _, g = fun(wa.copy())
    g = np.asarray(g, dtype=float)
    if g.shape != wa.shape:
        raise ValueError(f"fun returned a gradient of shape {g.shape}, expected {wa.shape}")
    g_fd = np.empty_like(wa)
    for k in range(wa.shape[0]):
        e = np.zeros_like(wa)
        e[k] = h * max(1.0, abs(wa[k]))
        g_fd[k] = (float(fun(wa + e)[0]) - float(fun(wa - e)[0])) / (2 * e[k])
    den = max(np.linalg.norm(g), np.linalg.norm(g_fd))
    rel = 0.0 if den == 0 else float(np.linalg.norm(g - g_fd) / den)
    return g, g_fd, rel


class MLPClassifier(KTheoryClassifierMixin, KTheoryEstimator):
    """A small multilayer perceptron: logistic units, squared error, gradient descent with momentum.

    Outputs: one unit for two classes (target 1 for ``classes_[1]``), ``c`` units with one-hot
    targets for ``c > 2`` classes. Each epoch is one full-batch step
    ``v <- momentum v - learning_rate grad``, ``w <- w + v`` (the update that decreases the
    loss; see Chapter 1 for the seed's sign). Weights start uniform in ``+-1/sqrt(fan_in)``.

    Parameters
    ----------
    hidden_layer_sizes : sequence of int
    learning_rate : float > 0
        Finite; a step that makes the weights diverge is reported as a ValueError.
    momentum : float in [0, 1)
    max_epochs : int >= 1
    tol : float >= 0
        Finite. Stop when the loss falls below ``tol``.
    standardize : bool
        Standardise the inputs with the training mean and standard deviation.
    random_state : int, Generator or None

    Attributes
    ----------
    classes_, n_features_in_, layer_sizes_, coefs_ (flat weight vector), loss_curve_,
    mean_, scale_ (the standardisation), n_epochs_.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [1., 1.], [0., 1.], [1., 0.]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = MLPClassifier(hidden_layer_sizes=(4,), learning_rate=2.0, max_epochs=3000)
    >>> clf = clf.fit(X, y)
    >>> clf.predict(X).tolist()
    [0, 0, 1, 1]
    """

    def __init__(self, hidden_layer_sizes: Sequence[int] = (8,), learning_rate: float = 1.0,
                 momentum: float = 0.9, max_epochs: int = 2000, tol: float = 0.0,
                 standardize: bool = True, random_state: Any = 0) -> None:
        self.hidden_layer_sizes = hidden_layer_sizes
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.max_epochs = max_epochs
        self.tol = tol
        self.standardize = standardize
        self.random_state = random_state

    @atomic_fit
    def fit(self, X: Any, y: Any) -> MLPClassifier:
        """Train by full-batch gradient descent with momentum on the squared error.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs.
        y : array_like of shape (n_samples,)
            Class labels; at least two classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad ``X``/``y`` or parameters (``learning_rate`` must be finite and positive), or
            divergence: a weight leaves ``[-1e150, 1e150]`` or becomes infinite (the message names
            ``learning_rate`` and the epoch). The estimator is then left as it was before the call.
        TypeError
            Non-numeric or complex input, parameters of the wrong type.
        """
        eta = _check_real(self.learning_rate, "learning_rate", 0.0, low_open=True)
        mu = _check_real(self.momentum, "momentum", 0.0, 1.0, high_open=True)
        epochs = _check_int(self.max_epochs, "max_epochs", 1)
        tol = _check_real(self.tol, "tol", 0.0)
        standardize = check_bool(self.standardize, "standardize")
        hidden = self.hidden_layer_sizes
        if isinstance(hidden, numbers.Integral) and not isinstance(hidden, bool):
            hidden = (hidden,)
        Xa, classes, codes = _fit_Xy(self, X, y)
        c = len(classes)
        n_out = 1 if c == 2 else c
        sizes = _layer_sizes([Xa.shape[1], *list(hidden), n_out])
        if epochs * Xa.shape[0] * sum(a * b for a, b in zip(sizes[:-1], sizes[1:])) > 5e10:
            raise ValueError("max_epochs x n_samples x n_weights exceeds 5e10 operations; refused")
        if standardize:
            mean, scale = Xa.mean(axis=0), Xa.std(axis=0)
            scale = np.where(scale > 0, scale, 1.0)
        else:
            mean, scale = np.zeros(Xa.shape[1]), np.ones(Xa.shape[1])
        Z = (Xa - mean) / scale
        T = codes[:, None].astype(float) if c == 2 else np.eye(c)[codes]
        rng = _rng(self.random_state)
        w = np.concatenate([np.concatenate([rng.uniform(-1, 1, a * b) / np.sqrt(a), np.zeros(b)])
                            for a, b in zip(sizes[:-1], sizes[1:])])
        v = np.zeros_like(w)
        step = np.empty_like(w)
        # the constant parts of an epoch, once: workspaces and the views of w's layers (w and
        # v are updated in place below; both are new arrays of this fit)
        backprop = _Backprop(sizes, Z.shape[0])
        params = _unpack(w, sizes)
        curve: list[float] = []
        for _ in range(epochs):
            loss = backprop.loss(params, Z, T)
            curve.append(loss)
            if loss < tol:
                break
            g = backprop.gradient(params, Z)
            with np.errstate(over="ignore", invalid="ignore"):   # divergence is reported below
                v *= mu                                          # v <- mu v - eta g
                v -= np.multiply(g, eta, out=step)
                w += v
            top = np.abs(w, out=step).max()
            if not top <= MAX_ABS_INPUT:                         # also NaN and inf
                raise ValueError(
                    f"gradient descent diverged at epoch {len(curve)}: learning_rate={eta!r} drove the "
                    f"weights beyond {MAX_ABS_INPUT:g} (or to infinity); use a smaller learning_rate"
                )
        self.classes_ = classes
        self.layer_sizes_, self.coefs_ = sizes, w
        self.mean_, self.scale_ = mean, scale
        self.loss_curve_, self.n_epochs_ = curve, len(curve)
        return self

    def _forward(self, X: Any) -> np.ndarray:
        """The network's outputs, shape ``(n_samples, n_outputs)``."""
        a = (_predict_X(self, X, "coefs_") - self.mean_) / self.scale_
        for W, b in _unpack(self.coefs_, self.layer_sizes_):
            a = _logistic(a @ W + b)
        return a

    def predict_proba(self, X: Any) -> np.ndarray:
        """Network outputs normalised to rows summing to 1 (two classes: ``(1 - y, y)``), shape
        ``(n_samples, n_classes)``."""
        out = self._forward(X)
        if out.shape[1] == 1:
            return np.hstack([1 - out, out])
        return out / out.sum(axis=1, keepdims=True)

    def decision_function(self, X: Any) -> np.ndarray:
        """Two classes: output minus 1/2, shape ``(n_samples,)`` (positive predicts ``classes_[1]``);
        more: the outputs, shape ``(n_samples, n_classes)``."""
        out = self._forward(X)
        return out[:, 0] - 0.5 if out.shape[1] == 1 else out

    def predict(self, X: Any) -> np.ndarray:
        """The class with the largest output (two classes: output > 1/2), shape ``(n_samples,)``."""
        out = self._forward(X)
        idx = (out[:, 0] > 0.5).astype(int) if out.shape[1] == 1 else np.argmax(out, axis=1)
        return self.classes_[idx]
