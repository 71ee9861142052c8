"""Tests for ktheory.rkhs.

Oracles are independent of the module: brute-force double loops, closed forms
for kernels whose RKHS is known (linear kernel: ||f|| = ||w||; quadratic
polynomial kernel: explicit feature map; Brownian-motion kernel min(x, y):
||f||^2 = integral of f'^2, computed exactly with sympy; Gaussian kernel:
the Fourier formula integrated with scipy.integrate.quad), scikit-learn's
rbf_kernel and KernelRidge, and hypothesis properties of an inner product.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from ktheory.rkhs import KernelExpansion, project, same_kernel


# ----------------------------------------------------------------- test kernels (own code)
def gauss(X, Y, sigma=1.0):
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma**2))


def lin(X, Y):
    return np.asarray(X, float) @ np.asarray(Y, float).T


def poly2(X, Y):
    return (lin(X, Y) + 1.0) ** 2


def brownian(X, Y):
    return np.minimum(np.asarray(X, float)[:, 0][:, None], np.asarray(Y, float)[:, 0][None, :])


def gauss_scalar(x, y, sigma=1.0):
    return float(np.exp(-np.sum((np.asarray(x) - np.asarray(y)) ** 2) / (2 * sigma**2)))


GAUSS = functools.partial(gauss, sigma=0.7)

# ----------------------------------------------------------------- hypothesis strategies
finite = st.floats(min_value=-3.0, max_value=3.0, allow_nan=False, allow_infinity=False)
coefs = st.floats(min_value=-5.0, max_value=5.0, allow_nan=False, allow_infinity=False)


@st.composite
def expansions(draw, d=None, kernel=GAUSS, min_m=1, max_m=5):
    d = draw(st.integers(1, 3)) if d is None else d
    m = draw(st.integers(min_m, max_m))
    C = np.array(draw(st.lists(st.lists(finite, min_size=d, max_size=d), min_size=m, max_size=m)), float)
    a = np.array(draw(st.lists(coefs, min_size=m, max_size=m)), float)
    return KernelExpansion(kernel, C.reshape(m, d), a)


@st.composite
def triples(draw):
    d = draw(st.integers(1, 3))
    return draw(expansions(d=d)), draw(expansions(d=d)), draw(expansions(d=d))


@st.composite
def expansion_and_points(draw):
    f = draw(expansions())
    n = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(finite, min_size=f.n_features, max_size=f.n_features),
                               min_size=n, max_size=n)), float)
    return f, X.reshape(n, f.n_features)


def brute_eval(f, X):
    return np.array([sum(a * gauss_scalar(c, x, 0.7) for a, c in zip(f.coef, f.centers)) for x in X])


def brute_inner(f, g):
    return sum(a * b * gauss_scalar(c, e, 0.7)
               for a, c in zip(f.coef, f.centers) for b, e in zip(g.coef, g.centers))


def scale_of(*fs):
    return max(1.0, *(float(np.abs(f.coef).sum()) for f in fs))


SETTINGS = settings(max_examples=60, deadline=None)


# ----------------------------------------------------------------- brute force
@SETTINGS
@given(expansion_and_points())
def test_evaluation_matches_brute_force(fX):
    f, X = fX
    np.testing.assert_allclose(f(X), brute_eval(f, X), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(triples())
def test_inner_matches_brute_force(fgh):
    f, g, _ = fgh
    assert f.inner(g) == pytest.approx(brute_inner(f, g), rel=1e-12, abs=1e-12)


# ----------------------------------------------------------------- inner-product axioms
@SETTINGS
@given(triples(), coefs, coefs)
def test_bilinearity(fgh, s, t):
    f, g, h = fgh
    lhs = (s * f + t * g).inner(h)
    rhs = s * f.inner(h) + t * g.inner(h)
    assert lhs == pytest.approx(rhs, abs=1e-10 * scale_of(f, g, h) ** 2 * 25)
    lhs2 = h.inner(f - t * g)
    assert lhs2 == pytest.approx(h.inner(f) - t * h.inner(g), abs=1e-10 * scale_of(f, g, h) ** 2 * 25)


@SETTINGS
@given(triples())
def test_symmetry(fgh):
    f, g, _ = fgh
    assert f.inner(g) == pytest.approx(g.inner(f), abs=1e-12 * scale_of(f, g) ** 2)


@SETTINGS
@given(expansions())
def test_norm_nonnegative_and_consistent(f):
    n = f.norm()
    assert n >= 0.0
    assert n**2 == pytest.approx(max(f.inner(f), 0.0), abs=1e-10 * scale_of(f) ** 2)
    assert (-2.0 * f).norm() == pytest.approx(2.0 * n, abs=1e-7 * scale_of(f))


@SETTINGS
@given(triples())
def test_cauchy_schwarz_and_triangle(fgh):
    f, g, _ = fgh
    tol = 1e-9 * scale_of(f, g) ** 2
    assert abs(f.inner(g)) <= f.norm() * g.norm() + tol
    assert (f + g).norm() <= f.norm() + g.norm() + 1e-7 * scale_of(f, g)


def test_zero_norm_only_for_zero_function():
    # f = k(0,.) - k(0,.) written with a repeated center is the zero function
    f = KernelExpansion(GAUSS, [[0.0], [0.0]], [1.0, -1.0])
    assert f.norm() == 0.0
    X = np.linspace(-3, 3, 7)[:, None]
    np.testing.assert_array_equal(f(X), np.zeros(7))
    assert f.simplify().n_centers == 0
    # distinct centers: the Gaussian Gram matrix is positive definite, so the norm is > 0
    g = KernelExpansion(GAUSS, [[0.0], [0.1]], [1.0, -1.0])
    assert g.norm() > 0.0


# ----------------------------------------------------------------- reproducing property
@SETTINGS
@given(expansion_and_points())
def test_reproducing_property(fX):
    f, X = fX
    via_inner = np.array([f.inner(KernelExpansion.feature(GAUSS, x)) for x in X])
    np.testing.assert_allclose(via_inner, f(X), rtol=1e-12, atol=1e-12 * scale_of(f))
    np.testing.assert_allclose(f.evaluate_via_reproducing(X), f(X), rtol=1e-12, atol=1e-12 * scale_of(f))


@SETTINGS
@given(expansion_and_points())
def test_feature_inner_is_kernel_and_evaluation_bound(fX):
    f, X = fX
    kx = KernelExpansion.feature(GAUSS, X[0])
    ky = KernelExpansion.feature(GAUSS, X[-1])
    assert kx.inner(ky) == pytest.approx(gauss_scalar(X[0], X[-1], 0.7), abs=1e-15)
    assert kx.norm() == pytest.approx(1.0)  # k(x, x) = 1 for the Gaussian
    bound = f.evaluation_bound(X)
    assert np.all(np.abs(f(X)) <= bound + 1e-9 * scale_of(f))
    np.testing.assert_allclose(bound, f.norm() * np.ones(len(X)), rtol=1e-12)


def test_evaluation_bound_is_attained_by_features():
    x = np.array([[0.3, -1.2]])
    f = 2.5 * KernelExpansion.feature(poly2, x[0])
    # |f(x)| = 2.5 k(x,x) = sqrt(k(x,x)) * ||f||: equality in Cauchy-Schwarz
    assert abs(f(x)[0]) == pytest.approx(f.evaluation_bound(x)[0], rel=1e-12)


# ----------------------------------------------------------------- arithmetic and merging
@SETTINGS
@given(triples(), coefs)
def test_arithmetic_acts_pointwise(fgh, s):
    f, g, h = fgh
    X = np.vstack([f.centers, g.centers, h.centers])
    tol = 1e-10 * scale_of(f, g) * 6
    np.testing.assert_allclose((f + g)(X), f(X) + g(X), atol=tol)
    np.testing.assert_allclose((f - g)(X), f(X) - g(X), atol=tol)
    np.testing.assert_allclose((s * f)(X), s * f(X), atol=tol * 5)
    np.testing.assert_allclose((f * s)(X), s * f(X), atol=tol * 5)
    np.testing.assert_allclose((-f)(X), -f(X), atol=tol)
    np.testing.assert_allclose((f / 4.0)(X), f(X) / 4.0, atol=tol)
    np.testing.assert_allclose((np.float64(s) * f)(X), s * f(X), atol=tol * 5)


def test_merging_duplicate_centers():
    f = KernelExpansion(GAUSS, [[0.0, 1.0], [2.0, 2.0]], [1.0, 2.0])
    g = KernelExpansion(GAUSS, [[2.0, 2.0], [-0.0, 1.0], [5.0, 5.0]], [3.0, 4.0, 5.0])
    h = f + g
    np.testing.assert_array_equal(h.centers, [[0.0, 1.0], [2.0, 2.0], [5.0, 5.0]])
    np.testing.assert_array_equal(h.coef, [5.0, 5.0, 5.0])
    d = f - f
    assert d.n_centers == 2 and np.all(d.coef == 0.0)
    assert d.simplify().n_centers == 0
    assert d.norm() == 0.0


def test_zero_function():
    z = KernelExpansion.zero(GAUSS, 2)
    f = KernelExpansion(GAUSS, [[0.0, 1.0]], [3.0])
    assert z.norm() == 0.0 and z.inner(f) == 0.0
    np.testing.assert_array_equal(z(np.ones((3, 2))), np.zeros(3))
    np.testing.assert_allclose((z + f).coef, f.coef)


# ----------------------------------------------------------------- closed-form oracles
def test_linear_kernel_norm_is_euclidean_norm_of_w():
    rng = np.random.default_rng(0)
    C = rng.normal(size=(6, 3))
    a = rng.normal(size=6)
    b = rng.normal(size=4)
    D = rng.normal(size=(4, 3))
    f = KernelExpansion(lin, C, a)
    g = KernelExpansion(lin, D, b)
    w, v = C.T @ a, D.T @ b  # f(x) = <w, x>
    assert f.norm() == pytest.approx(np.linalg.norm(w), rel=1e-12)
    assert f.inner(g) == pytest.approx(w @ v, rel=1e-12)
    X = rng.normal(size=(5, 3))
    np.testing.assert_allclose(f(X), X @ w, rtol=1e-12)


def test_polynomial_kernel_norm_via_explicit_feature_map():
    # (1 + x y)^2 = <phi(x), phi(y)> with phi(x) = (1, sqrt(2) x, x^2); the components are
    # linearly independent functions, so ||sum a_i k(c_i,.)|| = ||sum a_i phi(c_i)||.
    rng = np.random.default_rng(1)
    c = rng.normal(size=5)
    a = rng.normal(size=5)
    phi = np.stack([np.ones_like(c), np.sqrt(2) * c, c**2], axis=1)
    f = KernelExpansion(poly2, c[:, None], a)
    assert f.norm() == pytest.approx(np.linalg.norm(phi.T @ a), rel=1e-12)


def test_brownian_kernel_norm_is_sobolev_seminorm_exactly():
    # For k(x, y) = min(x, y) on [0, inf), ||f||^2 = int_0^inf f'(t)^2 dt (exact sympy oracle).
    t = sp.symbols("t", nonnegative=True)
    c = [sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(5, 4), 2]
    a = [sp.Rational(2), sp.Rational(-3, 2), sp.Rational(1, 5), sp.Rational(7, 10)]
    f_sym = sum(ai * sp.Min(ci, t) for ai, ci in zip(a, c))
    breakpoints = [0] + sorted(c)
    exact = sum(sp.integrate(sp.diff(f_sym, t).subs(t, (lo + hi) / 2) ** 2, (t, lo, hi))
                for lo, hi in zip(breakpoints[:-1], breakpoints[1:]))
    f = KernelExpansion(brownian, np.array([[float(ci)] for ci in c]), np.array([float(ai) for ai in a]))
    assert f.squared_norm() == pytest.approx(float(exact), rel=1e-12)
    X = np.array([[0.2], [0.9], [3.0]])
    np.testing.assert_allclose(f(X), [float(f_sym.subs(t, sp.Float(x[0]))) for x in X], rtol=1e-12)


def test_gaussian_norm_matches_fourier_integral():
    # 1-D Gaussian: ||f||^2 = (1/2pi) int khat(w) |sum_i a_i e^{-i w c_i}|^2 dw,
    # khat(w) = sigma sqrt(2 pi) exp(-sigma^2 w^2 / 2).
    sigma = 0.7
    c = np.array([-1.0, 0.2, 0.5, 1.7])
    a = np.array([1.0, -2.0, 1.5, 0.3])

    def integrand(w):
        khat = sigma * np.sqrt(2 * np.pi) * np.exp(-(sigma**2) * w**2 / 2)
        s = np.sum(a * np.exp(-1j * w * c))
        return khat * abs(s) ** 2 / (2 * np.pi)

    val, _ = integrate.quad(integrand, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-12)
    f = KernelExpansion(GAUSS, c[:, None], a)
    assert f.squared_norm() == pytest.approx(val, rel=1e-9)


def test_inner_product_symbolic_coefficients():
    # a^T K b with symbolic coefficients equals the double sum of 003 (6), with g's own centers
    a = sp.symbols("a1:4")
    b = sp.symbols("b1:3")
    C = np.array([[0.0], [0.5], [1.5]])
    D = np.array([[0.25], [2.0]])
    K = GAUSS(C, D)
    double_sum = sum(a[i] * b[j] * K[i, j] for i in range(3) for j in range(2))
    rng = np.random.default_rng(2)
    for _ in range(3):
        av, bv = rng.normal(size=3), rng.normal(size=2)
        f, g = KernelExpansion(GAUSS, C, av), KernelExpansion(GAUSS, D, bv)
        subs = dict(zip(a, av)) | dict(zip(b, bv))
        assert f.inner(g) == pytest.approx(float(double_sum.subs(subs)), rel=1e-12, abs=1e-14)


# ----------------------------------------------------------------- projection
def test_projection_linear_kernel_is_euclidean_projection():
    rng = np.random.default_rng(3)
    w = rng.normal(size=4)
    f = KernelExpansion(lin, w[None, :], [1.0])  # f = <w, .>
    C = rng.normal(size=(2, 4))
    P = project(f, C)
    Q, _ = np.linalg.qr(C.T)
    w_proj = Q @ (Q.T @ w)
    np.testing.assert_allclose(P.centers.T @ P.coef, w_proj, rtol=1e-10, atol=1e-12)


def fp_tol(g):
    """Floating-point error bound for g.squared_norm(): a^T K a loses m * eps * |a|^T |K| |a|.

    Near-coincident centers make exact projection coefficients large (the span then contains
    approximate derivatives of features), so the attainable accuracy depends on |a|, not on ||g||.
    """
    K = g.gram()
    return 100 * max(1, g.n_centers) * np.finfo(float).eps * float(np.abs(g.coef) @ np.abs(K) @ np.abs(g.coef))


@SETTINGS
@given(expansions(d=1, min_m=1, max_m=4), st.lists(finite, min_size=1, max_size=4, unique=True))
def test_projection_orthogonality_pythagoras_idempotence(f, cs):
    C = np.array(cs)[:, None]
    P = project(f, C)
    R = f - P
    s = scale_of(f)
    w1 = float(np.abs(P.coef).sum())
    eps = np.finfo(float).eps
    # when centers nearly coincide, K is numerically singular and lstsq drops eigen-directions with
    # eigenvalue lambda <= n eps lambda_max; dropping one changes <R, k(., c_i)> by at most ||f|| sqrt(lambda)
    truncation = 10 * np.sqrt(len(C) * eps * len(C)) * f.norm()
    for c in C:
        assert abs(R.inner(KernelExpansion.feature(GAUSS, c))) <= 1e-9 * s + 100 * eps * (w1 + s) + truncation
    tol = 1e-9 * s**2 + fp_tol(P) + fp_tol(R) + fp_tol(f)
    assert f.squared_norm() == pytest.approx(P.squared_norm() + R.squared_norm(), abs=tol)
    assert P.squared_norm() <= f.squared_norm() + tol
    Q = project(P, C)
    assert Q.distance(P) <= 1e-7 * s + np.sqrt(fp_tol(P) + fp_tol(Q))


def test_projection_well_separated_centers_is_accurate():
    # with well-conditioned K the projection identities hold to near machine precision
    rng = np.random.default_rng(7)
    for _ in range(20):
        f = KernelExpansion(GAUSS, rng.uniform(-3, 3, size=(5, 1)), rng.normal(size=5))
        C = (np.linspace(-3, 3, 7) + rng.uniform(-0.1, 0.1, size=7))[:, None]
        P = project(f, C)
        R = f - P
        for c in C:
            assert abs(R.inner(KernelExpansion.feature(GAUSS, c))) < 1e-12
        assert f.squared_norm() == pytest.approx(P.squared_norm() + R.squared_norm(), rel=1e-11, abs=1e-12)
        assert project(P, C).distance(P) < 1e-7


def test_projection_recovers_element_of_the_span_and_interpolates():
    rng = np.random.default_rng(4)
    C = rng.uniform(-2, 2, size=(5, 2))
    f = KernelExpansion(GAUSS, C[:3], rng.normal(size=3))
    P = project(f, C)  # the span contains f
    assert P.distance(f) < 1e-8
    # from values: the minimum-norm interpolant is the same function
    P2 = project(f(C), C, kernel=GAUSS)
    np.testing.assert_allclose(P2.coef, P.coef, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(P2(C), f(C), atol=1e-10)


def test_projection_with_repeated_centers_is_stable():
    f = KernelExpansion(GAUSS, [[0.3]], [2.0])
    C = np.array([[0.0], [0.0], [1.0]])  # singular Gram matrix
    P = project(f, C)
    P1 = project(f, C[1:])
    np.testing.assert_allclose(P(np.linspace(-2, 2, 9)[:, None]), P1(np.linspace(-2, 2, 9)[:, None]), atol=1e-12)


def test_against_scikit_learn():
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.default_rng(5)
    sigma = 0.7
    gamma = 1 / (2 * sigma**2)
    C = np.sort(rng.uniform(-3, 3, size=8))[:, None]
    a = rng.normal(size=8)
    X = rng.uniform(-3, 3, size=(20, 1))
    f = KernelExpansion(GAUSS, C, a)
    np.testing.assert_allclose(f(X), rbf_kernel(X, C, gamma=gamma) @ a, rtol=1e-12)
    # interpolation of values at well-separated centers = kernel ridge with alpha -> 0
    y = np.sin(2 * C[:, 0])
    P = project(y, C, kernel=GAUSS)
    kr = KernelRidge(alpha=1e-12, kernel="rbf", gamma=gamma).fit(C, y)
    np.testing.assert_allclose(P(X), kr.predict(X), atol=1e-6)


def test_with_ktheory_kernels_partial():
    kernels = pytest.importorskip("ktheory.kernels")
    k1 = functools.partial(kernels.gaussian_kernel, sigma=0.5)
    k2 = functools.partial(kernels.gaussian_kernel, sigma=0.5)
    k3 = functools.partial(kernels.gaussian_kernel, sigma=0.6)
    assert same_kernel(k1, k2) and not same_kernel(k1, k3)
    f = KernelExpansion(k1, [[0.0, 0.0]], [1.0])
    g = KernelExpansion(k2, [[1.0, 0.0]], [1.0])
    assert f.inner(g) == pytest.approx(np.exp(-1 / (2 * 0.25)))
    with pytest.raises(ValueError, match="different kernels"):
        f.inner(KernelExpansion(k3, [[1.0, 0.0]], [1.0]))


# ----------------------------------------------------------------- bad input
def test_bad_kernel_and_arrays():
    with pytest.raises(TypeError, match="kernel must be a callable"):
        KernelExpansion("rbf", [[0.0]], [1.0])
    with pytest.raises(ValueError, match="centers must be a 2-D"):
        KernelExpansion(GAUSS, [0.0, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="coef must be a 1-D"):
        KernelExpansion(GAUSS, [[0.0]], [[1.0]])
    with pytest.raises(ValueError, match="one entry per center"):
        KernelExpansion(GAUSS, [[0.0], [1.0]], [1.0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        KernelExpansion(GAUSS, [[np.nan]], [1.0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        KernelExpansion(GAUSS, [[0.0]], [np.inf])
    with pytest.raises(TypeError, match="numeric"):
        KernelExpansion(GAUSS, [["a"]], [1.0])


def test_mismatched_kernels_and_dimensions():
    f = KernelExpansion(GAUSS, [[0.0]], [1.0])
    g = KernelExpansion(lin, [[0.0]], [1.0])
    h = KernelExpansion(GAUSS, [[0.0, 1.0]], [1.0])
    other_width = KernelExpansion(functools.partial(gauss, sigma=0.8), [[0.0]], [1.0])
    for op in (lambda: f.inner(g), lambda: f + g, lambda: f - g, lambda: f.inner(other_width)):
        with pytest.raises(ValueError, match="different kernels"):
            op()
    with pytest.raises(ValueError, match="different dimensions"):
        f + h
    with pytest.raises(ValueError, match="1 features"):
        f([[0.0, 1.0]])
    with pytest.raises(ValueError, match="2-D"):
        f([0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        f([[np.nan]])
    with pytest.raises(TypeError, match="KernelExpansion"):
        f.inner(np.ones(1))


def test_bad_scalars_and_products():
    f = KernelExpansion(GAUSS, [[0.0]], [1.0])
    with pytest.raises(ValueError, match="finite"):
        np.nan * f
    with pytest.raises(TypeError):
        "2" * f
    with pytest.raises(TypeError):
        f + 1.0
    with pytest.raises(TypeError, match="product of two kernel expansions"):
        f * f
    with pytest.raises(ZeroDivisionError):
        f / 0
    with pytest.raises(TypeError):
        True * f


def test_bad_kernel_outputs_and_non_pd_kernel():
    bad_shape = KernelExpansion(lambda X, Y: np.ones((1, 1)), [[0.0], [1.0]], [1.0, 1.0])
    with pytest.raises(ValueError, match="must return an array of shape"):
        bad_shape.norm()
    nan_kernel = KernelExpansion(lambda X, Y: np.full((len(X), len(Y)), np.nan), [[0.0]], [1.0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        nan_kernel([[0.0]])
    neg = KernelExpansion(lambda X, Y: -lin(X, Y), [[1.0]], [1.0])  # k(x,x) = -x^2 < 0
    with pytest.raises(ValueError, match="not positive definite"):
        neg.norm()
    with pytest.raises(ValueError, match="not positive definite"):
        neg.evaluation_bound([[1.0]])
    # the sigmoid kernel tanh(<x,y> - 1) is not PD: a^T K a < 0 for a single center
    sig = KernelExpansion(lambda X, Y: np.tanh(lin(X, Y) - 1.0), [[0.5]], [1.0])
    with pytest.raises(ValueError, match="not positive definite"):
        sig.norm()


def test_bad_feature_zero_and_project_arguments():
    with pytest.raises(ValueError, match="single point"):
        KernelExpansion.feature(GAUSS, [[0.0], [1.0]])
    with pytest.raises(ValueError, match="n_features"):
        KernelExpansion.zero(GAUSS, 0)
    f = KernelExpansion(GAUSS, [[0.0]], [1.0])
    with pytest.raises(TypeError, match="kernel is required"):
        project(np.ones(2), [[0.0], [1.0]])
    with pytest.raises(ValueError, match="one value per center"):
        project(np.ones(3), [[0.0], [1.0]], kernel=GAUSS)
    with pytest.raises(ValueError, match="kernel differs"):
        project(f, [[0.0]], kernel=lin)
    with pytest.raises(ValueError, match="features"):
        project(f, [[0.0, 1.0]])
    with pytest.raises(ValueError, match="NaN"):
        project(np.array([1.0, np.nan]), [[0.0], [1.0]], kernel=GAUSS)
    with pytest.raises(ValueError, match="rcond"):
        project(f, [[0.0]], rcond=2.0)
    with pytest.raises(ValueError, match="tol"):
        f.simplify(tol=-1.0)


def test_repr_and_messages_have_no_addresses():
    k1 = functools.partial(gauss, sigma=0.5)
    k2 = functools.partial(gauss, sigma=0.6)
    f = KernelExpansion(k1, [[0.0]], [1.0])
    assert repr(f) == "KernelExpansion(kernel=partial(gauss, sigma=0.5), n_centers=1, n_features=1)"
    with pytest.raises(ValueError) as err:
        f.inner(KernelExpansion(k2, [[0.0]], [1.0]))
    assert "0x" not in str(err.value) and "sigma=0.6" in str(err.value)


def test_cholesky_and_svd_paths_agree():
    rng = np.random.default_rng(6)
    C = rng.uniform(-3, 3, size=(12, 2))  # well separated enough for a well-conditioned Gaussian Gram
    y = rng.normal(size=12)
    K = GAUSS(C, C)
    assert np.linalg.cond(K) < 1e6
    fast = project(y, C, kernel=GAUSS)  # Cholesky path
    svd = project(y, C, kernel=GAUSS, rcond=1e-15)  # forced SVD path
    np.testing.assert_allclose(fast.coef, svd.coef, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fast.coef, np.linalg.solve(K, y), rtol=1e-9, atol=1e-11)
    # ill-conditioned: a wide Gaussian on close points falls back to the SVD and stays finite/interpolating
    Cw = np.linspace(0, 1, 15)[:, None]
    wide = functools.partial(gauss, sigma=3.0)
    assert np.linalg.cond(wide(Cw, Cw)) > 1e12
    f = KernelExpansion(wide, [[0.37]], [1.0])
    P = project(f, Cw)
    assert np.all(np.isfinite(P.coef))
    np.testing.assert_allclose(P(Cw), f(Cw), atol=1e-6)
    assert P.norm() <= f.norm() + 1e-6
