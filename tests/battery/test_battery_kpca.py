"""Bad-input battery for ktheory.kpca: every public callable x every input category.

Oracle for the "ok" cases: scikit-learn's KernelPCA (dense eigensolver) on the same data,
compared through what is unique: the eigenvalues and the Gram matrix of the projections.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from battery._common import Case, run_case
from ktheory.kpca import KernelPCA

M = "ktheory.kpca."
FIT, TRANSFORM, FIT_TRANSFORM = (
    M + "KernelPCA.fit",
    M + "KernelPCA.transform",
    M + "KernelPCA.fit_transform",
)
PUBLIC = [FIT, TRANSFORM, FIT_TRANSFORM]

RNG = np.random.default_rng(0)
X = RNG.standard_normal((12, 3))
XT = RNG.standard_normal((4, 3))
K = sk_rbf(X, gamma=0.3)
KT = sk_rbf(XT, X, gamma=0.3)


def est(**kw):
    kw.setdefault("n_components", 2)
    kw.setdefault("kernel", "rbf")
    kw.setdefault("gamma", 0.3)
    return KernelPCA(**kw)


def fitted(**kw):
    return est(**kw).fit(X)


def _sk(Xfit, **kw):
    kw.setdefault("n_components", 2)
    kw.setdefault("kernel", "rbf")
    kw.setdefault("gamma", 0.3)
    return SkKernelPCA(eigen_solver="dense", **kw).fit(np.asarray(Xfit, dtype=float))


def same_as_sklearn(Xfit, Xtest, **kw):
    """The fitted estimator (or its projections of Xtest) against scikit-learn's."""

    def check(result):
        ref = _sk(Xfit, **kw)
        Zs = ref.transform(np.asarray(Xtest, dtype=float))
        if isinstance(result, KernelPCA):
            np.testing.assert_allclose(result.eigenvalues_, ref.eigenvalues_, rtol=1e-6, atol=1e-12)
            Z = result.transform(np.asarray(Xtest, dtype=float))
        else:
            Z = result
        np.testing.assert_allclose(Z @ Z.T, Zs @ Zs.T, rtol=1e-6, atol=1e-9)

    return check


def same_training_components(Xfit, **kw):
    def check(Z):
        Zs = _sk(Xfit, **kw).fit_transform(np.asarray(Xfit, dtype=float))
        np.testing.assert_allclose(Z @ Z.T, Zs @ Zs.T, rtol=1e-6, atol=1e-9)

    return check


CPLX = X.astype(complex) + 1j
OBJ = X.astype(object)
OBJ[0, 0] = "a"
NAN = X.copy()
NAN[2, 1] = np.nan
INF = X.copy()
INF[0, 0] = np.inf
XB = RNG.random((12, 3)) > 0.5
NONSYM = K + np.triu(np.ones_like(K), 1) * 1e-3
NONPSD = K - 0.5 * np.eye(12)
ONE_POINT = np.zeros((1, 1))

CASES = [
    # ------------------------------------------------------------------ fit
    Case(FIT, "shape", lambda: est().fit(X[:, 0]), "ValueError", match="2-D array for X", note="1-D X"),
    Case(FIT, "shape", lambda: est(kernel="precomputed").fit(X), "ValueError", match="square"),
    Case(FIT, "shape", lambda: est(kernel=lambda A, B: A @ B.T[:, :2]).fit(X), "ValueError",
         match="kernel returned an array of shape", note="callable returns the wrong shape"),
    Case(FIT, "dtype-complex", lambda: est().fit(CPLX), "ValueError", match="Complex data not supported: X"),
    Case(FIT, "dtype-bool", lambda: est().fit(XB), "ok", check=same_as_sklearn(XB, XT), note="bool as 0/1"),
    Case(FIT, "dtype-object", lambda: est().fit(OBJ), "TypeError", match="X must hold numbers"),
    Case(FIT, "dtype-float32", lambda: est().fit(X.astype(np.float32)), "ok",
         check=same_as_sklearn(X.astype(np.float32), XT)),
    Case(FIT, "dtype-float32", lambda: est(kernel="precomputed").fit(K.astype(np.float32)), "ok",
         check=lambda r: np.testing.assert_allclose(
             r.eigenvalues_, _sk(K, kernel="precomputed").eigenvalues_, rtol=1e-5),
         note="float32 Gram matrix: PSD to its rounding"),
    Case(FIT, "nan-inf", lambda: est().fit(NAN), "ValueError", match="X contains NaN"),
    Case(FIT, "nan-inf", lambda: est().fit(INF), "ValueError", match="X contains infinity"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((0, 3))), "ValueError", match="0 sample"),
    Case(FIT, "empty", lambda: est().fit(np.zeros((12, 0))), "ValueError", match="0 feature"),
    Case(FIT, "one-sample", lambda: est(n_components=1).fit(X[:1]), "ok",
         check=lambda r: np.testing.assert_array_equal(r.eigenvalues_, [0.0]),
         note="one sample: the centred Gram matrix is 0"),
    Case(FIT, "one-sample", lambda: est(n_components=2).fit(X[:1]), "ValueError", match="n_components"),
    Case(FIT, "one-class", lambda: est(n_components=1).fit(np.ones((12, 3))), "ok",
         check=lambda r: np.testing.assert_array_equal(r.transform(XT), 0.0),
         note="identical samples: every component is 0"),
    Case(FIT, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e200), "ValueError", match="overflow"),
    Case(FIT, "extreme-scale", lambda: est(kernel="linear").fit(X * 1e-200), "ok",
         check=lambda r: np.testing.assert_array_equal(r.eigenvalues_, 0.0),
         note="tiny X: the linear Gram matrix underflows to 0"),
    Case(FIT, "extreme-scale", lambda: est(gamma=1e-200).fit(X), "ok",
         check=lambda r: np.testing.assert_array_equal(r.eigenvalues_, 0.0),
         note="gamma 1e-200: K = 1, centred K = 0"),
    Case(FIT, "extreme-scale", lambda: est(kernel="rbf", gamma="scale").fit(X * 1e150), "ok",
         check=lambda r: same_as_sklearn(X, XT, gamma=1 / (3 * X.var()))(r.transform(XT * 1e150)),
         note="gamma='scale' follows the units of X"),
    Case(FIT, "non-symmetric", lambda: est(kernel="precomputed").fit(NONSYM), "ValueError", match="symmetric"),
    Case(FIT, "non-symmetric", lambda: est(kernel=lambda A, B: A @ B.T + np.triu(np.ones((len(A), len(B))))
                                           ).fit(X), "ValueError", match="symmetric",
         note="callable kernel returns a non-symmetric Gram matrix"),
    Case(FIT, "non-psd", lambda: est(kernel="precomputed").fit(NONPSD), "ValueError",
         match="not positive semidefinite"),
    Case(FIT, "non-psd", lambda: est(kernel="sigmoid", gamma=1.0, coef0=-1.0).fit(X), "ValueError",
         match="not positive semidefinite", note="sigmoid kernel"),
    Case(FIT, "param-type", lambda: est(n_components=2.0).fit(X), "TypeError", match="n_components"),
    Case(FIT, "param-type", lambda: est(n_components=True).fit(X), "TypeError", match="n_components"),
    Case(FIT, "param-type", lambda: est(gamma=None).fit(X), "TypeError", match="gamma"),
    Case(FIT, "param-type", lambda: est(kernel_params=[1]).fit(X), "TypeError", match="kernel_params"),
    Case(FIT, "param-type", lambda: est(kernel="poly", degree=2.5).fit(X), "ValueError", match="degree"),
    Case(FIT, "param-range", lambda: est(n_components=0).fit(X), "ValueError", match="n_components"),
    Case(FIT, "param-range", lambda: est(n_components=13).fit(X), "ValueError", match="n_components"),
    Case(FIT, "param-range", lambda: est(gamma=-1.0).fit(X), "ValueError", match="gamma"),
    Case(FIT, "param-range", lambda: est(gamma="median").fit(X), "ValueError", match="gamma"),
    Case(FIT, "param-range", lambda: est(kernel="cosine").fit(X), "ValueError", match="kernel must be one of"),
    Case(FIT, "huge-size", lambda: est().fit(np.zeros((200_000, 1))), "ValueError", match="gram_limit_mb"),
    # ------------------------------------------------------------------ transform
    Case(TRANSFORM, "shape", lambda: fitted().transform(XT[:, :2]), "ValueError", match="X has 2 features"),
    Case(TRANSFORM, "shape", lambda: fitted().transform(XT[0]), "ValueError", match="Reshape your data"),
    Case(TRANSFORM, "shape", lambda: est(kernel="precomputed").fit(K).transform(KT[:, :5]), "ValueError",
         match="X has 5 features", note="precomputed block with the wrong number of columns"),
    Case(TRANSFORM, "dtype-complex", lambda: fitted().transform(XT + 1j), "ValueError",
         match="Complex data not supported: X"),
    Case(TRANSFORM, "dtype-bool", lambda: fitted().transform(XT > 0), "ok",
         check=same_as_sklearn(X, (XT > 0).astype(float))),
    Case(TRANSFORM, "dtype-object", lambda: fitted().transform(np.array([["a", "b", "c"]], dtype=object)),
         "TypeError", match="X must hold numbers"),
    Case(TRANSFORM, "dtype-float32", lambda: fitted().transform(XT.astype(np.float32)), "ok",
         check=same_as_sklearn(X, XT.astype(np.float32))),
    Case(TRANSFORM, "nan-inf", lambda: fitted().transform(np.where(XT > 1, np.nan, XT)), "ValueError",
         match="X contains NaN"),
    Case(TRANSFORM, "empty", lambda: fitted().transform(np.zeros((0, 3))), "ValueError", match="0 sample"),
    Case(TRANSFORM, "one-sample", lambda: fitted().transform(XT[:1]), "ok", check=same_as_sklearn(X, XT[:1])),
    Case(TRANSFORM, "one-class", lambda: fitted().transform(np.repeat(XT[:1], 4, axis=0)), "ok",
         check=lambda Z: np.testing.assert_allclose(Z, np.repeat(Z[:1], 4, axis=0), rtol=0, atol=0),
         note="identical samples: identical components"),
    Case(TRANSFORM, "extreme-scale", lambda: fitted().transform(XT * 1e200), "ok",
         check=lambda Z: np.testing.assert_allclose(
             Z, _sk(X).transform(np.full((4, 3), 1e100)), rtol=1e-10, atol=1e-300),
         note="far away: k(x, X) = 0, only the centring remains"),
    Case(TRANSFORM, "non-symmetric", lambda: est(kernel="precomputed").fit(K).transform(KT), "ok",
         check=same_as_sklearn(K, KT, kernel="precomputed"),
         note="the test block is rectangular: no symmetry"),
    Case(TRANSFORM, "param-type", lambda: est(kernel="precomputed").fit(K).transform(XT), "ValueError",
         match="X has 3 features, but KernelPCA is expecting 12"),
    Case(TRANSFORM, "param-range", lambda: KernelPCA().transform(XT), "ValueError", match="not fitted"),
    # ------------------------------------------------------------------ fit_transform
    Case(FIT_TRANSFORM, "shape", lambda: est().fit_transform(X[:, 0]), "ValueError", match="2-D array for X"),
    Case(FIT_TRANSFORM, "dtype-complex", lambda: est().fit_transform(CPLX), "ValueError",
         match="Complex data not supported: X"),
    Case(FIT_TRANSFORM, "dtype-bool", lambda: est().fit_transform(XB), "ok", check=same_training_components(XB)),
    Case(FIT_TRANSFORM, "dtype-object", lambda: est().fit_transform(OBJ), "TypeError", match="X must hold numbers"),
    Case(FIT_TRANSFORM, "dtype-float32", lambda: est().fit_transform(X.astype(np.float32)), "ok",
         check=same_training_components(X.astype(np.float32))),
    Case(FIT_TRANSFORM, "nan-inf", lambda: est().fit_transform(INF), "ValueError", match="X contains infinity"),
    Case(FIT_TRANSFORM, "empty", lambda: est().fit_transform(np.zeros((0, 3))), "ValueError", match="0 sample"),
    Case(FIT_TRANSFORM, "one-sample", lambda: est(n_components=1).fit_transform(X[:1]), "ok",
         check=lambda Z: np.testing.assert_array_equal(Z, [[0.0]])),
    Case(FIT_TRANSFORM, "one-class", lambda: est(n_components=1).fit_transform(np.ones((12, 3))), "ok",
         check=lambda Z: np.testing.assert_array_equal(Z, 0.0), note="identical samples"),
    Case(FIT_TRANSFORM, "extreme-scale", lambda: est(gamma=1e200).fit_transform(X), "ok",
         check=lambda Z: (np.testing.assert_allclose(Z.T @ Z, np.eye(2), atol=1e-12),
                          np.testing.assert_allclose(Z.sum(axis=0), 0.0, atol=1e-12)),
         note="K = I: centred K = H, a repeated eigenvalue 1, only Z^T Z is unique"),
    Case(FIT_TRANSFORM, "non-symmetric", lambda: est(kernel="precomputed").fit_transform(NONSYM), "ValueError",
         match="symmetric"),
    Case(FIT_TRANSFORM, "non-psd", lambda: est(kernel="precomputed").fit_transform(NONPSD), "ValueError",
         match="not positive semidefinite"),
    Case(FIT_TRANSFORM, "param-type", lambda: est(n_components="2").fit_transform(X), "TypeError",
         match="n_components"),
    Case(FIT_TRANSFORM, "param-range", lambda: est(n_components=-1).fit_transform(X), "ValueError",
         match="n_components"),
    Case(FIT_TRANSFORM, "huge-size", lambda: est().fit_transform(np.zeros((200_000, 1))), "ValueError",
         match="gram_limit_mb"),
]

NOT_APPLICABLE = {
    (TRANSFORM, "non-psd"): (
        "transform takes the rectangular block k(X_test, X_train); positive semidefiniteness "
        "does not apply (the training Gram matrix is checked in fit)"),
    (TRANSFORM, "huge-size"): (
        "transform builds an (n_test, n_train) block whose size the caller controls by batching; "
        "n_train is bounded by the fit-time gram_limit_mb"),
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_battery_kpca(case):
    run_case(case)
