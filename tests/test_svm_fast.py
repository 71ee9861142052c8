"""The compiled SMO (``ktheory.svm._fast``): kernel rows on demand, the row cache, shrinking.

Oracles, all independent of the compiled code:

* the readable reference :func:`ktheory.svm.smo_solve` (whole Gram matrix, numpy): with
  ``shrinking=False`` the compiled solver runs *the same iterates* (alphas to 1e-10 after
  any number of iterations, the same ``n_iter``, intercept and objective), for every
  kernel and for the SVR layout (``2n`` variables on ``n`` samples);
* the KKT conditions recomputed here from ``alpha`` and the full gradient ``Q alpha + p``
  (``Q`` built from the Gram matrix of :mod:`ktheory.kernels`): with shrinking on, the
  solution must satisfy them over *all* variables, not only the active set;
* the same solver with a cache large enough for every row: the cache's content must never
  change the result (bit for bit), whatever its size and however shrinking permutes it;
* scikit-learn's SVC / SVR (libsvm) for the estimators.
"""

from __future__ import annotations

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba", reason="the compiled solver's own tests need numba")

from ktheory import kernels as km  # noqa: E402
from ktheory.svm import SVC, SVR, ConvergenceWarning, _fast, smo_solve  # noqa: E402

#: every test here is of the compiled solver: the estimators use it on every size (conftest)
pytestmark = pytest.mark.needs_numba

BIG_CACHE = 1000.0      # MiB: every row of these problems fits
TINY_CACHE = 1e-6       # MiB: two rows (the minimum)
NO_LIMIT = 200_000     # far above any run here: a broken solver fails, not hangs


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _classification(seed: int, n: int, d: int = 3, noise: float = 1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    if np.all(y == y[0]):
        y[0] = -y[0]
    return X, y


# (kernel, gamma, coef0, degree): sklearn's parametrisation
_KERNELS = {
    "linear": (0.0, 0.0, 3),
    "poly": (0.3, 1.0, 3),
    "rbf": (0.5, 0.0, 3),
    "sigmoid": (0.2, -0.5, 3),
    "precomputed": (0.0, 0.0, 3),
}


def _gram(kernel: str, X: np.ndarray) -> np.ndarray:
    """The Gram matrix by :mod:`ktheory.kernels`, called as ``SVC._kernel_block`` calls it
    (for "precomputed": a PSD matrix with a non-constant diagonal)."""
    gamma, coef0, degree = _KERNELS[kernel]
    if kernel == "linear":
        return km.linear_kernel(X, None)
    if kernel == "poly":
        return km.polynomial_kernel(X, None, degree=degree, gamma=gamma, coef0=coef0)
    if kernel == "rbf":
        return km.rbf_kernel(X, None, gamma=gamma)
    if kernel == "sigmoid":
        return km.sigmoid_kernel(X, None, gamma=gamma, coef0=coef0)
    return km.linear_kernel(X, None) + 0.5 + np.diag(np.linspace(0.0, 1.0, X.shape[0]))


def _fast_run(kernel: str, X: np.ndarray, y: np.ndarray, C: float, tol: float,
              max_iter: int = NO_LIMIT, **kw) -> _fast.FastResult:
    gamma, coef0, degree = _KERNELS[kernel]
    kind = _fast.KERNEL_CODES[kernel]
    if kernel == "precomputed":
        return _fast.fast_smo(kind, None, y, C, tol, max_iter, Kpre=_gram(kernel, X), **kw)
    return _fast.fast_smo(kind, X, y, C, tol, max_iter,
                          kparams=(gamma, coef0, float(degree)), **kw)


def _full_q(K: np.ndarray, y: np.ndarray, base: np.ndarray | None = None) -> np.ndarray:
    base = np.arange(len(y)) if base is None else base
    return np.outer(y, y) * K[np.ix_(base, base)]


def _kkt_gap(alpha, y, Q, C, p=None) -> tuple[float, np.ndarray]:
    """(m(alpha) - M(alpha) over all variables, gradient Q alpha + p), from scratch."""
    p = -np.ones(len(y)) if p is None else p
    grad = Q @ alpha + p
    v = -y * grad
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return float(v[up].max() - v[low].min()), grad


def _objective(alpha, Q, p=None) -> float:
    p = -np.ones(len(alpha)) if p is None else p
    return 0.5 * float(alpha @ Q @ alpha) + float(p @ alpha)


def _assert_feasible(alpha, y, C) -> None:
    assert np.all(alpha >= 0.0) and np.all(alpha <= C)
    assert abs(float(alpha @ y)) <= 1e-10 * max(1.0, C * len(alpha))


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn(*args, **kw)


# ---------------------------------------------------------------------------
# 1. the same iterates as the reference (shrinking=False)
# ---------------------------------------------------------------------------
def _pair_is_a_rounding_tie(alpha, y, Q, C, p, changed) -> bool:
    """At ``alpha`` (where both solvers agree), is the working-set selection (WSS3, as
    :func:`ktheory.svm.smo_solve`) a tie to rounding between two candidates, each chosen by
    one solver (``changed``: the variables each solver moved next)?"""
    grad = Q @ alpha + p
    v = -y * grad
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    m = v[up].max()
    # (the tie is to the rounding the two solvers have accumulated: alphas within ~1e-10 C)
    tie = 1e-9 * max(1.0, C) * max(1.0, abs(m))
    tied_i = set(np.flatnonzero(up & (v >= m - tie)).tolist())
    if len(tied_i) >= 2:
        return all(tied_i & set(c) for c in changed)
    i = next(iter(tied_i))
    QD = np.diag(Q)
    b = v[i] - v
    curv = np.maximum(QD[i] + QD - 2.0 * y[i] * y * Q[i], 1e-12)
    score = np.where(low & (b > 0), b * b / curv, -np.inf)
    best = score.max()
    tied_j = set(np.flatnonzero(score >= best * (1.0 - 1e-6)).tolist())
    return len(tied_j) >= 2 and all(tied_j & set(c) for c in changed)


def _lockstep(ref_at, fast_at, y, Q, C, p, atol) -> int:
    """Run both solvers to convergence and, stopped after ``k`` iterations, compare their
    alphas (to ``atol``) at several ``k``. Returns the number of iterations over which they
    agree: all of them (then the same ``n_iter``), or up to the step where both met an
    exact tie of the selection that rounding broke differently (checked: a tie; two
    variables that a free-free step leaves with equal ``-y grad`` are such a tie)."""
    ref, fast = ref_at(None), fast_at(None)
    assert ref.converged and fast.converged and not fast.nonfinite

    def same(r, f) -> bool:
        return r.n_iter == f.n_iter and np.abs(r.alpha - f.alpha).max() <= atol

    if same(ref, fast):
        for k in sorted({1, 2, ref.n_iter // 3, ref.n_iter // 2, ref.n_iter - 1} - {0}):
            r, f = ref_at(k), fast_at(k)
            assert r.n_iter == f.n_iter == k and not (r.converged or f.converged)
            np.testing.assert_allclose(f.alpha, r.alpha, rtol=0, atol=atol)
            assert f.objective == pytest.approx(r.objective, rel=1e-10, abs=1e-12)
            assert f.gap == pytest.approx(r.gap, rel=1e-8, abs=1e-10)
        assert fast.intercept == pytest.approx(ref.intercept, rel=1e-9, abs=1e-10)
        assert fast.objective == pytest.approx(ref.objective, rel=1e-10, abs=1e-12)
        assert fast.gap == pytest.approx(ref.gap, rel=1e-6, abs=1e-10)
        return ref.n_iter
    # bisect for the first iteration where they part, asserting agreement before it
    lo, hi = 0, min(ref.n_iter, fast.n_iter)
    r_lo = f_lo = None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        r, f = ref_at(mid), fast_at(mid)
        if same(r, f):
            lo, r_lo, f_lo = mid, r, f
        else:
            hi = mid
    r_hi, f_hi = ref_at(hi), fast_at(hi)
    assert not same(r_hi, f_hi)
    if r_lo is None:
        r_lo, f_lo = ref_at(lo) if lo else None, fast_at(lo) if lo else None
    a0 = r_lo.alpha if r_lo is not None else np.zeros(len(y))
    changed = [np.flatnonzero(r_hi.alpha != a0), np.flatnonzero(f_hi.alpha != (
        f_lo.alpha if f_lo is not None else np.zeros(len(y))))]
    assert _pair_is_a_rounding_tie(a0, y, Q, C, p, changed), (hi, changed)
    return lo


def _assert_same_steps_up_to_a_tie(ref_at, fast_at, y, Q, C, p, atol) -> None:
    """The property the compiled solver shares with the reference on every machine: the same
    steps up to the first exact tie of the selection, if any (``_lockstep`` asserts that
    where they part the selection was tied). How many steps come before that tie is not
    asserted: the two compute the kernel by different code (BLAS for the reference, one sum
    per value in the compiled solver), and which way a tie breaks, and so when the paths
    part, depends on how the machine rounds (the same case parted after 48 steps with
    OpenBLAS's Haswell kernels and ran in lockstep to the end with its SkylakeX kernels)."""
    assert ref_at(None).n_iter > 10, "precondition: a run long enough to compare"
    _lockstep(ref_at, fast_at, y, Q, C, p, atol)   # asserts the steps and the tie


# (kernel, n, seed, C, tol)
_REF_CASES = [
    ("rbf", 60, 0, 1.0, 1e-3),
    ("rbf", 45, 1, 10.0, 1e-5),
    ("linear", 40, 2, 0.5, 1e-3),
    ("linear", 25, 3, 100.0, 1e-6),
    ("poly", 50, 4, 1.0, 1e-3),
    ("poly", 30, 5, 5.0, 1e-4),
    ("sigmoid", 55, 6, 1.0, 1e-3),
    ("sigmoid", 20, 7, 3.0, 1e-4),
    ("precomputed", 80, 8, 2.0, 1e-3),
    ("precomputed", 35, 9, 0.1, 1e-5),
]


@pytest.mark.parametrize("kernel, n, seed, C, tol", _REF_CASES)
def test_same_iterates_as_the_reference(kernel, n, seed, C, tol):
    X, y = _classification(seed, n)
    K = _gram(kernel, X)
    Q = _full_q(K, y)
    ref_at = lambda k: _quiet(smo_solve, K, y, C, tol=tol, max_iter=-1 if k is None else k)
    fast_at = lambda k: _quiet(_fast_run, kernel, X, y, C, tol, NO_LIMIT if k is None else k,
                               shrinking=False, cache_size=BIG_CACHE)
    _assert_same_steps_up_to_a_tie(ref_at, fast_at, y, Q, C, -np.ones(n), 1e-10 * max(1.0, C))
    # wherever the paths part, both end at the same optimum, to tol
    ref, fast = ref_at(None), fast_at(None)
    gap, grad = _kkt_gap(fast.alpha, y, Q, C)
    assert gap < tol and fast.gap == pytest.approx(gap, abs=1e-9)
    np.testing.assert_allclose(fast.grad, grad, rtol=0, atol=1e-9 * max(1.0, C))
    assert abs(fast.objective - ref.objective) <= tol * max(1.0, abs(ref.objective))


def _svr_layout(n: int, seed: int, eps: float):
    """libsvm's SVR dual as SVR builds it: samples reversed, base = (order, order)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    z = np.sin(2.0 * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n)
    order = np.arange(n)[::-1].copy()
    base = np.r_[order, order]
    y2 = np.r_[-np.ones(n), np.ones(n)]
    p = np.r_[eps + z[order], eps - z[order]]
    return X, z, order, base, y2, p


@pytest.mark.parametrize("kernel, n, seed, C, eps, tol", [
    ("rbf", 40, 0, 1.0, 0.1, 1e-3),
    ("rbf", 25, 1, 10.0, 0.05, 1e-5),
    ("linear", 30, 2, 1.0, 0.2, 1e-4),
    ("poly", 20, 3, 2.0, 0.1, 1e-3),
])
def test_svr_layout_same_iterates_as_the_reference(kernel, n, seed, C, eps, tol):
    X, z, order, base, y2, p = _svr_layout(n, seed, eps)
    K = _gram(kernel, X)
    Ko = K[np.ix_(order, order)]         # the reference: variable s on sample s mod n
    gamma, coef0, degree = _KERNELS[kernel]
    kw = dict(kparams=(gamma, coef0, float(degree)), base=base, p=p, shrinking=False)
    kind = _fast.KERNEL_CODES[kernel]
    ref_at = lambda k: _quiet(smo_solve, Ko, y2, C, tol=tol, linear_term=p,
                              max_iter=-1 if k is None else k)
    fast_at = lambda k: _quiet(_fast.fast_smo, kind, X, y2, C, tol,
                               NO_LIMIT if k is None else k, **kw)
    Q = _full_q(K, y2, base)
    _assert_same_steps_up_to_a_tie(ref_at, fast_at, y2, Q, C, p, 1e-10 * max(1.0, C))
    ref, fast = ref_at(None), fast_at(None)
    assert fast.stats["row_length"] == n          # whole kernel rows, keyed by sample
    # the gradient the solver returns is Q alpha + p over the 2n variables
    gap, grad = _kkt_gap(fast.alpha, y2, Q, C, p)
    np.testing.assert_allclose(fast.grad, grad, rtol=0, atol=1e-9)
    assert gap == pytest.approx(fast.gap, abs=1e-9) and gap < tol
    assert abs(fast.objective - ref.objective) <= tol * max(1.0, abs(ref.objective))


@pytest.mark.parametrize("kernel, n, seed, C, tol", [
    ("rbf", 70, 0, 10.0, 1e-3),
    ("rbf", 60, 1, 100.0, 1e-3),
    ("linear", 50, 2, 10.0, 1e-4),
    ("poly", 60, 3, 10.0, 1e-3),
    ("sigmoid", 60, 4, 10.0, 1e-3),
    ("precomputed", 80, 5, 10.0, 1e-3),
])
def test_shrinking_reaches_the_same_optimum(kernel, n, seed, C, tol):
    X, y = _classification(seed, n, noise=1.5)
    K = _gram(kernel, X)
    Q = _full_q(K, y)
    s = _fast_run(kernel, X, y, C, tol, shrinking=True)
    ns = _fast_run(kernel, X, y, C, tol, shrinking=False)
    assert s.converged and ns.converged
    assert s.n_iter > n, "precondition: shrinking checks ran (every n iterations)"
    for r in (s, ns):
        _assert_feasible(r.alpha, y, C)
        gap, grad = _kkt_gap(r.alpha, y, Q, C)
        assert gap < tol
        assert r.gap == pytest.approx(gap, abs=1e-9)
        np.testing.assert_allclose(r.grad, grad, rtol=0, atol=1e-9 * max(1.0, C))
        assert r.objective == pytest.approx(_objective(r.alpha, Q), rel=1e-9, abs=1e-9)
    assert abs(s.objective - ns.objective) <= 2.0 * tol * max(1.0, abs(ns.objective))
    fs = K @ (s.alpha * y) + s.intercept
    fns = K @ (ns.alpha * y) + ns.intercept
    clear = np.abs(fns) > 10 * tol
    np.testing.assert_array_equal(np.sign(fs[clear]), np.sign(fns[clear]))


# ---------------------------------------------------------------------------
# 2. the cache: its size never changes the result
# ---------------------------------------------------------------------------
def _assert_same_run(a: _fast.FastResult, b: _fast.FastResult) -> None:
    np.testing.assert_array_equal(a.alpha, b.alpha)
    np.testing.assert_array_equal(a.grad, b.grad)
    assert a.n_iter == b.n_iter and a.intercept == b.intercept and a.gap == b.gap
    assert a.stats["shrink_steps"] == b.stats["shrink_steps"]
    assert a.stats["unshrinks"] == b.stats["unshrinks"]


@pytest.mark.parametrize("kernel", ["rbf", "poly", "precomputed"])
@pytest.mark.parametrize("shrinking", [False, True])
def test_tiny_and_partial_caches_give_the_same_iterates(kernel, shrinking):
    n = 70
    X, y = _classification(11, n, noise=1.5)
    C, tol = 10.0, 1e-3
    big = _fast_run(kernel, X, y, C, tol, shrinking=shrinking, cache_size=BIG_CACHE)
    tiny = _fast_run(kernel, X, y, C, tol, shrinking=shrinking, cache_size=TINY_CACHE)
    quarter_mb = 0.25 * n * n * 8 / 2**20
    part = _fast_run(kernel, X, y, C, tol, shrinking=shrinking, cache_size=quarter_mb)
    assert big.converged and big.n_iter > n
    if shrinking:
        assert big.stats["shrink_steps"] > 0, "precondition: shrinking permuted the cache"
    _assert_same_run(tiny, big)
    _assert_same_run(part, big)
    bs, ts, ps = big.stats, tiny.stats, part.stats
    assert (bs["cache_rows"], ts["cache_rows"], ps["cache_rows"]) == (n, 2, n // 4)
    assert bs["row_length"] == ts["row_length"] == n
    assert bs["evictions"] == 0 and ts["evictions"] > ps["evictions"] > 0
    # the same requests in the same order, whatever the cache
    assert bs["hits"] + bs["misses"] == ts["hits"] + ts["misses"] == ps["hits"] + ps["misses"]
    assert ts["hits"] < ps["hits"] < bs["hits"]
    if not shrinking:
        # every row is requested whole: the big cache misses each row once, and a full
        # small cache evicts on every miss
        assert bs["misses"] <= n
        assert ts["evictions"] == ts["misses"] - 2
        assert ps["evictions"] == ps["misses"] - n // 4


def test_svr_cache_is_keyed_by_sample():
    n = 50
    X, z, order, base, y2, p = _svr_layout(n, 3, 0.05)
    kw = dict(kparams=(0.5, 0.0, 3.0), base=base, p=p)
    for shrinking in (False, True):
        big = _fast.fast_smo(2, X, y2, 10.0, 1e-3, NO_LIMIT, cache_size=BIG_CACHE,
                             shrinking=shrinking, **kw)
        tiny = _fast.fast_smo(2, X, y2, 10.0, 1e-3, NO_LIMIT, cache_size=TINY_CACHE,
                              shrinking=shrinking, **kw)
        assert big.converged and big.n_iter > 2 * n
        _assert_same_run(tiny, big)
        assert big.stats["cache_rows"] == n and big.stats["row_length"] == n
        assert tiny.stats["cache_rows"] == 2
        assert big.stats["evictions"] == 0 < tiny.stats["evictions"]
        # n samples: the big cache computes each kernel row once at most
        assert big.stats["misses"] <= n
        assert (big.stats["hits"] + big.stats["misses"]
                == tiny.stats["hits"] + tiny.stats["misses"])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), n=st.integers(20, 90),
       kernel=st.sampled_from(["rbf", "linear", "poly", "sigmoid", "precomputed"]),
       C=st.sampled_from([1.0, 10.0, 100.0]), frac=st.floats(0.0, 1.2))
def test_cache_size_never_changes_the_solution_under_shrinking(seed, n, kernel, C, frac):
    X, y = _classification(seed, n, noise=1.5)
    mb = max(1e-9, frac * n * n * 8 / 2**20)
    big = _fast_run(kernel, X, y, C, 1e-3, 10**5, shrinking=True, cache_size=BIG_CACHE)
    small = _fast_run(kernel, X, y, C, 1e-3, 10**5, shrinking=True, cache_size=mb)
    _assert_same_run(small, big)
    assert small.stats["cache_rows"] == max(2, min(n, int(frac * n)))


# ---------------------------------------------------------------------------
# 3. shrinking at a scale where it sets variables aside
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shrunk_problem():
    n, C, tol, gamma = 1500, 10.0, 1e-3, 0.2
    X, y = _classification(1, n, d=5)
    kp = (gamma, 0.0, 3.0)
    s = _fast.fast_smo(2, X, y, C, tol, NO_LIMIT, kparams=kp, shrinking=True)
    ns = _fast.fast_smo(2, X, y, C, tol, NO_LIMIT, kparams=kp, shrinking=False)
    Q = _full_q(km.rbf_kernel(X, None, gamma=gamma), y)
    return dict(n=n, C=C, tol=tol, y=y, Q=Q, s=s, ns=ns)


def test_shrinking_sets_variables_aside_and_solves_all_of_them(shrunk_problem):
    pr = shrunk_problem
    n, C, tol, y, Q, s, ns = (pr[k] for k in ("n", "C", "tol", "y", "Q", "s", "ns"))
    st_ = s.stats
    hist = st_["history"]
    assert s.converged and st_["shrink_steps"] > 0
    assert hist["active_size"].min() < n // 2, "precondition: most variables set aside"
    checks = 1000 * np.arange(1, len(hist["iteration"]) + 1)     # every min(n, 1000)
    np.testing.assert_array_equal(hist["iteration"], checks)
    assert st_["active_size"] == n          # the final unshrink-and-check
    # the reported gap is the violation over ALL variables
    _assert_feasible(s.alpha, y, C)
    gap, grad = _kkt_gap(s.alpha, y, Q, C)
    np.testing.assert_allclose(s.grad, grad, rtol=0, atol=1e-8)
    assert s.gap == pytest.approx(gap, abs=1e-9)
    assert gap < tol
    assert abs(s.objective - ns.objective) <= 2.0 * tol * max(1.0, abs(ns.objective))
    assert s.objective == pytest.approx(_objective(s.alpha, Q), rel=1e-10)
    # unshrunk once, when the violation went below 10 tol
    assert hist["violation"].min() < 10 * tol
    assert st_["unshrinks"] == 1
    assert ns.stats["shrink_steps"] == ns.stats["unshrinks"] == 0
    assert np.all(ns.stats["history"]["active_size"] == n)


def test_stopped_at_max_iter_under_shrinking_reports_all_variables(shrunk_problem):
    # stopped while variables are set aside: the gradient is rebuilt for all of them and
    # the gap is the violation over all of them
    pr = shrunk_problem
    X, _ = _classification(1, pr["n"], d=5)
    y, C, Q = pr["y"], pr["C"], pr["Q"]
    for k in (1500, 2500, 4500):
        r = _fast.fast_smo(2, X, y, C, pr["tol"], k, kparams=(0.2, 0.0, 3.0), shrinking=True)
        assert r.n_iter == k and not r.converged
        assert r.stats["history"]["active_size"][-1] < pr["n"], "precondition: shrunk"
        assert r.stats["active_size"] == pr["n"]
        _assert_feasible(r.alpha, y, C)
        gap, grad = _kkt_gap(r.alpha, y, Q, C)
        np.testing.assert_allclose(r.grad, grad, rtol=0, atol=1e-8)
        assert r.gap == pytest.approx(gap, rel=1e-9, abs=1e-9)
        assert r.objective == pytest.approx(_objective(r.alpha, Q), rel=1e-10)


def test_estimator_gap_is_over_all_variables(shrunk_problem):
    # the same problem through SVC: gap_ and the objective agree with the recomputation
    pr = shrunk_problem
    y, C, tol = pr["y"], pr["C"], pr["tol"]
    X, _ = _classification(1, pr["n"], d=5)
    est = SVC(kernel="rbf", gamma=0.2, C=C, tol=tol).fit(X, y)
    K = km.rbf_kernel(X, None, gamma=0.2)
    y_pm = np.where(y == est.classes_[1], 1.0, -1.0)
    gap, _ = _kkt_gap(est.alpha_, y_pm, _full_q(K, y_pm), C)
    assert est.solver_stats_["shrink_steps"] > 0
    assert est.gap_ == pytest.approx(gap, abs=1e-9) and gap < tol
    # shrinking=False reaches the solver: nothing set aside, the same optimum
    plain = SVC(kernel="rbf", gamma=0.2, C=C, tol=tol, shrinking=False).fit(X, y)
    assert plain.solver_stats_["shrink_steps"] == plain.solver_stats_["unshrinks"] == 0
    assert np.all(plain.solver_stats_["history"]["active_size"] == pr["n"])
    assert abs(plain.objective_ - est.objective_) <= 2 * tol * abs(est.objective_)


# ---------------------------------------------------------------------------
# 4. the estimators against scikit-learn; parameters; verbose
# ---------------------------------------------------------------------------
STATS_KEYS = {"cache_rows", "row_length", "hits", "misses", "evictions", "shrink_steps",
              "unshrinks", "active_size", "history"}


def _assert_documented_stats(stats: dict) -> None:
    """The keys of ``solver_stats_``: the documented ones, and none undocumented."""
    doc = SVC.__doc__.split("solver_stats_ :")[1].split(" : ")[0]
    assert STATS_KEYS <= set(stats)
    undocumented = {k for k in stats if f"``{k}``" not in doc}
    assert not undocumented, f"keys missing from SVC's docstring: {undocumented}"
    hist = stats["history"]
    assert set(hist) == {"iteration", "active_size", "violation"}
    assert len(hist["iteration"]) == len(hist["active_size"]) == len(hist["violation"])


def _sk():
    return pytest.importorskip("sklearn.svm")


@pytest.mark.parametrize("shrinking, cache_size", [(True, 200.0), (False, 200.0),
                                                   (True, 0.01), (False, 0.01)])
def test_svc_agrees_with_sklearn(shrinking, cache_size):
    sk = _sk()
    X, y = _classification(21, 300, d=4, noise=1.0)
    tol = 1e-3
    kw = dict(kernel="rbf", C=5.0, gamma=0.3, tol=tol, shrinking=shrinking,
              cache_size=cache_size)
    ours = SVC(**kw).fit(X, y)
    ref = sk.SVC(**kw).fit(X, y)
    _assert_documented_stats(ours.solver_stats_)
    if cache_size < 1:
        assert ours.solver_stats_["evictions"] > 0
    K = km.rbf_kernel(X, None, gamma=0.3)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    a_sk = np.zeros(len(y))
    a_sk[ref.support_] = np.abs(ref.dual_coef_[0])
    Q = _full_q(K, y_pm)
    obj_sk = _objective(a_sk, Q)
    assert ours.objective_ == pytest.approx(_objective(ours.alpha_, Q), rel=1e-10)
    assert abs(ours.objective_ - obj_sk) <= 1e-6 * abs(obj_sk)
    f, f_sk = ours.decision_function(X), ref.decision_function(X)
    clear = np.abs(f_sk) > 10 * tol
    np.testing.assert_array_equal(ours.predict(X)[clear], ref.predict(X)[clear])
    np.testing.assert_array_equal(np.sign(f[clear]), np.sign(f_sk[clear]))


@pytest.mark.parametrize("shrinking, cache_size", [(True, 200.0), (False, 0.01)])
def test_svr_agrees_with_sklearn(shrinking, cache_size):
    sk = _sk()
    # (at tol=1e-3 libsvm's float cache leaves its objective 2e-6 to 1e-5 relative away
    # from ours, whose objective is the same with or without shrinking and cache)
    X, z, *_ = _svr_layout(200, 5, 0.1)
    tol = 1e-5
    kw = dict(kernel="rbf", C=10.0, gamma=0.5, epsilon=0.1, tol=tol, shrinking=shrinking,
              cache_size=cache_size)
    ours = SVR(**kw).fit(X, z)
    ref = sk.SVR(**kw).fit(X, z)
    _assert_documented_stats(ours.solver_stats_)
    assert ours.fit_status_ == 0
    assert ours.solver_stats_["row_length"] == 200
    K = km.rbf_kernel(X, None, gamma=0.5)
    c_sk = np.zeros(len(z))
    c_sk[ref.support_] = ref.dual_coef_[0]

    def obj(c):  # 1/2 c^T K c + eps sum|c| - z^T c (alpha and alpha* never both > 0)
        return 0.5 * float(c @ K @ c) + 0.1 * float(np.abs(c).sum()) - float(z @ c)

    c = np.zeros(len(z))
    c[ours.support_] = ours.dual_coef_[0]
    assert ours.objective_ == pytest.approx(obj(c), rel=1e-9)
    assert abs(ours.objective_ - obj(c_sk)) <= 1e-6 * abs(obj(c_sk))
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=0, atol=20 * tol)


def _pair_alpha_sk(est, y, i, j) -> np.ndarray:
    """|coefficients| of libsvm's pair (i, j) from scikit-learn's packed dual_coef_."""
    a = np.zeros(len(y))
    cls = np.searchsorted(est.classes_, y[est.support_])
    on_i, on_j = cls == i, cls == j
    a[est.support_[on_i]] = np.abs(est.dual_coef_[j - 1, on_i])
    a[est.support_[on_j]] = np.abs(est.dual_coef_[i, on_j])
    return a


@pytest.mark.parametrize("shrinking, cache_size", [(True, 200.0), (False, 0.01)])
def test_three_class_svc_agrees_with_sklearn_per_pair(shrinking, cache_size):
    sk = _sk()
    rng = np.random.default_rng(4)
    X = rng.normal(size=(240, 3))
    y = np.digitize(X[:, 0] + 0.4 * rng.normal(size=240), [-0.4, 0.4])
    tol = 1e-3
    kw = dict(kernel="rbf", C=3.0, gamma=0.5, tol=tol, shrinking=shrinking,
              cache_size=cache_size)
    ours = SVC(**kw).fit(X, y)
    ref = sk.SVC(**kw).fit(X, y)
    assert isinstance(ours.solver_stats_, list) and len(ours.solver_stats_) == 3
    for stats in ours.solver_stats_:
        _assert_documented_stats(stats)
    K = km.rbf_kernel(X, None, gamma=0.5)
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        m = (y == i) | (y == j)
        d = np.where(y == i, 1.0, -1.0)
        Q = _full_q(K, d)
        a_sk = _pair_alpha_sk(ref, y, i, j)
        obj_sk = _objective(a_sk[m], Q[np.ix_(m, m)])
        obj_ours = _objective(ours.alpha_[p][m], Q[np.ix_(m, m)])
        assert ours.objective_[p] == pytest.approx(obj_ours, rel=1e-10)
        assert abs(ours.objective_[p] - obj_sk) <= 1e-6 * abs(obj_sk), (p, obj_sk)
    # predictions where every pairwise decision value is clear of 0 (the votes agree)
    ours.set_params(decision_function_shape="ovo")
    ref.set_params(decision_function_shape="ovo")
    f, f_sk = ours.decision_function(X), ref.decision_function(X)
    clear = np.all(np.abs(f_sk) > 10 * tol, axis=1)
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(np.sign(f[clear]), np.sign(f_sk[clear]))
    np.testing.assert_array_equal(ours.predict(X)[clear], ref.predict(X)[clear])


@pytest.mark.parametrize("Est", [SVC, SVR])
@pytest.mark.parametrize("bad", [0, -1, 0.0, math.nan, "big", -math.inf])
def test_bad_cache_size_is_refused(Est, bad):
    X, y = _classification(0, 20)
    with pytest.raises((ValueError, TypeError), match="cache_size"):
        Est(cache_size=bad).fit(X, y)


@pytest.mark.parametrize("Est", [SVC, SVR])
@pytest.mark.parametrize("name", ["shrinking", "verbose"])
@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0])
def test_non_bool_flags_are_refused(Est, name, bad):
    X, y = _classification(0, 20)
    with pytest.raises(TypeError, match=name):
        Est(**{name: bad}).fit(X, y)
    Est(**{name: np.bool_(False)}).fit(X, y)      # numpy's bool is a bool


@pytest.mark.parametrize("Est", [SVC, SVR])
def test_verbose_prints_a_final_line(Est, capsys):
    X, y = _classification(0, 80)
    est = Est(verbose=True).fit(X, y)
    out = capsys.readouterr().out
    last = [line for line in out.splitlines() if line.startswith("SMO done:")]
    assert len(last) == 1, out
    assert f"iteration {int(np.sum(est.n_iter_))}," in last[0]   # SVC: (1,) array, SVR: int
    Est(verbose=False).fit(X, y)
    assert capsys.readouterr().out == ""


def test_fast_smo_report_callback_and_cache_size_reach_the_solver():
    X, y = _classification(0, 80)
    lines = []
    r = _fast.fast_smo(2, X, y, 1.0, 1e-3, NO_LIMIT, kparams=(0.5, 0.0, 3.0), verbose=True,
                       report=lines.append)
    assert lines and lines[-1].startswith(f"SMO done: iteration {r.n_iter},")
    est = SVC(cache_size=TINY_CACHE, shrinking=False).fit(X, y)
    assert est.solver_stats_["cache_rows"] == 2 and est.solver_stats_["active_size"] == 80
    assert SVC().fit(X, y).solver_stats_["cache_rows"] == 80


# ---------------------------------------------------------------------------
# 5. memory: O(n d + cache), never the n x n matrix
# ---------------------------------------------------------------------------
def _load_compiled_code() -> None:
    """Fit once on a tiny problem so that numba's one-time compilation (or load from its
    disk cache), whose allocations tracemalloc would count, happens before measuring."""
    X = np.random.default_rng(1).normal(size=(20, 2))
    SVC(kernel="rbf").fit(X, X[:, 0] > 0)
    SVR(kernel="rbf").fit(X, X[:, 0])


def _peak_mb(fn) -> float:
    _load_compiled_code()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def big_data():
    rng = np.random.default_rng(0)
    n = 4000
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(size=n) > 0, 1.0, -1.0)
    z = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, y, z


def test_svc_memory_stays_far_below_the_gram_matrix(big_data):
    X, y, _ = big_data
    est = SVC(kernel="rbf", cache_size=2)
    peak = _peak_mb(lambda: est.fit(X, y))
    assert est.solver_stats_["cache_rows"] == 2 * 2**20 // (8 * 4000)
    assert est.solver_stats_["evictions"] > 0
    assert peak < 20.0, f"peak {peak:.1f} MiB (the Gram matrix is {4000**2 * 8 / 2**20:.0f})"


def test_svr_memory_stays_far_below_the_gram_matrix(big_data):
    X, _, z = big_data
    est = SVR(kernel="rbf", cache_size=2)
    peak = _peak_mb(lambda: est.fit(X, z))
    assert est.solver_stats_["row_length"] == 4000      # rows of samples, not of 2n variables
    assert est.solver_stats_["cache_rows"] == 2 * 2**20 // (8 * 4000)
    assert peak < 20.0, f"peak {peak:.1f} MiB"


# ---------------------------------------------------------------------------
# 6. non-finite kernel values and gradients
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("Est", [SVC, SVR])
def test_overflowing_poly_kernel_at_fit_is_a_value_error(Est):
    X, y = _classification(0, 30)
    with pytest.raises(ValueError, match="overflow"):
        with np.errstate(over="ignore", invalid="ignore"):
            Est(kernel="poly", degree=3, gamma=1.0).fit(X * 1e120, y)


def _diverging_gram(n: int = 6):
    """A symmetric indefinite matrix, zero diagonal, huge off-diagonal: every curvature
    is clipped to TAU, a step goes to the bound C and the gradient overflows."""
    K = np.full((n, n), 1e300)
    np.fill_diagonal(K, 0.0)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return K, y


def test_gradient_overflow_is_flagged_not_converged():
    # every candidate of I_up has a NaN -y grad, so the selection finds no i (NaN > m is
    # false): without the final check of the whole gradient this read as optimality
    K, y = _diverging_gram()
    with np.errstate(over="ignore", invalid="ignore"):
        r = _fast.fast_smo(4, None, y, 1e10, 1e-3, NO_LIMIT, Kpre=K)
    assert not np.all(np.isfinite(r.grad)), "precondition: the gradient overflowed"
    assert r.nonfinite and not r.converged


def test_gradient_overflow_in_svc_is_a_value_error():
    # (before the fix SVC fitted a NaN intercept silently)
    K, y = _diverging_gram()
    with pytest.raises(ValueError, match="not finite"):
        with np.errstate(over="ignore", invalid="ignore"):
            SVC(kernel="precomputed", C=1e10).fit(K, y)


def test_reference_and_fast_path_solve_an_indefinite_constant_diagonal_kernel():
    # A symmetric matrix with unit diagonal and off-diagonal entries up to 2 is not PSD:
    # some curvatures K_ii + K_tt - 2 K_it are negative. Both solvers clip the curvature
    # to TAU where they use it, and both must still update the gradient with K itself.
    # (smo_solve once clipped its stored matrix H = 1 - K instead, which changed the
    # gradient: it reported -42.9 here, whose alphas give -48.10, against the optimum
    # -48.339 that libsvm and the compiled solver reach.)
    rng = np.random.default_rng(0)
    n = 30
    A = rng.uniform(-2, 2, (n, n))
    K = (A + A.T) / 2
    np.fill_diagonal(K, 1.0)
    y = np.where(rng.normal(size=n) > 0, 1.0, -1.0)
    ref = smo_solve(K, y, 1.0, tol=1e-6)
    fast = _fast.fast_smo(4, None, y, 1.0, 1e-6, NO_LIMIT, Kpre=K)
    sk = pytest.importorskip("sklearn.svm").SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(K, y)
    a = np.zeros(n)
    a[sk.support_] = np.abs(sk.dual_coef_[0])
    Q = np.outer(y, y) * K

    def f(alpha):
        return 0.5 * alpha @ Q @ alpha - alpha.sum()

    for alpha, reported in ((ref.alpha, ref.objective), (fast.alpha, fast.objective)):
        assert f(alpha) == pytest.approx(reported, rel=1e-9)     # objective is its alpha's
        assert f(alpha) == pytest.approx(f(a), rel=1e-6)          # and the optimum


def test_overflow_fallback_respects_gram_limit():
    # kernel rows that overflow fall back on the Gram matrix of ktheory.kernels, but not
    # beyond gram_limit_mb: the refusal names the overflow and computes no n x n matrix
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)) * 1e120
    y = (X[:, 0] > 0).astype(int)
    _load_compiled_code()
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="overflow"):
            with np.errstate(over="ignore", invalid="ignore"):
                SVC(kernel="poly", gamma=1.0, degree=3, gram_limit_mb=0.5).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 400 * 8 / 2       # the 1.2 MiB Gram matrix was never formed


# ---------------------------------------------------------------------------
# 7. the kernel rows' arithmetic: fixed sums, the same on every CPU
# ---------------------------------------------------------------------------
def _rows_by_fill(kind: int, X: np.ndarray, kparams, spans) -> np.ndarray:
    """Rows of the compiled kernel, each filled span by span (as the cache extends a
    prefix row): row ``a`` of the kernel over all samples of ``X``."""
    XT, sq, kp, K2 = _fast._kernel_arrays(kind, X, kparams, 1.0, None)
    n = X.shape[0]
    cols = np.zeros(1, dtype=np.int64)
    out = np.empty((n, n))
    for a in range(n):
        for start, stop in spans:
            assert _fast._fill(kind, XT, sq, kp, K2, a, a, cols, start, stop, out[a])
    return out


def _sequential_dots(X: np.ndarray) -> np.ndarray:
    """``<x_a, x_b>`` summed over the features left to right (``np.add.accumulate`` is
    sequential by definition): the order the compiled kernel promises."""
    prods = X[:, None, :] * X[None, :, :]
    return np.add.accumulate(prods, axis=-1)[..., -1]


@pytest.mark.parametrize("d", [1, 3, 8, 17, 64])
def test_kernel_rows_sum_features_in_order_and_are_exactly_symmetric(d):
    rng = np.random.default_rng(d)
    n = 29
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=d)
    spans = [(0, 5), (5, 13), (13, n)]                 # a row built in three pieces
    lin = _rows_by_fill(0, X, (0.0, 0.0, 1.0), spans)
    assert np.array_equal(lin, _sequential_dots(X))    # bit for bit
    gamma = 0.5 / d
    rbf = _rows_by_fill(2, X, (gamma, 0.0, 1.0), spans)
    sq = np.add.accumulate(X * X, axis=1)[:, -1]
    d2 = np.maximum((sq[:, None] + sq[None, :]) - 2.0 * _sequential_dots(X), 0.0)
    np.testing.assert_allclose(rbf, np.exp(-gamma * d2), rtol=4e-16, atol=0)
    assert np.all(np.diagonal(rbf) == 1.0)
    for kind, kp in ((1, (0.3, 1.0, 3.0)), (3, (0.2, -0.5, 1.0))):
        K = _rows_by_fill(kind, X, kp, spans)
        assert np.array_equal(K, K.T)
        whole = _rows_by_fill(kind, X, kp, [(0, n)])
        assert np.array_equal(K, whole)                # the pieces change no value
    assert np.array_equal(lin, lin.T) and np.array_equal(rbf, rbf.T)
    diag = _fast.kernel_diag(0, X, (0.0, 0.0, 1.0))
    assert np.array_equal(diag, np.diagonal(lin))      # the diagonal's sums are the rows'


_ROWS_PROGRAM = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from test_svm_fast import _rows_by_fill
rng = np.random.default_rng(5)
X = rng.normal(size=(41, 19)) * rng.uniform(0.1, 10.0, size=19)
spans = [(0, 7), (7, 41)]
rows = [_rows_by_fill(k, X, kp, spans) for k, kp in
        ((0, (0.0, 0.0, 1.0)), (1, (0.3, 1.0, 3.0)), (2, (0.05, 0.0, 1.0)),
         (3, (0.2, -0.5, 1.0)))]
np.save(sys.argv[2], np.stack(rows))
"""


def test_kernel_rows_are_the_same_whatever_cpu_numba_compiles_for(tmp_path):
    """The rows' sums are written so that no reordering is allowed (no fast-math), so the
    vector width of the CPU numba compiles for cannot change a bit: compiled for another
    target (``generic``: no AVX), in a fresh cache, the rows are identical."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = os.environ.get("NUMBA_CPU_NAME")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    if here is None:
        env["NUMBA_CPU_NAME"] = "generic"     # else: this run is generic, the other the host
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    out = tmp_path / "rows.npy"
    subprocess.run([sys.executable, "-c", _ROWS_PROGRAM, str(Path(__file__).parent), str(out)],
                   env=env, check=True, timeout=600, capture_output=True)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(41, 19)) * rng.uniform(0.1, 10.0, size=19)
    spans = [(0, 7), (7, 41)]
    mine = np.stack([_rows_by_fill(k, X, kp, spans) for k, kp in
                     ((0, (0.0, 0.0, 1.0)), (1, (0.3, 1.0, 3.0)), (2, (0.05, 0.0, 1.0)),
                      (3, (0.2, -0.5, 1.0)))])
    assert np.array_equal(np.load(out), mine)


def test_the_rows_exp_is_within_one_ulp_of_the_correctly_rounded_value():
    """The RBF rows' ``exp`` (``_exp_nonpositive``: fdlibm's reduction, a Taylor
    polynomial, the power of two built from its bits) against numpy's ``exp`` over the
    whole range where float64's ``exp`` of a non-positive number is not 0, the subnormal
    results included, and at the edges."""
    rng = np.random.default_rng(11)
    x = -np.concatenate([
        rng.uniform(0.0, 746.0, 200_000),
        rng.uniform(0.0, 1.0, 50_000),
        10.0 ** rng.uniform(-300, 0, 50_000),
        np.arange(0.0, 745.0, 0.5 * math.log(2.0)),        # reductions at k's boundaries
        np.linspace(708.0, 745.2, 20_000),                  # subnormal results
    ])
    specials = np.array([0.0, -0.0, -1e-320, -745.13321910194122, -745.2, -746.0, -800.0,
                         -1e300, -np.inf, np.nan])
    x = np.concatenate([x, specials])
    out = np.empty_like(x)
    _fast._exp_nonpositive(x, out, np.empty_like(x), np.empty_like(x))
    with np.errstate(under="ignore"):
        ref = np.exp(x)
    num = ~np.isnan(x)
    assert np.isnan(out[-1]) and np.all(~np.isnan(out[num]))
    ulps = np.abs(out[num] - ref[num]) / np.spacing(np.maximum(ref[num], 5e-324))
    assert ulps.max() <= 1.0
    assert out[-10] == 1.0 and out[-9] == 1.0                   # exp(0) exactly
    assert np.all(out[-5:-1] == 0.0)                             # exp(-inf) and the like


@pytest.mark.parametrize("bad, match", [
    ({"C": np.array([0.5])}, "C must be"),
    ({"p": np.array([-1.0])}, "p must have shape"),
    ({"base": np.arange(40) + 1}, "base must hold"),
    ({"base": np.arange(39)}, "base must hold"),
    ({"diag": np.ones(3)}, "diag must have shape"),
])
def test_arguments_of_the_wrong_shape_are_refused_before_the_compiled_loop(bad, match):
    # the loops index without bounds checks: a short C or p, a base entry beyond the
    # samples would read or write outside the arrays (a crash or a silent NaN), not fail
    X, y = _classification(3, 40)
    kw = {"C": 1.0, **bad}
    C = kw.pop("C")
    with pytest.raises(ValueError, match=match):
        _fast.fast_smo(0, X, y, C, 1e-3, 10_000, **kw)


def test_data_without_a_feature_is_refused():
    y = np.r_[np.ones(5), -np.ones(5)]
    with pytest.raises(ValueError, match="at least one feature"):
        _fast.fast_smo(2, np.zeros((10, 0)), y, 1.0, 1e-3, 1000, kparams=(0.5, 0.0, 3.0))


def test_the_exp_of_a_positive_argument_is_accurate_or_overflows():
    # no RBF row has one, but the function must not turn an overflow into a finite value
    x = np.r_[np.linspace(1e-6, 709.7, 20_000), 710.0, 1e5, 1e300, np.inf]
    out = np.empty_like(x)
    _fast._exp_nonpositive(x, out, np.empty_like(x), np.empty_like(x))
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    fin = np.isfinite(ref)
    assert np.max(np.abs(out[fin] - ref[fin]) / np.spacing(ref[fin])) <= 1.0
    assert np.all(np.isposinf(out[~fin]))


# ---------------------------------------------------------------------------
# 6. the whole Gram matrix (gram) and rows of a matrix less a rank-one term (rank_one),
#    what CentralSVC's compiled path reads
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 5, 128, 300])
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid"])
def test_the_whole_gram_matrix_is_the_kernels_and_exactly_symmetric(kernel, n):
    # n = 300: three blocks of rows, the last one short; n = 128: exactly one
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 4)) * np.array([1.0, 3.0, 0.2, 1.0])
    gamma, coef0, degree = _KERNELS[kernel]
    rows = X - km.reference_point(X) if kernel == "rbf" else X   # as CentralSVC passes them
    K, finite = _fast.gram(_fast.KERNEL_CODES[kernel], rows, (gamma, coef0, float(degree)), 0.25)
    assert finite
    assert np.array_equal(K, K.T)                       # each value computed once
    ref = 0.25 * _gram(kernel, X)
    np.testing.assert_allclose(K, ref, rtol=1e-13, atol=1e-13 * np.abs(ref).max())
    if kernel == "rbf":
        assert np.all(np.diagonal(K) == 0.25)           # exp(0) exactly, then scaled


def test_a_gram_matrix_that_overflows_is_flagged():
    X = np.full((3, 2), 1e60)
    K, finite = _fast.gram(1, X, (1.0, 0.0, 3.0))         # (x . x)^3 ~ 1e363
    assert not finite
    K, finite = _fast.gram(1, np.ones((3, 2)), (1.0, 0.0, 3.0))
    assert finite and np.all(K == 8.0)


@pytest.mark.parametrize("shrinking", [True, False])
def test_rank_one_rows_are_the_formed_matrixs_bit_for_bit(shrinking):
    """``rank_one=h`` forms the rows of ``Kpre - h h'`` as it reads them: the same values,
    bit for bit, as the matrix formed by numpy, so the same iterates, also where shrinking
    permutes the variables (``h`` is indexed by sample, like ``Kpre``: a copy permuted with
    the positions would read the wrong entries)."""
    n, C, tol = 1500, 10.0, 1e-3
    X, y = _classification(1, n, d=5)
    K = km.rbf_kernel(X, None, gamma=0.2)
    w = np.where(y > 0, 1.0 / np.sum(y > 0), 1.0 / np.sum(y < 0)) * y
    g = K @ w
    h = g / np.sqrt(w @ g)                              # K - h h' is PSD (CentralSVC's)
    formed = K - np.outer(h, h)
    a = _fast.fast_smo(4, None, y, C, tol, NO_LIMIT, Kpre=K, rank_one=h, shrinking=shrinking)
    b = _fast.fast_smo(4, None, y, C, tol, NO_LIMIT, Kpre=formed, shrinking=shrinking)
    assert a.converged
    if shrinking:
        assert a.stats["shrink_steps"] > 0, "precondition: shrinking permuted the variables"
    _assert_same_run(a, b)
    gap, _ = _kkt_gap(a.alpha, y, _full_q(formed, y), C)
    assert gap < tol


@pytest.mark.parametrize("bad, match", [
    (dict(kind=2), "rank_one needs kind=4"),
    (dict(h=np.ones(5)), r"shape \(40,\)"),
])
def test_rank_one_of_the_wrong_kind_or_shape_is_refused(bad, match):
    X, y = _classification(3, 40)
    kind, h = bad.get("kind", 4), bad.get("h", np.zeros(40))
    kw = dict(Kpre=X @ X.T) if kind == 4 else dict(kparams=(0.5, 0.0, 3.0))
    with pytest.raises(ValueError, match=match):
        _fast.fast_smo(kind, None if kind == 4 else X, y, 1.0, 1e-3, 1000, rank_one=h, **kw)
