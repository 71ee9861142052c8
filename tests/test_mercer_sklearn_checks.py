"""scikit-learn's estimator checks for ``ktheory.mercer``'s transformers, feature names and
output configuration, and pickle round trips.

``parametrize_with_checks`` over :class:`ktheory.mercer.NystromFeatures` and
:class:`ktheory.mercer.RandomFourierFeatures` (small ``n_components``, fixed
``random_state``). A check that cannot apply would be listed in ``EXPECTED_FAILED``
with its reason (today none is: every check passes). One check skips itself for a
reason of the environment (array API not enabled); it is listed in
``ENVIRONMENT_SKIPS``, and any other self-skip fails the test, so nothing is
skipped silently.
"""

from __future__ import annotations

import pickle
import unittest

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from ktheory.kernels import gaussian_kernel  # noqa: E402
from ktheory.mercer import NystromFeatures, RandomFourierFeatures  # noqa: E402

def _estimators():
    return [
        NystromFeatures(n_components=5, random_state=0),
        RandomFourierFeatures(n_components=5, random_state=0),
    ]

#: Checks that cannot apply, per estimator class, with the reason. Empty: every check passes.
EXPECTED_FAILED: dict[str, dict[str, str]] = {}

#: Checks that scikit-learn skips because of the environment, not of the estimator.
ENVIRONMENT_SKIPS = {
    "check_array_api_input": "needs SCIPY_ARRAY_API=1 and array-api-strict; the transformers are numpy estimators",
}


def _expected_failed(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


def _check_name(check) -> str:
    func = getattr(check, "func", check)
    return getattr(func, "__name__", repr(func))


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible(estimator, check):
    try:
        check(estimator)
    except unittest.SkipTest as exc:
        name = _check_name(check)
        if name in ENVIRONMENT_SKIPS:
            pytest.skip(f"{name}: {ENVIRONMENT_SKIPS[name]} ({exc})")
        raise AssertionError(f"{name} skipped itself, which is not an expected environment skip: {exc}")


# ---------------------------------------------------------------------------
# feature names and set_output, without pandas
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, prefix",
    [
        pytest.param(lambda: NystromFeatures(n_components=20, sigma=1.5, random_state=0),
                     "nystromfeatures", id="nystrom"),
        pytest.param(lambda: RandomFourierFeatures(n_components=30, sigma=0.8, random_state=0),
                     "randomfourierfeatures", id="rff"),
    ],
)
def test_feature_names_and_default_output_need_no_pandas(make, prefix):
    """``get_feature_names_out`` names one column per output feature (class-name prefix),
    and ``set_output(transform="default")`` keeps numpy output: neither needs pandas (not a
    dependency; ``set_output(transform="pandas")`` is never required)."""
    X = np.random.default_rng(0).standard_normal((60, 4))
    est = make()
    with pytest.raises(NotFittedError):
        est.get_feature_names_out()
    Z = est.fit(X).transform(X)
    names = est.get_feature_names_out()
    assert isinstance(names, np.ndarray) and names.dtype == object
    assert names.tolist() == [f"{prefix}{i}" for i in range(Z.shape[1])]
    assert est.set_output(transform="default") is est
    Z2 = est.transform(X)
    assert type(Z2) is np.ndarray
    np.testing.assert_array_equal(Z2, Z)
    np.testing.assert_array_equal(est.fit_transform(X), Z)


def test_nystrom_feature_names_follow_the_kept_eigenvalues():
    """Rounding-level eigenvalues are dropped (fewer features than landmarks): the names
    count the features, not the landmarks."""
    est = NystromFeatures(n_components=3, random_state=0).fit(np.ones((10, 2)))
    assert est.eigenvalues_.size == 1
    assert est.get_feature_names_out().tolist() == ["nystromfeatures0"]
    assert est.transform(np.ones((2, 2))).shape == (2, 1)


# ---------------------------------------------------------------------------
# pickle round trips of fitted transformers
# ---------------------------------------------------------------------------


def _linear(A, B):  # module level, so a NystromFeatures with this kernel pickles
    return A @ B.T


FITTED = [
    pytest.param(lambda: NystromFeatures(n_components=20, sigma=1.5, random_state=0), id="nystrom-gaussian"),
    pytest.param(lambda: NystromFeatures(n_components=20, kernel=_linear, random_state=0), id="nystrom-callable"),
    pytest.param(lambda: RandomFourierFeatures(n_components=50, sigma=0.8, random_state=0), id="rff"),
]


@pytest.mark.parametrize("make", FITTED)
def test_pickle_round_trip_of_fitted_transformer(make):
    rng = np.random.default_rng(0)
    X, Xt = rng.standard_normal((60, 4)), rng.standard_normal((25, 4))
    est = make().fit(X)
    loaded = pickle.loads(pickle.dumps(est))
    assert type(loaded) is type(est) and loaded.get_params() == est.get_params()
    assert loaded.n_features_in_ == est.n_features_in_
    np.testing.assert_array_equal(loaded.transform(Xt), est.transform(Xt))
    np.testing.assert_array_equal(loaded.transform(X), est.transform(X))


def test_pickled_nystrom_keeps_reproducing_the_kernel():
    X = np.random.default_rng(1).standard_normal((50, 2))
    est = pickle.loads(pickle.dumps(NystromFeatures(n_components=50, sigma=1.0, random_state=0).fit(X)))
    Z = est.transform(X)  # all samples are landmarks: Z Z^T = K exactly (up to rounding)
    np.testing.assert_allclose(Z @ Z.T, gaussian_kernel(X, sigma=1.0), atol=1e-8)
