"""Support vector machines: the exact hard-margin dual (chapter 7) and SMO (chapter 8).

Each implementation lives in its own private module; the public names are
re-exported here, so readers write ``from ktheory.svm import SVC``. The modules come
in two layers, the lower never importing the upper:

* **solvers**: :mod:`~ktheory.svm._core` (what the SMO solvers share: ``TAU``, the
  result, the stopping measure, the intercept rule), :mod:`~ktheory.svm._smo` (the
  readable reference, :func:`smo_solve`), :mod:`~ktheory.svm._fast` (the same iteration
  compiled by numba, with a row cache and shrinking; optional), :mod:`~ktheory.svm._face`
  (:func:`face_steps`: active-set steps on the free multipliers where SMO stalls),
  :mod:`~ktheory.svm._llw_decomp` (the decomposition solver of the multicategory SVM, with
  its kernel-row cache :mod:`~ktheory.svm._llw_rows`; :mod:`~ktheory.svm._llw_qp` holds its
  exact intercepts and the interior-point QP the tests use as an oracle) and
  :mod:`~ktheory.svm._exact` (the exact dual in sympy);
* **estimators**: :mod:`~ktheory.svm._kernel_svm` (what every SVM estimator does:
  parameters, input, kernel, the dual solve), :mod:`~ktheory.svm._svc` with
  :mod:`~ktheory.svm._ovo` (one-vs-one), :mod:`~ktheory.svm._svr` and
  :mod:`~ktheory.svm._llw`.

The exact solver (:func:`hard_margin_dual_exact`, :func:`to_exact`,
:class:`HardMarginSolution`) works in sympy; it is imported on first use of
one of its names, so ``import ktheory.svm`` (and :class:`SVC`) does not import
sympy.
"""

from __future__ import annotations

import importlib
from typing import Any

from sklearn.exceptions import NotFittedError  # what the estimators raise before fit

from ktheory.svm._core import ConvergenceWarning, SMOResult
from ktheory.svm._smo import smo_solve  # (chapter 8)
from ktheory.svm._svc import SVC

_EXACT = ("HardMarginSolution", "hard_margin_dual_exact", "to_exact")  # (chapter 7, in sympy)

__all__ = [*_EXACT, "SVC", "ConvergenceWarning", "NotFittedError", "SMOResult", "smo_solve"]

from ktheory.svm._llw import MulticlassSVC, llw_population_minimizer  # noqa: E402 (chapter 9, LLW)

__all__ += ["MulticlassSVC", "llw_population_minimizer"]

from ktheory.svm._svr import SVR  # noqa: E402 (chapter 9, epsilon-SVR on SVC's SMO)

__all__ += ["SVR"]

# the compiled SMO (its module, or None without numba), for other estimators of ktheory
# that solve an SVM-type dual (ktheory.csvm.CentralSVC's first round)
from ktheory.svm._kernel_svm import compiled_solver  # noqa: E402
# face steps on a degenerate face of the box (SVC's compiled solver and CentralSVC)
from ktheory.svm._face import face_steps  # noqa: E402

__all__ += ["compiled_solver", "face_steps"]


def __getattr__(name: str) -> Any:
    """Load the exact solver (and sympy) on first access to one of its names."""
    if name in _EXACT:
        value = getattr(importlib.import_module("ktheory.svm._exact"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
