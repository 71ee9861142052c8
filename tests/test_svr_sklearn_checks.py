"""scikit-learn's estimator checks for ``ktheory.svm.SVR``, one instance per kernel path.

Every check passes except those in ``EXPECTED_FAILED`` (with the reason); the three
checks that skip themselves for reasons of the environment (no pandas, array API not
enabled) may skip, any other skip is a failure.
"""

from __future__ import annotations

import unittest

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.kernels import linear_kernel  # noqa: E402
from ktheory.svm import SVR  # noqa: E402

ESTIMATORS = [
    SVR(),
    SVR(kernel="linear"),
    SVR(kernel="precomputed"),
    SVR(kernel=linear_kernel),
]

#: Checks that cannot apply, per estimator, with the reason. A fit with integer weights
#: and one on the samples repeated are the same problem, but SMO stops at tol=1e-3 by other
#: iterates, and gamma='scale' changes with repetition (scikit-learn xfails the check for its
#: own SVR); ``tests/test_svm_sample_weight.py`` checks the equivalence where it is exact.
_WEIGHT_EQUIVALENCE = (
    "the same problem as repeating samples, but SMO stops at tol=1e-3 by other iterates and "
    "gamma='scale' changes with repetition (scikit-learn xfails the check for its SVR); "
    "checked exactly in tests/test_svm_sample_weight.py")
EXPECTED_FAILED: dict[str, dict[str, str]] = {
    name: {"check_sample_weight_equivalence_on_dense_data": _WEIGHT_EQUIVALENCE,
           "check_sample_weight_equivalence_on_sparse_data": _WEIGHT_EQUIVALENCE}
    for name in ("SVR()", "SVR(kernel='linear')", "SVR(kernel=<function linear_kernel>)")
}

#: Checks that scikit-learn skips because of the environment, not of the estimator.
ENVIRONMENT_SKIPS = {
    "check_array_api_input": "needs SCIPY_ARRAY_API=1 and array-api-strict; SVR is a numpy estimator",
    "check_regressor_data_not_an_array": "needs pandas, which is not in the locked environment",
    "check_sample_weights_pandas_series": "needs pandas, which is not in the locked environment",
}


def _expected_failed(estimator):
    return EXPECTED_FAILED.get(repr(estimator), {})


def _check_name(check) -> str:
    func = getattr(check, "func", check)
    return getattr(func, "__name__", repr(func))


_checks = parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed)


@_checks
def test_sklearn_compatible(estimator, check):
    try:
        check(estimator)
    except unittest.SkipTest as exc:
        name = _check_name(check)
        if name in ENVIRONMENT_SKIPS:
            pytest.skip(f"{name}: {ENVIRONMENT_SKIPS[name]} ({exc})")
        raise AssertionError(f"{name} skipped itself, which is not an expected environment skip: {exc}")
