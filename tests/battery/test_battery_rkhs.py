"""Bad-input battery of ``ktheory.rkhs`` (issue 17): generated cases over the categories.

Oracles: explicit loops ``f(x) = sum_i a_i k(c_i, x)`` with the Gaussian written out
(``exp(-||c - x||^2 / 2)``), ``a^T K b`` with the Gram matrix from ``scipy``'s ``cdist``,
the interpolation property of the projection (``Pf(c_i) = f(c_i)``) and numpy's least squares.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import ktheory.rkhs as R
from battery._common import Case, run_case
from ktheory.kernels import gaussian_kernel, linear_kernel, sigmoid_kernel

M = "ktheory.rkhs."
KE = "KernelExpansion"
RNG = np.random.default_rng(1313)
C = RNG.normal(size=(5, 2))
a = RNG.normal(size=5)
D = RNG.normal(size=(3, 2))
b = RNG.normal(size=3)
Xq = RNG.normal(size=(4, 2))
gauss = partial(gaussian_kernel, sigma=1.0)
sig = partial(sigmoid_kernel, gamma=1.5, coef0=-1.0)  # indefinite


def asym(A, B):
    return A @ B.T + A[:, :1]  # not symmetric


def g_oracle(P, Q):
    return np.exp(-cdist(np.asarray(P, float), np.asarray(Q, float), "sqeuclidean") / 2)


def f_oracle(centers, coef, X, kern=g_oracle):
    centers, X = np.asarray(centers, float), np.asarray(X, float)
    return np.array([sum(c * kern(ci[None], x[None])[0, 0] for ci, c in zip(centers, coef)) for x in X])


CASES: list[Case] = []
NOT_APPLICABLE: dict[tuple[str, str], str] = {}


def add(func, category, call, expect="ok", match=None, check=None, note=""):
    CASES.append(Case(M + func, category, call, expect, match=match, check=check, note=note))


def close(expected, rtol=1e-10, atol=1e-13):
    def check(result):
        r = np.asarray(result, dtype=float)
        assert np.all(np.isfinite(r))
        np.testing.assert_allclose(r, expected, rtol=rtol, atol=atol)

    return check


def expansion_evaluates_to(centers, coef, kern=g_oracle):
    def check(f):
        assert isinstance(f, R.KernelExpansion)
        np.testing.assert_allclose(f(Xq), f_oracle(centers, coef, Xq, kern), rtol=1e-10, atol=1e-13)

    return check


def equal(expected):
    def check(result):
        assert result == expected, f"{result!r} != {expected!r}"

    return check


f0 = R.KernelExpansion(gauss, C, a)
g0 = R.KernelExpansion(gauss, D, b)
norm_oracle = float(np.sqrt(a @ g_oracle(C, C) @ a))

# ---------------------------------------------------------------------------------------------
# the constructor
# ---------------------------------------------------------------------------------------------
add(KE, "shape", lambda: R.KernelExpansion(gauss, C[:, 0], a), "ValueError", "centers must be a 2-D", note="1-D")
add(KE, "shape", lambda: R.KernelExpansion(gauss, C, a[None]), "ValueError", "coef must be a 1-D", note="2-D coef")
add(KE, "shape", lambda: R.KernelExpansion(gauss, C, a[:3]), "ValueError", "coef must have one entry per center",
    note="lengths differ")
add(KE, "dtype-complex", lambda: R.KernelExpansion(gauss, C + 0j, a), "TypeError", "centers must be a real", note="C")
add(KE, "dtype-complex", lambda: R.KernelExpansion(gauss, C, a * 1j), "TypeError", "coef must be a real", note="coef")
CB = RNG.random((4, 2)) > 0.5
add(KE, "dtype-bool", lambda: R.KernelExpansion(gauss, CB, np.ones(4)), check=expansion_evaluates_to(CB * 1.0, np.ones(4)),
    note="bool centers")
add(KE, "dtype-bool", lambda: R.KernelExpansion(gauss, C, a > 0), check=expansion_evaluates_to(C, (a > 0) * 1.0),
    note="bool coef")
add(KE, "dtype-object", lambda: R.KernelExpansion(gauss, [["a", "b"]], [1.0]), "TypeError", "centers must be a numeric",
    note="str centers")
add(KE, "dtype-object", lambda: R.KernelExpansion(gauss, C.astype(object), list(a)), check=expansion_evaluates_to(C, a),
    note="object centers")
add(KE, "dtype-float32", lambda: R.KernelExpansion(gauss, C.astype(np.float32), a.astype(np.float32)),
    check=expansion_evaluates_to(C.astype(np.float32), a.astype(np.float32)), note="float32")
add(KE, "nan-inf", lambda: R.KernelExpansion(gauss, C, np.where(a > 0, np.nan, a)), "ValueError", "coef contains NaN",
    note="NaN coef")
add(KE, "nan-inf", lambda: R.KernelExpansion(gauss, np.full((1, 2), np.inf), [1.0]), "ValueError",
    "centers contains NaN", note="inf center")
add(KE, "empty", lambda: R.KernelExpansion(gauss, np.zeros((0, 2)), []), check=expansion_evaluates_to(np.zeros((0, 2)), []),
    note="zero function")
add(KE, "empty", lambda: R.KernelExpansion(gauss, np.zeros((2, 0)), [1.0, 2.0]), "ValueError",
    "centers must have at least one feature", note="no features")
add(KE, "one-sample", lambda: R.KernelExpansion(gauss, C[:1], a[:1]), check=expansion_evaluates_to(C[:1], a[:1]),
    note="one center")
add(KE, "extreme-scale", lambda: R.KernelExpansion(gauss, C, a * 1e300),
    check=lambda f: close(norm_oracle, rtol=1e-9)(f.norm() / 1e300), note="coef 1e300: norm scale-safe")
add(KE, "extreme-scale", lambda: R.KernelExpansion(gauss, C * 1e200, a), check=expansion_evaluates_to(C * 1e200, a),
    note="centers 1e200")
add(KE, "param-type", lambda: R.KernelExpansion("rbf", C, a), "TypeError", "kernel must be a callable", note="name")
add(KE, "param-type", lambda: R.KernelExpansion(gauss, C, "coef"), "TypeError", "coef must be a numeric", note="str")
add(KE, "huge-size", lambda: R.KernelExpansion(gauss, np.broadcast_to(0.0, (10**6, 3000)), np.zeros(10**6)),
    "ValueError", "centers has 3000000000 values", note="3e9 values")
NOT_APPLICABLE[(M + KE, "one-class")] = "an expansion has no labels"
NOT_APPLICABLE[(M + KE, "non-symmetric")] = "the constructor does not evaluate the kernel (see the inner/norm rows)"
NOT_APPLICABLE[(M + KE, "non-psd")] = "the constructor does not evaluate the kernel (see the norm rows)"
NOT_APPLICABLE[(M + KE, "param-range")] = "centers and coefficients may be any finite reals"

# ---------------------------------------------------------------------------------------------
# evaluation f(X)
# ---------------------------------------------------------------------------------------------
CALL = KE + ".__call__"
add(CALL, "shape", lambda: f0(Xq[0]), "ValueError", "X must be a 2-D", note="1-D X")
add(CALL, "shape", lambda: f0(np.ones((2, 3))), "ValueError", "X must have 2 features", note="wrong d")
add(CALL, "dtype-complex", lambda: f0(Xq * 1j), "TypeError", "X must be a real", note="complex")
add(CALL, "dtype-complex", lambda: R.KernelExpansion(lambda P, Q: (P @ Q.T) * 1j, C, a)(Xq), "TypeError",
    "kernel\\(X, Y\\) returned complex", note="complex kernel")
add(CALL, "dtype-bool", lambda: f0(Xq > 0), check=close(f_oracle(C, a, (Xq > 0) * 1.0)), note="bool X")
add(CALL, "dtype-object", lambda: f0("abc"), "TypeError", "X must be a numeric array, got a string", note="str")
add(CALL, "dtype-object", lambda: f0(Xq.astype(object)), check=close(f_oracle(C, a, Xq)), note="object X")
add(CALL, "dtype-float32", lambda: f0(Xq.astype(np.float32)), check=close(f_oracle(C, a, Xq.astype(np.float32))),
    note="float32")
add(CALL, "nan-inf", lambda: f0(np.full((1, 2), np.nan)), "ValueError", "X contains NaN", note="NaN")
add(CALL, "nan-inf", lambda: R.KernelExpansion(lambda P, Q: np.full((len(P), len(Q)), np.nan), C, a)(Xq),
    "ValueError", "kernel\\(X, Y\\) returned NaN", note="kernel NaN")
add(CALL, "empty", lambda: f0(np.zeros((0, 2))), "ValueError", "X is empty", note="no rows")
add(CALL, "empty", lambda: R.KernelExpansion.zero(gauss, 2)(Xq), check=close(np.zeros(4)), note="zero function")
add(CALL, "one-sample", lambda: f0(Xq[:1]), check=close(f_oracle(C, a, Xq[:1])), note="one point")
add(CALL, "extreme-scale", lambda: f0(Xq * 1e200), check=close(np.zeros(4)), note="far away: 0")
add(CALL, "extreme-scale", lambda: (f0 * 1e300)(Xq), check=lambda r: close(f_oracle(C, a, Xq), rtol=1e-9)(r / 1e300),
    note="coef 1e300")
add(CALL, "extreme-scale", lambda: R.KernelExpansion(gauss, np.zeros((2, 2)) + [[0, 0], [0, 1e-9]], [1.7e308, 1.7e308])(
    np.zeros((1, 2))), "ValueError", "f\\(X\\) overflows", note="sum beyond float64")
add(CALL, "non-symmetric", lambda: R.KernelExpansion(asym, C, a)(Xq), check=close((asym(Xq, C)) @ a),
    note="kernel(X, centers) as documented")
add(CALL, "non-psd", lambda: R.KernelExpansion(sig, C, a)(Xq), check=close(sig(Xq, C) @ a), note="sigmoid")
add(CALL, "param-type", lambda: f0(None), "TypeError", "X must be an array", note="None")
add(CALL, "huge-size", lambda: R.KernelExpansion(gauss, np.zeros((2000, 2)), np.ones(2000))(
    np.broadcast_to(0.0, (10**6, 2))), "ValueError", "kernel\\(X, Y\\) would have 1000000 x 2000", note="2e9 values")
NOT_APPLICABLE[(M + CALL, "one-class")] = "evaluation has no labels"
NOT_APPLICABLE[(M + CALL, "param-range")] = "the only argument is the sample matrix X"

# ---------------------------------------------------------------------------------------------
# inner product and norm
# ---------------------------------------------------------------------------------------------
IN = KE + ".inner"
ab_oracle = float(a @ g_oracle(C, D) @ b)
add(IN, "shape", lambda: f0.inner(R.KernelExpansion(gauss, np.ones((1, 3)), [1.0])), "ValueError",
    "different dimensions", note="d differs")
add(IN, "dtype-complex", lambda: f0.inner(1j), "TypeError", "needs another KernelExpansion", note="complex")
add(IN, "dtype-bool", lambda: f0.inner(True), "TypeError", "needs another KernelExpansion", note="bool")
add(IN, "dtype-object", lambda: f0.inner("g"), "TypeError", "needs another KernelExpansion", note="str")
add(IN, "dtype-float32", lambda: R.KernelExpansion(gauss, C.astype(np.float32), a).inner(g0),
    check=close(float(a @ g_oracle(C.astype(np.float32), D) @ b)), note="float32 centers")
def _inf_k(P, Q):
    return np.full((len(P), len(Q)), np.inf)


add(IN, "nan-inf", lambda: R.KernelExpansion(_inf_k, C, a).inner(R.KernelExpansion(_inf_k, D, b)), "ValueError",
    "returned NaN or infinity", note="kernel inf")
add(IN, "empty", lambda: R.KernelExpansion.zero(gauss, 2).inner(g0), check=close(0.0), note="zero function")
add(IN, "one-sample", lambda: R.KernelExpansion(gauss, C[:1], [2.0]).inner(R.KernelExpansion(gauss, D[:1], [3.0])),
    check=close(6.0 * g_oracle(C[:1], D[:1])[0, 0]), note="one center each")
add(IN, "extreme-scale", lambda: (f0 * 1e300).inner(g0 * 1e300), "ValueError", "inner product <f, g> overflows",
    note="1e600")
add(IN, "extreme-scale", lambda: (f0 * 1e150).inner(g0 * 1e150), check=lambda r: close(ab_oracle)(r / 1e300),
    note="1e300")
add(IN, "extreme-scale", lambda: (f0 * 1e-200).inner(g0 * 1e200), check=close(ab_oracle), note="1e-200 x 1e200")
add(IN, "non-symmetric", lambda: f0.inner(R.KernelExpansion(partial(gaussian_kernel, sigma=2.0), D, b)), "ValueError",
    "different kernels", note="another kernel")
add(IN, "non-symmetric", lambda: R.KernelExpansion(asym, C, a).inner(R.KernelExpansion(asym, D, b)),
    check=close(float(a @ asym(C, D) @ b)), note="a^T K(C, D) b as documented")
add(IN, "non-psd", lambda: R.KernelExpansion(sig, C, a).inner(R.KernelExpansion(sig, D, b)),
    check=close(float(a @ sig(C, D) @ b)), note="sigmoid")
add(IN, "param-type", lambda: f0.inner(3.0), "TypeError", "needs another KernelExpansion", note="float")
add(IN, "huge-size", lambda: R.KernelExpansion(gauss, np.zeros((40_000, 1)), np.ones(40_000)).inner(
    R.KernelExpansion(gauss, np.zeros((40_000, 1)), np.ones(40_000))), "ValueError", "would have 40000 x 40000",
    note="1.6e9 values")
NOT_APPLICABLE[(M + IN, "one-class")] = "an inner product has no labels"
NOT_APPLICABLE[(M + IN, "param-range")] = "the only argument is another expansion"

NO = KE + ".norm"
add(NO, "shape", lambda: R.KernelExpansion(lambda P, Q: np.ones((2, 2)), C, a).norm(), "ValueError",
    "kernel\\(X, Y\\) must return an array of shape", note="kernel returns wrong shape")
add(NO, "dtype-complex", lambda: R.KernelExpansion(lambda P, Q: (P @ Q.T).astype(complex), C, a).norm(), "TypeError",
    "returned complex", note="complex kernel")
add(NO, "dtype-bool", lambda: R.KernelExpansion(linear_kernel, CB, np.ones(4)).norm(),
    check=close(float(np.sqrt(np.ones(4) @ (CB @ CB.T * 1.0) @ np.ones(4)))), note="bool centers")
add(NO, "dtype-object", lambda: R.KernelExpansion(lambda P, Q: np.full((len(P), len(Q)), "x"), C, a).norm(), "TypeError",
    "must return real numbers", note="kernel returns str")
add(NO, "dtype-float32", lambda: R.KernelExpansion(gauss, C.astype(np.float32), a).norm(),
    check=close(float(np.sqrt(a @ g_oracle(C.astype(np.float32), C.astype(np.float32)) @ a))), note="float32")
add(NO, "nan-inf", lambda: R.KernelExpansion(lambda P, Q: np.full((len(P), len(Q)), np.nan), C, a).norm(),
    "ValueError", "returned NaN", note="NaN kernel")
add(NO, "empty", lambda: R.KernelExpansion.zero(gauss, 3).norm(), check=close(0.0), note="zero function")
add(NO, "one-sample", lambda: R.KernelExpansion(gauss, C[:1], [-3.0]).norm(), check=close(3.0), note="|a| sqrt(k(c,c))")
for _c in (1e300, 1e-300, 1e200):
    add(NO, "extreme-scale", lambda c=_c: (f0 * c).norm(), check=lambda r, c=_c: close(norm_oracle, rtol=1e-9)(r / c),
        note=f"coef x{_c:g}")
add(NO, "non-symmetric", lambda: R.KernelExpansion(asym, C, np.abs(a)).norm(),
    check=close(float(np.sqrt(np.abs(a) @ asym(C, C) @ np.abs(a)))), note="a^T K a of the given kernel")
add(NO, "non-psd", lambda: R.KernelExpansion(lambda P, Q: -gauss(P, Q), C, a).norm(), "ValueError",
    "not positive definite", note="negative kernel")
_w, _V = np.linalg.eigh(sig(C, C))
assert _w[0] < -1e-3, "the sigmoid Gram matrix of the battery must be indefinite"
add(NO, "non-psd", lambda: R.KernelExpansion(sig, C, _V[:, 0]).norm(), "ValueError", "not positive definite",
    note="sigmoid, coef = eigenvector of a negative eigenvalue")
add(NO, "huge-size", lambda: R.KernelExpansion(gauss, np.zeros((40_000, 1)), np.ones(40_000)).norm(), "ValueError",
    "would have 40000 x 40000", note="1.6e9 values")
for _c in ("one-class", "param-type", "param-range"):
    NOT_APPLICABLE[(M + NO, _c)] = "norm() takes no argument and no labels (the kernel rows cover bad values)"

FE = KE + ".feature"
add(FE, "shape", lambda: R.KernelExpansion.feature(gauss, C[:2]), "ValueError", "x must be a single point", note="2 rows")
add(FE, "shape", lambda: R.KernelExpansion.feature(gauss, C[None]), "ValueError", "x must be a 2-D", note="3-D")
add(FE, "dtype-complex", lambda: R.KernelExpansion.feature(gauss, C[0] * 1j), "TypeError", "x must be a real",
    note="complex")
add(FE, "dtype-bool", lambda: R.KernelExpansion.feature(gauss, np.array([True, False])),
    check=expansion_evaluates_to([[1.0, 0.0]], [1.0]), note="bool point")
add(FE, "dtype-object", lambda: R.KernelExpansion.feature(gauss, "ab"), "TypeError", "x must be a numeric", note="str")
add(FE, "dtype-float32", lambda: R.KernelExpansion.feature(gauss, C[0].astype(np.float32)),
    check=expansion_evaluates_to(C[:1].astype(np.float32), [1.0]), note="float32")
add(FE, "nan-inf", lambda: R.KernelExpansion.feature(gauss, [np.nan, 0.0]), "ValueError", "x contains NaN", note="NaN")
add(FE, "empty", lambda: R.KernelExpansion.feature(gauss, []), "ValueError", "x is empty", note="empty")
add(FE, "one-sample", lambda: R.KernelExpansion.feature(gauss, C[0]), check=expansion_evaluates_to(C[:1], [1.0]),
    note="1-D point")
add(FE, "one-sample", lambda: R.KernelExpansion.feature(gauss, C[:1]), check=expansion_evaluates_to(C[:1], [1.0]),
    note="(1, d) point")
add(FE, "extreme-scale", lambda: R.KernelExpansion.feature(gauss, [1e300, -1e300]),
    check=lambda f: close(np.zeros(4))(f(Xq)), note="far point")
add(FE, "param-type", lambda: R.KernelExpansion.feature(None, C[0]), "TypeError", "kernel must be a callable",
    note="kernel None")
add(FE, "huge-size", lambda: R.KernelExpansion.feature(gauss, np.broadcast_to(0.0, (3 * 10**9,))), "ValueError",
    "x has 3000000000 values", note="3e9 coordinates")
for _c in ("one-class", "non-symmetric", "non-psd", "param-range"):
    NOT_APPLICABLE[(M + FE, _c)] = "feature(kernel, x) builds k(x, .) without evaluating the kernel; x is any point"

# ---------------------------------------------------------------------------------------------
# project
# ---------------------------------------------------------------------------------------------
PR = "project"


def interpolates(centers, values, kern=g_oracle):
    """Pf agrees with f at the centers (normal equations with an invertible K) and w solves K w = b."""
    centers = np.asarray(centers, float)
    values = np.asarray(values, float)
    K = kern(centers, centers)

    def check(P):
        assert isinstance(P, R.KernelExpansion)
        np.testing.assert_allclose(K @ P.coef, values, rtol=1e-8, atol=1e-10 * max(1.0, np.abs(values).max()))
        np.testing.assert_allclose(P.coef, np.linalg.lstsq(K, values, rcond=None)[0], rtol=1e-6, atol=1e-8)

    return check


bv = f_oracle(C, a, D)  # f0 at the centers D
add(PR, "shape", lambda: R.project(bv, D[:, 0], kernel=gauss), "ValueError", "centers must be a 2-D", note="1-D")
add(PR, "shape", lambda: R.project(bv[:2], D, kernel=gauss), "ValueError", "target must hold one value per center",
    note="length")
add(PR, "shape", lambda: R.project(f0, np.ones((2, 3))), "ValueError", "centers must have 2 features", note="d")
add(PR, "dtype-complex", lambda: R.project(bv * 1j, D, kernel=gauss), "TypeError", "target must be a real", note="c")
add(PR, "dtype-bool", lambda: R.project(np.array([True, False, True]), D, kernel=gauss),
    check=interpolates(D, [1.0, 0.0, 1.0]), note="bool values")
add(PR, "dtype-object", lambda: R.project(["a", "b", "c"], D, kernel=gauss), "TypeError", "target must be a numeric",
    note="str")
add(PR, "dtype-object", lambda: R.project(bv, D, kernel="rbf"), "TypeError", "kernel must be a callable", note="name")
add(PR, "dtype-float32", lambda: R.project(bv.astype(np.float32), D.astype(np.float32), kernel=gauss),
    check=interpolates(D.astype(np.float32), bv.astype(np.float32)), note="float32")
add(PR, "nan-inf", lambda: R.project(np.array([np.nan, 1.0, 2.0]), D, kernel=gauss), "ValueError",
    "target contains NaN", note="NaN")
add(PR, "empty", lambda: R.project(np.zeros(0), np.zeros((0, 2)), kernel=gauss), "ValueError", "centers is empty",
    note="no centers")
add(PR, "one-sample", lambda: R.project(f0, D[:1]), check=interpolates(D[:1], bv[:1]), note="one center")
add(PR, "one-sample", lambda: R.project(f0, D), check=interpolates(D, bv), note="expansion target")
add(PR, "extreme-scale", lambda: R.project(bv * 1e300, D, kernel=gauss),
    check=lambda P: interpolates(D, bv)(P / 1e300), note="values 1e300")
add(PR, "extreme-scale", lambda: R.project(bv * 1e-300, D, kernel=gauss),
    check=lambda P: interpolates(D, bv)(P * 1e300), note="values 1e-300")
add(PR, "extreme-scale", lambda: R.project(np.array([1.0, 2.0]), np.zeros((2, 1)), kernel=gauss),
    check=lambda P: close([1.5])(P(np.zeros((1, 1)))), note="duplicate centers: least squares")
add(PR, "non-symmetric", lambda: R.project(bv, D, kernel=asym), "ValueError",
    "kernel\\(centers, centers\\) must be symmetric", note="asymmetric kernel")
add(PR, "non-psd", lambda: R.project(bv, D, kernel=sig), check=interpolates(D, bv, sig), note="indefinite kernel")
add(PR, "param-type", lambda: R.project(bv, D), "TypeError", "kernel is required", note="no kernel")
add(PR, "param-type", lambda: R.project(bv, D, kernel=gauss, rcond="1e-3"), "TypeError", "rcond", note="rcond str")
add(PR, "param-range", lambda: R.project(bv, D, kernel=gauss, rcond=2.0), "ValueError", "rcond must be a number in",
    note="rcond 2")
add(PR, "param-range", lambda: R.project(bv, D, kernel=gauss, rcond=0.0), check=interpolates(D, bv), note="rcond 0")
add(PR, "param-range", lambda: R.project(f0, D, kernel=partial(gaussian_kernel, sigma=3.0)), "ValueError",
    "kernel differs from target.kernel", note="other kernel")
add(PR, "huge-size", lambda: R.project(np.zeros(30_000), np.zeros((30_000, 1)), kernel=gauss), "ValueError",
    "MAX_PROJECT_CENTERS", note="O(n^3) solve")
NOT_APPLICABLE[(M + PR, "one-class")] = "a projection has no labels"

# ---------------------------------------------------------------------------------------------
# same_kernel
# ---------------------------------------------------------------------------------------------
SK = "same_kernel"
add(SK, "dtype-complex", lambda: R.same_kernel(1j, gauss), "TypeError", "k1 must be a kernel callable", note="complex")
add(SK, "dtype-bool", lambda: R.same_kernel(gauss, True), "TypeError", "k2 must be a kernel callable", note="bool")
add(SK, "dtype-object", lambda: R.same_kernel("rbf", "rbf"), "TypeError", "k1 must be a kernel callable", note="names")
add(SK, "dtype-float32", lambda: R.same_kernel(partial(gaussian_kernel, sigma=np.float32(1.0)), gauss),
    check=equal(True), note="equal values, other dtype")
add(SK, "nan-inf", lambda: R.same_kernel(partial(gaussian_kernel, sigma=np.nan), partial(gaussian_kernel, sigma=np.nan)),
    check=equal(True), note="identical arguments (the same nan object)")
add(SK, "nan-inf", lambda: R.same_kernel(partial(gaussian_kernel, sigma=float("nan")),
                                         partial(gaussian_kernel, sigma=float("nan"))),
    check=equal(False), note="two nan objects never compare equal")
add(SK, "empty", lambda: R.same_kernel(partial(gaussian_kernel), gaussian_kernel), check=equal(False),
    note="a partial and a function never compare same (documented)")
add(SK, "one-sample", lambda: R.same_kernel(gauss, partial(gaussian_kernel, sigma=1.0)), check=equal(True),
    note="two equal partials")
add(SK, "extreme-scale", lambda: R.same_kernel(partial(gaussian_kernel, sigma=1e300), partial(gaussian_kernel, sigma=1e-300)),
    check=equal(False), note="different widths")
add(SK, "param-type", lambda: R.same_kernel(gauss, None), "TypeError", "k2 must be a kernel callable", note="None")
add(SK, "param-range", lambda: R.same_kernel(partial(gaussian_kernel, sigma=1.0), partial(gaussian_kernel, sigma=2.0)),
    check=equal(False), note="different parameter values")
add(SK, "huge-size", lambda: R.same_kernel(partial(gaussian_kernel, np.zeros((1000, 1000))),
                                           partial(gaussian_kernel, np.zeros((1000, 1000)))),
    check=equal(True), note="array arguments compared by value")
for _c, _r in (("shape", "the arguments are callables, not arrays"), ("one-class", "compares callables: no labels"),
               ("non-symmetric", "compares callables; does not evaluate them"),
               ("non-psd", "compares callables; does not evaluate them")):
    NOT_APPLICABLE[(M + SK, _c)] = _r

PUBLIC = [M + KE, M + CALL, M + IN, M + NO, M + FE, M + PR, M + SK]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
