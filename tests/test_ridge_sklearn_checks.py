"""scikit-learn's estimator checks for ``ktheory.ridge.KernelRidge``.

Each check that cannot apply is listed with its reason; every other check must pass.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.ridge import KernelRidge  # noqa: E402

#: Checks that cannot apply to any setting. Empty: every check passes.
EXPECTED_FAILED: dict[str, str] = {}


#: With kernel="precomputed" these checks fit matrices that are not positive semidefinite
#: as if they were kernel matrices: check_positive_only_tag_during_fit the linear Gram
#: matrix of iris minus its mean, check_estimators_dtypes the float32 Gram matrix truncated
#: to integers (smallest eigenvalue -2); both pass for the float32 and float64 Gram matrices
#: themselves. KernelRidge refuses a non-PSD kernel matrix with a ValueError by design
#: (scikit-learn solves the indefinite system silently); tests/test_ridge.py checks it.
NOT_PSD_REASON = (
    "the check feeds a matrix that is not positive semidefinite as a precomputed kernel; "
    "KernelRidge raises a clear ValueError for a non-PSD kernel matrix by design"
)
EXPECTED_FAILED_PRECOMPUTED: dict[str, str] = {
    "check_positive_only_tag_during_fit": NOT_PSD_REASON,
    "check_estimators_dtypes": NOT_PSD_REASON,
}


def _estimators():
    return [
        KernelRidge(alpha=1.0, kernel="linear"),
        KernelRidge(alpha=0.5, kernel="rbf", gamma=0.1),
        KernelRidge(alpha=1.0, kernel="precomputed"),
    ]


def _expected_failed(estimator):
    if estimator.kernel == "precomputed":
        return {**EXPECTED_FAILED, **EXPECTED_FAILED_PRECOMPUTED}
    return EXPECTED_FAILED


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)
