"""Bad-input battery of ``ktheory.kernels`` (issue 17): generated cases over the categories.

Every "ok" case is checked against an independent oracle: scikit-learn's pairwise kernels,
``scipy.spatial.distance.cdist``, numpy eigenvalues, ``math.comb``, a brute-force enumeration
of subsequences or monomials, or a closed-form limit (``exp(-inf) = 0`` for distinct points).
"""

from __future__ import annotations

import itertools
import math
from functools import partial

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.distance import cdist
from sklearn.metrics import pairwise as skp

import ktheory.kernels as K
from battery._common import Case, run_case

M = "ktheory.kernels."
RNG = np.random.default_rng(1717)
X = RNG.normal(size=(6, 3))
Y = RNG.normal(size=(4, 3))
XB = RNG.random((5, 3)) > 0.5
X32 = RNG.normal(size=(5, 3)).astype(np.float32)
HUGE_ROWS = np.broadcast_to(0.0, (10**6, 3))  # a read-only view: 24 MB if copied, 8 TB of output
HUGE_COLS = np.broadcast_to(0.0, (4, 10**9))  # 4e9 values: refused before any copy

CASES: list[Case] = []


def add(func: str, category: str, call, expect: str = "ok", match: str | None = None, check=None, note: str = ""):
    CASES.append(Case(M + func, category, call, expect, match=match, check=check, note=note))


def close(expected, rtol: float = 1e-12, atol: float = 1e-14):
    def check(result):
        result = np.asarray(result, dtype=np.float64)
        assert np.all(np.isfinite(result)), "non-finite values in a valid result"
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=atol)

    return check


def equal(expected):
    def check(result):
        assert result == expected, f"{result!r} != {expected!r}"

    return check


def limit_matrix(n: int, m: int, same: bool, zero_off: bool):
    """Closed form of a distance kernel at an infinite (eye) or zero (ones) scale."""
    if zero_off:
        return np.eye(n, m) if same else np.zeros((n, m))
    return np.ones((n, m))


# ---------------------------------------------------------------------------------------------
# vector kernels: (function, parameters used in ok cases, oracle(A, B) with those parameters)
# ---------------------------------------------------------------------------------------------
VECTOR = {
    "linear_kernel": (K.linear_kernel, {}, lambda A, B: skp.linear_kernel(A, B)),
    "polynomial_kernel": (
        K.polynomial_kernel,
        {"degree": 3, "gamma": 0.5, "coef0": 1.0},
        lambda A, B: skp.polynomial_kernel(A, B, degree=3, gamma=0.5, coef0=1.0),
    ),
    "gaussian_kernel": (K.gaussian_kernel, {"sigma": 1.3}, lambda A, B: skp.rbf_kernel(A, B, gamma=1 / (2 * 1.3**2))),
    "rbf_kernel": (K.rbf_kernel, {"gamma": 0.4}, lambda A, B: skp.rbf_kernel(A, B, gamma=0.4)),
    "laplacian_kernel": (
        K.laplacian_kernel,
        {"sigma": 2.0, "metric": "manhattan"},
        lambda A, B: skp.laplacian_kernel(A, B, gamma=0.5),
    ),
    "sigmoid_kernel": (
        K.sigmoid_kernel,
        {"gamma": 0.3, "coef0": 0.5},
        lambda A, B: skp.sigmoid_kernel(A, B, gamma=0.3, coef0=0.5),
    ),
}

#: parameter -> (wrong-type values, out-of-range values) and the regex naming it
PARAM_BAD = {
    "sigma": (["1.0", True, 1j, None], [0.0, -1.0, np.inf, np.nan]),
    "gamma": (["0.5", True, 1j], [0.0, -2.0, np.inf, np.nan]),
    "degree": ([2.0, "3", True], [0, -1]),
    "coef0": (["1", 1j, None], [np.nan, np.inf]),
    "metric": ([1, None], ["chebyshev", "L1"]),
}
PARAM_TYPE_EXPECT = {"sigma": "TypeError", "gamma": "TypeError", "degree": "TypeError", "coef0": "TypeError",
                     "metric": "TypeError"}


def _vector_cases(name: str) -> None:
    f, params, oracle = VECTOR[name]
    call = partial(f, **params)
    # shape
    add(name, "shape", lambda: call(X[0]), "ValueError", "X must be a 2-D array", note="1-D X")
    add(name, "shape", lambda: call(X[None]), "ValueError", "X must be a 2-D array", note="3-D X")
    add(name, "shape", lambda: call(X, Y[:, :2]), "ValueError", "X and Y must have the same number of features",
        note="feature mismatch")
    add(name, "shape", lambda: call(X, Y[0]), "ValueError", "Y must be a 2-D array", note="1-D Y")
    # dtypes
    add(name, "dtype-complex", lambda: call(X + 1j), "TypeError", "X must be a real array; got complex", note="X")
    add(name, "dtype-complex", lambda: call(X, Y.astype(complex)), "TypeError", "Y must be a real array",
        note="Y with zero imaginary part")
    add(name, "dtype-bool", lambda: call(XB), check=close(oracle(XB.astype(float), XB.astype(float))), note="X bool")
    add(name, "dtype-bool", lambda: call(XB, XB[:2]), check=close(oracle(XB.astype(float), XB[:2].astype(float))),
        note="X, Y bool")
    add(name, "dtype-object", lambda: call(X.astype(object)), check=close(oracle(X, X)), note="object floats")
    add(name, "dtype-object", lambda: call(np.array([["1", "2", "3"]])), "TypeError", "X must be a numeric array",
        note="str array")
    add(name, "dtype-object", lambda: call([[1.0, 2.0, 3.0], [1.0]]), "TypeError", "X must be a numeric array",
        note="ragged")
    add(name, "dtype-object", lambda: call(X, "abc"), "TypeError", "Y must be a numeric array", note="Y a string")
    X64 = X32.astype(np.float64)
    add(name, "dtype-float32", lambda: call(X32), check=close(oracle(X64, X64)), note="X float32")
    add(name, "dtype-float32", lambda: call(X32, Y.astype(np.float32)),
        check=close(oracle(X64, Y.astype(np.float32).astype(np.float64))), note="X, Y float32")
    # NaN / inf
    bad = X.copy()
    bad[2, 1] = np.nan
    add(name, "nan-inf", lambda: call(bad), "ValueError", "X contains NaN or infinity", note="NaN in X")
    badY = Y.copy()
    badY[0, 0] = -np.inf
    add(name, "nan-inf", lambda: call(X, badY), "ValueError", "Y contains NaN or infinity", note="-inf in Y")
    # empty / one sample
    add(name, "empty", lambda: call(np.zeros((0, 3))), "ValueError", "X is empty", note="no samples")
    add(name, "empty", lambda: call(np.zeros((3, 0))), "ValueError", "X is empty", note="no features")
    add(name, "empty", lambda: call(X, np.zeros((0, 3))), "ValueError", "Y is empty", note="Y no samples")
    add(name, "one-sample", lambda: call(X[:1]), check=close(oracle(X[:1], X[:1])), note="X one row")
    add(name, "one-sample", lambda: call(X[:1], Y[:1]), check=close(oracle(X[:1], Y[:1])), note="X, Y one row")
    # wrong parameter types / ranges
    for p in params:
        types, ranges = PARAM_BAD[p]
        for v in types:
            add(name, "param-type", lambda p=p, v=v: f(X, **{**params, p: v}), PARAM_TYPE_EXPECT[p], p,
                note=f"{p}={v!r}")
        for v in ranges:
            add(name, "param-range", lambda p=p, v=v: f(X, **{**params, p: v}), "ValueError", p, note=f"{p}={v!r}")
    # huge sizes
    add(name, "huge-size", lambda: call(HUGE_ROWS), "ValueError", "MAX_OUTPUT_ELEMENTS.*rows of X",
        note="1e6 x 1e6 output")
    add(name, "huge-size", lambda: call(HUGE_COLS), "ValueError", "X has 4000000000 values", note="4e9 features")


for _name in VECTOR:
    _vector_cases(_name)

# linear kernel: Y of the wrong type is its only parameter; no ranges
add("linear_kernel", "param-type", lambda: K.linear_kernel(X, 3.0), "ValueError", "Y must be a 2-D", note="Y scalar")
add("linear_kernel", "param-type", lambda: K.linear_kernel(X, None), check=close(skp.linear_kernel(X)),
    note="Y None means X")

# extreme scales: the value is exact or a clear error, never NaN
S200 = 1e200
add("linear_kernel", "extreme-scale", lambda: K.linear_kernel(X * S200), "ValueError", "overflow float64",
    note="x~1e200")
add("linear_kernel", "extreme-scale", lambda: K.linear_kernel(X * 1e150, Y), check=close(skp.linear_kernel(X, Y) * 1e150),
    note="x~1e150")
add("linear_kernel", "extreme-scale", lambda: K.linear_kernel(X * 1e-200, Y * 1e-200), check=close(0 * X @ Y.T, atol=1e-300),
    note="x~1e-200 underflow to 0")
add("polynomial_kernel", "extreme-scale", lambda: K.polynomial_kernel(X * S200), "ValueError", "overflow float64",
    note="x~1e200")
add("polynomial_kernel", "extreme-scale", lambda: K.polynomial_kernel(X, degree=500, coef0=5.0), "ValueError",
    "overflow float64", note="degree 500")
add("polynomial_kernel", "extreme-scale", lambda: K.polynomial_kernel(X * 1e-200, degree=3), check=close(np.ones((6, 6))),
    note="x~1e-200")
for _s in (1e200, 1e-200, 2.0**700):
    add("gaussian_kernel", "extreme-scale", lambda s=_s: K.gaussian_kernel(X * s, Y * s, sigma=1.3 * s),
        check=close(skp.rbf_kernel(X, Y, gamma=1 / (2 * 1.3**2))), note=f"x and sigma x{_s:g}")
    add("laplacian_kernel", "extreme-scale", lambda s=_s: K.laplacian_kernel(X * s, Y * s, sigma=2.0 * s),
        check=close(np.exp(-cdist(X, Y) / 2.0)), note=f"euclidean x{_s:g}")
    add("laplacian_kernel", "extreme-scale",
        lambda s=_s: K.laplacian_kernel(X * s, Y * s, sigma=2.0 * s, metric="manhattan"),
        check=close(skp.laplacian_kernel(X, Y, gamma=0.5)), note=f"manhattan x{_s:g}")
for _sig, _zero in ((1e-300, True), (5e-324, True), (1e300, False), (1.7e308, False)):
    add("gaussian_kernel", "extreme-scale", lambda s=_sig: K.gaussian_kernel(X, sigma=s),
        check=close(limit_matrix(6, 6, True, _zero)), note=f"sigma={_sig:g}")
    add("laplacian_kernel", "extreme-scale", lambda s=_sig: K.laplacian_kernel(X, Y, sigma=s),
        check=close(limit_matrix(6, 4, False, _zero)), note=f"sigma={_sig:g}")
add("gaussian_kernel", "extreme-scale", lambda: K.gaussian_kernel(X * S200), check=close(np.eye(6)),
    note="x~1e200 sigma=1: distinct points infinitely far")
add("rbf_kernel", "extreme-scale", lambda: K.rbf_kernel(X, gamma=1e300), check=close(np.eye(6)), note="gamma=1e300")
add("rbf_kernel", "extreme-scale", lambda: K.rbf_kernel(X, Y, gamma=1e-300), check=close(np.ones((6, 4))),
    note="gamma=1e-300")
add("rbf_kernel", "extreme-scale", lambda: K.rbf_kernel(X * S200, Y * S200), check=close(np.zeros((6, 4))),
    note="x~1e200 default gamma")
add("rbf_kernel", "extreme-scale", lambda: K.rbf_kernel(X * 1e-150, Y * 1e-150, gamma=1e300),
    check=close(skp.rbf_kernel(X, Y, gamma=1.0)), note="x~1e-150, gamma=1e300")
_signs = np.sign(X @ Y.T)
add("sigmoid_kernel", "extreme-scale", lambda: K.sigmoid_kernel(X * S200, Y * S200, gamma=1.0, coef0=0.5),
    check=close(_signs), note="inner products beyond float64: tanh(+-inf)")
add("sigmoid_kernel", "extreme-scale", lambda: K.sigmoid_kernel(X * 1e-200, Y, coef0=0.5),
    check=close(np.full((6, 4), np.tanh(0.5))), note="x~1e-200")
add("sigmoid_kernel", "extreme-scale", lambda: K.sigmoid_kernel(X, Y, gamma=1e300, coef0=0.0), check=close(_signs),
    note="gamma=1e300")

NOT_APPLICABLE: dict[tuple[str, str], str] = {}
for _name in VECTOR:
    NOT_APPLICABLE[(M + _name, "one-class")] = "a kernel function takes sample matrices, no labels"
    NOT_APPLICABLE[(M + _name, "non-symmetric")] = "inputs are sample matrices, not kernel matrices; any real matrix is valid"
    NOT_APPLICABLE[(M + _name, "non-psd")] = "inputs are sample matrices, not kernel matrices; PSD does not apply"
NOT_APPLICABLE[(M + "linear_kernel", "param-range")] = "the linear kernel has no numeric parameter with a range"

# ---------------------------------------------------------------------------------------------
# make_kernel: the factory, then the kernel it returns
# ---------------------------------------------------------------------------------------------
MK = "make_kernel"
add(MK, "shape", lambda: K.make_kernel("rbf")(X[0]), "ValueError", "X must be a 2-D array", note="1-D X")
add(MK, "shape", lambda: K.make_kernel("poly")(X, Y[:, :1]), "ValueError", "same number of features", note="mismatch")
add(MK, "dtype-complex", lambda: K.make_kernel("rbf", gamma=1j), "TypeError", "gamma must be a real", note="gamma 1j")
add(MK, "dtype-complex", lambda: K.make_kernel("linear")(X + 1j), "TypeError", "X must be a real array", note="X")
add(MK, "dtype-bool", lambda: K.make_kernel("linear")(XB), check=close(XB.astype(float) @ XB.astype(float).T), note="bool X")
add(MK, "dtype-bool", lambda: K.make_kernel("rbf", gamma=True), "TypeError", "gamma", note="gamma=True")
add(MK, "dtype-object", lambda: K.make_kernel(["rbf"]), "ValueError", "kernel must be one of", note="list name")
add(MK, "dtype-object", lambda: K.make_kernel("sigmoid")(np.array([["a", "b", "c"]])), "TypeError",
    "X must be a numeric", note="str X")
add(MK, "dtype-float32", lambda: K.make_kernel("gaussian", sigma=np.float32(2.0))(X32),
    check=close(skp.rbf_kernel(X32.astype(float), gamma=1 / 8)), note="float32 X and sigma")
add(MK, "nan-inf", lambda: K.make_kernel("rbf", gamma=np.nan), "ValueError", "gamma", note="gamma nan")
add(MK, "nan-inf", lambda: K.make_kernel("poly", coef0=np.inf), "ValueError", "coef0", note="coef0 inf")
add(MK, "empty", lambda: K.make_kernel(""), "ValueError", "kernel must be one of", note="empty name")
add(MK, "empty", lambda: K.make_kernel("laplacian")(np.zeros((0, 2))), "ValueError", "X is empty", note="empty X")
add(MK, "one-sample", lambda: K.make_kernel("laplacian", gamma=0.5, metric="manhattan")(X[:1], Y),
    check=close(skp.laplacian_kernel(X[:1], Y, gamma=0.5)), note="sklearn laplacian")
add(MK, "one-sample", lambda: K.make_kernel("poly")(X[:1], Y),
    check=close(skp.polynomial_kernel(X[:1], Y, degree=2, gamma=1.0, coef0=1.0)), note="book defaults")
add(MK, "extreme-scale", lambda: K.make_kernel("rbf", gamma=1e300)(X), check=close(np.eye(6)), note="gamma 1e300")
add(MK, "extreme-scale", lambda: K.make_kernel("sigmoid", gamma=1e-300)(X, Y), check=close(np.full((6, 4), np.tanh(1.0))),
    note="gamma 1e-300, default coef0 1")
add(MK, "param-type", lambda: K.make_kernel("poly", degree=2.5), "TypeError", "degree", note="degree 2.5")
add(MK, "param-type", lambda: K.make_kernel("rbf", gamma="scale"), "TypeError", "gamma", note="gamma str")
add(MK, "param-type", lambda: K.make_kernel("sigmoid", coef0="1"), "TypeError", "coef0", note="coef0 str")
add(MK, "param-type", lambda: K.make_kernel("laplacian", metric=3), "ValueError", "metric", note="metric int")
add(MK, "param-type", lambda: K.make_kernel(3), "ValueError", "kernel must be one of", note="kernel int")
add(MK, "param-range", lambda: K.make_kernel("rbf", gamma=-1.0), "ValueError", "gamma", note="gamma<0")
add(MK, "param-range", lambda: K.make_kernel("poly", degree=0), "ValueError", "degree", note="degree 0")
add(MK, "param-range", lambda: K.make_kernel("gaussian", sigma=0.0), "ValueError", "sigma", note="sigma 0")
add(MK, "param-range", lambda: K.make_kernel("cosine"), "ValueError", "kernel must be one of", note="unknown name")
add(MK, "param-range", lambda: K.make_kernel("laplacian", metric="cosine"), "ValueError", "metric", note="metric")
add(MK, "huge-size", lambda: K.make_kernel("rbf")(HUGE_ROWS), "ValueError", "MAX_OUTPUT_ELEMENTS", note="1e12 out")
for _n, _f, _kw in (("poly", K.polynomial_kernel, {}), ("sigmoid", K.sigmoid_kernel, {}),
                    ("laplacian", K.laplacian_kernel, {}), ("rbf", K.rbf_kernel, {})):
    add(MK, "one-sample", lambda n=_n: K.make_kernel(n)(X[:1], Y), check=close(_f(X[:1], Y)),
        note=f"{_n}: defaults are the function's")
NOT_APPLICABLE[(M + MK, "one-class")] = "the factory takes a name and parameters, no labels"
NOT_APPLICABLE[(M + MK, "non-symmetric")] = "no kernel matrix is input to the factory or to the kernel it returns"
NOT_APPLICABLE[(M + MK, "non-psd")] = "no kernel matrix is input to the factory or to the kernel it returns"

# ---------------------------------------------------------------------------------------------
# gram_matrix
# ---------------------------------------------------------------------------------------------
GM = "gram_matrix"
gk = partial(K.gram_matrix, K.gaussian_kernel, sigma=1.3, block_size=4)
g_or = lambda A, B=None: skp.rbf_kernel(A, B, gamma=1 / (2 * 1.3**2))  # noqa: E731
generic = lambda A, B: skp.rbf_kernel(A, B, gamma=0.2)  # noqa: E731  (the generic blocked path)
add(GM, "shape", lambda: gk(X[0]), "ValueError", "X must be a 2-D", note="1-D X")
add(GM, "shape", lambda: gk(X, Y[:, :2]), "ValueError", "same number of features", note="mismatch")
add(GM, "shape", lambda: K.gram_matrix(lambda A, B: np.zeros((2, 2)), X, Y), "ValueError",
    "kernel returned a block of shape", note="kernel returns wrong shape")
add(GM, "dtype-complex", lambda: gk(X * 1j), "TypeError", "X must be a real", note="X complex")
add(GM, "dtype-complex", lambda: K.gram_matrix(lambda A, B: (A @ B.T).astype(complex), X, Y), "TypeError",
    "kernel returned complex", note="kernel returns complex")
add(GM, "dtype-bool", lambda: gk(XB), check=close(g_or(XB.astype(float))), note="bool X")
add(GM, "dtype-object", lambda: K.gram_matrix(partial(K.subsequence_gram, n=2, lam=0.5), ["cat", "car", "bat"],
                                              block_size=2),
    check=close(np.array([[1, 4 / 9, 4 / 9], [4 / 9, 1, 0], [4 / 9, 0, 1]])), note="list of strings (closed form)")
add(GM, "dtype-object", lambda: gk(np.array([["1", "2", "3"]])), "TypeError", "X must be a numeric", note="str array")
add(GM, "dtype-object", lambda: K.gram_matrix(generic, X.astype(object), block_size=4), check=close(generic(X, X)),
    note="object floats, generic path")
add(GM, "dtype-float32", lambda: gk(X32), check=close(g_or(X32.astype(float))), note="float32 fast path")
add(GM, "dtype-float32", lambda: K.gram_matrix(generic, X32, block_size=2), check=close(generic(X32.astype(float), X32.astype(float))),
    note="float32 generic path")
add(GM, "nan-inf", lambda: gk(np.where(X > 1, np.nan, X)), "ValueError", "X contains NaN", note="NaN in X")
add(GM, "nan-inf", lambda: K.gram_matrix(lambda A, B: np.full((len(A), len(B)), np.inf), X, Y), "ValueError",
    "kernel returned NaN or infinity", note="kernel returns inf")
add(GM, "empty", lambda: gk(np.zeros((0, 3))), "ValueError", "X is empty", note="no samples")
add(GM, "empty", lambda: K.gram_matrix(K.subsequence_gram, [], n=2, lam=0.5), "ValueError", "at least one item",
    note="empty list")
add(GM, "one-sample", lambda: gk(X[:1]), check=close(np.ones((1, 1))), note="one sample")
add(GM, "one-sample", lambda: K.gram_matrix(generic, X[:1], Y), check=close(generic(X[:1], Y)), note="generic")
add(GM, "extreme-scale", lambda: gk(X * 1e200), check=close(np.eye(6)), note="x~1e200 sigma 1.3")
add(GM, "extreme-scale", lambda: K.gram_matrix(K.gaussian_kernel, X * 1e200, sigma=1.3e200), check=close(g_or(X)),
    note="x and sigma ~1e200")
add(GM, "extreme-scale", lambda: K.gram_matrix(K.linear_kernel, X * 1e200), "ValueError", "overflow float64",
    note="linear overflow")
add(GM, "extreme-scale", lambda: K.gram_matrix(K.sigmoid_kernel, X * 1e200, gamma=1.0),
    check=close(np.sign(X @ X.T)), note="sigmoid tanh(+-inf)")


def _asym(A, B):
    return A @ B.T + 0.5 * A[:, :1]


add(GM, "non-symmetric", lambda: K.gram_matrix(_asym, X, block_size=4), "ValueError", "kernel\\(X, X\\) is not symmetric",
    note="asymmetric kernel")
add(GM, "non-symmetric", lambda: K.gram_matrix(_asym, X, X, block_size=4), check=close(_asym(X, X)),
    note="Y given: computed as asked")


def _across_blocks(A, B):  # symmetric inside the diagonal blocks, not between blocks
    return A @ B.T if A is B else A @ B.T + (A[:, :1] > B[:, 0][None, :])


XS = np.sort(X, axis=0)
add(GM, "non-symmetric", lambda: K.gram_matrix(_across_blocks, XS, block_size=2), "ValueError", "not symmetric",
    note="asymmetric only across blocks")
add(GM, "non-psd", lambda: K.gram_matrix(K.sigmoid_kernel, X, gamma=2.0, coef0=-1.0),
    check=close(skp.sigmoid_kernel(X, gamma=2.0, coef0=-1.0)), note="indefinite kernel is valid input")
add(GM, "param-type", lambda: K.gram_matrix(K.linear_kernel, X, block_size=2.5), "TypeError", "block_size",
    note="block_size float")
add(GM, "param-type", lambda: K.gram_matrix(K.linear_kernel, X, n_jobs="2"), "TypeError", "n_jobs", note="n_jobs str")
add(GM, "param-type", lambda: K.gram_matrix("rbf", X), "TypeError", "kernel must be a callable", note="kernel name")
add(GM, "param-type", lambda: K.gram_matrix(generic, X, check_symmetry="yes"), "TypeError", "check_symmetry",
    note="check_symmetry str")
add(GM, "param-type", lambda: K.gram_matrix(K.gaussian_kernel, X, sigma="1"), "TypeError", "sigma", note="sigma str")
add(GM, "param-range", lambda: K.gram_matrix(K.linear_kernel, X, block_size=0), "ValueError", "block_size", note="0")
add(GM, "param-range", lambda: K.gram_matrix(K.linear_kernel, X, n_jobs=0), "ValueError", "n_jobs", note="0")
add(GM, "param-range", lambda: K.gram_matrix(K.gaussian_kernel, X, sigma=-1.0), "ValueError", "sigma", note="sigma<0")
add(GM, "param-range", lambda: K.gram_matrix(K.polynomial_kernel, X, degree=0), "ValueError", "degree", note="degree 0")
add(GM, "huge-size", lambda: gk(HUGE_ROWS), "ValueError", "Gram matrix would have 1000000 x 1000000", note="1e12")
add(GM, "huge-size", lambda: K.gram_matrix(generic, HUGE_ROWS), "ValueError", "MAX_OUTPUT_ELEMENTS",
    note="generic path refused too")
NOT_APPLICABLE[(M + GM, "one-class")] = "a Gram matrix has no labels"

# ---------------------------------------------------------------------------------------------
# is_psd and psd_tolerance
# ---------------------------------------------------------------------------------------------
KP = skp.rbf_kernel(X, gamma=0.3)  # PSD
KN = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3, -1
KA = KP.copy()
KA[0, 1] += 0.1  # not symmetric


def _eig_tol(A):
    """The documented default tolerance: ``n eps (max|eigenvalue| + max|K_ij|)`` (the
    eigensolver's rounding and the entries' own, one rounding each)."""
    w = np.linalg.eigvalsh((A + A.T) / 2)
    return len(A) * np.finfo(float).eps * (np.max(np.abs(w)) + np.max(np.abs(A)))


for _fn in ("is_psd", "psd_tolerance"):
    f = getattr(K, _fn)
    psd = _fn == "is_psd"

    def ok(A, f=f, psd=psd, eps=np.finfo(float).eps):
        A = np.asarray(A, dtype=float)
        if psd:
            w = np.linalg.eigvalsh((A + A.T) / 2)
            sym = np.max(np.abs(A - A.T)) <= 1e-10 * np.max(np.abs(A))
            return equal(bool(sym and w[0] >= -_eig_tol(A)))
        return close(_eig_tol(A), rtol=1e-10, atol=0)

    add(_fn, "shape", lambda f=f: f(np.ones((2, 3))), "ValueError", "K must be a square matrix", note="2x3")
    add(_fn, "shape", lambda f=f: f(np.ones(3)), "ValueError", "K must be a 2-D", note="1-D")
    add(_fn, "dtype-complex", lambda f=f: f(np.array([[1, 2j], [2j, 1]])), "TypeError", "K must be a real array",
        note="the reported case")
    add(_fn, "dtype-bool", lambda f=f: f(np.eye(3, dtype=bool)), check=ok(np.eye(3)), note="bool identity")
    add(_fn, "dtype-object", lambda f=f: f(np.array([["1", "0"], ["0", "1"]])), "TypeError", "K must be a numeric",
        note="strings")
    add(_fn, "dtype-object", lambda f=f: f(KP.astype(object)), check=ok(KP), note="object floats")
    K32 = KP.astype(np.float32)
    add(_fn, "dtype-float32", lambda f=f, K32=K32: f(K32),
        check=equal(True) if psd else close(len(K32) * np.finfo(np.float32).eps * (
            np.max(np.linalg.eigvalsh(K32.astype(float))) + float(np.max(np.abs(K32)))), rtol=1e-6, atol=0),
        note="float32: tolerance of float32")
    add(_fn, "nan-inf", lambda f=f: f(np.array([[1.0, np.nan], [np.nan, 1.0]])), "ValueError", "K contains NaN",
        note="NaN")
    add(_fn, "empty", lambda f=f: f(np.zeros((0, 0))), "ValueError", "K is empty", note="0x0")
    add(_fn, "one-sample", lambda f=f: f([[2.0]]), check=ok([[2.0]]), note="1x1 positive")
    add(_fn, "one-sample", lambda f=f: f([[-1e-3]]), check=ok([[-1e-3]]), note="1x1 negative")
    for _c in (1e300, 1e-300):
        add(_fn, "extreme-scale", lambda f=f, c=_c: f(KP * c),
            check=equal(True) if psd else close(_eig_tol(KP) * _c, rtol=1e-10, atol=0), note=f"K x {_c:g}")
    add(_fn, "non-symmetric", lambda f=f: f(KA), check=ok(KA), note="asymmetric by 0.1")
    add(_fn, "non-psd", lambda f=f: f(KN), check=ok(KN), note="eigenvalue -1")
    add(_fn, "non-psd", lambda f=f: f(-KP), check=ok(-KP), note="negative definite")
    add(_fn, "huge-size", lambda f=f: f(np.broadcast_to(0.0, (30000, 30000))), "ValueError", "MAX_PSD_SIZE",
        note="O(n^3) refused")
    add(_fn, "huge-size", lambda f=f: f(np.broadcast_to(0.0, (60000, 60000))), "ValueError", "K has shape",
        note="3.6e9 values")
    NOT_APPLICABLE[(M + _fn, "one-class")] = "a matrix test has no labels"

add("is_psd", "param-type", lambda: K.is_psd(KP, tol="0"), "TypeError", "tol must be a real", note="tol str")
add("is_psd", "param-type", lambda: K.is_psd(KP, tol=1j), "TypeError", "tol", note="tol complex")
add("is_psd", "param-range", lambda: K.is_psd(KP, tol=-1.0), "ValueError", "tol", note="tol<0")
add("is_psd", "param-range", lambda: K.is_psd(KN, tol=1.5), check=equal(True), note="tol above |min eig| accepts")
NOT_APPLICABLE[(M + "psd_tolerance", "param-type")] = "psd_tolerance takes only the matrix K (covered by the dtype rows)"
NOT_APPLICABLE[(M + "psd_tolerance", "param-range")] = "psd_tolerance takes only the matrix K (no parameter with a range)"

# is_cnd (Chapter 4): the same validation as is_psd; the oracle is the exact definition
_xl = np.arange(4.0)
D2L = (_xl[:, None] - _xl[None, :]) ** 2  # squared distances: CND
D3L = np.abs(_xl[:, None] - _xl[None, :]) ** 3  # |x - z|^3: not CND (c = (1, -2, 1, 0))
add("is_cnd", "shape", lambda: K.is_cnd(np.ones((2, 3))), "ValueError", "K must be a square matrix", note="2x3")
add("is_cnd", "shape", lambda: K.is_cnd(np.ones(3)), "ValueError", "K must be a 2-D", note="1-D")
add("is_cnd", "dtype-complex", lambda: K.is_cnd(D2L + 0j), "TypeError", "K must be a real array", note="complex")
add("is_cnd", "dtype-bool", lambda: K.is_cnd(np.eye(3, dtype=bool)), check=equal(False),
    note="bool identity: c^T I c > 0")
add("is_cnd", "dtype-bool", lambda: K.is_cnd(~np.eye(3, dtype=bool)), check=equal(True),
    note="bool 1 - I: discrete metric squared, CND")
add("is_cnd", "dtype-object", lambda: K.is_cnd(np.array([["0", "1"], ["1", "0"]])), "TypeError",
    "K must be a numeric", note="strings")
add("is_cnd", "dtype-object", lambda: K.is_cnd(D2L.astype(object)), check=equal(True), note="object floats")
add("is_cnd", "dtype-float32", lambda: K.is_cnd(D2L.astype(np.float32)), check=equal(True), note="float32 CND")
add("is_cnd", "dtype-float32", lambda: K.is_cnd(D3L.astype(np.float32)), check=equal(False),
    note="float32 not CND")
add("is_cnd", "nan-inf", lambda: K.is_cnd(np.array([[0.0, np.inf], [np.inf, 0.0]])), "ValueError",
    "K contains NaN", note="inf")
add("is_cnd", "empty", lambda: K.is_cnd(np.zeros((0, 0))), "ValueError", "K is empty", note="0x0")
add("is_cnd", "one-sample", lambda: K.is_cnd([[3.0]]), check=equal(True), note="1x1: only c = 0")
for _c in (1e300, 1e-300):
    add("is_cnd", "extreme-scale", lambda c=_c: K.is_cnd(D2L * c), check=equal(True), note=f"D2 x {_c:g}")
    add("is_cnd", "extreme-scale", lambda c=_c: K.is_cnd(D3L * c), check=equal(False), note=f"D3 x {_c:g}")
add("is_cnd", "non-symmetric", lambda: K.is_cnd(D2L + np.triu(np.ones((4, 4)), 1)), check=equal(False),
    note="asymmetric")
add("is_cnd", "non-psd", lambda: K.is_cnd(D2L), check=equal(True), note="indefinite but CND (the usual case)")
add("is_cnd", "non-psd", lambda: K.is_cnd(D3L), check=equal(False), note="indefinite and not CND")
add("is_cnd", "param-type", lambda: K.is_cnd(D2L, tol="0"), "TypeError", "tol must be a real", note="tol str")
add("is_cnd", "param-range", lambda: K.is_cnd(D2L, tol=-1.0), "ValueError", "tol", note="tol<0")
add("is_cnd", "param-range", lambda: K.is_cnd(np.eye(3), tol=1.5), check=equal(True),
    note="tol above |min eig| accepts")
add("is_cnd", "huge-size", lambda: K.is_cnd(np.broadcast_to(0.0, (30000, 30000))), "ValueError", "MAX_PSD_SIZE",
    note="O(n^3) refused")
NOT_APPLICABLE[(M + "is_cnd", "one-class")] = "a matrix test has no labels"

# ---------------------------------------------------------------------------------------------
# explicit polynomial feature map
# ---------------------------------------------------------------------------------------------
PF = "polynomial_feature_map"


def feat_check(A, degree=2, coef0=1.0):
    A = np.asarray(A, dtype=float)

    def check(Phi):
        assert np.all(np.isfinite(Phi))
        np.testing.assert_allclose(Phi @ Phi.T, (A @ A.T + coef0) ** degree, rtol=1e-10, atol=1e-12)
        hom = coef0 == 0
        assert Phi.shape == (len(A), math.comb(A.shape[1] + degree - (1 if hom else 0), degree))

    return check


add(PF, "shape", lambda: K.polynomial_feature_map(X[0]), "ValueError", "X must be a 2-D", note="1-D")
add(PF, "shape", lambda: K.polynomial_feature_map(X[None]), "ValueError", "X must be a 2-D", note="3-D")
add(PF, "dtype-complex", lambda: K.polynomial_feature_map(X * 1j), "TypeError", "X must be a real", note="X")
add(PF, "dtype-bool", lambda: K.polynomial_feature_map(XB), check=feat_check(XB), note="bool")
add(PF, "dtype-object", lambda: K.polynomial_feature_map(np.array([["a", "b"]])), "TypeError", "X must be a numeric",
    note="str")
add(PF, "dtype-object", lambda: K.polynomial_feature_map(X.astype(object), degree=3), check=feat_check(X, 3), note="obj")
add(PF, "dtype-float32", lambda: K.polynomial_feature_map(X32, coef0=0.0), check=feat_check(X32, 2, 0.0), note="f32")
add(PF, "nan-inf", lambda: K.polynomial_feature_map(np.array([[np.inf, 1.0]])), "ValueError", "X contains NaN", note="inf")
add(PF, "empty", lambda: K.polynomial_feature_map(np.zeros((0, 2))), "ValueError", "X is empty", note="no rows")
add(PF, "empty", lambda: K.polynomial_feature_map(np.zeros((2, 0))), "ValueError", "X is empty", note="no columns")
add(PF, "one-sample", lambda: K.polynomial_feature_map(X[:1], degree=4, coef0=2.0), check=feat_check(X[:1], 4, 2.0),
    note="one row")
add(PF, "extreme-scale", lambda: K.polynomial_feature_map(X * 1e200), "ValueError", "overflow float64", note="1e200")
add(PF, "extreme-scale", lambda: K.polynomial_feature_map(X * 1e-200), check=feat_check(X * 1e-200), note="1e-200")
def _big_coef0(Phi):
    """phi = (c, sqrt(2c) x, x_i x_j ...) for c = 1e300 (closed form; Phi Phi^T itself overflows)."""
    np.testing.assert_allclose(Phi[:, 0], 1e300, rtol=1e-12)
    np.testing.assert_allclose(Phi[:, 1:4], np.sqrt(2e300) * X, rtol=1e-12)
    np.testing.assert_allclose(Phi[:, 4], X[:, 0] ** 2, rtol=1e-12)


add(PF, "extreme-scale", lambda: K.polynomial_feature_map(X, coef0=1e300), check=_big_coef0, note="coef0 1e300")
add(PF, "param-type", lambda: K.polynomial_feature_map(X, degree=2.0), "TypeError", "degree", note="degree float")
add(PF, "param-type", lambda: K.polynomial_feature_map(X, coef0="1"), "TypeError", "coef0", note="coef0 str")
add(PF, "param-range", lambda: K.polynomial_feature_map(X, degree=0), "ValueError", "degree", note="degree 0")
add(PF, "param-range", lambda: K.polynomial_feature_map(X, coef0=-1.0), "ValueError", "coef0", note="coef0<0")
add(PF, "huge-size", lambda: K.polynomial_feature_map(np.ones((2, 1000)), degree=5), "ValueError",
    "MAX_FEATURE_DIMENSION", note="D ~ 8e12")
add(PF, "huge-size", lambda: K.polynomial_feature_map(np.zeros((70000, 30)), degree=3), "ValueError",
    "X.*|MAX_FEATURE_MAP_ELEMENTS", note="n x D = 3.8e8")
for _c in ("one-class", "non-symmetric", "non-psd"):
    NOT_APPLICABLE[(M + PF, _c)] = "the map takes a sample matrix: no labels and no kernel matrix"


def powers_oracle(n, d, homogeneous=False):
    rows = [p for p in itertools.product(range(d + 1), repeat=n) if (sum(p) == d if homogeneous else sum(p) <= d)]

    def check(P):
        assert P.dtype.kind == "i" and P.shape == (len(rows), n)
        assert sorted(map(tuple, P.tolist())) == sorted(rows)
        assert np.all(np.diff(P.sum(axis=1)) >= 0)  # graded order

    return check


for _fn in ("polynomial_feature_powers", "polynomial_feature_dimension"):
    f = getattr(K, _fn)
    pw = _fn == "polynomial_feature_powers"

    def ok(n, d, h=False, pw=pw):
        return powers_oracle(n, d, h) if pw else equal(math.comb(n + d - (1 if h else 0), d))

    add(_fn, "shape", lambda f=f: f(np.array([2, 3]), 2), "TypeError", "n_features", note="array n_features")
    add(_fn, "dtype-complex", lambda f=f: f(2 + 0j, 2), "TypeError", "n_features", note="complex")
    add(_fn, "dtype-bool", lambda f=f: f(True, 2), "TypeError", "n_features", note="n_features=True")
    add(_fn, "dtype-bool", lambda f=f: f(2, 2, np.bool_(True)), check=ok(2, 2, True), note="homogeneous np.bool_")
    add(_fn, "dtype-object", lambda f=f: f("3", 2), "TypeError", "n_features", note="str")
    add(_fn, "dtype-float32", lambda f=f: f(np.float32(3), 2), "TypeError", "n_features", note="np.float32 count")
    add(_fn, "dtype-float32", lambda f=f: f(np.int32(3), np.int64(2)), check=ok(3, 2), note="numpy integers")
    add(_fn, "nan-inf", lambda f=f: f(2, float("nan")), "TypeError", "degree", note="degree nan")
    add(_fn, "nan-inf", lambda f=f: f(float("inf"), 2), "TypeError", "n_features", note="n_features inf")
    add(_fn, "empty", lambda f=f: f(0, 2), "ValueError", "n_features", note="no features")
    add(_fn, "one-sample", lambda f=f: f(1, 3), check=ok(1, 3), note="one feature")
    add(_fn, "extreme-scale", lambda f=f: f(1, 10**9), "ValueError" if pw else "ok",
        "MAX_FEATURE_DIMENSION" if pw else None, check=None if pw else equal(10**9 + 1), note="degree 1e9")
    add(_fn, "param-type", lambda f=f: f(2, 2, "yes"), "TypeError", "homogeneous", note="homogeneous str")
    add(_fn, "param-type", lambda f=f: f(2, 2.0), "TypeError", "degree", note="degree float")
    add(_fn, "param-range", lambda f=f: f(2, 0), "ValueError", "degree", note="degree 0")
    add(_fn, "param-range", lambda f=f: f(-3, 2), "ValueError", "n_features", note="n_features<0")
    add(_fn, "param-range", lambda f=f: f(3, 3, True), check=ok(3, 3, True), note="homogeneous")
    add(_fn, "huge-size", lambda f=f: f(300, 6), "ValueError" if pw else "ok", "MAX_FEATURE_DIMENSION" if pw else None,
        check=None if pw else equal(math.comb(306, 6)), note="C(306, 6)")
    add(_fn, "huge-size", lambda f=f: f(10**18, 10**18), "ValueError", "MAX_FEATURE_DIMENSION|MAX_DIMENSION_DIGITS",
        note="1e18")
    for _c in ("one-class", "non-symmetric", "non-psd"):
        NOT_APPLICABLE[(M + _fn, _c)] = "takes two counts: no labels and no kernel matrix"

# ---------------------------------------------------------------------------------------------
# the string subsequence kernel
# ---------------------------------------------------------------------------------------------


def ssk_brute(s: str, t: str, n: int, lam):
    """Definition (ch02-ssk): sum over pairs of index sequences with equal subsequences."""
    total = 0 * lam
    for i in itertools.combinations(range(len(s)), n):
        u = "".join(s[k] for k in i)
        for j in itertools.combinations(range(len(t)), n):
            if "".join(t[k] for k in j) == u:
                total += lam ** ((i[-1] - i[0] + 1) + (j[-1] - j[0] + 1))
    return total


def sym_equal(expected):
    def check(result):
        assert sp.expand(result - expected) == 0, f"{result} != {expected}"

    return check


def ssk_gram_brute(S, T, n, lam, normalize=True):
    G = np.array([[ssk_brute(s, t, n, sp.Rational(lam)) for t in T] for s in S], dtype=object)
    if not normalize:
        return G.astype(float)
    out = np.zeros(G.shape)
    for a, s in enumerate(S):
        for b, t in enumerate(T):
            ks, kt = ssk_brute(s, s, n, sp.Rational(lam)), ssk_brute(t, t, n, sp.Rational(lam))
            out[a, b] = float(G[a, b] / sp.sqrt(ks * kt)) if ks and kt else float(s == t)
    return out


SK = "subsequence_kernel"
lam_s = sp.Symbol("lam", positive=True)
add(SK, "dtype-complex", lambda: K.subsequence_kernel("cat", "car", 2, 0.5j), "TypeError", "lam", note="lam complex")
add(SK, "dtype-complex", lambda: K.subsequence_kernel("cat", "car", 2, sp.I / 2), "TypeError", "lam", note="sympy I/2")
add(SK, "dtype-bool", lambda: K.subsequence_kernel("cat", "car", 2, True), "TypeError", "lam", note="lam True")
add(SK, "dtype-bool", lambda: K.subsequence_kernel("cat", "car", True, 0.5), "TypeError", "n", note="n True")
add(SK, "dtype-object", lambda: K.subsequence_kernel(b"cat", "car", 2, 0.5), "TypeError", "s must be a str", note="bytes")
add(SK, "dtype-object", lambda: K.subsequence_kernel("cat", ["c", "a"], 2, 0.5), "TypeError", "t must be a str",
    note="list")
add(SK, "dtype-float32", lambda: K.subsequence_kernel("science", "silence", 3, np.float32(0.5)),
    check=close(float(ssk_brute("science", "silence", 3, sp.Rational(1, 2)))), note="lam float32")
add(SK, "nan-inf", lambda: K.subsequence_kernel("cat", "car", 2, float("nan")), "ValueError", "lam", note="nan")
add(SK, "nan-inf", lambda: K.subsequence_kernel("cat", "car", 2, float("inf")), "ValueError", "lam", note="inf")
add(SK, "empty", lambda: K.subsequence_kernel("", "car", 2, 0.5), check=equal(0.0), note="empty s")
add(SK, "empty", lambda: K.subsequence_kernel("", "", 1, sp.Rational(1, 2)), check=equal(0), note="exact, empty")
add(SK, "one-sample", lambda: K.subsequence_kernel("a", "banana", 1, 0.5), check=close(3 * 0.5**2), note="one char")
add(SK, "extreme-scale", lambda: K.subsequence_kernel("abcab" * 6, "abcab" * 6, 30, 1e-6), "ValueError",
    "underflows float64", note="lam^(2n) = 1e-360")
add(SK, "extreme-scale", lambda: K.subsequence_kernel("a" * 520, "a" * 520, 260, 1.0), "ValueError",
    "overflow float64", note="C(520,260)^2")
add(SK, "extreme-scale", lambda: K.subsequence_kernel("cat", "car", 2, 5e-324), "ValueError", "underflows",
    note="lam subnormal")
add(SK, "extreme-scale", lambda: K.subsequence_kernel("abcd", "abdc", 2, 1.0),
    check=close(float(ssk_brute("abcd", "abdc", 2, sp.Integer(1)))), note="lam = 1 counts")
add(SK, "extreme-scale", lambda: K.subsequence_kernel("abab", "baba", 2, 1e-50),
    check=close(float(ssk_brute("abab", "baba", 2, sp.Rational(1, 10**50))), rtol=1e-12, atol=0), note="lam 1e-50")
for _s, _t, _n in (("cat", "car", 2), ("science", "silence", 3), ("abba", "baab", 2), ("banana", "bandana", 4)):
    add(SK, "one-sample", lambda s=_s, t=_t, n=_n: K.subsequence_kernel(s, t, n, lam_s),
        check=sym_equal(ssk_brute(_s, _t, _n, lam_s)), note=f"symbolic {_s},{_t}")
    add(SK, "one-sample", lambda s=_s, t=_t, n=_n: K.subsequence_kernel(s, t, n, 0.7),
        check=close(float(ssk_brute(_s, _t, _n, sp.Rational(7, 10)))), note=f"numeric {_s},{_t}")
add(SK, "param-type", lambda: K.subsequence_kernel("cat", "car", 2.0, 0.5), "TypeError", "n \\(subsequence length\\)",
    note="n float")
add(SK, "param-type", lambda: K.subsequence_kernel("cat", "car", 2, "0.5"), "TypeError", "lam", note="lam str")
for _lam in (0, 0.0, -0.5, 1.5, sp.Integer(0), sp.Rational(3, 2), sp.Integer(-1)):
    add(SK, "param-range", lambda lam=_lam: K.subsequence_kernel("cat", "car", 2, lam), "ValueError",
        "lam \\(decay\\) must lie in \\(0, 1\\]", note=f"lam={_lam}")
add(SK, "param-range", lambda: K.subsequence_kernel("cat", "car", 0, 0.5), "ValueError", "n \\(subsequence", note="n 0")
add(SK, "param-range", lambda: K.subsequence_kernel("cat", "car", 2, sp.Rational(1, 3)),
    check=sym_equal(ssk_brute("cat", "car", 2, sp.Rational(1, 3))), note="exact 1/3")
add(SK, "huge-size", lambda: K.subsequence_kernel("a" * 10_000, "b" * 10_000, 2, 0.5), "ValueError", "MAX_PAIR_CELLS",
    note="1e8 cells")
add(SK, "huge-size", lambda: K.subsequence_kernel("abcd" * 5, "dcba" * 5, 3, lam_s), "ValueError", "MAX_SYMBOLIC_WORK",
    note="symbolic 20x20")
add(SK, "huge-size", lambda: K.subsequence_kernel("ab" * 200, "ba" * 200, 2, sp.Rational(1, 2)), "ValueError",
    "MAX_EXACT_WORK", note="exact 400x400")
for _c, _r in (("shape", "the arguments are two strings and two numbers: no array shape"),
               ("one-class", "a string kernel has no labels"),
               ("non-symmetric", "no kernel matrix is input"), ("non-psd", "no kernel matrix is input")):
    NOT_APPLICABLE[(M + SK, _c)] = _r

SG = "subsequence_gram"
WORDS = ["cat", "car", "a", "bat", "cart", "a"]
add(SG, "shape", lambda: K.subsequence_gram("cat", n=2, lam=0.5), "TypeError", "S and T must be sequences of strings",
    note="a single string")
add(SG, "shape", lambda: K.subsequence_gram(WORDS, "car", n=2, lam=0.5), "TypeError", "S and T", note="T a string")
add(SG, "shape", lambda: K.subsequence_gram(WORDS[:2], WORDS, n=2, lam=0.5),
    check=close(ssk_gram_brute(WORDS[:2], WORDS, 2, 0.5)), note="2 x 6")
add(SG, "dtype-complex", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5 + 0j), "TypeError", "lam", note="lam complex")
add(SG, "dtype-complex", lambda: K.subsequence_gram(["cat", 1j], n=2, lam=0.5), "TypeError", "S\\[1\\]", note="item")
add(SG, "dtype-bool", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5, normalize=1), "TypeError", "normalize",
    note="normalize int")
add(SG, "dtype-bool", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5, normalize=np.bool_(False)),
    check=close(ssk_gram_brute(WORDS, WORDS, 2, 0.5, normalize=False)), note="np.bool_")
add(SG, "dtype-object", lambda: K.subsequence_gram(["cat", 3], n=2, lam=0.5), "TypeError", "S\\[1\\] must be a str",
    note="int item")
add(SG, "dtype-object", lambda: K.subsequence_gram(np.array(WORDS, dtype=object), n=2, lam=0.5),
    check=close(ssk_gram_brute(WORDS, WORDS, 2, 0.5)), note="object array of str")
add(SG, "dtype-float32", lambda: K.subsequence_gram(WORDS, n=2, lam=np.float32(0.25)),
    check=close(ssk_gram_brute(WORDS, WORDS, 2, 0.25)), note="lam float32")
add(SG, "nan-inf", lambda: K.subsequence_gram(WORDS, n=2, lam=np.nan), "ValueError", "lam", note="nan")
add(SG, "empty", lambda: K.subsequence_gram([], n=2, lam=0.5), "ValueError", "at least one string", note="no strings")
add(SG, "empty", lambda: K.subsequence_gram(["", "ab", ""], n=2, lam=0.5), check=close(np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1.0]])),
    note="empty strings: documented convention")
add(SG, "one-sample", lambda: K.subsequence_gram(["kernel"], n=3, lam=0.5), check=close(np.ones((1, 1))), note="one")
add(SG, "one-sample", lambda: K.subsequence_gram(["kernel"], ["kennel", "colonel"], n=2, lam=0.5, normalize=False),
    check=close(ssk_gram_brute(["kernel"], ["kennel", "colonel"], 2, 0.5, normalize=False)), note="1 x 2")
_w = "abcab" * 6 + "abc"
_long = [_w, _w[:15] + "x" + _w[15:], "bacab" * 6 + "cab"]
add(SG, "extreme-scale", lambda: K.subsequence_gram(_long, n=30, lam=1e-6, normalize=False), "ValueError",
    "underflows float64", note="unnormalized 1e-360")


def _long_oracle():
    lam = sp.Rational(1, 10**6)
    k = [[K.subsequence_kernel(s, t, 30, lam) for t in _long] for s in _long]
    return np.array([[float(k[i][j] / sp.sqrt(k[i][i] * k[j][j])) for j in range(3)] for i in range(3)])


add(SG, "extreme-scale", lambda: K.subsequence_gram(_long, n=30, lam=1e-6), check=close(_long_oracle(), rtol=1e-10),
    note="normalized in a safe scale (exact oracle)")
add(SG, "extreme-scale", lambda: K.subsequence_gram(["a" * 520] * 2, n=260, lam=1.0), "ValueError", "overflow float64",
    note="values beyond float64")
add(SG, "param-type", lambda: K.subsequence_gram(WORDS, n="2", lam=0.5), "TypeError", "n \\(subsequence", note="n str")
add(SG, "param-type", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5, max_elements=1.5), "TypeError", "max_elements",
    note="float budget")
add(SG, "param-type", lambda: K.subsequence_gram(WORDS, n=2, lam=lam_s), "TypeError", "lam", note="symbol")
add(SG, "param-range", lambda: K.subsequence_gram(WORDS, n=2, lam=0.0), "ValueError", "lam \\(decay\\) must lie",
    note="lam 0")
add(SG, "param-range", lambda: K.subsequence_gram(WORDS, n=0, lam=0.5), "ValueError", "n \\(subsequence", note="n 0")
add(SG, "param-range", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5, max_elements=0), "ValueError", "max_elements",
    note="budget 0")
add(SG, "param-range", lambda: K.subsequence_gram(WORDS, n=2, lam=0.5, max_elements=1),
    check=close(ssk_gram_brute(WORDS, WORDS, 2, 0.5)), note="budget 1: pair path")
add(SG, "param-range", lambda: K.subsequence_gram(WORDS, n=2, lam=sp.Rational(1, 2)),
    check=close(ssk_gram_brute(WORDS, WORDS, 2, 0.5)), note="exact number converted")
_docs = ["".join(np.random.default_rng(i).choice(list("abcdefghijklmnopqrstuvwxyz"), size=3000)) for i in range(200)]
add(SG, "huge-size", lambda: K.subsequence_gram(_docs, n=5, lam=0.5), "ValueError", "MAX_WORK", note="200 x 3000 chars")
add(SG, "huge-size", lambda: K.subsequence_gram(["ab"] * 20000, n=1, lam=0.5), "ValueError", "MAX_GRAM_ELEMENTS",
    note="4e8 values")
for _c, _r in (("one-class", "a string kernel has no labels"),
               ("non-symmetric", "no kernel matrix is input (the output is symmetric by construction)"),
               ("non-psd", "no kernel matrix is input (the output is PSD by construction)")):
    NOT_APPLICABLE[(M + SG, _c)] = _r

PUBLIC = [M + name for name in K.__all__]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
