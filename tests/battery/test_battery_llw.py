"""Bad-input battery of the Lee–Lin–Wahba multicategory SVM (``ktheory.svm._llw``).

Every ``"ok"`` case has an oracle:

* ``MulticlassSVC.fit``: an optimality certificate recomputed from scratch: the Gram matrix
  from ``sklearn.metrics.pairwise`` (gamma="scale" recomputed as ``1 / (d X.var())``), the
  box and equal column sums of ``alpha_``, the representer relation, complementary
  slackness, and the primal objective (from the decision values) equal to the dual
  objective (from ``alpha_``), both recomputed; or an invariance of the problem
  (rescaling X under gamma="scale");
* ``predict`` / ``decision_function`` / ``score``: the decision values recomputed from
  ``dual_coef_``, ``intercept_`` and an independent kernel, their argmax, the accuracy;
* ``llw_population_minimizer``: the closed form (the code of the class minimising
  ``sum_j p_j L_jl``, Lee, Lin and Wahba's Lemma) where it is unique.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel as sk_linear
from sklearn.metrics.pairwise import polynomial_kernel as sk_poly
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from battery._common import Case, run_case
from ktheory.svm import ConvergenceWarning, MulticlassSVC, llw_population_minimizer

FIT = "ktheory.svm.MulticlassSVC.fit"
PREDICT = "ktheory.svm.MulticlassSVC.predict"
DECISION = "ktheory.svm.MulticlassSVC.decision_function"
SCORE = "ktheory.svm.MulticlassSVC.score"
POP = "ktheory.svm.llw_population_minimizer"

PUBLIC = [FIT, PREDICT, DECISION, SCORE, POP]

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
    (POP, "non-psd"): "the cost matrix is any nonnegative matrix with zero diagonal; it is not a "
    "kernel and need not be PSD (an indefinite one is a valid input: see the non-symmetric row)",
}


# ---------------------------------------------------------------------------
# data and oracles
# ---------------------------------------------------------------------------


def _data(n: int = 30, d: int = 3, k: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    X = rng.standard_normal((n, d)) + 1.5 * np.eye(k, d)[y]
    return X, y


X0, Y0 = _data()
XT = _data(12, seed=5)[0]


def _gram(X, Z, kernel="rbf", gamma="scale", degree=3, coef0=0.0, Xfit=None):
    X = np.asarray(X, dtype=float)
    Z = np.asarray(Z, dtype=float)
    if kernel == "precomputed":
        return X
    if gamma == "scale":
        F = np.asarray(Xfit if Xfit is not None else Z, dtype=float)
        v = F.var()
        gamma = 1.0 / (F.shape[1] * v) if v > 0 else 1.0
    if kernel == "linear":
        return sk_linear(X, Z)
    if kernel == "poly":
        return sk_poly(X, Z, degree=degree, gamma=gamma, coef0=coef0)
    return sk_rbf(X, Z, gamma=gamma)


def _codes(codes: np.ndarray, k: int) -> np.ndarray:
    Y = np.full((codes.size, k), -1.0 / (k - 1))
    Y[np.arange(codes.size), codes] = 1.0
    return Y


def _certified(X, y, costs=None, rel=1e-6, **params):
    """Oracle for a fitted MulticlassSVC: the KKT conditions and primal = dual, recomputed."""
    kernel = params.get("kernel", "rbf")
    C = float(params.get("C", 1.0))

    def check(est: MulticlassSVC) -> None:
        K = _gram(X, X, kernel, params.get("gamma", "scale"), params.get("degree", 3),
                  params.get("coef0", 0.0))
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        codes = codes.ravel()
        k = classes.size
        assert np.array_equal(est.classes_, classes)
        L = np.ones((k, k)) - np.eye(k) if costs is None else np.asarray(costs, dtype=float)
        a = est.alpha_
        U = C * L[codes]
        assert np.all(a >= 0) and np.all(a <= U * (1 + 1e-12))
        s = a.sum(axis=0)
        assert np.ptp(s) <= 1e-8 * max(1.0, s.max())
        Cf = -2.0 * (a - a.mean(axis=1, keepdims=True))
        np.testing.assert_allclose(est.dual_coef_, Cf, rtol=1e-12, atol=1e-300)
        F = K @ Cf + est.intercept_
        Y = _codes(codes, k)
        pen = float(np.trace(Cf.T @ K @ Cf))
        primal = C * float(np.sum(L[codes] * np.maximum(F - Y, 0.0))) + 0.25 * pen
        dual = -(0.25 * pen + float(np.sum(a * Y)))
        assert primal == pytest.approx(dual, rel=rel, abs=1e-300), (primal, dual)
        assert est.objective_ == pytest.approx(primal, rel=rel, abs=1e-300)
        # complementary slackness (the decision values at the margins)
        R = F - Y
        scale = 1e-6 * (1.0 + np.abs(F).max())
        assert np.all(R[(a > 1e-6 * U) & (L[codes] > 0)] >= -scale)
        assert np.all(R[(a < (1 - 1e-6) * U) & (L[codes] > 0)] <= scale)
        np.testing.assert_allclose(est.decision_function(X).sum(axis=1), 0.0,
                                   atol=1e-12 * max(1.0, np.abs(F).max()))

    return check


class _Rescaled:
    """A fitted model seen on unscaled inputs (gamma="scale" makes rbf scale invariant)."""

    def __init__(self, est, s):
        self.est, self.s = est, s

    def __getattr__(self, name):
        return getattr(self.est, name)

    def decision_function(self, X):
        return self.est.decision_function(np.asarray(X) * self.s)


def _decisions_of(est, X, y=None, **params):
    """Oracle for decision_function / predict / score: recomputed from the fitted arrays."""
    def values(Xt):
        Kt = _gram(Xt, X, params.get("kernel", "rbf"), params.get("gamma", "scale"), Xfit=X)
        F = Kt @ est.dual_coef_ + est.intercept_
        return F - F.mean(axis=1, keepdims=True)
    return values


def _dec_ok(est, Xfit, Xt, **params):
    def check(F):
        G = _decisions_of(est, Xfit, **params)(Xt)
        assert F.shape == G.shape
        np.testing.assert_allclose(F, G, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(F.sum(axis=1), 0.0, atol=1e-12 * max(1.0, np.abs(F).max()))
    return check


def _pred_ok(est, Xfit, Xt, **params):
    def check(pred):
        G = _decisions_of(est, Xfit, **params)(Xt)
        top = np.sort(G, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-9
        np.testing.assert_array_equal(pred[clear], est.classes_[np.argmax(G, axis=1)][clear])
    return check


def _score_ok(est, Xfit, Xt, yt, **params):
    def check(sc):
        G = _decisions_of(est, Xfit, **params)(Xt)
        assert sc == pytest.approx(float(np.mean(est.classes_[np.argmax(G, axis=1)] == np.ravel(yt))))
    return check


def _code_of(p, costs=None):
    p = np.asarray(p, dtype=float)
    k = p.size
    w = p @ (np.ones((k, k)) - np.eye(k) if costs is None else np.asarray(costs, dtype=float))

    def check(f):
        assert abs(f.sum()) <= 1e-12 * k
        order = np.sort(w)
        assert order[1] - order[0] > 1e-12, "closed form not unique"
        np.testing.assert_allclose(f, _codes(np.array([int(np.argmin(w))]), k)[0], atol=1e-10)
    return check


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------

CASES: list[Case] = []


def add(callable_, category, call, expect, match=None, check=None, note="", warns=None):
    CASES.append(Case(callable_, category, call, expect, match=match, check=check, note=note, warns=warns))


# ---- fit -----------------------------------------------------------------------------------
fit = lambda X, y, **p: (lambda: MulticlassSVC(**p).fit(X, y))  # noqa: E731

add(FIT, "shape", fit(X0[:, 0], Y0), "ValueError", r"Reshape your data", note="1-D X")
add(FIT, "shape", fit(X0[None], Y0), "ValueError", r"X must be a 2-D array", note="3-D X")
add(FIT, "shape", fit(X0, Y0[:-1]), "ValueError", r"30 samples .* 29 labels", note="y too short")
add(FIT, "shape", fit(X0, np.c_[Y0, Y0]), "ValueError", r"y should be a 1d array", note="2-column y")
add(FIT, "shape", fit(X0[:5], Y0[:5], kernel="precomputed"), "ValueError", r"square", note="precomputed 5x3")
add(FIT, "shape", fit(X0, Y0, costs=np.ones((2, 2)) - np.eye(2)), "ValueError", r"costs must be a \(k, k\)",
    note="costs 2x2 for 3 classes")
add(FIT, "shape", fit(X0, Y0[:, None]), "ok", check=_certified(X0, Y0), note="column y (warns)",
    warns=UserWarning)
add(FIT, "dtype-complex", fit(X0 + 1j, Y0), "TypeError", r"Complex data not supported", note="complex X")
add(FIT, "dtype-complex", fit(X0, Y0 + 0j), "TypeError", r"Complex data not supported", note="complex y")
add(FIT, "dtype-complex", fit(X0, Y0, costs=(np.ones((3, 3)) - np.eye(3)) * (1 + 1j)), "TypeError",
    r"Complex data not supported: costs", note="complex costs")
XB = X0 > 0
add(FIT, "dtype-bool", fit(XB, Y0, kernel="linear"), "ok", check=_certified(XB, Y0, kernel="linear"),
    note="bool X as 0/1")
YB = X0[:, 0] > 0.5
add(FIT, "dtype-bool", fit(X0, YB), "ok", check=_certified(X0, YB), note="bool y (two classes)")
add(FIT, "dtype-bool", fit(X0, Y0, costs=~np.eye(3, dtype=bool)), "ok", check=_certified(X0, Y0),
    note="bool costs = 0/1")
add(FIT, "dtype-object", fit(X0.astype(object), Y0), "ok", check=_certified(X0, Y0), note="object numbers")
add(FIT, "dtype-object", fit(X0.astype(str), Y0), "TypeError", r"X must hold numbers", note="strings X")
YS = np.array(["pear", "apple", "fig"])[Y0]
add(FIT, "dtype-object", fit(X0, YS), "ok", check=_certified(X0, YS), note="string labels")
add(FIT, "dtype-object", fit(X0, np.array([1, "a", 2.5] * 10, dtype=object)), "TypeError",
    r"mutually comparable", note="mixed labels")
add(FIT, "dtype-object", fit(X0, Y0, costs=[["0", "1", "1"]] * 3), "TypeError", r"costs must hold numbers",
    note="string costs")
X32 = X0.astype(np.float32)
add(FIT, "dtype-float32", fit(X32, Y0), "ok", check=_certified(X32, Y0), note="float32 X rbf")
K32 = (X0 @ X0.T).astype(np.float32)
add(FIT, "dtype-float32", fit(K32, Y0, kernel="precomputed"), "ok",
    check=_certified(K32, Y0, kernel="precomputed"), note="float32 precomputed")
for what, bad in (("nan", np.nan), ("inf", np.inf)):
    Xb = X0.copy()
    Xb[3, 1] = bad
    add(FIT, "nan-inf", fit(Xb, Y0), "ValueError", r"X contains (NaN|infinity)", note=f"{what} in X")
add(FIT, "nan-inf", fit(X0, np.r_[np.nan, Y0[1:].astype(float)]), "ValueError", r"y contains NaN", note="nan y")
CN = np.ones((3, 3)) - np.eye(3)
CN[0, 1] = np.nan
add(FIT, "nan-inf", fit(X0, Y0, costs=CN), "ValueError", r"costs contains NaN", note="nan costs")
add(FIT, "empty", fit(np.empty((0, 3)), []), "ValueError", r"0 sample\(s\)", note="no samples")
add(FIT, "empty", fit(np.empty((30, 0)), Y0), "ValueError", r"0 feature\(s\)", note="no features")
add(FIT, "empty", fit(X0, None), "ValueError", r"requires y to be passed", note="y None")
add(FIT, "empty", fit(X0, Y0, costs=np.zeros((3, 3))), "ok",
    check=lambda est: (est.support_.size == 0 and np.all(est.decision_function(XT) == 0)
                       and est.objective_ == 0.0) or pytest.fail("zero costs: f = 0"),
    note="all-zero costs: f = 0")
add(FIT, "one-sample", fit(X0[:1], Y0[:1]), "ValueError", r"n_samples=1.*one class only", note="one sample")
add(FIT, "one-sample", fit(X0[:3], [2, 0, 1], kernel="linear"), "ok",
    check=_certified(X0[:3], [2, 0, 1], kernel="linear"), note="one sample per class")
add(FIT, "one-class", fit(X0, np.zeros(30)), "ValueError", r"one class only", note="all zeros")
add(FIT, "one-class", fit(X0, ["a"] * 30), "ValueError", r"one class only", note="one string label")
add(FIT, "one-class", fit(X0, np.linspace(0, 1, 30)), "ValueError", r"Unknown label type: continuous",
    note="regression target")
add(FIT, "one-class", fit(X0, np.r_[Y0[:-1], 7]), "ok", check=_certified(X0, np.r_[Y0[:-1], 7]),
    note="a class with one sample")
add(FIT, "extreme-scale", fit(X0 * 1e200, Y0), "ValueError", r"gamma='scale' .* not representable",
    note="1e200 rbf scale")
add(FIT, "extreme-scale", fit(X0 * 1e200, Y0, kernel="linear"), "ValueError", r"overflow", note="1e200 linear")
for s in (1e100, 1e-100):
    add(FIT, "extreme-scale", fit(X0 * s, Y0), "ok",
        check=lambda est, s=s: _certified(X0, Y0)(_Rescaled(est, s)), note=f"rbf X x{s:g}")
add(FIT, "extreme-scale", fit(X0, Y0, C=1e-200), "ok", check=_certified(X0, Y0, C=1e-200), note="C 1e-200")


def _hard_margin(C):
    """Oracle for a huge C on data the RBF kernel separates: the hard-margin solution, reached
    already at C = 1e4 (certified there, with every alpha < C); the same decisions and value."""
    def check(est):
        ref = MulticlassSVC(C=1e4, tol=1e-10).fit(X0, Y0)
        _certified(X0, Y0, C=1e4)(ref)
        assert ref.alpha_.max() < 0.5e4
        assert est.objective_ == pytest.approx(ref.objective_, rel=1e-7)
        np.testing.assert_allclose(est.decision_function(XT), ref.decision_function(XT), atol=1e-6)
        assert np.all(est.alpha_ <= C)
    return check


for C in (1e12, 1e200):
    add(FIT, "extreme-scale", fit(X0, Y0, C=C), "ok", check=_hard_margin(C), note=f"C {C:g} hard margin")


# the data: three overlapping classes (not separable), the linear kernel
_RI = np.random.default_rng(1)
_CI = _RI.normal(0, 2, (3, 2))
YI = np.arange(120) % 3
XI = _CI[YI] + _RI.normal(size=(120, 2))


def _loss_min_lp(X, y):
    """The least LLW loss of a linear f (sum_j w_j = 0, sum_j b_j = 0), by scipy's HiGHS:
    the limit of P / C as C -> inf (the penalty's share vanishes)."""
    from scipy.optimize import linprog
    n, d = X.shape
    k = int(y.max()) + 1
    pairs = [(i, j) for i in range(n) for j in range(k) if j != y[i]]
    m = len(pairs)
    nv = d * k + k + m                       # w (d x k, column-major by class), b, slacks
    A = np.zeros((m, nv))
    for r, (i, j) in enumerate(pairs):       # x_i w_j + b_j - xi_r <= -1/(k-1)
        A[r, j * d:(j + 1) * d] = X[i]
        A[r, d * k + j] = 1.0
        A[r, d * k + k + r] = -1.0
    Aeq = np.zeros((d + 1, nv))
    for j in range(k):
        Aeq[:d, j * d:(j + 1) * d] = np.eye(d)
        Aeq[d, d * k + j] = 1.0
    c = np.r_[np.zeros(d * k + k), np.ones(m)]
    res = linprog(c, A_ub=A, b_ub=np.full(m, -1.0 / (k - 1)), A_eq=Aeq, b_eq=np.zeros(d + 1),
                  bounds=[(None, None)] * (d * k + k) + [(0, None)] * m, method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0, res.message
    return float(res.fun)


_LIMIT_REF = {}


def _large_c_limit_ok(s):
    """Oracle for X * s, C = 1, linear kernel: the problem on X with C = s^2 (w -> w s), a huge
    C on data that are not separable. Its value over C tends to the least loss (an LP solved
    by scipy, independently) and, past the path's last breakpoint, f no longer changes: the
    decisions of the certified fits at C = 1e4 and 1e5 on X (which agree, so 1e4 is past it;
    certified by ``_certified``). Checked: value, loss of the returned f (LP optimal),
    decisions (clear of ties), the certificate, the box and the column sums."""
    def check(est):
        if not _LIMIT_REF:
            r4 = MulticlassSVC(kernel="linear", C=1e4, tol=1e-9).fit(XI, YI)
            r5 = MulticlassSVC(kernel="linear", C=1e5, tol=1e-9).fit(XI, YI)
            _certified(XI, YI, kernel="linear", C=1e4)(r4)
            np.testing.assert_allclose(r5.decision_function(XI), r4.decision_function(XI), atol=1e-7)
            _LIMIT_REF.update(ref=r4, lp=_loss_min_lp(XI, YI))
        ref, lp = _LIMIT_REF["ref"], _LIMIT_REF["lp"]
        assert est.objective_ == pytest.approx(lp, rel=1e-8)          # C = 1: P = loss + O(1/s^2)
        assert est.primal_objective_ == pytest.approx(lp, rel=1e-8)
        assert 0 <= est.duality_gap_ <= 1e-6 or abs(est.duality_gap_) <= 1e-12
        F = est.decision_function(XI * s)
        Y = _codes(YI, 3)
        W = 1.0 - np.eye(3)[YI]
        assert float(np.sum(W * np.maximum(F - Y, 0.0))) == pytest.approx(lp, rel=1e-8)
        G = ref.decision_function(XI)
        np.testing.assert_allclose(F, G, atol=1e-6)
        top = np.sort(G, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-6
        np.testing.assert_array_equal(est.predict(XI * s)[clear], ref.predict(XI)[clear])
        a = est.alpha_
        assert np.all(a >= 0) and np.all(a <= W) and np.all(a[W == 0] == 0)
        assert np.ptp(a.sum(axis=0)) <= 1e-10 * a.sum(axis=0).max()
        np.testing.assert_allclose(est.dual_coef_.sum(axis=1), 0.0, atol=1e-12 * np.abs(est.dual_coef_).max())
    return check


for s in (1e10, 1e50, 1e100):
    add(FIT, "extreme-scale", fit(XI * s, YI, kernel="linear"), "ok", check=_large_c_limit_ok(s),
        note=f"linear X x{s:g} large-C limit")
KNS = X0 @ X0.T
KNS[0, 1] += 1.0
add(FIT, "non-symmetric", fit(KNS, Y0, kernel="precomputed"), "ValueError", r"symmetric", note="precomputed")
add(FIT, "non-symmetric", fit(X0, Y0, kernel=lambda A, B: A @ B.T + np.arange(len(B))), "ValueError",
    r"symmetric", note="callable")
CA = np.array([[0.0, 1.0, 3.0], [0.5, 0.0, 1.0], [2.0, 0.2, 0.0]])
add(FIT, "non-symmetric", fit(X0, Y0, costs=CA), "ok", check=_certified(X0, Y0, costs=CA),
    note="asymmetric costs are valid")
add(FIT, "non-psd", fit(-np.eye(30), Y0, kernel="precomputed"), "ValueError", r"not positive semidefinite",
    note="negative definite")
add(FIT, "non-psd", fit(X0, Y0, kernel="sigmoid", gamma=0.5, coef0=-1.0), "ValueError",
    r"sigmoid.*not positive semidefinite", note="indefinite sigmoid")
KP = X0 @ X0.T
add(FIT, "non-psd", fit(KP, Y0, kernel="precomputed"), "ok", check=_certified(KP, Y0, kernel="precomputed"),
    note="PSD of rank 3 (singular)")
for pname, value, exc, pat in (
    ("C", "1", "TypeError", r"C must be a real number"),
    ("tol", [1e-3], "TypeError", r"tol must be a real number"),
    ("kernel", 3, "TypeError", r"kernel must be one of"),
    ("degree", 2.5, "TypeError", r"degree must be an integer"),
    ("max_iter", 1.5, "TypeError", r"max_iter must be an integer"),
    ("gamma", [1.0], "TypeError", r"gamma must be a real number"),
    ("coef0", "a", "TypeError", r"coef0 must be a real number"),
    ("costs", "cheap", "TypeError", r"costs must be a \(k, k\) array"),
):
    add(FIT, "param-type", fit(X0, Y0, **{pname: value}), exc, pat, note=f"{pname}={value!r}")
for pname, value, pat in (
    ("C", 0.0, r"C must be a finite number > 0"),
    ("C", np.inf, r"C must be"),
    ("tol", -1.0, r"tol must be"),
    ("gamma", -1.0, r"gamma must be"),
    ("kernel", "cosine", r"kernel must be one of"),
    ("max_iter", 0, r"max_iter must be a positive integer or -1"),
    ("costs", -(np.ones((3, 3)) - np.eye(3)), r"costs must be nonnegative"),
    ("costs", np.ones((3, 3)), r"costs must have a zero diagonal"),
):
    add(FIT, "param-range", fit(X0, Y0, **{pname: value}), "ValueError", pat, note=f"{pname}")
add(FIT, "param-range", fit(X0, Y0, max_iter=2), "ok", warns=ConvergenceWarning,
    check=lambda est: (est.n_iter_ == 2) or pytest.fail("not stopped at 2"), note="cap 2 warns")
_R4 = np.random.default_rng(0)
Y4K = np.arange(4000) % 3
X4K = _R4.normal(0, 2, (3, 5))[Y4K] + _R4.normal(size=(4000, 5))
add(FIT, "huge-size", fit(X4K, Y4K), "ok", check=_certified(X4K, Y4K),
    note="n=4000, 3 classes: admitted by the size guard, so it must finish within the "
    "battery's time limit (the interior-point solver took ~13 s per iteration), certified")
add(FIT, "huge-size", fit(np.zeros((20000, 1)), np.arange(20000) % 3, kernel=lambda A, B: A @ B.T),
    "ValueError", r"GRAM_LIMIT_MB", note="n=20000, 3 classes, a callable kernel: its PSD check needs the "
    "Gram matrix (3 GiB), refused up front (named kernels need no n x n matrix since the decomposition solver)")


# ---- predict / decision_function / score ------------------------------------------------------
RBF = MulticlassSVC().fit(X0, Y0)
LIN = MulticlassSVC(kernel="linear").fit(X0, Y0)
PRE = MulticlassSVC(kernel="precomputed").fit(X0 @ X0.T, Y0)
KT = XT @ X0.T

for name, method, ok in ((DECISION, "decision_function", _dec_ok), (PREDICT, "predict", _pred_ok)):
    call = lambda est, X, m=method: (lambda: getattr(est, m)(X))  # noqa: E731
    add(name, "shape", call(RBF, XT[:, :2]), "ValueError", r"X has 2 features, but MulticlassSVC is expecting 3",
        note="2 features")
    add(name, "shape", call(RBF, XT[0]), "ValueError", r"Reshape your data", note="1-D")
    add(name, "shape", call(PRE, KT[:, :5]), "ValueError", r"kernel='precomputed'", note="precomputed 5 cols")
    add(name, "shape", call(PRE, KT), "ok", check=ok(PRE, X0 @ X0.T, KT, kernel="precomputed"),
        note="precomputed (12, 30)")
    add(name, "dtype-complex", call(RBF, XT + 1j), "TypeError", r"Complex data not supported", note="complex")
    add(name, "dtype-bool", call(LIN, XT > 0), "ok", check=ok(LIN, X0, (XT > 0).astype(float), kernel="linear"),
        note="bool as 0/1")
    add(name, "dtype-object", call(RBF, XT.astype(object)), "ok", check=ok(RBF, X0, XT), note="object numbers")
    add(name, "dtype-object", call(RBF, XT.astype(str)), "TypeError", r"X must hold numbers", note="strings")
    add(name, "dtype-float32", call(RBF, XT.astype(np.float32)), "ok",
        check=ok(RBF, X0, XT.astype(np.float32).astype(float)), note="float32")
    XN = XT.copy()
    XN[0, 0] = np.nan
    add(name, "nan-inf", call(RBF, XN), "ValueError", r"X contains (NaN|infinity)", note="nan")
    add(name, "empty", call(RBF, np.empty((0, 3))), "ValueError", r"0 sample\(s\)", note="no rows")
    add(name, "empty", lambda m=method: getattr(MulticlassSVC(), m)(XT), "ValueError", r"not fitted",
        note="unfitted")
    add(name, "one-sample", call(RBF, XT[:1]), "ok", check=ok(RBF, X0, XT[:1]), note="one row")
    add(name, "extreme-scale", call(RBF, XT * 1e200), "ok", check=ok(RBF, X0, XT * 1e200), note="far points")
    add(name, "extreme-scale", call(LIN, XT * 1e200), "ok", check=ok(LIN, X0, XT * 1e200, kernel="linear"),
        note="linear 1e200")
    add(name, "extreme-scale", call(LIN, np.full((2, 3), 1.5e308)), "ValueError", r"overflow",
        note="linear overflow")
    add(name, "param-type", call(RBF, "abc"), "TypeError", r"X must be a 2-D array", note="a string")
    add(name, "param-range", call(RBF, np.ones((2, 3))), "ok", check=ok(RBF, X0, np.ones((2, 3))),
        note="no parameters: duplicate rows")
    add(name, "huge-size", call(RBF, np.tile(XT, (20000, 1))), "ok",
        check=lambda out, m=method: (out.shape[0] == 240000) or pytest.fail("size"), note="240000 rows")

sc = lambda est, X, y: (lambda: est.score(X, y))  # noqa: E731
YT = np.arange(12) % 3
add(SCORE, "shape", sc(RBF, XT, YT[:5]), "ValueError", r"y has shape \(5,\)", note="short y")
add(SCORE, "dtype-complex", sc(RBF, XT + 1j, YT), "TypeError", r"Complex", note="complex X")
add(SCORE, "dtype-bool", sc(LIN, XT > 0, YT), "ok", check=_score_ok(LIN, X0, (XT > 0).astype(float), YT,
    kernel="linear"), note="bool X")
add(SCORE, "dtype-object", sc(RBF, XT.astype(object), YT), "ok", check=_score_ok(RBF, X0, XT, YT), note="object")
add(SCORE, "dtype-float32", sc(RBF, XT.astype(np.float32), YT), "ok",
    check=_score_ok(RBF, X0, XT.astype(np.float32).astype(float), YT), note="float32")
add(SCORE, "nan-inf", sc(RBF, np.where(np.eye(12, 3) > 0, np.inf, XT), YT), "ValueError", r"X contains (NaN|infinity)",
    note="inf")
add(SCORE, "empty", sc(RBF, np.empty((0, 3)), []), "ValueError", r"0 sample\(s\)", note="no rows")
add(SCORE, "one-sample", sc(RBF, XT[:1], YT[:1]), "ok", check=_score_ok(RBF, X0, XT[:1], YT[:1]), note="one row")
add(SCORE, "one-class", sc(RBF, XT, np.zeros(12, int)), "ok", check=_score_ok(RBF, X0, XT, np.zeros(12)),
    note="one class in y")
add(SCORE, "extreme-scale", sc(RBF, XT * 1e200, YT), "ok", check=_score_ok(RBF, X0, XT * 1e200, YT),
    note="far points")
add(SCORE, "param-type", sc(RBF, XT, None), "ValueError", r"requires y", note="y None")
add(SCORE, "param-range", sc(RBF, XT, YT[:, None]), "ok", check=_score_ok(RBF, X0, XT, YT), note="column y")
add(SCORE, "huge-size", sc(RBF, np.tile(XT, (20000, 1)), np.tile(YT, 20000)), "ok",
    check=_score_ok(RBF, X0, XT, YT), note="240000 rows")


# ---- llw_population_minimizer ---------------------------------------------------------------
pop = lambda p, costs=None: (lambda: llw_population_minimizer(p, costs))  # noqa: E731
P4 = [0.5, 0.3, 0.15, 0.05]
add(POP, "shape", pop([[0.5, 0.5]]), "ValueError", r"p must be a 1-D array", note="2-D p")
add(POP, "shape", pop(P4, np.ones((3, 3)) - np.eye(3)), "ValueError", r"costs must be a \(k, k\) = \(4, 4\)",
    note="costs 3x3")
add(POP, "shape", pop(P4), "ok", check=_code_of(P4), note="the Bayes-code example")
add(POP, "dtype-complex", pop(np.array(P4) + 0j), "TypeError", r"Complex data not supported: p", note="complex")
add(POP, "dtype-bool", pop([False, True, False]), "ok", check=_code_of([0, 1, 0]), note="bool p = (0,1,0)")
add(POP, "dtype-object", pop(["0.5", "0.5"]), "TypeError", r"p must hold numbers", note="strings")
add(POP, "dtype-object", pop(np.array(P4, dtype=object)), "ok", check=_code_of(P4), note="object numbers")
add(POP, "dtype-float32", pop(np.array(P4, dtype=np.float32)), "ok", check=_code_of(np.array(P4, np.float32)),
    note="float32 (sum 1 to float32 rounding)")
add(POP, "nan-inf", pop([0.5, np.nan, 0.5]), "ValueError", r"p contains NaN", note="nan")
add(POP, "nan-inf", pop(P4, np.where(np.eye(4) > 0, 0.0, np.inf)), "ValueError", r"costs contains NaN",
    note="inf costs")
add(POP, "empty", pop([]), "ValueError", r"k >= 2", note="no classes")
add(POP, "one-sample", pop([1.0]), "ValueError", r"k >= 2", note="one class")
add(POP, "one-class", pop([0.0, 1.0, 0.0, 0.0]), "ok", check=_code_of([0.0, 1.0, 0.0, 0.0]),
    note="all mass on one class")
add(POP, "extreme-scale", pop([1 - 2e-200, 1e-200, 1e-200]), "ok", check=_code_of([1.0, 1e-200, 1e-200]),
    note="p 1e-200")
CE = (np.ones((4, 4)) - np.eye(4)) * 1e200
add(POP, "extreme-scale", pop(P4, CE), "ok", check=_code_of(P4), note="costs 1e200")
CA4 = np.array([[0, 1, 2, 3], [1, 0, 1, 5], [4, 1, 0, 1], [2, 2, 2, 0]], dtype=float)
add(POP, "non-symmetric", pop(P4, CA4), "ok", check=_code_of(P4, CA4), note="asymmetric costs")
add(POP, "param-type", pop(P4, "zero-one"), "TypeError", r"costs must be a \(k, k\) array", note="costs str")
add(POP, "param-type", pop(None), "TypeError", r"p must be a 1-D array", note="p None")
add(POP, "param-range", pop([0.7, 0.7, -0.4]), "ValueError", r"p must be nonnegative", note="negative p")
add(POP, "param-range", pop([0.5, 0.4]), "ValueError", r"p must sum to 1", note="sum 0.9")
add(POP, "param-range", pop(P4, np.ones((4, 4))), "ValueError", r"zero diagonal", note="costs diagonal")
add(POP, "huge-size", pop(np.full(10**6, 1e-6)), "ValueError", r"MAX_POPULATION_CLASSES", note="10**6 classes")
PH = np.r_[0.5, np.full(999, 0.5 / 999)]
add(POP, "huge-size", pop(PH), "ok", check=_code_of(PH), note="1000 classes")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
