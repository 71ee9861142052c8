"""Metamorphic relations of ``ktheory.fisher.KernelFisherDiscriminant``: units, order, labels,
the LDA limit and the priors.

Each test states its relation. Directions are compared by ``|cos|`` to ``1e-6`` (a direction
is defined up to sign and length), predictions exactly wherever the decision value is clear
of rounding (``|f| > 1e-9`` times the spread of the decision values).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from ktheory.fisher import KernelFisherDiscriminant


def _cos(u, v):
    return abs(float(u @ v)) / (np.linalg.norm(u) * np.linalg.norm(v))


def _three_features(n=120, seed=0):
    """Two overlapping Gaussian classes in R^3 with unequal feature scales, and a test set."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n + 400) < 0.5).astype(int)
    X = rng.standard_normal((n + 400, 3)) @ np.diag([1.0, 2.0, 0.5]) + np.outer(y, [1.0, 0.5, -0.5])
    return X[:n], y[:n], X[n:], y[n:]


def _unbalanced(n0, n1, seed):
    """Two Gaussian classes in R^2, n0 : n1 points, means 1.8 apart, identity covariance."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    X = rng.standard_normal((n0 + n1, 2)) + np.outer(y, [1.5, 1.0])
    perm = rng.permutation(n0 + n1)
    return X[perm], y[perm]


def _same_predictions(f_a, p_a, f_b, p_b):
    """Predictions equal wherever both decision values are clear of rounding."""
    f_a, f_b = np.asarray(f_a, float), np.asarray(f_b, float)
    if f_a.ndim == 2:  # several classes: the margin between the two best scores
        f_a = np.diff(np.sort(f_a, axis=1)[:, -2:], axis=1)[:, 0]
        f_b = np.diff(np.sort(f_b, axis=1)[:, -2:], axis=1)[:, 0]
    clear = (np.abs(f_a) > 1e-9 * np.ptp(f_a)) & (np.abs(f_b) > 1e-9 * np.ptp(f_b))
    assert clear.mean() > 0.99
    np.testing.assert_array_equal(np.asarray(p_a)[clear], np.asarray(p_b)[clear])


@pytest.mark.parametrize("mu", [1e-3, 1e-8, 0.0])
@pytest.mark.parametrize("s", [1e-3, 1.0, 1e3])
def test_linear_kernel_is_invariant_to_the_units_of_x(s, mu):
    """Linear kernel, X -> s X: K -> s^2 K, N -> s^4 N and the relative ridge
    mu trace(N) / n -> s^4 times itself, so alpha -> alpha / s^2 and the direction
    w = X' alpha, the projections, eigenvalues and predictions are unchanged (as LDA's).
    Before the fix (mu absolute) X / 1000 gave |cos| 0.38 with the unscaled direction and
    X * 1000 raised "N + mu I is numerically singular"."""
    X, y, Xt, _ = _three_features()
    ref = KernelFisherDiscriminant(kernel="linear", mu=mu).fit(X, y)
    est = KernelFisherDiscriminant(kernel="linear", mu=mu).fit(s * X, y)
    w_ref, w = X.T @ ref.alphas_[:, 0], (s * X).T @ est.alphas_[:, 0]
    assert _cos(w, w_ref) > 1 - 1e-6
    np.testing.assert_allclose(est.ridge_, s**4 * ref.ridge_, rtol=1e-9)
    np.testing.assert_allclose(est.eigenvalues_, ref.eigenvalues_, rtol=1e-6)
    np.testing.assert_allclose(est.transform(s * Xt), ref.transform(Xt), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(est.threshold_, ref.threshold_, rtol=1e-6, atol=1e-9)
    _same_predictions(est.decision_function(s * Xt), est.predict(s * Xt),
                      ref.decision_function(Xt), ref.predict(Xt))


@pytest.mark.parametrize("s", [1e-3, 1.0, 1e3])
def test_linear_kernel_direction_agrees_with_lda_at_every_scale(s):
    """X -> s X leaves LDA's direction unchanged, and so KFD's (linear kernel, small relative
    mu): |cos| with LDA's coef_ is the same at every scale and close to 1."""
    X, y, _, _ = _three_features()
    coef = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_[0]
    est = KernelFisherDiscriminant(kernel="linear", mu=1e-10).fit(s * X, y)
    assert _cos((s * X).T @ est.alphas_[:, 0], coef) > 1 - 1e-6


@pytest.mark.parametrize("s", [1e-3, 1.0, 1e3])
def test_rbf_kernel_with_gamma_over_s_squared_is_invariant(s):
    """RBF kernel, X -> s X and gamma -> gamma / s^2: the Gram matrix is unchanged, hence
    alpha (|cos| to 1e-6), the projections and the predictions; three classes, so the
    multi-class prior rule is covered too."""
    rng = np.random.default_rng(3)
    y = np.arange(150) % 3
    X = rng.standard_normal((150, 2)) + 2.0 * np.eye(3, 2)[y]
    Xt = rng.standard_normal((300, 2)) * 2.0
    ref = KernelFisherDiscriminant(kernel="rbf", gamma=0.5).fit(X, y)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5 / s**2).fit(s * X, y)
    for j in range(2):
        assert _cos(est.alphas_[:, j], ref.alphas_[:, j]) > 1 - 1e-6
    np.testing.assert_allclose(est.transform(s * Xt), ref.transform(Xt), rtol=1e-6, atol=1e-9)
    _same_predictions(est.decision_function(s * Xt), est.predict(s * Xt),
                      ref.decision_function(Xt), ref.predict(Xt))


@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_default_gamma_scale_follows_the_units_of_x(s):
    """gamma="scale" (the default, scikit-learn's SVC) is 1 / (n_features X.var()): X -> s X
    divides it by s^2, so the default RBF fit of s X equals that of X (|cos| to 1e-6, same
    predictions). Before the fix the default gamma was 1 / n_features whatever the units."""
    X, y, Xt, _ = _three_features()
    ref = KernelFisherDiscriminant().fit(X, y)
    est = KernelFisherDiscriminant().fit(s * X, y)
    assert ref._gamma_ == pytest.approx(1 / (3 * X.var()), rel=1e-12)
    assert _cos(est.alphas_[:, 0], ref.alphas_[:, 0]) > 1 - 1e-6
    _same_predictions(est.decision_function(s * Xt), est.predict(s * Xt),
                      ref.decision_function(Xt), ref.predict(Xt))


@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_precomputed_gram_matrix_scaled(s):
    """kernel="precomputed", K -> s K (train and test blocks): the relative ridge follows,
    so alpha -> alpha / s (|cos| to 1e-6) and the projections and predictions are unchanged."""
    X, y, Xt, _ = _three_features()
    K, Kt = np.tanh(X @ X.T / 3) + 1.0, np.tanh(Xt @ X.T / 3) + 1.0
    ref = KernelFisherDiscriminant(kernel="precomputed").fit(K, y)
    est = KernelFisherDiscriminant(kernel="precomputed").fit(s * K, y)
    assert _cos(est.alphas_[:, 0], ref.alphas_[:, 0]) > 1 - 1e-6
    np.testing.assert_allclose(est.transform(s * Kt), ref.transform(Kt), rtol=1e-6, atol=1e-9)
    _same_predictions(est.decision_function(s * Kt), est.predict(s * Kt),
                      ref.decision_function(Kt), ref.predict(Kt))


@pytest.mark.parametrize(
    ("kernel", "mu"), [("rbf", 1e-3), ("linear", 1e-3), ("linear", 0.0), ("poly", 0.0)]
)
@pytest.mark.parametrize("threshold", ["prior", "midpoint"])
def test_permuting_the_samples(kernel, mu, threshold):
    """Permuting the training samples by P maps K -> P K P', N -> P N P', alpha -> P alpha:
    the same direction (|cos| of P alpha with alpha to 1e-6; signed, by the sign convention)
    and the same projections and predictions, for the regularised and the pseudo-inverse
    (pivoted QR, whose pivots follow the order) solutions and both rules. (mu = 0 is taken
    with kernels of low rank, where N has a clear numerical range; with the RBF kernel the
    pseudo-inverse depends on singular values of K C near the rounding level, whatever the
    algorithm.)"""
    X, y = _unbalanced(60, 20, seed=4)
    Xt = np.random.default_rng(5).standard_normal((200, 2)) * 2
    kw = dict(kernel=kernel, gamma=0.5, degree=2, coef0=1.0, mu=mu, threshold=threshold)
    ref = KernelFisherDiscriminant(**kw).fit(X, y)
    perm = np.random.default_rng(6).permutation(len(y))
    est = KernelFisherDiscriminant(**kw).fit(X[perm], y[perm])
    assert float(est.alphas_[:, 0] @ ref.alphas_[perm, 0]) > 0
    assert _cos(est.alphas_[:, 0], ref.alphas_[perm, 0]) > 1 - 1e-6
    np.testing.assert_allclose(est.transform(Xt), ref.transform(Xt), rtol=1e-6, atol=1e-8)
    _same_predictions(est.decision_function(Xt), est.predict(Xt),
                      ref.decision_function(Xt), ref.predict(Xt))


@pytest.mark.parametrize("threshold", ["prior", "midpoint"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_renaming_the_labels(threshold, n_classes):
    """A bijection of the labels (here one that reverses their sorted order, so that the
    classes' indices, the sign convention and the priors' order all change) maps the
    predictions by the same bijection; with unequal class sizes the prior rule is exercised."""
    X, y = _unbalanced(60, 20, seed=7)
    if n_classes == 3:
        y = np.where((y == 0) & (X[:, 1] > 0.8), 2, y)
    Xt = np.random.default_rng(8).standard_normal((300, 2)) * 2
    names = np.array(["zeta", "eta", "alpha"])[:n_classes]  # sorted order reversed
    ref = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, threshold=threshold).fit(X, y)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, threshold=threshold).fit(X, names[y])
    assert list(est.classes_) == sorted(names)
    np.testing.assert_allclose(np.sort(est.priors_), np.sort(ref.priors_))
    f_ref, f_est = ref.decision_function(Xt), est.decision_function(Xt)
    if n_classes == 2:
        f_est = -f_est  # classes_[1] of the renamed fit is class 0
    else:
        f_est = f_est[:, np.searchsorted(est.classes_, names)]
    _same_predictions(f_est, est.predict(Xt), f_ref, names[ref.predict(Xt)])


def test_mu_zero_on_raw_breast_cancer_is_lda():
    """Linear kernel, mu = 0 on the raw (unscaled) breast-cancer data: the pseudo-inverse
    solution equals LDA's direction, |cos| >= 0.9999. Through the factor K C (condition
    about 8e11 on its range) this is resolvable in float64; forming N = (KC)(KC)' squared
    the condition to about 6e23 and gave |cos| = 0.0014 before the fix."""
    X, y = load_breast_cancer(return_X_y=True)
    coef = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_[0]
    est = KernelFisherDiscriminant(kernel="linear", mu=0.0).fit(X, y)
    assert _cos(X.T @ est.alphas_[:, 0], coef) >= 0.9999


def test_prior_threshold_on_a_ten_to_one_problem():
    """Classes 10 : 1 (the same on a large test set from the same distribution). The default
    prior rule is LDA's rule on the projection, so (i) its predictions equal those of
    LinearDiscriminantAnalysis(solver="eigen") fitted on the projected training data, and
    (ii) it is at least as accurate as the midpoint rule on the same direction. Before the fix
    the only rule was the midpoint: 0.826 against LDA's 0.930 on this test set."""
    X, y = _unbalanced(1000, 100, seed=1)
    Xt, yt = _unbalanced(10_000, 1_000, seed=2)
    prior = KernelFisherDiscriminant(kernel="linear").fit(X, y)
    mid = KernelFisherDiscriminant(kernel="linear", threshold="midpoint").fit(X, y)
    np.testing.assert_array_equal(prior.alphas_, mid.alphas_)  # the rule does not move the direction
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(prior.transform(X), y)
    f_lda = lda.decision_function(prior.transform(Xt))
    _same_predictions(prior.decision_function(Xt), prior.predict(Xt),
                      f_lda, lda.predict(prior.transform(Xt)))
    acc_prior, acc_mid = prior.score(Xt, yt), mid.score(Xt, yt)
    assert acc_prior >= acc_mid and acc_prior > 0.92 and acc_mid < 0.85
    # the shift is s^2 log(pi_0 / pi_1) / (m_1 - m_0) > 0: towards the rare class
    assert prior.threshold_ > mid.threshold_
