"""Tests of ktheory.classic against independent oracles.

* GaussianQuadraticClassifier = an explicit oracle (scipy's Gaussian log-density with the ML or
  unbiased covariance, (1 - r) S + r I for reg_param r, plus log-priors), independent of any
  scikit-learn default; scikit-learn's QDA with the covariance estimator pinned by parameter
  (only from scikit-learn 1.8.0 on, skipped below); and which covariance scikit-learn's default
  QDA uses, stated per version; the discriminant = twice scipy's Gaussian log-density plus
  log-prior (+ d ln 2 pi).
* mlp_loss_gradient = central finite differences on random architectures (hypothesis).
* PiecewiseLinearClassifier = a plain-Python transcription of the error-correction rule; settles on
  the seeded separable-subclass data within a documented number of passes; its cycle detection is
  confirmed by comparing two fits a cycle apart; minimum distance = brute-force distances.
* Monomial counts = closed forms.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import multivariate_normal
from sklearn.base import clone
from sklearn.covariance import EmpiricalCovariance
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.model_selection import cross_val_score

from ktheory.classic import (
    GaussianQuadraticClassifier,
    MLPClassifier,
    PiecewiseLinearClassifier,
    gradient_check,
    mlp_loss_gradient,
)
from ktheory.kernels import polynomial_feature_dimension


def xor_blobs(n, seed, spread=0.25):
    g = np.random.default_rng(seed)
    centres, labels = np.array([[0, 0], [2, 2], [0, 2], [2, 0]]), np.array([0, 0, 1, 1])
    idx = np.repeat(np.arange(4), n)
    return centres[idx] + spread * g.standard_normal((4 * n, 2)), labels[idx]


def three_gaussians(seed):
    g = np.random.default_rng(seed)
    X = np.vstack([g.normal(0, 1, (60, 3)), g.normal([2, 1, 0], [0.5, 1.5, 1], (40, 3)),
                   g.normal([-2, 2, 1], 0.7, (30, 3))])
    return X, np.repeat(["a", "b", "c"], [60, 40, 30])


def gaussian_log_posterior(X, y, Xt, ddof, priors=None, reg=0.0):
    """Independent oracle: scipy's Gaussian log-density with the covariance
    (1 - reg) * (scatter / (N_i - ddof)) + reg * I, plus log-prior, normalised over classes."""
    classes = np.unique(y)
    pri = np.array([np.mean(y == c) for c in classes]) if priors is None else np.asarray(priors)
    cols = []
    for c, p in zip(classes, pri):
        Xc = X[y == c]
        S = (1 - reg) * np.cov(Xc, rowvar=False, ddof=ddof) + reg * np.eye(X.shape[1])
        cols.append(multivariate_normal(Xc.mean(0), S).logpdf(Xt) + np.log(p))
    L = np.column_stack(cols)
    return L - logsumexp(L, axis=1, keepdims=True), classes


SK_VERSION = tuple(int(v) for v in sklearn.__version__.split(".")[:3] if v.isdigit())
#: scikit-learn's QuadraticDiscriminantAnalysis has `solver` and `covariance_estimator` from 1.8.0 on
#: (checked in the wheels of 1.7.2, without them, and 1.8.0, with them).
QDA_HAS_ESTIMATOR = SK_VERSION >= (1, 8)


class UnbiasedCovariance:
    def fit(self, X, y=None):
        self.covariance_ = np.cov(X, rowvar=False, ddof=1)
        return self


# --------------------------------------------------------------------------- quadratic
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("covariance, ddof", [("ml", 0), ("unbiased", 1)])
def test_gaussian_quadratic_matches_scipy_oracle(seed, covariance, ddof):
    X, y = three_gaussians(seed)
    Xt = np.random.default_rng(seed + 10).normal(0, 2.5, (400, 3))
    kt = GaussianQuadraticClassifier(covariance=covariance).fit(X, y)
    expected, classes = gaussian_log_posterior(X, y, Xt, ddof)
    np.testing.assert_allclose(kt.predict_log_proba(Xt), expected, atol=1e-9)
    np.testing.assert_allclose(kt.predict_proba(Xt), np.exp(expected), atol=1e-12)
    clear = np.sort(expected, axis=1)[:, -1] - np.sort(expected, axis=1)[:, -2] > 1e-9
    assert clear.mean() > 0.99
    assert np.array_equal(kt.predict(Xt)[clear], classes[np.argmax(expected, axis=1)][clear])
    np.testing.assert_allclose(kt.means_, [X[y == c].mean(0) for c in classes], rtol=1e-12)


@pytest.mark.skipif(not QDA_HAS_ESTIMATOR, reason="QuadraticDiscriminantAnalysis has solver= and "
                    "covariance_estimator= only from scikit-learn 1.8.0 on")
@pytest.mark.parametrize("covariance, sk_estimator", [("ml", EmpiricalCovariance), ("unbiased", UnbiasedCovariance)])
def test_gaussian_quadratic_matches_sklearn_qda_pinned_estimator(covariance, sk_estimator):
    X, y = three_gaussians(0)
    Xt = np.random.default_rng(10).normal(0, 2.5, (400, 3))
    sk = QuadraticDiscriminantAnalysis(solver="eigen", covariance_estimator=sk_estimator()).fit(X, y)
    kt = GaussianQuadraticClassifier(covariance=covariance).fit(X, y)
    np.testing.assert_allclose(kt.predict_log_proba(Xt), sk.predict_log_proba(Xt), atol=1e-9)
    assert np.array_equal(kt.predict(Xt), sk.predict(Xt))


def test_which_covariance_sklearns_default_qda_uses():
    """scikit-learn's default QDA (solver "svd") divides the scatter by N_i - 1 up to 1.9.0
    (read in the code of 1.7.2, 1.8.0 and 1.9.0) and by N_i in 1.9.1, the locked version
    (measured here: 2.3e-13 from our ml, 4.9 from our unbiased log-posteriors)."""
    X, y = three_gaussians(5)
    Xt = np.random.default_rng(3).normal(0, 2.5, (100, 3))
    sk = QuadraticDiscriminantAnalysis().fit(X, y).predict_log_proba(Xt)
    gap = {cov: np.abs(GaussianQuadraticClassifier(covariance=cov).fit(X, y).predict_log_proba(Xt) - sk).max()
           for cov in ("ml", "unbiased")}
    default = "ml" if SK_VERSION >= (1, 9, 1) else "unbiased"
    other = "unbiased" if default == "ml" else "ml"
    assert gap[default] < 1e-10 and gap[other] > 1e-4, (sklearn.__version__, gap)


def test_ml_and_unbiased_differ():
    X, y = three_gaussians(5)
    Xt = np.random.default_rng(3).normal(0, 2.5, (100, 3))
    ml = GaussianQuadraticClassifier(covariance="ml").fit(X, y).predict_log_proba(Xt)
    unb = GaussianQuadraticClassifier(covariance="unbiased").fit(X, y).predict_log_proba(Xt)
    assert np.abs(ml - unb).max() > 1e-4          # the oracle comparisons can tell them apart


@pytest.mark.parametrize("covariance, ddof", [("ml", 0), ("unbiased", 1)])
def test_gaussian_quadratic_priors_and_reg_param_match_oracle(covariance, ddof):
    X, y = three_gaussians(4)
    Xt = np.random.default_rng(8).normal(0, 2, (200, 3))
    pri = np.array([0.2, 0.5, 0.3])
    kt = GaussianQuadraticClassifier(priors=pri, reg_param=0.3, covariance=covariance).fit(X, y)
    expected, _ = gaussian_log_posterior(X, y, Xt, ddof, priors=pri, reg=0.3)
    np.testing.assert_allclose(kt.predict_log_proba(Xt), expected, atol=1e-9)
    unregularised, _ = gaussian_log_posterior(X, y, Xt, ddof, priors=pri, reg=0.0)
    assert np.abs(unregularised - expected).max() > 1e-3     # reg_param is visible to the comparison


def test_binary_decision_function_is_log_odds():
    X, y = three_gaussians(6)
    keep = y != "c"
    kt = GaussianQuadraticClassifier().fit(X[keep], y[keep])
    Xt = np.random.default_rng(1).normal(0, 2, (50, 3))
    expected, _ = gaussian_log_posterior(X[keep], y[keep], Xt, ddof=0)
    np.testing.assert_allclose(kt.decision_function(Xt), expected[:, 1] - expected[:, 0], atol=1e-9)


def test_discriminant_is_twice_log_density_plus_log_prior():
    X, y = three_gaussians(7)
    kt = GaussianQuadraticClassifier().fit(X, y)
    Xt = np.random.default_rng(2).normal(0, 2, (100, 3))
    for i in range(3):
        expected = 2 * (multivariate_normal(kt.means_[i], kt.covariance_[i]).logpdf(Xt) + np.log(kt.priors_[i])) \
            + 3 * np.log(2 * np.pi)
        np.testing.assert_allclose(kt.discriminant_function(Xt)[:, i], expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kt.thresholds_, 2 * np.log(kt.priors_) - np.log(np.linalg.det(kt.covariance_)))


def test_singular_covariance_is_a_clear_error_and_reg_param_fixes_it():
    X, y = three_gaussians(0)
    Xs = np.c_[X, X[:, 0] - X[:, 1]]                     # collinear feature: every covariance singular
    with pytest.raises(ValueError, match="singular.*reg_param"):
        GaussianQuadraticClassifier().fit(Xs, y)
    assert GaussianQuadraticClassifier(reg_param=0.01).fit(Xs, y).score(Xs, y) > 0.8
    with pytest.raises(ValueError, match="too few"):
        GaussianQuadraticClassifier(covariance="unbiased").fit(np.r_[X[:5], X[-1:]], np.r_[np.zeros(5), 1])


# --------------------------------------------------------------------------- backprop
@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=2, max_size=5), n=st.integers(1, 8), seed=st.integers(0, 2 ** 31))
def test_backprop_equals_finite_differences(sizes, n, seed):
    g = np.random.default_rng(seed)
    n_par = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
    w = g.normal(0, 1, n_par)
    X, T = g.normal(0, 1, (n, sizes[0])), g.uniform(0, 1, (n, sizes[-1]))
    grad, grad_fd, rel = gradient_check(lambda v: mlp_loss_gradient(v, X, T, sizes), w)
    assert rel < 1e-6, rel
    assert np.all(np.isfinite(grad))


def test_gradient_check_detects_a_wrong_gradient():
    f_wrong = lambda v: (float(np.sum(v ** 3)), 2 * v ** 2)      # should be 3 v^2
    assert gradient_check(f_wrong, np.array([1.0, -2.0, 0.5]))[2] > 0.1
    X = np.random.default_rng(0).normal(size=(4, 2))
    T = np.ones((4, 1))
    w = np.random.default_rng(1).normal(size=13)
    bad = lambda v: (mlp_loss_gradient(v, X, T, [2, 3, 1])[0], -mlp_loss_gradient(v, X, T, [2, 3, 1])[1])
    assert gradient_check(bad, w)[2] > 1.0


def momentum_run(sign, X, T, sizes, w0, eta=0.5, mu=0.9, steps=300):
    """v <- mu v + sign * eta * grad, w <- w + v; sign = -1 descends, +1 is the seed's printed plus."""
    w, v, losses = w0.copy(), np.zeros_like(w0), []
    for _ in range(steps):
        loss, g = mlp_loss_gradient(w, X, T, sizes)
        losses.append(loss)
        v = mu * v + sign * eta * g
        w = w + v
    return np.array(losses)


def test_momentum_update_decreases_the_loss():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    clf = MLPClassifier(hidden_layer_sizes=(3,), learning_rate=2.0, momentum=0.9, max_epochs=1500).fit(X, [0, 0, 1, 1])
    assert clf.loss_curve_[-1] < 0.01 * clf.loss_curve_[0]
    assert clf.predict(X).tolist() == [0, 0, 1, 1]
    # the sign: the same momentum loop with -eta*grad descends, with the printed +eta*grad ascends
    T = np.array([[0.0], [0.0], [1.0], [1.0]])
    w0 = np.random.default_rng(5).uniform(-1, 1, 2 * 4 + 4 + 4 + 1)
    down, up = momentum_run(-1, X, T, [2, 4, 1], w0), momentum_run(+1, X, T, [2, 4, 1], w0)
    assert down[-1] < 0.8 * down[0]
    assert up[-1] > up[0] + 0.05


def test_divergent_learning_rate_is_a_clear_error():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    for bad in (np.inf, np.nan):
        for est in (MLPClassifier(learning_rate=bad), PiecewiseLinearClassifier(learning_rate=bad)):
            with pytest.raises(ValueError, match="learning_rate must be a finite number"):
                est.fit(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="diverged at epoch 1: learning_rate=1e\\+300"):
        MLPClassifier(learning_rate=1e300).fit(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="learning_rate=1e\\+308 makes the weights overflow"):
        PiecewiseLinearClassifier(learning_rate=1e308, init="zeros").fit(X * 1e100, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="tol must be a finite number"):
        MLPClassifier(tol=np.inf).fit(X, [0, 0, 1, 1])


def test_mlp_is_deterministic_and_multiclass_uses_one_hot():
    X, y = three_gaussians(3)
    a = MLPClassifier(hidden_layer_sizes=(5,), max_epochs=300, random_state=4).fit(X, y)
    b = MLPClassifier(hidden_layer_sizes=(5,), max_epochs=300, random_state=4).fit(X, y)
    assert np.array_equal(a.coefs_, b.coefs_) and a.layer_sizes_ == [3, 5, 3]
    np.testing.assert_allclose(a.predict_proba(X).sum(1), 1.0)
    assert a.score(X, y) > 0.9
    assert set(a.predict(X)) <= {"a", "b", "c"}


def test_estimators_work_with_clone_and_cross_validation():
    X, y = xor_blobs(20, 0)
    for est in (PiecewiseLinearClassifier(2), GaussianQuadraticClassifier(), MLPClassifier((4,), max_epochs=500)):
        c = clone(est)
        assert c.get_params() == est.get_params()
        assert cross_val_score(c, X, y, cv=3).mean() > 0.6


# --------------------------------------------------------------------------- piecewise linear
def reference_error_correction(X, y, counts, passes, rho=1.0):
    """The seed's rule transcribed with plain Python loops; zero start, samples in the given order."""
    classes = sorted(set(y.tolist()))
    A = {(c, l): [0.0] * (X.shape[1] + 1) for ci, c in enumerate(classes) for l in range(counts[ci])}
    keys = list(A)
    dot = lambda a, v: sum(p * q for p, q in zip(a, v))
    for _ in range(passes):
        for x, c in zip(X.tolist(), y.tolist()):
            v = x + [1.0]
            own = [k for k in keys if k[0] == c]
            other = [k for k in keys if k[0] != c]
            m = max(own, key=lambda k: (dot(A[k], v), -keys.index(k)))
            r = max(other, key=lambda k: (dot(A[k], v), -keys.index(k)))
            if dot(A[m], v) <= dot(A[r], v):
                A[m] = [p + rho * q for p, q in zip(A[m], v)]
                A[r] = [p - rho * q for p, q in zip(A[r], v)]
    return np.array([A[k] for k in keys])


@pytest.mark.parametrize("counts, passes", [((1, 1), 3), ((2, 2), 2), ((2, 3), 4)])
def test_error_correction_equals_reference(counts, passes):
    X, y = xor_blobs(6, 3)
    X = np.round(3 * X)
    ours = PiecewiseLinearClassifier(list(counts), init="zeros", shuffle=False, max_passes=passes,
                                     center=False).fit(X, y)
    ref = reference_error_correction(X, y, counts, ours.n_passes_)
    np.testing.assert_array_equal(ours.coef_, ref)


def test_error_correction_settles_on_seeded_separable_subclasses():
    """Documented: XOR blobs (25 per blob, seed 1), two subclasses per class, random start:
    settles within 50 passes for random_state 0..9 (4 passes for random_state 0)."""
    X, y = xor_blobs(25, 1)
    first = PiecewiseLinearClassifier(2, init="random", random_state=0, center=False).fit(X, y)
    assert first.converged_ and first.n_passes_ == 4 and first.n_errors_[-1] == 0
    for s in range(10):
        c = PiecewiseLinearClassifier(2, init="random", random_state=s, max_passes=50, center=False).fit(X, y)
        assert c.converged_ and c.score(X, y) == 1.0


def test_cycle_detection_is_real():
    X, y = xor_blobs(25, 1)
    X = np.round(4 * X)
    c = PiecewiseLinearClassifier(1, init="zeros", shuffle=False, max_passes=5000, center=False).fit(X, y)
    assert not c.converged_ and c.cycle_length_ is not None
    early = PiecewiseLinearClassifier(1, init="zeros", shuffle=False, max_passes=c.n_passes_ - c.cycle_length_, center=False).fit(X, y)
    assert np.array_equal(early.coef_, c.coef_)
    later = reference_error_correction(X, y, (1, 1), c.n_passes_ + c.cycle_length_)
    np.testing.assert_array_equal(later, c.coef_)       # one more cycle: the same state again


def test_minimum_distance_equals_brute_force():
    X, y = xor_blobs(20, 2)
    c = PiecewiseLinearClassifier(2, init="means", max_passes=0, random_state=3, center=False).fit(X, y)
    M = c.coef_[:, :-1]
    G = np.random.default_rng(0).uniform(-1, 3, (500, 2))
    d = np.linalg.norm(G[:, None] - M[None], axis=2)
    g = np.column_stack([d[:, c.subclass_class_ == k].min(1) for k in range(2)])
    assert np.array_equal(c.predict(G), np.argmin(g, 1))


def test_converged_without_passes_uses_the_strict_rule():
    """max_passes=0: converged_ says whether a pass would correct nothing; a tie is an error there,
    although predict sends the tied sample to the first class (here its own)."""
    X, y = np.array([[0.0], [4.0], [5.0], [7.0]]), np.array([0, 0, 1, 1])   # means 2, 6: x = 4 ties
    start = PiecewiseLinearClassifier(1, init="means", max_passes=0, center=False).fit(X, y)
    assert start.score(X, y) == 1.0 and not start.converged_
    assert PiecewiseLinearClassifier(1, init="means", max_passes=1, shuffle=False, center=False).fit(X, y).n_errors_[0] >= 1
    X2 = np.array([[0.0], [1.0], [3.0], [5.0]])
    assert PiecewiseLinearClassifier(1, init="means", max_passes=0, center=False).fit(X2, [0, 0, 1, 1]).converged_


def test_subclass_counts_must_match_classes():
    X, y = xor_blobs(5, 0)
    with pytest.raises(ValueError, match="n_subclasses has 3 entries but y has 2 classes"):
        PiecewiseLinearClassifier([1, 2, 3]).fit(X, y)
    c = PiecewiseLinearClassifier([1, 3], random_state=0).fit(X, y)
    assert np.bincount(c.subclass_class_).tolist() == [1, 3]


# --------------------------------------------------------------------------- monomial counts
@pytest.mark.parametrize("n", range(1, 7))
@pytest.mark.parametrize("p", range(1, 5))
def test_monomial_counts_closed_forms(n, p):
    count = sum(1 for t in range(p + 1) for _ in itertools.combinations_with_replacement(range(n), t))
    assert count == math.comb(n + p, p) == polynomial_feature_dimension(n, p)
    assert math.comb(n + 2, 2) == n * (n + 3) // 2 + 1


# --------------------------------------------------------------------------- failed fits
@pytest.mark.parametrize("make", [lambda: PiecewiseLinearClassifier(2), lambda: GaussianQuadraticClassifier(),
                                  lambda: MLPClassifier((3,), max_epochs=50)])
def test_a_failed_fit_or_refit_leaves_the_estimator_as_it_was(make):
    X, y = xor_blobs(10, 4)
    fresh = make()
    with pytest.raises(ValueError, match="one class"):
        fresh.fit(X, np.zeros(len(y)))                    # validate_data had set n_features_in_
    assert vars(fresh) == vars(make())
    est = make().fit(X, y)
    before = dict(vars(est))
    Xn = np.c_[X, X]
    Xn[0, 0] = np.nan
    for bad_X, bad_y in ((Xn, y), (np.c_[X, X, X], np.zeros(len(y))), (X * 1e200, y)):
        with pytest.raises(ValueError):
            est.fit(bad_X, bad_y)
        assert vars(est).keys() == before.keys()
        assert all(vars(est)[k] is before[k] for k in before)
    assert est.n_features_in_ == 2 and est.predict(X).shape == y.shape


def test_centered_rule_is_the_raw_rule_on_centred_data():
    """``center=True`` is the textbook rule run on ``X - mean``: the same corrections,
    weights and predictions (an oracle for the centring)."""
    r = np.random.default_rng(11)
    X = np.r_[r.normal(0, 1, (30, 2)), r.normal(2.5, 1, (30, 2))] + [3.0, -7.0]
    y = np.repeat([0, 1], 30)
    kw = dict(n_subclasses=2, init="means", random_state=0, max_passes=40)
    c = PiecewiseLinearClassifier(**kw).fit(X, y)
    raw = PiecewiseLinearClassifier(**kw, center=False).fit(X - X.mean(0), y)
    np.testing.assert_allclose(c.center_, X.mean(0))
    assert c.n_errors_ == raw.n_errors_
    np.testing.assert_allclose(c.coef_, raw.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(c.predict(X), raw.predict(X - X.mean(0)))
    assert np.array_equal(PiecewiseLinearClassifier(**kw, center=False).fit(X, y).center_, [0, 0])
    with pytest.raises(TypeError, match="center must be True or False"):
        PiecewiseLinearClassifier(center="yes").fit(X, y)
