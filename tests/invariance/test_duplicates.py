"""Duplicated samples: what the theory says happens when every training sample appears twice.

The losses of SVC, SVR, the LLW multicategory SVM and the central SVM are sums over the
samples, each weighted by ``C``; the regulariser does not depend on the samples. Listing
every sample twice doubles the loss, so the problem on ``(X, X)`` with ``C`` is the problem on
``X`` with ``2 C``: the primal objectives agree and so does the decision function (unique for
these strictly convex-in-``h`` problems; the intercept only where it is unique, hence
decision values are compared where the solution is clear of the tolerance, and the
objective). The dual solution of the duplicated problem is not unique (a pair of copies can
share its multiplier in any proportion), so only these unique quantities are compared.

Kernel ridge regression: ``sum_i (y_i - f(x_i))^2`` doubles, so ``alpha`` on ``(X, X)`` is
``alpha / 2`` on ``X`` (same predictions; ``K`` of the duplicated data is singular, but
``K + alpha I`` is not).

The Gaussian quadratic classifier with maximum-likelihood covariances and priors from the
class frequencies: means, covariances and priors are unchanged, so are the posteriors.

``gamma="scale"`` is unchanged too (``X.var()`` of the duplicated data is the same).
Iterative solvers run at ``tol = 1e-10``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktheory.classic import GaussianQuadraticClassifier
from ktheory.csvm import CentralSVC
from ktheory.ridge import KernelRidge
from ktheory.svm import SVC, SVR, MulticlassSVC

RNG = np.random.default_rng(23)
X = RNG.normal(size=(60, 2))
XT = RNG.normal(size=(25, 2))
Y2 = np.where(X[:, 0] + 0.6 * X[:, 1] ** 2 + 0.4 * RNG.normal(size=60) > 0.3, 1, -1)
Y3 = np.digitize(X[:, 0] + 0.3 * RNG.normal(size=60), [-0.5, 0.5])
Z = np.sin(2 * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * RNG.normal(size=60)
XX = np.r_[X, X]
TOL = 1e-10


def _close(a, b, rtol=1e-6):
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * max(1.0, float(np.max(np.abs(b)))))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("C", [0.5, 10.0])
def test_svc_duplicates_double_C(kernel, C):
    """SVC(C) on every sample twice = SVC(2C) on the samples: the same decision values
    and primal objective (objective_ is the dual optimum, equal to the primal one)."""
    a = SVC(C=C, kernel=kernel, tol=TOL).fit(np.r_[X, X], np.r_[Y2, Y2])
    b = SVC(C=2 * C, kernel=kernel, tol=TOL).fit(X, Y2)
    _close(a.decision_function(XT), b.decision_function(XT))
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-7)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_svr_duplicates_double_C(kernel):
    """SVR(C) on every sample twice = SVR(2C) on the samples (the epsilon-insensitive
    loss is a sum over samples)."""
    a = SVR(C=1.5, epsilon=0.1, kernel=kernel, tol=TOL).fit(XX, np.r_[Z, Z])
    b = SVR(C=3.0, epsilon=0.1, kernel=kernel, tol=TOL).fit(X, Z)
    _close(a.predict(XT), b.predict(XT))


def test_multiclass_svc_duplicates_double_C():
    """The LLW machine: ``C sum_i sum_j L (f_j(x_i) + 1/(k-1))_+`` doubles; the decision
    values and the optimal value agree with ``2 C`` on the samples."""
    a = MulticlassSVC(C=1.0, kernel="rbf").fit(XX, np.r_[Y3, Y3])
    b = MulticlassSVC(C=2.0, kernel="rbf").fit(X, Y3)
    _close(a.decision_function(XT), b.decision_function(XT), rtol=1e-5)
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-6)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_central_svc_duplicates_double_C(kernel):
    """The central SVM's slack penalty is a sum over samples and its class centres are
    means (unchanged by duplication): ``C`` on the doubled data is ``2 C`` on the data,
    with the same ``epsilon``."""
    a = CentralSVC(C=1.0, epsilon=0.2, kernel=kernel).fit(XX, np.r_[Y2, Y2])
    b = CentralSVC(C=2.0, epsilon=0.2, kernel=kernel).fit(X, Y2)
    _close(a.decision_function(XT), b.decision_function(XT))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_kernel_ridge_duplicates_halve_alpha(kernel):
    """The sum of squared residuals doubles: ``alpha`` on ``(X, X)`` is ``alpha / 2`` on
    ``X`` (the same predictions, to the solves' rounding)."""
    a = KernelRidge(alpha=0.4, kernel=kernel, gamma="scale").fit(XX, np.r_[Z, Z])
    b = KernelRidge(alpha=0.2, kernel=kernel, gamma="scale").fit(X, Z)
    _close(a.predict(XT), b.predict(XT), rtol=1e-9)


def test_gaussian_quadratic_classifier_ignores_duplication():
    """Means, maximum-likelihood covariances and class frequencies are unchanged by
    duplicating every sample, so the posteriors are too."""
    a = GaussianQuadraticClassifier().fit(XX, np.r_[Y3, Y3])
    b = GaussianQuadraticClassifier().fit(X, Y3)
    np.testing.assert_allclose(a.predict_log_proba(XT), b.predict_log_proba(XT), atol=1e-10)
    np.testing.assert_array_equal(a.predict(XT), b.predict(XT))
