"""Tests of ktheory.ridge (KernelRidge, kernel_ridge_path).

Oracles: scikit-learn's KernelRidge, Ridge(fit_intercept=False) and
GaussianProcessRegressor on the same data and kernel; brute-force refits for the
leave-one-out residuals and for the path; numpy.linalg.solve on tiny systems; a
generic optimiser (scipy.optimize.minimize) in the explicit polynomial feature space
for the representer theorem. Hypothesis checks that the optimiser's minimiser lies in
the span of the features of the data and that the solution beats random perturbations.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge
from sklearn.metrics.pairwise import sigmoid_kernel as sk_sigmoid
from sklearn.model_selection import GridSearchCV, cross_val_score

from ktheory.kernels import gaussian_kernel, polynomial_feature_map, polynomial_kernel, rbf_kernel
from ktheory.ridge import KernelRidge, LeastSquaresWarning, RidgePath, kernel_ridge_path


def _data(n: int = 40, d: int = 3, t: int | None = None, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal((d,) if t is None else (d, t))
    y = np.sin(X @ w) + 0.1 * rng.standard_normal((n,) if t is None else (n, t))
    return X, y, rng.standard_normal((15, d))


KERNELS = [
    ("linear", {}),
    ("poly", dict(degree=3, gamma=0.4, coef0=1.0)),
    ("rbf", dict(gamma=0.3)),
    ("laplacian", dict(gamma=0.2)),
    ("sigmoid", dict(gamma=0.05, coef0=0.2)),
]


# ---------------------------------------------------------------------------
# agreement with scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kernel,kw", KERNELS, ids=[k for k, _ in KERNELS])
@pytest.mark.parametrize("t", [None, 2])
@pytest.mark.parametrize("alpha", [1e-3, 0.7, 50.0])
def test_matches_sklearn(kernel, kw, t, alpha):
    X, y, Xt = _data(t=t)
    if kernel == "sigmoid":
        # the sigmoid "kernel" is not PSD here: a clear error at every alpha, also where
        # K + alpha I is positive definite (scikit-learn solves the system anyway)
        evals = np.linalg.eigvalsh(sk_sigmoid(X, **kw))
        assert evals[0] < -1e-3 * evals[-1]
        with pytest.raises(ValueError, match="not positive semidefinite"):
            KernelRidge(alpha=alpha, kernel=kernel, **kw).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            SkKernelRidge(alpha=alpha, kernel=kernel, **kw).fit(X, y)
        return
    ours = KernelRidge(alpha=alpha, kernel=kernel, **kw).fit(X, y)
    ref = SkKernelRidge(alpha=alpha, kernel=kernel, **kw).fit(X, y)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-8)
    assert ours.score(Xt, ref.predict(Xt)) == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize("t", [None, 3])
def test_precomputed_matches_sklearn(t):
    X, y, Xt = _data(t=t)
    K, Kt = gaussian_kernel(X, sigma=1.3), gaussian_kernel(Xt, X, sigma=1.3)
    ours = KernelRidge(alpha=0.2, kernel="precomputed").fit(K, y)
    ref = SkKernelRidge(alpha=0.2, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(ours.predict(Kt), ref.predict(Kt), rtol=0, atol=1e-8)
    named = KernelRidge(alpha=0.2, kernel="rbf", gamma=1 / (2 * 1.3**2)).fit(X, y)
    np.testing.assert_allclose(ours.predict(Kt), named.predict(Xt), rtol=0, atol=1e-8)


def test_callable_kernel_with_params_matches_sklearn_pairwise_callable():
    X, y, Xt = _data()
    ours = KernelRidge(alpha=0.3, kernel=polynomial_kernel, kernel_params={"degree": 2, "coef0": 0.5}).fit(X, y)

    def pair(a, b):  # scikit-learn calls a callable kernel on single samples
        return (a @ b + 0.5) ** 2

    ref = SkKernelRidge(alpha=0.3, kernel=pair).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=0, atol=1e-8)


def test_linear_kernel_is_ridge_without_intercept():
    X, y, Xt = _data(n=30, d=5)
    krr = KernelRidge(alpha=2.5, kernel="linear").fit(X, y)
    ridge = Ridge(alpha=2.5, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(krr.predict(Xt), ridge.predict(Xt), rtol=0, atol=1e-10)
    # primal weights are X^T dual_coef
    np.testing.assert_allclose(X.T @ krr.dual_coef_, ridge.coef_, rtol=0, atol=1e-10)


def test_gp_posterior_mean_equals_krr():
    X, y, Xt = _data(n=25, d=2)
    ell, lam = 0.8, 0.05
    gp = GaussianProcessRegressor(kernel=RBF(length_scale=ell), alpha=lam, optimizer=None, normalize_y=False)
    gp.fit(X, y)
    krr = KernelRidge(alpha=lam, kernel="rbf", gamma=1 / (2 * ell**2)).fit(X, y)
    np.testing.assert_allclose(krr.predict(Xt), gp.predict(Xt), rtol=0, atol=1e-9)


def test_closed_form_tiny():
    K = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])
    y = np.array([1.0, -1.0, 2.0])
    m = KernelRidge(alpha=0.5, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(m.dual_coef_, np.linalg.solve(K + 0.5 * np.eye(3), y), rtol=1e-13)


# ---------------------------------------------------------------------------
# leave-one-out and the path
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("t", [None, 2])
@pytest.mark.parametrize("kernel,kw", [("rbf", dict(gamma=0.5)), ("linear", {}), ("precomputed", {})])
def test_loo_equals_brute_force(t, kernel, kw):
    X, y, _ = _data(n=25, t=t)
    if kernel == "precomputed":
        K = polynomial_kernel(X, degree=2)
        est = KernelRidge(alpha=0.4, kernel="precomputed").fit(K, y)
        brute = [
            y[i] - KernelRidge(alpha=0.4, kernel="precomputed")
            .fit(np.delete(np.delete(K, i, 0), i, 1), np.delete(y, i, 0))
            .predict(np.delete(K[i : i + 1], i, 1))[0]
            for i in range(len(y))
        ]
    else:
        est = KernelRidge(alpha=0.4, kernel=kernel, **kw).fit(X, y)
        brute = [
            y[i] - KernelRidge(alpha=0.4, kernel=kernel, **kw).fit(np.delete(X, i, 0), np.delete(y, i, 0))
            .predict(X[i : i + 1])[0]
            for i in range(len(y))
        ]
    np.testing.assert_allclose(est.loo_residuals(), np.array(brute), rtol=1e-8, atol=1e-10)


def test_loo_needs_fit_and_positive_alpha():
    X, y, _ = _data(n=10)
    with pytest.raises(NotFittedError, match="not fitted"):
        KernelRidge().loo_residuals()
    with pytest.warns(LeastSquaresWarning):
        est = KernelRidge(alpha=0.0, kernel="rbf", gamma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="alpha > 0"):
        est.loo_residuals()


@pytest.mark.parametrize("t", [None, 2])
def test_path_equals_separate_fits(t):
    X, y, Xt = _data(n=35, t=t)
    alphas = np.array([1e-3, 0.05, 1.0, 30.0])
    est = KernelRidge(alpha=123.0, kernel="rbf", gamma=0.4)
    p = est.path(X, y, alphas)
    assert isinstance(p, RidgePath) and not hasattr(est, "dual_coef_")
    Kt = rbf_kernel(Xt, X, gamma=0.4)
    for k, a in enumerate(alphas):
        single = KernelRidge(alpha=a, kernel="rbf", gamma=0.4).fit(X, y)
        np.testing.assert_allclose(Kt @ p.dual_coef[k], single.predict(Xt), rtol=0, atol=1e-8)
        np.testing.assert_allclose(p.loo_residuals[k], single.loo_residuals(), rtol=1e-6, atol=1e-8)
    assert p.loo_mse().shape == (4,)
    np.testing.assert_allclose(np.sort(p.eigenvalues), np.clip(np.linalg.eigvalsh(rbf_kernel(X, gamma=0.4)), 0, None),
                               atol=1e-10)


def test_path_function_and_errors():
    X, y, _ = _data(n=12)
    K = X @ X.T
    p = kernel_ridge_path(K, y, [0.5])
    np.testing.assert_allclose(p.dual_coef[0], np.linalg.solve(K + 0.5 * np.eye(12), y), atol=1e-10)
    with pytest.raises(ValueError, match="alphas"):
        kernel_ridge_path(K, y, [0.5, 0.0])
    with pytest.raises(ValueError, match="positive semidefinite"):
        kernel_ridge_path(K - 5 * np.eye(12), y, [0.5])
    with pytest.raises(ValueError, match="symmetric"):
        kernel_ridge_path(K + np.triu(np.ones((12, 12)), 1), y, [0.5])


# ---------------------------------------------------------------------------
# bad input and estimator behaviour
# ---------------------------------------------------------------------------


def test_bad_input_messages():
    X, y, _ = _data(n=10)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        KernelRidge(alpha=[1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match="same number of samples"):
        KernelRidge().fit(X, y[:-1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelRidge().fit(Xn, y)
    with pytest.raises(ValueError, match="Reshape your data"):
        KernelRidge().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="kernel must be one of"):
        KernelRidge(kernel="chi2").fit(X, y)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelRidge(alpha=0.1, kernel="precomputed").fit(-np.eye(10), y)
    with pytest.raises(ValueError, match="symmetric"):
        KernelRidge(kernel="precomputed").fit(np.triu(np.ones((10, 10))), y)
    with pytest.raises(ValueError, match="square"):
        KernelRidge(kernel="precomputed").fit(X, y)
    with pytest.raises(NotFittedError, match="not fitted"):
        KernelRidge().predict(X)
    est = KernelRidge().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


def test_alpha_zero_is_least_squares_with_warning():
    X, y, Xt = _data(n=15)
    with pytest.warns(LeastSquaresWarning, match="least squares"):
        ours = KernelRidge(alpha=0.0, kernel="rbf", gamma=0.5).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = SkKernelRidge(alpha=0.0, kernel="rbf", gamma=0.5).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X), y, atol=1e-8)  # interpolates


def test_tiny_alpha_on_singular_psd_kernel_falls_back():
    X = np.repeat(np.arange(4.0)[:, None], 2, axis=0)  # duplicated points: K singular
    y = np.arange(8.0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        est = KernelRidge(alpha=1e-300, kernel="rbf", gamma=1.0).fit(X, y)
    np.testing.assert_allclose(est.predict(X[::2]), [0.5, 2.5, 4.5, 6.5], atol=1e-6)


def test_does_not_modify_inputs_and_sklearn_tools_work():
    X, y, _ = _data(n=30)
    K = gaussian_kernel(X)
    K0 = K.copy()
    KernelRidge(kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(K, K0)
    est = KernelRidge(alpha=1.0, kernel="rbf", gamma=0.5)
    assert clone(est).get_params() == est.get_params()
    gs = GridSearchCV(est, {"alpha": [0.01, 1.0], "gamma": [0.1, 1.0]}, cv=3).fit(X, y)
    ref = GridSearchCV(SkKernelRidge(kernel="rbf"), {"alpha": [0.01, 1.0], "gamma": [0.1, 1.0]}, cv=3).fit(X, y)
    assert gs.best_params_ == ref.best_params_
    ref_est = SkKernelRidge(alpha=1.0, kernel="rbf", gamma=0.5)
    np.testing.assert_allclose(cross_val_score(est, X, y, cv=3), cross_val_score(ref_est, X, y, cv=3), atol=1e-10)
    fitted = est.fit(X, y)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    assert repr(KernelRidge(alpha=2.0, kernel="rbf")) == "KernelRidge(alpha=2.0, kernel='rbf')"


# ---------------------------------------------------------------------------
# the representer theorem in an explicit feature space (hypothesis)
# ---------------------------------------------------------------------------


@st.composite
def small_problems(draw):
    seed = draw(st.integers(0, 10_000))
    n = draw(st.integers(2, 6))
    lam = draw(st.floats(0.05, 5.0))
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 2)), rng.standard_normal(n), lam, rng


@settings(max_examples=25, deadline=None)
@given(small_problems())
def test_generic_optimiser_minimiser_lies_in_span(problem):
    X, y, lam, rng = problem
    Phi = polynomial_feature_map(X, degree=2, coef0=1.0)  # D = 6 coordinates
    D = Phi.shape[1]

    def objective(w):
        r = y - Phi @ w
        return r @ r + lam * (w @ w)

    def grad(w):
        return -2 * Phi.T @ (y - Phi @ w) + 2 * lam * w

    w0 = rng.standard_normal(D)  # a start that is NOT in the span
    res = minimize(objective, w0, jac=grad, method="BFGS", options={"gtol": 1e-11})
    est = KernelRidge(alpha=lam, kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    w_kernel = Phi.T @ est.dual_coef_  # sum_i alpha_i phi(x_i)
    np.testing.assert_allclose(res.x, w_kernel, atol=1e-5)
    # the optimiser's minimiser lies in span{phi(x_i)}: its residual after projection vanishes
    coef, *_ = np.linalg.lstsq(Phi.T, res.x, rcond=None)
    assert np.linalg.norm(Phi.T @ coef - res.x) < 1e-5
    # and the solution beats random perturbations
    best = objective(w_kernel)
    for _ in range(5):
        assert objective(w_kernel + 1e-3 * rng.standard_normal(D)) > best


def test_callable_returning_a_stored_matrix_is_not_modified():
    X, y, _ = _data(n=10)
    K = gaussian_kernel(X)
    K0 = K.copy()
    est = KernelRidge(alpha=0.5, kernel=lambda A, B: K if A is B or np.array_equal(A, B) else gaussian_kernel(A, B))
    est.fit(X, y)
    np.testing.assert_array_equal(K, K0)
    np.testing.assert_allclose(est.dual_coef_, np.linalg.solve(K0 + 0.5 * np.eye(10), y), atol=1e-12)


# ---------------------------------------------------------------------------
# settings of the fit; one PSD rule for fit and path (referee items 1 and 16)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("change", [dict(alpha=5.0), dict(gamma=0.05), dict(kernel="linear"),
                                    dict(alpha=5.0, gamma=2.0)])
def test_loo_and_predict_use_the_settings_of_the_fit(change):
    X, y, Xt = _data(n=25)
    est = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.45).fit(X, y)
    loo, pred = est.loo_residuals(), est.predict(Xt)
    est.set_params(**change)
    np.testing.assert_array_equal(est.loo_residuals(), loo)
    np.testing.assert_array_equal(est.predict(Xt), pred)
    assert est.get_params()[next(iter(change))] == change[next(iter(change))]
    # the new settings take effect at the next fit, where they give other residuals
    refit = est.fit(X, y).loo_residuals()
    assert np.max(np.abs(refit - loo)) > 1e-3
    brute = np.array([y[i] - clone(est).fit(np.delete(X, i, 0), np.delete(y, i)).predict(X[i:i + 1])[0]
                      for i in range(len(y))])
    np.testing.assert_allclose(refit, brute, rtol=1e-8, atol=1e-10)


def test_fitted_settings_survive_mutation_of_kernel_params():
    X, y, Xt = _data(n=20)
    kp = {"gamma": 0.3}
    est = KernelRidge(alpha=0.5, kernel=rbf_kernel, kernel_params=kp).fit(X, y)
    pred = est.predict(Xt)
    kp["gamma"] = 3.0                      # the caller mutates the dict after the fit
    np.testing.assert_array_equal(est.predict(Xt), pred)
    ref = SkKernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y)
    np.testing.assert_allclose(pred, ref.predict(Xt), atol=1e-8)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 100.0])
def test_non_psd_kernel_refused_by_fit_and_path_alike(alpha):
    X, y, _ = _data(n=30)
    K = gaussian_kernel(X, sigma=1.0)
    K_bad = K - 4.0 * np.eye(30)           # smallest eigenvalue about -4
    lo = np.linalg.eigvalsh(K_bad)[0]
    assert lo < -3.0
    if alpha == 100.0:                     # K_bad + alpha I is positive definite: still refused
        assert np.linalg.eigvalsh(K_bad + alpha * np.eye(30))[0] > 90.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="not positive semidefinite"):
            KernelRidge(alpha=alpha, kernel="precomputed").fit(K_bad, y)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelRidge(kernel="precomputed").path(K_bad, y, [alpha or 1.0])
    # a callable returning the same matrix, and poly with coef0 < 0, are checked too
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelRidge(alpha=alpha or 1.0, kernel=lambda A, B: K_bad[: len(A), : len(B)]).fit(X, y)
    Kp = polynomial_kernel(X, degree=2, gamma=1.0, coef0=-3.0)
    assert np.linalg.eigvalsh(Kp)[0] < -1.0
    with pytest.raises(ValueError, match="not positive semidefinite"):
        KernelRidge(alpha=alpha or 1.0, kernel="poly", degree=2, gamma=1.0, coef0=-3.0).fit(X, y)


def test_psd_rule_boundary_and_singular_psd_accepted():
    X, y, _ = _data(n=30)
    K = gaussian_kernel(X, sigma=1.0)
    evals, Q = np.linalg.eigh(K)
    tol = 1e-6 * evals[-1] * 30**0.5      # the documented rule
    for shift, ok in [(0.5 * tol, True), (3.0 * tol, False)]:
        lam = evals.copy()
        lam[0] = -shift                    # one eigenvalue just inside / outside the rule
        Kb = (Q * lam) @ Q.T
        Kb = (Kb + Kb.T) / 2
        for call in (lambda: KernelRidge(alpha=1.0, kernel="precomputed").fit(Kb, y),
                     lambda: kernel_ridge_path(Kb, y, [1.0])):
            if ok:
                call()
            else:
                with pytest.raises(ValueError, match="not positive semidefinite"):
                    call()
    # a singular PSD Gram matrix (duplicated points) is accepted
    Xd = np.repeat(X[:5], 3, axis=0)
    Kd = gaussian_kernel(Xd, sigma=1.0)
    assert np.linalg.matrix_rank(Kd) == 5
    est = KernelRidge(alpha=0.3, kernel="precomputed").fit(Kd, np.arange(15.0))
    np.testing.assert_allclose(est.dual_coef_, np.linalg.solve(Kd + 0.3 * np.eye(15), np.arange(15.0)),
                               atol=1e-10)


def test_a_failed_fit_or_refit_leaves_the_estimator_as_it_was():
    X, y, Xt = _data(n=20)
    fresh = KernelRidge(kernel="precomputed")
    with pytest.raises(ValueError, match="symmetric"):
        fresh.fit(np.triu(gaussian_kernel(X)), y)         # validate_data had set n_features_in_
    assert vars(fresh) == vars(KernelRidge(kernel="precomputed"))
    est = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y)
    before = dict(vars(est))
    pred = est.predict(Xt)
    Xn = np.c_[X, X]
    Xn[0, 0] = np.nan
    for bad_X, bad_y in ((Xn, y), (np.c_[X, X], y[:-1]), (X * 1e200, y)):
        with pytest.raises(ValueError):
            est.set_params(kernel="linear").fit(bad_X, bad_y)
        assert vars(est).keys() == before.keys()
        assert all(vars(est)[k] is before[k] for k in before if k != "kernel")
    np.testing.assert_array_equal(est.predict(Xt), pred)
    # path validates like fit but leaves the estimator alone
    fresh = KernelRidge(kernel="rbf")
    fresh.path(X, y, [0.1, 1.0])
    assert vars(fresh) == vars(KernelRidge(kernel="rbf"))


def test_float32_precomputed_gram_is_checked_at_float32_rounding():
    X, y, _ = _data(n=25)
    K32 = (X @ X.T).astype(np.float32) + np.eye(25, dtype=np.float32)
    K32[0, 1] = np.nextafter(K32[0, 1], np.float32(np.inf))  # asymmetric by one float32 ulp
    est = KernelRidge(alpha=0.5, kernel="precomputed").fit(K32, y)
    Ks = (K32.astype(float) + K32.astype(float).T) / 2
    np.testing.assert_allclose(est.dual_coef_, np.linalg.solve(Ks + 0.5 * np.eye(25), y), rtol=1e-10)
    np.testing.assert_allclose(est.loo_residuals(), KernelRidge(alpha=0.5, kernel="precomputed")
                               .fit(Ks, y).loo_residuals(), rtol=1e-10)
    with pytest.raises(ValueError, match="symmetric"):    # the same asymmetry in float64 is refused
        KernelRidge(alpha=0.5, kernel="precomputed").fit(K32.astype(float), y)
