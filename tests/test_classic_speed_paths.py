"""The fast code paths of ktheory.classic (issue 28) against their plain formulas.

* GaussianQuadraticClassifier: the whitened GEMM discriminant equals the textbook
  ``K_i^2 - (x - m_i)^T S_i^{-1} (x - m_i)`` with ``S_i^{-1}`` and ``ln det S_i`` from
  ``numpy.linalg.inv`` / ``slogdet``, also far from the origin (the centring), with
  regularisation and priors; the log posteriors are a log-sum-exp; an estimator without the
  private whitening (fitted by an older ktheory, say) falls back to ``precision_``.
* MLPClassifier: the preallocated epoch loop equals the documented update
  ``v <- mu v - eta grad``, ``w <- w + v`` driven by :func:`mlp_loss_gradient`.
* The scale check gives the same verdicts as ``max |x|`` (NaN, zeros, signs).

Comparisons use tolerances, never BLAS rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

from ktheory.classic import (
    GaussianQuadraticClassifier,
    MLPClassifier,
    _check_scale,
    mlp_loss_gradient,
)


def blobs(seed, n=(80, 60, 50), d=4, offset=0.0):
    g = np.random.default_rng(seed)
    X = np.vstack([g.normal(0, 1, (k, d)) @ g.normal(0, 1, (d, d)) + 3 * i for i, k in enumerate(n)])
    return X + offset, np.repeat(np.arange(len(n)), n)


def textbook_discriminant(kt, X):
    cols = []
    for m, S, p in zip(kt.means_, kt.covariance_, kt.priors_):
        Z = X - m
        maha = np.einsum("ni,ij,nj->n", Z, np.linalg.inv(S), Z)
        cols.append(2 * np.log(p) - np.linalg.slogdet(S)[1] - maha)
    return np.column_stack(cols)


@pytest.mark.parametrize("kw", [{}, {"covariance": "unbiased"}, {"reg_param": 0.2},
                                {"priors": [0.5, 0.3, 0.2]}])
@pytest.mark.parametrize("offset", [0.0, 1e5])
def test_quadratic_fast_path_equals_the_formula(kw, offset):
    X, y = blobs(1, offset=offset)
    Xt = X[::3] + np.random.default_rng(2).normal(0, 1, (len(X[::3]), X.shape[1]))
    kt = GaussianQuadraticClassifier(**kw).fit(X, y)
    G = textbook_discriminant(kt, Xt)
    scale = np.abs(G).max()
    np.testing.assert_allclose(kt.discriminant_function(Xt), G, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(kt.precision_, np.linalg.inv(kt.covariance_), rtol=1e-9, atol=0)
    np.testing.assert_allclose(kt.thresholds_,
                               2 * np.log(kt.priors_) - np.linalg.slogdet(kt.covariance_)[1],
                               rtol=1e-10, atol=1e-10)
    H = 0.5 * G
    np.testing.assert_allclose(kt.predict_log_proba(Xt), H - logsumexp(H, axis=1, keepdims=True),
                               rtol=0, atol=1e-9 * scale)
    assert kt.discriminant_function(Xt).flags.c_contiguous
    assert kt.predict_log_proba(Xt).flags.c_contiguous


def test_quadratic_outputs_agree_with_each_other():
    X, y = blobs(3)
    kt = GaussianQuadraticClassifier().fit(X, y)
    G = kt.discriminant_function(X)
    np.testing.assert_array_equal(kt.predict(X), kt.classes_[np.argmax(G, axis=1)])
    np.testing.assert_allclose(kt.decision_function(X), 0.5 * G, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kt.predict_proba(X).sum(axis=1), 1.0, rtol=1e-12)
    two = GaussianQuadraticClassifier().fit(X[y < 2], y[y < 2])
    G2 = two.discriminant_function(X)
    np.testing.assert_allclose(two.decision_function(X), 0.5 * (G2[:, 1] - G2[:, 0]), rtol=1e-12,
                               atol=1e-9 * np.abs(G2).max())


def test_quadratic_without_whitening_uses_the_precision():
    X, y = blobs(4)
    kt = GaussianQuadraticClassifier().fit(X, y)
    expected = kt.predict_log_proba(X)
    del kt._whiten_
    np.testing.assert_allclose(kt.predict_log_proba(X), expected, rtol=0, atol=1e-9)


def reference_fit(X, codes, hidden, eta, mu, epochs, seed):
    """The documented training loop, written out with mlp_loss_gradient."""
    mean, scale = X.mean(0), X.std(0)
    Z = (X - mean) / np.where(scale > 0, scale, 1.0)
    T = codes[:, None].astype(float)
    sizes = [X.shape[1], *hidden, 1]
    rng = np.random.default_rng(seed)
    w = np.concatenate([np.concatenate([rng.uniform(-1, 1, a * b) / np.sqrt(a), np.zeros(b)])
                        for a, b in zip(sizes[:-1], sizes[1:])])
    v, curve = np.zeros_like(w), []
    for _ in range(epochs):
        loss, g = mlp_loss_gradient(w, Z, T, sizes)
        curve.append(loss)
        v = mu * v - eta * g
        w = w + v
    return w, np.array(curve)


@pytest.mark.parametrize("hidden", [(6,), (5, 3)])
def test_mlp_epoch_loop_equals_the_documented_update(hidden):
    X, y = blobs(5, n=(70, 50))
    clf = MLPClassifier(hidden, learning_rate=0.5, momentum=0.8, max_epochs=200, random_state=3).fit(X, y)
    w, curve = reference_fit(X, y, hidden, 0.5, 0.8, 200, 3)
    np.testing.assert_allclose(clf.loss_curve_, curve, rtol=1e-9)
    np.testing.assert_allclose(clf.coefs_, w, rtol=1e-8, atol=1e-10)


def test_mlp_loss_gradient_leaves_its_inputs_alone():
    g = np.random.default_rng(0)
    sizes = [3, 4, 2]
    w = g.normal(size=3 * 4 + 4 + 4 * 2 + 2)
    X, T = g.normal(size=(6, 3)), g.uniform(size=(6, 2))
    copies = w.copy(), X.copy(), T.copy()
    loss1, g1 = mlp_loss_gradient(w, X, T, sizes)
    loss2, g2 = mlp_loss_gradient(w, X, T, sizes)
    assert g1 is not g2 and loss1 == loss2
    np.testing.assert_array_equal(g1, g2)
    for a, b in zip((w, X, T), copies):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("values, ok", [([0.0, -0.0], True), ([-3.0, 2.0], True), ([-1e151, 1.0], False),
                                        ([1e-151, -1e-152], False), ([np.nan, 1.0], True),
                                        ([1.0, np.nan], True)])
def test_scale_check_verdicts(values, ok):
    X = np.array([values])
    top = float(np.abs(X).max())
    assert ok == (not (top > 1e150 or 0.0 < top < 1e-150))
    if ok:
        assert _check_scale(X) is X
    else:
        with pytest.raises(ValueError, match="magnitude"):
            _check_scale(X)
