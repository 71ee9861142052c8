"""Errata of chapter 1 (nonlinear classifiers before kernels, seed 004 first half)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import multivariate_normal

from ktheory.classic import (
    GaussianQuadraticClassifier,
    PiecewiseLinearClassifier,
    mlp_loss_gradient,
)


def _g(X, m, S, log_prior):
    """2 log(P_i p_i(x)) up to the common constant d log(2 pi): the discriminant g_i."""
    Z = X - m
    maha = np.einsum("ni,ij,nj->n", Z, np.linalg.inv(S), Z)
    return 2 * log_prior - np.linalg.slogdet(S)[1] - maha


def qda_direction():
    """'g_1 - g_2 <> 0 => omega_1 / omega_2': the printed direction vs Bayes' rule."""
    g = np.random.default_rng(3)
    m1, S1 = np.array([0.0, 0.0]), np.array([[1.0, 0.6], [0.6, 1.0]])
    m2, S2 = np.array([2.5, 0.0]), np.array([[0.5, 0.0], [0.0, 2.0]])
    X = np.vstack([g.multivariate_normal(m1, S1, 300), g.multivariate_normal(m2, S2, 300)])
    # Bayes' rule from scipy's densities (equal priors): True means omega_1
    bayes = multivariate_normal(m1, S1).pdf(X) > multivariate_normal(m2, S2).pdf(X)
    diff = _g(X, m1, S1, np.log(0.5)) - _g(X, m2, S2, np.log(0.5))
    assert np.all(diff != 0)
    return bool(np.array_equal(diff < 0, bayes)), bool(np.array_equal(diff > 0, bayes))


def background_threshold():
    """One Gaussian class in a uniform background: g <> 0 => omega_1 / omega_2."""
    g = np.random.default_rng(3)
    P1, P2, u, d = 0.3, 0.7, 1 / 100, 2
    m1, S1 = np.array([0.5, -0.5]), np.array([[0.8, 0.3], [0.3, 0.5]])
    X = np.vstack([g.multivariate_normal(m1, S1, 300), g.uniform(-5, 5, (700, 2))])
    K1 = (2 * np.log(P1) - np.log(np.linalg.det(S1)) - d * np.log(2 * np.pi)
          - 2 * np.log(P2 * u))
    Z = X - m1
    gx = K1 - np.einsum("ni,ij,nj->n", Z, np.linalg.inv(S1), Z)
    bayes = P1 * multivariate_normal(m1, S1).pdf(X) > P2 * u
    assert np.all(gx != 0)
    return bool(np.array_equal(gx < 0, bayes)), bool(np.array_equal(gx > 0, bayes))


def k_squared_negative():
    """K_i^2 = 2 ln P_i - ln det Sigma_i read as a square (never negative)."""
    g = np.random.default_rng(0)
    X = np.vstack([g.normal(0, 2, (400, 2)), g.normal(5, 0.3, (400, 2))])
    fit = GaussianQuadraticClassifier(priors=[0.5, 0.5]).fit(X, np.repeat([0, 1], 400))
    K2 = 2 * np.log(0.5) - np.log(np.linalg.det(4 * np.eye(2)))  # covariance 4I
    seed = K2 >= 0 and fit.thresholds_.min() >= 0
    # corrected: negative exactly when det Sigma > P^2, and {g > 0} is then empty
    dets, priors = np.array([0.01, 0.2, 0.5, 4.0]), np.array([0.1, 0.5, 0.9])
    K2s = 2 * np.log(priors)[:, None] - np.log(dets)[None, :]
    sign_rule = np.array_equal(K2s < 0, dets[None, :] > priors[:, None] ** 2)
    Xt = g.normal(0, 3, (2000, 2))
    empty = _g(Xt, np.zeros(2), 4 * np.eye(2), np.log(0.5)).max() < 0
    fitted_neg = fit.thresholds_[0] < 0  # the broad fitted class (covariance near 4I)
    return bool(seed), bool(K2 < 0 and sign_rule and empty and fitted_neg)


def glin_direction():
    """g(x) = (x - a)(x - b) <> 0 => omega_1 / omega_2 with omega_1 = {x < b} u {x > a}."""
    a, b = 2.0, -1.0
    x = np.linspace(-4, 5, 901)
    x = x[(x != a) & (x != b)]
    in_omega1 = (x < b) | (x > a)
    gx = (x - a) * (x - b)
    return bool(np.array_equal(gx < 0, in_omega1)), bool(np.array_equal(gx > 0, in_omega1))


def _n_monomials(n: int, p: int) -> int:
    """Monomials of degree at most p in n variables, the constant included."""
    return sum(
        1
        for total in range(p + 1)
        for _ in itertools.combinations_with_replacement(range(n), total)
    )


def quadratic_dimension():
    """N = n(n+3)/2 coordinates for the quadratic feature space."""
    ns = range(1, 7)
    seed = all(n * (n + 3) // 2 == _n_monomials(n, 2) for n in ns)
    fixed = all(n * (n + 3) // 2 + 1 == _n_monomials(n, 2) for n in ns) and all(
        math.comb(n + p, p) == _n_monomials(n, p) for n in ns for p in range(1, 6)
    )
    return seed, fixed


def momentum_sign():
    """Delta w(t) = alpha Delta w(t-1) + eta delta x: the printed sign ascends the loss."""
    X4 = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    T4 = np.array([[0.0], [0.0], [1.0], [1.0]])
    sizes = [2, 4, 1]
    w0 = np.random.default_rng(5).uniform(-1, 1, 2 * 4 + 4 + 4 + 1)

    def final_over_start(sign, eta=0.5, mu=0.9, steps=300):
        w, v = w0.copy(), np.zeros_like(w0)
        start = mlp_loss_gradient(w, X4, T4, sizes)[0]
        for _ in range(steps):
            _, grad = mlp_loss_gradient(w, X4, T4, sizes)
            v = mu * v + sign * eta * grad  # grad is the mean of delta x over samples
            w = w + v
        return mlp_loss_gradient(w, X4, T4, sizes)[0] / start

    # the claim of either form: the update descends, the loss falls
    return bool(final_over_start(+1) < 1), bool(final_over_start(-1) < 1)


def delta_meaning():
    """delta^l_j called the derivative of the error with respect to the weight."""
    g = np.random.default_rng(0)
    sizes = [2, 3, 2]
    w0 = g.normal(0, 1, 3 * 2 + 3 + 2 * 3 + 2)
    x0, t0 = g.normal(0, 1, (1, 2)), np.array([[1.0, 0.0]])
    W1, b1, W2, b2 = w0[:6].reshape(2, 3), w0[6:9], w0[9:15].reshape(3, 2), w0[15:17]
    h = 1 / (1 + np.exp(-(x0 @ W1 + b1)))
    s2 = h @ W2 + b2
    out = 1 / (1 + np.exp(-s2))
    delta = -out * (1 - out) * (t0 - out)  # the notes' output-layer delta

    def E_of_s(s):
        return 0.5 * np.sum((t0 - 1 / (1 + np.exp(-s))) ** 2)

    e = np.array([[1e-6, 0.0]])
    dE_ds = (E_of_s(s2 + e) - E_of_s(s2 - e)) / 2e-6
    dE_dw = mlp_loss_gradient(w0, x0, t0, sizes)[1][9:15].reshape(3, 2)
    seed = np.isclose(delta[0, 0], dE_dw[0, 0], rtol=1e-6)  # delta = dE/dw_11
    fixed = np.isclose(delta[0, 0], dE_ds, rtol=1e-6) and np.allclose(
        dE_dw, h.T @ delta, rtol=1e-10
    )
    return bool(seed), bool(fixed)


def error_correction_convergence():
    """'Iterate until the algorithm converges': error correction need not converge."""
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    # two subclasses per class can classify the XOR corners: the means start does
    solvable = PiecewiseLinearClassifier(2, init="means", shuffle=False, center=False).fit(X, y)
    zero = PiecewiseLinearClassifier(
        2, init="zeros", shuffle=False, max_passes=100, center=False
    ).fit(X, y)
    runs = [
        PiecewiseLinearClassifier(
            2, init="random", random_state=s, max_passes=2000, center=False
        ).fit(X, y)
        for s in range(20)
    ]
    seed = zero.converged_ and all(r.converged_ for r in runs)
    fixed = (
        solvable.converged_
        and solvable.score(X, y) == 1.0
        and not zero.converged_
        and zero.cycle_length_ == 1
        and sum(r.cycle_length_ is not None for r in runs) == 16
    )
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch01-qda-direction": qda_direction,
    "err-ch01-background-threshold": background_threshold,
    "err-ch01-k-squared-negative": k_squared_negative,
    "err-ch01-glin-direction": glin_direction,
    "err-ch01-quadratic-dimension": quadratic_dimension,
    "err-ch01-momentum-sign": momentum_sign,
    "err-ch01-delta-meaning": delta_meaning,
    "err-ch01-error-correction-convergence": error_correction_convergence,
}
