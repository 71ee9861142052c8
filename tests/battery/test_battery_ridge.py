"""Bad-input battery for ktheory.ridge: every public callable x every input category.

Oracles for the "ok" cases: scikit-learn's KernelRidge on the same data, numpy.linalg.solve
of (K + alpha I) a = y, brute-force leave-one-out refits.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKR
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from battery._common import Case, run_case
from ktheory.ridge import KernelRidge, LeastSquaresWarning, kernel_ridge_path

M = "ktheory.ridge."
FIT, PRED, SCORE, LOO, PATH, FPATH = (
    M + "KernelRidge.fit",
    M + "KernelRidge.predict",
    M + "KernelRidge.score",
    M + "KernelRidge.loo_residuals",
    M + "KernelRidge.path",
    M + "kernel_ridge_path",
)
PUBLIC = [FIT, PRED, SCORE, LOO, PATH, FPATH]
EXEMPT = {M + "RidgePath": "a frozen result container returned by the path functions; users never build one"}

RNG = np.random.default_rng(0)
X = RNG.standard_normal((12, 3))
Y = RNG.standard_normal(12)
XT = RNG.standard_normal((4, 3))
K = X @ X.T + np.eye(12)
ALPHAS = [0.1, 1.0]


def est(**kw):
    kw.setdefault("alpha", 0.5)
    kw.setdefault("kernel", "rbf")
    kw.setdefault("gamma", 0.3)
    return KernelRidge(**kw)


def fitted(**kw):
    return est(**kw).fit(X, Y)


def same_as_sklearn(Xfit, y, Xtest, **kw):
    kw.setdefault("alpha", 0.5)
    kw.setdefault("kernel", "rbf")
    kw.setdefault("gamma", 0.3)

    def check(result):
        ref = SkKR(**kw).fit(np.asarray(Xfit, dtype=float), np.asarray(y, dtype=float))
        if isinstance(result, KernelRidge):
            got = result.predict(np.asarray(Xtest, dtype=float))
        else:
            got = result
        np.testing.assert_allclose(got, ref.predict(np.asarray(Xtest, dtype=float)), rtol=1e-6, atol=1e-8)

    return check


def solve_check(Kmat, y, alphas):
    def check(p):
        for k, a in enumerate(alphas):
            np.testing.assert_allclose(p.dual_coef[k], np.linalg.solve(Kmat + a * np.eye(len(Kmat)), y),
                                       rtol=1e-6, atol=1e-8)

    return check


def loo_brute(Xfit, y, **kw):
    def check(r):
        brute = [y[i] - est(**kw).fit(np.delete(Xfit, i, 0), np.delete(y, i)).predict(Xfit[i:i + 1])[0]
                 for i in range(len(y))]
        np.testing.assert_allclose(r, brute, rtol=1e-7, atol=1e-9)

    return check


def finite(result):
    arr = result.dual_coef if hasattr(result, "dual_coef") else np.asarray(result)
    assert np.all(np.isfinite(arr))


CPLX = X.astype(complex) + 1j
OBJ = X.astype(object)
OBJ[0, 0] = "a"
NAN = X.copy()
NAN[2, 1] = np.nan
INF = X.copy()
INF[0, 0] = np.inf
NONSYM = K + np.triu(np.ones_like(K), 1)
NONPSD = K - 20 * np.eye(12)
XB = RNG.random((12, 3)) > 0.5

CASES = [
    # ------------------------------------------------------------------ fit
    Case(FIT, "shape", lambda: est().fit(X, Y[:-1]), "ValueError", match="same number of samples"),
    Case(FIT, "shape", lambda: est().fit(X[:, 0], Y), "ValueError", match="2-D array for X", note="1-D X"),
    Case(FIT, "shape", lambda: est(kernel="precomputed").fit(X, Y), "ValueError", match="square"),
    Case(FIT, "dtype-complex", lambda: est().fit(CPLX, Y), "ValueError", match="Complex data not supported: X"),
    Case(FIT, "dtype-bool", lambda: est().fit(XB, Y), "ok", check=same_as_sklearn(XB, Y, XT), note="bool as 0/1"),
    Case(FIT, "dtype-object", lambda: est().fit(OBJ, Y), "TypeError", match="X must hold numbers"),
    Case(FIT, "dtype-float32", lambda: est().fit(X.astype(np.float32), Y), "ok",
         check=same_as_sklearn(X.astype(np.float32), Y, XT)),
    Case(FIT, "nan-inf", lambda: est().fit(NAN, Y), "ValueError", match="X contains NaN"),
    Case(FIT, "nan-inf", lambda: est().fit(X, np.r_[Y[:-1], np.inf]), "ValueError", match="y contains NaN"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((0, 3)), np.zeros(0)), "ValueError", match="0 sample"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((12, 0)), Y), "ValueError", match="0 feature"),
    Case(FIT, "one-sample", lambda: est().fit(X[:1], Y[:1]), "ok", check=same_as_sklearn(X[:1], Y[:1], XT)),
    Case(FIT, "one-class", lambda: est().fit(X, np.full(12, 3.0)), "ok",
         check=same_as_sklearn(X, np.full(12, 3.0), XT), note="constant target"),
    Case(FIT, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e200, Y), "ValueError", match="overflow"),
    Case(FIT, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e-200, Y), "ok",
         check=lambda r: np.testing.assert_allclose(r.dual_coef_, Y / 0.5, rtol=1e-12), note="tiny X: K=0, a=y/alpha"),
    Case(FIT, "extreme-scale", lambda: est(gamma=1e-200).fit(X, Y), "ok",
         check=same_as_sklearn(X, Y, XT, gamma=1e-200), note="gamma 1e-200"),
    Case(FIT, "non-symmetric", lambda: est(kernel="precomputed").fit(NONSYM, Y), "ValueError", match="symmetric"),
    Case(FIT, "non-psd", lambda: est(kernel="precomputed", alpha=0.1).fit(NONPSD, Y), "ValueError",
         match="not positive semidefinite"),
    Case(FIT, "non-psd", lambda: est(kernel="precomputed", alpha=100.0).fit(NONPSD, Y), "ValueError",
         match="not positive semidefinite", note="K + alpha I is PD, K is not: refused as by path"),
    Case(FIT, "non-psd", lambda: est(kernel="precomputed", alpha=0.0).fit(NONPSD, Y), "ValueError",
         match="not positive semidefinite", note="alpha = 0: no least-squares fallback for a non-PSD K"),
    Case(FIT, "param-type", lambda: est(alpha="1").fit(X, Y), "TypeError", match="alpha"),
    Case(FIT, "param-type", lambda: est(degree=2.5, kernel="poly").fit(X, Y), "ValueError", match="degree"),
    Case(FIT, "param-type", lambda: est(kernel_params=[1]).fit(X, Y), "TypeError", match="kernel_params"),
    Case(FIT, "param-range", lambda: est(alpha=-1.0).fit(X, Y), "ValueError", match="alpha"),
    Case(FIT, "param-range", lambda: est(gamma=0.0).fit(X, Y), "ValueError", match="gamma"),
    Case(FIT, "param-range", lambda: est(kernel="cosine").fit(X, Y), "ValueError", match="kernel must be one of"),
    Case(FIT, "param-range", lambda: est(alpha=0.0).fit(X, Y), "ok", warns=LeastSquaresWarning,
         check=lambda r: np.testing.assert_allclose(r.predict(X), Y, atol=1e-8), note="alpha=0 interpolates"),
    Case(FIT, "huge-size", lambda: est().fit(np.zeros((200_000, 1)), np.zeros(200_000)), "ValueError",
         match="gram_limit_mb"),
    # ------------------------------------------------------------------ predict
    Case(PRED, "shape", lambda: fitted().predict(XT[:, :2]), "ValueError", match="X has 2 features"),
    Case(PRED, "shape", lambda: fitted().predict(XT[0]), "ValueError", match="Reshape your data"),
    Case(PRED, "dtype-complex", lambda: fitted().predict(XT + 1j), "ValueError", match="Complex data not supported: X"),
    Case(PRED, "dtype-bool", lambda: fitted().predict(XT > 0), "ok",
         check=same_as_sklearn(X, Y, (XT > 0).astype(float))),
    Case(PRED, "dtype-object", lambda: fitted().predict(np.array([["a", "b", "c"]], dtype=object)), "TypeError",
         match="X must hold numbers"),
    Case(PRED, "dtype-float32", lambda: fitted().predict(XT.astype(np.float32)), "ok", check=same_as_sklearn(X, Y, XT)),
    Case(PRED, "nan-inf", lambda: fitted().predict(np.where(XT > 1, np.nan, XT)), "ValueError", match="X contains NaN"),
    Case(PRED, "empty", lambda: fitted().predict(np.zeros((0, 3))), "ValueError", match="0 sample"),
    Case(PRED, "one-sample", lambda: fitted().predict(XT[:1]), "ok", check=same_as_sklearn(X, Y, XT[:1])),
    Case(PRED, "one-class", lambda: est().fit(X, np.full(12, -2.0)).predict(XT), "ok",
         check=same_as_sklearn(X, np.full(12, -2.0), XT), note="constant target"),
    Case(PRED, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e5, Y).predict(XT * 1e305), "ValueError",
         match="overflow"),
    Case(PRED, "extreme-scale", lambda: fitted().predict(XT * 1e200), "ok",
         check=lambda r: np.testing.assert_allclose(r, 0.0, atol=1e-300), note="far away: f=0"),
    Case(PRED, "non-symmetric", lambda: est(kernel="precomputed").fit(K, Y).predict((X @ X.T)[:3] + np.arange(12)),
         "ok", check=lambda r: np.testing.assert_allclose(
             r, ((X @ X.T)[:3] + np.arange(12)) @ np.linalg.solve(K + 0.5 * np.eye(12), Y), rtol=1e-10),
         note="test block is rectangular, no symmetry"),
    Case(PRED, "param-type", lambda: est(kernel="precomputed").fit(K, Y).predict(XT), "ValueError",
         match="X has 3 features, but KernelRidge is expecting 12"),
    Case(PRED, "param-range", lambda: KernelRidge().predict(XT), "ValueError", match="not fitted"),
    # ------------------------------------------------------------------ score
    Case(SCORE, "shape", lambda: fitted().score(XT, Y[:3]), "ValueError", match="y must have shape"),
    Case(SCORE, "shape", lambda: est(kernel="linear").fit(X, np.c_[Y, 2 * Y, -Y]).score(
        XT, np.c_[Y[:4], 2 * Y[:4], -Y[:4]].T), "ValueError", match=r"y must have shape \(4, 3\)",
         note="issue 29: a transposed 3-target y (12 elements, like the predictions) was reshaped"),
    Case(SCORE, "shape", lambda: est(kernel="linear").fit(X, np.c_[Y, 2 * Y, -Y]).score(
        XT, np.c_[Y[:4], 2 * Y[:4], -Y[:4]].T.ravel()), "ValueError", match="y must have shape",
         note="issue 29: a flattened 3-target y"),
    Case(SCORE, "shape", lambda: fitted().score(XT, Y[:4, None]), "ok",
         check=lambda r: np.testing.assert_allclose(r, fitted().score(XT, Y[:4]), rtol=1e-15),
         note="one target as a column is the same target"),
    Case(SCORE, "dtype-complex", lambda: fitted().score(XT, np.ones(4) + 1j), "ValueError",
         match="Complex data not supported: y"),
    Case(SCORE, "dtype-bool", lambda: fitted().score(XT, np.array([True, False, True, True])), "ok",
         check=lambda r: np.testing.assert_allclose(
             r, SkKR(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, Y).score(XT, [1.0, 0.0, 1.0, 1.0]), atol=1e-10)),
    Case(SCORE, "dtype-object", lambda: fitted().score(XT, np.array(["a"] * 4, dtype=object)), "TypeError",
         match="y must be a numeric array"),
    Case(SCORE, "dtype-float32", lambda: fitted().score(XT.astype(np.float32), Y[:4].astype(np.float32)), "ok",
         check=lambda r: np.testing.assert_allclose(
             r, SkKR(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, Y).score(XT, Y[:4]), atol=1e-6)),
    Case(SCORE, "nan-inf", lambda: fitted().score(XT, np.r_[Y[:3], np.nan]), "ValueError", match="y contains NaN"),
    Case(SCORE, "empty", lambda: fitted().score(np.zeros((0, 3)), np.zeros(0)), "ValueError", match="0 sample"),
    Case(SCORE, "one-sample", lambda: fitted().score(XT[:1], Y[:1]), "ok",
         check=lambda r: np.testing.assert_allclose(r, 0.0 if fitted().predict(XT[:1])[0] != Y[0] else 1.0),
         note="R2 of one sample: 0 unless exact"),
    Case(SCORE, "one-class", lambda: fitted().score(XT, np.full(4, 1.5)), "ok",
         check=lambda r: np.testing.assert_allclose(r, 0.0), note="constant y_true: R2 = 0 (sklearn)"),
    Case(SCORE, "extreme-scale", lambda: fitted().score(XT, Y[:4] * 1e200), "ok",
         check=lambda r: np.testing.assert_allclose(r, 1 - np.sum((Y[:4] - fitted().predict(XT) * 1e-200) ** 2)
                                                    / np.sum((Y[:4] - Y[:4].mean()) ** 2), rtol=1e-10),
         note="y near 1e200: R2 computed without overflow"),
    Case(SCORE, "param-range", lambda: KernelRidge().score(XT, Y[:4]), "ValueError", match="not fitted"),
    # ------------------------------------------------------------------ loo_residuals
    Case(LOO, "dtype-bool", lambda: est().fit(XB, Y).loo_residuals(), "ok", check=loo_brute(XB.astype(float), Y)),
    Case(LOO, "dtype-float32", lambda: est().fit(X.astype(np.float32), Y).loo_residuals(), "ok",
         check=loo_brute(X.astype(np.float32).astype(float), Y)),
    Case(LOO, "one-sample", lambda: est().fit(X[:1], Y[:1]).loo_residuals(), "ok",
         check=lambda r: np.testing.assert_allclose(r, Y[:1], rtol=1e-12), note="no other sample: predicts 0"),
    Case(LOO, "one-class", lambda: est().fit(X, np.ones(12)).loo_residuals(), "ok", check=loo_brute(X, np.ones(12))),
    Case(LOO, "extreme-scale", lambda: est(gamma=1e200).fit(X, Y).loo_residuals(), "ok",
         check=lambda r: np.testing.assert_allclose(r, Y, rtol=1e-12), note="K=I: LOO predicts 0"),
    Case(LOO, "param-range", lambda: KernelRidge().loo_residuals(), "ValueError", match="not fitted"),
    Case(LOO, "param-range", lambda: est(alpha=0.0).set_params(alpha=0.0).fit(X, Y).loo_residuals(), "ValueError",
         match="alpha > 0", note="alpha=0"),
    Case(LOO, "param-type", lambda: fitted().set_params(alpha="x", gamma=[1]).loo_residuals(), "ok",
         check=lambda r: np.testing.assert_array_equal(r, fitted().loo_residuals()),
         note="parameters set after the fit are not used: residuals of the fit (checked at the next fit)"),
    Case(LOO, "param-type", lambda: fitted().set_params(alpha="x").fit(X, Y), "TypeError", match="alpha",
         note="the bad alpha is refused when it is used"),
    # ------------------------------------------------------------------ KernelRidge.path
    Case(PATH, "shape", lambda: est().path(X, Y[:5], ALPHAS), "ValueError", match="same number of samples"),
    Case(PATH, "shape", lambda: est().path(X, Y, [[0.1]]), "ValueError", match="alphas must be a 1-D"),
    Case(PATH, "dtype-complex", lambda: est().path(CPLX, Y, ALPHAS), "ValueError", match="Complex data not supported"),
    Case(PATH, "dtype-bool", lambda: est().path(XB, Y, ALPHAS), "ok",
         check=solve_check(sk_rbf(gamma=0.3, X=XB.astype(float)), Y, ALPHAS)),
    Case(PATH, "dtype-object", lambda: est().path(OBJ, Y, ALPHAS), "TypeError", match="X must hold numbers"),
    Case(PATH, "dtype-float32", lambda: est().path(X.astype(np.float32), Y, np.float32(ALPHAS)), "ok",
         check=solve_check(sk_rbf(gamma=0.3, X=X.astype(np.float32).astype(float)), Y, ALPHAS)),
    Case(PATH, "nan-inf", lambda: est().path(X, Y, [0.1, np.nan]), "ValueError", match="alphas contains NaN"),
    Case(PATH, "empty", lambda: est().path(X, Y, []), "ValueError", match="alphas is empty"),
    Case(PATH, "one-sample", lambda: est().path(X[:1], Y[:1], ALPHAS), "ok",
         check=solve_check(np.ones((1, 1)), Y[:1], ALPHAS)),
    Case(PATH, "one-class", lambda: est().path(X, np.ones(12), ALPHAS), "ok",
         check=solve_check(sk_rbf(gamma=0.3, X=X), np.ones(12), ALPHAS)),
    Case(PATH, "extreme-scale", lambda: est().path(X, Y, [1e-200, 1e200]), "ok", check=finite, note="extreme alphas"),
    Case(PATH, "non-symmetric", lambda: est(kernel="precomputed").path(NONSYM, Y, ALPHAS), "ValueError",
         match="symmetric"),
    Case(PATH, "non-psd", lambda: est(kernel="precomputed").path(NONPSD, Y, ALPHAS), "ValueError",
         match="not positive semidefinite"),
    Case(PATH, "param-type", lambda: est().path(X, Y, ["a"]), "TypeError", match="alphas must be a numeric"),
    Case(PATH, "param-range", lambda: est().path(X, Y, [0.1, 0.0]), "ValueError", match="alphas must all be > 0"),
    Case(PATH, "huge-size", lambda: est().path(np.zeros((200_000, 1)), np.zeros(200_000), ALPHAS), "ValueError",
         match="gram_limit_mb"),
    # ------------------------------------------------------------------ kernel_ridge_path
    Case(FPATH, "shape", lambda: kernel_ridge_path(K[:, :5], Y, ALPHAS), "ValueError", match="K must be a square"),
    Case(FPATH, "shape", lambda: kernel_ridge_path(K, Y[:3], ALPHAS), "ValueError", match="y must have one row"),
    Case(FPATH, "dtype-complex", lambda: kernel_ridge_path(K + 0j, Y, ALPHAS), "ValueError",
         match="Complex data not supported: K"),
    Case(FPATH, "dtype-bool", lambda: kernel_ridge_path(np.eye(12, dtype=bool), Y, ALPHAS), "ok",
         check=solve_check(np.eye(12), Y, ALPHAS)),
    Case(FPATH, "dtype-object", lambda: kernel_ridge_path(K.astype(str).astype(object), Y, ALPHAS), "ok",
         check=solve_check(K.astype(str).astype(float), Y, ALPHAS), note="numeric strings convert"),
    Case(FPATH, "dtype-object", lambda: kernel_ridge_path(K, np.array(["a"] * 12, dtype=object), ALPHAS),
         "TypeError", match="y must be a numeric array"),
    Case(FPATH, "dtype-float32", lambda: kernel_ridge_path(K.astype(np.float32), Y, ALPHAS), "ok",
         check=solve_check(K.astype(np.float32).astype(float), Y, ALPHAS)),
    Case(FPATH, "nan-inf", lambda: kernel_ridge_path(np.where(K > 3, np.inf, K), Y, ALPHAS), "ValueError",
         match="K contains NaN"),
    Case(FPATH, "empty", lambda: kernel_ridge_path(np.zeros((0, 0)), np.zeros(0), ALPHAS), "ValueError",
         match="K is empty"),
    Case(FPATH, "one-sample", lambda: kernel_ridge_path([[2.0]], [1.0], ALPHAS), "ok",
         check=solve_check(np.array([[2.0]]), np.array([1.0]), ALPHAS)),
    Case(FPATH, "one-class", lambda: kernel_ridge_path(K, np.zeros(12), ALPHAS), "ok",
         check=lambda p: np.testing.assert_array_equal(p.dual_coef, 0.0), note="zero target: zero solution"),
    Case(FPATH, "extreme-scale", lambda: kernel_ridge_path(K * 1e200, Y, ALPHAS), "ok",
         check=solve_check(K * 1e200, Y, ALPHAS)),
    Case(FPATH, "non-symmetric", lambda: kernel_ridge_path(NONSYM, Y, ALPHAS), "ValueError", match="symmetric"),
    Case(FPATH, "non-psd", lambda: kernel_ridge_path(NONPSD, Y, ALPHAS), "ValueError",
         match="not positive semidefinite"),
    Case(FPATH, "param-type", lambda: kernel_ridge_path(K, Y, "0.1"), "TypeError", match="alphas must be a numeric"),
    Case(FPATH, "param-range", lambda: kernel_ridge_path(K, Y, [-1.0]), "ValueError", match="alphas must all be > 0"),
]

_NO_INPUT = "loo_residuals takes no argument; its input is the data given to fit, covered by the fit row"
NOT_APPLICABLE = {
    (LOO, "shape"): _NO_INPUT,
    (LOO, "dtype-complex"): _NO_INPUT,
    (LOO, "dtype-object"): _NO_INPUT,
    (LOO, "nan-inf"): _NO_INPUT + " (fit rejects NaN/inf)",
    (LOO, "empty"): _NO_INPUT + " (fit rejects empty input)",
    (LOO, "non-symmetric"): _NO_INPUT + " (fit rejects a non-symmetric precomputed matrix)",
    (LOO, "non-psd"): _NO_INPUT + " (fit rejects a non-PSD kernel matrix)",
    (LOO, "huge-size"): _NO_INPUT + " (fit refuses a Gram matrix above gram_limit_mb)",
    (PRED, "huge-size"): (
        "predict builds an (n_test, n_train) block whose size the caller controls by batching; "
        "n_train is bounded by the fit-time gram_limit_mb"),
    (PRED, "non-psd"): "the test block K(X_test, X_train) is rectangular; positive semidefiniteness does not apply",
    (SCORE, "non-symmetric"): "score takes data and targets, no kernel matrix that could be asymmetric",
    (SCORE, "non-psd"): "score takes data and targets, no kernel matrix that must be PSD",
    (SCORE, "huge-size"): "score calls predict on the given test data; see the predict row",
    (SCORE, "param-type"): "score has no parameter besides X and y (covered by the dtype rows)",
    (FPATH, "huge-size"): "kernel_ridge_path receives an already materialised K; its size is the caller's",
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery_ridge(case):
    run_case(case)
