"""Bad-input battery of ktheory.svm: every public callable x every input category.

Cases are generated from small tables below. Every ``"ok"`` case has an oracle:

* ``SVC`` fit / predict / decision_function / score: scikit-learn's ``SVC`` (libsvm) on the
  same data and parameters: the dual objective (recomputed from sklearn's ``dual_coef_`` and
  an independent Gram matrix from ``sklearn.metrics.pairwise``) within a multiple of ``tol``,
  decision values within ``20 tol``, labels where ``|f| > 20 tol`` (the unique part of the
  answer); or an invariance of the problem (rescaling X and gamma);
* ``smo_solve``: scikit-learn's ``SVC(kernel="precomputed")`` on the same matrix, or the
  rescaling invariance ``K -> sK, C -> C/s`` (objective / s, same intercept);
* ``hard_margin_dual_exact``: the KKT conditions recomputed in floating point from an
  independent Gram matrix (alpha >= 0, sum alpha d = 0, d f(x) >= 1, = 1 on the support),
  and exact scaling laws of the margin;
* ``to_exact``: each entry equals the input number (``float(e) == v``) and is a sympy Rational.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from sklearn.metrics.pairwise import linear_kernel as sk_linear
from sklearn.metrics.pairwise import polynomial_kernel as sk_poly
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf
from sklearn.metrics.pairwise import sigmoid_kernel as sk_sigmoid
from sklearn.svm import SVC as SkSVC

from battery._common import Case, run_case, warm_compiled_svm
from ktheory.svm import SVC, ConvergenceWarning, hard_margin_dual_exact, smo_solve, to_exact

FIT = "ktheory.svm.SVC.fit"
PREDICT = "ktheory.svm.SVC.predict"
DECISION = "ktheory.svm.SVC.decision_function"
SCORE = "ktheory.svm.SVC.score"
SMO = "ktheory.svm.smo_solve"
EXACT = "ktheory.svm.hard_margin_dual_exact"
TO_EXACT = "ktheory.svm.to_exact"

PUBLIC = [FIT, PREDICT, DECISION, SCORE, SMO, EXACT, TO_EXACT]

EXEMPT = {
    "ktheory.svm.SMOResult": "a frozen result container returned by smo_solve; users never construct it",
    "ktheory.svm.HardMarginSolution": "the result container of hard_margin_dual_exact; its methods take "
    "test points that go through to_exact (covered by the to_exact rows)",
    "ktheory.svm.compiled_solver": "takes no input: it returns the compiled solver's module, or None "
    "where numba cannot be imported (tests/test_csvm_solver.py covers both)",
    "ktheory.svm.face_steps": "a solver step on arrays the SVM solvers have already validated "
    "(the dual's columns, bounds, gradient); tests/test_svm_face.py checks it against SLSQP",
}

_LABELLED = "a method of a fitted model; takes no labels, so a one-class target cannot be passed"
_RECT = ("test inputs are rectangular (n_test x n_features) or, precomputed, kernel values against "
         "the training points: symmetry and PSD-ness are properties of square training Gram matrices")
NOT_APPLICABLE = {
    (PREDICT, "one-class"): _LABELLED,
    (DECISION, "one-class"): _LABELLED,
    (PREDICT, "non-symmetric"): _RECT,
    (DECISION, "non-symmetric"): _RECT,
    (SCORE, "non-symmetric"): _RECT,
    (PREDICT, "non-psd"): _RECT,
    (DECISION, "non-psd"): _RECT,
    (SCORE, "non-psd"): _RECT,
    (SMO, "huge-size"): "smo_solve receives K already in memory (the caller built it); the estimator's "
    "gram_limit_mb refusal is tested in the SVC.fit row",
    (TO_EXACT, "one-class"): "to_exact converts numbers; it takes no labels",
    (TO_EXACT, "non-symmetric"): "to_exact converts any rectangular matrix; symmetry is not required",
    (TO_EXACT, "non-psd"): "to_exact converts any rectangular matrix; PSD-ness is not required",
    (TO_EXACT, "param-type"): "to_exact's only parameter besides X is `name`, used only in messages",
    (TO_EXACT, "param-range"): "to_exact's only parameter besides X is `name`, used only in messages",
}

TOL = 1e-3
K20 = 20 * TOL


# ---------------------------------------------------------------------------
# data and oracles
# ---------------------------------------------------------------------------


def _data(n: int = 40, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1, 0)
    return X, y


X0, Y0 = _data()
XT = _data(15, 3, seed=5)[0]


def _sk_gram(kernel: str, A, B, gamma, degree=3, coef0=0.0):
    if kernel == "linear":
        return sk_linear(A, B)
    if kernel == "rbf":
        return sk_rbf(A, B, gamma=gamma)
    if kernel == "poly":
        return sk_poly(A, B, degree=degree, gamma=gamma, coef0=coef0)
    return sk_sigmoid(A, B, gamma=gamma, coef0=coef0)


def _sk_objective(sk: SkSVC, K_sv: np.ndarray) -> float:
    c = sk.dual_coef_[0]
    return 0.5 * float(c @ K_sv @ c) - float(np.abs(c).sum())


def _same_as_sklearn(X, y, Xtest=None, **params):
    """Oracle for a fitted SVC: scikit-learn's SVC on the same (float) data and parameters."""
    Xf = np.asarray(X, dtype=float)
    Xt = Xf if Xtest is None else np.asarray(Xtest, dtype=float)

    def check(est: SVC) -> None:
        sk = SkSVC(**params).fit(Xf, y)
        if params.get("kernel") == "precomputed":
            K_sv = Xf[np.ix_(sk.support_, sk.support_)]
        else:
            g = sk._gamma
            K_sv = _sk_gram(params.get("kernel", "rbf"), Xf[sk.support_], Xf[sk.support_], g,
                            params.get("degree", 3), params.get("coef0", 0.0))
        obj = _sk_objective(sk, K_sv)
        tol = params.get("tol", TOL)
        assert abs(est.objective_ - obj) <= 10 * tol * max(1.0, abs(obj)), (est.objective_, obj)
        f, fs = est.decision_function(Xt), sk.decision_function(Xt)
        assert np.max(np.abs(f - fs)) <= 20 * tol * max(1.0, np.max(np.abs(fs))), np.max(np.abs(f - fs))
        clear = np.abs(fs) > 40 * tol
        np.testing.assert_array_equal(est.predict(Xt)[clear], sk.predict(Xt)[clear])
        np.testing.assert_array_equal(est.classes_, sk.classes_)

    return check


def _same_as_sklearn_multi(X, y, Xtest=None, **params):
    """Oracle for a multiclass (one-vs-one) SVC: scikit-learn's SVC on the same data. Per-pair
    dual objectives recomputed from sklearn's packed ``dual_coef_`` with an independent Gram
    matrix, pairwise decision values within ``20 tol``, labels where every ``|f| > 40 tol``."""
    Xf = np.asarray(X, dtype=float)
    Xt = Xf if Xtest is None else np.asarray(Xtest, dtype=float)
    ya = np.asarray(y)

    def check(est: SVC) -> None:
        sk = SkSVC(**params).fit(Xf, ya)
        np.testing.assert_array_equal(est.classes_, sk.classes_)
        k = len(sk.classes_)
        if params.get("kernel") == "precomputed":
            K = Xf
        else:
            K = _sk_gram(params.get("kernel", "rbf"), Xf, Xf, sk._gamma, params.get("degree", 3),
                         params.get("coef0", 0.0))
        tol = params.get("tol", TOL)
        cls = np.searchsorted(sk.classes_, ya[sk.support_])
        p = 0
        for i in range(k):
            for j in range(i + 1, k):
                c = np.zeros(len(ya))
                c[sk.support_[cls == i]] = sk.dual_coef_[j - 1, cls == i]
                c[sk.support_[cls == j]] = sk.dual_coef_[i, cls == j]
                obj = 0.5 * float(c @ K @ c) - float(np.abs(c).sum())
                assert abs(est.objective_[p] - obj) <= 10 * tol * max(1.0, abs(obj)), (p, est.objective_[p], obj)
                p += 1
        est.set_params(decision_function_shape="ovo")
        sk.set_params(decision_function_shape="ovo")
        f, fs = est.decision_function(Xt), sk.decision_function(Xt)
        est.set_params(decision_function_shape="ovr")
        sk.set_params(decision_function_shape="ovr")
        assert f.shape == fs.shape == (Xt.shape[0], k * (k - 1) // 2)
        assert np.max(np.abs(f - fs)) <= 20 * tol * max(1.0, np.max(np.abs(fs))), np.max(np.abs(f - fs))
        clear = np.abs(fs).min(axis=1) > 40 * tol
        np.testing.assert_array_equal(est.predict(Xt)[clear], sk.predict(Xt)[clear])
        assert est.decision_function(Xt).shape == (Xt.shape[0], k)

    return check


def _fitted(kernel="rbf", **params) -> SVC:
    return SVC(kernel=kernel, **params).fit(X0, Y0)


def _sk_fitted(kernel="rbf", **params) -> SkSVC:
    return SkSVC(kernel=kernel, **params).fit(X0, Y0)


def _decisions_match(kernel="rbf", Xt=XT, **params):
    def check(f):
        fs = _sk_fitted(kernel, **params).decision_function(np.asarray(Xt, dtype=float))
        assert f.shape == fs.shape
        assert np.max(np.abs(f - fs)) <= K20 * max(1.0, np.max(np.abs(fs)))
    return check


def _predictions_match(kernel="rbf", Xt=XT, **params):
    def check(p):
        sk = _sk_fitted(kernel, **params)
        Xf = np.asarray(Xt, dtype=float)
        clear = np.abs(sk.decision_function(Xf)) > 2 * K20
        assert p.shape == (Xf.shape[0],)
        np.testing.assert_array_equal(p[clear], sk.predict(Xf)[clear])
    return check


def _score_matches(Xt, yt, kernel="rbf", **params):
    def check(s):
        sk = _sk_fitted(kernel, **params)
        Xf = np.asarray(Xt, dtype=float)
        unclear = np.mean(np.abs(sk.decision_function(Xf)) <= 2 * K20)
        assert abs(s - sk.score(Xf, yt)) <= unclear + 1e-12
        assert 0.0 <= s <= 1.0
    return check


def _smo_as_sklearn(K, y, C=1.0):
    Kf = np.asarray(K, dtype=float)
    yf = np.asarray(y, dtype=float)

    def check(res) -> None:
        sk = SkSVC(kernel="precomputed", C=C, tol=TOL).fit(Kf, yf)
        obj = _sk_objective(sk, Kf[np.ix_(sk.support_, sk.support_)])
        assert abs(res.objective - obj) <= 10 * TOL * max(1.0, abs(obj)), (res.objective, obj)
        assert abs(float(res.alpha @ yf)) <= 1e-9 * max(1.0, C * len(yf))
        assert np.all(res.alpha >= 0) and np.all(res.alpha <= C) and res.converged
        f = Kf @ (res.alpha * yf) + res.intercept
        fs = -sk.decision_function(Kf) if sk.classes_[1] == -1 else sk.decision_function(Kf)
        assert np.max(np.abs(f - fs)) <= K20 * max(1.0, np.max(np.abs(fs)))
    return check


def _smo_scaled(K, y, s):
    """smo_solve(sK, y, C/s) = smo_solve(K, y, C) with alpha / s and objective / s."""
    base = smo_solve(np.asarray(K, dtype=float), y, C=1.0)

    def check(res) -> None:
        np.testing.assert_allclose(res.objective * s, base.objective, rtol=1e-6)
        np.testing.assert_allclose(res.alpha * s, base.alpha, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(res.intercept, base.intercept, rtol=1e-6, atol=1e-9)
    return check


def _stationary(K, y, C=1.0):
    """For a non-PSD K the dual is not convex and its local solutions differ (libsvm's
    included): check feasibility and stationarity (maximal violation < tol) from scratch."""
    Kf = np.asarray(K, dtype=float)
    d = np.asarray(y, dtype=float)

    def check(res) -> None:
        a = res.alpha if hasattr(res, "alpha") else res.alpha_
        if not hasattr(res, "alpha"):  # a fitted SVC: labels in its own sign convention
            d_ = np.where(np.asarray(y) == res.classes_[1], 1.0, -1.0)
        else:
            d_ = d
        assert np.all(a >= 0) and np.all(a <= C) and abs(a @ d_) <= 1e-9 * max(1.0, a.sum())
        v = -d_ * ((d_[:, None] * d_[None, :] * Kf) @ a - 1.0)  # -y grad
        up = ((d_ > 0) & (a < C)) | ((d_ < 0) & (a > 0))
        low = ((d_ > 0) & (a > 0)) | ((d_ < 0) & (a < C))
        assert v[up].max() - v[low].min() < TOL * 1.0001 + 1e-12
    return check


def _kkt_certificate(X, y, kernel="linear", gamma=None, degree=3, coef0=0.0, precomputed=None):
    """Independent float check of an exact hard-margin solution (KKT conditions)."""
    def check(sol) -> None:
        a = np.array([float(v) for v in sol.alpha])
        d = np.array(sol.d, dtype=float)
        if precomputed is not None:
            K = np.asarray(precomputed, dtype=float)
        else:
            Xf = np.array([[float(v) for v in row] for row in np.asarray(X, dtype=object).tolist()])
            g = 1.0 / Xf.shape[1] if gamma is None else float(gamma)
            K = _sk_gram(kernel, Xf, Xf, g, degree, coef0)
        b = float(sol.b)
        f = K @ (a * d) + b
        scale = max(1.0, float(np.max(np.abs(f))))
        assert np.all(a >= -1e-12)
        assert abs(float(a @ d)) <= 1e-9 * max(1.0, float(a.sum()))
        assert np.all(d * f >= 1 - 1e-7 * scale)
        on = a > 1e-12 * max(1.0, a.max())
        np.testing.assert_allclose(d[on] * f[on], 1.0, atol=1e-7 * scale)
        np.testing.assert_allclose(float(sol.w_norm_sq), a @ ((a * d) @ K * d), rtol=1e-9)
    return check


def _exact_entries(values):
    vals = np.asarray(values, dtype=object)

    def check(M) -> None:
        assert M.shape == vals.shape
        for e, v in zip(list(M), vals.ravel().tolist()):
            assert e.is_Rational, e
            if isinstance(v, Fraction):
                assert e == sp.Rational(v.numerator, v.denominator)
            else:
                assert float(e) == float(v), (e, v)
    return check


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------

CASES: list[Case] = []


def add(callable_, category, call, expect, match=None, check=None, note="", warns=None, setup=None):
    CASES.append(Case(callable_, category, call, expect, match=match, check=check, note=note, warns=warns,
                      setup=setup))


# ---- SVC.fit -----------------------------------------------------------------------------
fit = lambda X, y, **p: (lambda: SVC(**p).fit(X, y))  # noqa: E731

add(FIT, "shape", fit(X0[:, 0], Y0), "ValueError", r"Reshape your data", note="1-D X")
add(FIT, "shape", fit(X0[None], Y0), "ValueError", r"X must be a 2-D array", note="3-D X")
add(FIT, "shape", fit(X0, Y0[:-1]), "ValueError", r"40 samples .* 39 labels", note="y too short")
add(FIT, "shape", fit(X0, np.c_[Y0, Y0]), "ValueError", r"y should be a 1d array", note="2-column y")
add(FIT, "shape", fit(X0[:5], Y0[:5], kernel="precomputed"), "ValueError", r"square", note="precomputed 5x3")
add(FIT, "shape", fit([[1.0, 2.0], [3.0]], [0, 1]), "ValueError", r"X must be a rectangular", note="ragged X")
add(FIT, "shape", fit(X0, Y0[:, None]), "ok", check=_same_as_sklearn(X0, Y0), note="column y (warns)",
    warns=UserWarning)
for kern in ("rbf", "linear"):
    add(FIT, "dtype-complex", fit(X0 + 1j, Y0, kernel=kern), "TypeError", r"Complex data not supported",
        note=f"complex X {kern}")
add(FIT, "dtype-complex", fit(X0, Y0 + 0j), "TypeError", r"Complex data not supported", note="complex y")
add(FIT, "dtype-complex", fit(X0.astype(object) + 1j, Y0), "TypeError", r"Complex", note="object complex X")
XB = X0 > 0
add(FIT, "dtype-bool", fit(XB, Y0, kernel="linear"), "ok", check=_same_as_sklearn(XB, Y0, kernel="linear"),
    note="bool X as 0/1")
add(FIT, "dtype-bool", fit(X0, Y0.astype(bool)), "ok", check=_same_as_sklearn(X0, Y0.astype(bool)), note="bool y")
add(FIT, "dtype-object", fit(X0.astype(object), Y0), "ok", check=_same_as_sklearn(X0, Y0), note="object numbers")
XS = X0.astype(str)
add(FIT, "dtype-object", fit(XS, Y0), "TypeError", r"X must hold numbers", note="strings X")
XO = X0.astype(object)
XO[0, 0] = {"a": 1}
add(FIT, "dtype-object", fit(XO, Y0), "TypeError", r"X must hold numbers", note="dict in X")
YS = np.where(Y0 == 1, "yes", "no")
add(FIT, "dtype-object", fit(X0, YS), "ok", check=_same_as_sklearn(X0, YS), note="string labels")
add(FIT, "dtype-object", fit(X0, np.array([1, "a"] * 20, dtype=object)), "TypeError", r"mutually comparable",
    note="mixed labels")
X32 = X0.astype(np.float32)
for kern in ("rbf", "linear", "poly", "sigmoid"):
    add(FIT, "dtype-float32", fit(X32, Y0, kernel=kern), "ok",
        check=_same_as_sklearn(X32, Y0, kernel=kern), note=f"float32 X {kern}")
K32 = (X0 @ X0.T).astype(np.float32)
add(FIT, "dtype-float32", fit(K32, Y0, kernel="precomputed"), "ok",
    check=_same_as_sklearn(K32, Y0, kernel="precomputed"), note="float32 precomputed")
for what, bad in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
    Xb = X0.copy()
    Xb[3, 1] = bad
    add(FIT, "nan-inf", fit(Xb, Y0), "ValueError", r"X contains (NaN|infinity)", note=f"{what} in X")
add(FIT, "nan-inf", fit(X0, np.r_[np.nan, Y0[1:].astype(float)]), "ValueError", r"y contains NaN", note="nan y")
add(FIT, "nan-inf", fit(np.where(np.eye(40) > 0, np.inf, X0 @ X0.T), Y0, kernel="precomputed"), "ValueError",
    r"X contains (NaN|infinity)", note="inf in precomputed")
add(FIT, "empty", fit(np.empty((0, 3)), []), "ValueError", r"0 sample\(s\)", note="no samples")
add(FIT, "empty", fit(np.empty((40, 0)), Y0), "ValueError", r"0 feature\(s\)", note="no features")
add(FIT, "empty", fit(X0, None), "ValueError", r"requires y to be passed", note="y None")
add(FIT, "one-sample", fit(X0[:1], Y0[:1]), "ValueError", r"n_samples=1", note="one sample")
add(FIT, "one-sample", fit(X0[:2], [0, 1], kernel="linear"), "ok", check=_same_as_sklearn(X0[:2], [0, 1],
    kernel="linear"), note="one sample per class")
add(FIT, "one-class", fit(X0, np.zeros(40)), "ValueError", r"single class", note="all zeros")
add(FIT, "one-class", fit(X0, ["a"] * 40), "ValueError", r"single class", note="one string label")
Y3 = np.arange(40) % 3
add(FIT, "one-class", fit(X0, Y3), "ok", check=_same_as_sklearn_multi(X0, Y3), note="3 classes (one-vs-one)")
Y4S = np.array(["d", "b", "a", "c"])[np.arange(40) % 4]
add(FIT, "dtype-object", fit(X0, Y4S, kernel="linear"), "ok",
    check=_same_as_sklearn_multi(X0, Y4S, kernel="linear"), note="4 unsorted string classes")
add(FIT, "one-sample", fit(X0[:3], [2, 0, 1], kernel="linear"), "ok",
    check=_same_as_sklearn_multi(X0[:3], [2, 0, 1], kernel="linear"), note="one sample per class, 3 classes")
add(FIT, "one-class", fit(X0, np.r_[np.zeros(39), 1.5]), "ValueError", r"Unknown label type: continuous",
    note="one non-integer label")
add(FIT, "one-class", fit(X0, np.linspace(0, 1, 40)), "ValueError", r"Unknown label type: continuous",
    note="regression target")
for kern in ("rbf", "poly", "sigmoid"):
    add(FIT, "extreme-scale", fit(X0 * 1e200, Y0, kernel=kern), "ValueError", r"gamma='scale' .* not representable",
        note=f"1e200 {kern} scale")
    add(FIT, "extreme-scale", fit(X0 * 1e-200, Y0, kernel=kern), "ValueError", r"gamma='scale' .* not representable",
        note=f"1e-200 {kern} scale")
add(FIT, "extreme-scale", fit(X0 * 1e200, Y0, kernel="linear"), "ValueError", r"overflow", note="1e200 linear")
# gamma='scale' is scale invariant: X * 1e100 gives sklearn's answer on X
for s in (1e100, 1e-100, 1e150):
    add(FIT, "extreme-scale", fit(X0 * s, Y0), "ok",
        check=lambda est, s=s: _same_as_sklearn(X0, Y0)(_Rescaled(est, s)), note=f"rbf scale x{s:g}")
add(FIT, "extreme-scale", fit(X0, Y0, C=1e-200), "ok", check=_same_as_sklearn(X0, Y0, C=1e-200), note="C 1e-200")
XSEP = X0 + np.where(Y0 == 1, 1.0, -1.0)[:, None] * np.array([1.0, 0.0, 0.0])
add(FIT, "extreme-scale", fit(XSEP, Y0, C=1e200, kernel="linear"), "ok",
    check=lambda est: _kkt_soft(est, XSEP, Y0, 1e200), note="C 1e200 separable (hard margin, KKT)")
add(FIT, "extreme-scale", fit(X0 * 1e-100, Y0, C=1e200, kernel="linear"), "ok",
    check=lambda est: _same_as_sklearn(X0, Y0, kernel="linear")(_Rescaled(est, 1e-100, 1e-200)),
    note="linear X 1e-100 C 1e200 = sklearn on X, C 1")
KNS = X0 @ X0.T
KNS[0, 1] += 1.0
add(FIT, "non-symmetric", fit(KNS, Y0, kernel="precomputed"), "ValueError", r"symmetric", note="precomputed")
add(FIT, "non-symmetric", fit(X0, Y0, kernel=lambda A, B: A @ B.T + np.arange(len(B))), "ValueError",
    r"symmetric", note="callable")
KNP = sk_sigmoid(X0, X0, gamma=0.5, coef0=-1.0)
add(FIT, "non-psd", fit(KNP, Y0, kernel="precomputed"), "ok",
    check=_same_as_sklearn(KNP, Y0, kernel="precomputed"), note="sigmoid Gram precomputed")
add(FIT, "non-psd", fit(X0, Y0, kernel="sigmoid", gamma=0.5, coef0=-1.0), "ok",
    check=_same_as_sklearn(X0, Y0, kernel="sigmoid", gamma=0.5, coef0=-1.0), note="sigmoid kernel")
add(FIT, "non-psd", fit(-np.eye(40), Y0, kernel="precomputed"), "ok",
    check=_stationary(-np.eye(40), Y0), note="negative definite (local solution)")
for pname, value, exc, pat in (
    ("C", "1", "TypeError", r"C must be a real number"),
    ("C", None, "TypeError", r"C must be a real number"),
    ("tol", [1e-3], "TypeError", r"tol must be a real number"),
    ("kernel", 3, "TypeError", r"kernel must be one of"),
    ("degree", 2.5, "TypeError", r"degree must be an integer"),
    ("max_iter", 1.5, "TypeError", r"max_iter must be an integer"),
    ("max_iter", True, "TypeError", r"max_iter must be an integer"),
    ("gamma", [1.0], "TypeError", r"gamma must be a real number"),
    ("coef0", "a", "TypeError", r"coef0 must be a real number"),
    ("gram_limit_mb", "big", "TypeError", r"gram_limit_mb must be a real number"),
    ("decision_function_shape", 1, "TypeError", r"decision_function_shape must be 'ovr' or 'ovo'"),
    ("break_ties", "yes", "TypeError", r"break_ties must be a bool"),
    ("solver", 1, "TypeError", r"solver must be 'auto', 'numpy' or 'compiled'"),
):
    add(FIT, "param-type", fit(X0, Y0, **{pname: value}), exc, pat, note=f"{pname}={value!r}")
for pname, value, pat in (
    ("C", 0.0, r"C must be a finite number > 0"),
    ("C", -1.0, r"C must be"),
    ("C", np.nan, r"C must be"),     # (C=inf is the hard margin, as scikit-learn: test_svc_dropin)
    ("tol", 0.0, r"tol must be"),
    ("gamma", -1.0, r"gamma must be"),
    ("gamma", "bogus", r"gamma must be 'scale', 'auto'"),
    ("kernel", "cosine", r"kernel must be one of"),
    ("max_iter", 0, r"max_iter must be a positive integer or -1"),
    ("max_iter", -2, r"max_iter must be a positive integer or -1"),
    ("coef0", np.nan, r"coef0 must be a finite"),
    ("gram_limit_mb", 0.0, r"gram_limit_mb must be"),
    ("decision_function_shape", "ovx", r"decision_function_shape must be 'ovr' or 'ovo'"),
    ("solver", "libsvm", r"solver must be 'auto', 'numpy' or 'compiled'"),
):
    add(FIT, "param-range", fit(X0, Y0, **{pname: value}), "ValueError", pat, note=f"{pname}={value!r}")
add(FIT, "param-range", lambda: SVC(kernel="poly", degree=0).fit(X0, Y0), "ValueError", r"degree must be",
    note="poly degree 0")
add(FIT, "param-range", fit(X0, Y0, max_iter=5), "ok", warns=ConvergenceWarning,
    check=lambda est: (est.n_iter_.tolist() == [5] and est.gap_ >= TOL) or pytest.fail("not stopped at 5"), note="cap 5")
add(FIT, "param-range", fit(X0, Y0, tol=3.0), "ok",
    check=lambda est: (est.support_.size == 0 and np.all(est.decision_function(XT) == est.intercept_[0]))
    or pytest.fail("no-SV model"), note="tol 3 no SV")
_R400 = np.random.default_rng(0)
X400, Y400 = _R400.standard_normal((20, 2)) * 0.5, np.arange(20) % 2
for _solver in ("numpy", "compiled"):
    add(FIT, "extreme-scale", fit(X400, Y400, kernel="poly", degree=400, coef0=1, solver=_solver), "ok",
        warns=ConvergenceWarning,
        check=lambda est: np.all(np.isfinite(est.decision_function(X400))) or pytest.fail("finite"),
        note=f"issue 29: degree 400 never returned (violation stuck at 4.8e43, kernel values "
             f"near 1e280); SMO stops at its rounding floor and says so ({_solver})",
        setup=warm_compiled_svm if _solver == "compiled" else None)


def _refit_that_overflows():
    """issue 29 item 1: a refit that raises leaves the previous model exactly as it was."""
    est = SVC(kernel="poly", degree=3, coef0=1).fit(X400, Y400)
    before = est.decision_function(X400[:3])
    try:
        est.set_params(degree=400).fit(np.r_[X400, [[40.0, 40.0]]], np.r_[Y400, 1])
    except ValueError:
        pass
    else:  # pragma: no cover - the kernel overflows
        pytest.fail("the refit should overflow")
    return est, before


add(FIT, "extreme-scale", _refit_that_overflows, "ok",
    check=lambda r: np.testing.assert_array_equal(r[0].decision_function(X400[:3]), r[1]),
    note="issue 29: a refit that overflows leaves the old model (degree 3) predicting as before")
X_LINE = np.arange(20000.0)[:, None]
add(FIT, "huge-size", fit(X_LINE, (X_LINE[:, 0] >= 10000).astype(int)), "ok",
    check=lambda est: (est.score(X_LINE, X_LINE[:, 0] >= 10000) == 1.0) or pytest.fail("score"),
    note="n=20000 rbf: rows on demand, no n x n matrix", setup=warm_compiled_svm)
add(FIT, "huge-size", fit(np.zeros((20000, 1)), np.arange(20000) % 2, kernel=lambda A, B: A @ B.T),
    "ValueError", r"gram_limit_mb=2048", note="n=20000 callable: its Gram matrix refused up front")
add(FIT, "huge-size", fit(np.broadcast_to(1.0, (50_000, 50_000)), np.arange(50_000) % 2, kernel="precomputed"),
    "ValueError", r"gram_limit_mb=2048", note="issue 29: a broadcast 50 000^2 Gram matrix (18.6 GiB copy)")
add(FIT, "huge-size", fit(X0, Y0, kernel=lambda A, B: A @ B.T, gram_limit_mb=1e-3), "ValueError",
    r"gram_limit_mb=0.001", note="tiny limit, callable")


class _Rescaled:
    """A fitted SVC seen on unscaled inputs (for the scale-invariance oracle)."""

    def __init__(self, est, s, objective_factor=1.0):
        self.est, self.s = est, s
        self.objective_ = est.objective_ * objective_factor
        self.classes_ = est.classes_

    def decision_function(self, X):
        return self.est.decision_function(np.asarray(X) * self.s)

    def predict(self, X):
        return self.est.predict(np.asarray(X) * self.s)


def _kkt_soft(est, X, y, C):
    """KKT conditions of the soft-margin dual recomputed from scratch (linear kernel)."""
    d = np.where(y == est.classes_[1], 1.0, -1.0)
    a = est.alpha_
    f = X @ X.T @ (a * d) + est.intercept_[0]
    m = d * f
    assert np.all(a >= 0) and np.all(a <= C) and abs(a @ d) <= 1e-8 * max(1.0, a.sum())
    assert np.all(m[a <= 0] >= 1 - 5 * TOL)
    free = (a > 0) & (a < C)
    assert np.all(np.abs(m[free] - 1) <= 5 * TOL)


# ---- SVC.predict / decision_function / score --------------------------------------------------
RBF = _fitted()
LIN = _fitted("linear")
PRE = SVC(kernel="precomputed").fit(X0 @ X0.T, Y0)
Y4 = np.arange(40) % 4
MULTI = SVC().fit(X0, Y4)  # 4 classes: one-vs-one, 6 pairs


def _multi_matches(meth, Xt=XT, shape="ovr"):
    """Oracle for a method of MULTI: scikit-learn's SVC on the same data (decision values
    within 20 tol, labels where every pairwise |f| > 40 tol)."""
    def check(v):
        sk = SkSVC(decision_function_shape=shape).fit(X0, Y4)
        Xf = np.asarray(Xt, dtype=float)
        fs = sk.set_params(decision_function_shape="ovo").decision_function(Xf)
        if meth == "predict":
            clear = np.abs(fs).min(axis=1) > 2 * K20
            assert v.shape == (Xf.shape[0],)
            np.testing.assert_array_equal(v[clear], sk.predict(Xf)[clear])
        else:
            ref = sk.set_params(decision_function_shape=shape).decision_function(Xf)
            assert v.shape == ref.shape == (Xf.shape[0], 4 if shape == "ovr" else 6)
            assert np.max(np.abs(v - ref)) <= K20 * max(1.0, np.max(np.abs(fs)))
    return check


def _multi_with(**params) -> SVC:
    return SVC().fit(X0, Y4).set_params(**params)

for name, meth in ((PREDICT, "predict"), (DECISION, "decision_function")):
    good = _predictions_match if meth == "predict" else _decisions_match
    call = lambda est, X, meth=meth: (lambda: getattr(est, meth)(X))  # noqa: E731
    add(name, "shape", call(RBF, XT[:, 0]), "ValueError", r"Reshape your data", note="1-D X")
    add(name, "shape", call(RBF, XT[:, :2]), "ValueError", r"X has 2 features, but SVC is expecting 3",
        note="2 of 3 features")
    add(name, "shape", call(PRE, XT @ X0[:10].T), "ValueError", r"expecting 40 features .* training samples",
        note="precomputed 10 columns")
    add(name, "shape", call(RBF, XT[None]), "ValueError", r"2-D", note="3-D X")
    add(name, "dtype-complex", call(RBF, XT + 1j), "TypeError", r"Complex data not supported", note="complex")
    add(name, "dtype-bool", call(LIN, XT > 0), "ok", check=good("linear", XT > 0), note="bool X")
    add(name, "dtype-object", call(RBF, XT.astype(object)), "ok", check=good("rbf", XT), note="object numbers")
    add(name, "dtype-object", call(RBF, XT.astype(str)), "TypeError", r"X must hold numbers", note="strings")
    add(name, "dtype-float32", call(RBF, XT.astype(np.float32)), "ok",
        check=good("rbf", XT.astype(np.float32)), note="float32")
    Xn = XT.copy()
    Xn[2, 2] = np.nan
    add(name, "nan-inf", call(RBF, Xn), "ValueError", r"X contains (NaN|infinity)", note="nan")
    Xi = XT.copy()
    Xi[0, 0] = -np.inf
    add(name, "nan-inf", call(LIN, Xi), "ValueError", r"X contains (NaN|infinity)", note="-inf")
    add(name, "empty", call(RBF, np.empty((0, 3))), "ValueError", r"0 sample\(s\)", note="no rows")
    add(name, "empty", call(SVC(), XT), "ValueError", r"not fitted yet", note="unfitted")
    add(name, "one-sample", call(RBF, XT[:1]), "ok", check=good("rbf", XT[:1]), note="one row")
    add(name, "one-sample", call(MULTI, XT[:1]), "ok", check=_multi_matches(meth, XT[:1]), note="one row 4 classes")
    add(name, "shape", call(MULTI, XT[:, :2]), "ValueError", r"X has 2 features, but SVC is expecting 3",
        note="4 classes, 2 of 3 features")
    add(name, "dtype-object", call(MULTI, XT.astype(object)), "ok", check=_multi_matches(meth),
        note="object numbers 4 classes")
    add(name, "param-range", call(_multi_with(decision_function_shape="ovo"), XT), "ok",
        check=_multi_matches(meth, shape="ovo"), note="4 classes ovo")
    add(name, "huge-size", call(MULTI, np.tile(XT, (20000, 1))), "ok",
        check=lambda v, meth=meth: _multi_matches(meth)(v[:15]) or _multi_matches(meth)(v[-15:]),
        note="4 classes 300000 rows blockwise")
    # far away points: k = 0 for the rbf kernel, f = b exactly
    add(name, "extreme-scale", call(RBF, XT * 1e200 + 1e201), "ok",
        check=(lambda v, meth=meth: np.testing.assert_array_equal(
            v, np.full(15, RBF.intercept_[0]) if meth == "decision_function"
            else np.full(15, RBF.classes_[int(RBF.intercept_[0] >= 0)]))), note="rbf far 1e200")
    add(name, "extreme-scale", call(_fitted("poly", gamma=1.0), XT * 1e120), "ValueError", r"overflow",
        note="poly overflow")
    add(name, "extreme-scale", call(RBF, XT * 1e-200), "ok", check=good("rbf", XT * 1e-200), note="tiny X")
    # parameters changed after fit do not change the fitted model
    bad = lambda pname, value, meth=meth: (lambda: getattr(  # noqa: E731
        clone_fit().set_params(**{pname: value}), meth)(XT))
    add(name, "param-type", bad("gamma", "x"), "ok", check=good("rbf"), note="gamma set to a str after fit")
    add(name, "param-range", bad("C", -1.0), "ok", check=good("rbf"), note="C set to -1 after fit")
    add(name, "huge-size", call(RBF, np.tile(XT, (20000, 1))), "ok",
        check=lambda v, good=good: good("rbf")(v[:15]) or good("rbf")(v[-15:]), note="300000 rows blockwise")


def clone_fit() -> SVC:
    return SVC().fit(X0, Y0)


add(PREDICT, "param-range", lambda: _multi_with(decision_function_shape="ovo", break_ties=True).predict(XT),
    "ValueError", r"break_ties must be False when decision_function_shape is 'ovo'", note="break_ties with ovo")
add(PREDICT, "param-type", lambda: _multi_with(break_ties="yes").predict(XT), "TypeError",
    r"break_ties must be a bool", note="break_ties str after fit")
add(DECISION, "param-range", lambda: _multi_with(decision_function_shape="ovx").decision_function(XT),
    "ValueError", r"decision_function_shape must be 'ovr' or 'ovo'", note="shape ovx after fit")
add(DECISION, "param-type", lambda: _multi_with(decision_function_shape=None).decision_function(XT),
    "TypeError", r"decision_function_shape must be", note="shape None after fit")


YT = np.where(XT[:, 0] + 0.5 * XT[:, 1] ** 2 > 0.3, 1, 0)
sc = lambda est, X, y: (lambda: est.score(X, y))  # noqa: E731
add(SCORE, "shape", sc(RBF, XT, YT[:-1]), "ValueError", r"y has shape", note="y too short")
add(SCORE, "shape", sc(RBF, XT[:, :2], YT), "ValueError", r"X has 2 features", note="2 features")
add(SCORE, "shape", sc(RBF, XT, YT[:, None]), "ok", check=_score_matches(XT, YT), note="column y")
add(SCORE, "dtype-complex", sc(RBF, XT + 1j, YT), "TypeError", r"Complex", note="complex X")
add(SCORE, "dtype-bool", sc(LIN, XT > 0, YT), "ok", check=_score_matches(XT > 0, YT, "linear"), note="bool X")
add(SCORE, "dtype-bool", sc(RBF, XT, YT.astype(bool)), "ok",
    check=_score_matches(XT, YT.astype(bool)), note="bool y (compares as 0/1)")
add(SCORE, "dtype-object", sc(RBF, XT.astype(object), YT.astype(object)), "ok", check=_score_matches(XT, YT),
    note="object")
add(SCORE, "dtype-float32", sc(RBF, XT.astype(np.float32), YT), "ok",
    check=_score_matches(XT.astype(np.float32), YT), note="float32")
add(SCORE, "nan-inf", sc(RBF, np.where(np.eye(15, 3) > 0, np.nan, XT), YT), "ValueError", r"NaN", note="nan X")
add(SCORE, "empty", sc(RBF, XT, None), "ValueError", r"requires y to be passed", note="y None")
add(SCORE, "empty", sc(SVC(), XT, YT), "ValueError", r"not fitted", note="unfitted")
add(SCORE, "one-sample", sc(RBF, XT[:1], YT[:1]), "ok", check=_score_matches(XT[:1], YT[:1]), note="one row")
add(SCORE, "one-class", sc(RBF, XT, np.ones(15, dtype=int)), "ok", check=_score_matches(XT, np.ones(15, dtype=int)),
    note="all one class")
add(SCORE, "extreme-scale", sc(RBF, XT * 1e-200, YT), "ok", check=_score_matches(XT * 1e-200, YT), note="tiny")
add(SCORE, "param-type", lambda: clone_fit().set_params(tol="x").score(XT, YT), "ok",
    check=_score_matches(XT, YT), note="tol set to str after fit")
add(SCORE, "param-range", lambda: clone_fit().set_params(tol=-1.0).score(XT, YT), "ok",
    check=_score_matches(XT, YT), note="tol set to -1 after fit")
add(SCORE, "huge-size", sc(RBF, np.tile(XT, (20000, 1)), np.tile(YT, 20000)), "ok",
    check=_score_matches(XT, YT), note="300000 rows")


# ---- smo_solve ----------------------------------------------------------------------------------
K0 = sk_rbf(X0, X0, gamma=0.5)
D0 = np.where(Y0 == 1, 1.0, -1.0)
smo = lambda K, y, **p: (lambda: smo_solve(K, y, **p))  # noqa: E731
add(SMO, "shape", smo(K0[:, :5], D0), "ValueError", r"K must be a square", note="40x5")
add(SMO, "shape", smo(K0, D0[:5]), "ValueError", r"y has 5 entries", note="y short")
add(SMO, "shape", smo(K0[0], D0), "ValueError", r"K must be a 2-D", note="1-D K")
add(SMO, "shape", smo(K0, D0[:, None]), "ValueError", r"y must be a 1-D", note="2-D y")
add(SMO, "dtype-complex", smo(K0 + 0j, D0), "TypeError", r"K", note="complex K")
add(SMO, "dtype-complex", smo(K0, D0 + 0j), "TypeError", r"y", note="complex y")
add(SMO, "dtype-bool", smo(np.eye(40, dtype=bool), D0), "ok", check=_smo_as_sklearn(np.eye(40), D0), note="bool K")
add(SMO, "dtype-bool", smo(K0, Y0.astype(bool)), "ValueError", r"labels -1 and \+1", note="bool y")
add(SMO, "dtype-object", smo(K0.astype(object), D0), "ok", check=_smo_as_sklearn(K0, D0), note="object numbers")
add(SMO, "dtype-object", smo(K0.astype(str), D0), "TypeError", r"K", note="strings")
add(SMO, "dtype-object", smo(K0, np.where(Y0 == 1, "a", "b")), "TypeError", r"y", note="string labels")
K32n = (K0 + 1e-7 * np.random.default_rng(2).standard_normal(K0.shape)).astype(np.float32)
add(SMO, "dtype-float32", smo(K32n, D0), "ok", check=_smo_as_sklearn(0.5 * (K32n + K32n.T), D0),
    note="float32 rounding asymmetry")
Kn = K0.copy()
Kn[4, 4] = np.nan
add(SMO, "nan-inf", smo(Kn, D0), "ValueError", r"K contains NaN", note="nan K")
add(SMO, "nan-inf", smo(K0, np.r_[np.inf, D0[1:]]), "ValueError", r"y contains NaN", note="inf y")
add(SMO, "nan-inf", smo(Kn, D0, check_input=False), "ValueError", r"not finite", note="nan unchecked")
add(SMO, "empty", smo(np.empty((0, 0)), np.empty(0)), "ValueError", r"K is empty", note="0x0")
add(SMO, "one-sample", smo(np.ones((1, 1)), [1.0]), "ValueError", r"single label", note="1x1")
add(SMO, "one-sample", smo(np.eye(2), [1.0, -1.0]), "ok", check=_smo_as_sklearn(np.eye(2), [1.0, -1.0]),
    note="one per class")
add(SMO, "one-class", smo(K0, np.ones(40)), "ValueError", r"single label", note="all +1")
add(SMO, "one-class", smo(K0, np.r_[0.0, D0[1:]]), "ValueError", r"labels -1 and \+1", note="a 0 label")
for s in (1e200, 1e-200, 1e300):
    add(SMO, "extreme-scale", smo(K0 * s, D0, C=1.0 / s), "ok", check=_smo_scaled(K0, D0, s), note=f"K x{s:g}")
Kns = K0.copy()
Kns[0, 1] += 0.1
add(SMO, "non-symmetric", smo(Kns, D0), "ValueError", r"K must be symmetric", note="off by 0.1")
add(SMO, "non-symmetric", smo(K0.astype(np.float32) + np.triu(np.full((40, 40), 1e-3, np.float32)), D0),
    "ValueError", r"K must be symmetric", note="float32 far off")
add(SMO, "non-psd", smo(KNP, D0), "ok", check=_smo_as_sklearn(KNP, D0), note="sigmoid Gram")
add(SMO, "non-psd", smo(-np.eye(40), D0), "ok", check=_stationary(-np.eye(40), D0), note="-I (local solution)")
for pname, value, exc, pat in (
    ("C", "1", "TypeError", r"C must be a real"),
    ("tol", None, "TypeError", r"tol must be a real"),
    ("max_iter", 2.0, "TypeError", r"max_iter must be an integer"),
):
    add(SMO, "param-type", smo(K0, D0, **{pname: value}), exc, pat, note=f"{pname}={value!r}")
for pname, value, pat in (
    ("C", 0.0, r"C must be"), ("C", -np.inf, r"C must be"), ("tol", -1.0, r"tol must be"),
    ("max_iter", 0, r"max_iter must be"), ("max_iter", -5, r"max_iter must be"),
):
    add(SMO, "param-range", smo(K0, D0, **{pname: value}), "ValueError", pat, note=f"{pname}={value!r}")
add(SMO, "param-range", smo(K0, D0, C=1e6), "ok", check=_smo_as_sklearn(K0, D0, C=1e6), note="C 1e6")


# ---- hard_margin_dual_exact -----------------------------------------------------------------------
TOY = [[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]]
TOYY = [0, 0, 0, 1, 1, 1]
XOR = [[-1, -1], [-1, 1], [1, -1], [1, 1]]
XORY = [-1, 1, 1, -1]
ex = lambda X, y, **p: (lambda: hard_margin_dual_exact(X, y, **p))  # noqa: E731
add(EXACT, "shape", ex([1, 2, 3], [0, 1, 1]), "ValueError", r"X must be a 2-D", note="1-D X")
add(EXACT, "shape", ex(TOY, TOYY[:-1]), "ValueError", r"X has 6 rows, y has 5", note="y short")
add(EXACT, "shape", ex([[1, 2], [3]], [0, 1]), "ValueError", r"rectangular", note="ragged")
add(EXACT, "shape", ex([[1, 0, 0], [0, 1, 0]], [0, 1], kernel="precomputed"), "ValueError", r"square",
    note="precomputed 2x3")
add(EXACT, "dtype-complex", ex([[1 + 1j, 0], [0, 1]], [0, 1]), "TypeError", r"complex", note="complex")
add(EXACT, "dtype-bool", ex([[True, False], [False, True]], [0, 1]), "TypeError", r"boolean", note="bool X")
add(EXACT, "dtype-object", ex([["a", 1], [2, 3]], [0, 1]), "TypeError", r"string", note="string entry")
add(EXACT, "dtype-object", ex([[sp.Symbol("t"), 1], [2, 3]], [0, 1]), "TypeError", r"symbolic", note="symbol")
add(EXACT, "dtype-object", ex([[Fraction(1, 3), 0], [0, Fraction(2, 3)], [1, 1]], ["u", "v", "v"]), "ok",
    check=_kkt_certificate([[1 / 3, 0], [0, 2 / 3], [1, 1]], None), note="Fractions and string labels")
add(EXACT, "dtype-float32", ex(np.array(TOY, dtype=np.float32) * np.float32(0.1), TOYY), "ok",
    check=_kkt_certificate(np.array(TOY, dtype=np.float32) * np.float32(0.1), TOYY), note="float32")
add(EXACT, "nan-inf", ex([[np.nan, 0], [0, 1]], [0, 1]), "ValueError", r"NaN or infinity", note="nan")
add(EXACT, "nan-inf", ex([[np.inf, 0], [0, 1]], [0, 1]), "ValueError", r"NaN or infinity", note="inf")
add(EXACT, "nan-inf", ex(TOY, [0, 0, 0, 1, 1, float("nan")]), "ValueError", r"y contains NaN", note="nan y")
add(EXACT, "empty", ex(np.empty((0, 2)), []), "ValueError", r"X is empty", note="no samples")
add(EXACT, "empty", ex(np.empty((3, 0)), [0, 1, 1]), "ValueError", r"X is empty", note="no features")
add(EXACT, "one-sample", ex([[1, 2]], [1]), "ValueError", r"exactly two classes", note="one sample")
add(EXACT, "one-sample", ex([[0, 0], [2, 0]], [0, 1]), "ok", check=_kkt_certificate([[0, 0], [2, 0]], [0, 1]),
    note="one per class")
add(EXACT, "one-class", ex(TOY, [1] * 6), "ValueError", r"exactly two classes", note="one class")
add(EXACT, "one-class", ex(TOY, [0, 1, 2, 0, 1, 2]), "ValueError", r"exactly two classes", note="three")
BASE = hard_margin_dual_exact(TOY, TOYY)
for s in (sp.Integer(10) ** 200, sp.Integer(10) ** -200):
    add(EXACT, "extreme-scale", ex([[s * v for v in row] for row in TOY], TOYY), "ok",
        check=lambda sol, s=s: (sol.margin == s * BASE.margin and sol.support == BASE.support)
        or pytest.fail("margin does not scale"), note=f"x 10^{int(sp.log(s, 10))}")
add(EXACT, "extreme-scale", ex((np.array(TOY) * 1e200).tolist(), TOYY), "ok",
    check=lambda sol: (sol.margin == sp.Integer(10) ** 200 * BASE.margin) or pytest.fail("1e200 float"),
    note="float 1e200")
add(EXACT, "non-symmetric", ex([[2, 1], [0, 2]], [0, 1], kernel="precomputed"), "ValueError", r"symmetric",
    note="precomputed")
add(EXACT, "non-symmetric", ex(TOY, TOYY, kernel=lambda x, z: x[0] * z[1]), "ValueError", r"not symmetric",
    note="callable")
add(EXACT, "non-psd", ex([[1, 2], [2, 1]], [0, 1], kernel="precomputed"), "ValueError", r"positive semidefinite",
    note="eigenvalue -1")
add(EXACT, "non-psd", ex([[4, 0, 2], [0, 4, 2], [2, 2, 2]], [0, 1, 1], kernel="precomputed"), "ok",
    check=_kkt_certificate(None, None, precomputed=[[4, 0, 2], [0, 4, 2], [2, 2, 2]]), note="singular PSD")
for pname, value, exc, pat in (
    ("kernel", 3, "TypeError", r"kernel must be"),
    ("max_samples", 2.5, "TypeError", r"max_samples must be an integer"),
    ("degree", "2", "ValueError", r"degree must be"),
    ("gamma", "x", "TypeError", r"gamma must contain numbers"),
    ("coef0", None, "TypeError", r"coef0 must contain numbers"),
):
    kern = "poly" if pname in ("degree", "gamma", "coef0") else "linear"
    add(EXACT, "param-type", ex(XOR, XORY, **{"kernel": kern, pname: value}), exc, pat, note=f"{pname}={value!r}")
for pname, value, pat in (
    ("max_samples", 1, r"max_samples must be"), ("gamma", -1, r"gamma must be > 0"),
    ("degree", 0, r"degree must be a positive"), ("kernel", "cosine", r"kernel must be one of"),
):
    kern = "poly" if pname in ("degree", "gamma") else "linear"
    add(EXACT, "param-range", ex(XOR, XORY, **{"kernel": kern, pname: value}), "ValueError", pat,
        note=f"{pname}={value!r}")
add(EXACT, "param-range", ex(XOR, XORY, kernel="poly", degree=2, gamma=1, coef0=1), "ok",
    check=_kkt_certificate(XOR, XORY, "poly", 1, 2, 1.0), note="XOR poly (chapter 7)")
add(EXACT, "param-range", ex(XOR, XORY, kernel="rbf", gamma=sp.Rational(1, 2)), "ok",
    check=_kkt_certificate(XOR, XORY, "rbf", 0.5), note="XOR rbf exact exp")
add(EXACT, "huge-size", ex([[i, 0] for i in range(17)], [i % 2 for i in range(17)]), "ValueError",
    r"17 samples.*max_samples=16", note="n=17")
RNG = np.random.default_rng(0)
add(EXACT, "huge-size", ex(RNG.integers(-9, 10, size=(20, 20)).tolist(), [i % 2 for i in range(20)],
                           max_samples=20), "ValueError", r"1,048,555 candidate support sets.*MAX_SUPPORTS",
    note="2^20 supports")
add(EXACT, "huge-size", ex(np.zeros((10**6, 2)), np.arange(10**6) % 2), "ValueError", r"1000000 samples",
    note="a million rows, refused before conversion")
add(EXACT, "huge-size", ex([[i, 0] for i in range(30)], [0] * 15 + [1] * 15, max_samples=30), "ok",
    check=_kkt_certificate([[i, 0] for i in range(30)], [0] * 15 + [1] * 15), note="30 points of rank 2")
add(EXACT, "huge-size", ex(RNG.integers(-5, 6, size=(16, 2)).tolist(), [i % 2 for i in range(16)]), "ValueError",
    r"not separable", note="16 non-separable (was ~10 min)")


# ---- to_exact ------------------------------------------------------------------------------------
te = lambda X: (lambda: to_exact(X))  # noqa: E731
add(TO_EXACT, "shape", te([1, 2, 3]), "ValueError", r"X must be a 2-D", note="1-D")
add(TO_EXACT, "shape", te(np.zeros((2, 2, 2))), "ValueError", r"X must be a 2-D", note="3-D")
add(TO_EXACT, "shape", te([[1, 2], [3]]), "ValueError", r"rectangular", note="ragged")
add(TO_EXACT, "shape", te(5), "ValueError", r"X must be a 2-D", note="scalar")
add(TO_EXACT, "dtype-complex", te(np.array([[1 + 2j]])), "TypeError", r"complex", note="complex array")
add(TO_EXACT, "dtype-complex", te([[sp.I]]), "TypeError", r"real numbers", note="sympy I")
add(TO_EXACT, "dtype-bool", te(np.array([[True, False]])), "TypeError", r"boolean", note="bool")
add(TO_EXACT, "dtype-object", te([["1", 2]]), "TypeError", r"string", note="string")
add(TO_EXACT, "dtype-object", te(None), "TypeError", r"got None", note="None")
add(TO_EXACT, "dtype-object", te([[Fraction(1, 3), 2]]), "ok", check=_exact_entries([[Fraction(1, 3), 2]]),
    note="Fraction")
V32 = np.array([[0.1, 3.3], [1e-30, -7.5]], dtype=np.float32)
add(TO_EXACT, "dtype-float32", te(V32), "ok", check=_exact_entries(V32.astype(np.float64)), note="float32")
add(TO_EXACT, "nan-inf", te([[np.nan]]), "ValueError", r"NaN or infinity", note="nan")
add(TO_EXACT, "nan-inf", te([[1.0, -np.inf]]), "ValueError", r"NaN or infinity", note="-inf")
add(TO_EXACT, "nan-inf", te([[sp.oo]]), "ValueError", r"NaN or infinity", note="sympy oo")
add(TO_EXACT, "empty", te(np.empty((0, 3))), "ValueError", r"X is empty", note="0 rows")
add(TO_EXACT, "empty", te([[]]), "ValueError", r"X is empty", note="0 columns")
add(TO_EXACT, "one-sample", te([[0.1, 2]]), "ok", check=_exact_entries([[0.1, 2]]), note="one row")
EXT = [[1e200, 1e-300, 5e-324, -1.7976931348623157e308]]
add(TO_EXACT, "extreme-scale", te(EXT), "ok", check=_exact_entries(EXT), note="1e200 .. 5e-324")
add(TO_EXACT, "huge-size", te(np.zeros((2000, 1000))), "ValueError", r"2,000,000 entries.*MAX_EXACT_ENTRIES",
    note="2e6 entries array")
add(TO_EXACT, "huge-size", te([[0] * 1000] * 1001), "ValueError", r"1,001,000 entries", note="list of lists")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
