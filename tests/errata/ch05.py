"""Errata of chapter 5 (Mercer's theorem, seed 001)."""

from __future__ import annotations

import numpy as np
from scipy.special import polygamma

from ktheory.mercer import min_kernel_eigenfunctions, min_kernel_eigenvalues

# Gauss-Legendre on [0, 1]: exact to rounding for the smooth integrands below
_t, _w = np.polynomial.legendre.leggauss(60)
_Y, _W = (_t + 1) / 2, _w / 2


def l2_normalisation():
    """'||psi_r||_{l_2} = 1' for the eigenfunctions of the integral operator of min(x, y).

    On the midpoint sample x_i = (i - 1/2)/n of [0, 1] the operator is K/n. Its eigenvectors
    normalised in l^2 (the seed's form) and normalised in L^2(mu_n), ||v||^2 / n = 1 (the
    correction), are compared with the analytic eigenfunctions sqrt(2) sin((r - 1/2) pi x);
    the analytic ones are orthonormal in L^2([0, 1]) (quadrature).
    """
    n, r = 200, 4
    x = (np.arange(n) + 0.5) / n
    lam, V = np.linalg.eigh(np.minimum.outer(x, x) / n)
    V = V[:, ::-1][:, :r]
    psi = min_kernel_eigenfunctions(x, r)
    V = V * np.sign(np.sum(V * psi, axis=0))  # eigenvector signs are not unique
    np.testing.assert_allclose(lam[::-1][:r], min_kernel_eigenvalues(r), rtol=1e-3)
    seed = np.abs(V - psi).max() < 1e-12
    discrete = np.abs(np.sqrt(n) * V - psi).max() < 1e-12
    P = min_kernel_eigenfunctions(_Y, 6)
    ortho = np.abs((P * _W[:, None]).T @ P - np.eye(6)).max() < 1e-12
    return bool(seed), bool(discrete and ortho)


def measure_support():
    """Mercer on X = [0, 1] u {2} with the Lebesgue measure: the expansion at (2, 2).

    The seed's form: the expansion sum_r lambda_r psi_r(2)^2 equals k(2, 2) = 2 when the
    measure (dx) puts no mass at 2. The correction: it sums to k(1, 1) = 1 there, and with
    a measure whose support is all of X (the midpoint rule on [0, 1] plus a point mass at
    2) the expansion reproduces k, at (2, 2) too.
    """
    r = 6
    lam, P = min_kernel_eigenvalues(r), min_kernel_eigenfunctions(_Y, r)
    # the continuous extension psi_r(2) = lambda_r^{-1} int_0^1 min(2, y) psi_r(y) dy
    psi_at_2 = (np.minimum(2.0, _Y) * _W) @ P / lam
    psi_at_1 = min_kernel_eigenfunctions(np.array([1.0]), r)[0]
    assert np.allclose(psi_at_2, psi_at_1, atol=1e-12)
    # so the series at (2, 2) is sum_j lambda_j psi_j(1)^2 = (2 / pi^2) trigamma(1/2)
    series_22 = 2 / np.pi**2 * polygamma(1, 0.5)
    terms = 20_000  # partial sums approach it
    partial = np.sum(min_kernel_eigenvalues(terms) * min_kernel_eigenfunctions(
        np.array([1.0]), terms)[0] ** 2)
    assert abs(partial - series_22) < 2 / (np.pi**2 * terms)
    seed = abs(series_22 - 2.0) < 1e-9
    # full support: nodes of [0, 1] with weight 1/n and the point 2 with mass 0.05
    n = 200
    nodes = np.r_[(np.arange(n) + 0.5) / n, 2.0]
    wts = np.r_[np.full(n, 1 / n), 0.05]
    K = np.minimum.outer(nodes, nodes)
    mu, V = np.linalg.eigh(np.sqrt(wts)[:, None] * K * np.sqrt(wts)[None, :])
    psi = V / np.sqrt(wts)[:, None]  # orthonormal in L^2(mu)
    expansion = (psi * mu) @ psi.T
    fixed = (
        abs(series_22 - 1.0) < 1e-12
        and abs(expansion[-1, -1] - 2.0) < 1e-9
        and np.allclose(expansion, K, atol=1e-9)
    )
    return bool(seed), bool(fixed)


ERRATA = {
    "err-ch05-l2-normalisation": l2_normalisation,
    "err-ch05-measure-support": measure_support,
}
