"""Tests of the exact hard-margin SVM dual solver (ktheory.svm._exact, chapter 7).

Oracles: closed forms derived with sympy (XOR, two points), an independent
numerical solver of the *primal* (scipy SLSQP), scikit-learn's SVC with a huge C,
and the exact KKT conditions as hypothesis properties.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ktheory.svm import HardMarginSolution, hard_margin_dual_exact, to_exact

XOR_X = [[-1, -1], [-1, 1], [1, -1], [1, 1]]
XOR_Y = [-1, 1, 1, -1]
POLY2 = dict(kernel="poly", degree=2, gamma=1, coef0=1)


def _phi(x):
    """The explicit 6-dimensional feature map of (1 + <x, z>)^2 in two dimensions."""
    r2 = sp.sqrt(2)
    return (1, x[0] ** 2, r2 * x[0] * x[1], x[1] ** 2, r2 * x[0], r2 * x[1])


# ---------------------------------------------------------------------------
# XOR, exactly
# ---------------------------------------------------------------------------
def test_xor_exact():
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, **POLY2)
    assert isinstance(sol, HardMarginSolution)
    assert sol.alpha == tuple([sp.Rational(1, 8)] * 4)
    assert sol.support == (0, 1, 2, 3)
    assert sol.b == 0
    assert sol.b_per_support == (0, 0, 0, 0)
    assert sol.gram == sp.Matrix(4, 4, lambda i, j: 9 if i == j else 1)
    assert sol.w_norm_sq == sp.Rational(1, 2)
    assert sol.margin == sp.sqrt(2)
    assert sol.width == 2 * sp.sqrt(2)
    assert sol.dual_objective() == sp.Rational(1, 4)
    x1, x2 = sp.symbols("x1 x2")
    assert sp.expand(sol.decision_expression((x1, x2)) - (-x1 * x2)) == 0
    w = sol.weight_vector(_phi)
    assert w.shape == (6, 1)
    assert list(w) == [0, 0, -1 / sp.sqrt(2), 0, 0, 0]
    # w . phi(x) + b reproduces the kernel expansion
    assert sp.expand((w.T * sp.Matrix(_phi((x1, x2))))[0, 0] + sol.b + x1 * x2) == 0
    assert sol.decision_function([[2, 3], [Fraction(1, 2), Fraction(1, 2)]]) == [-6, sp.Rational(-1, 4)]
    assert sol.predict(XOR_X) == XOR_Y
    # f = 0 on the axes: a tie goes to classes[1], as in scikit-learn
    assert sol.decision_function([[0, 0], [0, 2]]) == [0, 0]
    assert sol.predict([[0, 0], [0, 2]]) == [1, 1]
    assert sol.dual_coef == tuple(sp.Rational(di, 8) for di in XOR_Y)


def test_xor_stationarity_system_from_sympy():
    """alpha = 1/8 solves the *correct* stationarity system Q alpha = 1 and not the seed's."""
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, **POLY2)
    d = sp.Matrix(XOR_Y)
    Q = sp.Matrix(4, 4, lambda i, j: sol.gram[i, j] * d[i] * d[j])
    assert list(Q.row(0)) == [9, -1, -1, 1]
    assert list(Q.row(3)) == [1, -1, -1, 9]
    assert Q * sp.Matrix(sol.alpha) == sp.ones(4, 1)
    seed_row0 = sp.Matrix([[9, -1, -1, -1]])
    assert (seed_row0 * sp.Matrix(sol.alpha))[0, 0] != 1


def test_xor_with_linear_kernel_is_not_separable():
    with pytest.raises(ValueError, match="not separable"):
        hard_margin_dual_exact(XOR_X, XOR_Y, kernel="linear")


def test_xor_plus_interior_point_has_zero_alpha():
    X = XOR_X + [[2, 2]]
    y = XOR_Y + [-1]
    sol = hard_margin_dual_exact(X, y, **POLY2)
    assert sol.alpha == tuple([sp.Rational(1, 8)] * 4 + [0])
    assert sol.support == (0, 1, 2, 3)
    assert sol.b == 0
    # the unconstrained stationary point of Q is infeasible (negative alpha_5)
    d = sp.Matrix(y)
    Q = sp.Matrix(5, 5, lambda i, j: sol.gram[i, j] * d[i] * d[j])
    stat = Q.LUsolve(sp.ones(5, 1))
    assert list(stat) == [sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(1, 4), sp.Rational(3, 2), sp.Rational(-1, 2)]


# ---------------------------------------------------------------------------
# two points: closed form derived with sympy
# ---------------------------------------------------------------------------
def test_two_point_symbolic_closed_form():
    """Solve the two-point KKT system with symbols; compare with the solver on instances."""
    a1, a2, b = sp.symbols("a1 a2 b")
    k11, k12, k22 = sp.symbols("k11 k12 k22")
    # x_1 has d=+1, x_2 has d=-1
    f1 = a1 * k11 - a2 * k12 + b
    f2 = a1 * k12 - a2 * k22 + b
    sol = sp.solve([f1 - 1, f2 + 1, a1 - a2], [a1, a2, b], dict=True)[0]
    D = k11 + k22 - 2 * k12
    assert sp.simplify(sol[a1] - 2 / D) == 0
    assert sp.simplify(sol[b] - (k22 - k11) / D) == 0
    for xp, xm in [((0, 0), (1, 2)), ((3, -1), (1, 1)), ((Fraction(1, 2), 0), (0, Fraction(1, 3)))]:
        s = hard_margin_dual_exact([xm, xp], [-1, 1])
        subs = {
            k11: sum(sp.nsimplify(u) ** 2 for u in xp),
            k22: sum(sp.nsimplify(u) ** 2 for u in xm),
            k12: sum(sp.nsimplify(u) * sp.nsimplify(v) for u, v in zip(xp, xm)),
        }
        assert s.alpha == (sol[a1].subs(subs), sol[a1].subs(subs))
        assert s.b == sol[b].subs(subs)
        assert s.width == sp.sqrt(sum((sp.nsimplify(u) - sp.nsimplify(v)) ** 2 for u, v in zip(xp, xm)))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=3, max_size=3),
    st.lists(st.integers(-5, 5), min_size=3, max_size=3),
)
def test_two_points_margin_is_half_distance(p, q):
    if p == q:
        with pytest.raises(ValueError, match="not separable"):
            hard_margin_dual_exact([p, q], [1, -1])
        return
    s = hard_margin_dual_exact([p, q], [1, -1])
    dist2 = sum((u - v) ** 2 for u, v in zip(p, q))
    assert s.alpha == (sp.Rational(2, dist2), sp.Rational(2, dist2))
    assert s.b == sp.Rational(sum(v * v for v in q) - sum(u * u for u in p), dist2)
    assert sp.simplify(s.margin - sp.sqrt(dist2) / 2) == 0


# ---------------------------------------------------------------------------
# random separable problems: exact KKT, primal oracle, scikit-learn
# ---------------------------------------------------------------------------
def _separable_linear(rng, n, dim=2):
    while True:
        X = rng.integers(-4, 5, size=(n, dim))
        w = rng.integers(-3, 4, size=dim)
        c = rng.integers(-3, 4)
        s = X @ w + c
        if np.all(s != 0) and len(set(np.sign(s))) == 2 and len({tuple(r) for r in X}) == n:
            return X, np.where(s > 0, 1, -1)


def _separable_quadratic(rng, n):
    while True:
        X = rng.integers(-3, 4, size=(n, 2))
        A = rng.integers(-2, 3, size=3)
        s = A[0] * X[:, 0] ** 2 + A[1] * X[:, 0] * X[:, 1] - A[2] * X[:, 1] ** 2 + rng.integers(-2, 3)
        if np.all(s != 0) and len(set(np.sign(s))) == 2 and len({tuple(r) for r in X}) == n:
            return X, np.where(s > 0, 1, -1)


def _check_kkt(sol: HardMarginSolution, y):
    d = [1 if v == sol.classes[1] else -1 for v in y]
    assert list(sol.d) == d
    assert all(a >= 0 for a in sol.alpha)
    assert sp.simplify(sum(a * di for a, di in zip(sol.alpha, d))) == 0
    f = sol.decision_function(sol.X if sol.X is not None else sol.gram)
    for i, (fi, di) in enumerate(zip(f, d)):
        slack = sp.simplify(di * fi - 1)
        assert slack >= 0, (i, slack)
        if sol.alpha[i] != 0:
            assert slack == 0
    # strong duality: ||w||^2 = sum alpha, so the dual optimum is ||w||^2 / 2
    assert sp.simplify(sol.w_norm_sq - sum(sol.alpha)) == 0
    assert sp.simplify(sol.dual_objective() - sol.w_norm_sq / 2) == 0


def _primal_slsqp(X, d):
    """Independent oracle: min ||w||^2/2 s.t. d_i (w.x_i + b) >= 1, by scipy SLSQP."""
    from scipy.optimize import minimize

    X = np.asarray(X, float)
    dim = X.shape[1]
    cons = {"type": "ineq", "fun": lambda v: d * (X @ v[:dim] + v[dim]) - 1, "jac": lambda v: np.c_[d[:, None] * X, d]}
    res = minimize(
        lambda v: 0.5 * v[:dim] @ v[:dim],
        np.zeros(dim + 1),
        jac=lambda v: np.r_[v[:dim], 0.0],
        constraints=[cons],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    # trusted only at a feasible point where SLSQP converged (0) or could not improve
    # at float64 accuracy (8, "positive directional derivative", seen under some BLAS
    # kernels)
    assert res.status in (0, 8), res.message
    assert np.min(cons["fun"](res.x)) >= -1e-8, "SLSQP's point violates a margin"
    return res.x[:dim], res.x[dim]


@pytest.mark.parametrize("seed", range(8))
def test_random_linear_against_primal_oracle_and_sklearn(seed):
    from sklearn.svm import SVC

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    X, y = _separable_linear(rng, n)
    sol = hard_margin_dual_exact(X, y)
    _check_kkt(sol, y)
    w = np.array([float(sum(c * X[p, j] for p, c in enumerate(sol.dual_coef))) for j in range(2)])
    b = float(sol.b)
    w_ref, b_ref = _primal_slsqp(X, y.astype(float))
    np.testing.assert_allclose(w, w_ref, atol=1e-6)
    assert abs(b - b_ref) < 1e-6
    assert abs(float(sol.w_norm_sq) - w_ref @ w_ref) < 1e-6
    clf = SVC(kernel="linear", C=1e10, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w, atol=1e-5)
    np.testing.assert_allclose(clf.intercept_[0], b, atol=1e-5)


@pytest.mark.parametrize("seed", range(6))
def test_random_quadratic_against_sklearn_poly(seed):
    from sklearn.svm import SVC

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(4, 8))
    X, y = _separable_quadratic(rng, n)
    sol = hard_margin_dual_exact(X, y, **POLY2)
    _check_kkt(sol, y)
    clf = SVC(kernel="poly", degree=2, coef0=1, gamma=1, C=1e10, tol=1e-10).fit(X, y)
    T = rng.integers(-4, 5, size=(6, 2))
    exact = np.array([float(v) for v in sol.decision_function(T)])
    np.testing.assert_allclose(clf.decision_function(T), exact, atol=1e-5 * max(1, np.abs(exact).max()))
    np.testing.assert_allclose(clf.intercept_[0], float(sol.b), atol=1e-5)
    # labels agree where the exact decision is clear of 0 (a tie f = 0 at an integer test
    # point is decided by the last bits of clf's f)
    clear = np.abs(exact) > 1e-4 * max(1, np.abs(exact).max())
    assert [p for p, c in zip(clf.predict(T), clear) if c] == [p for p, c in zip(sol.predict(T), clear) if c]


def test_xor_against_sklearn():
    from sklearn.svm import SVC

    clf = SVC(kernel="poly", degree=2, coef0=1, gamma=1, C=1e10, tol=1e-12).fit(XOR_X, XOR_Y)
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, **POLY2)
    # scikit-learn lists the support class by class; compare index by index
    assert sorted(int(i) for i in clf.support_) == list(sol.support)
    exact = {p: float(c) for p, c in enumerate(sol.dual_coef)}
    np.testing.assert_allclose(clf.dual_coef_[0], [exact[int(i)] for i in clf.support_], atol=1e-8)
    np.testing.assert_allclose(clf.intercept_, [0.0], atol=1e-8)


def test_transcendental_callable_kernel_two_points_against_sklearn():
    """A Gaussian kernel as a callable: exp values stay exact (two points keep it fast)."""
    from sklearn.svm import SVC

    k = lambda x, z: sp.exp(-sum((a - b) ** 2 for a, b in zip(x, z)) / 2)  # noqa: E731
    X = [[0, 0], [1, 1]]
    sol = hard_margin_dual_exact(X, [0, 1], kernel=k)
    # two points: alpha = 2 / (k11 + k22 - 2 k12) = 1 / (1 - e^{-1})
    assert sp.simplify(sol.alpha[0] - 1 / (1 - sp.exp(-1))) == 0
    assert sp.simplify(sol.b) == 0
    clf = SVC(kernel="rbf", gamma=0.5, C=1e10, tol=1e-12).fit(X, [0, 1])
    T = [[0.5, 0.0], [2, 1], [-1, 0]]
    np.testing.assert_allclose(clf.decision_function(T), [float(v) for v in sol.decision_function(T)], atol=1e-6)


def test_rbf_kernel_against_sklearn():
    from sklearn.svm import SVC

    X = [[0, 0], [1, 0], [0, 1], [2, 2]]
    y = [0, 1, 1, 0]
    sol = hard_margin_dual_exact(X, y, kernel="rbf", gamma=Fraction(1, 2))
    assert sol.gram[0, 1] == sp.exp(sp.Rational(-1, 2))
    _check_kkt(sol, y)
    clf = SVC(kernel="rbf", gamma=0.5, C=1e10, tol=1e-12).fit(X, y)
    T = [[0.5, 0.5], [1, 1], [-1, 0]]
    np.testing.assert_allclose(clf.decision_function(T), [float(v) for v in sol.decision_function(T)], atol=1e-6)
    np.testing.assert_allclose(clf.intercept_[0], float(sol.b), atol=1e-6)


# ---------------------------------------------------------------------------
# invariants
# ---------------------------------------------------------------------------
point = st.tuples(st.integers(-4, 4), st.integers(-4, 4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(point, min_size=3, max_size=6, unique=True), st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3), st.randoms(use_true_random=False))
def test_properties_linear(pts, w1, w2, c, rnd):
    X = np.array(pts)
    s = X @ np.array([w1, w2]) + c
    assume(np.all(s != 0) and len(set(np.sign(s))) == 2)  # separable by construction, both classes
    y = np.where(s > 0, 1, -1)
    sol = hard_margin_dual_exact(X, y)
    _check_kkt(sol, y)
    w = [sp.simplify(sum(cf * int(X[p, j]) for p, cf in enumerate(sol.dual_coef))) for j in range(2)]
    # permutation of the samples: same hyperplane
    perm = list(range(len(pts)))
    rnd.shuffle(perm)
    sp_ = hard_margin_dual_exact(X[perm], y[perm])
    assert [sp.simplify(sum(cf * int(X[perm][p, j]) for p, cf in enumerate(sp_.dual_coef))) for j in range(2)] == w
    assert sp_.b == sol.b
    # swapping the labels flips the sign of f
    sw = hard_margin_dual_exact(X, -y)
    assert sw.b == -sol.b
    assert sw.w_norm_sq == sol.w_norm_sq
    # scaling the inputs by 2 doubles the width (margin scales with the data)
    sc = hard_margin_dual_exact(2 * X, y)
    assert sp.simplify(sc.width - 2 * sol.width) == 0
    assert sc.b == sol.b
    # translating the inputs leaves w unchanged and shifts b by -w.t
    t = (1, -2)
    tr = hard_margin_dual_exact(X + np.array(t), y)
    assert sp.simplify(tr.b - (sol.b - w[0] * t[0] - w[1] * t[1])) == 0
    # exact screen and no screen agree
    ns = hard_margin_dual_exact(X, y, screen=False)
    assert ns.b == sol.b and ns.w_norm_sq == sol.w_norm_sq


def test_no_screen_agrees_and_detects_non_separable():
    X = XOR_X + [[2, 2]]
    y = XOR_Y + [-1]
    a = hard_margin_dual_exact(X, y, screen=False, **POLY2)
    b = hard_margin_dual_exact(X, y, **POLY2)
    assert a.alpha == b.alpha and a.b == b.b
    with pytest.raises(ValueError, match="not separable"):
        hard_margin_dual_exact(XOR_X, XOR_Y, kernel="linear", screen=False)


def test_precomputed_matches_named_kernel():
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, **POLY2)
    pre = hard_margin_dual_exact(sol.gram, XOR_Y, kernel="precomputed")
    assert pre.alpha == sol.alpha and pre.b == sol.b
    assert pre.decision_function(sol.gram) == sol.decision_function(XOR_X)
    with pytest.raises(ValueError, match="precomputed"):
        pre.decision_expression(sp.symbols("x1 x2"))


def test_callable_kernel_and_surds():
    k = lambda x, z: (1 + sum(a * b for a, b in zip(x, z))) ** 2  # noqa: E731
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, kernel=k)
    assert sol.alpha == tuple([sp.Rational(1, 8)] * 4)
    r = sp.sqrt(2)
    s2 = hard_margin_dual_exact([[0, 0], [r, r]], [-1, 1])
    assert s2.alpha == (sp.Rational(1, 2), sp.Rational(1, 2))
    assert s2.b == -1
    assert s2.margin == 1


def test_labels_any_two_values():
    s = hard_margin_dual_exact([[0], [2]], ["neg", "pos"])
    assert s.classes == ("neg", "pos") and s.d == (-1, 1)
    assert s.predict([[3], [-1]]) == ["pos", "neg"]
    s01 = hard_margin_dual_exact([[0], [2]], [1, 0])
    assert s01.d == (1, -1)
    assert s01.predict([[3]]) == [0]


def test_floats_are_read_as_decimals():
    assert to_exact([[0.1, 2.5]]) == sp.Matrix([[sp.Rational(1, 10), sp.Rational(5, 2)]])
    s = hard_margin_dual_exact(np.array([[0.0, 0.0], [0.5, 0.0]]), [-1, 1])
    assert s.alpha == (8, 8) and s.b == -1


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "X, y, kw, exc, msg",
    [
        ([[0], [1]], [1, 1], {}, ValueError, "exactly two classes"),
        ([[0], [1], [2]], [0, 1, 2], {}, ValueError, "exactly two classes"),
        ([[0], [1]], [0, 1, 1], {}, ValueError, "different numbers of samples"),
        ([0, 1], [0, 1], {}, ValueError, "2-D"),
        ([[0], [float("nan")]], [0, 1], {}, ValueError, "NaN"),
        ([[0], [float("inf")]], [0, 1], {}, ValueError, "NaN or infinity"),
        ([[0], ["a"]], [0, 1], {}, TypeError, "string"),
        ([[True], [False]], [0, 1], {}, TypeError, "boolean"),
        ([[0], [1j]], [0, 1], {}, TypeError, "real"),
        ([[0, 1], [1]], [0, 1], {}, ValueError, "rectangular"),
        (np.zeros((0, 2)), [], {}, ValueError, "empty"),
        ([[0], [0]], [0, 1], {}, ValueError, "not separable"),
        ([[0], [1]], [[0, 1]], {}, ValueError, "1-D"),
        ([[0], [1]], [0, 1], {"kernel": "cubic"}, ValueError, "kernel must be"),
        ([[0], [1]], [0, 1], {"kernel": 3}, TypeError, "kernel"),
        ([[0], [1]], [0, 1], {"kernel": "poly", "degree": 0}, ValueError, "degree"),
        ([[0], [1]], [0, 1], {"kernel": "poly", "gamma": -1}, ValueError, "gamma"),
        ([[0], [1]], [0, 1], {"kernel": "sigmoid"}, ValueError, "kernel must be"),
        ([[1, 2], [2, 1]], [0, 1], {"kernel": "precomputed"}, ValueError, "positive semidefinite"),
        ([[1, 0], [1, 1]], [0, 1], {"kernel": "precomputed"}, ValueError, "symmetric"),
        ([[1, 0, 0], [0, 1, 0]], [0, 1], {"kernel": "precomputed"}, ValueError, "square"),
        ([[i] for i in range(5)], [0, 0, 1, 1, 1], {"max_samples": 4}, ValueError, "max_samples"),
        ([[0], [1]], None, {}, TypeError, "None"),
    ],
)
def test_bad_input(X, y, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        hard_margin_dual_exact(X, y, **kw)


def test_non_symmetric_callable_kernel_and_symbolic_input():
    with pytest.raises(ValueError, match="not symmetric"):
        hard_margin_dual_exact([[0], [1]], [0, 1], kernel=lambda x, z: x[0] + 2 * z[0] + 1)
    with pytest.raises(TypeError, match="symbolic"):
        hard_margin_dual_exact([[sp.Symbol("t")], [1]], [0, 1])


def test_decision_function_shape_errors():
    sol = hard_margin_dual_exact(XOR_X, XOR_Y, **POLY2)
    with pytest.raises(ValueError, match="features"):
        sol.decision_function([[1, 2, 3]])
    with pytest.raises(ValueError, match="one symbol per feature"):
        sol.decision_expression(sp.symbols("x1 x2 x3"))
    pre = hard_margin_dual_exact(sol.gram, XOR_Y, kernel="precomputed")
    with pytest.raises(ValueError, match="n_test"):
        pre.decision_function([[1, 2]])
