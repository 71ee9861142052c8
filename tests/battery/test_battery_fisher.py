"""Bad-input battery for ktheory.fisher: every public callable x every input category.

Oracles for the "ok" cases: the dense generalised eigenproblem
``scipy.linalg.eigh(M, N + mu trace(N) / n I)`` (``mu`` is relative to the mean
eigenvalue of ``N``) on the matrices built from their definition (class means and
centred columns, written out here independently of ``fisher_matrices``), and
``k(X_test, X_train) @ alphas_`` for the projections.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla

from battery._common import Case, run_case
from ktheory.fisher import MAX_SAMPLES, KernelFisherDiscriminant, fisher_matrices
from ktheory.kernels import rbf_kernel

P = "ktheory.fisher."
FIT, TRANSFORM, PREDICT, DECISION, SCORE, FM = (
    P + "KernelFisherDiscriminant.fit",
    P + "KernelFisherDiscriminant.transform",
    P + "KernelFisherDiscriminant.predict",
    P + "KernelFisherDiscriminant.decision_function",
    P + "KernelFisherDiscriminant.score",
    P + "fisher_matrices",
)
PUBLIC = [FIT, TRANSFORM, PREDICT, DECISION, SCORE, FM]

RNG = np.random.default_rng(0)
X = RNG.standard_normal((14, 2))
Y = np.arange(14) % 2
XT = RNG.standard_normal((5, 2))
GAMMA, MU = 0.5, 1e-2


def est(**kw):
    kw.setdefault("kernel", "rbf")
    kw.setdefault("gamma", GAMMA)
    kw.setdefault("mu", MU)
    return KernelFisherDiscriminant(**kw)


FITTED = est().fit(X, Y)


def dense_MN(K, y):
    """M and N from their definitions (independent of fisher_matrices)."""
    K = np.asarray(K, dtype=float)
    y = np.asarray(y)
    n = len(y)
    mbar = K.mean(axis=1)
    M = np.zeros((n, n))
    KC = K.copy()
    for c in np.unique(y):
        idx = y == c
        m_c = K[:, idx].mean(axis=1)
        M += idx.sum() * np.outer(m_c - mbar, m_c - mbar)
        KC[:, idx] -= m_c[:, None]
    return M, KC @ KC.T


def eig_oracle(K, y, mu=MU):
    """Check that a fitted estimator's eigenvalues are those of eigh(M, N + mu I)."""

    def check(result):
        M, N = dense_MN(K, y)
        ridge = mu * np.trace(N) / len(y)
        lam = sla.eigh(M, N + ridge * np.eye(len(y)), eigvals_only=True)[::-1]
        k = result.eigenvalues_.shape[0]
        np.testing.assert_allclose(result.eigenvalues_, lam[:k], rtol=1e-6)

    return check


def projection_oracle(Xtest, kind="transform"):
    def check(result):
        Z = rbf_kernel(np.asarray(Xtest, dtype=float), X, gamma=GAMMA) @ FITTED.alphas_
        if kind == "transform":
            np.testing.assert_allclose(result, Z, rtol=1e-6, atol=1e-9)
        elif kind == "decision":
            np.testing.assert_allclose(result, Z[:, 0] - FITTED.threshold_, rtol=1e-6, atol=1e-9)
        else:  # predict
            np.testing.assert_array_equal(result, (Z[:, 0] > FITTED.threshold_).astype(int))

    return check


CASES: list[Case] = []

# --- fit ---------------------------------------------------------------------------------
K_RBF = rbf_kernel(X, gamma=GAMMA)
CASES += [
    Case(FIT, "shape", lambda: est().fit(X[:, 0], Y), "ValueError", match="Expected a 2-D array for X, got a 1-D array",
         note="1-D X"),
    Case(FIT, "shape", lambda: est().fit(X, Y[:-1]), "ValueError", match="labels", note="y too short"),
    Case(FIT, "shape", lambda: est(kernel="precomputed").fit(K_RBF[:, :5], Y), "ValueError",
         match="square", note="precomputed not square"),
    Case(FIT, "dtype-complex", lambda: est().fit(X + 1j, Y), "TypeError", match="Complex", note="complex X"),
    Case(FIT, "dtype-bool", lambda: est().fit(X > 0, Y), "ok",
         check=eig_oracle(rbf_kernel((X > 0).astype(float), gamma=GAMMA), Y), note="bool X as 0/1"),
    Case(FIT, "dtype-object", lambda: est().fit(np.array([["a", "b"]] * 14, dtype=object), Y), "TypeError",
         match="X must hold numbers", note="strings"),
    Case(FIT, "dtype-float32", lambda: est().fit(X.astype(np.float32), Y), "ok",
         check=eig_oracle(rbf_kernel(X.astype(np.float32).astype(float), gamma=GAMMA), Y), note="float32 X"),
    Case(FIT, "nan-inf", lambda: est().fit(np.where(np.arange(28).reshape(14, 2) == 3, np.nan, X), Y),
         "ValueError", match="NaN", note="NaN in X"),
    Case(FIT, "nan-inf", lambda: est().fit(X, np.where(np.arange(14) == 2, np.inf, Y)), "ValueError",
         match="y contains infinity", note="inf in y"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((0, 2)), []), "ValueError", match="0 sample", note="no rows"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((14, 0)), Y), "ValueError", match="0 feature", note="no cols"),
    Case(FIT, "one-sample", lambda: est().fit(X[:1], Y[:1]), "ValueError", match="one class",
         note="one sample is one class"),
    Case(FIT, "one-class", lambda: est().fit(X, np.zeros(14)), "ValueError", match="one class", note="constant y"),
    Case(FIT, "one-class", lambda: est().fit(X[:8], np.r_[np.zeros(7, int), 1]), "ok",
         check=eig_oracle(rbf_kernel(X[:8], gamma=GAMMA), np.r_[np.zeros(7, int), 1]),
         note="a class with a single sample adds nothing to N"),
    Case(FIT, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e200, Y), "ValueError", match="overflow",
         note="linear kernel overflows"),
    Case(FIT, "extreme-scale", lambda: est(kernel="precomputed").fit(K_RBF * 1e160, Y), "ok",
         check=eig_oracle(K_RBF, Y), note="large K: N = K C K (1e320) is never formed"),
    Case(FIT, "extreme-scale", lambda: est(kernel="precomputed").fit(K_RBF * 1e307, Y), "ValueError",
         match="overflow", note="precomputed K C overflows"),
    Case(FIT, "extreme-scale", lambda: est(kernel="rbf", gamma="auto").fit(X * 1e-200, Y), "ValueError",
         match="M = 0", note="rbf of tiny X is constant"),
    Case(FIT, "extreme-scale", lambda: est(kernel="rbf", gamma="scale").fit(X * 1e-140, Y), "ok",
         check=eig_oracle(rbf_kernel(X, gamma=1 / (2 * X.var())), Y),
         note="gamma='scale' follows the scale of X"),
    Case(FIT, "extreme-scale", lambda: est(kernel="rbf", gamma="scale").fit(X * 1e-200, Y), "ValueError",
         match="not representable", note="gamma='scale' beyond float64"),
    Case(FIT, "extreme-scale", lambda: est(kernel="precomputed").fit(K_RBF * 1e100, Y), "ok",
         check=eig_oracle(K_RBF, Y), note="K scaled, mu relative: same quotient"),
    Case(FIT, "non-symmetric", lambda: est(kernel="precomputed").fit(K_RBF + np.triu(K_RBF, 1) * 0.1, Y),
         "ValueError", match="symmetric", note="asymmetric precomputed"),
    Case(FIT, "non-psd", lambda: est(kernel="precomputed").fit(K_RBF - 0.5 * np.eye(14), Y), "ok",
         check=eig_oracle(K_RBF - 0.5 * np.eye(14), Y), note="indefinite K: N = (KC)(KC)' is still PSD"),
    Case(FIT, "param-type", lambda: est(mu="1").fit(X, Y), "TypeError", match="mu", note="mu a string"),
    Case(FIT, "param-type", lambda: est(n_components=1.0).fit(X, Y), "TypeError", match="n_components",
         note="float n_components"),
    Case(FIT, "param-type", lambda: est(kernel=3).fit(X, Y), "ValueError", match="kernel", note="kernel an int"),
    Case(FIT, "param-type", lambda: est(gamma=None).fit(X, Y), "TypeError", match="gamma",
         note="gamma None (scikit-learn's SVC vocabulary: 'scale', 'auto' or a number)"),
    Case(FIT, "param-type", lambda: est(threshold=0.5).fit(X, Y), "ValueError", match="threshold",
         note="threshold a number"),
    Case(FIT, "param-range", lambda: est(mu=-1e-3).fit(X, Y), "ValueError", match="mu", note="mu < 0"),
    Case(FIT, "param-range", lambda: est(n_components=2).fit(X, Y), "ValueError", match="n_components",
         note="more than c - 1 components"),
    Case(FIT, "param-range", lambda: est(gamma=0.0).fit(X, Y), "ValueError", match="gamma", note="gamma 0"),
    Case(FIT, "param-range", lambda: est(gamma="sigma").fit(X, Y), "ValueError", match="gamma",
         note="unknown gamma string"),
    Case(FIT, "param-range", lambda: est(threshold="median").fit(X, Y), "ValueError", match="threshold",
         note="unknown threshold"),
    Case(FIT, "huge-size", lambda: est().fit(np.zeros((MAX_SAMPLES + 1, 1)), np.arange(MAX_SAMPLES + 1) % 2),
         "ValueError", match="MAX_SAMPLES", note="refused before the Gram matrix"),
    Case(FIT, "extreme-scale", lambda: KernelFisherDiscriminant(kernel="linear").fit(X * 1e-100, Y), "ok",
         check=lambda r: np.testing.assert_array_equal(
             r.predict(X * 1e-100), KernelFisherDiscriminant(kernel="linear").fit(X, Y).predict(X)),
         note="issue 29: said 'use mu > 0' (mu was 1e-3; the cause was underflow); mu is relative"),
    Case(FIT, "extreme-scale", lambda: KernelFisherDiscriminant(kernel="linear").fit(X * 1e3, Y), "ok",
         check=lambda r: np.testing.assert_array_equal(
             r.predict(X * 1e3), KernelFisherDiscriminant(kernel="linear").fit(X, Y).predict(X)),
         note="issue 29: features x 1000 raised 'N + mu I is numerically singular'"),
    Case(FIT, "huge-size", lambda: est().fit(np.zeros((20_000, 1)), np.arange(20_000) % 2), "ValueError",
         match="gram_limit_mb=2048", note="issue 29: n = 20 000 passed the guard; its peak is 6 GiB"),
    Case(FIT, "huge-size", lambda: est(kernel="precomputed").fit(np.broadcast_to(1.0, (50_000, 50_000)),
                                                                 np.arange(50_000) % 2),
         "ValueError", match="gram_limit_mb", note="issue 29: a broadcast 50 000^2 Gram matrix (18.6 GiB copy)"),
]

# --- transform / predict / decision_function / score: the same X categories -----------------
BAD_X = {
    "shape": (lambda: XT[:, :1], "ValueError", "features"),
    "dtype-complex": (lambda: XT + 1j, "TypeError", "Complex"),
    "dtype-object": (lambda: np.array([["a", "b"]] * 5, dtype=object), "TypeError", "X must hold numbers"),
    "nan-inf": (lambda: np.where(np.arange(10).reshape(5, 2) == 1, np.inf, XT), "ValueError",
                "X contains infinity"),
    "empty": (lambda: np.zeros((0, 2)), "ValueError", "0 sample"),
}
OK_X = {
    "dtype-bool": (lambda: XT > 0, "bool X as 0/1"),
    "dtype-float32": (lambda: XT.astype(np.float32), "float32 X"),
    "one-sample": (lambda: XT[:1], "a single test point"),
    "extreme-scale": (lambda: XT * 1e-150, "tiny X: k(x, x_i) = exp(-gamma |x_i|^2)"),
}
METHODS = {
    TRANSFORM: (lambda Z: FITTED.transform(Z), "transform"),
    PREDICT: (lambda Z: FITTED.predict(Z), "predict"),
    DECISION: (lambda Z: FITTED.decision_function(Z), "decision"),
}
for name, (call, kind) in METHODS.items():
    for cat, (make, exc, match) in BAD_X.items():
        CASES.append(Case(name, cat, (lambda call=call, make=make: call(make())), exc, match=match, note=cat))
    for cat, (make, note) in OK_X.items():
        Z = np.asarray(make(), dtype=float)
        CASES.append(Case(name, cat, (lambda call=call, make=make: call(make())), "ok",
                          check=projection_oracle(Z, kind), note=note))
    CASES.append(Case(name, "extreme-scale", (lambda call=call: call(XT * 1e200)), "ok",
                      check=(lambda r, kind=kind: np.testing.assert_allclose(
                          np.asarray(r, dtype=float),
                          {"transform": np.zeros((5, 1)), "decision": np.full(5, -FITTED.threshold_),
                           "predict": np.full(5, float(0.0 > FITTED.threshold_))}[kind])),
                      note="far away: every kernel value is 0"))

for cat, (make, exc, match) in BAD_X.items():
    CASES.append(Case(SCORE, cat, (lambda make=make: FITTED.score(make(), np.zeros(len(make()), int))), exc,
                      match=match, note=cat))
for cat, (make, note) in OK_X.items():
    CASES.append(Case(SCORE, cat, (lambda make=make: FITTED.score(make(), np.zeros(len(make()), int))), "ok",
                      check=(lambda r, make=make: np.testing.assert_allclose(
                          r, np.mean(projection_oracle_values(np.asarray(make(), float))[:, 0] <= FITTED.threshold_))),
                      note=note))
CASES += [
    Case(SCORE, "shape", lambda: FITTED.score(XT, np.zeros(4)), "ValueError", match="y must have shape",
         note="y of the wrong length"),
    Case(SCORE, "one-class", lambda: FITTED.score(X, np.ones(14, int)), "ok",
         check=lambda r: np.testing.assert_allclose(r, np.mean(FITTED.predict(X) == 1)),
         note="all test labels in one class"),
    Case(PREDICT, "one-class", lambda: est().fit(X, np.where(Y == 0, "a", "b")).predict(XT), "ok",
         check=lambda r: np.testing.assert_array_equal(r, np.array(["a", "b"])[FITTED.predict(XT)]),
         note="string labels"),
    Case(DECISION, "one-class", lambda: est().fit(X, np.arange(14) % 3).decision_function(XT), "ok",
         check=lambda r: np.testing.assert_array_equal(
             np.argmax(r, axis=1), est().fit(X, np.arange(14) % 3).predict(XT)),
         note="three classes: argmax is predict"),
    Case(TRANSFORM, "one-class", lambda: est(kernel="precomputed").fit(K_RBF, Y).transform(
        rbf_kernel(XT, X, gamma=GAMMA)), "ok", check=projection_oracle(XT), note="precomputed test block"),
    Case(TRANSFORM, "non-symmetric", lambda: est(kernel="precomputed").fit(K_RBF, Y).transform(
        rbf_kernel(XT, X, gamma=GAMMA)[:, :4]), "ValueError", match="X has 4 features.* expecting 14",
         note="test block wrong width"),
    Case(TRANSFORM, "non-psd", lambda: est(kernel="precomputed").fit(K_RBF, Y).transform(
        -rbf_kernel(XT, X, gamma=GAMMA)), "ok",
         check=lambda r: np.testing.assert_allclose(r, -projection_oracle_values(XT), rtol=1e-9),
         note="a test block has no PSD requirement: linear in it"),
]


def projection_oracle_values(Xtest):
    return rbf_kernel(Xtest, X, gamma=GAMMA) @ FITTED.alphas_


# --- fisher_matrices ---------------------------------------------------------------------


def fm_oracle(K, y):
    def check(result):
        M, N = dense_MN(K, y)
        np.testing.assert_allclose(result[0], M, rtol=1e-6, atol=1e-9 * np.abs(M).max())
        np.testing.assert_allclose(result[1], N, rtol=1e-6, atol=1e-9 * np.abs(N).max())

    return check


KB = (np.arange(36).reshape(6, 6) % 4 == 0)
KB = KB | KB.T
CASES += [
    Case(FM, "shape", lambda: fisher_matrices(K_RBF[:, :5], Y), "ValueError", match="square", note="not square"),
    Case(FM, "shape", lambda: fisher_matrices(K_RBF, Y[:5]), "ValueError", match="labels", note="y too short"),
    Case(FM, "dtype-complex", lambda: fisher_matrices(K_RBF + 0j, Y), "TypeError",
         match="K must be a real array", note="complex"),
    Case(FM, "dtype-bool", lambda: fisher_matrices(KB, np.arange(6) % 2), "ok",
         check=fm_oracle(KB.astype(float), np.arange(6) % 2), note="bool K as 0/1"),
    Case(FM, "dtype-object", lambda: fisher_matrices(np.full((3, 3), "k", dtype=object), [0, 1, 0]), "TypeError",
         match="K must be a numeric array", note="strings"),
    Case(FM, "dtype-float32", lambda: fisher_matrices(K_RBF.astype(np.float32), Y), "ok",
         check=fm_oracle(K_RBF.astype(np.float32).astype(float), Y), note="float32 K"),
    Case(FM, "nan-inf", lambda: fisher_matrices(np.where(np.eye(14) > 0, np.nan, K_RBF), Y), "ValueError",
         match="NaN", note="NaN on the diagonal"),
    Case(FM, "empty", lambda: fisher_matrices(np.zeros((0, 0)), []), "ValueError", match="K is empty",
         note="0 x 0"),
    Case(FM, "one-sample", lambda: fisher_matrices([[1.0]], [0]), "ValueError", match="one class", note="1 x 1"),
    Case(FM, "one-class", lambda: fisher_matrices(K_RBF, np.zeros(14)), "ValueError", match="one class",
         note="constant y"),
    Case(FM, "extreme-scale", lambda: fisher_matrices(K_RBF * 1e200, Y), "ValueError", match="overflow",
         note="K K' overflows"),
    Case(FM, "extreme-scale", lambda: fisher_matrices(K_RBF * 1e140, Y), "ok",
         check=lambda r: fm_oracle(K_RBF, Y)((r[0] / 1e280, r[1] / 1e280)), note="large but representable"),
    Case(FM, "non-symmetric", lambda: fisher_matrices(K_RBF + np.triu(K_RBF, 1), Y), "ValueError",
         match="symmetric", note="asymmetric K"),
    Case(FM, "non-psd", lambda: fisher_matrices(K_RBF - np.eye(14), Y), "ok",
         check=fm_oracle(K_RBF - np.eye(14), Y), note="indefinite K: N still PSD"),
]

NOT_APPLICABLE = {
    (TRANSFORM, "param-type"): "transform takes no parameter besides X (parameters are checked by fit)",
    (TRANSFORM, "param-range"): "transform takes no parameter besides X (parameters are checked by fit)",
    (TRANSFORM, "huge-size"): "the cost is m x n_train kernel values, linear in the test size m, which the "
    "caller controls and can batch; n_train was bounded by fit",
    (PREDICT, "non-symmetric"): "a test kernel block is rectangular; symmetry is required only at fit",
    (PREDICT, "non-psd"): "a test kernel block has no PSD requirement (checked for transform)",
    (PREDICT, "param-type"): "predict takes no parameter besides X (parameters are checked by fit)",
    (PREDICT, "param-range"): "predict takes no parameter besides X (parameters are checked by fit)",
    (PREDICT, "huge-size"): "linear in the test size m (m x n_train kernel values); the caller can batch",
    (DECISION, "non-symmetric"): "a test kernel block is rectangular; symmetry is required only at fit",
    (DECISION, "non-psd"): "a test kernel block has no PSD requirement (checked for transform)",
    (DECISION, "param-type"): "decision_function takes no parameter besides X (checked by fit)",
    (DECISION, "param-range"): "decision_function takes no parameter besides X (checked by fit)",
    (DECISION, "huge-size"): "linear in the test size m (m x n_train kernel values); the caller can batch",
    (SCORE, "non-symmetric"): "a test kernel block is rectangular; symmetry is required only at fit",
    (SCORE, "non-psd"): "a test kernel block has no PSD requirement (checked for transform)",
    (SCORE, "param-type"): "score takes no parameter besides X and y (parameters are checked by fit)",
    (SCORE, "param-range"): "score takes no parameter besides X and y (parameters are checked by fit)",
    (SCORE, "huge-size"): "linear in the test size m (m x n_train kernel values); the caller can batch",
    (FM, "param-type"): "fisher_matrices has no parameter besides the arrays K and y",
    (FM, "param-range"): "fisher_matrices has no parameter besides the arrays K and y",
    (FM, "huge-size"): "the caller already holds the n x n K; M and N are two more arrays of that size "
    "(documented), nothing larger is formed",
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery(case):
    run_case(case)
