"""Support vector machines: the exact hard-margin dual (chapter 7) and SMO (chapter 8).

Each implementation lives in its own private module; the public names are
re-exported here, so readers write ``from ktheory.svm import SVC``.
"""

from __future__ import annotations

__all__: list[str] = []
from ktheory.svm._exact import HardMarginSolution, hard_margin_dual_exact, to_exact  # noqa: E402  (chapter 7)
__all__ += ["HardMarginSolution", "hard_margin_dual_exact", "to_exact"]
from ktheory.svm._smo import SVC, ConvergenceWarning, NotFittedError, SMOResult, smo_solve  # noqa: E402  (chapter 8)
__all__ += ["SVC", "ConvergenceWarning", "NotFittedError", "SMOResult", "smo_solve"]
