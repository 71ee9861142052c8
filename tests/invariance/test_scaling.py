"""Metamorphic relations under a change of units: ``X -> s X`` with the parameters the
theory says.

* RBF kernel, ``gamma -> gamma / s^2``: every kernel value is unchanged, so the problem and
  its solution are the same for SVC, SVR, MulticlassSVC and KernelRidge.
* Linear kernel, ``K -> s^2 K``: with ``C -> C / s^2`` (SVC, SVR, MulticlassSVC) the dual
  variables scale by ``1 / s^2`` and ``f(s x)`` equals ``f(x)``; KernelRidge with
  ``alpha -> s^2 alpha`` has ``c -> c / s^2`` and the same predictions.
* The Gaussian quadratic classifier (QDA) is affine-equivariant: scaling and translating
  ``X`` leaves every prediction and posterior unchanged.

Iterative solvers run at ``tol = 1e-10``; decision values and predictions are compared to
``1e-6`` of their scale.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktheory.classic import GaussianQuadraticClassifier
from ktheory.ridge import KernelRidge
from ktheory.svm import SVC, SVR, MulticlassSVC

RNG = np.random.default_rng(11)
X = RNG.normal(size=(80, 3))
XT = RNG.normal(size=(30, 3))
Y2 = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * RNG.normal(size=80) > 0.4).astype(int)
Y3 = np.digitize(X[:, 0] + 0.3 * RNG.normal(size=80), [-0.5, 0.5])
Z = np.sin(X[:, 0]) + 0.5 * X[:, 2] + 0.1 * RNG.normal(size=80)
SCALES = [1e-3, 1e3]
TOL = 1e-10


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6 * max(1.0, float(np.max(np.abs(b)))))


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("make,data", [
    (lambda g, c: SVC(kernel="rbf", gamma=g, C=c, tol=TOL), "classes"),
    (lambda g, c: SVR(kernel="rbf", gamma=g, C=c, epsilon=0.05, tol=TOL), "targets"),
    (lambda g, c: MulticlassSVC(kernel="rbf", gamma=g, C=c, tol=TOL), "three classes"),
    (lambda g, c: KernelRidge(alpha=0.1, kernel="rbf", gamma=g), "targets"),
], ids=["SVC", "SVR", "MulticlassSVC", "KernelRidge"])
def test_rbf_with_gamma_over_s_squared_is_unchanged(make, data, s):
    """X -> s X with gamma -> gamma / s^2 leaves every RBF kernel value, hence the fit and
    its decision values (predictions for the regressors), unchanged."""
    y = {"classes": Y2, "targets": Z, "three classes": Y3}[data]
    a = make(0.5, 2.0).fit(X, y)
    b = make(0.5 / s**2, 2.0).fit(s * X, y)
    method = "predict" if data == "targets" else "decision_function"
    _close(getattr(b, method)(s * XT), getattr(a, method)(XT))


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("make,data", [
    (lambda c: SVC(kernel="linear", C=c, tol=TOL), "classes"),
    (lambda c: SVR(kernel="linear", C=c, epsilon=0.05, tol=TOL), "targets"),
    (lambda c: MulticlassSVC(kernel="linear", C=c, tol=TOL), "three classes"),
], ids=["SVC", "SVR", "MulticlassSVC"])
def test_linear_kernel_with_c_over_s_squared_is_unchanged(make, data, s):
    """X -> s X multiplies the linear kernel by s^2; with C -> C / s^2 the dual variables
    scale by 1 / s^2 and every decision value f(s x) equals f(x)."""
    y = {"classes": Y2, "targets": Z, "three classes": Y3}[data]
    a = make(1.0).fit(X, y)
    b = make(1.0 / s**2).fit(s * X, y)
    method = "predict" if data == "targets" else "decision_function"
    _close(getattr(b, method)(s * XT), getattr(a, method)(XT))
    if data == "classes":
        _close(b.dual_coef_ * s**2, a.dual_coef_)


@pytest.mark.parametrize("s", SCALES)
def test_kernel_ridge_linear_with_alpha_times_s_squared_is_unchanged(s):
    """Linear kernel: (s^2 K + s^2 alpha I) c' = y has c' = c / s^2, so the predictions at
    s x equal those at x."""
    a = KernelRidge(alpha=0.3, kernel="linear").fit(X, Z)
    b = KernelRidge(alpha=0.3 * s**2, kernel="linear").fit(s * X, Z)
    _close(b.predict(s * XT), a.predict(XT))


@pytest.mark.parametrize("s,t", [(1e-3, 1e3), (1e3, -1e4)])
def test_gaussian_quadratic_classifier_is_affine_equivariant(s, t):
    """QDA's posteriors are invariant under x -> s x + t (the Gaussian class densities
    transform with the same Jacobian): the same predictions and log posteriors."""
    a = GaussianQuadraticClassifier().fit(X, Y3)
    b = GaussianQuadraticClassifier().fit(s * X + t, Y3)
    np.testing.assert_array_equal(b.predict(s * XT + t), a.predict(XT))
    _close(b.predict_log_proba(s * XT + t), a.predict_log_proba(XT))
