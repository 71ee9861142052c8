"""scikit-learn's estimator checks for ``ktheory.fisher.KernelFisherDiscriminant``.

Each check that cannot apply is listed in ``EXPECTED_FAILED`` with its reason; every other
check must pass.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.fisher import KernelFisherDiscriminant  # noqa: E402

EXPECTED_FAILED: dict[str, str] = {}


def _estimators():
    return [
        KernelFisherDiscriminant(kernel="rbf", mu=1e-2),
        KernelFisherDiscriminant(kernel="linear", mu=1.0),
    ]


def _expected_failed(estimator):
    return EXPECTED_FAILED


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)
