"""KernelRidge certifies its fitted values (issue 27): ``fit_error_bound_`` bounds the
relative error of ``K dual_coef_`` against a 60-digit solve, and a fit whose bound exceeds
``FIT_ERROR_RTOL`` warns."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

from ktheory.ridge import FIT_ERROR_RTOL, IllConditionedWarning, KernelRidge


def _exact_fitted(K: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """``K (K + alpha I)^{-1} y`` in 60-digit arithmetic (K taken as exact)."""
    with mpmath.workdps(60):
        n = len(y)
        A = mpmath.matrix(K.tolist())
        for i in range(n):
            A[i, i] += mpmath.mpf(alpha)
        c = mpmath.lu_solve(A, mpmath.matrix(y.tolist()))
        f = mpmath.matrix(K.tolist()) * c
        return np.array([float(v) for v in f])


def _problem(kernel: str, n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, d))
    y = X @ r.standard_normal(d) + 0.1 * r.standard_normal(n)
    return X, y


CASES = [("linear", 20, 3, 1e-13), ("linear", 20, 3, 1e-8), ("linear", 30, 2, 1e-3),
         ("rbf", 40, 2, 1e-12), ("rbf", 40, 2, 1e-8), ("rbf", 40, 2, 1.0),
         ("laplacian", 30, 3, 1e-10), ("poly", 25, 2, 1e-9)]


@pytest.mark.parametrize("kernel,n,d,alpha", CASES + [("rbf", 30, 2, 1e6)])
@pytest.mark.parametrize("seed", [0, 1])
def test_bound_covers_the_error_of_the_fitted_values(kernel, n, d, alpha, seed):
    """||K a - K a*|| / ||K a|| <= fit_error_bound_, for a* the exact solution of the
    system with this K (the Gram matrix the fit built), well- and ill-conditioned alike."""
    X, y = _problem(kernel, n, d, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllConditionedWarning)
        m = KernelRidge(alpha=alpha, kernel=kernel, gamma=0.5).fit(X, y)
    K = m._kernel(X, None, "X")
    fitted = K @ m.dual_coef_
    exact = _exact_fitted(K, y, alpha)
    err = np.linalg.norm(fitted - exact) / max(np.linalg.norm(fitted), np.linalg.norm(y))
    assert err <= m.fit_error_bound_
    assert 0.0 <= m.backward_error_ < 1e-14
    assert np.isfinite(m.condition_number_) and m.condition_number_ >= 1.0


def test_issue_example_warns():
    """The issue's case: linear kernel, alpha = 1e-13, n = 20, d = 3 is off by about 1e-2
    against a 60-digit reference; fit now says so."""
    X, y = _problem("linear", 20, 3, 0)
    with pytest.warns(IllConditionedWarning, match="certified only to"):
        m = KernelRidge(alpha=1e-13, kernel="linear").fit(X, y)
    assert m.fit_error_bound_ > FIT_ERROR_RTOL
    assert m.condition_number_ > 1e13


def test_well_conditioned_fit_is_certified_quietly():
    X, y = _problem("rbf", 200, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedWarning)
        m = KernelRidge(alpha=1e-2, kernel="rbf", gamma=0.5).fit(X, y)
    assert m.fit_error_bound_ < 1e-10


def test_condition_estimate_is_close_to_the_true_condition_number():
    """LAPACK's estimate is within a factor n of kappa_1 computed from the inverse."""
    X, y = _problem("rbf", 50, 2, 3)
    alpha = 1e-6
    m = KernelRidge(alpha=alpha, kernel="rbf", gamma=0.5).fit(X, y)
    A = m._kernel(X, None, "X") + alpha * np.eye(50)
    true = np.linalg.norm(A, 1) * np.linalg.norm(np.linalg.inv(A), 1)
    assert true / 50 <= m.condition_number_ <= true * 1.0000001


def test_least_squares_routes_are_not_certified():
    X, y = _problem("linear", 10, 2, 4)
    with pytest.warns(UserWarning, match="least squares"):
        m = KernelRidge(alpha=0.0, kernel="linear").fit(X, y)
    assert np.isnan(m.fit_error_bound_) and np.isnan(m.backward_error_)
    assert m.condition_number_ == np.inf


def test_multi_target_certificate():
    X, y = _problem("rbf", 30, 2, 5)
    Y = np.c_[y, 2 * y + 1]
    m = KernelRidge(alpha=1e-9, kernel="rbf", gamma=0.5).fit(X, Y)
    K = m._kernel(X, None, "X")
    fitted = K @ m.dual_coef_
    exact = np.c_[_exact_fitted(K, Y[:, 0], 1e-9), _exact_fitted(K, Y[:, 1], 1e-9)]
    scale = max(np.linalg.norm(fitted), np.linalg.norm(Y))
    assert np.linalg.norm(fitted - exact) / scale <= m.fit_error_bound_


# ---------------------------------------------------------------------------
# one vocabulary: KernelRidge's gamma takes SVC's names too
# ---------------------------------------------------------------------------


def test_gamma_names_as_in_svc():
    """``gamma="scale"`` is ``1 / (d X.var())`` and follows the units (X -> s X gives the
    same predictions); ``None`` is scikit-learn's ``1 / n_features``, equal to ``"auto"``."""
    from sklearn.kernel_ridge import KernelRidge as SkKR

    X, y = _problem("rbf", 60, 3, 8)
    X = X * [1.0, 5.0, 0.2]
    a = KernelRidge(alpha=0.1, kernel="rbf", gamma="scale").fit(X, y)
    assert a.gamma_ == pytest.approx(1 / (3 * X.var()), rel=1e-12)
    b = KernelRidge(alpha=0.1, kernel="rbf", gamma="scale").fit(1e4 * X, y)
    np.testing.assert_allclose(b.predict(1e4 * X[:7]), a.predict(X[:7]), rtol=1e-9, atol=1e-12)
    none = KernelRidge(alpha=0.1, kernel="rbf").fit(X, y)
    auto = KernelRidge(alpha=0.1, kernel="rbf", gamma="auto").fit(X, y)
    sk = SkKR(alpha=0.1, kernel="rbf").fit(X, y)
    assert none.gamma_ == auto.gamma_ == pytest.approx(1 / 3, rel=1e-15)
    np.testing.assert_allclose(none.predict(X), sk.predict(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(auto.predict(X), sk.predict(X), rtol=1e-9, atol=1e-12)
    assert np.isnan(KernelRidge(kernel="linear").fit(X, y).gamma_)
    with pytest.raises(ValueError, match="gamma must be 'scale', 'auto'"):
        KernelRidge(kernel="rbf", gamma="wide").fit(X, y)


def test_gamma_scale_in_path_and_loo():
    """``path`` and ``loo_residuals`` use the resolved gamma of the fit."""
    X, y = _problem("rbf", 40, 2, 9)
    m = KernelRidge(alpha=0.3, kernel="rbf", gamma="scale").fit(X, y)
    ref = KernelRidge(alpha=0.3, kernel="rbf", gamma=m.gamma_).fit(X, y)
    np.testing.assert_allclose(m.loo_residuals(), ref.loo_residuals(), rtol=1e-12)
    p = KernelRidge(kernel="rbf", gamma="scale").path(X, y, [0.3])
    np.testing.assert_allclose(p.dual_coef[0], ref.dual_coef_, rtol=1e-8, atol=1e-12)
