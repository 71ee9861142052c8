"""Invariance relations of the central SVM (``ktheory.csvm.CentralSVC``).

The CSVM (Chapter 11) is ::

    min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i
    s.t.            <w, x_+ - x_-> = 1,   y_i (<w, x_i> + b) >= epsilon - xi_i,   xi_i >= 0.

Its optimum is unique in ``w`` (strictly convex) and, as a set, in ``b`` (the estimator
takes the midpoint of the interval of optimal biases), so everything below is a relation
between optima, which a certified solver must reproduce whatever path it takes:

* **order** -- the problem is a function of the *set* of samples: fitting ``(X[p], y[p])``
  for a permutation ``p`` gives the same objective and decision function;
* **labels** -- it depends on the labels only through the two classes: renaming them keeps
  the predictions (mapped), and exchanging which class is positive (``y -> -y``) is the
  same problem with ``(w, b) -> (-w, -b)``, so the decision values change sign;
* **joint scaling** (derived in :func:`test_joint_scaling_with_C_over_s_squared`): for the
  linear kernel, ``X -> s X`` with ``C -> C / s^2`` and ``epsilon`` unchanged maps the
  optimum to ``w / s`` with the same ``b``, slacks and decision values; with the RBF kernel
  and ``gamma="scale"`` the Gram matrix itself does not change, so neither does anything
  else at the same ``C``.

Each relation is checked at ``C = 1`` and at ``C = 1e8``, where the solver's tolerance is
relative to the scale of the problem (before, an absolute tolerance made it run for a
minute and raise there). Tolerance: ``1e-6`` relative (of the objective; of the largest
decision value), far above the certified accuracy of each fit (``gap_bound_``).

Data: an unbalanced 30 : 5 sample of two unit Gaussians at ``+-(1.5, 1.5)`` and 400 test
points from both, seeded.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ktheory.csvm import CentralSVC

RNG = np.random.default_rng(20240612)
X = np.vstack([RNG.normal(size=(30, 2)) + 1.5, RNG.normal(size=(5, 2)) - 1.5])
Y = np.r_[np.ones(30), -np.ones(5)]
X_TEST = np.vstack([RNG.normal(size=(200, 2)) + 1.5, RNG.normal(size=(200, 2)) - 1.5])
PERM = RNG.permutation(len(Y))
REL = 1e-6

#: (kernel settings, C): the linear CSVM at a moderate and a huge C, and the RBF one
SETTINGS = [
    pytest.param({}, 1.0, id="linear-C1"),
    pytest.param({}, 1e8, id="linear-C1e8"),
    pytest.param({"kernel": "rbf"}, 10.0, id="rbf-C10"),
    pytest.param({"kernel": "rbf"}, 1e8, id="rbf-C1e8"),
]


def _fit(X, y, **params):
    """A fit that must be certified: no warning of any kind."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = CentralSVC(**params).fit(X, y)
    assert clf.duality_gap_ <= clf.gap_bound_ <= 1e-5
    return clf


def _assert_same_values(got, want):
    np.testing.assert_allclose(got, want, rtol=0, atol=REL * max(1.0, float(np.abs(want).max())))


def _clear(f):
    """Test points whose label no rounding at the solvers' accuracy can change."""
    return np.abs(f) > 1e-6 * max(1.0, float(np.abs(f).max()))


@pytest.mark.parametrize("kw,C", SETTINGS)
def test_order_of_the_samples(kw, C):
    """fit(X[p], y[p]) = fit(X, y) for a permutation p: the same primal objective (1e-6
    relative), decision values (1e-6 of their largest) and predictions."""
    a = _fit(X, Y, C=C, **kw)
    b = _fit(X[PERM], Y[PERM], C=C, **kw)
    np.testing.assert_allclose(b.primal_objective_, a.primal_objective_, rtol=REL)
    fa, fb = a.decision_function(X_TEST), b.decision_function(X_TEST)
    _assert_same_values(fb, fa)
    clear = _clear(fa)
    np.testing.assert_array_equal(b.predict(X_TEST)[clear], a.predict(X_TEST)[clear])
    assert b.epsilon_ == a.epsilon_ == 0.25


@pytest.mark.parametrize("kw,C", SETTINGS)
def test_renaming_and_reordering_the_labels(kw, C):
    """Labels enter only through the two classes. Renamed by r with the same sorted order
    (-1, 1 -> "neg", "pos"), the decision values are the same; renamed so that the order
    flips (-1, 1 -> 7, 3: the positive class, classes_[1], is now the former -1), the
    problem is the one in -y, whose optimum is (-w, -b): the decision values change sign.
    Either way the predictions are the renamed ones."""
    a = _fit(X, Y, C=C, **kw)
    fa, pa = a.decision_function(X_TEST), a.predict(X_TEST)
    clear = _clear(fa)
    for names, sign in (({-1.0: "neg", 1.0: "pos"}, 1.0), ({-1.0: 7, 1.0: 3}, -1.0)):
        y_named = np.array([names[v] for v in Y])
        b = _fit(X, y_named, C=C, **kw)
        np.testing.assert_allclose(b.primal_objective_, a.primal_objective_, rtol=REL)
        _assert_same_values(b.decision_function(X_TEST), sign * fa)
        want = np.array([names[v] for v in pa])
        np.testing.assert_array_equal(b.predict(X_TEST)[clear], want[clear])


@pytest.mark.parametrize("C", [1.0, 100.0])
@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_joint_scaling_with_C_over_s_squared(s, C):
    """X -> s X (linear kernel). Then m = x_+ - x_- -> s m, and (w / s, b) satisfies
    <w / s, s m> = 1 with the same functional margins y_i (<w / s, s x_i> + b): epsilon
    (measured in units of the centre separation along w, so "auto" = 1/4 stays) and the
    slacks are unchanged, and 1/2 ||w / s||^2 + C' sum xi = (1/2 ||w||^2 + s^2 C' sum xi) / s^2
    has the same minimiser iff C' = C / s^2. So the scaled fit has coef_ * s, the same
    intercept, decision values and predictions, and s^2 times the objective (C = 100 with
    s = 1e-3 is C' = 1e8)."""
    a = _fit(X, Y, C=C)
    b = _fit(s * X, Y, C=C / s**2)
    assert b.epsilon_ == a.epsilon_
    np.testing.assert_allclose(s**2 * b.primal_objective_, a.primal_objective_, rtol=REL)
    np.testing.assert_allclose(s * b.coef_, a.coef_, rtol=REL)
    fa = a.decision_function(X_TEST)
    _assert_same_values(b.decision_function(s * X_TEST), fa)
    clear = _clear(fa)
    np.testing.assert_array_equal(b.predict(s * X_TEST)[clear], a.predict(X_TEST)[clear])


@pytest.mark.parametrize("C", [10.0, 1e8])
@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_joint_scaling_rbf_with_gamma_scale(s, C):
    """X -> s X, RBF kernel with gamma="scale" = 1 / (n_features X.var()): gamma -> gamma /
    s^2, so gamma ||x - z||^2 and the Gram matrix do not change, nor does the fit at the
    same C: the same decision values on s X_test, predictions and objective."""
    a = _fit(X, Y, C=C, kernel="rbf")
    b = _fit(s * X, Y, C=C, kernel="rbf")
    np.testing.assert_allclose(b.gamma_ * s**2, a.gamma_, rtol=1e-12)
    np.testing.assert_allclose(b.primal_objective_, a.primal_objective_, rtol=REL)
    fa = a.decision_function(X_TEST)
    _assert_same_values(b.decision_function(s * X_TEST), fa)
    clear = _clear(fa)
    np.testing.assert_array_equal(b.predict(s * X_TEST)[clear], a.predict(X_TEST)[clear])
