"""``sample_weight`` and ``class_weight`` of ``ktheory.svm.SVC`` and ``SVR`` (issue 34).

libsvm's semantics: sample ``i`` gets the box ``0 <= alpha_i <= C_i`` with
``C_i = C * class_weight_[y_i] * sample_weight[i]``; a sample whose factor is zero or
negative is left out of the problem. The oracles:

* scikit-learn (libsvm) on the same data: decision values to a bound that SMO's
  ``tol=1e-3`` allows, predictions equal where the decision value is clear of it;
* the KKT conditions of the weighted problem, checked on the returned solution;
* identities that hold exactly for the optimisation problem (integer weights and repeated
  samples; zero weights and removed samples; weights ``t w`` and ``C t``), checked at
  ``tol=1e-12``, where SMO's answer is the problem's to that accuracy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import svm as sksvm

from ktheory.svm import SVC, SVR

SOLVERS = ("numpy", pytest.param("compiled", marks=pytest.mark.needs_numba))


def _three_classes(seed=0, n=120):
    r = np.random.default_rng(seed)
    X = r.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * r.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    w = r.uniform(0.0, 3.0, n)
    return X, y, w


def _two_classes(seed=1, n=80):
    r = np.random.default_rng(seed)
    X = np.r_[r.normal(-1, 1, (n // 2, 2)), r.normal(1, 1, (n // 2, 2))]
    y = np.repeat([0, 1], n // 2)
    w = r.uniform(0.1, 4.0, n)
    return X, y, w


def _kkt_violation(est, X, y01, Cw):
    """Largest KKT violation of a two-class weighted fit: for alpha_i = 0, y_i f_i >= 1;
    for alpha_i = C_i, y_i f_i <= 1; in between, y_i f_i = 1 (libsvm's stopping rule
    bounds it by about tol)."""
    yy = np.where(y01 == 1, 1.0, -1.0)
    m = yy * est.decision_function(X)
    a = est.alpha_
    at0 = a <= 1e-12 * Cw.max()
    atC = a >= Cw * (1 - 1e-12)
    free = ~(at0 | atC)
    v = np.zeros_like(m)
    v[at0] = np.maximum(0.0, 1.0 - m[at0])
    v[atC] = np.maximum(0.0, m[atC] - 1.0)
    v[free] = np.abs(m[free] - 1.0)
    return float(v.max())


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kw", [{}, {"class_weight": "balanced"},
                                {"class_weight": {0: 0.3, 2: 5.0}}],
                         ids=["sample_weight", "balanced", "dict"])
def test_svc_weights_agree_with_sklearn(solver, kw):
    X, y, w = _three_classes()
    ours = SVC(solver=solver, **kw).fit(X, y, sample_weight=w)
    theirs = sksvm.SVC(**kw).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.class_weight_, theirs.class_weight_, rtol=1e-12)
    F, G = ours.decision_function(X), theirs.decision_function(X)
    assert np.abs(F - G).max() < 5e-3
    clear = np.sort(G, axis=1)[:, -1] - np.sort(G, axis=1)[:, -2] > 1e-2
    assert np.array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])
    # support sets at tol=1e-3 are not unique: compare the samples clearly inside (alpha
    # above 1% of its bound in some pair), which both must count as support vectors
    Cw = w * ours.class_weight_[np.searchsorted(ours.classes_, y)]
    clear_sv = np.flatnonzero((ours.alpha_ > 1e-2 * Cw).any(axis=0))
    assert clear_sv.size > 10
    assert set(clear_sv) <= set(theirs.support_)


@pytest.mark.parametrize("solver", SOLVERS)
def test_svc_weighted_fit_satisfies_kkt(solver):
    X, y, w = _two_classes()
    est = SVC(kernel="rbf", gamma=0.5, C=2.0, solver=solver, tol=1e-6,
              class_weight={0: 1.0, 1: 3.0}).fit(X, y, sample_weight=w)
    Cw = 2.0 * w * np.where(y == 1, 3.0, 1.0)
    assert np.all(est.alpha_ <= Cw * (1 + 1e-12))
    assert np.any(est.alpha_ >= Cw * (1 - 1e-12))     # some weighted bound is active
    assert _kkt_violation(est, X, y, Cw) < 1e-5
    # the unweighted bound C is violated by the weighted solution: the weights were used
    assert est.alpha_.max() > 2.0


@pytest.mark.parametrize("solver", SOLVERS)
def test_svr_weights_agree_with_sklearn(solver):
    X, _, w = _three_classes()
    r = np.random.default_rng(3)
    z = X @ [1.0, 2.0, 0.0, -1.0] + 0.1 * r.normal(size=X.shape[0])
    ours = SVR(solver=solver, C=3.0).fit(X, z, sample_weight=w)
    theirs = sksvm.SVR(C=3.0).fit(X, z, sample_weight=w)
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() < 5e-3
    both = np.intersect1d(ours.support_, theirs.support_)
    assert both.size >= 0.95 * max(ours.support_.size, theirs.support_.size)


@pytest.mark.parametrize("Est", [SVC, SVR])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_integer_weights_equal_repeated_samples(Est, kernel):
    """Weight 2 is a repeated sample, weight 0 a removed one: the same optimisation problem
    (its alphas sum over the copies). Exact at tol=1e-12 with a numeric gamma (gamma='scale'
    is computed from the data as given, which repetition changes)."""
    X, y, _ = _two_classes(n=40)
    r = np.random.default_rng(5)
    k = r.integers(0, 3, X.shape[0])
    k[[0, -1]] = 1                       # both classes keep samples
    target = y if Est is SVC else X @ [1.0, -1.0] + 0.1 * r.normal(size=X.shape[0])
    params = dict(kernel=kernel, gamma=0.7, C=1.5, tol=1e-12)
    weighted = Est(**params).fit(X, target, sample_weight=k)
    rep = np.repeat(np.arange(X.shape[0]), k)
    repeated = Est(**params).fit(X[rep], target[rep])
    T = np.random.default_rng(6).normal(size=(50, 2))
    f, g = (weighted.decision_function(T), repeated.decision_function(T)) if Est is SVC else (
        weighted.predict(T), repeated.predict(T))
    np.testing.assert_allclose(f, g, rtol=1e-7, atol=1e-8)
    assert np.all(weighted.alpha_[k == 0] == 0.0)
    assert set(weighted.support_) <= set(np.flatnonzero(k > 0))


@pytest.mark.parametrize("solver", SOLVERS)
def test_zero_weight_is_removal_and_indices_stay_original(solver):
    X, y, _ = _three_classes(n=90)
    w = np.ones(X.shape[0])
    w[::4] = 0.0
    w[1::9] = -2.0                                   # negative: also left out
    keep = w > 0
    a = SVC(solver=solver, tol=1e-10, gamma=0.3).fit(X, y, sample_weight=w)
    b = SVC(solver=solver, tol=1e-10, gamma=0.3).fit(X[keep], y[keep])
    idx = np.flatnonzero(keep)
    # the coefficients by original sample index (support sets may differ by multipliers
    # at the rounding level of tol, so compare the dense coefficient arrays)
    ca = np.zeros((2, X.shape[0]))
    cb = np.zeros((2, X.shape[0]))
    ca[:, a.support_] = a.dual_coef_
    cb[:, idx[b.support_]] = b.dual_coef_
    np.testing.assert_allclose(ca, cb, atol=1e-8)
    assert set(a.support_) <= set(idx)
    assert a.alpha_.shape == (3, X.shape[0]) and np.all(a.alpha_[:, ~keep] == 0.0)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)
    # gamma='scale' is computed from all rows of X, as scikit-learn does
    c = SVC(solver=solver).fit(X, y, sample_weight=w)
    assert c._gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-12)


def test_weights_times_t_equal_C_times_t():
    X, y, w = _two_classes()
    a = SVC(C=0.5, tol=1e-12).fit(X, y, sample_weight=4.0 * w)
    b = SVC(C=2.0, tol=1e-12).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-8, atol=1e-12)
    assert a.intercept_ == pytest.approx(b.intercept_, abs=1e-8)
    # a scalar weight is every sample's weight
    c = SVC(C=1.0, tol=1e-12).fit(X, y, sample_weight=2.0)
    d = SVC(C=2.0, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(c.dual_coef_, d.dual_coef_, rtol=1e-8, atol=1e-12)


def test_unit_weights_change_nothing():
    X, y, _ = _three_classes()
    a = SVC(tol=1e-10).fit(X, y, sample_weight=np.ones(X.shape[0]))
    b = SVC(tol=1e-10).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(a.class_weight_, np.ones(3))


def test_class_weight_moves_the_boundary():
    """Up-weighting a class pushes the boundary away from it: its training errors fall."""
    X, y, _ = _two_classes(n=120, seed=4)
    plain = SVC(kernel="linear").fit(X, y)
    heavy = SVC(kernel="linear", class_weight={1: 20.0}).fit(X, y)
    err = lambda est, c: np.mean(est.predict(X[y == c]) != c)
    assert err(heavy, 1) < err(plain, 1)
    assert err(heavy, 0) > err(plain, 0)


def test_probability_with_weights_agrees_with_sklearn():
    X, y, w = _three_classes()
    ours = SVC(probability=True, random_state=0).fit(X, y, sample_weight=w).predict_proba(X)
    theirs = []
    for seed in range(4):
        with pytest.warns(FutureWarning) if _sk_deprecates_probability() else _nullcontext():
            est = sksvm.SVC(probability=True, random_state=seed).fit(X, y, sample_weight=w)
        theirs.append(est.predict_proba(X))
    # Platt's folds differ (numpy's generator vs libsvm's rand): our probabilities lie
    # within scikit-learn's own spread over its seeds (plus a margin of its size)
    spread = max(np.abs(a - b).max() for a in theirs for b in theirs)
    lo, hi = np.min(theirs, axis=0), np.max(theirs, axis=0)
    assert np.all(ours >= lo - spread) and np.all(ours <= hi + spread)
    assert np.abs(ours - np.mean(theirs, axis=0)).max() < 1.5 * spread


def _sk_deprecates_probability():
    return sksvm.SVC().get_params()["probability"] == "deprecated"


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_order_of_samples_does_not_matter(seed):
    """Permuting the samples with their weights permutes nothing in the model's function."""
    r = np.random.default_rng(seed)
    n = 30
    X = r.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * r.normal(size=n) > 0).astype(int)
    y[:2] = [0, 1]
    w = r.uniform(0.05, 5.0, n)
    perm = r.permutation(n)
    a = SVC(kernel="rbf", gamma=1.0, tol=1e-12).fit(X, y, sample_weight=w)
    b = SVC(kernel="rbf", gamma=1.0, tol=1e-12).fit(X[perm], y[perm], sample_weight=w[perm])
    T = r.normal(size=(20, 2))
    np.testing.assert_allclose(a.decision_function(T), b.decision_function(T), atol=1e-7)


# --- bad input -------------------------------------------------------------------------------
X6 = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], dtype=float)
Y6 = np.array([1, 1, 1, 2, 2, 2])


@pytest.mark.parametrize("Est", [SVC, SVR])
@pytest.mark.parametrize("w", [[0] * 6, [-0.3] * 6])
def test_no_positive_weight(Est, w):
    with pytest.raises(ValueError, match="all samples have zero or negative weights"):
        Est(kernel="linear").fit(X6, Y6, sample_weight=w)


@pytest.mark.parametrize("w", [[0, -0.5, 0, 1, 1, 1], [1, 1, 1, 0, -0.1, -0.3]])
def test_one_class_left(w):
    with pytest.raises(ValueError, match="all samples with positive weights belong to the same "
                                         "class"):
        SVC(kernel="linear").fit(X6, Y6, sample_weight=w)


def test_a_class_of_three_left_without_weight():
    X, y, _ = _three_classes()
    with pytest.raises(ValueError, match=r"classes \[2\] have no sample of positive weight"):
        SVC(class_weight={2: 0.0}).fit(X, y)


@pytest.mark.parametrize("Est", [SVC, SVR])
@pytest.mark.parametrize("w, exc, pat", [
    ([1.0] * 5, ValueError, r"sample_weight has 5 entries but X has 6 samples"),
    ([1.0, np.nan, 1, 1, 1, 1], ValueError, r"sample_weight contains NaN"),
    ([1.0, np.inf, 1, 1, 1, 1], ValueError, r"sample_weight contains NaN or infinity"),
    (np.ones((6, 1)), ValueError, r"sample_weight must be a 1-D array"),
    (["a"] * 6, TypeError, r"sample_weight must be a numeric array"),
    (float("nan"), ValueError, r"sample_weight must be finite"),
])
def test_bad_sample_weight(Est, w, exc, pat):
    with pytest.raises(exc, match=pat):
        Est(kernel="linear").fit(X6, Y6, sample_weight=w)


@pytest.mark.parametrize("cw, exc, pat", [
    ("balance", ValueError, r"class_weight must be None, 'balanced' or a dict"),
    ([1.0, 2.0], TypeError, r"class_weight must be None, 'balanced' or a dict"),
    ({3: 1.0}, ValueError, r"class_weight has labels \[3\] that are not classes of y"),
    ({1: float("nan")}, ValueError, r"class_weight\[1\] must be a finite real number"),
    ({1: "2"}, ValueError, r"class_weight\[1\] must be a finite real number"),
])
def test_bad_class_weight(cw, exc, pat):
    with pytest.raises(exc, match=pat):
        SVC(kernel="linear", class_weight=cw).fit(X6, Y6)


def test_overflowing_product_is_refused():
    with pytest.raises(ValueError, match="C \\* sample_weight .* overflows"):
        SVC(C=1e300).fit(X6, Y6, sample_weight=[1e10] * 6)


def test_failed_weighted_refit_leaves_the_model():
    est = SVC(kernel="linear").fit(X6, Y6)
    before = (est.dual_coef_.copy(), est.intercept_.copy(), est.decision_function(X6))
    with pytest.raises(ValueError):
        est.fit(X6, Y6, sample_weight=[0] * 6)
    np.testing.assert_array_equal(est.dual_coef_, before[0])
    np.testing.assert_array_equal(est.intercept_, before[1])
    np.testing.assert_array_equal(est.decision_function(X6), before[2])
