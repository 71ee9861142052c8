"""``SVC(probability=True)``: Platt scaling and pairwise coupling, as scikit-learn's libsvm.

The probabilities cannot equal scikit-learn's to the solver's tolerance: the sigmoid of
each binary problem is fitted on 5-fold cross-validated decision values, and the folds
come from numpy's generator here, from libsvm's own generator there, so the same
``random_state`` gives different folds. The parts that involve no randomness are checked
exactly against independent computations (the sigmoid fit against scipy's optimiser, the
coupling against a linear solve); the whole against scikit-learn to a tolerance measured
on the data (see each test).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_iris, make_blobs
from sklearn.svm import SVC as SkSVC

from ktheory.svm import SVC
from ktheory.svm._platt import pairwise_coupling, sigmoid_predict, sigmoid_train


def _sk_proba(X, y, **params):
    """scikit-learn's probabilities (its ``probability`` is deprecated from 1.9 on)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return SkSVC(probability=True, **params).fit(X, y).predict_proba(X)


def _separated():
    return make_blobs(n_samples=100, centers=[[-3.0, -3.0], [3.0, 3.0]], cluster_std=1.0,
                      random_state=0)


def _overlapping():
    return make_blobs(n_samples=200, centers=2, cluster_std=1.5, random_state=0)


# --- against scikit-learn -------------------------------------------------------------------


@pytest.mark.parametrize("data, tol", [
    # measured (random_state=0 on both): 0.0017; over 10 x 10 random states 0.0031, and
    # scikit-learn against itself (different random states) 0.0033
    pytest.param(_separated, 0.02, id="well-separated"),
    # measured: 0.022; over 10 x 10 random states 0.045, scikit-learn against itself 0.044
    pytest.param(_overlapping, 0.1, id="overlapping-blobs"),
    # measured: 0.020; over 10 x 10 random states 0.061, scikit-learn against itself 0.051
    pytest.param(lambda: load_iris(return_X_y=True), 0.1, id="iris"),
])
def test_probabilities_agree_with_sklearn(data, tol):
    """Max abs difference to scikit-learn's ``predict_proba`` on the training data, both
    with ``random_state=0``. The folds differ (numpy's shuffle, not libsvm's), so the
    difference is of the size of scikit-learn's own variation between random states
    (measured values in the parameters); the tolerance has a margin of about 2 over the
    worst of 100 pairs of random states, and well-separated data leave little to vary."""
    X, y = data()
    ours = SVC(probability=True, random_state=0).fit(X, y)
    P = ours.predict_proba(X)
    Psk = _sk_proba(X, y, random_state=0)
    assert P.shape == Psk.shape == (X.shape[0], np.unique(y).size)
    assert np.max(np.abs(P - Psk)) <= tol
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(ours.predict_log_proba(X), np.log(P))


@pytest.mark.parametrize("data", [_overlapping, lambda: load_iris(return_X_y=True)],
                         ids=["binary", "iris"])
def test_same_sigmoids_give_sklearns_probabilities(data):
    """With scikit-learn's fitted sigmoids (``probA_``, ``probB_``) put into the model, the
    randomness is gone: ``predict_proba`` is scikit-learn's up to the decision values'
    agreement (the same problems solved to ``tol=1e-3`` by another path) and the same
    coupling iteration: measured 3e-4 (overlapping blobs) and 4e-4 (iris); 2e-3 allows
    for the decision values' tol-level difference times the sigmoid's slope."""
    X, y = data()
    ours = SVC(probability=True, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkSVC(probability=True, random_state=0).fit(X, y)
        ours.probA_, ours.probB_ = np.array(sk.probA_), np.array(sk.probB_)
        Psk = sk.predict_proba(X)
    np.testing.assert_allclose(ours.predict_proba(X), Psk, atol=2e-3)


def test_sigmoid_parameters_have_sklearns_sign_and_shape():
    """``probA_``/``probB_``: one per pair, libsvm's sign (the decision value positive for
    the pair's first class, so ``probA_ < 0`` on data the SVM separates), close to
    scikit-learn's (different folds)."""
    for X, y in (_separated(), load_iris(return_X_y=True)):
        ours = SVC(probability=True, random_state=0).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            sk = SkSVC(probability=True, random_state=0).fit(X, y)
            skA, skB = sk.probA_, sk.probB_
        k = np.unique(y).size
        assert ours.probA_.shape == ours.probB_.shape == (k * (k - 1) // 2,)
        assert np.all(ours.probA_ < 0) and np.all(skA < 0)
        np.testing.assert_allclose(ours.probA_, skA, rtol=0.25)
        assert np.max(np.abs(ours.probB_ - skB)) < 0.5


def test_binary_columns_follow_classes_and_predict_uses_decision_function():
    X, y = _separated()
    labels = np.where(y == 1, "yes", "no")
    clf = SVC(probability=True, random_state=0).fit(X, labels)
    assert clf.classes_.tolist() == ["no", "yes"]
    P = clf.predict_proba(X)
    dec = clf.decision_function(X)
    # the classes are separated: the probable class is the predicted one
    assert np.array_equal(P[:, 1] > 0.5, dec > 0)
    assert np.array_equal(clf.predict(X), np.where(dec >= 0, "yes", "no"))
    # P(classes_[0]) is the sigmoid of libsvm's value, -decision_function, up to the
    # coupling's stopping rule (libsvm couples two classes too, stopping at 0.005 / k)
    np.testing.assert_allclose(P[:, 0], sigmoid_predict(-dec, clf.probA_[0], clf.probB_[0]),
                               atol=5e-3)


# --- the parts without randomness -----------------------------------------------------------


def _platt_nll(ab, f, t):
    z = ab[0] * f + ab[1]
    return float(np.sum(t * z + np.logaddexp(0.0, -z)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sigmoid_train_minimises_platts_objective(seed):
    """``sigmoid_train`` on fixed decision values and labels (no cross-validation) is the
    minimiser of the regularised negative log-likelihood with the targets ``(N+ + 1) /
    (N+ + 2)`` and ``1 / (N- + 2)``, found independently by scipy (BFGS, tight)."""
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(80) < 0.4, 1, -1)
    f = labels * rng.gamma(2.0, 0.7, 80) + rng.normal(0.0, 0.8, 80)   # overlapping classes
    npos = np.sum(labels > 0)
    nneg = labels.size - npos
    t = np.where(labels > 0, (npos + 1) / (npos + 2), 1 / (nneg + 2))
    A, B = sigmoid_train(f, labels)
    ref = minimize(_platt_nll, x0=[0.0, 0.0], args=(f, t), method="BFGS",
                   options={"gtol": 1e-10})
    np.testing.assert_allclose([A, B], ref.x, atol=1e-6)
    assert _platt_nll([A, B], f, t) <= ref.fun + 1e-9


def test_sigmoid_train_on_separable_values_is_finite():
    """The targets keep the minimum finite where the values separate the labels."""
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    A, B = sigmoid_train(f, [-1, -1, -1, 1, 1, 1])
    assert np.isfinite(A) and np.isfinite(B) and A < 0
    with pytest.raises(ValueError, match="same length"):
        sigmoid_train(f, [1, -1])


def _coupling_by_linear_system(r):
    """Method 2's defining system: ``Q p + b 1 = 0``, ``1^T p = 1``, by numpy's solve."""
    k = r.shape[0]
    Q = np.empty((k, k))
    for t in range(k):
        for j in range(k):
            Q[t, j] = sum(r[s, t] ** 2 for s in range(k) if s != t) if t == j else -r[j, t] * r[t, j]
    M = np.zeros((k + 1, k + 1))
    M[:k, :k] = Q
    M[:k, k] = M[k, :k] = 1.0
    return np.linalg.solve(M, np.r_[np.zeros(k), 1.0])[:k]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_pairwise_coupling_solves_its_linear_system(k):
    rng = np.random.default_rng(k)
    R = []
    for _ in range(4):
        r = np.zeros((k, k))
        iu = np.triu_indices(k, 1)
        r[iu] = rng.uniform(0.05, 0.95, iu[0].size)
        r[(iu[1], iu[0])] = 1.0 - r[iu]
        R.append(r)
    R = np.array(R)
    exact = np.array([_coupling_by_linear_system(r) for r in R])
    # run to convergence: the solution of the system
    np.testing.assert_allclose(pairwise_coupling(R, eps=1e-13, max_iter=10_000), exact, atol=1e-9)
    # libsvm's stopping rule (eps = 0.005 / k): close, and each row a distribution
    P = pairwise_coupling(R)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(P, exact, atol=0.02)
    # one matrix alone
    np.testing.assert_allclose(pairwise_coupling(R[0]), P[0])


def test_pairwise_coupling_of_two_classes_is_the_pairwise_estimate():
    """Two classes: the solution is ``(r_01, r_10)``; libsvm's iteration stops near it
    (its stopping rule, which scikit-learn's probabilities share), run on it reaches it."""
    r = np.array([[0.0, 0.8], [0.2, 0.0]])
    np.testing.assert_allclose(pairwise_coupling(r), [0.8, 0.2], atol=1e-3)
    np.testing.assert_allclose(pairwise_coupling(r, eps=1e-14, max_iter=1000), [0.8, 0.2],
                               atol=1e-12)


# --- the estimator --------------------------------------------------------------------------


def test_same_random_state_same_probabilities():
    X, y = load_iris(return_X_y=True)
    a = SVC(probability=True, random_state=3).fit(X, y)
    b = SVC(probability=True, random_state=3).fit(X, y)
    assert np.array_equal(a.probA_, b.probA_) and np.array_equal(a.probB_, b.probB_)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    c = clone(a).fit(X, y)
    assert np.array_equal(a.predict_proba(X), c.predict_proba(X))
    # a RandomState instance is used as given (its state advances)
    rs = np.random.RandomState(3)
    assert np.array_equal(SVC(probability=True, random_state=rs).fit(X, y).probA_, a.probA_)


def test_probability_does_not_change_the_model():
    X, y = load_iris(return_X_y=True)
    plain = SVC().fit(X, y)
    prob = SVC(probability=True, random_state=0).fit(X, y)
    for name in ("support_", "dual_coef_", "intercept_", "n_support_"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(prob, name))
    np.testing.assert_array_equal(plain.predict(X), prob.predict(X))
    assert plain.probA_.shape == plain.probB_.shape == (0,)


def test_predict_proba_unavailable_without_probability():
    X, y = _separated()
    clf = SVC().fit(X, y)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "predict_log_proba")
    for method in ("predict_proba", "predict_log_proba"):
        with pytest.raises(AttributeError, match=method) as exc:
            getattr(clf, method)(X)
        assert "probability=False" in str(exc.value.__cause__)
    # switched on after a fit without it: fit again first, as scikit-learn
    clf.set_params(probability=True)
    assert hasattr(clf, "predict_proba")
    with pytest.raises(Exception, match="fitted with probability=False"):
        clf.predict_proba(X)
    assert hasattr(SVC(probability=True), "predict_proba")


@pytest.mark.parametrize("value, exc", [("yes", TypeError), (1, TypeError), (None, TypeError)])
def test_bad_probability_is_refused(value, exc):
    X, y = _separated()
    with pytest.raises(exc, match="probability must be True or False"):
        SVC(probability=value).fit(X, y)


def test_bad_random_state_is_refused_and_fit_is_atomic():
    X, y = _separated()
    clf = SVC(probability=True, random_state=0).fit(X, y)
    before = clf.probA_.copy()
    with pytest.raises(ValueError, match="random_state|RandomState"):
        clf.set_params(random_state="seed").fit(X[:50], y[:50])
    np.testing.assert_array_equal(clf.probA_, before)


def test_pickle_keeps_probabilities():
    X, y = load_iris(return_X_y=True)
    clf = SVC(probability=True, random_state=0).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.probA_, clf.probA_)
    np.testing.assert_array_equal(back.probB_, clf.probB_)
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


def test_precomputed_and_callable_kernels_match_the_named_one():
    """The same folds (same ``random_state``) on the same Gram matrix: the same
    probabilities up to the solver's tolerance."""
    from ktheory.kernels import linear_kernel

    X, y = load_iris(return_X_y=True)
    named = SVC(kernel="linear", probability=True, random_state=0).fit(X, y)
    K = X @ X.T
    pre = SVC(kernel="precomputed", probability=True, random_state=0).fit(K, y)
    cal = SVC(kernel=linear_kernel, probability=True, random_state=0).fit(X, y)
    P = named.predict_proba(X)
    np.testing.assert_allclose(pre.predict_proba(K), P, atol=0.01)
    np.testing.assert_allclose(cal.predict_proba(X), P, atol=0.01)


def test_tiny_classes_and_hard_margin():
    """Folds whose training part holds one class only (libsvm's +-1 values), and C = inf."""
    X = np.array([[0.0, 0.0], [0.2, 0.1], [3.0, 3.0], [3.1, 2.9], [2.9, 3.2], [3.3, 3.0]])
    y = np.array([0, 0, 1, 1, 1, 1])
    for C in (1.0, float("inf")):
        clf = SVC(kernel="linear", C=C, probability=True, random_state=0).fit(X, y)
        P = clf.predict_proba(X)
        assert np.all(np.isfinite(clf.probA_)) and np.all(np.isfinite(P))
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
