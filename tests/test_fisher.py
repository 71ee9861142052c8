"""Tests of ktheory.fisher against independent oracles.

Oracles: an explicit feature map (the quadratic kernel's 6-dimensional map on R^2)
for the kernel forms of M and N; ``scipy.linalg.eigh(M, N + mu I)`` on the dense
matrices for the estimator's reduced eigenproblem; the closed-form two-class
direction; scikit-learn's LinearDiscriminantAnalysis for the linear-kernel limit;
a hypothesis property for optimality of the regularised Rayleigh quotient.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.preprocessing import StandardScaler

from ktheory import fisher as fisher_module
from ktheory.fisher import KernelFisherDiscriminant, fisher_matrices
from ktheory.kernels import linear_kernel, polynomial_feature_map, polynomial_kernel, rbf_kernel


def _cos(u, v):
    return abs(float(u @ v)) / (np.linalg.norm(u) * np.linalg.norm(v))


def _data(n=40, d=2, c=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % c
    X = rng.standard_normal((n, d)) + 1.5 * np.eye(c, d)[y] * 1.0
    return X, y


# ---------------------------------------------------------------------------
# the kernel forms against an explicit feature map
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_M_and_N_equal_feature_space_scatter(seed):
    rng = np.random.default_rng(seed)
    n = 11
    X = rng.standard_normal((n, 2))
    y = np.r_[np.zeros(5, int), np.ones(4, int), [2, 2]]
    Phi = polynomial_feature_map(X, degree=2, coef0=1.0)
    K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12)
    M, N = fisher_matrices(K, y)
    means = np.stack([Phi[y == c].mean(axis=0) for c in range(3)])
    mbar = Phi.mean(axis=0)
    counts = np.bincount(y)
    SB = sum(counts[c] * np.outer(means[c] - mbar, means[c] - mbar) for c in range(3))
    SW = sum((Phi[y == c] - means[c]).T @ (Phi[y == c] - means[c]) for c in range(3))
    for _ in range(5):
        alpha = rng.standard_normal(n)
        w = Phi.T @ alpha
        np.testing.assert_allclose(alpha @ M @ alpha, w @ SB @ w, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(alpha @ N @ alpha, w @ SW @ w, rtol=1e-9, atol=1e-9)


def test_seed004_N_is_wrong_and_mika_N_is_right():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((8, 2))
    y = np.r_[np.zeros(4, int), np.ones(4, int)]
    K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    _, N = fisher_matrices(K, y)
    mika = sum(K[:, y == c] @ (np.eye(4) - np.ones((4, 4)) / 4) @ K[:, y == c].T for c in (0, 1))
    seed004 = sum(K[:, y == c] @ (np.eye(4) - np.eye(4) / 4) @ K[:, y == c].T for c in (0, 1))
    np.testing.assert_allclose(N, mika, atol=1e-10)
    assert np.abs(N - seed004).max() > 1e-2 * np.abs(N).max()


def test_rank_bound_and_singleton_class():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((25, 2))
    y = np.r_[np.zeros(12, int), np.ones(12, int), [2]]
    K = rbf_kernel(X, gamma=5.0)
    _, N = fisher_matrices(K, y)
    assert np.linalg.matrix_rank(N, hermitian=True) == 25 - 3
    # the singleton contributes nothing: N equals the two big classes' terms
    _, N2 = fisher_matrices(K[:24, :24], y[:24])
    blocks = sum(K[:, y == c] @ (np.eye(12) - 1 / 12) @ K[:, y == c].T for c in (0, 1))
    np.testing.assert_allclose(N, blocks, atol=1e-10)
    np.testing.assert_allclose(N[:24, :24], N2, atol=1e-10)
    # and the estimator fits with it
    est = KernelFisherDiscriminant(kernel="rbf", gamma=5.0, mu=1e-3).fit(X, y)
    assert est.alphas_.shape == (25, 2)


def test_N_is_psd_for_an_indefinite_kernel():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((12, 12))
    K = A + A.T
    assert np.linalg.eigvalsh(K).min() < -1.0
    _, N = fisher_matrices(K, np.arange(12) % 2)
    ev = np.linalg.eigvalsh(N)
    assert ev.min() > -1e-10 * ev.max()


# ---------------------------------------------------------------------------
# the estimator against scipy.linalg.eigh on the dense problem
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["cholesky", "qr"])
@pytest.mark.parametrize("mu", [1e-4, 1e-2, 1.0])
def test_multiclass_matches_dense_generalised_eigh(mu, route, monkeypatch):
    """Both factorisations of N + ridge I (Cholesky of the formed N where it is well
    conditioned, QR of K C otherwise; forced here through the switch) solve the same problem."""
    monkeypatch.setattr(fisher_module, "_CHOLESKY_RTOL", 1.0 if route == "cholesky" else 0.0)
    X, y = _data(45, 3, 3, seed=4)
    K = rbf_kernel(X, gamma=0.7)
    M, N = fisher_matrices(K, y)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.7, mu=mu).fit(X, y)
    # mu is relative: the ridge is mu times the mean eigenvalue of N
    np.testing.assert_allclose(est.ridge_, mu * np.trace(N) / len(y), rtol=1e-10)
    Nmu = N + est.ridge_ * np.eye(len(y))
    lam, V = sla.eigh(M, Nmu)
    A = est.alphas_
    np.testing.assert_allclose(est.eigenvalues_, lam[::-1][:2], rtol=1e-8)
    np.testing.assert_allclose(A.T @ Nmu @ A, np.eye(2), atol=1e-8)  # (N + mu I)-orthonormal
    np.testing.assert_allclose(M @ A, Nmu @ A * est.eigenvalues_, atol=1e-8 * np.abs(M @ A).max())
    # the eigenvalues are distinct here, so each direction is unique up to sign
    np.testing.assert_allclose(np.abs(V[:, ::-1][:, :2].T @ Nmu @ A), np.eye(2), atol=1e-6)
    assert np.sum(lam > 1e-8 * lam[-1]) == 2  # rank M = c - 1


@pytest.mark.parametrize("mu", [1e-3, 1e-1, 10.0])
def test_two_class_closed_form(mu):
    X, y = _data(30, 2, 2, seed=5)
    K = rbf_kernel(X, gamma=0.5)
    _, N = fisher_matrices(K, y)
    d = K @ (y / y.sum()) - K @ ((1 - y) / (1 - y).sum())
    ridge = mu * np.trace(N) / 30  # mu is relative to the mean eigenvalue of N
    alpha = np.linalg.solve(N + ridge * np.eye(30), d)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=mu).fit(X, y)
    np.testing.assert_allclose(est.ridge_, ridge, rtol=1e-10)
    assert _cos(est.alphas_[:, 0], alpha) > 1 - 1e-10
    n0, n1 = np.bincount(y)
    np.testing.assert_allclose(est.eigenvalues_[0], n0 * n1 / 30 * d @ alpha, rtol=1e-8)
    # sign convention: class 1 projects above class 0
    assert est.means_[1, 0] > est.means_[0, 0]


def test_mu_zero_is_the_pseudo_inverse_solution():
    X, y = _data(30, 2, 2, seed=6)
    K = rbf_kernel(X, gamma=0.5)
    _, N = fisher_matrices(K, y)
    d = K @ (y / y.sum()) - K @ ((1 - y) / (1 - y).sum())
    ev, Q = np.linalg.eigh(N)
    keep = ev > ev.max() * 30 * np.finfo(float).eps
    pinv_d = Q[:, keep] @ ((Q[:, keep].T @ d) / ev[keep])
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=0.0).fit(X, y)
    assert _cos(est.alphas_[:, 0], pinv_d) > 1 - 1e-8


def test_precomputed_and_callable_match_named_kernel():
    X, y = _data(36, 2, 3, seed=7)
    Xt = np.random.default_rng(8).standard_normal((9, 2))
    named = KernelFisherDiscriminant(kernel="rbf", gamma=0.4, mu=1e-2).fit(X, y)
    pre = KernelFisherDiscriminant(kernel="precomputed", mu=1e-2).fit(rbf_kernel(X, gamma=0.4), y)
    call = KernelFisherDiscriminant(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.4), mu=1e-2).fit(X, y)
    Z = named.transform(Xt)
    np.testing.assert_allclose(pre.transform(rbf_kernel(Xt, X, gamma=0.4)), Z, atol=1e-8)
    np.testing.assert_allclose(call.transform(Xt), Z, atol=1e-8)
    np.testing.assert_array_equal(pre.predict(rbf_kernel(Xt, X, gamma=0.4)), named.predict(Xt))


def test_predict_is_nearest_projected_mean_and_threshold():
    """threshold="midpoint": the nearest projected mean, for two classes the midpoint."""
    X, y = _data(40, 2, 3, seed=9)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2, threshold="midpoint").fit(X, y)
    Z = est.transform(X)
    dist = ((Z[:, None, :] - est.means_[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmin(dist, axis=1)])
    np.testing.assert_allclose(est.means_, np.stack([Z[y == c].mean(0) for c in range(3)]), atol=1e-8)
    y2 = (y > 0).astype(int)
    est2 = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2, threshold="midpoint").fit(X, y2)
    f = est2.decision_function(X)
    clear = np.abs(f) > 1e-8
    np.testing.assert_array_equal(est2.predict(X)[clear], (f[clear] > 0).astype(int))
    np.testing.assert_allclose(est2.threshold_, est2.means_.mean(), atol=1e-12)


def test_prior_rule_is_lda_on_the_projection():
    """threshold="prior" (the default): the covariance is the pooled within-class covariance
    of the projected training data (divided by n), the priors the class frequencies, and the
    predictions those of LinearDiscriminantAnalysis(solver="eigen") fitted on the projection;
    for two classes threshold_ = midpoint + s^2 log(pi_0 / pi_1) / (m_1 - m_0)."""
    X, y = _data(40, 2, 3, seed=9)
    y = np.where(np.arange(40) < 24, 0, y)  # unequal classes: 28, 6, 6
    Xt = np.random.default_rng(19).standard_normal((300, 2)) * 1.5
    for labels in (y, (y > 0).astype(int)):
        est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, labels)
        Z = est.transform(X)
        centred = Z - est.means_[np.searchsorted(est.classes_, labels)]
        np.testing.assert_allclose(est.covariance_, centred.T @ centred / 40, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(est.priors_, np.bincount(labels) / 40)
        lda = LinearDiscriminantAnalysis(solver="eigen").fit(Z, labels)
        np.testing.assert_array_equal(est.predict(Xt), lda.predict(est.transform(Xt)))
        if len(est.classes_) == 2:
            (m0, m1), s2 = est.means_[:, 0], est.covariance_[0, 0]
            shift = s2 * np.log(est.priors_[0] / est.priors_[1]) / (m1 - m0)
            np.testing.assert_allclose(est.threshold_, (m0 + m1) / 2 + shift, rtol=1e-12)
            assert shift > 0  # away from the more frequent class 0


def test_invariance_to_permutation_and_relabelling():
    X, y = _data(42, 2, 3, seed=10)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, y)
    perm = np.random.default_rng(11).permutation(42)
    estp = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X[perm], y[perm])
    # signed values: the sign convention (centred projected class means) is tested too
    np.testing.assert_allclose(estp.transform(X), est.transform(X), atol=1e-8)
    np.testing.assert_allclose(estp.eigenvalues_, est.eigenvalues_, rtol=1e-10)
    names = np.array(["c", "a", "b"])  # a renaming that changes the sorted order
    estr = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, names[y])
    np.testing.assert_array_equal(estr.predict(X), names[est.predict(X)])
    np.testing.assert_allclose(estr.eigenvalues_, est.eigenvalues_, rtol=1e-10)


# ---------------------------------------------------------------------------
# the linear-kernel limit against scikit-learn's LDA
# ---------------------------------------------------------------------------


def test_linear_limit_breast_cancer_standardised():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    coef = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_[0]
    # mu is relative to the mean eigenvalue of N (about 6.6e4 here): the absolute ridges
    # 1 ... 1e-8 of the original test are the relative 1.5e-5 ... 1.5e-13
    cosines = [
        _cos(X.T @ KernelFisherDiscriminant(kernel="linear", mu=mu).fit(X, y).alphas_[:, 0], coef)
        for mu in (1e-5, 1e-7, 1e-9, 1e-11, 1e-13)
    ]
    assert all(b >= a - 1e-12 for a, b in zip(cosines, cosines[1:]))
    assert 1 - cosines[-1] < 1e-10


def test_linear_limit_iris_two_directions():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    S = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).scalings_[:, :2]
    W = X.T @ KernelFisherDiscriminant(kernel="linear", mu=1e-8).fit(X, y).alphas_
    assert min(_cos(W[:, j], S[:, j]) for j in range(2)) > 1 - 1e-9


def test_raw_breast_cancer_small_mu_reaches_lda():
    """Raw breast-cancer data: N has condition about 6e23 on its range, K C about 8e11. The
    factorisations of K C (never of N) keep the small-eigenvalue directions that carry the LDA
    solution, so a small relative mu approaches LDA (mu = 1e-2 used to be refused as below the
    rounding level of N, and mu = 0 gave |cos| = 0.0014)."""
    X, y = load_breast_cancer(return_X_y=True)
    coef = LinearDiscriminantAnalysis(solver="eigen").fit(X, y).coef_[0]
    cosines = [
        _cos(X.T @ KernelFisherDiscriminant(kernel="linear", mu=mu).fit(X, y).alphas_[:, 0], coef)
        for mu in (1e-2, 1e-12, 1e-20, 1e-26)
    ]
    # at mu = 1e-26 the last digits are rounding's: 1 - cos measured 1.1e-7 to 2.4e-6 under
    # OpenBLAS's Nehalem, Sandybridge, Haswell, Zen and SkylakeX kernels with 1 and 2
    # threads (LDA's coef itself is exact to 1e-16 against a 60-digit mpmath solve)
    assert cosines[0] < 0.5 and cosines[-1] > 1 - 1e-5
    assert all(b >= a - 1e-9 for a, b in zip(cosines, cosines[1:]))


# ---------------------------------------------------------------------------
# hypothesis: the solution maximises the regularised quotient
# ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(6, 25),
    c=st.integers(2, 4),
    log_mu=st.floats(-4, 1),
)
def test_solution_maximises_regularised_quotient(seed, n, c, log_mu):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    y = np.arange(n) % c
    mu = 10.0**log_mu
    est = KernelFisherDiscriminant(kernel="rbf", gamma=1.0, mu=mu).fit(X, y)
    M, N = fisher_matrices(rbf_kernel(X, gamma=1.0), y)
    np.testing.assert_allclose(est.ridge_, mu * np.trace(N) / n, rtol=1e-10)
    Nmu = N + est.ridge_ * np.eye(n)
    q = lambda a: (a @ M @ a) / (a @ Nmu @ a)  # noqa: E731
    best = q(est.alphas_[:, 0])
    np.testing.assert_allclose(best, est.eigenvalues_[0], rtol=1e-7)
    for _ in range(20):
        assert q(rng.standard_normal(n)) <= best * (1 + 1e-9)
    # eigenvalues are the quotients of their vectors, in decreasing order
    quots = [q(a) for a in est.alphas_.T]
    np.testing.assert_allclose(quots, est.eigenvalues_, rtol=1e-7, atol=1e-12)
    assert np.all(np.diff(est.eigenvalues_) <= 1e-12 * est.eigenvalues_[0])


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def test_bad_input_messages():
    X, y = _data(20, 2, 2, seed=12)
    with pytest.raises(ValueError, match="one class"):
        KernelFisherDiscriminant().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="mu"):
        KernelFisherDiscriminant(mu=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="mu"):
        KernelFisherDiscriminant(mu="1").fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        KernelFisherDiscriminant(n_components=2).fit(X, y)
    with pytest.raises(TypeError, match="n_components"):
        KernelFisherDiscriminant(n_components=1.0).fit(X, y)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelFisherDiscriminant().fit(Xn, y)
    K = rbf_kernel(X)
    K[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        KernelFisherDiscriminant(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="square"):
        KernelFisherDiscriminant(kernel="precomputed").fit(rbf_kernel(X)[:, :5], y)
    with pytest.raises(ValueError, match="not fitted"):
        KernelFisherDiscriminant().transform(X)
    est = KernelFisherDiscriminant().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :1])
    with pytest.raises(ValueError, match="M = 0"):
        KernelFisherDiscriminant(kernel="precomputed").fit(np.ones((20, 20)), y)
    with pytest.raises(TypeError, match="Complex"):
        KernelFisherDiscriminant().fit(X + 1j, y)
    with pytest.raises(ValueError, match="kernel"):
        KernelFisherDiscriminant(kernel="cubic").fit(X, y)


def test_multiclass_decision_function_argmax_is_predict():
    X, y = _data(30, 2, 3, seed=13)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, y)
    F = est.decision_function(X)
    assert F.shape == (30, 3)
    np.testing.assert_array_equal(est.classes_[np.argmax(F, axis=1)], est.predict(X))


def test_get_set_params_and_clone():
    from sklearn.base import clone

    est = KernelFisherDiscriminant(kernel="linear", mu=0.5, n_components=1)
    assert est.get_params()["mu"] == 0.5
    c = clone(est)
    assert c.get_params() == est.get_params()
    with pytest.raises(ValueError, match="(?i)invalid parameter"):
        est.set_params(lam=1.0)


# ---------------------------------------------------------------------------
# memory: two n x n arrays at the peak, no n x n x c temporary
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mu", [1e-3, 1e-9, 0.0])  # Cholesky of N, QR of K C, pivoted QR
def test_peak_memory_of_a_two_class_fit_is_two_gram_matrices(mu):
    # mu = 0 (pseudo-inverse) used to hold five n x n arrays (np.triu copies, eigh's Q, K)
    n = 1500
    rng = np.random.default_rng(14)
    y = (rng.random(n) < 0.5).astype(int)
    X = rng.standard_normal((n, 5)) + y[:, None]
    est = KernelFisherDiscriminant(kernel="rbf", mu=mu)
    tracemalloc.start()
    try:
        est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 2.25 * 8 * n * n, f"peak {peak / (8 * n * n):.2f} x 8n^2"
    assert peak >= 2 * 8 * n * n * 0.99  # sanity: the measurement sees K and N


def test_linear_kernel_alias_gram_equals_ktheory_linear_kernel():
    X, y = _data(20, 3, 2, seed=15)
    est = KernelFisherDiscriminant(kernel="linear", mu=1e-2).fit(X, y)
    np.testing.assert_allclose(est.transform(X)[:, 0], linear_kernel(X) @ est.alphas_[:, 0], atol=1e-10)


# ---------------------------------------------------------------------------
# rank M < n_components: no junk directions from the null space of M
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mu", [1e-3, 0.0])
def test_rank_deficient_M_drops_null_space_directions_with_a_warning(mu):
    # linear kernel on 1-D data: w is a scalar, so M (3 classes) has rank 1 < c - 1 = 2
    rng = np.random.default_rng(31)
    y = np.repeat([0, 1, 2], 10)
    X = rng.standard_normal((30, 1)) + 2.0 * y[:, None]
    with pytest.warns(UserWarning, match="only 1 of the 2 requested"):
        est = KernelFisherDiscriminant(kernel="linear", mu=mu).fit(X, y)
    assert est.alphas_.shape == (30, 1) and est.eigenvalues_.shape == (1,)
    assert est.means_.shape == (3, 1) and est.transform(X).shape == (30, 1)
    M, N = fisher_matrices(X @ X.T, y)
    a = est.alphas_[:, 0]
    if mu > 0:  # the kept direction is a genuine, normalised eigenvector
        np.testing.assert_allclose(a @ (N + est.ridge_ * np.eye(30)) @ a, 1.0, rtol=1e-8)
        lam = sla.eigh(M, N + est.ridge_ * np.eye(30), eigvals_only=True)
        np.testing.assert_allclose(est.eigenvalues_[0], lam[-1], rtol=1e-8)
    # h(x) = (sum_i alpha_i x_i) x is a multiple of x: predict is the nearest class mean in x
    class_means = np.array([X[y == c, 0].mean() for c in range(3)])
    oracle = np.argmin(np.abs(X[:, [0]] - class_means[None, :]), axis=1)
    np.testing.assert_array_equal(est.predict(X), oracle)


def test_full_rank_M_keeps_all_directions_without_a_warning():
    import warnings

    X, y = _data(30, 2, 3, seed=32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = KernelFisherDiscriminant(kernel="linear", mu=1e-3).fit(X, y)
    assert est.alphas_.shape == (30, 2) and np.all(est.eigenvalues_ > 1e-6 * est.eigenvalues_[0])


def test_X_fit_is_a_copy_not_a_view_of_the_callers_array():
    X, y = _data(30, 2, 2, seed=33)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, y)
    X0 = X.copy()
    Z = est.transform(X0)
    assert not np.shares_memory(est.X_fit_, X)
    X[:] = 0.0  # the caller reuses its buffer: the fitted model must not change
    np.testing.assert_array_equal(est.X_fit_, X0)
    np.testing.assert_array_equal(est.transform(X0), Z)


def test_a_failed_refit_leaves_the_estimator_as_it_was():
    X, y = _data(30, 2, 2, seed=34)
    est = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=1e-2).fit(X, y)
    before = dict(vars(est))
    for bad_X, bad_y in ((np.c_[X, X], np.zeros(30)), (np.ones((30, 3)), y), (X[:, :1] + np.nan, y)):
        with pytest.raises(ValueError):
            est.fit(bad_X, bad_y)
        assert vars(est).keys() == before.keys()
        assert all(vars(est)[k] is before[k] for k in before)
    fresh = KernelFisherDiscriminant(kernel="precomputed")
    with pytest.raises(ValueError, match="symmetric"):
        fresh.fit(np.triu(rbf_kernel(X)), y)             # validate_data had set n_features_in_
    assert vars(fresh) == vars(KernelFisherDiscriminant(kernel="precomputed"))
    # a three-class refit drops the two-class threshold
    assert not hasattr(est.fit(X, np.arange(30) % 3), "threshold_")


def test_the_route_switch_chooses_by_the_condition_bound_and_the_routes_agree(monkeypatch):
    """The Cholesky route is taken when eps (1 + n / mu) <= 1e-8 (a bound on eps cond(N + ridge I)),
    the QR route below (seen through the calls of LAPACK geqrf); at the switch, where the
    Cholesky route is least accurate, the two routes give the same direction (|cos| to 1e-9)
    and eigenvalue."""
    X, y = _data(50, 2, 2, seed=35)
    mu_switch = 50 / (fisher_module._CHOLESKY_RTOL / np.finfo(float).eps - 1)
    calls = []
    real = fisher_module._lapack.dgeqrf
    monkeypatch.setattr(fisher_module._lapack, "dgeqrf", lambda *a, **k: calls.append(1) or real(*a, **k))
    chol = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=mu_switch * 1.001).fit(X, y)
    assert not calls  # Cholesky
    KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=mu_switch * 0.999).fit(X, y)
    assert calls  # QR
    monkeypatch.setattr(fisher_module, "_CHOLESKY_RTOL", 0.0)  # QR at the Cholesky side's mu
    qr = KernelFisherDiscriminant(kernel="rbf", gamma=0.5, mu=mu_switch * 1.001).fit(X, y)
    assert _cos(chol.alphas_[:, 0], qr.alphas_[:, 0]) > 1 - 1e-9
    np.testing.assert_allclose(chol.eigenvalues_, qr.eigenvalues_, rtol=1e-7)
