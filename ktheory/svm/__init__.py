"""Support vector machines: the exact hard-margin dual (chapter 7) and SMO (chapter 8).

Each implementation lives in its own private module; the public names are
re-exported here, so readers write ``from ktheory.svm import SVC``.

The exact solver (:func:`hard_margin_dual_exact`, :func:`to_exact`,
:class:`HardMarginSolution`) works in sympy; it is imported on first use of
one of its names, so ``import ktheory.svm`` (and :class:`SVC`) does not import
sympy.
"""

from __future__ import annotations

import importlib
from typing import Any

from ktheory.svm._smo import SVC, ConvergenceWarning, NotFittedError, SMOResult, smo_solve  # (chapter 8)

_EXACT = ("HardMarginSolution", "hard_margin_dual_exact", "to_exact")  # (chapter 7, in sympy)

__all__ = [*_EXACT, "SVC", "ConvergenceWarning", "NotFittedError", "SMOResult", "smo_solve"]

from ktheory.svm._llw import MulticlassSVC, llw_population_minimizer  # noqa: E402 (chapter 9, LLW)

__all__ += ["MulticlassSVC", "llw_population_minimizer"]

from ktheory.svm._svr import SVR  # noqa: E402 (chapter 9, epsilon-SVR on SVC's SMO)

__all__ += ["SVR"]


def __getattr__(name: str) -> Any:
    """Load the exact solver (and sympy) on first access to one of its names."""
    if name in _EXACT:
        value = getattr(importlib.import_module("ktheory.svm._exact"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
