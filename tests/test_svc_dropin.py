"""SVC and SVR as drop-in replacements for scikit-learn's (issue 34): ``coef_`` of the linear
kernel, ``n_iter_`` as scikit-learn has it, ``C=inf`` (the hard margin / hard tube) and
callable kernels on sequences of arbitrary samples (strings), each against scikit-learn.

No assertion depends on BLAS rounding: iteration counts are compared in shape and dtype
(or at a ``max_iter`` cap), solutions to the solver's tolerance.
"""

from __future__ import annotations

import functools
import pickle
import warnings

import numpy as np
import pytest
import sklearn.svm as sk
from sklearn.exceptions import NotFittedError

from ktheory.kernels import subsequence_gram
from ktheory.svm import SVC, SVR, ConvergenceWarning, MulticlassSVC
from ktheory.svm._core import hard_margin_feasible
from ktheory.svm._kernel_svm import compiled_solver

INF = float("inf")
TOL = 1e-8
SOLVERS = ["numpy", pytest.param("compiled", marks=pytest.mark.skipif(
    compiled_solver() is None, reason="numba is not installed"))]


def _blobs(n: int = 40, d: int = 3, k: int = 2, sep: float = 4.0, seed: int = 0):
    """``k`` well separated Gaussian blobs (linearly separable for ``sep`` large)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, d)) * sep
    y = np.arange(n) % k
    return centres[y] + rng.normal(size=(n, d)), y


def _overlap(n: int = 40, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 1.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


# ---------------------------------------------------------------------------------------
# coef_
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_coef_equals_sklearn_and_the_decision_function(k, C):
    X, y = _overlap(60) if k == 2 else _blobs(60, 3, k, sep=1.0, seed=k)
    ours = SVC(kernel="linear", C=C, tol=TOL, decision_function_shape="ovo").fit(X, y)
    ref = sk.SVC(kernel="linear", C=C, tol=TOL, decision_function_shape="ovo").fit(X, y)
    assert ours.coef_.shape == ref.coef_.shape == (k * (k - 1) // 2, 3 if k > 2 else 2)
    # w is unique (the primal is strictly convex in w): equal to the solver's tolerance
    scale = max(1.0, float(np.max(np.abs(ref.coef_))))
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-5 * scale)
    dec = ours.decision_function(X)
    lin = X @ ours.coef_.T + ours.intercept_
    np.testing.assert_allclose(lin.ravel() if k == 2 else lin, dec, rtol=1e-12, atol=1e-12 * scale)


def test_coef_binary_sign_is_sklearns():
    X = np.array([[-2., -1.], [-1., -1.], [-1., -2.], [1., 1.], [1., 2.], [2., 1.]])
    y = [1, 1, 1, 2, 2, 2]
    ours = SVC(kernel="linear", tol=TOL).fit(X, y)
    ref = sk.SVC(kernel="linear", tol=TOL).fit(X, y)
    np.testing.assert_allclose(ours.coef_, [[0.5, 0.5]], atol=1e-9)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-9)


def test_coef_svr_equals_sklearn_and_predict():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4))
    z = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=50)
    ours = SVR(kernel="linear", C=2.0, epsilon=0.2, tol=TOL).fit(X, z)
    ref = sk.SVR(kernel="linear", C=2.0, epsilon=0.2, tol=TOL).fit(X, z)
    assert ours.coef_.shape == ref.coef_.shape == (1, 4)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(X @ ours.coef_[0] + ours.intercept_[0], ours.predict(X),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("Est", [SVC, SVR])
def test_coef_is_read_only(Est):
    X, y = _overlap()
    est = Est(kernel="linear").fit(X, y.astype(float) if Est is SVR else y)
    assert not est.coef_.flags.writeable
    with pytest.raises(ValueError):
        est.coef_[0, 0] = 1.0
    # a fresh array each time: the model is untouched
    assert est.coef_.flags.owndata or est.coef_.base is not None


@pytest.mark.parametrize("Est,SkEst", [(SVC, sk.SVC), (SVR, sk.SVR)])
@pytest.mark.parametrize("kernel", ["rbf", "poly", "sigmoid", "precomputed", "callable"])
def test_coef_only_for_the_linear_kernel(Est, SkEst, kernel):
    X, y = _overlap()
    y = y.astype(float) if Est is SVR else y
    if kernel == "precomputed":
        Xf, kern = X @ X.T, "precomputed"
    else:
        Xf, kern = X, ((lambda A, B: A @ B.T) if kernel == "callable" else kernel)
    ours = Est(kernel=kern).fit(Xf, y)
    ref = SkEst(kernel=kern).fit(Xf, y)
    with pytest.raises(AttributeError) as got:
        _ = ours.coef_
    with pytest.raises(AttributeError) as want:
        _ = ref.coef_
    assert str(got.value) == str(want.value) == "coef_ is only available when using a linear kernel"
    assert not hasattr(ours, "coef_")


def test_coef_before_fit_is_not_fitted():
    with pytest.raises(NotFittedError):
        _ = SVC(kernel="linear").coef_
    assert not hasattr(SVR(kernel="linear"), "coef_")


def test_coef_without_support_vectors_is_zero():
    X, y = _overlap()
    est = SVC(kernel="linear", tol=3.0).fit(X, y)   # tol > 2: no step, no support vector
    assert est.support_.size == 0
    np.testing.assert_array_equal(est.coef_, np.zeros((1, 2)))


# ---------------------------------------------------------------------------------------
# n_iter_
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 3, 4])
def test_n_iter_svc_has_sklearns_type_shape_and_dtype(k):
    X, y = _blobs(40, 2, k, sep=1.5, seed=k)
    ours = SVC().fit(X, y)
    ref = sk.SVC().fit(X, y)
    assert isinstance(ours.n_iter_, np.ndarray)
    assert ours.n_iter_.shape == ref.n_iter_.shape == (k * (k - 1) // 2,)
    assert ours.n_iter_.dtype == ref.n_iter_.dtype
    assert np.issubdtype(ours.n_iter_.dtype, np.integer)
    assert np.all(ours.n_iter_ > 0)


@pytest.mark.parametrize("solver", SOLVERS)
def test_n_iter_svc_at_the_cap(solver):
    X, y = _overlap(80)
    with pytest.warns(ConvergenceWarning):
        est = SVC(C=100.0, max_iter=4, solver=solver).fit(X, y)
    np.testing.assert_array_equal(est.n_iter_, [4])
    assert est.n_iter_.dtype == np.int32


def test_n_iter_svr_is_an_int_as_sklearns():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    z = X[:, 0] - X[:, 1]
    ours, ref = SVR().fit(X, z), sk.SVR().fit(X, z)
    assert type(ours.n_iter_) is type(ref.n_iter_) is int
    assert ours.n_iter_ > 0


# ---------------------------------------------------------------------------------------
# C = inf: the hard margin
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("solver", SOLVERS)
def test_hard_margin_linear_equals_sklearn(solver):
    X, y = _blobs(40, 3, 2, sep=2.0, seed=5)
    ours = SVC(kernel="linear", C=INF, tol=TOL, solver=solver).fit(X, y)
    ref = sk.SVC(kernel="linear", C=INF, tol=TOL).fit(X, y)
    for a in (ours.dual_coef_, ours.intercept_, ours.coef_, ours.alpha_):
        assert np.all(np.isfinite(a))
    assert np.isfinite(ours.objective_)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    # the hard margin: every training point on or outside the margin (to tol), alpha >= 0
    yy = np.where(y == ours.classes_[1], 1.0, -1.0)
    assert np.min(yy * ours.decision_function(X)) >= 1.0 - 1e-6
    assert np.all(ours.alpha_ >= 0.0)


def test_hard_margin_equals_a_large_finite_C():
    """Where no multiplier reaches C, the soft-margin solution is the hard-margin one."""
    X, y = _blobs(30, 2, 2, sep=3.0, seed=2)
    hard = SVC(kernel="linear", C=INF, tol=TOL).fit(X, y)
    big = 10.0 * float(np.max(hard.alpha_)) + 1.0
    soft = SVC(kernel="linear", C=big, tol=TOL).fit(X, y)
    np.testing.assert_array_equal(hard.support_, soft.support_)
    np.testing.assert_allclose(hard.dual_coef_, soft.dual_coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hard.intercept_, soft.intercept_, atol=1e-6)


def test_hard_margin_rbf_and_three_classes_equal_sklearn():
    X, y = _overlap(40)            # not linearly separable, separable by a narrow RBF
    ours = SVC(kernel="rbf", gamma=5.0, C=INF, tol=TOL).fit(X, y)
    ref = sk.SVC(kernel="rbf", gamma=5.0, C=INF, tol=TOL).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-5, atol=1e-5)
    X3, y3 = _blobs(45, 2, 3, sep=4.0, seed=8)
    ours3 = SVC(kernel="linear", C=INF, tol=TOL, decision_function_shape="ovo").fit(X3, y3)
    ref3 = sk.SVC(kernel="linear", C=INF, tol=TOL, decision_function_shape="ovo").fit(X3, y3)
    np.testing.assert_allclose(ours3.decision_function(X3), ref3.decision_function(X3), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(ours3.n_support_, ref3.n_support_)


@pytest.mark.parametrize("solver", SOLVERS)
def test_hard_margin_not_separable_is_a_value_error(solver):
    X, y = _overlap(40)
    with pytest.raises(ValueError, match="hard-margin problem .*infeasible.*not separable"):
        SVC(kernel="linear", C=INF, solver=solver).fit(X, y)
    # the same point in both classes: no kernel separates it
    Xd = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="infeasible"):
        SVC(kernel="rbf", C=INF, solver=solver).fit(Xd, [0, 0, 1, 1])
    # three classes, one pair not separable
    X3, y3 = _blobs(45, 2, 3, sep=4.0, seed=8)
    X3 = np.vstack([X3, X3[y3 == 1][:1]])
    y3 = np.r_[y3, 2]
    with pytest.raises(ValueError, match="of some pair"):
        SVC(kernel="linear", C=INF, solver=solver).fit(X3, y3)
    # the failed fit leaves an unfitted estimator unfitted
    est = SVC(kernel="linear", C=INF)
    with pytest.raises(ValueError):
        est.fit(X, y)
    assert not hasattr(est, "dual_coef_")


def test_hard_margin_feasibility_lp():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    K = X @ X.T
    assert hard_margin_feasible(K, np.array([-1.0, -1.0, 1.0, 1.0]))
    assert not hard_margin_feasible(K, np.array([-1.0, 1.0, -1.0, 1.0]))
    assert hard_margin_feasible((1.0 + K) ** 3, np.array([-1.0, 1.0, -1.0, 1.0]))  # cubic


def test_hard_tube_svr_equals_sklearn_or_is_a_value_error():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    z = X @ np.array([1.0, 2.0, -1.0]) + 0.05 * rng.uniform(-1, 1, size=30)
    ours = SVR(kernel="linear", C=INF, epsilon=0.1, tol=TOL).fit(X, z)
    ref = sk.SVR(kernel="linear", C=INF, epsilon=0.1, tol=TOL).fit(X, z)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-5)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-5)
    assert np.max(np.abs(ours.predict(X) - z)) <= 0.1 + 1e-6       # the hard tube
    with pytest.raises(ValueError, match="hard-tube problem .*infeasible"):
        SVR(kernel="linear", C=INF, epsilon=0.01).fit(X, z)


@pytest.mark.parametrize("C,exc", [(float("nan"), ValueError), (-INF, ValueError),
                                   (0.0, ValueError), ("1", TypeError), (True, TypeError)])
@pytest.mark.parametrize("Est", [SVC, SVR])
def test_bad_C_names_C(Est, C, exc):
    X, y = _overlap()
    with pytest.raises(exc, match="C must be"):
        Est(C=C).fit(X, y.astype(float) if Est is SVR else y)


def test_multiclass_svc_still_refuses_inf():
    X, y = _blobs(30, 2, 3, seed=1)
    with pytest.raises(ValueError, match="C must be"):
        MulticlassSVC(C=INF).fit(X, y)


# ---------------------------------------------------------------------------------------
# callable kernels on sequences of arbitrary samples
# ---------------------------------------------------------------------------------------
def _strings(n: int = 24, seed: int = 0):
    """Strings over {a, b} (class 0) and {c, d} (class 1), some sharing an 'ab' prefix."""
    rng = np.random.default_rng(seed)
    out, y = [], []
    for t in range(n):
        c = t % 2
        alphabet = "ab" if c == 0 else "cd"
        s = "".join(rng.choice(list(alphabet), size=int(rng.integers(3, 8))))
        if t % 5 == 0:
            s = "ab" + s      # overlap: class 1 strings with a class-0 prefix
        out.append(s)
        y.append(c)
    return out, np.array(y)


ssk = functools.partial(subsequence_gram, n=2, lam=0.6)   # module level: picklable


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, A, B):
        self.calls.append((A, B))
        return ssk(A, B)


@pytest.mark.parametrize("solver", SOLVERS)
def test_callable_on_strings_equals_precomputed(solver):
    S, y = _strings()
    T, _ = _strings(10, seed=1)
    ours = SVC(kernel=ssk, C=2.0, tol=TOL, solver=solver).fit(S, y)
    K = ssk(S, S)
    pre = SVC(kernel="precomputed", C=2.0, tol=TOL, solver=solver).fit(K, y)
    np.testing.assert_array_equal(ours.support_, pre.support_)
    np.testing.assert_allclose(ours.dual_coef_, pre.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, pre.intercept_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.decision_function(T), pre.decision_function(ssk(T, S)),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(T), pre.predict(ssk(T, S)))
    assert ours.shape_fit_ == (len(S),)
    assert not hasattr(ours, "n_features_in_")
    assert list(ours.support_vectors_) == [S[i] for i in ours.support_]
    assert ours.score(S, y) == pre.score(K, y)


def test_callable_on_strings_equals_sklearn_and_is_called_with_lists():
    S, y = _strings()
    T, _ = _strings(10, seed=1)
    rec = Recorder()
    ours = SVC(kernel=rec, C=2.0, tol=TOL).fit(S, y)
    (A, B), = rec.calls
    assert type(A) is list and A == S and all(a is s for a, s in zip(A, S))
    assert B == S
    rec.calls.clear()
    dec = ours.decision_function(T)
    (A, B), = rec.calls
    assert type(A) is list and A == T
    assert type(B) is list and B == [S[i] for i in ours.support_]
    ref = sk.SVC(kernel=ssk, C=2.0, tol=TOL).fit(S, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-6)
    np.testing.assert_allclose(dec, ref.decision_function(T), atol=1e-6)


def test_callable_on_strings_three_classes_and_svr():
    S, y = _strings(30)
    y3 = np.array([c if t % 3 else 2 for t, c in enumerate(y)])
    ours = SVC(kernel=ssk, tol=TOL, decision_function_shape="ovo").fit(S, y3)
    K = ssk(S, S)
    pre = SVC(kernel="precomputed", tol=TOL, decision_function_shape="ovo").fit(K, y3)
    np.testing.assert_allclose(ours.dual_coef_, pre.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.decision_function(S[:7]), pre.decision_function(K[:7]),
                               rtol=1e-9, atol=1e-12)
    z = np.array([len(s) for s in S], dtype=float)
    reg = SVR(kernel=ssk, C=5.0, tol=TOL).fit(S, z)
    regp = SVR(kernel="precomputed", C=5.0, tol=TOL).fit(K, z)
    np.testing.assert_allclose(reg.dual_coef_, regp.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reg.predict(S[:5]), regp.predict(K[:5]), rtol=1e-9, atol=1e-12)
    assert type(reg.n_iter_) is int


def test_callable_on_ragged_sequences_and_tuples():
    """Samples of different lengths (a ragged list) and a tuple of samples."""
    seqs = [[1.0], [1.0, 2.0], [3.0, 1.0, 0.5], [5.0], [4.0, 4.0], [0.5, 0.5, 0.5, 0.5]]
    y = [0, 0, 0, 1, 1, 1]

    def mean_kernel(A, B):   # the linear kernel on each sample's mean
        a = np.array([np.mean(s) for s in A])
        b = np.array([np.mean(s) for s in B])
        return np.outer(a, b)

    ours = SVC(kernel=mean_kernel, C=10.0, tol=TOL).fit(tuple(seqs), y)
    means = np.array([[np.mean(s)] for s in seqs])
    lin = SVC(kernel="linear", C=10.0, tol=TOL).fit(means, y)
    np.testing.assert_allclose(ours.decision_function(seqs), lin.decision_function(means),
                               rtol=1e-9, atol=1e-12)


def test_callable_on_strings_pickles():
    S, y = _strings()
    est = SVC(kernel=ssk).fit(S, y)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.decision_function(S), est.decision_function(S))


def test_callable_sequence_input_errors():
    S, y = _strings()
    with pytest.raises(ValueError, match="samples"):
        SVC(kernel=ssk).fit(S, y[:-1])
    with pytest.raises(TypeError, match="sequence of samples"):
        SVC(kernel=ssk).fit("abcd", [0, 1, 0, 1])
    with pytest.raises(NotFittedError):
        SVC(kernel=ssk).predict(S)
    est = SVC(kernel=ssk).fit(S, y)
    with pytest.raises(TypeError, match="sequence of samples"):
        est.predict("abc")
    # named kernels keep the numeric checks
    with pytest.raises((TypeError, ValueError)):
        SVC(kernel="rbf").fit(S, y)


def test_callable_on_numeric_arrays_keeps_the_numeric_checks():
    X, y = _overlap()
    est = SVC(kernel=lambda A, B: A @ B.T).fit(X, y)
    assert est.n_features_in_ == 2 and est.support_vectors_.shape[1] == 2
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        SVC(kernel=lambda A, B: A @ B.T).fit(Xn, y)
    with pytest.raises(ValueError):
        est.predict(X[:, :1])
    # refitting on numbers after strings goes back to the numeric path
    S, ys = _strings()
    est2 = SVC(kernel=lambda A, B: ssk(A, B) if isinstance(A, list) else A @ B.T).fit(S, ys)
    assert not hasattr(est2, "n_features_in_")
    est2.fit(X, y)
    assert est2.n_features_in_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est2.predict(X)
