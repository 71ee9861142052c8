"""Regression tests for ktheory.svm under hostile input (issue "ktheory under hostile input").

One test (or a few) per defect that was seen: pickling, a model with no support
vectors, overflowing Gram matrices, gamma="scale" at extreme scales, no hard
iteration cap, scikit-learn's defaults and exception classes, the kind of message
for 2-D / continuous / sparse / complex targets and inputs, float32 Gram
matrices, the exact solver's up-front size refusal, and ``import ktheory.svm``
without sympy. Oracles: scikit-learn's SVC on the same data, invariances of the
problem (rescaling), and the definitions.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.exceptions import DataConversionWarning as SkDataConversionWarning
from sklearn.exceptions import NotFittedError as SkNotFittedError
from sklearn.svm import SVC as SkSVC

from ktheory.svm import SVC, ConvergenceWarning, NotFittedError, hard_margin_dual_exact, smo_solve
from ktheory.svm._core import check_max_iter


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.4, 1, 0)
    return X, y


def _clear(f, tol, k=20):
    """Points whose decision value is clear of the solver tolerance (labels unique there)."""
    return np.abs(f) > k * tol


# --- pickling ------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid", "linear"])
def test_fitted_svc_with_any_named_kernel_pickles(kernel):
    X, y = _data()
    est = SVC(kernel=kernel, gamma=0.3, coef0=0.5, degree=2).fit(X, y)
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    # the stored kernel is (name, parameters): nothing callable inside the model
    assert not any(callable(v) for v in vars(loaded).values())


def test_kernel_resolved_through_the_public_kernel_functions(monkeypatch):
    import ktheory.kernels as km

    X, y = _data()
    est = SVC(kernel="poly", degree=2, gamma=0.5, coef0=1.0).fit(X, y)
    calls = []
    real = km.polynomial_kernel

    def spy(*a, **k):
        calls.append(k)
        return real(*a, **k)

    monkeypatch.setattr(km, "polynomial_kernel", spy)
    est.decision_function(X[:5])
    assert calls == [{"degree": 2, "gamma": 0.5, "coef0": 1.0}]


# --- a model with no support vectors ------------------------------------------------


def test_no_support_vectors_predicts_the_intercept():
    X, y = _data()
    est = SVC(tol=3.0).fit(X, y)  # the initial maximal violation is 2 < tol: no step
    assert est.support_.size == 0 and est.dual_coef_.shape == (1, 0)
    f = est.decision_function(X)
    np.testing.assert_array_equal(f, np.full(X.shape[0], est.intercept_[0]))
    sk = SkSVC(tol=3.0).fit(X, y)
    assert sk.support_.size == 0
    np.testing.assert_allclose(est.intercept_, sk.intercept_, atol=1e-12)
    np.testing.assert_array_equal(est.predict(X), sk.predict(X))


# --- overflow: a clear error, never a "converged" fit -----------------------------------


@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid"])
def test_gamma_scale_on_overflowing_data_says_so(kernel):
    X, y = _data()
    for s in (1e200, 1e-200):
        with pytest.raises(ValueError, match=r"gamma='scale' .* not representable in float64"):
            SVC(kernel=kernel).fit(X * s, y)


def test_rbf_at_1e200_is_solved_or_refused_never_nan():
    # the fused Gram path overflows (its exponents are NaN); the fit then uses
    # ktheory.kernels.rbf_kernel, whose Gram matrix of far-apart points is the identity
    X, y = _data()
    try:
        est = SVC(kernel="rbf", gamma=1.0).fit(X * 1e200, y)
    except ValueError as exc:
        assert "overflow" in str(exc)
        return
    ref = SVC(kernel="precomputed").fit(np.eye(X.shape[0]), y)
    np.testing.assert_allclose(est.objective_, ref.objective_, rtol=1e-12)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-12)
    # new points far from every training point: k = 0, f = b
    far = (X[:7] + 3.0) * 1e200
    np.testing.assert_allclose(est.decision_function(far), ref.intercept_[0], atol=1e-12)


def test_linear_kernel_needs_no_gamma_and_reports_overflow():
    X, y = _data()
    est = SVC(kernel="linear").fit(X * 1e-200, y)  # gamma='scale' would not be representable
    assert est._gamma_ is None
    # (the message is ktheory.kernels.linear_kernel's or SVC's own check of the Gram matrix)
    with pytest.raises(ValueError, match="overflow") as exc:
        SVC(kernel="linear").fit(X * 1e200, y)
    assert "gamma must" not in str(exc.value)


def test_overflow_at_predict_time_is_a_value_error():
    X, y = _data()
    est = SVC(kernel="poly", gamma=1.0, degree=3).fit(X, y)
    with pytest.raises(ValueError, match="overflow"):
        est.decision_function(X * 1e120)


def test_extreme_but_representable_scale_is_solved_correctly():
    # rescaling X by s and gamma by 1/s^2 leaves the rbf problem unchanged
    # (at tol=1e-8: at a loose tol the rounding of the scaled kernel values can take
    # the iteration down another path to another 1e-3-optimal point, 1e-7 away)
    X, y = _data()
    ref = SVC(gamma=0.5, tol=1e-8).fit(X, y)
    for s in (1e100, 1e-100):
        big = SVC(gamma=0.5 / s**2, tol=1e-8).fit(X * s, y)
        np.testing.assert_allclose(big.objective_, ref.objective_, rtol=1e-9)
        np.testing.assert_allclose(big.decision_function(X * s), ref.decision_function(X), atol=1e-8)
    # and gamma='scale' is computed without overflow beyond the direct X.var() (|X| > 1e150)
    g = SVC()._gamma_value(X)
    np.testing.assert_allclose(SVC()._gamma_value(X * 1e152), g * 1e-304, rtol=1e-12)
    np.testing.assert_allclose(SVC()._gamma_value(X * 1e-152), g * 1e304, rtol=1e-12)


def test_gamma_scale_equals_sklearn_bit_for_bit():
    X, y = _data()
    assert SVC().fit(X, y)._gamma_ == SkSVC().fit(X, y)._gamma


def test_smo_never_converges_on_nan():
    K = np.eye(4)
    K[0, 1] = K[1, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        smo_solve(K, [1.0, -1.0, 1.0, -1.0], check_input=False)


# --- iteration cap -----------------------------------------------------------------------


def test_no_hard_iteration_cap_by_default():
    assert check_max_iter(-1) >= 2**62  # -1: no limit, as scikit-learn's libsvm
    assert SVC().max_iter == -1 and SkSVC().max_iter == -1
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        SVC(kernel="linear", C=100.0).fit(X, y)


def test_user_cap_warns():
    X, y = _data()
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        est = SVC(max_iter=3).fit(X, y)
    assert est.n_iter_.tolist() == [3] and est.gap_ >= est.tol


# --- scikit-learn conventions ---------------------------------------------------------------


def test_defaults_are_sklearns():
    ours, theirs = SVC().get_params(), SkSVC().get_params()
    shared = set(ours) & set(theirs)
    assert shared == {"C", "kernel", "degree", "gamma", "coef0", "shrinking", "tol",
                      "cache_size", "class_weight", "verbose", "max_iter",
                      "decision_function_shape", "break_ties", "probability", "random_state"}
    # scikit-learn 1.9 deprecates probability (default "deprecated", meaning False)
    same = shared - {"probability"}
    assert {k: ours[k] for k in same} == {k: theirs[k] for k in same}
    assert ours["probability"] is False and theirs["probability"] in (False, "deprecated")
    assert "default" in SVC.__doc__ and "sklearn.svm.SVC" in SVC.__doc__


def test_unfitted_error_is_sklearns_kind():
    for method in ("predict", "decision_function", "score"):
        with pytest.raises(NotFittedError) as exc:
            args = (np.ones((2, 2)),) if method != "score" else (np.ones((2, 2)), [0, 1])
            getattr(SVC(), method)(*args)
        assert isinstance(exc.value, (SkNotFittedError, ValueError, AttributeError))
        assert isinstance(exc.value, SkNotFittedError)


def test_import_ktheory_svm_does_not_import_sympy_or_numba():
    code = ("import ktheory.svm, sys; assert 'sympy' not in sys.modules\n"
            "assert 'numba' not in sys.modules  # the compiled solver loads at its first use\n"
            "from ktheory.svm import SVC; assert 'sympy' not in sys.modules\n"
            "from ktheory.svm import to_exact; assert 'sympy' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the kind of message -------------------------------------------------------------------


def test_2d_y():
    X, y = _data()
    with pytest.raises(ValueError, match=r"y should be a 1d array, got an array of shape \(60, 2\)"):
        SVC().fit(X, np.c_[y, y])
    with pytest.warns(SkDataConversionWarning, match="column-vector y"):
        col = SVC().fit(X, y[:, None])
    np.testing.assert_array_equal(col.decision_function(X), SVC().fit(X, y).decision_function(X))


def test_continuous_target():
    X, _ = _data()
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        SVC().fit(X, np.linspace(0, 1, X.shape[0]))
    # whole-number floats are class labels
    SVC().fit(X, np.r_[np.zeros(30), np.ones(30)])


def test_one_class_and_sparse_and_complex():
    X, y = _data()
    with pytest.raises(ValueError, match="single class"):
        SVC().fit(X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="n_samples=1"):
        SVC().fit(X[:1], y[:1])
    fitted = SVC().fit(X, y)
    # sparse X (issue 34): densified, the same fit as the dense array; the support vectors
    # are kept as CSR, as scikit-learn's
    for fmt in (scipy.sparse.csr_matrix, scipy.sparse.csr_array, scipy.sparse.csc_matrix,
                scipy.sparse.lil_matrix):
        sparse_fit = SVC().fit(fmt(X), y)
        assert scipy.sparse.issparse(sparse_fit.support_vectors_)
        np.testing.assert_allclose(sparse_fit.decision_function(fmt(X)),
                                   fitted.decision_function(X), atol=1e-12)
        np.testing.assert_allclose(sparse_fit.decision_function(X),
                                   fitted.decision_function(X), atol=1e-12)
    # a model fitted on dense data refuses sparse input, as scikit-learn's
    with pytest.raises(ValueError, match="cannot use sparse input in SVC trained on dense"):
        fitted.predict(scipy.sparse.csr_matrix(X))
    with pytest.raises(TypeError, match="Sparse precomputed kernels are not supported"):
        SVC(kernel="precomputed").fit(scipy.sparse.csr_matrix(X @ X.T), y)
    with pytest.raises(ValueError, match="densified .* more than gram_limit_mb"):
        SVC(gram_limit_mb=1e-6).fit(scipy.sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="contains NaN"):
        SVC().fit(scipy.sparse.csr_matrix(np.where(X > 1, np.nan, X)), y)
    with pytest.raises(TypeError, match="Complex data not supported"):
        SVC().fit(X + 1j, y)
    with pytest.raises(ValueError, match="Complex data not supported"):  # also a ValueError (sklearn)
        fitted.predict(X + 0j)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        SVC().fit(X, np.arange(X.shape[0]) / 7)


def test_float32_gram_with_rounding_level_asymmetry():
    X, y = _data()
    K64 = X @ X.T
    rng = np.random.default_rng(1)
    K32 = (K64 + 2e-7 * np.abs(K64).max() * rng.standard_normal(K64.shape)).astype(np.float32)
    assert not np.array_equal(K32, K32.T)
    est = SVC(kernel="precomputed").fit(K32, y)
    ref = SVC(kernel="precomputed").fit(K64, y)
    f, fr = est.decision_function(K64), ref.decision_function(K64)
    assert np.max(np.abs(f - fr)) < 0.05
    # a float64 matrix with the same asymmetry is still refused, and so is a float32 one far off
    with pytest.raises(ValueError, match="symmetric"):
        SVC(kernel="precomputed").fit(K32.astype(np.float64), y)
    bad = K32.copy()
    bad[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        SVC(kernel="precomputed").fit(bad, y)
    # smo_solve follows the dtype too
    yy = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(smo_solve(K32, yy).objective, smo_solve(K64, yy).objective, rtol=1e-3)


# --- the exact solver refuses hours of enumeration up front ------------------------------------


def test_exact_solver_refuses_large_n_before_converting():
    class Huge:
        shape = (10**6, 3)

        def __array__(self, *a, **k):  # pragma: no cover - must not be reached
            raise AssertionError("converted before refusing")

    with pytest.raises(ValueError, match=r"1000000 samples.*max_samples=16"):
        hard_margin_dual_exact(Huge(), [0, 1] * 500000)


def test_exact_solver_refuses_too_many_candidate_supports():
    import ktheory.svm._exact as ex

    rng = np.random.default_rng(0)
    X = rng.integers(-9, 10, size=(20, 20)).tolist()  # full rank: 2^20 candidates
    y = [i % 2 for i in range(20)]
    with pytest.raises(ValueError, match=r"1,048,555 candidate support sets for n=20.*MAX_SUPPORTS=131,072"):
        hard_margin_dual_exact(X, y, kernel="linear", max_samples=20)
    assert ex.MAX_SUPPORTS == 2**17
    # low rank admits more samples: 30 points on a line in 2-D (rank 2: supports of <= 3 points)
    Xl = [[i, 0] for i in range(30)]
    yl = [0] * 15 + [1] * 15
    sol = hard_margin_dual_exact(Xl, yl, kernel="linear", max_samples=30)
    assert sol.support == (14, 15) and sol.margin == sp_half()


def sp_half():
    import sympy as sp

    return sp.Rational(1, 2)


def test_exact_solver_non_separable_16_points_finishes():
    # before: every singular support was solved exactly (about 10 minutes at n = 16)
    rng = np.random.default_rng(0)
    X = rng.integers(-5, 6, size=(16, 2)).tolist()
    y = [i % 2 for i in range(16)]
    with pytest.raises(ValueError, match="not separable"):
        hard_margin_dual_exact(X, y)
    Xd = [[i // 2, 0] for i in range(16)]  # duplicated points with opposite labels
    with pytest.raises(ValueError, match="not separable"):
        hard_margin_dual_exact(Xd, y, kernel="rbf", gamma=1)
