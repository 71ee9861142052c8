"""The soft-margin support vector classifier, as scikit-learn's ``SVC`` (estimator layer).

Two classes are one binary SVM solved by SMO; ``k >= 3`` classes are one-vs-one
(:mod:`ktheory.svm._ovo`). The kernel set-up, the input checks and the dual solve are those
of every SVM estimator (:class:`ktheory.svm._kernel_svm.KernelSVMBase`). The module stays
one file although it is long: it is one class, and most of its length is the docstring
that documents scikit-learn's parameters and attributes in one place.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if

from .._base import KTheoryClassifierMixin, atomic_fit
from .._validation import check_bool, check_sample_weight, class_labels
from ._core import DEFAULT_CACHE_MB, DEFAULT_GRAM_LIMIT_MB, check_max_iter
from ._kernel_svm import KernelSVMBase
from ._ovo import fit_ovo, ovo_coef, ovo_decision, ovr_decision, vote_winner
from ._platt import coupled_probabilities, fit_sigmoids

__all__ = ["SVC"]


class SVC(KTheoryClassifierMixin, KernelSVMBase):
    """Soft-margin support vector classifier trained by SMO, as libsvm.

    Mirrors ``sklearn.svm.SVC``: same parameters (those listed here) **with the
    same defaults** as ``sklearn.svm.SVC`` (``C=1.0``, ``kernel="rbf"``,
    ``degree=3``, ``gamma="scale"``, ``coef0=0.0``, ``tol=1e-3``,
    ``shrinking=True``, ``cache_size=200``, ``verbose=False``, ``max_iter=-1``,
    ``decision_function_shape="ovr"``, ``break_ties=False``),
    same learned attributes and signs, and, because it runs the same algorithm
    in the same order, the same solution to within the tolerance. (The kernel
    *functions* of :mod:`ktheory.kernels` have the book's defaults; the
    estimator passes every parameter explicitly.)

    Two classes are one binary SVM. ``k >= 3`` classes are handled as libsvm
    does, **one-vs-one**: a binary SVM for each of the ``k(k-1)/2`` pairs of
    classes ``(i, j)``, ``i < j`` (class ``i`` on the positive side), and the
    prediction by voting, a tie going to the lowest class index (see
    :mod:`ktheory.svm._ovo` for the layout of the attributes).

    Parameters
    ----------
    C : float, default 1.0
        Box constraint ``0 <= alpha_i <= C``; ``> 0``. ``C=float("inf")`` is the
        hard margin (Chapter 7: no box, ``alpha_i >= 0`` only), which scikit-learn also
        accepts: where the classes (for ``k >= 3``: of every pair) are separable in the
        kernel's feature space the fit is the hard-margin SVM; where they are not, the
        hard-margin problem is infeasible (its dual unbounded), and :meth:`fit` raises a
        ``ValueError`` saying so (scikit-learn's libsvm iterates until ``max_iter``).
        Feasibility is decided by a linear program on the training Gram matrix
        (``gram_limit_mb`` applies to every kernel when ``C`` is infinite).
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"} or callable, default "rbf"
        A name (scikit-learn's parametrisation: ``"linear"`` ``<x, z>``,
        ``"poly"`` ``(gamma <x, z> + coef0)^degree``, ``"rbf"``
        ``exp(-gamma ||x - z||^2)``, ``"sigmoid"`` ``tanh(gamma <x, z> + coef0)``,
        evaluated in training by the compiled solver, one kernel value at a
        time, and at prediction by the functions of :mod:`ktheory.kernels`;
        the two agree to rounding), a callable
        ``k(X, Y)`` returning the ``(len(X), len(Y))`` Gram block (called with the
        training data at :meth:`fit`, with test data and the support vectors at
        prediction; with a callable, ``X`` may be any sequence of samples, see Notes), or
        ``"precomputed"``: then ``X`` in :meth:`fit` is the ``(n, n)`` training
        Gram matrix and in :meth:`predict` the ``(n_test, n_train)`` matrix of
        kernel values against the training points. A fitted model stores the
        kernel by name and parameters, so it can be pickled (with a callable
        kernel: if the callable can).
    degree : int, default 3
        Degree of ``"poly"`` (an integer ``>= 1``; ignored by other kernels).
    gamma : {"scale", "auto"} or float, default "scale"
        Kernel coefficient of ``"poly"``, ``"rbf"``, ``"sigmoid"`` (the linear
        kernel has none): ``"scale"`` is ``1 / (n_features * X.var())`` (1 if
        ``X.var() == 0``), ``"auto"`` is ``1 / n_features``, a float is used as
        is (``> 0``). If ``"scale"`` is not representable in float64 (``X``
        near ``1e±200``) ``fit`` says so and asks for rescaled data or a
        numeric gamma.
    coef0 : float, default 0.0
        Constant of ``"poly"`` and ``"sigmoid"``.
    shrinking : bool, default True
        libsvm's shrinking heuristic: variables at a bound that look set to stay
        there are set aside and the iteration runs on the rest (a heuristic:
        the stopping test is always made on all variables, so the guarantee
        is the same to ``tol``; the iterates differ).
    probability : bool, default False
        Also fit Platt's sigmoid of each binary problem, as libsvm (5-fold internal
        cross-validation of that problem's SVM, then the regularised maximum-likelihood
        sigmoid of Lin, Lin and Weng, 2007; see :mod:`ktheory.svm._platt`), which makes
        :meth:`fit` about six times slower and enables :meth:`predict_proba` and
        :meth:`predict_log_proba` (``k >= 3``: pairwise coupling, Wu, Lin and Weng 2004,
        method 2). :meth:`predict` still uses the decision function, so it may disagree
        with the most probable class, as in scikit-learn. (scikit-learn 1.9 deprecates its
        ``probability`` in favour of ``CalibratedClassifierCV``; its default there is the
        marker ``"deprecated"``, which means False.)
    tol : float, default 1e-3
        Stopping tolerance on the maximal violation ``m(alpha) - M(alpha)``.
        A ``tol`` above 2 stops before the first step (no support vectors;
        every decision value is then the intercept).
    cache_size : float, default 200
        MiB of kernel rows to keep (least recently used out first), as
        scikit-learn's ``cache_size``: ``floor(cache_size * 2**20 / (8 n))``
        rows, at least 2 (a step needs two) and at most ``n``. Each slot holds a
        whole float64 row, so the same MiB hold fewer rows than libsvm's
        single-precision cache, which also stores short rows under shrinking. A
        named kernel's rows are computed from ``X`` when needed: memory is
        ``O(n d)`` plus the cache, never the ``n x n`` matrix.
    verbose : bool, default False
        Print the iteration count, the maximal violation (of the last selection,
        on the active set), the size of the active set and the cache hit rate
        about once a second, and a summary line (``SMO done: ...``) at the end.
    max_iter : int, default -1
        Iteration limit, ``-1`` for none (as scikit-learn's libsvm: SMO
        stops at ``tol``). A limit you set that is reached issues a
        :class:`ConvergenceWarning`.
    gram_limit_mb : float, default 2048
        For a *callable* kernel only, whose training Gram matrix is computed
        once and held (``n**2 * 8`` bytes: 5000 samples need 200 MB): refuse
        (``ValueError``) a matrix larger than this many MiB. (Not a parameter
        of scikit-learn's SVC.)
    solver : {"auto", "numpy", "compiled"}, default "auto"
        Which code runs SMO (the problem, the stopping rule and the intercept rule
        are the same; the iterates may differ, the optimum to ``tol`` does not).
        ``"compiled"``: numba's solver, with kernel rows on demand, a row cache
        and shrinking (needs the optional extra ``ktheory[fast]``). ``"numpy"``:
        the iteration of :func:`smo_solve` on the training Gram matrix (held in
        memory, so ``gram_limit_mb`` applies to every kernel; no cache, no
        shrinking). ``"auto"``: ``"numpy"`` for training sets of at most 2048
        samples (whose fit takes about as long as loading numba, so that a first fit
        does not load it) and where numba is not installed, otherwise ``"compiled"``.
        The numpy budget is the process's: once ``"auto"`` fits have spent 20 000
        numpy iterations (``AUTO_NUMPY_ITER``, about 0.3 s) the unfinished problem is
        solved again compiled, and so is every later one (a ``max_iter`` at or below
        the budget left keeps a fit on numpy); once a compiled solve has run in the
        process (numba's load paid), small sets are compiled too. A result that must not depend
        on the process's history takes ``"numpy"`` or ``"compiled"``; the two agree
        to ``tol``. (Not a parameter of scikit-learn's SVC.)
    decision_function_shape : {"ovr", "ovo"}, default "ovr"
        For ``k >= 3`` classes: ``"ovo"`` makes :meth:`decision_function`
        return the ``k(k-1)/2`` pairwise decision values, ``"ovr"`` the
        ``(n, k)`` one-vs-rest-shaped values scikit-learn derives from them
        (votes plus a squashed sum of confidences in ``(-1/3, 1/3)``). Ignored
        for two classes (a 1-D decision function).
    break_ties : bool, default False
        For ``k >= 3`` and ``decision_function_shape="ovr"``: predict the
        argmax of the ovr decision function, which breaks vote ties by the
        confidences, instead of libsvm's vote (ties to the lowest class
        index). ``True`` with ``"ovo"`` is a ``ValueError`` in :meth:`predict`,
        as in scikit-learn.
    random_state : None, int or numpy.random.RandomState, default None
        The shuffle of the cross-validation folds with ``probability=True`` (ignored
        otherwise), through :func:`sklearn.utils.check_random_state`. numpy's generator is
        not libsvm's, so the folds, and the probabilities, differ from scikit-learn's with
        the same ``random_state``: they agree only to what the cross-validation's
        randomness allows (a few hundredths on well-separated data).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (k,)
        The labels, sorted. With two classes ``classes_[1]`` is the positive
        class (``decision_function > 0``), as in scikit-learn.
    support_ : numpy.ndarray of shape (n_SV,)
        Indices of the support vectors (``alpha_i > 0``; for ``k >= 3``: in
        at least one pair), grouped by class in the order of ``classes_``,
        each group in increasing order (libsvm's order).
    support_vectors_ : numpy.ndarray of shape (n_SV, n_features)
        The support vectors; an empty ``(0, 0)`` array for ``"precomputed"``
        (as scikit-learn). With a callable kernel fitted on a sequence of samples
        (see Notes): the samples that are support vectors, a 1-D object array (or the
        rows of the array given), which the callable receives at prediction.
    n_support_ : numpy.ndarray of shape (k,)
        Number of support vectors in each class.
    dual_coef_ : numpy.ndarray of shape (k - 1, n_SV)
        Two classes: ``alpha_i y_i`` with ``y_i = +1`` for ``classes_[1]``,
        ``-1`` for ``classes_[0]``. ``k >= 3``: libsvm's packed layout; in pair
        ``(i, j)`` (``y = +1`` for class ``i``) the coefficients of class
        ``i``'s support vectors are in row ``j - 1``, those of class ``j``'s in
        row ``i`` (0 where a support vector is not one of that pair).
    intercept_ : numpy.ndarray of shape (k(k-1)/2,)
        ``b`` in ``f(x) = sum_i dual_coef_i k(sv_i, x) + b``; for ``k >= 3``
        one per pair, in the order ``(0,1), (0,2), ..., (k-2,k-1)``, with
        ``f_p > 0`` for the pair's first class.
    alpha_ : numpy.ndarray of shape (n_samples,) or (k(k-1)/2, n_samples)
        All dual variables, in the order of the training samples (per pair
        for ``k >= 3``, 0 for samples of the other classes).
    n_iter_ : numpy.ndarray of shape (k(k-1)/2,), dtype int32
        Number of SMO iterations of each binary problem, in the order of the pairs
        (shape ``(1,)`` for two classes), as scikit-learn's ``n_iter_``. The count
        depends on the rounding of the kernel values (ties between working-set
        candidates), so it may differ by a few iterations between machines.
    objective_ : float or numpy.ndarray of shape (k(k-1)/2,)
        Final dual objective (per pair) in libsvm's minimisation form
        ``1/2 alpha^T Q alpha - sum(alpha)``; it is ``<= 0`` and equals minus
        the book's (maximised) dual objective.
    gap_ : float or numpy.ndarray of shape (k(k-1)/2,)
        Final maximal violation ``m(alpha) - M(alpha)`` (``< tol``), per pair
        for ``k >= 3``.
    solver_stats_ : dict or list of dict or None
        What the compiled solver did (None where the estimator solved on the numpy
        path, see Notes; a list, one per pair, for ``k >= 3``):
        ``cache_rows`` (rows the cache holds), ``row_length``, ``hits``,
        ``misses`` and ``evictions`` of the row cache, ``shrink_steps``
        (shrinking checks that set variables aside), ``unshrinks`` (0 or 1:
        libsvm's single unshrink when the violation first drops below
        ``10 tol``), ``reconstructions`` (rebuilds of the inactive variables'
        gradient), the final ``active_size``, and ``history``: arrays
        ``iteration``, ``active_size`` and ``violation`` recorded at each
        shrinking check, every ``min(n, 1000)`` iterations and once more after
        a final test that failed; ``violation`` is that of the selection just
        before the check, over the active set (at most 10 000 entries);
        ``face_rounds``: how often SMO stalled (its violation did not halve within
        ``max(10 n, 100 000)`` steps) and handed its point to face steps, which move
        the free multipliers to the first bound along a zero-curvature direction or to
        their face's minimiser before SMO resumes (raw breast_cancer with a linear
        kernel at ``C = 100``: 6 rounds and 1.4e6 steps instead of 4e8); after such a
        round the counts and ``history`` are those of the last SMO run.
    coef_ : numpy.ndarray of shape (k(k-1)/2, n_features)
        ``kernel="linear"`` only (a read-only property; for any other kernel it raises
        ``AttributeError``, so ``hasattr`` is False, as in scikit-learn): the primal
        weights ``w_p = sum_t dual_coef_t sv_t`` of each binary problem, one row per pair
        in the order of ``intercept_`` (shape ``(1, n_features)`` for two classes, with
        scikit-learn's sign: ``X @ coef_.T + intercept_`` is :meth:`decision_function`;
        for ``k >= 3`` it is the ``"ovo"`` decision function).
    probA_, probB_ : numpy.ndarray of shape (k(k-1)/2,)
        With ``probability=True``: the sigmoid ``P = 1 / (1 + exp(probA_ f + probB_))`` of
        each binary problem, in the order of ``intercept_``, where ``f`` is libsvm's
        decision value, positive for the pair's first class (for two classes:
        ``-decision_function``, ``P`` the probability of ``classes_[0]``), as
        scikit-learn's ``probA_`` and ``probB_``. Empty arrays with ``probability=False``.
    shape_fit_ : tuple
        Shape of the training ``X`` (``(n_samples,)`` for a sequence of samples).
    n_features_in_ : int
        Number of features (columns) of the training ``X`` (not set for a sequence of
        samples, as in scikit-learn).

    Notes
    -----
    Labels: any two distinct values (numbers, strings, booleans); floats must
    be whole numbers (non-integer floats are a regression target and are
    refused, as scikit-learn does). libsvm gives the label ``+1`` to
    ``classes_[0]`` inside the solver and scikit-learn flips the signs
    afterwards; the dual problem is invariant under ``y -> -y``, so this class
    does the same and reports scikit-learn's signs.

    Input: dense arrays, or scipy.sparse matrices (CSR, CSC, LIL, ...; not for
    ``kernel="precomputed"``), which are densified (within ``gram_limit_mb``): the fit is
    that of ``X.toarray()``, ``support_vectors_`` is CSR, and a model fitted on dense data
    refuses sparse input at prediction, as scikit-learn's; ``bool`` is read as 0/1,
    ``float32`` is converted to float64 (a
    precomputed float32 Gram matrix is checked for symmetry to float32's
    rounding level); complex input is refused. With a *callable* kernel, an ``X`` that
    is not a 2-D numeric array (a list of strings, of graphs, of sequences of different
    lengths, a 1-D or 3-D array, ...) is a sequence of samples, as in scikit-learn: its
    length is checked, nothing else, and the callable receives the samples unchanged (a
    numpy array as it is, any other sequence as a list of its elements): ``k(X, X)`` at
    :meth:`fit`, ``k(X_test, support samples)`` at prediction (scikit-learn passes all
    the training samples there; the support vectors alone give the same values). A 2-D
    numeric ``X`` is checked as for a named kernel (finite, 2-D, ``n_features_in_``).

    Solver: the iteration of :func:`smo_solve` (libsvm's), compiled, with
    kernel rows computed on demand and cached and with shrinking (see
    :mod:`ktheory.svm._fast`). With ``shrinking=False`` it takes the same steps
    as :func:`smo_solve` fed the same order, up to the first exact tie between
    candidates (after a step that leaves both variables free their scores are
    equal in exact arithmetic, and the two codes round differently); from
    there the paths differ and end at the same optimum to ``tol``. With
    shrinking the order of the active set is no longer libsvm's either, so
    ties may go another way than in libsvm. Where SMO stalls (its violation has not
    halved within ``max(10 n, 100 000)`` steps, as on the degenerate faces of a linear
    kernel at a large ``C``) the compiled solver also takes face steps
    (:mod:`ktheory.svm._face`, counted in ``solver_stats_["face_rounds"]``), which
    libsvm and :func:`smo_solve` do not: the same optimum to ``tol``, reached by fewer
    steps (raw breast_cancer, linear, ``C = 100``: 0.4 s instead of 38 s).

    On the numpy path (``solver="numpy"``, and ``"auto"`` for small training
    sets until the process has run a compiled solve or spent its numpy budget,
    or without numba, the optional extra ``ktheory[fast]``) the estimator
    solves with :func:`smo_solve`'s iteration on the Gram matrix of the training
    data (so ``gram_limit_mb`` applies to every kernel), without a row cache or
    shrinking (``shrinking``, ``cache_size`` and ``verbose`` have no effect and
    ``solver_stats_`` is None). The problem, the stopping rule and the intercept
    rule are the same, and so is the optimum to ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[-2., -1.], [-1., -1.], [-1., -2.], [1., 1.], [1., 2.], [2., 1.]])
    >>> clf = SVC(kernel="linear").fit(X, [1, 1, 1, 2, 2, 2])
    >>> (clf.support_.tolist(), np.round(clf.dual_coef_, 6).tolist(),
    ...  np.round(clf.intercept_, 6).tolist())
    ([1, 3], [[-0.25, 0.25]], [0.0])
    >>> clf.predict([[-0.8, -1.0]]).tolist()
    [1]
    >>> import pickle
    >>> pickle.loads(pickle.dumps(clf)).predict([[-0.8, -1.0]]).tolist()
    [1]

    Three classes, one point each: every pair is a two-point hard-margin SVM
    (``alpha = 2 / ||x_i - x_j||^2``), packed as libsvm packs it.

    >>> X3 = np.array([[0., 0.], [2., 0.], [0., 4.]])
    >>> clf3 = SVC(kernel="linear", C=10.0, tol=1e-10).fit(X3, ["a", "b", "c"])
    >>> np.round(clf3.dual_coef_, 6).tolist(), np.round(clf3.intercept_, 6).tolist()
    ([[0.5, -0.5, -0.125], [0.125, 0.1, -0.1]], [1.0, 1.0, 0.6])
    >>> clf3.predict([[0.2, 0.1], [2.5, 0.5], [0.5, 3.0]]).tolist()
    ['a', 'b', 'c']
    >>> clf3.set_params(decision_function_shape="ovo")
    SVC(C=10.0, decision_function_shape='ovo', kernel='linear', tol=1e-10)
    >>> # pairs (a,b), (a,c), (b,c)
    >>> np.round(clf3.decision_function([[0.5, 1.0]]), 6).tolist()
    [[0.5, 0.5, 0.3]]
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str | Callable[..., Any] = "rbf",
        degree: int = 3,
        gamma: str | float = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        probability: bool = False,
        tol: float = 1e-3,
        cache_size: float = DEFAULT_CACHE_MB,
        class_weight: dict | str | None = None,
        verbose: bool = False,
        max_iter: int = -1,
        gram_limit_mb: float = DEFAULT_GRAM_LIMIT_MB,
        decision_function_shape: str = "ovr",
        break_ties: bool = False,
        random_state: Any = None,
        solver: str = "auto",
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.gram_limit_mb = gram_limit_mb
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.solver = solver

    _hard_margin_and_sequences = True

    def _check_params(self) -> None:
        self._check_smo_params()
        self._check_multiclass_params()
        check_bool(self.probability, "probability")
        cw = self.class_weight
        if not (cw is None or isinstance(cw, dict) or (isinstance(cw, str) and cw == "balanced")):
            raise (ValueError if isinstance(cw, str) else TypeError)(
                f"class_weight must be None, 'balanced' or a dict mapping class labels to "
                f"weights, got {type(cw).__name__} {cw!r}")

    def _class_weights(self, classes: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``class_weight_``: one factor per class of ``classes`` (scikit-learn's
        ``compute_class_weight``: ones for None; ``n / (k * count)`` for "balanced",
        counted over all of ``y``; a dict's values, 1 for a class it omits), each a
        finite number (zero and negative weights leave the class's samples out)."""
        cw = self.class_weight
        if cw is None:
            return np.ones(classes.shape[0])
        if isinstance(cw, dict):
            for label, value in cw.items():
                if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
                        np.isfinite(float(value))):
                    raise ValueError(f"class_weight[{label!r}] must be a finite real number, "
                                     f"got {value!r}")
            missing = [label for label in cw if not np.any(classes == label)]
            if missing:
                raise ValueError(f"class_weight has labels {missing!r} that are not classes of "
                                 f"y (classes {classes.tolist()!r})")
        return np.asarray(compute_class_weight(cw, classes=classes, y=y), dtype=np.float64)

    def _check_multiclass_params(self) -> None:
        """``decision_function_shape`` and ``break_ties``, checked at fit and where used."""
        if not isinstance(self.decision_function_shape, str):
            raise TypeError(
                f"decision_function_shape must be 'ovr' or 'ovo' (a str), got "
                f"{type(self.decision_function_shape).__name__} {self.decision_function_shape!r}"
            )
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(
                f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}"
            )
        if not isinstance(self.break_ties, (bool, np.bool_)):
            raise TypeError(
                f"break_ties must be a bool, got {type(self.break_ties).__name__} {self.break_ties!r}"
            )

    # -- fit / predict -------------------------------------------------------
    @atomic_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "SVC":
        """Fit the classifier by SMO.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training inputs; for ``kernel="precomputed"`` the square
            ``(n_samples, n_samples)`` training Gram matrix.
        y : array_like of shape (n_samples,)
            Labels: two or more distinct values (``k >= 3``: one-vs-one).
        sample_weight : array_like of shape (n_samples,) or float, optional
            Per-sample factors of ``C``, as libsvm: sample ``i`` gets the box
            ``0 <= alpha_i <= C * class_weight_[y_i] * sample_weight[i]``. A sample whose
            factor is zero or negative is left out of the problem (scikit-learn's rule);
            ``support_`` and ``alpha_`` still index the samples as given (0 for those left
            out). Weights ``t w`` fit as weights ``w`` with ``C`` times ``t``.

        Returns
        -------
        SVC
            ``self``.

        Raises
        ------
        ValueError
            For NaN/inf in ``X``, ``y`` or ``sample_weight``, mismatched lengths, one class
            only (also: among the samples of positive weight, or no such sample),
            continuous (non-integer float) labels, a
            non-square or non-symmetric precomputed matrix, invalid parameters,
            a Gram matrix above ``gram_limit_mb``, or a Gram matrix that
            overflows (NaN or infinity).
        TypeError
            For a sparse precomputed matrix, complex, string or ``None`` input and
            parameters of the
            wrong type.
        """
        self._check_params()
        rng = check_random_state(self.random_state)   # validated at every fit, as scikit-learn
        X, y = self._fit_input(X, y)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n)
        classes, cls = class_labels(y, estimator=type(self).__name__)
        class_weight = self._class_weights(classes, y)
        factor = None
        if sw is not None or self.class_weight is not None:
            factor = class_weight[cls] if sw is None else sw * class_weight[cls]
        C, keep = self._sample_bounds(factor)
        kept = np.arange(n) if keep is None else np.flatnonzero(keep)
        self._check_kept_classes(classes, cls[kept])
        # libsvm's order: class 0 first, then class 1, each in input order
        # (svm_group_classes); reversed here so that numpy's first-index argmax
        # breaks ties as libsvm's last-index loops do.
        perm = kept[np.argsort(cls[kept], kind="stable")]
        order = perm[::-1].copy()
        y_int = np.where(cls[order] == 0, 1.0, -1.0)  # libsvm: +1 for classes_[0]

        self._set_kernel(X)
        self.class_weight_ = class_weight
        if classes.shape[0] > 2:
            self._fit_ovo(X, classes, cls, C, keep)
            self._fit_probability(X, cls, classes.shape[0], rng, C, keep)
            return self
        res = self._dual(X, self._training_gram(X), order, y_int, C,
                         float(self.tol), check_max_iter(self.max_iter))

        alpha = np.zeros(n)
        alpha[order] = res.alpha
        sv_mask = alpha > 0
        sv0 = np.flatnonzero(sv_mask & (cls == 0))
        sv1 = np.flatnonzero(sv_mask & (cls == 1))
        support = np.concatenate([sv0, sv1]).astype(np.int32)
        y_user = np.where(cls == 1, 1.0, -1.0)

        self.classes_ = classes
        self.alpha_ = alpha
        self.support_ = support
        self.n_support_ = np.array([sv0.size, sv1.size], dtype=np.int32)
        self.dual_coef_ = (alpha[support] * y_user[support]).reshape(1, -1)
        self.intercept_ = np.array([0.0 - res.intercept])
        self.n_iter_ = np.array([res.n_iter], dtype=np.int32)
        self.objective_ = float(res.objective)
        self.gap_ = float(res.gap)
        self.solver_stats_ = res.stats
        self._set_support_vectors(X, support)
        self._fit_probability(X, cls, 2, rng, C, keep)
        return self

    @staticmethod
    def _check_kept_classes(classes: np.ndarray, kept_cls: np.ndarray) -> None:
        """Every class must keep a sample of positive weight (scikit-learn's messages for
        two classes)."""
        if kept_cls.shape[0] == 0:
            raise ValueError("Invalid input - all samples have zero or negative weights "
                             "(sample_weight times class_weight); at least one sample of each "
                             "class needs a positive weight")
        present = np.bincount(kept_cls, minlength=classes.shape[0]) > 0
        if np.count_nonzero(present) == 1:
            raise ValueError("Invalid input - all samples with positive weights belong to the "
                             f"same class ({classes[np.argmax(present)]!r}); a classifier needs "
                             "two classes")
        if not np.all(present):
            raise ValueError(
                f"classes {classes[~present].tolist()!r} have no sample of positive weight "
                "(sample_weight times class_weight); give them positive weights or remove them "
                "from y")

    def _fit_probability(self, X: np.ndarray, cls: np.ndarray, k: int, rng: Any,
                         C: float | np.ndarray, keep: np.ndarray | None) -> None:
        """``probA_``, ``probB_``: Platt's sigmoids (:func:`ktheory.svm._platt.fit_sigmoids`)
        on the samples ``keep`` with bounds ``C`` (as :meth:`_sample_bounds`); empty arrays
        with ``probability=False``, as scikit-learn."""
        empty = (np.empty(0), np.empty(0))
        self.probA_, self.probB_ = (fit_sigmoids(self, X, cls, k, rng, C, keep)
                                    if self.probability else empty)

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed decision values ``f(x) = sum_i dual_coef_i k(sv_i, x) + intercept``.

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)``
            kernel values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test,), (n_test, k) or (n_test, k(k-1)/2)
            Two classes: 1-D, positive values predict ``classes_[1]``.
            ``k >= 3``: with ``decision_function_shape="ovo"`` the pairwise
            values ``f_p`` (positive for the pair's first class), with ``"ovr"``
            scikit-learn's one-vs-rest transform of them. A model without
            support vectors (``tol >= 2``) has ``f_p = intercept_[p]`` everywhere.

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
        if self.classes_.shape[0] > 2:
            self._check_multiclass_params()
            dec = self._ovo_decision(X)
            if self.decision_function_shape == "ovr":
                return ovr_decision(dec, self.classes_.shape[0])
            return dec
        coef = self.dual_coef_[0]
        if coef.size == 0:  # no support vector: f(x) = b
            out = np.zeros(X.shape[0])
        else:
            out = self._sv_kernel_map(X, lambda Kt: Kt @ coef, 0)
        out += self.intercept_[0]
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels: ``classes_[1]`` where ``decision_function >= 0``, else ``classes_[0]``.

        A tie ``f(x) = 0`` goes to ``classes_[1]``, as in libsvm (whose
        internal decision value is ``-f``, with a vote for ``classes_[1]``
        unless it is positive).

        ``k >= 3`` classes: libsvm's vote, pair ``(i, j)`` voting for ``i``
        where ``f_p(x) > 0`` and for ``j`` otherwise; the class with most votes,
        a tie going to the lowest index of ``classes_``. With
        ``break_ties=True`` (and ``decision_function_shape="ovr"``) the argmax
        of the ovr decision function instead.

        Raises
        ------
        ValueError
            ``break_ties=True`` with ``decision_function_shape="ovo"`` (as
            scikit-learn), and as :meth:`decision_function`.
        """
        self._check_fitted()
        self._check_multiclass_params()
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        k = self.classes_.shape[0]
        if k > 2:
            dec = self._ovo_decision(self._test_input(X))
            if self.break_ties:  # (decision_function_shape == "ovr")
                return self.classes_[ovr_decision(dec, k).argmax(axis=1)]
            return self.classes_[vote_winner(dec, k)]
        positive = self.decision_function(X) >= 0
        return self.classes_[positive.astype(np.intp)]

    # -- probabilities (probability=True) ---------------------------------------------
    def _check_proba(self) -> bool:
        """``available_if``'s test: an ``AttributeError`` with ``probability=False`` (so
        ``hasattr(est, "predict_proba")`` is False), as scikit-learn."""
        if not (isinstance(self.probability, (bool, np.bool_)) and self.probability):
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities by Platt scaling and pairwise coupling, as libsvm.

        Each binary problem's decision value ``f_p`` (libsvm's sign: positive for the
        pair's first class) gives ``r_ij = 1 / (1 + exp(probA_[p] f_p + probB_[p]))``,
        clipped to ``[1e-7, 1 - 1e-7]``; the ``r_ij`` are combined by method 2 of Wu, Lin
        and Weng (2004) (libsvm's ``multiclass_probability``, also for two classes, see
        :func:`ktheory.svm._platt.pairwise_coupling`).

        Parameters
        ----------
        X : array_like of shape (n_test, n_features)
            Test inputs; for ``kernel="precomputed"`` the ``(n_test, n_train)`` kernel
            values between test and training points.

        Returns
        -------
        numpy.ndarray of shape (n_test, k)
            Probabilities in the order of ``classes_``; rows sum to 1.

        The most probable class may differ from :meth:`predict` (the decision function,
        as scikit-learn); the values depend on ``random_state`` (the CV folds).

        Raises
        ------
        AttributeError
            With ``probability=False``.
        NotFittedError
            Before :meth:`fit`, or if the model was fitted with ``probability=False``.
        """
        self._check_fitted()
        if getattr(self, "probA_", np.empty(0)).size == 0:
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False; fit again with probability=True")
        Xt = self._test_input(X)
        k = self.classes_.shape[0]
        if k > 2:
            dec = self._ovo_decision(Xt)
        else:   # libsvm's decision value is positive for classes_[0]: -decision_function
            dec = -self.decision_function(Xt)[:, None]
        return coupled_probabilities(dec, self.probA_, self.probB_, k)

    @available_if(_check_proba)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log`` of :meth:`predict_proba` (same parameters, shape and errors)."""
        return np.log(self.predict_proba(X))

    @property
    def coef_(self) -> np.ndarray:
        """Primal weights of the linear kernel, ``(k(k-1)/2, n_features)``, read-only.

        Row ``p`` is ``w_p = sum_t dual_coef_t sv_t`` over the support vectors of pair
        ``p`` (libsvm's order of the pairs; one row for two classes, with scikit-learn's
        sign), so ``X @ coef_.T + intercept_`` equals the decision values.

        Raises
        ------
        AttributeError
            For a kernel other than ``"linear"`` (``"coef_ is only available when using a
            linear kernel"``, as scikit-learn), and (``NotFittedError``) before ``fit``.
        """
        self._check_linear_coef()
        if self.classes_.shape[0] > 2:
            coef = ovo_coef(self.dual_coef_, self.n_support_, self._support_dense())
        else:
            coef = self.dual_coef_ @ self._support_dense()
        return self._read_only(coef)

    # -- one-vs-one (k >= 3 classes; the machinery is in ktheory.svm._ovo) ---------
    def _fit_ovo(self, X: np.ndarray, classes: np.ndarray, cls: np.ndarray,
                 C: float | np.ndarray, keep: np.ndarray | None) -> "SVC":
        res = fit_ovo(self, X, cls, classes.shape[0], C, float(self.tol),
                      check_max_iter(self.max_iter), keep)
        for name, value in vars(res).items():
            setattr(self, name, value)
        self.classes_ = classes
        self._set_support_vectors(X, self.support_)
        return self

    def _ovo_decision(self, X: np.ndarray) -> np.ndarray:
        """Pairwise decision values ``(n_test, k(k-1)/2)`` of validated test inputs: the
        kernel against all support vectors, in row blocks of about 32 MiB."""
        args = (self.dual_coef_, self.intercept_, self.n_support_)
        if self.dual_coef_.shape[1] == 0:  # no support vector (tol >= 2): f_p(x) = b_p
            return np.repeat(self.intercept_[None, :], X.shape[0], axis=0)
        return self._sv_kernel_map(X, lambda Kt: ovo_decision(Kt, *args), self.intercept_.shape[0])
