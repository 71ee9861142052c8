"""scikit-learn's estimator checks for the estimators of ``ktheory.classic``.

Each check that cannot apply is listed in ``EXPECTED_FAILED`` with its reason; every other
check must pass.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.classic import (  # noqa: E402
    GaussianQuadraticClassifier,
    MLPClassifier,
    PiecewiseLinearClassifier,
)

EXPECTED_FAILED: dict[str, dict[str, str]] = {}


def _estimators():
    return [
        PiecewiseLinearClassifier(n_subclasses=1, max_passes=20),
        GaussianQuadraticClassifier(reg_param=0.1),
        MLPClassifier(hidden_layer_sizes=(4,), max_epochs=50),
    ]


def _expected_failed(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    check(estimator)
