"""Bad-input battery of ``ktheory.alignment`` (issue 17): generated cases over the categories.

Oracles: explicit centering with ``H = I - 11^T/n`` (matrix products), the Frobenius cosine
written with ``np.sum``, the defining U-statistic of the unbiased HSIC (loops over 4-tuples),
explicit label loops for the ideal kernel, the closed form of ``align`` (Hoelder) and a grid
search over the unit circle for ``alignf``; extreme scales are checked by invariance.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ktheory.alignment as A
from battery._common import Case, run_case

M = "ktheory.alignment."
RNG = np.random.default_rng(1212)
Z1 = RNG.normal(size=(7, 3))
Z2 = RNG.normal(size=(7, 2))
K1 = np.exp(-((Z1[:, None, :] - Z1[None, :, :]) ** 2).sum(-1) / 2)  # Gaussian Gram, PSD
K2 = (Z2 @ Z2.T + 1.0) ** 2  # polynomial Gram, PSD
KS = np.tanh(0.8 * Z1 @ Z1.T - 0.5)  # sigmoid Gram: symmetric, indefinite
KA = K1.copy()
KA[0, 3] += 0.05  # not symmetric
y = np.array([1, 1, -1, 1, -1, -1, 1])
HUGE = np.broadcast_to(0.0, (50_000, 50_000))  # 2.5e9 values, a view: refused before any copy

CASES: list[Case] = []
NOT_APPLICABLE: dict[tuple[str, str], str] = {}


def add(func, category, call, expect="ok", match=None, check=None, note=""):
    CASES.append(Case(M + func, category, call, expect, match=match, check=check, note=note))


def close(expected, rtol=1e-10, atol=1e-13):
    def check(result):
        r = np.asarray(result, dtype=float)
        assert np.all(np.isfinite(r)), "non-finite value"
        np.testing.assert_allclose(r, expected, rtol=rtol, atol=atol)

    return check


def in_range(lo, hi, inner=None):
    def check(result):
        assert lo <= result <= hi, f"{result} outside [{lo}, {hi}]"
        if inner is not None:
            inner(result)

    return check


def H(n):
    return np.eye(n) - np.ones((n, n)) / n


def cos_f(P, Q):
    return float(np.sum(P * Q) / np.sqrt(np.sum(P * P) * np.sum(Q * Q)))


def o_center(K):
    K = np.asarray(K, dtype=float)
    return H(len(K)) @ K @ H(len(K))


def o_kta(P, Q):
    return cos_f(np.asarray(P, float), np.asarray(Q, float))


def o_cka(P, Q):
    return cos_f(o_center(P), o_center(Q))


def o_hsic(P, Q, unbiased=False):
    P, Q = np.asarray(P, float), np.asarray(Q, float)
    n = len(P)
    if not unbiased:
        return float(np.trace(P @ H(n) @ Q @ H(n)) / (n - 1) ** 2)
    tot = [P[i, j] * Q[i, j] + P[i, j] * Q[q, r] - 2 * P[i, j] * Q[i, q]
           for i, j, q, r in itertools.permutations(range(n), 4)]
    return float(np.mean(tot))


def o_ideal(labels):
    labels = list(labels)
    c = len(set(labels))
    return np.array([[1.0 if a == b else -1.0 / (c - 1) for b in labels] for a in labels])


def o_linear_cka(P, Q):
    P, Q = np.asarray(P, float), np.asarray(Q, float)
    return o_cka(P @ P.T, Q @ Q.T)


# ---------------------------------------------------------------------------------------------
# the functions of two kernel matrices: kta, cka, hsic (biased and unbiased)
# ---------------------------------------------------------------------------------------------
PAIR = {
    "kta": (A.kta, o_kta, ("K1", "K2"), 1),
    "cka": (A.cka, o_cka, ("K1", "K2"), 2),
    "hsic": (A.hsic, o_hsic, ("K", "L"), 2),
}
K32 = K1.astype(np.float32)
K32b = K32.copy()
K32b[np.tril_indices(7, -1)] = (K32.T * np.float32(1 + 2e-7))[np.tril_indices(7, -1)]  # float32-level asymmetry


def sym(P):
    P = np.asarray(P, float)
    return (P + P.T) / 2


for name, (f, oracle, (a, b), min_n) in PAIR.items():
    add(name, "shape", lambda f=f: f(K1[:, :3], K2), "ValueError", f"{a} must be a square matrix", note="non-square")
    add(name, "shape", lambda f=f: f(K1, K2[0]), "ValueError", f"{b} must be a 2-D", note="1-D")
    add(name, "shape", lambda f=f: f(K1, K2[:5, :5]), "ValueError", f"{a} and {b} must be", note="sizes differ")
    add(name, "dtype-complex", lambda f=f: f(K1 + 0j, K2), "TypeError", f"{a} must be a real array", note="complex")
    add(name, "dtype-complex", lambda f=f: f(K1, K2 * (1 + 1e-3j)), "TypeError", f"{b} must be a real", note="complex")
    KB = np.equal.outer(y, y)  # bool: same-class indicator, PSD
    add(name, "dtype-bool", lambda f=f, KB=KB: f(KB, K2), check=close(oracle(KB, K2)), note="bool K")
    add(name, "dtype-object", lambda f=f: f(K1.astype(object), K2), check=close(oracle(K1, K2)), note="object floats")
    add(name, "dtype-object", lambda f=f: f(np.array([["1", "0"], ["0", "1"]]), K2[:2, :2]), "TypeError",
        f"{a} must be a numeric", note="strings")
    add(name, "dtype-float32", lambda f=f: f(K32, K2), check=close(oracle(K32, K2), rtol=1e-6), note="float32")
    add(name, "dtype-float32", lambda f=f: f(K32b, K2.astype(np.float32)),
        check=close(oracle(sym(K32b), K2.astype(np.float32)), rtol=1e-5), note="float32 rounding-level asymmetry")
    bad = K1.copy()
    bad[2, 2] = np.nan
    add(name, "nan-inf", lambda f=f, bad=bad: f(bad, K2), "ValueError", f"{a} contains NaN", note="NaN")
    add(name, "nan-inf", lambda f=f: f(K1, np.full((7, 7), np.inf)), "ValueError", f"{b} contains NaN", note="inf")
    add(name, "empty", lambda f=f: f(np.zeros((0, 0)), np.zeros((0, 0))), "ValueError", f"{a} is empty", note="0x0")
    add(name, "non-symmetric", lambda f=f: f(KA, K2), "ValueError", f"{a} must be symmetric", note="asymmetric K")
    add(name, "non-symmetric", lambda f=f: f(K1, K2 + np.triu(np.ones((7, 7)), 1) * 1e-6 * K2.max()), "ValueError",
        f"{b} must be symmetric", note="1e-6 relative asymmetry in float64")
    add(name, "huge-size", lambda f=f: f(HUGE, HUGE), "ValueError", f"{a} has 2500000000 values", note="50000^2")
    add(name, "param-type", lambda f=f: f(K1, 3.0), "ValueError", f"{b} must be a 2-D", note="scalar")
    add(name, "param-type", lambda f=f: f(None, K2), "TypeError", f"{a} must be an array", note="None")
    for c in (1e200, 1e-160, 1e300, 1e-300):
        if name == "hsic":
            add(name, "extreme-scale", lambda f=f, c=c: f(c * K1, K2 / c), check=close(o_hsic(K1, K2)),
                note=f"bilinear x{c:g}")
        else:
            add(name, "extreme-scale", lambda f=f, c=c: f(c * K1, K1),
                check=in_range(-1.0, 1.0, close(1.0, rtol=0, atol=1e-14)), note=f"self x{c:g}")
            add(name, "extreme-scale", lambda f=f, c=c: f(c * K1, K2), check=close(oracle(K1, K2), rtol=1e-12),
                note=f"x{c:g}")

# degenerate / class-like / range cases, one function at a time
add("kta", "one-sample", lambda: A.kta([[2.0]], [[3.0]]), check=close(1.0), note="1x1")
add("kta", "one-sample", lambda: A.kta([[2.0]], [[-3.0]]), check=close(-1.0), note="1x1 opposite")
add("kta", "one-class", lambda: A.kta(np.ones((4, 4)), A.ideal_kernel([0, 0, 1, 1])), check=close(0.0), note="ones")
add("kta", "one-class", lambda: A.kta(np.zeros((4, 4)), np.eye(4)), "ValueError", "K1 has a Frobenius norm",
    note="zero matrix: 0/0")
add("kta", "non-psd", lambda: A.kta(KS, K1), check=in_range(-1, 1, close(o_kta(KS, K1))), note="indefinite")
add("kta", "non-psd", lambda: A.kta(-K1, K1), check=close(-1.0), note="negative definite: -1")
NOT_APPLICABLE[(M + "kta", "param-range")] = "kta has no numeric parameter with a range (degenerate K: one-class rows)"

add("cka", "one-sample", lambda: A.cka([[2.0]], [[3.0]]), "ValueError", "K1 must have at least 2 rows", note="1x1")
add("cka", "one-class", lambda: A.cka(K1, np.ones((7, 7))), "ValueError",
    "K2 has a centered Frobenius norm", note="constant K: 0/0")
add("cka", "one-class", lambda: A.cka(K1, np.ones((7, 7)) * 3.0 + np.eye(7) * 1e-20), "ValueError", "numerically zero",
    note="constant up to rounding")
add("cka", "non-psd", lambda: A.cka(KS, K1), check=in_range(-1, 1, close(o_cka(KS, K1))), note="indefinite")
add("cka", "non-psd", lambda: A.cka(-K1, K1), check=close(-1.0), note="negated kernel: -1")
NOT_APPLICABLE[(M + "cka", "param-range")] = "cka has no numeric parameter with a range (degenerate K: one-class rows)"

add("hsic", "one-sample", lambda: A.hsic([[2.0]], [[3.0]]), "ValueError", "needs n >= 2", note="1x1")
add("hsic", "one-sample", lambda: A.hsic(K1[:3, :3], K2[:3, :3], unbiased=True), "ValueError", "needs n >= 4",
    note="unbiased n=3")
add("hsic", "one-class", lambda: A.hsic(np.ones((7, 7)), K2), check=close(0.0, atol=1e-12), note="constant K: 0")
add("hsic", "one-class", lambda: A.hsic(np.ones((7, 7)), K2, unbiased=True), check=close(0.0, atol=1e-10),
    note="unbiased, constant K")
add("hsic", "non-psd", lambda: A.hsic(KS, K1), check=close(o_hsic(KS, K1)), note="indefinite")
add("hsic", "non-psd", lambda: A.hsic(KS, K2, unbiased=True), check=close(o_hsic(KS, K2, True)), note="U-stat")
add("hsic", "one-sample", lambda: A.hsic(K1[:5, :5], K2[:5, :5], unbiased=True),
    check=close(o_hsic(K1[:5, :5], K2[:5, :5], True)), note="unbiased n=5 vs U-statistic")
add("hsic", "param-type", lambda: A.hsic(K1, K2, unbiased="yes"), "TypeError", "unbiased must be a bool", note="str")
add("hsic", "param-type", lambda: A.hsic(K1, K2, unbiased=1), "TypeError", "unbiased", note="int")
add("hsic", "param-range", lambda: A.hsic(K1[:3, :3], K2[:3, :3], unbiased=True), "ValueError", "n >= 4",
    note="unbiased needs 4")
add("hsic", "param-range", lambda: A.hsic(K1, K2, unbiased=True), check=close(o_hsic(K1, K2, True)), note="n=7")
add("hsic", "extreme-scale", lambda: A.hsic(1e300 * K1, 1e300 * K2), "ValueError", "HSIC value overflows",
    note="value beyond float64")
add("hsic", "extreme-scale", lambda: A.hsic(1e150 * K1, 1e-150 * K2, unbiased=True),
    check=close(o_hsic(K1, K2, True)), note="unbiased bilinear")

# ---------------------------------------------------------------------------------------------
# center_kernel
# ---------------------------------------------------------------------------------------------
CK = "center_kernel"
add(CK, "shape", lambda: A.center_kernel(K1[:, :4]), "ValueError", "K must be a square", note="non-square")
add(CK, "shape", lambda: A.center_kernel(K1[0]), "ValueError", "K must be a 2-D", note="1-D")
add(CK, "dtype-complex", lambda: A.center_kernel(K1 * 1j), "TypeError", "K must be a real", note="complex")
add(CK, "dtype-bool", lambda: A.center_kernel(np.eye(4, dtype=bool)), check=close(o_center(np.eye(4))), note="bool")
add(CK, "dtype-object", lambda: A.center_kernel([["a", "b"], ["c", "d"]]), "TypeError", "K must be a numeric",
    note="strings")
add(CK, "dtype-object", lambda: A.center_kernel(K2.astype(object)), check=close(o_center(K2)), note="object floats")
add(CK, "dtype-float32", lambda: A.center_kernel(K32), check=close(o_center(K32), rtol=1e-6, atol=1e-7), note="f32")
add(CK, "nan-inf", lambda: A.center_kernel(np.where(K1 > 0.5, np.inf, K1)), "ValueError", "K contains NaN", note="inf")
add(CK, "empty", lambda: A.center_kernel(np.zeros((0, 0))), "ValueError", "K is empty", note="0x0")
add(CK, "one-sample", lambda: A.center_kernel([[5.0]]), check=close(np.zeros((1, 1))), note="1x1")
add(CK, "one-class", lambda: A.center_kernel(np.full((4, 4), 7.0)), check=close(np.zeros((4, 4))), note="constant")
add(CK, "extreme-scale", lambda: A.center_kernel(1e300 * K2), check=lambda R: close(o_center(K2), rtol=1e-9,
    atol=1e-12 * K2.max())(R / 1e300), note="1e300")
_KO = np.full((100, 100), -1.7e308)
_KO[0, 0] = 1.7e308  # its centered corner is about 2 x 1.7e308


add(CK, "extreme-scale", lambda: A.center_kernel(_KO), "ValueError", "K is too large.*overflow float64",
    note="centered entries overflow")
add(CK, "extreme-scale", lambda: A.center_kernel(1e-300 * K1), check=lambda R: close(o_center(K1), rtol=1e-9,
    atol=1e-13)(R * 1e300), note="1e-300")
add(CK, "non-symmetric", lambda: A.center_kernel(KA), check=close(o_center(KA)), note="H K H of any square matrix")
add(CK, "non-psd", lambda: A.center_kernel(KS), check=close(o_center(KS)), note="indefinite")
add(CK, "param-type", lambda: A.center_kernel(None), "TypeError", "K must be an array", note="None")
add(CK, "param-type", lambda: A.center_kernel(3.0), "ValueError", "K must be a 2-D", note="scalar")
add(CK, "huge-size", lambda: A.center_kernel(HUGE), "ValueError", "K has 2500000000 values", note="50000^2")
NOT_APPLICABLE[(M + CK, "param-range")] = "center_kernel has no parameter besides K"

# ---------------------------------------------------------------------------------------------
# linear_cka
# ---------------------------------------------------------------------------------------------
LC = "linear_cka"
add(LC, "shape", lambda: A.linear_cka(Z1[:, 0], Z2), "ValueError", "X must be a 2-D", note="1-D X")
add(LC, "shape", lambda: A.linear_cka(Z1, Z2[:5]), "ValueError", "same number of rows", note="rows differ")
add(LC, "shape", lambda: A.linear_cka(Z1, RNG.normal(size=(7, 9))), check=in_range(0, 1), note="d differs: fine")
add(LC, "dtype-complex", lambda: A.linear_cka(Z1 * 1j, Z2), "TypeError", "X must be a real", note="X")
add(LC, "dtype-complex", lambda: A.linear_cka(Z1, Z2 + 0j), "TypeError", "Y must be a real", note="Y")
ZB = RNG.random((7, 4)) > 0.4
add(LC, "dtype-bool", lambda: A.linear_cka(ZB, Z2), check=close(o_linear_cka(ZB, Z2)), note="bool X")
add(LC, "dtype-object", lambda: A.linear_cka(Z1.astype(object), Z2), check=close(o_linear_cka(Z1, Z2)), note="obj")
add(LC, "dtype-object", lambda: A.linear_cka(np.array([["a"], ["b"]]), Z2[:2]), "TypeError", "X must be a numeric",
    note="strings")
add(LC, "dtype-float32", lambda: A.linear_cka(Z1.astype(np.float32), Z2.astype(np.float32)),
    check=close(o_linear_cka(Z1.astype(np.float32), Z2.astype(np.float32)), rtol=1e-9), note="float32")
add(LC, "nan-inf", lambda: A.linear_cka(Z1, np.where(Z2 > 1, np.nan, Z2)), "ValueError", "Y contains NaN", note="NaN")
add(LC, "empty", lambda: A.linear_cka(np.zeros((0, 2)), np.zeros((0, 2))), "ValueError", "X is empty", note="0 rows")
add(LC, "empty", lambda: A.linear_cka(np.zeros((4, 0)), Z2[:4]), "ValueError", "X is empty", note="0 columns")
add(LC, "one-sample", lambda: A.linear_cka(Z1[:1], Z2[:1]), "ValueError", "at least 2 samples", note="1 row")
add(LC, "one-sample", lambda: A.linear_cka(Z1[:2], Z2[:2]), check=close(1.0), note="2 rows: rank 1, cka 1")
add(LC, "one-class", lambda: A.linear_cka(np.ones((7, 3)), Z2), "ValueError", "X has a centered", note="constant X")
for cx, cy in ((1e200, 1.0), (1e-200, 1e200), (1e-300, 1e-300), (1e150, 1e-150)):
    add(LC, "extreme-scale", lambda cx=cx, cy=cy: A.linear_cka(cx * Z1, cy * Z2),
        check=in_range(0, 1, close(o_linear_cka(Z1, Z2))), note=f"x{cx:g}, x{cy:g}")
add(LC, "extreme-scale", lambda: A.linear_cka(1e300 * Z1, 1e300 * Z1), check=close(1.0, rtol=0, atol=1e-14),
    note="self at 1e300")
add(LC, "param-type", lambda: A.linear_cka(Z1, 2.0), "ValueError", "Y must be a 2-D", note="scalar Y")
add(LC, "param-type", lambda: A.linear_cka(Z1, None), "TypeError", "Y must be an array", note="None Y")
add(LC, "huge-size", lambda: A.linear_cka(np.broadcast_to(0.0, (10**6, 3000)), Z2), "ValueError",
    "X has 3000000000 values", note="3e9 values")
NOT_APPLICABLE[(M + LC, "non-symmetric")] = "inputs are feature matrices; symmetry does not apply"
NOT_APPLICABLE[(M + LC, "non-psd")] = "inputs are feature matrices; the linear kernel is PSD by construction"
NOT_APPLICABLE[(M + LC, "param-range")] = "linear_cka has no parameter besides the two feature matrices"

# ---------------------------------------------------------------------------------------------
# ideal_kernel
# ---------------------------------------------------------------------------------------------
IK = "ideal_kernel"
add(IK, "shape", lambda: A.ideal_kernel(y[:, None]), "ValueError", "y must be a 1-D", note="column")
add(IK, "shape", lambda: A.ideal_kernel(5), "ValueError", "y must be a 1-D", note="scalar")
add(IK, "dtype-complex", lambda: A.ideal_kernel(y + 1j), "TypeError", "y must hold real", note="complex")
add(IK, "dtype-bool", lambda: A.ideal_kernel(y > 0), check=close(o_ideal(y > 0)), note="bool")
add(IK, "dtype-object", lambda: A.ideal_kernel(["cat", "dog", "cat"]), check=close(o_ideal(["cat", "dog", "cat"])),
    note="string labels")
add(IK, "dtype-object", lambda: A.ideal_kernel(np.array([1, "a", 1], dtype=object)), check=close(o_ideal([1, "a", 1])),
    note="mixed objects")
add(IK, "dtype-float32", lambda: A.ideal_kernel(y.astype(np.float32)), check=close(o_ideal(y)), note="float32")
add(IK, "nan-inf", lambda: A.ideal_kernel([1.0, np.nan, 0.0]), "ValueError", "y contains NaN", note="NaN")
add(IK, "nan-inf", lambda: A.ideal_kernel([1.0, np.inf, 0.0]), "ValueError", "y contains NaN or infinity", note="inf")
add(IK, "empty", lambda: A.ideal_kernel([]), "ValueError", "y is empty", note="empty")
add(IK, "one-sample", lambda: A.ideal_kernel([3]), "ValueError", "single class", note="one label")
add(IK, "one-class", lambda: A.ideal_kernel(np.ones(5)), "ValueError", "single class", note="constant")
add(IK, "one-class", lambda: A.ideal_kernel([0, 1, 2, 1]), check=close(o_ideal([0, 1, 2, 1])), note="3 classes")
add(IK, "extreme-scale", lambda: A.ideal_kernel([1e300, -1e300, 1e300]), check=close(o_ideal([1, 0, 1])), note="1e300")
add(IK, "extreme-scale", lambda: A.ideal_kernel([5e-324, 0.0]), check=close(o_ideal([1, 0])), note="subnormal")
add(IK, "param-type", lambda: A.ideal_kernel(None), "ValueError", "y must be a 1-D", note="None")
add(IK, "param-type", lambda: A.ideal_kernel({"a": 1}), "ValueError", "y must be a 1-D", note="dict")
add(IK, "huge-size", lambda: A.ideal_kernel(np.broadcast_to(1, 10**6)), "ValueError", "y has 1000000 labels",
    note="1e12 values")
NOT_APPLICABLE[(M + IK, "non-symmetric")] = "the input is a label vector, not a matrix"
NOT_APPLICABLE[(M + IK, "non-psd")] = "the input is a label vector, not a matrix"
NOT_APPLICABLE[(M + IK, "param-range")] = "labels may take any values; the only parameter is y"

# ---------------------------------------------------------------------------------------------
# align_weights and alignf_weights
# ---------------------------------------------------------------------------------------------


def o_align(kernels, labels, q=2.0):
    KY = o_ideal(labels)
    a = np.array([np.sum(o_center(K) * KY) for K in kernels])
    mu = np.sign(a) * np.abs(a) ** (1 / (q - 1))
    return mu / np.sum(np.abs(mu) ** q) ** (1 / q)


def alignf_check(kernels, labels, nonnegative=True):
    """The returned weights maximise cka(sum mu K, K_Y) over the (quarter) circle: grid search."""
    kernels = [np.asarray(K, float) for K in kernels]
    KY = o_ideal(labels)

    def obj(mu):
        return o_cka(sum(m * K for m, K in zip(mu, kernels)), KY)

    def check(mu):
        assert np.all(np.isfinite(mu)) and abs(np.linalg.norm(mu) - 1) < 1e-10
        if nonnegative:
            assert np.all(mu >= -1e-12)
        lo, hi = (0.0, np.pi / 2) if nonnegative else (-np.pi, np.pi)
        t = np.linspace(lo, hi, 4001)
        best = max(obj((np.cos(s), np.sin(s))) for s in t)
        assert obj(mu) >= best - 1e-6, f"{obj(mu)} < grid maximum {best}"

    return check


for name in ("align_weights", "alignf_weights"):
    f = getattr(A, name)
    af = name == "align_weights"
    add(name, "shape", lambda f=f: f([K1, K2[:5, :5]], y), "ValueError", "kernels\\[1\\] has shape", note="sizes")
    add(name, "shape", lambda f=f: f(np.stack([K1, K2])[0], y), "ValueError", "kernels must be a sequence",
        note="2-D array")
    add(name, "shape", lambda f=f: f([K1, K2], y[:, None]), "ValueError", "y must be a 1-D", note="y column")
    add(name, "dtype-complex", lambda f=f: f([K1 + 0j, K2], y), "TypeError", "kernels\\[0\\] must be a real",
        note="complex kernel")
    add(name, "dtype-complex", lambda f=f: f([K1, K2], y * 1j), "TypeError", "y must hold real", note="complex y")
    add(name, "dtype-bool", lambda f=f, af=af: f([K1, K2], y > 0),
        check=close(o_align([K1, K2], y > 0)) if af else alignf_check([K1, K2], y > 0), note="bool y")
    add(name, "dtype-object", lambda f=f: f("K1", y), "TypeError", "kernels must be a sequence", note="str kernels")
    add(name, "dtype-object", lambda f=f, af=af: f((K1, K2), [str(v) for v in y]),
        check=close(o_align([K1, K2], y)) if af else alignf_check([K1, K2], y), note="tuple, str labels")
    add(name, "dtype-float32", lambda f=f, af=af: f(np.stack([K1, K2]).astype(np.float32), y),
        check=close(o_align([K32, K2.astype(np.float32)], y), rtol=1e-6) if af
        else alignf_check([K32, K2.astype(np.float32)], y), note="float32 stack")
    add(name, "nan-inf", lambda f=f: f([K1, np.where(K2 > 3, np.nan, K2)], y), "ValueError",
        "kernels\\[1\\] contains NaN", note="NaN")
    add(name, "nan-inf", lambda f=f: f([K1, K2], np.where(y > 0, np.inf, 0.0)), "ValueError", "y contains NaN",
        note="inf label")
    add(name, "empty", lambda f=f: f([], y), "ValueError", "kernels is empty", note="no kernels")
    add(name, "empty", lambda f=f: f([K1], []), "ValueError", "y is empty", note="no labels")
    add(name, "one-sample", lambda f=f: f([[[1.0]]], [1]), "ValueError", "single class", note="one sample")
    add(name, "one-sample", lambda f=f: f([K1], y), check=close([1.0]), note="one kernel: weight 1")
    add(name, "one-class", lambda f=f: f([K1, K2], np.ones(7)), "ValueError", "single class", note="one class")
    for c in (1e300, 1e-300):
        add(name, "extreme-scale", lambda f=f, c=c: f([c * K1, c * K2], y), check=close(f([K1, K2], y), rtol=1e-9),
            note=f"common scale {c:g}")
    add(name, "non-symmetric", lambda f=f: f([K1, KA], y), "ValueError", "kernels\\[1\\] must be symmetric",
        note="asymmetric")
    add(name, "non-psd", lambda f=f, af=af: f([K1, KS], y),
        check=close(o_align([K1, KS], y)) if af else alignf_check([K1, KS], y), note="sigmoid base kernel")
    add(name, "huge-size", lambda f=f: f(np.broadcast_to(0.0, (2, 50_000, 50_000)), np.arange(50_000) % 2),
        "ValueError", "kernels\\[0\\] has 2500000000 values|y has 50000 labels", note="50000^2 kernels")
    add(name, "huge-size", lambda f=f: f([K1], np.broadcast_to(1, 10**6)), "ValueError", "y has 1000000 labels",
        note="1e6 labels")

# the sign of a negatively aligned kernel is kept (issue 10, point 7)
def _keeps_sign(mu):
    assert mu[1] < 0, "the negatively aligned kernel lost its sign"
    close(o_align([K1, -K2], y))(mu)


add("align_weights", "non-psd", lambda: A.align_weights([K1, -K2], y), check=_keeps_sign,
    note="negative alignment keeps its sign")
add("align_weights", "param-type", lambda: A.align_weights([K1, K2], y, q="2"), "TypeError", "q must be a real",
    note="q str")
add("align_weights", "param-type", lambda: A.align_weights([K1, K2], y, q=2j), "TypeError", "q", note="q complex")
add("align_weights", "param-range", lambda: A.align_weights([K1, K2], y, q=1.0), "ValueError", "q must be > 1",
    note="q=1")
add("align_weights", "param-range", lambda: A.align_weights([K1, K2], y, q=-2.0), "ValueError", "q", note="q<0")
add("align_weights", "param-range", lambda: A.align_weights([K1, K2], y, q=np.inf), "ValueError", "q", note="q inf")
add("align_weights", "param-range", lambda: A.align_weights([K1, K2], y, q=3.0), check=close(o_align([K1, K2], y, 3.0)),
    note="q=3")
add("alignf_weights", "param-type", lambda: A.alignf_weights([K1, K2], y, nonnegative="no"), "TypeError",
    "nonnegative must be a bool", note="str")
add("alignf_weights", "param-type", lambda: A.alignf_weights([K1, K2], y, nonnegative=0), "TypeError", "nonnegative",
    note="int")
add("alignf_weights", "param-range", lambda: A.alignf_weights([K1, KS], y, nonnegative=False),
    check=alignf_check([K1, KS], y, nonnegative=False), note="linear combination")
add("alignf_weights", "param-range", lambda: A.alignf_weights([np.ones((7, 7)), np.ones((7, 7)) * 2], y), "ValueError",
    "no combination of the base kernels is aligned", note="centered kernels all zero")

# --- kta_deviation_bound, minibatch_cka, hsic_permutation_test (issue 18) ---------------------
def o_bound(m, delta, beta=1.0):
    """The bound written out: 4 beta (sqrt(8 ln(6/delta)/m) + 2/m)."""
    return 4.0 * beta * (np.sqrt(8.0 * np.log(6.0 / delta) / m) + 2.0 / m)


B_ = "kta_deviation_bound"
add(B_, "shape", lambda: A.kta_deviation_bound([100], 0.1), "TypeError", "n_samples must be an integer",
    note="n_samples a list")
add(B_, "dtype-complex", lambda: A.kta_deviation_bound(100, 0.1j), "TypeError", "delta must be a real",
    note="complex delta")
add(B_, "dtype-bool", lambda: A.kta_deviation_bound(True, 0.1), "TypeError", "n_samples must be an integer",
    note="bool n_samples")
add(B_, "dtype-object", lambda: A.kta_deviation_bound(100, "0.1"), "TypeError", "delta must be a real",
    note="str delta")
add(B_, "dtype-float32", lambda: A.kta_deviation_bound(np.int32(100), np.float32(0.25)),
    check=close(o_bound(100, float(np.float32(0.25))), rtol=1e-12), note="numpy scalars")
add(B_, "nan-inf", lambda: A.kta_deviation_bound(100, float("nan")), "ValueError", "delta", note="NaN delta")
add(B_, "nan-inf", lambda: A.kta_deviation_bound(100, 0.1, np.inf), "ValueError", "beta", note="inf beta")
add(B_, "empty", lambda: A.kta_deviation_bound(0, 0.1), "ValueError", "n_samples must be an integer >= 1",
    note="no samples")
add(B_, "one-sample", lambda: A.kta_deviation_bound(1, 0.1), check=close(o_bound(1, 0.1)), note="m = 1")
add(B_, "extreme-scale", lambda: A.kta_deviation_bound(10**300, 0.1, 1e200),
    check=close(o_bound(1e300, 0.1, 1e200), rtol=1e-12), note="m = 1e300, beta = 1e200")
add(B_, "extreme-scale", lambda: A.kta_deviation_bound(100, 1e-300), check=close(o_bound(100, 1e-300)),
    note="delta = 1e-300")
add(B_, "param-type", lambda: A.kta_deviation_bound(100.0, 0.1), "TypeError", "n_samples must be an integer",
    note="float n_samples")
add(B_, "param-type", lambda: A.kta_deviation_bound(100, 0.1, "2"), "TypeError", "beta must be a real",
    note="str beta")
add(B_, "param-range", lambda: A.kta_deviation_bound(100, 1.5), "ValueError", "delta must be a probability",
    note="delta > 1")
add(B_, "param-range", lambda: A.kta_deviation_bound(100, 0.1, 0.5), "ValueError", "beta", note="beta < 1")
for cat, why in (("one-class", "takes no labels, only a sample size and two numbers"),
                 ("non-symmetric", "takes no matrix"), ("non-psd", "takes no matrix"),
                 ("huge-size", "a closed form: O(1) for every input")):
    NOT_APPLICABLE[(M + B_, cat)] = why

XF = RNG.normal(size=(40, 3))
YF = np.c_[XF[:, :1] + 0.3 * RNG.normal(size=(40, 1)), RNG.normal(size=(40, 1))]


def o_minibatch(X, Y, b, seed):
    """Batches from the same shuffle, HSIC_u by the trace formula with explicit centering matrices."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    order = np.random.default_rng(seed).permutation(len(X))[: (len(X) // b) * b].reshape(-1, b)

    def hu(K, L):
        n = len(K)
        Kt, Lt = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
        o = np.ones(n)
        return (np.trace(Kt @ Lt) + (o @ Kt @ o) * (o @ Lt @ o) / ((n - 1) * (n - 2))
                - 2.0 / (n - 2) * (o @ Kt @ Lt @ o)) / (n * (n - 3))

    kl = kk = ll = 0.0
    for idx in order:
        K, L = X[idx] @ X[idx].T, Y[idx] @ Y[idx].T
        kl, kk, ll = kl + hu(K, L), kk + hu(K, K), ll + hu(L, L)
    return kl / np.sqrt(kk * ll)


MB = "minibatch_cka"
MB0 = o_minibatch(XF, YF, 8, 0)
add(MB, "shape", lambda: A.minibatch_cka(XF[:, 0], YF, 8), "ValueError", "X", note="1-D X")
add(MB, "shape", lambda: A.minibatch_cka(XF, YF[:30], 8), "ValueError", "same number of rows", note="rows differ")
add(MB, "dtype-complex", lambda: A.minibatch_cka(XF + 0j, YF, 8), "TypeError", "X must be a real", note="complex")
add(MB, "dtype-bool", lambda: A.minibatch_cka(XF > 0, YF, 8, random_state=0),
    check=close(o_minibatch((XF > 0).astype(float), YF, 8, 0), rtol=1e-9), note="bool X as 0/1")
add(MB, "dtype-object", lambda: A.minibatch_cka(XF.astype(str), YF, 8), "TypeError", "X must be a numeric",
    note="str X")
add(MB, "dtype-float32", lambda: A.minibatch_cka(XF.astype(np.float32), YF, 8, random_state=0),
    check=close(MB0, rtol=1e-5), note="float32 X")
add(MB, "nan-inf", lambda: A.minibatch_cka(np.where(XF > 1, np.nan, XF), YF, 8), "ValueError", "X contains NaN",
    note="NaN")
add(MB, "nan-inf", lambda: A.minibatch_cka(XF, np.where(YF > 1, np.inf, YF), 8), "ValueError", "Y contains",
    note="inf")
add(MB, "empty", lambda: A.minibatch_cka(np.zeros((0, 3)), np.zeros((0, 2)), 4), "ValueError", "X is empty",
    note="no rows")
add(MB, "one-sample", lambda: A.minibatch_cka(XF[:1], YF[:1], 4), "ValueError", "batch_size must be <= n_samples",
    note="n = 1")
add(MB, "one-class", lambda: A.minibatch_cka(np.ones((40, 3)), YF, 8), "ValueError", "X is constant",
    note="constant X")
add(MB, "extreme-scale", lambda: A.minibatch_cka(1e200 * XF, 1e-200 * YF, 8, random_state=0),
    check=close(MB0, rtol=1e-9), note="1e200 X, 1e-200 Y")
add(MB, "param-type", lambda: A.minibatch_cka(XF, YF, 8.0), "TypeError", "batch_size must be an integer",
    note="float batch_size")
add(MB, "param-type", lambda: A.minibatch_cka(XF, YF, 8, random_state="seed"), "TypeError", "random_state",
    note="str random_state")
add(MB, "param-range", lambda: A.minibatch_cka(XF, YF, 3), "ValueError", "batch_size must be an integer >= 4",
    note="batch_size 3")
add(MB, "param-range", lambda: A.minibatch_cka(XF, YF, 41), "ValueError", "batch_size must be <= n_samples",
    note="batch_size > n")
add(MB, "param-range", lambda: A.minibatch_cka(XF, YF, 40, random_state=np.random.default_rng(5)),
    check=close(o_minibatch(XF, YF, 40, 0), rtol=1e-9), note="one batch: shuffle irrelevant")
add(MB, "huge-size", lambda: A.minibatch_cka(np.broadcast_to(1.0, (20_000, 2)), np.broadcast_to(1.0, (20_000, 2)),
                                             20_000), "ValueError", "batch_size = 20000 would need", note="20000^2 batch")
NOT_APPLICABLE[(M + MB, "non-symmetric")] = "takes feature matrices, not a kernel matrix"
NOT_APPLICABLE[(M + MB, "non-psd")] = "the linear Gram matrices of feature matrices are always PSD"

MS = "minibatch_cka_batches"


def parts(X=XF, Y=YF, b=8):
    """A generator of consecutive batches: a stream, consumed once."""
    return ((X[i:i + b], Y[i:i + b]) for i in range(0, (len(X) // b) * b, b))


def o_stream(X, Y, b=8):
    """The same formula with the identity shuffle (consecutive batches)."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)

    def hu(K, L):
        n = len(K)
        Kt, Lt = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
        o = np.ones(n)
        return (np.trace(Kt @ Lt) + (o @ Kt @ o) * (o @ Lt @ o) / ((n - 1) * (n - 2))
                - 2.0 / (n - 2) * (o @ Kt @ Lt @ o)) / (n * (n - 3))

    kl = kk = ll = 0.0
    for i in range(0, (len(X) // b) * b, b):
        K, L = X[i:i + b] @ X[i:i + b].T, Y[i:i + b] @ Y[i:i + b].T
        kl, kk, ll = kl + hu(K, L), kk + hu(K, K), ll + hu(L, L)
    return kl / np.sqrt(kk * ll)


MS0 = o_stream(XF, YF)
add(MS, "shape", lambda: A.minibatch_cka_batches([(XF[:8, 0], YF[:8])]), "ValueError", "X_0",
    note="1-D X_0")
add(MS, "shape", lambda: A.minibatch_cka_batches([(XF[:8], YF[:7])]), "ValueError", "same number of rows",
    note="rows differ")
add(MS, "shape", lambda: A.minibatch_cka_batches([(XF[:8], YF[:8]), (XF[8:16, :2], YF[8:16])]), "ValueError",
    "batch 1 has 2 \\+ 2 features", note="features change between batches")
add(MS, "shape", lambda: A.minibatch_cka_batches([(XF[:8], YF[:8], XF[:8])]), "TypeError", "pairs",
    note="a triple")
add(MS, "dtype-complex", lambda: A.minibatch_cka_batches([(XF[:8] + 0j, YF[:8])]), "TypeError",
    "X_0 .batch 0. must be a real", note="complex")
add(MS, "dtype-bool", lambda: A.minibatch_cka_batches(parts(XF > 0)),
    check=close(o_stream((XF > 0).astype(float), YF), rtol=1e-9), note="bool X as 0/1")
add(MS, "dtype-object", lambda: A.minibatch_cka_batches([(XF[:8].astype(str), YF[:8])]), "TypeError",
    "X_0 .batch 0. must be a numeric", note="str X")
add(MS, "dtype-object", lambda: A.minibatch_cka_batches("batches"), "TypeError", "batches must be an iterable",
    note="a string, not batches")
add(MS, "dtype-float32", lambda: A.minibatch_cka_batches(parts(XF.astype(np.float32))),
    check=close(MS0, rtol=1e-5), note="float32 X")
add(MS, "nan-inf", lambda: A.minibatch_cka_batches([(XF[:8], YF[:8]), (np.where(XF[8:16] > 1, np.nan, XF[8:16]),
                                                    YF[8:16])]), "ValueError", "X_1 .batch 1. contains NaN",
    note="NaN in batch 1")
add(MS, "nan-inf", lambda: A.minibatch_cka_batches(parts(XF, np.where(YF > 1, np.inf, YF))), "ValueError",
    "Y_0 .batch 0. contains", note="inf")
add(MS, "empty", lambda: A.minibatch_cka_batches(iter([])), "ValueError", "batches is empty", note="no batches")
add(MS, "empty", lambda: A.minibatch_cka_batches([(np.zeros((0, 3)), np.zeros((0, 2)))]), "ValueError",
    "X_0 .batch 0. is empty", note="a batch with no rows")
add(MS, "one-sample", lambda: A.minibatch_cka_batches([(XF[:1], YF[:1])]), "ValueError",
    "batch 0 has 1 rows; the unbiased HSIC needs at least 4", note="one row")
add(MS, "one-class", lambda: A.minibatch_cka_batches(parts(np.ones((40, 3)))), "ValueError", "X is constant",
    note="constant X")
add(MS, "extreme-scale", lambda: A.minibatch_cka_batches(parts(1e200 * XF, 1e-200 * YF)),
    check=close(MS0, rtol=1e-9), note="1e200 X, 1e-200 Y: scales from the first batch")
add(MS, "extreme-scale", lambda: A.minibatch_cka_batches([(XF[:8], YF[:8]), (1e300 * XF[8:16], YF[8:16])]),
    "ValueError", "overflows float64", note="a later batch 1e300 larger")
add(MS, "param-type", lambda: A.minibatch_cka_batches(XF), "TypeError", "batches must be an iterable",
    note="an array, not batches")
add(MS, "param-type", lambda: A.minibatch_cka_batches(5), "TypeError", "batches must be an iterable", note="int")
add(MS, "param-range", lambda: A.minibatch_cka_batches([(XF[:3], YF[:3])]), "ValueError", "at least 4",
    note="3 rows")
add(MS, "param-range", lambda: A.minibatch_cka_batches([(XF, YF)]),
    check=close(o_stream(XF, YF, 40), rtol=1e-9), note="one batch of 40: the debiased CKA")
add(MS, "huge-size", lambda: A.minibatch_cka_batches([(np.broadcast_to(1.0, (20_000, 2)),
                                                       np.broadcast_to(1.0, (20_000, 2)))]),
    "ValueError", "would need 20000\\^2", note="20000^2 batch")
NOT_APPLICABLE[(M + MS, "non-symmetric")] = "takes feature matrices, not a kernel matrix"
NOT_APPLICABLE[(M + MS, "non-psd")] = "the linear Gram matrices of feature matrices are always PSD"


def o_perm_stat(K, L):
    n = len(K)
    return float(np.trace(K @ H(n) @ L @ H(n))) / (n - 1) ** 2


def perm_check(K, L, rtol=1e-10, pvalue=None, atol=1e-300):
    def check(res):
        assert res.statistic == pytest.approx(o_perm_stat(K, L), rel=rtol, abs=atol)
        assert 0 < res.pvalue <= 1 and res.null_distribution.shape == (19,)
        if pvalue is not None:
            assert res.pvalue == pytest.approx(pvalue, rel=1e-12)

    return check


PT = "hsic_permutation_test"
P0 = A.hsic_permutation_test(K1, K2, 19, random_state=0).pvalue
add(PT, "shape", lambda: A.hsic_permutation_test(K1[:, :5], K2, 19), "ValueError", "K", note="non-square K")
add(PT, "shape", lambda: A.hsic_permutation_test(K1, K2[:5, :5], 19), "ValueError", "same shape", note="sizes differ")
add(PT, "dtype-complex", lambda: A.hsic_permutation_test(K1 + 0j, K2, 19), "TypeError", "K", note="complex")
add(PT, "dtype-bool", lambda: A.hsic_permutation_test(K1 > 0.5, K2, 19, random_state=0),
    check=perm_check((K1 > 0.5).astype(float), K2), note="bool K as 0/1")
add(PT, "dtype-object", lambda: A.hsic_permutation_test(K1.astype(str), K2, 19), "TypeError", "K", note="str K")
add(PT, "dtype-float32", lambda: A.hsic_permutation_test(K1.astype(np.float32), K2, 19, random_state=0),
    check=perm_check(K1.astype(np.float32).astype(float), K2, rtol=1e-9), note="float32 K")
add(PT, "nan-inf", lambda: A.hsic_permutation_test(np.where(K1 > 0.5, np.nan, K1), K2, 19), "ValueError", "K",
    note="NaN")
add(PT, "empty", lambda: A.hsic_permutation_test(np.zeros((0, 0)), np.zeros((0, 0)), 19), "ValueError", "K",
    note="0x0")
add(PT, "one-sample", lambda: A.hsic_permutation_test([[1.0]], [[2.0]], 19), "ValueError", "n >= 2", note="n = 1")
add(PT, "one-class", lambda: A.hsic_permutation_test(K1, np.ones((7, 7)), 19, random_state=0),
    check=perm_check(K1, np.ones((7, 7)), pvalue=1.0, atol=1e-14), note="constant L: statistic 0, p = 1")
add(PT, "extreme-scale", lambda: A.hsic_permutation_test(1e200 * K1, 1e-250 * K2, 19, random_state=0),
    check=perm_check(1e200 * K1, 1e-250 * K2, rtol=1e-9, pvalue=P0), note="1e200 K, 1e-250 L")
add(PT, "non-symmetric", lambda: A.hsic_permutation_test(KA, K2, 19), "ValueError", "K must be symmetric",
    note="asymmetric")
add(PT, "non-psd", lambda: A.hsic_permutation_test(KS, K2, 19, random_state=0), check=perm_check(KS, K2),
    note="indefinite K: the test stays valid")
add(PT, "param-type", lambda: A.hsic_permutation_test(K1, K2, 19.0), "TypeError", "n_permutations must be an integer",
    note="float n_permutations")
add(PT, "param-type", lambda: A.hsic_permutation_test(K1, K2, 19, random_state=1.5), "TypeError", "random_state",
    note="float random_state")
add(PT, "param-range", lambda: A.hsic_permutation_test(K1, K2, 0), "ValueError", "n_permutations must be an integer >= 1",
    note="0 permutations")
add(PT, "param-range", lambda: A.hsic_permutation_test(K1, K2, 19, random_state=-3), "ValueError", "random_state",
    note="negative seed")
add(PT, "huge-size", lambda: A.hsic_permutation_test(K1, K2, 10**9), "ValueError", "exceeds the limit",
    note="1e9 permutations")
add(PT, "huge-size", lambda: A.hsic_permutation_test(HUGE, HUGE, 10), "ValueError", "K", note="50000^2 matrices")
EXEMPT = {M + "HSICTestResult": "a NamedTuple returned by hsic_permutation_test; users never build one"}

PUBLIC = [M + name for name in A.__all__ if M + name not in EXEMPT]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
