"""Tests of ktheory.kpca.KernelPCA.

Oracle: scikit-learn's ``KernelPCA`` (dense eigensolver) on the same data. Eigenvectors are
unique only up to sign (and only for simple eigenvalues), so the comparisons are of the
eigenvalues, of the columns up to sign where the eigenvalues are simple, and of the Gram
matrix ``Z Z^T`` of the projections, which is unique. Then the properties (sample-order
invariance of the eigenvalues, translation invariance for the rbf kernel), the relation
with the Nyström eigenpairs, the sign convention, bad input and scikit-learn's estimator
checks.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics.pairwise import laplacian_kernel as sk_laplacian
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from ktheory.kernels import gaussian_kernel, sigmoid_kernel
from ktheory.kpca import KernelPCA
from ktheory.mercer import nystrom_eigenpairs

RNG = np.random.default_rng(0)
X = RNG.standard_normal((40, 3))
XT = RNG.standard_normal((7, 3))


def _same_up_to_sign(A, B, rtol=1e-7, atol=1e-9):
    s = np.sign(np.sum(A * B, axis=0))
    s[s == 0] = 1
    np.testing.assert_allclose(A * s, B, rtol=rtol, atol=atol)


SETTINGS = [
    {"kernel": "linear"},
    {"kernel": "rbf", "gamma": 0.3},
    {"kernel": "poly", "gamma": 0.5, "degree": 2, "coef0": 1.0},
]


@pytest.mark.parametrize("kw", SETTINGS, ids=lambda kw: kw["kernel"])
def test_same_as_sklearn(kw):
    m = 3
    ours = KernelPCA(n_components=m, **kw).fit(X)
    sk = SkKernelPCA(n_components=m, eigen_solver="dense", **kw).fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-10)
    assert np.all(np.diff(ours.eigenvalues_) < 0)  # simple: the columns are unique up to sign
    _same_up_to_sign(ours.eigenvectors_, sk.eigenvectors_)
    Z, Zs = ours.transform(XT), sk.transform(XT)
    np.testing.assert_allclose(Z @ Z.T, Zs @ Zs.T, rtol=1e-8, atol=1e-10)
    _same_up_to_sign(ours.fit_transform(X), sk.fit_transform(X))
    # the same sign convention as scikit-learn (svd_flip): equal, not only up to sign
    np.testing.assert_allclose(ours.eigenvectors_, sk.eigenvectors_, rtol=1e-7, atol=1e-9)


def test_precomputed_and_callable_same_as_sklearn():
    K = sk_rbf(X, gamma=0.3)
    Kt = sk_rbf(XT, X, gamma=0.3)
    ours = KernelPCA(n_components=4, kernel="precomputed").fit(K)
    sk = SkKernelPCA(n_components=4, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-10)
    Z, Zs = ours.transform(Kt), sk.transform(Kt)
    np.testing.assert_allclose(Z @ Z.T, Zs @ Zs.T, rtol=1e-8, atol=1e-10)
    call = KernelPCA(n_components=4, kernel=lambda A, B: gaussian_kernel(A, B, sigma=np.sqrt(1 / 0.6)))
    np.testing.assert_allclose(call.fit(X).transform(XT), Z, rtol=1e-8, atol=1e-10)


def test_laplacian_same_as_sklearn_precomputed():
    """scikit-learn's KernelPCA has no "laplacian": its Gram matrix is the oracle's input."""
    ours = KernelPCA(n_components=3, kernel="laplacian", gamma=0.2).fit(X)
    sk = SkKernelPCA(n_components=3, kernel="precomputed", eigen_solver="dense")
    sk.fit(sk_laplacian(X, gamma=0.2))
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-10)
    Z, Zs = ours.transform(XT), sk.transform(sk_laplacian(XT, X, gamma=0.2))
    np.testing.assert_allclose(Z @ Z.T, Zs @ Zs.T, rtol=1e-8, atol=1e-10)


def test_gamma_vocabulary():
    auto = KernelPCA(n_components=2, kernel="rbf", gamma="auto").fit(X)
    sk = SkKernelPCA(n_components=2, kernel="rbf", eigen_solver="dense").fit(X)  # gamma=None
    np.testing.assert_allclose(auto.eigenvalues_, sk.eigenvalues_, rtol=1e-10)
    assert auto.gamma_ == pytest.approx(1 / 3)
    scale = KernelPCA(n_components=2, kernel="rbf", gamma="scale").fit(X)
    assert scale.gamma_ == pytest.approx(1 / (3 * X.var()))
    assert np.isnan(KernelPCA(kernel="linear").fit(X).gamma_)


def test_n_components_none_keeps_the_nonzero_eigenvalues():
    ours = KernelPCA(kernel="linear").fit(X)          # centred rank 3
    sk = SkKernelPCA(kernel="linear", eigen_solver="dense").fit(X)
    assert ours.eigenvalues_.shape == (3,) == sk.eigenvalues_.shape
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-10)
    # linear kernel PCA is PCA: the eigenvalues are n times the covariance's
    cov = np.cov(X.T, bias=True)
    np.testing.assert_allclose(ours.eigenvalues_, 40 * np.linalg.eigvalsh(cov)[::-1], rtol=1e-10)


def test_zero_eigenvalues_give_zero_components():
    kp = KernelPCA(n_components=5, kernel="linear").fit(X)   # rank 3: two zero eigenvalues
    np.testing.assert_array_equal(kp.eigenvalues_[3:], 0.0)
    np.testing.assert_array_equal(kp.transform(XT)[:, 3:], 0.0)
    np.testing.assert_array_equal(kp.fit_transform(X)[:, 3:], 0.0)


def test_centring_in_feature_space():
    """Training components: mean zero, uncorrelated, variances w_i; transform(X) agrees."""
    kp = KernelPCA(n_components=5, kernel="rbf", gamma=0.3).fit(X)
    Z = kp.transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.T @ Z, np.diag(kp.eigenvalues_), atol=1e-10)
    np.testing.assert_allclose(Z, kp.fit_transform(X), atol=1e-10)
    # the centred Gram matrix H K H, and the eigen-equation
    H = np.eye(40) - 1 / 40
    Kc = H @ sk_rbf(X, gamma=0.3) @ H
    np.testing.assert_allclose(Kc @ kp.eigenvectors_, kp.eigenvectors_ * kp.eigenvalues_, atol=1e-12)


def test_relation_with_nystrom_eigenpairs():
    """Kernel PCA is the Nyström eigen-problem of the kernel centred at the empirical mean:
    w_i = n lambda_i, and the components are sqrt(lambda_i) phi_i(x)."""
    n, g = X.shape[0], 0.3
    Kfit = sk_rbf(X, gamma=g)
    col, tot = Kfit.mean(axis=0), Kfit.mean()

    def centred(A, B):
        return sk_rbf(A, B, gamma=g) - sk_rbf(A, X, gamma=g).mean(1)[:, None] \
            - sk_rbf(X, B, gamma=g).mean(0)[None, :] + tot

    assert np.allclose(centred(X, X), Kfit - col[None] - col[:, None] + tot)
    kp = KernelPCA(n_components=4, kernel="rbf", gamma=g).fit(X)
    ny = nystrom_eigenpairs(X, 4, kernel=centred)
    np.testing.assert_allclose(kp.eigenvalues_, n * ny.eigenvalues, rtol=1e-10)
    feats = ny.eigenfunctions(XT) * np.sqrt(ny.eigenvalues)
    _same_up_to_sign(kp.transform(XT), feats, rtol=1e-8, atol=1e-10)


def test_sign_convention():
    kp = KernelPCA(n_components=6, kernel="rbf", gamma=0.3).fit(X)
    U = kp.eigenvectors_
    rows = np.argmax(np.abs(U), axis=0)
    assert np.all(U[rows, np.arange(6)] > 0)
    # deterministic: a refit and a fit on a copy give the same numbers
    np.testing.assert_array_equal(KernelPCA(n_components=6, kernel="rbf", gamma=0.3).fit(X.copy())
                                  .eigenvectors_, U)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 25), d=st.integers(1, 4))
def test_eigenvalues_do_not_depend_on_the_sample_order(seed, n, d):
    rng = np.random.default_rng(seed)
    Xs = rng.standard_normal((n, d))
    perm = rng.permutation(n)
    a = KernelPCA(n_components=min(n, 4), kernel="rbf", gamma=0.5).fit(Xs)
    b = KernelPCA(n_components=min(n, 4), kernel="rbf", gamma=0.5).fit(Xs[perm])
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-9, atol=1e-12)
    # the projections of new points are unique through their Gram matrix (simple eigenvalues)
    Xn = rng.standard_normal((3, d))
    Za, Zb = a.transform(Xn), b.transform(Xn)
    if np.all(np.diff(a.eigenvalues_) < -1e-6 * a.eigenvalues_[0]) and a.eigenvalues_[-1] > 1e-6:
        np.testing.assert_allclose(Za @ Za.T, Zb @ Zb.T, rtol=1e-6, atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-50, 50), n=st.integers(5, 25))
def test_translation_invariance_rbf(seed, shift, n):
    rng = np.random.default_rng(seed)
    Xs = rng.standard_normal((n, 2))
    Xn = rng.standard_normal((3, 2))
    v = shift * np.array([1.0, -0.5])
    a = KernelPCA(n_components=min(n, 3), kernel="rbf", gamma=0.7).fit(Xs)
    b = KernelPCA(n_components=min(n, 3), kernel="rbf", gamma=0.7).fit(Xs + v)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-8, atol=1e-10)
    Za, Zb = a.transform(Xn), b.transform(Xn + v)
    np.testing.assert_allclose(Za @ Za.T, Zb @ Zb.T, rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------- bad input
@pytest.mark.parametrize("Xbad,match", [
    (np.where(X > 1.5, np.nan, X), "X contains NaN"),
    (np.where(X > 1.5, np.inf, X), "X contains"),
    (X[:, 0], "2-D array for X"),
    (np.zeros((0, 3)), "0 sample"),
    (X + 1j, "Complex data not supported"),
])
def test_fit_bad_X(Xbad, match):
    with pytest.raises(ValueError, match=match):
        KernelPCA(n_components=2).fit(Xbad)


@pytest.mark.parametrize("nc,err", [(0, ValueError), (41, ValueError), (-1, ValueError),
                                    (2.0, TypeError), (True, TypeError), ("2", TypeError)])
def test_n_components_out_of_range(nc, err):
    with pytest.raises(err, match="n_components"):
        KernelPCA(n_components=nc).fit(X)


@pytest.mark.parametrize("kw,err,match", [
    ({"kernel": "cosine"}, ValueError, "kernel must be one of"),
    ({"kernel": "rbf", "gamma": 0.0}, ValueError, "gamma"),
    ({"kernel": "rbf", "gamma": None}, TypeError, "gamma='auto'"),
    ({"kernel": "poly", "degree": 0}, ValueError, "degree"),
    ({"kernel_params": [1]}, TypeError, "kernel_params"),
    ({"gram_limit_mb": -1.0}, ValueError, "gram_limit_mb"),
])
def test_bad_parameters(kw, err, match):
    with pytest.raises(err, match=match):
        KernelPCA(n_components=2, **kw).fit(X)


def test_precomputed_must_be_square_symmetric_psd():
    K = sk_rbf(X, gamma=0.3)
    with pytest.raises(ValueError, match="square"):
        KernelPCA(kernel="precomputed").fit(K[:, :10])
    with pytest.raises(ValueError, match="symmetric"):
        KernelPCA(kernel="precomputed").fit(K + np.triu(np.ones_like(K), 1) * 1e-3)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelPCA(kernel="precomputed").fit(K - 0.5 * np.eye(40))
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelPCA(n_components=2, kernel=lambda A, B: sigmoid_kernel(A, B, gamma=1.0, coef0=-1.0)).fit(X)


def test_rounding_level_negative_eigenvalues_are_accepted():
    """A PSD Gram matrix computed in floating point has eigenvalues near -1e-16: accepted,
    also in float32 (rounded entries), and what is rounding counts as zero."""
    X1 = np.linspace(-1, 1, 60)[:, None]
    K = gaussian_kernel(X1, sigma=0.5)
    assert np.linalg.eigvalsh(K)[0] < 0  # computed eigenvalue below 0
    kp = KernelPCA(kernel="precomputed").fit(K)
    assert np.all(kp.eigenvalues_ > 0) and kp.eigenvalues_.size < 30
    KernelPCA(n_components=3, kernel="precomputed").fit(K.astype(np.float32))
    KernelPCA(n_components=3, kernel="rbf", gamma=2.0).fit(X1)


def test_failed_fit_leaves_the_estimator_as_it_was():
    kp = KernelPCA(n_components=2, kernel="rbf", gamma=0.3).fit(X)
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vars(kp).items()}
    Z = kp.transform(XT)
    kp.set_params(n_components=100)
    with pytest.raises(ValueError, match="n_components"):
        kp.fit(X[:, :2])
    after = vars(kp)
    assert after.keys() == before.keys()
    for k, v in before.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(after[k], v)
    assert kp.n_features_in_ == 3
    np.testing.assert_array_equal(kp.transform(XT), Z)


def test_transform_uses_the_settings_of_the_fit():
    kp = KernelPCA(n_components=2, kernel="rbf", gamma=0.3).fit(X)
    Z = kp.transform(XT)
    kp.set_params(kernel="linear", gamma=5.0)
    np.testing.assert_array_equal(kp.transform(XT), Z)


def test_transform_bad_input():
    kp = KernelPCA(n_components=2, kernel="rbf", gamma=0.3).fit(X)
    with pytest.raises(ValueError, match="X has 2 features"):
        kp.transform(XT[:, :2])
    with pytest.raises(ValueError, match="X contains NaN"):
        kp.transform(np.where(XT > 1, np.nan, XT))
    with pytest.raises(ValueError, match="not fitted"):
        KernelPCA().transform(XT)


def test_owns_its_training_data():
    Xc = X.copy()
    kp = KernelPCA(n_components=2, kernel="rbf", gamma=0.3).fit(Xc)
    Z = kp.transform(XT)
    Xc[:] = 0.0
    np.testing.assert_array_equal(kp.transform(XT), Z)


def test_feature_names_out():
    kp = KernelPCA(n_components=3, kernel="rbf", gamma=0.3).fit(X)
    assert list(kp.get_feature_names_out()) == ["kernelpca0", "kernelpca1", "kernelpca2"]


@pytest.mark.parametrize("kernel", ["rbf", "poly", "precomputed"])
def test_few_components_by_the_subset_solver_match_all_eigenpairs(kernel):
    """n_components <= SUBSET_FRACTION * n takes only the top eigenpairs (MRRR); they equal
    the leading ones of the full decomposition (signs fixed by the same convention)."""
    from ktheory import kpca as kpca_mod

    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 4))
    data = X @ X.T + 1.0 if kernel == "precomputed" else X
    m = 4
    assert m <= kpca_mod.SUBSET_FRACTION * 60
    few = KernelPCA(m, kernel=kernel).fit(data)
    full = KernelPCA(None, kernel=kernel).fit(data)
    np.testing.assert_allclose(few.eigenvalues_, full.eigenvalues_[:m], rtol=1e-10)
    np.testing.assert_allclose(few.eigenvectors_, full.eigenvectors_[:, :m], atol=1e-8)
    np.testing.assert_allclose(few.transform(data[:7]), full.transform(data[:7])[:, :m],
                               atol=1e-8)
    if kernel == "precomputed":  # transform reads the symmetrised training matrix, unchanged
        np.testing.assert_array_equal(few.X_fit_, data)
