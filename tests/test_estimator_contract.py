"""Every estimator of the package on scikit-learn's foundations, and a failed fit that
changes nothing.

For each estimator class a public module of ``ktheory`` exports: it inherits
``sklearn.base.BaseEstimator`` and the mixin of its kind, raises scikit-learn's own
``NotFittedError`` before ``fit``, shows scikit-learn's HTML display, and a ``fit`` that
fails *after* validation (so after ``validate_data(reset=True)`` has set
``n_features_in_``) leaves every attribute as it was (``ktheory._base.atomic_fit``).
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin, clone, is_classifier
from sklearn.exceptions import NotFittedError

import ktheory
from ktheory._base import atomic_fit
from ktheory.classic import GaussianQuadraticClassifier, MLPClassifier, PiecewiseLinearClassifier
from ktheory.csvm import CentralSVC
from ktheory.fisher import KernelFisherDiscriminant
from ktheory.kpca import KernelPCA
from ktheory.mercer import NystromFeatures, RandomFourierFeatures
from ktheory.ridge import KernelRidge
from ktheory.svm import SVC, SVR, MulticlassSVC


class _Boom(RuntimeError):
    pass


def _raising_kernel(A, B):
    raise _Boom("the kernel failed")


RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 3))
Y = np.where(X[:, 0] + 0.3 * RNG.normal(size=30) > 0, 1, 0)
Z = X[:, 0] - 0.5 * X[:, 1]
X5 = RNG.normal(size=(30, 5))

#: (estimator, its kind, how a refit on 5 features fails after validation)
CASES = [
    (SVC(), "classifier", "one-class"),
    (SVC(kernel="linear"), "classifier", "kernel"),
    (MulticlassSVC(kernel="linear"), "classifier", "one-class"),
    (CentralSVC(), "classifier", "one-class"),
    (KernelFisherDiscriminant(), "classifier", "one-class"),
    (PiecewiseLinearClassifier(max_passes=5), "classifier", "one-class"),
    (GaussianQuadraticClassifier(), "classifier", "one-class"),
    (MLPClassifier(hidden_layer_sizes=(3,), max_epochs=20), "classifier", "one-class"),
    (SVR(), "regressor", "kernel"),
    (KernelRidge(), "regressor", "kernel"),
    (KernelPCA(n_components=2), "transformer", "kernel"),
    (NystromFeatures(n_components=10, random_state=0), "transformer", "kernel"),
    (RandomFourierFeatures(n_components=10, random_state=0), "transformer", "n_components"),
]
IDS = [repr(c[0]) for c in CASES]
MIXIN = {"classifier": ClassifierMixin, "regressor": RegressorMixin, "transformer": TransformerMixin}


def _public_estimator_classes() -> set[type]:
    found = set()
    for info in pkgutil.walk_packages(ktheory.__path__, "ktheory."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if isinstance(obj, type) and hasattr(obj, "fit"):
                found.add(obj)
    return found


def test_every_estimator_is_here():
    assert _public_estimator_classes() == {type(c[0]) for c in CASES}


def _fit(est, kind):
    return est.fit(X) if kind == "transformer" else est.fit(X, Z if kind == "regressor" else Y)


def _snapshot(est) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vars(est).items()}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            assert a[k] is b[k] or a[k] == b[k], k


@pytest.mark.parametrize("est,kind,failure", CASES, ids=IDS)
def test_inherits_sklearn_and_its_mixin(est, kind, failure):
    assert isinstance(est, BaseEstimator) and isinstance(est, MIXIN[kind])
    assert is_classifier(est) == (kind == "classifier")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone(est)


@pytest.mark.parametrize("est,kind,failure", CASES, ids=IDS)
def test_unfitted_raises_sklearns_not_fitted_error(est, kind, failure):
    method = "transform" if kind == "transformer" else "predict"
    with pytest.raises(NotFittedError):
        getattr(clone(est), method)(X)


@pytest.mark.parametrize("est,kind,failure", CASES, ids=IDS)
def test_html_display(est, kind, failure):
    html = clone(est)._repr_html_()
    assert type(est).__name__ in html and "<div" in html


@pytest.mark.parametrize("est,kind,failure", CASES, ids=IDS)
def test_failed_refit_changes_nothing(est, kind, failure):
    est = _fit(clone(est), kind)
    before = _snapshot(est)
    out_before = est.transform(X) if kind == "transformer" else est.predict(X)
    if failure == "one-class":
        with pytest.raises(ValueError, match="one class|single class"):
            est.fit(X5, np.zeros(30, dtype=int))
    elif failure == "kernel":
        est.set_params(kernel=_raising_kernel)
        with pytest.raises(_Boom):
            _fit_5(est, kind)
        est.set_params(kernel=before.get("kernel", est.kernel))
    elif failure == "n_components":
        est.set_params(n_components=-1)
        with pytest.raises(ValueError, match="n_components"):
            est.fit(X5)
        est.set_params(n_components=10)
    _same(before, _snapshot(est))
    assert est.n_features_in_ == 3
    out_after = est.transform(X) if kind == "transformer" else est.predict(X)
    np.testing.assert_array_equal(out_after, out_before)


def _fit_5(est, kind):
    return est.fit(X5) if kind == "transformer" else est.fit(X5, Z if kind == "regressor" else Y)


def test_atomic_fit_restores_on_any_exception():
    class Toy:
        @atomic_fit
        def fit(self, fail):
            self.a_ = 2
            self.n_features_in_ = 5
            if fail:
                raise KeyboardInterrupt
            return self

    t = Toy()
    t.a_ = 1
    with pytest.raises(KeyboardInterrupt):
        t.fit(True)
    assert vars(t) == {"a_": 1}
    assert t.fit(False).a_ == 2


def test_sklearn_checks_see_sklearn_estimators():
    """scikit-learn's parametrize_with_checks warns "... does not inherit from
    sklearn.base.BaseEstimator" for an estimator that is not one; for none of ours."""
    from sklearn.utils.estimator_checks import parametrize_with_checks

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parametrize_with_checks([clone(c[0]) for c in CASES])
    assert not [w for w in caught if "does not inherit" in str(w.message)]
