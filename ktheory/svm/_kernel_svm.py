"""What every kernel SVM estimator does, written once (estimator layer, private).

:class:`KernelSVMBase` is the common base of :class:`~ktheory.svm.SVC`,
:class:`~ktheory.svm.SVR` and :class:`~ktheory.svm.MulticlassSVC`:

* the kernel's parameters (``kernel``, ``gamma``, ``degree``, ``coef0``) and the solver's
  (``C``, ``tol``, ``max_iter``, ``cache_size``, ``shrinking``, ``verbose``,
  ``gram_limit_mb``) checked in one place;
* the input: scikit-learn's ``validate_data`` through :mod:`ktheory._validation`, with a
  precomputed Gram matrix checked square and symmetric at its input's rounding level;
* the kernel resolved at fit time (``gamma="scale"`` as scikit-learn computes it, without
  overflow) and stored by name and parameters, so that a fitted model pickles and
  ``set_params`` after ``fit`` does not change it;
* Gram blocks by the public kernel functions of :mod:`ktheory.kernels` (or the callable),
  checked for shape and overflow, and decision values in row blocks of about 32 MiB;
* the dual solved by the compiled SMO (:mod:`ktheory.svm._fast`) where numba is installed,
  by the readable reference (:func:`ktheory.svm._smo.smo_on_gram`) otherwise; for the RBF
  kernel the compiled solver is given the training rows centred at their reference point
  (:meth:`KernelSVMBase._solver_rows`), so that its kernel rows follow the distance
  specification of :mod:`ktheory.kernels` (translation invariant, no cancellation far from
  the origin).

It imports the solver layer (:mod:`ktheory.svm._core`, :mod:`ktheory.svm._smo`, and
:mod:`ktheory.svm._fast` on first use); nothing in the solver layer imports it. The module
stays one file although it is long: it is one class, whose input, kernel and solver
methods call one another; split across modules it would be read in pieces.
"""

from __future__ import annotations

import functools
import importlib.util
import numbers
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import kernels as km
from .._base import KTheoryEstimator
from .._kernel_setup import check_gamma, named_entry_error, named_kernel, resolve_gamma
from .._validation import (
    check_gram_input_size,
    check_positive,
    check_symmetric,
    fit_data,
    predict_data,
    symmetrized,
)
from ._face import FACE_MAX, face_steps
from ._core import (
    DEFAULT_GRAM_LIMIT_MB,
    ConvergenceWarning,
    SMOResult,
    as_result,
    check_max_iter,
    diag_scale,
    hard_margin_feasible,
    shares_a_sample,
)
from ._smo import smo_on_gram

__all__ = ["KernelSVMBase", "NAMED_KERNELS", "NUMPY_MAX_SAMPLES", "compiled_solver"]

NAMED_KERNELS = ("linear", "poly", "rbf", "sigmoid")

#: Rows of test data per kernel block: about 32 MiB of kernel values (2**22 float64).
_BLOCK_VALUES = 1 << 22

#: Training sets of at most this many samples are solved on the numpy path (the reference
#: SMO on the Gram matrix, 32 MiB at most) also where numba is installed, until this
#: process has run a compiled SVM solve or spent :data:`AUTO_NUMPY_ITER` numpy iterations
#: (see :func:`_compiled_pays`): at this size the whole fit takes about as long as
#: importing numba and loading its compiled code, and a first fit never waits seconds for
#: numba to compile it. Larger sets use the compiled solver (rows on demand, a row cache,
#: shrinking), and so does any set whose Gram matrix would exceed ``gram_limit_mb``. A
#: one-vs-one fit counts its training set, not its pairs: on digits (1797 samples, 10
#: classes, 45 pairs) the numpy path takes about as long as a binary fit of 2000 samples
#: (0.08 s), well below numba's load (about 0.45 s).
NUMPY_MAX_SAMPLES = 2048

#: With ``solver="auto"`` a fit runs at most this many SMO iterations on the numpy path,
#: counted over all its binary problems (one-vs-one's pairs together) and over the
#: process's earlier ``"auto"`` fits: about 0.3 s at 2000 samples, below what importing
#: numba and loading its compiled code costs (about 0.45 s). A problem still running then
#: (raw breast_cancer with a linear kernel at C = 100 needs 4e8 iterations; the benchmark's
#: rbf_flat, 2000 samples at C = 1000, 76 000) is solved again from the start by the
#: compiled solver where numba is installed, which takes the same steps (up to exact ties)
#: 10 to 50 times faster, and face steps where they stall (:data:`FACE_WINDOW`); so are the
#: fit's later problems, and the process's later fits. This is the rule of renting skis
#: until the rent paid equals the price: a first fit costs at most about
#: 1 + 0.45 / 0.3 = 2.5 times what the better of the two codes would have cost at 2000
#: samples (more for small sets, whose iterations are cheaper), once numba's code is in its
#: cache (the first use after installing compiles it, about 15 s), and a session of many
#: small fits (a grid search on digits) pays numba's load once, after about 0.3 s of numpy
#: iterations, instead of the numpy path's slower steps on every fit. Where numba is not
#: installed, or ``max_iter`` is at most the budget left, the numpy path runs to the end.
#: The two codes solve the same problem to the same ``tol``; a fit whose result must not
#: depend on what the process did before passes ``solver="numpy"`` or ``"compiled"``.
AUTO_NUMPY_ITER = 20_000

#: The compiled solver hands over to face steps (:mod:`ktheory.svm._face`) where its
#: violation has not halved within ``max(10 l, FACE_WINDOW)`` steps, at most
#: ``FACE_ROUNDS`` times per problem (see :meth:`KernelSVMBase._solve_with_faces`).
FACE_WINDOW = 100_000
FACE_ROUNDS = 50


#: The numpy SMO iterations that ``solver="auto"`` has run in this process, over all its
#: fits (a one-element list, updated by :meth:`KernelSVMBase._dual`); against
#: :data:`AUTO_NUMPY_ITER` (see :func:`_compiled_pays`).
_PROCESS_SPENT = [0]

#: Whether importing the compiled solver has failed in this process (numba found but not
#: importable): it is not tried again, on every problem of every fit.
_IMPORT_FAILED = [False]

#: False: each fit has its own budget and ignores the process's history (the rule before the
#: budget was the process's; the tests run this way unless they test the process's rule,
#: see ``tests/conftest.py``).
_PROCESS_WIDE = True


def _compiled_pays() -> bool:
    """Whether ``solver="auto"`` solves a small training set compiled: numba is installed
    and importable, and this process has run a compiled solve already or spent its numpy
    budget (:data:`AUTO_NUMPY_ITER` iterations over its ``"auto"`` fits)."""
    if not _PROCESS_WIDE or not _compiled_possible():
        return False
    return _compiled_ran() or _PROCESS_SPENT[0] >= AUTO_NUMPY_ITER


def _compiled_ran() -> bool:
    """Whether a compiled SMO has run in this process (``_fast.RAN``, set by every call of
    the compiled solver: SVC's, SVR's and CentralSVC's): numba is imported and its cached
    code loaded, the price the numpy path avoids. Not an import: the module is not
    imported here if it is not already."""
    fast = sys.modules.get(f"{__package__}._fast")
    return fast is not None and bool(fast.RAN[0])


def _compiled_possible() -> bool:
    """Whether a hand-over to the compiled solver can happen: numba can be found, and
    importing the compiled solver has not failed in this process."""
    return not _IMPORT_FAILED[0] and _numba_installed()


@functools.lru_cache(maxsize=1)
def _numba_installed() -> bool:
    """Whether numba can be found, without importing it (``solver="auto"`` does not spend
    a numpy budget on a hand-over that cannot happen)."""
    return importlib.util.find_spec("numba") is not None


def compiled_solver() -> Any:
    """The compiled solver (:mod:`ktheory.svm._fast`), or None where numba cannot be
    imported: the estimators then solve with numpy (:meth:`KernelSVMBase._dual_numpy`)."""
    if _IMPORT_FAILED[0]:
        return None
    try:
        from . import _fast
    except ImportError:
        _IMPORT_FAILED[0] = True
        return None
    return _fast


class KernelSVMBase(KTheoryEstimator):
    """Kernel set-up, input checks and the dual solve shared by the SVM estimators.

    Subclasses define ``__init__`` (their parameters) and ``fit``/``predict``; the
    parameters this base reads are those of scikit-learn's SVC (a subclass without
    ``cache_size``, ``shrinking`` or ``gram_limit_mb`` does not call the methods that
    read them).
    """

    #: Whether ``C = inf`` (the hard margin) and, with a callable kernel, input that is not
    #: a 2-D numeric array (any sequence of samples) are accepted (SVC and SVR).
    _hard_margin_and_sequences = False

    # -- tags -------------------------------------------------------------------------
    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # SVC and SVR take scipy.sparse X (densified, see _dense_from_sparse), except a
        # precomputed Gram matrix
        tags.input_tags.sparse = self._hard_margin_and_sequences and self.kernel != "precomputed"
        return tags

    # -- parameters -------------------------------------------------------------------
    def _check_kernel_params(self) -> None:
        """``kernel``, ``gamma``, ``degree``, ``coef0``: types and ranges."""
        kernel = self.kernel
        if not callable(kernel):
            if not isinstance(kernel, str):
                raise TypeError(
                    f"kernel must be one of {NAMED_KERNELS}, 'precomputed' or a callable k(X, Y); "
                    f"got {type(kernel).__name__} {kernel!r}"
                )
            if kernel != "precomputed" and kernel not in NAMED_KERNELS:
                raise ValueError(
                    f"kernel must be one of {NAMED_KERNELS}, 'precomputed' or a callable k(X, Y); "
                    f"got {kernel!r}"
                )
        check_gamma(self.gamma)
        if isinstance(self.degree, bool) or not isinstance(self.degree, numbers.Integral):
            raise TypeError(f"degree must be an integer, got {type(self.degree).__name__} {self.degree!r}")
        if self.degree < (1 if kernel == "poly" else 0):
            raise ValueError(f"degree must be an integer >= 1 for kernel='poly', got {self.degree!r}")
        if isinstance(self.coef0, bool) or not isinstance(self.coef0, numbers.Real):
            raise TypeError(f"coef0 must be a real number, got {type(self.coef0).__name__} {self.coef0!r}")
        if not np.isfinite(float(self.coef0)):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}")

    def _check_smo_params(self) -> None:
        """The SMO estimators' parameters: ``C``, ``tol``, ``max_iter``, ``gram_limit_mb``,
        ``cache_size``, ``shrinking``, ``verbose``, and the kernel's."""
        self._check_C()
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        check_positive(self.gram_limit_mb, "gram_limit_mb")
        check_positive(self.cache_size, "cache_size")
        for name in ("shrinking", "verbose"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
        if not isinstance(self.solver, str):
            raise TypeError(f"solver must be 'auto', 'numpy' or 'compiled' (a str), got "
                            f"{type(self.solver).__name__} {self.solver!r}")
        if self.solver not in ("auto", "numpy", "compiled"):
            raise ValueError(f"solver must be 'auto', 'numpy' or 'compiled', got {self.solver!r}")
        self._check_kernel_params()

    def _check_C(self) -> None:
        """``C``: a real number ``> 0``; ``inf`` (the hard margin) where the estimator
        allows it (:class:`~ktheory.svm.SVC`, :class:`~ktheory.svm.SVR`), as scikit-learn."""
        C = self.C
        if not self._hard_margin_and_sequences:
            check_positive(C, "C")
            return
        if isinstance(C, bool) or not isinstance(C, numbers.Real):
            raise TypeError(f"C must be a real number > 0 (or inf for the hard margin), got "
                            f"{type(C).__name__} {C!r}")
        if not float(C) > 0.0:   # also NaN
            raise ValueError(f"C must be a finite number > 0 or inf (the hard margin), got {C!r}")

    def _sample_bounds(self, factor: np.ndarray | None
                       ) -> tuple[float | np.ndarray, np.ndarray | None]:
        """libsvm's weighted bounds ``C_i = C * factor_i`` (``factor``: ``sample_weight``
        times the class's ``class_weight``, or None for none) and the mask of the samples
        that take part: those with ``factor_i > 0`` (None: all). As libsvm (and scikit-learn), a
        sample with a zero or negative weight is left out of the problem. ``C`` is
        returned as a float where every sample has it (no weights; ``C = inf``, whose box
        no weight changes), so that the unweighted problem takes exactly its old steps.
        Only the products matter: weights ``t w`` with ``C`` give the fit of ``w`` with
        ``t C``."""
        C = float(self.C)
        if factor is None:
            return C, None
        keep = factor > 0.0
        if np.isinf(C):
            return C, keep
        with np.errstate(over="ignore"):
            Cw = np.where(keep, C * factor, 0.0)
        if not np.all(np.isfinite(Cw)):
            raise ValueError(
                f"C * sample_weight (times class_weight) overflows float64 (C={C:g}, largest "
                f"weight {float(factor.max()):.3g}); only the products matter, so scale the "
                "weights or C down")
        return Cw, keep

    # -- input ------------------------------------------------------------------------
    def _sequence_path(self, X: Any) -> bool:
        """Whether ``fit`` takes ``X`` as a sequence of arbitrary samples, passed to the
        callable kernel unchanged: a callable kernel and an ``X`` that is not a 2-D array
        of numbers (strings, objects, ragged or 1-D sequences, arrays of other
        dimension). A 2-D numeric array (and sparse input) goes through the numeric
        checks, as for a named kernel."""
        if not (self._hard_margin_and_sequences and callable(self.kernel)):
            return False
        if X is None:
            return False          # refused by the numeric checks, with their message
        if isinstance(X, (str, bytes)):
            return True           # refused by _as_samples: one string is not a sequence of samples
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                raw = np.asarray(X)
        except (TypeError, ValueError):
            return True           # ragged: a sequence of samples of different lengths
        return not (raw.ndim == 2 and raw.dtype.kind in "biufc")

    @staticmethod
    def _as_samples(X: Any, name: str = "X") -> np.ndarray:
        """A sequence of samples as an array indexed by sample: a numpy array as it is,
        anything else as a 1-D object array of its elements (the elements unchanged)."""
        if isinstance(X, (str, bytes)) or X is None:
            raise TypeError(f"{name} must be a sequence of samples for the kernel callable, got "
                            f"{type(X).__name__} {X!r}")
        if isinstance(X, np.ndarray):
            if X.ndim == 0:
                raise ValueError(f"{name} must be a sequence of samples, got a 0-d array")
            return X
        try:
            items = list(X)
        except TypeError:
            raise TypeError(f"{name} must be a sequence of samples for the kernel callable, got "
                            f"{type(X).__name__}") from None
        out = np.empty(len(items), dtype=object)
        for i, v in enumerate(items):
            out[i] = v
        return out

    def _fit_input(self, X: Any, y: Any, *, y_numeric: bool = False) -> tuple[np.ndarray, Any]:
        """``(X, y)`` validated for ``fit`` (sets ``n_features_in_``: ``fit`` is atomic);
        a precomputed ``X`` must be a square symmetric Gram matrix.

        With a callable kernel an ``X`` that is not a 2-D numeric array (see
        :meth:`_sequence_path`) is taken as a sequence of samples: only its length is
        checked (against ``y``, validated as usual), no ``n_features_in_`` is set (as
        scikit-learn), and the callable receives the samples unchanged.

        Sparse ``X`` (SVC and SVR; see :meth:`_dense_from_sparse`) is densified here and
        fitted as the same dense array would be; ``support_vectors_`` is then CSR."""
        self._sparse_ = False
        if self._hard_margin_and_sequences and _is_sparse(X):
            if self.kernel == "precomputed":
                raise TypeError("Sparse precomputed kernels are not supported: pass the "
                                "training Gram matrix as a dense array")
            X = self._dense_from_sparse(X, "X")
            self._sparse_ = True
        self._sequence_input_ = self._sequence_path(X)
        if self._sequence_input_:
            Xs = self._as_samples(X)
            if Xs.shape[0] == 0:
                raise ValueError("X has 0 samples; at least one is required")
            # y by the same checks as for numeric X (a stand-in X of the right length)
            _, y, _ = fit_data(self, np.zeros((Xs.shape[0], 1)), y, y_numeric=y_numeric)
            for attr in ("n_features_in_", "feature_names_in_"):
                self.__dict__.pop(attr, None)
            return Xs, y
        if self.kernel == "precomputed":   # before validation copies it
            check_gram_input_size(X, float(getattr(self, "gram_limit_mb", DEFAULT_GRAM_LIMIT_MB)),
                                  knob="gram_limit_mb" if hasattr(self, "gram_limit_mb")
                                  else "the default limit DEFAULT_GRAM_LIMIT_MB")
        X, y, in_dtype = fit_data(self, X, y, y_numeric=y_numeric)
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "with kernel='precomputed', X must be the square (n_train, n_train) Gram matrix; "
                    f"got shape {X.shape}"
                )
            X = symmetrized(X, "X (precomputed Gram matrix)", in_dtype)
        return X, y

    def _dense_from_sparse(self, X: Any, name: str) -> np.ndarray:
        """A scipy.sparse ``X`` as a dense float64 array, within ``gram_limit_mb``.

        The kernels here are evaluated on dense rows (the compiled solver's kernel rows, the
        translation-invariant RBF from centred rows), so sparse input is densified: the fit
        equals that of ``X.toarray()``. What the estimator keeps of it (the support
        vectors) is stored sparse again. An ``X`` whose dense form exceeds
        ``gram_limit_mb`` MiB is refused (sparse data of very high dimension, such as
        bag-of-words text, is better served by a linear model or a precomputed kernel)."""
        shape = getattr(X, "shape", None)
        if shape is None or len(shape) != 2:
            raise ValueError(f"sparse {name} must be 2-D (n_samples, n_features), got shape "
                             f"{shape}")
        need_mb = shape[0] * shape[1] * 8 / 2**20
        if need_mb > float(self.gram_limit_mb):
            raise ValueError(
                f"sparse {name} of shape {shape} is densified for the kernel computations "
                f"({need_mb:.0f} MiB as float64), more than gram_limit_mb={self.gram_limit_mb}; "
                "raise gram_limit_mb if you have the memory, reduce the features, or pass a "
                "precomputed kernel")
        if np.dtype(X.dtype).kind == "c":
            raise TypeError(f"{name} must be real; got a complex sparse matrix ({X.dtype})")
        return np.asarray(X.toarray(), dtype=np.float64)

    @property
    def _gamma(self) -> float | None:
        """scikit-learn's (private) name of the fitted kernel coefficient, ``_gamma_``
        here; code written against ``sklearn.svm.SVC`` reads it."""
        check_is_fitted(self, "dual_coef_")
        return self._gamma_

    def _support_dense(self) -> np.ndarray:
        """``support_vectors_`` as a dense array (it is CSR after a sparse fit)."""
        sv = self.support_vectors_
        return sv.toarray() if _is_sparse(sv) else sv

    def _check_fitted(self) -> None:
        """scikit-learn's ``NotFittedError`` before ``fit``."""
        check_is_fitted(self, "dual_coef_")

    def _test_input(self, X: Any) -> np.ndarray:
        """Test inputs for a fitted model (scikit-learn's ``NotFittedError`` before ``fit``);
        a sequence of samples where the model was fitted on one (:meth:`_fit_input`)."""
        if getattr(self, "_sequence_input_", False):
            check_is_fitted(self, "dual_coef_")
            return self._as_samples(X)
        if self._hard_margin_and_sequences and _is_sparse(X):
            check_is_fitted(self, "dual_coef_")
            if not (getattr(self, "_sparse_", False) or callable(self.kernel)):
                raise ValueError(
                    f"cannot use sparse input in {type(self).__name__} trained on dense data "
                    "(as scikit-learn); pass X.toarray(), or fit on sparse data")
            X = self._dense_from_sparse(X, "X")
        try:
            X, _ = predict_data(self, X, fitted="dual_coef_")
        except ValueError as exc:
            if self.kernel == "precomputed" and "features, but" in str(exc):
                m = self.n_features_in_
                raise ValueError(
                    f"{exc} (kernel='precomputed': X must hold the kernel values against the "
                    f"{m} training samples, shape (n_test, {m}))"
                ) from None
            raise
        return X

    # -- the kernel -------------------------------------------------------------------
    def _gamma_value(self, X: np.ndarray) -> float | None:
        """The kernel coefficient used for ``X`` (None for kernels without one)."""
        if callable(self.kernel) or self.kernel in ("linear", "precomputed"):
            return None
        # 1 / (n_features * X.var()) for "scale", as scikit-learn (bit for bit where X's
        # scale allows it), without overflow where it does not
        return resolve_gamma(self.gamma, X)

    def _set_kernel(self, X: np.ndarray) -> None:
        """Store the kernel by name and parameters (``_kernel_params_``): picklable,
        and unaffected by ``set_params`` after fitting."""
        self._gamma_ = None if self.kernel == "precomputed" else self._gamma_value(X)
        self._kernel_params_ = {
            "kernel": self.kernel,
            "gamma": self._gamma_,
            "degree": int(self.degree),
            "coef0": float(self.coef0),
        }

    def _kernel_block(self, A: np.ndarray, B: np.ndarray | None) -> np.ndarray:
        """``k(A, B)`` (``B=None``: ``k(A, A)``) for the kernel stored at fit time,
        evaluated by the public functions of :mod:`ktheory.kernels` (or the callable)."""
        p = self._kernel_params_
        kern = p["kernel"]
        if callable(kern):
            if getattr(self, "_sequence_input_", False):   # samples as a list, unchanged
                A = _sample_list(A)
                B = None if B is None else _sample_list(B)
            return kern(A, A if B is None else B)
        return named_kernel(kern, A, B, p["gamma"], p["degree"], p["coef0"])

    def _gram_entry_error(self, X: np.ndarray) -> float | None:
        """The evaluation error of the entries of the named kernel's Gram matrix on ``X``
        (:func:`ktheory.kernels.gram_entry_error`), which a positive-semidefiniteness check
        allows for; None for a callable or precomputed kernel."""
        p = self._kernel_params_
        kern = p["kernel"]
        if callable(kern) or kern not in NAMED_KERNELS:
            return None
        return named_entry_error(kern, X, p["gamma"], p["degree"], p["coef0"])

    def _kernel_name(self) -> str:
        k = self._kernel_params_["kernel"]
        return "callable" if callable(k) else repr(k)

    def _gram(self, A: np.ndarray, B: np.ndarray | None, what: str) -> np.ndarray:
        """:meth:`_kernel_block` checked: the right shape, every value finite."""
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # checked below
            Kab = np.asarray(self._kernel_block(A, B), dtype=np.float64)
        m = A.shape[0] if B is None else B.shape[0]
        if Kab.shape != (A.shape[0], m):
            raise ValueError(
                f"the kernel returned an array of shape {Kab.shape} for the {what}; "
                f"expected ({A.shape[0]}, {m})"
            )
        if not np.isfinite(np.add.reduce(Kab, axis=None)) and not np.all(np.isfinite(Kab)):
            raise ValueError(
                f"the {self._kernel_name()} kernel gave NaN or infinite values for the {what} "
                "(overflow: X's values too large for this kernel and gamma / coef0 / degree); "
                "rescale X or change the kernel's parameters"
            )
        return Kab

    def _sv_kernel_map(self, X: np.ndarray, fn: Callable[[np.ndarray], np.ndarray],
                       width: int) -> np.ndarray:
        """``fn(K(X, support vectors))`` row block by row block (about 32 MiB of kernel
        values each): ``(n_test, width)`` or ``(n_test,)`` for ``width=0``. For a
        precomputed kernel ``X`` already holds the kernel values against the training
        samples."""
        if self.kernel == "precomputed":
            return fn(X[:, self.support_])
        out = np.empty((X.shape[0], width) if width else X.shape[0])
        sv = self._support_dense()
        step = max(1, _BLOCK_VALUES // max(1, sv.shape[0]))
        if X.shape[0] <= step:       # one block: the test data as given
            return fn(self._gram(X, sv, "test data"))
        for a in range(0, X.shape[0], step):
            b = min(X.shape[0], a + step)
            out[a:b] = fn(self._gram(X[a:b], sv, "test data"))
        return out

    def _check_linear_coef(self) -> None:
        """Before ``coef_``: scikit-learn's ``NotFittedError`` (an ``AttributeError``)
        before ``fit``, and its ``AttributeError`` for a kernel other than ``"linear"``
        (the one fitted), so that ``hasattr(est, "coef_")`` is False there."""
        self._check_fitted()
        if self._kernel_params_["kernel"] != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")

    def _read_only(self, coef: np.ndarray) -> np.ndarray:
        """``coef`` marked read-only (scikit-learn's ``coef_`` is)."""
        coef.flags.writeable = False
        return coef

    def _set_support_vectors(self, X: np.ndarray, support: np.ndarray) -> None:
        """``support_vectors_`` (empty ``(0, 0)`` for a precomputed kernel, as scikit-learn)
        and ``shape_fit_``."""
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        elif getattr(self, "_sparse_", False):   # as scikit-learn: CSR after a sparse fit
            import scipy.sparse as sp

            self.support_vectors_ = sp.csr_matrix(X[support])
        else:
            self.support_vectors_ = X[support]
        self.shape_fit_ = X.shape

    # -- the dual ---------------------------------------------------------------------
    def _solver(self, n_samples: int) -> Any:
        """The compiled solver for a training set of ``n_samples``, or None for the numpy
        path, as the ``solver`` parameter says. ``"auto"``: the numpy path where numba is
        not installed, and for sets of at most :data:`NUMPY_MAX_SAMPLES` samples whose Gram
        matrix is within ``gram_limit_mb`` until the compiled solver pays in this process
        (:func:`_compiled_pays`: it has run already, or the process's numpy budget is spent)."""
        if self.solver == "numpy":
            return None
        if self.solver == "compiled":
            fast = compiled_solver()
            if fast is None:
                raise ImportError(
                    f"solver='compiled' needs numba, which cannot be imported here; install the "
                    f"optional extra (pip install 'ktheory[fast]') or use solver='auto' or 'numpy'"
                )
            return fast
        if (n_samples <= NUMPY_MAX_SAMPLES and not self._gram_over_limit(n_samples)
                and not _compiled_pays()):
            return None
        return compiled_solver()

    @staticmethod
    def _numpy_budget() -> list[int]:
        """A fit's budget of numpy SMO iterations under ``solver="auto"``: what is left of
        :data:`AUTO_NUMPY_ITER` after the process's earlier ``"auto"`` fits, shared by the
        fit's binary problems through :meth:`_dual`."""
        spent = _PROCESS_SPENT[0] if _PROCESS_WIDE else 0
        return [max(0, AUTO_NUMPY_ITER - spent)]

    def _spend(self, budget: list[int], n_iter: int) -> None:
        """Count a numpy run's iterations against the fit's budget and, under
        ``solver="auto"``, the process's (:data:`_PROCESS_SPENT`)."""
        budget[0] = max(0, budget[0] - int(n_iter))
        if self.solver == "auto" and _PROCESS_WIDE:
            _PROCESS_SPENT[0] += int(n_iter)

    def _gram_over_limit(self, n: int) -> float:
        """The MiB an ``n x n`` float64 Gram matrix needs if that exceeds
        ``gram_limit_mb``, else 0."""
        need_mb = n * n * 8 / 2**20
        return need_mb if need_mb > float(self.gram_limit_mb) else 0.0

    def _training_gram(self, X: np.ndarray) -> np.ndarray | None:
        """The training Gram matrix the solver reads, or None when it computes kernel
        rows itself: ``X`` for ``"precomputed"``, the matrix of the callable (computed
        once, checked symmetric, within ``gram_limit_mb``), None for a named kernel."""
        kern = self._kernel_params_["kernel"]
        if kern == "precomputed":
            return X
        if not callable(kern):
            return None
        n = X.shape[0]
        need_mb = self._gram_over_limit(n)
        if need_mb:
            raise ValueError(
                f"the training Gram matrix of the kernel callable for n={n} samples needs "
                f"{need_mb:.0f} MiB (n**2 * 8 bytes), more than gram_limit_mb={self.gram_limit_mb}; "
                "raise gram_limit_mb if you have the memory, use a named kernel (whose rows are "
                "computed on demand and cached), or subsample"
            )
        K = self._gram(X, None, "training data")
        check_symmetric(K, "the Gram matrix returned by the kernel callable")
        return K

    def _dual(self, X: np.ndarray, gram: np.ndarray | None, base: np.ndarray, y: np.ndarray,
              C: float | np.ndarray, tol: float, max_iter: int, p: np.ndarray | None = None,
              diag: np.ndarray | None = None, rows: np.ndarray | None = None,
              budget: list[int] | None = None) -> SMOResult:
        """Solve the dual over the variables ``t`` on samples ``base[t]`` with labels ``y``
        (and linear term ``p``) by the compiled solver (:mod:`ktheory.svm._fast`): kernel
        rows on demand for a named kernel, read from ``gram`` otherwise (see
        :meth:`_training_gram`), ``cache_size`` MiB of rows, shrinking if set.

        Kernel values that overflow fall back on the kernel function of
        :mod:`ktheory.kernels` (which raises if its Gram matrix is not finite); a
        gradient that overflows is a ``ValueError``, as in :func:`~ktheory.svm.smo_solve`.
        ``diag``: the kernel's diagonal over all samples of ``X`` if the caller has it
        (one-vs-one computes it once for all pairs), and ``rows`` the rows of
        :meth:`_solver_rows` likewise. ``budget``: the numpy iterations the fit has left
        under ``solver="auto"`` (a one-element list, updated here; None: a fit of one
        problem, :meth:`_numpy_budget`). ``C``: one bound for all variables,
        or one per *sample* of ``X`` (``(n_samples,)``, libsvm's weighted ``C_i``; each
        variable takes its sample's bound).
        """
        if np.ndim(C):
            C = np.ascontiguousarray(np.asarray(C, dtype=np.float64)[base])
        elif np.isinf(C):
            self._check_hard_margin(X, gram, base, y, p)
        fast = self._solver(X.shape[0])
        if fast is None:
            # the fit's numpy budget (AUTO_NUMPY_ITER over all its problems): one-vs-one
            # passes the same one-element list to every pair
            budget = self._numpy_budget() if budget is None else budget
            if not (self.solver == "auto" and max_iter > budget[0] and _compiled_possible()):
                res = self._dual_numpy(X, gram, base, y, C, tol, max_iter, p)
                self._spend(budget, res.n_iter)
                return res
            if budget[0] > 0:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    res = self._dual_numpy(X, gram, base, y, C, tol, budget[0], p)
                self._spend(budget, res.n_iter)
                if res.converged:
                    return res
            # a long fit: this problem from the start, compiled (numba is imported only
            # now), or the whole run on the numpy path if numba cannot be imported after all
            fast = compiled_solver()
            if fast is None:        # remembered: the fit's later problems run to the end
                return self._dual_numpy(X, gram, base, y, C, tol, max_iter, p)
        kern = self._kernel_params_["kernel"]
        opts = dict(cache_size=float(self.cache_size), shrinking=bool(self.shrinking),
                    verbose=bool(self.verbose))
        if gram is None:
            kind = fast.KERNEL_CODES[kern]
            kp = self._kernel_codes()
            Xk = self._solver_rows(X) if rows is None else rows
            if diag is None:
                diag = fast.kernel_diag(kind, Xk, kp)
            if np.all(np.isfinite(diag[base])):
                s = diag_scale(diag[base])

                def solve(warm: Any, stall: int, iters: int) -> Any:
                    return fast.fast_smo(kind, Xk, y, C, tol, iters, kparams=kp, base=base,
                                         p=p, scale=s, diag=diag, stall_window=stall,
                                         warm=warm, **opts)

                res = self._solve_with_faces(solve, X, None, base, y, C, p, max_iter)
                if not res.nonfinite:
                    return as_result(res)
            # kernel values overflowed: the Gram matrix by ktheory.kernels (ValueError if
            # it is not finite either), within gram_limit_mb
            if self._gram_over_limit(X.shape[0]):
                raise ValueError(
                    f"the {self._kernel_name()} kernel gave NaN or infinite values for the "
                    "training data (overflow: X's values too large for this kernel and "
                    "gamma / coef0 / degree); rescale X or change the kernel's parameters")
            gram = self._gram(X, None, "training data")
        s = diag_scale(np.diagonal(gram)[np.unique(base)])

        def solve_pre(warm: Any, stall: int, iters: int) -> Any:
            return fast.fast_smo(4, None, y, C, tol, iters, Kpre=gram, base=base, p=p, scale=s,
                                 stall_window=stall, warm=warm, **opts)

        res = self._solve_with_faces(solve_pre, X, gram, base, y, C, p, max_iter)
        if res.nonfinite:
            raise ValueError(
                f"SMO diverged at iteration {res.n_iter}: the gradient is not finite; the kernel "
                "values are too large for float64 (max |K_ij| about "
                f"{float(np.max(np.abs(gram))):.3g}). Rescale X or change the kernel's parameters."
            )
        return as_result(res)

    def _solve_with_faces(self, solve: Callable[[Any, int, int], Any], X: np.ndarray,
                          gram: np.ndarray | None, base: np.ndarray, y: np.ndarray,
                          C: float | np.ndarray, p: np.ndarray | None, max_iter: int) -> Any:
        """The compiled SMO (``solve(warm, stall_window, max_iter)``, a call of
        :func:`ktheory.svm._fast.fast_smo`), with face steps where it stalls.

        Where the violation has not halved within ``max(10 l, 100 000)`` steps (``l``
        variables), the solver returns its point; the free multipliers are moved by
        :func:`ktheory.svm._face.face_steps` (to the first bound along a zero-curvature
        direction of the face, or to the face's minimiser), and SMO resumes from there,
        warm, with the gradient recomputed from the kernel columns of the support
        vectors. At most ``FACE_ROUNDS`` such rounds, and none after one that moved
        nothing; then SMO runs to the end. A problem SMO solves within ``2 W`` steps
        never stalls, so its steps are SMO's alone. SVR's ``2n`` layout is solved by SMO
        alone. The result counts the steps of every round (``stats["face_rounds"]``).
        """
        l = y.shape[0]
        n_all = X.shape[0]
        svr = shares_a_sample(base, n_all)
        if svr:
            return solve(None, 0, max_iter)
        window = max(10 * l, FACE_WINDOW)
        res = solve(None, window, max_iter)
        done, rounds = res.n_iter, 0
        if res.stats.get("stalled"):
            Cv = np.broadcast_to(np.asarray(C, dtype=np.float64), (l,))
            pv = -np.ones(l) if p is None else np.asarray(p, dtype=np.float64)
        while res.stats.get("stalled") and not res.nonfinite and done < max_iter:
            alpha = np.clip(res.alpha, 0.0, Cv)
            alpha[alpha >= Cv * (1.0 - 1e-12)] = Cv[alpha >= Cv * (1.0 - 1e-12)]

            def kcols(idx: np.ndarray) -> np.ndarray:
                """``K[base, base[idx]]``, the kernel between all variables' samples
                and those of ``idx``."""
                if gram is not None:
                    return np.asarray(gram[np.ix_(base, base[idx])], dtype=np.float64)
                return self._kernel_block(X[base], X[base[idx]])

            def grad(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                sv = np.flatnonzero(a > 0)
                up = np.flatnonzero(a >= Cv)
                G = y * (kcols(sv) @ (y[sv] * a[sv])) + pv if sv.size else pv.copy()
                gb = y * (kcols(up) @ (y[up] * Cv[up])) if up.size else np.zeros(l)
                return G, gb

            G, _ = grad(alpha)
            before = alpha.copy()
            face_steps(lambda F: (y[:, None] * y[F][None, :]) * kcols(F), y, Cv, alpha, G,
                       FACE_MAX)
            alpha[alpha >= Cv * (1.0 - 1e-12)] = Cv[alpha >= Cv * (1.0 - 1e-12)]
            moved = not np.array_equal(alpha, before)
            rounds += 1
            G, gbar = grad(alpha)
            again = window if moved and rounds < FACE_ROUNDS else 0
            res = solve((alpha, G, gbar), again, max_iter - done)
            done += res.n_iter
        res.n_iter = done
        res.stats.pop("stalled", None)
        res.stats["face_rounds"] = rounds
        return res

    def _check_hard_margin(self, X: np.ndarray, gram: np.ndarray | None, base: np.ndarray,
                           y: np.ndarray, p: np.ndarray | None) -> None:
        """``C = inf``: a ``ValueError`` unless the hard-margin problem on the samples
        ``base`` refers to is feasible (:func:`~ktheory.svm._core.hard_margin_feasible`,
        a linear program on their Gram matrix): where it is not, the dual is unbounded
        and SMO would run forever, as libsvm does."""
        m = base.shape[0]
        half = m // 2
        svr = bool(m and m % 2 == 0 and p is not None and np.array_equal(base[:half], base[half:]))
        idx = base[:half] if svr else base
        if gram is None:
            need_mb = self._gram_over_limit(idx.shape[0])
            if need_mb:
                raise ValueError(
                    f"C=inf (the hard margin) checks feasibility on the Gram matrix, which for "
                    f"n={idx.shape[0]} samples needs {need_mb:.0f} MiB, more than gram_limit_mb="
                    f"{self.gram_limit_mb}; raise gram_limit_mb or use a finite C")
            K = self._gram(X[idx], None, "training data")
        else:
            K = np.asarray(gram[np.ix_(idx, idx)], dtype=np.float64)
        if not hard_margin_feasible(K, y, p):
            if p is None:
                what = ("the hard-margin problem (C=inf) is infeasible: the two classes (for "
                        "three or more classes: of some pair) are not separable in the "
                        "kernel's feature space (the dual is unbounded)")
            else:
                what = ("the hard-tube problem (C=inf) is infeasible: no function of the "
                        "kernel's space plus an intercept is within epsilon of every target "
                        "(the dual is unbounded)")
            raise ValueError(f"{what}; use a finite C (a soft margin)")

    def _solver_rows(self, X: np.ndarray) -> np.ndarray:
        """The rows the compiled solver computes kernel values from: for the
        translation-invariant ``"rbf"``, ``X`` centred at its reference point
        (:func:`ktheory.kernels.reference_point`, the mean of the rows), so that the
        compiled rows follow the distance specification of :mod:`ktheory.kernels`
        (``||x - y||^2`` from centred rows, no cancellation far from the origin) and a
        translated training set gives the same rows; ``X`` itself for the other kernels,
        and where centring would overflow (``|x|`` near ``1.8e308``: the kernel values
        there are computed by :mod:`ktheory.kernels` instead, see :meth:`_dual`).
        Test data need no centre of their own: :func:`ktheory.kernels.rbf_kernel`
        centres every block it computes, and ``support_vectors_`` are the rows given."""
        if self._kernel_params_["kernel"] != "rbf" or X.shape[0] == 0:
            return X
        with np.errstate(over="ignore", invalid="ignore"):
            Xc = X - km.reference_point(X)
        return Xc if np.all(np.isfinite(Xc)) else X

    def _kernel_codes(self) -> tuple[float, float, float]:
        """``(gamma, coef0, degree)`` as the compiled solver takes them."""
        return (float(self._gamma_ or 0.0), float(self.coef0), float(self.degree))

    def _dual_gram(self, X: np.ndarray) -> np.ndarray:
        """The training Gram matrix of a named kernel for :meth:`_dual_numpy`, within
        ``gram_limit_mb`` (finite, or :meth:`_gram` raises)."""
        n_all = X.shape[0]
        need_mb = self._gram_over_limit(n_all)
        if need_mb:
            why = "solver='numpy'" if self.solver == "numpy" else "numba is not installed"
            raise ValueError(
                f"{why}, so {type(self).__name__} solves with numpy on the Gram matrix; for "
                f"n={n_all} samples it needs {need_mb:.0f} MiB, more than gram_limit_mb="
                f"{self.gram_limit_mb}. Use the compiled solver (it needs numba, the extra "
                "ktheory[fast]), which computes kernel rows on demand, or raise gram_limit_mb"
            )
        return self._gram(X, None, "training data")

    def _dual_numpy(self, X: np.ndarray, gram: np.ndarray | None, base: np.ndarray,
                    y: np.ndarray, C: float | np.ndarray, tol: float, max_iter: int,
                    p: np.ndarray | None = None) -> SMOResult:
        """:meth:`_dual` where numba is not installed: the same problem, stopping rule and
        intercept rule, by the iteration of the readable reference (numpy), on the Gram
        matrix of the samples ``base`` refers to. It holds that matrix (``gram_limit_mb``
        applies to every kernel), has no row cache and no shrinking, and reports no
        ``solver_stats_`` (None); it reaches the same optimum to the tolerance as the
        compiled solver, by the same steps up to the first exact tie of the selection."""
        m = base.shape[0]
        half = m // 2
        if m and m % 2 == 0 and np.array_equal(base[:half], base[half:]):
            idx = base[:half]      # SVR's layout: variable s on sample base[s mod n]
        else:
            idx = base
        # finite: _gram checks a named or callable kernel's matrix, validation a precomputed one
        if gram is None:           # the Gram matrix of the samples in the solver's order
            K = self._dual_gram(X[idx])
        else:
            K = gather_block(gram, idx)
        return smo_on_gram(K, y, C, tol, max_iter, p, overwrite_K=True)


def gather_block(G: np.ndarray, idx: np.ndarray, max_runs: int = 16) -> np.ndarray:
    """``G[np.ix_(idx, idx)]`` as a new C-contiguous float64 array, copied run by run
    where ``idx`` is made of at most ``max_runs`` runs of consecutive indices (ascending or
    descending: a binary problem's ``arange(n)`` or its reverse, a one-vs-one pair's two
    classes in grouped order), which copies blocks of memory instead of gathering every
    entry by index; by index otherwise. The same values either way.

    Examples
    --------
    >>> G = np.arange(16.0).reshape(4, 4)
    >>> idx = np.array([3, 2, 0])
    >>> bool(np.array_equal(gather_block(G, idx), G[np.ix_(idx, idx)]))
    True
    """
    idx = np.asarray(idx, dtype=np.intp)
    m = idx.shape[0]
    if m < 2:
        return np.ascontiguousarray(G[np.ix_(idx, idx)], dtype=np.float64)
    d = np.diff(idx)
    cut = (np.abs(d) != 1)
    cut[1:] |= d[1:] != d[:-1]
    starts = np.r_[0, np.flatnonzero(cut) + 1]
    if starts.shape[0] > max_runs:
        return np.ascontiguousarray(G[np.ix_(idx, idx)], dtype=np.float64)
    ends = np.r_[starts[1:], m]
    runs = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        first, last = int(idx[a]), int(idx[b - 1])
        if last >= first:
            runs.append((a, b, slice(first, last + 1)))
        else:
            runs.append((a, b, slice(first, last - 1 if last > 0 else None, -1)))
    K = np.empty((m, m), dtype=np.float64)
    for a, b, sa in runs:
        rows = G[sa]
        for c, e, sb in runs:
            K[a:b, c:e] = rows[:, sb]
    return K


def _is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array (scipy imported only if loaded)."""
    import sys

    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def _sample_list(A: Any) -> Any:
    """A 1-D object array of samples as the list of its elements (what a callable kernel
    on a sequence of samples receives); any other array as it is."""
    if isinstance(A, np.ndarray) and A.dtype == object and A.ndim == 1:
        return A.tolist()
    return A
