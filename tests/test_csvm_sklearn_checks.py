"""scikit-learn's estimator checks for ``ktheory.csvm.CentralSVC``.

Each check that cannot apply is listed in ``EXPECTED_FAILED`` with its reason (today none
is: every check passes). That the estimator is a scikit-learn estimator is checked
for every estimator of the package in ``tests/test_estimator_contract.py``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.csvm import CentralSVC  # noqa: E402

EXPECTED_FAILED: dict[str, str] = {}


def _estimators():
    return [CentralSVC(C=1.0, epsilon=0.5), CentralSVC(C=1.0, epsilon=0.5, kernel="rbf", gamma=0.1)]


def _expected_failed(estimator):
    return EXPECTED_FAILED


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)
