"""CentralSVC's ``solver``: the compiled first round against the numpy one.

The two solvers take different steps (libsvm's selection with shrinking against the
numpy SMO), so their points are compared by what is unique: the weight vector ``w`` of
the primal (``1/2 ||w||^2`` is 1-strongly convex, so a point certified to a relative gap
``g`` with primal objective ``P`` is within ``sqrt(2 g P)`` of the optimal ``w`` in the
kernel's feature space) and the objective (``|P_1 - P_2| <= g_1 P_1 + g_2 P_2``), with ``g``
the bound each fit certified (``duality_gap_ <= gap_bound_``, which holds for both). Without numba (``make
test-no-numba``) the tests that need the compiled solver are skipped by name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktheory.csvm as csvm_mod
from ktheory.csvm import CentralSVC
from ktheory.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from ktheory.svm import ConvergenceWarning


def blobs(n, sep=1.0, d=3, seed=0):
    rng = np.random.default_rng(seed)
    npos = n // 2 + n // 7
    X = np.vstack([rng.normal(size=(npos, d)) + sep, rng.normal(size=(n - npos, d)) - sep])
    return X, np.r_[np.ones(npos), -np.ones(n - npos)]


def gram(clf, X):
    if clf.kernel == "linear":
        return linear_kernel(X, X)
    if clf.kernel == "rbf":
        return rbf_kernel(X, X, gamma=clf.gamma_)
    return polynomial_kernel(X, X, degree=clf.degree, gamma=clf.gamma_, coef0=clf.coef0)


def count_numpy_steps(monkeypatch) -> list[int]:
    """The steps of each numpy SMO round of the next fits (a list filled as they run)."""
    steps: list[int] = []
    real = csvm_mod._smo

    def counting(*args, **kwargs):
        out = real(*args, **kwargs)
        steps.append(out[2])
        return out

    monkeypatch.setattr(csvm_mod, "_smo", counting)
    return steps


def assert_same_optimum(a, b, X):
    """Both certified, and the same w and objective to what their certificates allow."""
    for clf in (a, b):
        assert clf.duality_gap_ <= clf.gap_bound_
    # what each certificate guarantees: P - P* <= gap_bound_ * P (the evaluated gap is below
    # its bound, which includes the rounding level of the gap's own evaluation)
    slack_a = a.gap_bound_ * a.primal_objective_
    slack_b = b.gap_bound_ * b.primal_objective_
    assert abs(a.primal_objective_ - b.primal_objective_) <= (slack_a + slack_b) * 1.01 + 1e-14
    dc = a.sample_coef_ - b.sample_coef_
    dist2 = max(float(dc @ gram(a, X) @ dc), 0.0)      # ||w_a - w_b||^2 in feature space
    bound = (np.sqrt(2 * slack_a) + np.sqrt(2 * slack_b)) ** 2
    assert dist2 <= bound * 1.01 + 1e-12 * max(1.0, float(a.sample_coef_ @ a.sample_coef_))
    # the predictions where the decision value is not within the w-ambiguity of 0
    fa, fb = a.decision_function(X), b.decision_function(X)
    clear = np.minimum(np.abs(fa), np.abs(fb)) > 1e-3 * np.abs(fa).max()
    assert np.array_equal(np.sign(fa[clear]), np.sign(fb[clear]))


@pytest.mark.needs_numba
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("C", [1.0, 1e3, 1e8])
def test_compiled_and_numpy_reach_the_same_certified_optimum(kernel, C):
    X, y = blobs(80, seed=3)
    kw = dict(C=C, epsilon=0.3, kernel=kernel, gamma=0.5, coef0=1.0, degree=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)   # weak certificates at C = 1e8
        a = CentralSVC(solver="numpy", **kw).fit(X, y)
        b = CentralSVC(solver="compiled", **kw).fit(X, y)
    assert_same_optimum(a, b, X)


@pytest.mark.needs_numba
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60), sep=st.floats(0.0, 2.0),
       kernel=st.sampled_from(["linear", "rbf"]), C=st.sampled_from([0.1, 1.0, 100.0]),
       eps=st.sampled_from([0.05, 0.25, 0.5]))
def test_property_compiled_and_numpy_agree(seed, n, sep, kernel, C, eps):
    X, y = blobs(n, sep=sep, d=2, seed=seed)
    kw = dict(C=C, epsilon=eps, kernel=kernel, gamma=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = CentralSVC(solver="numpy", **kw).fit(X, y)
        b = CentralSVC(solver="compiled", **kw).fit(X, y)
    assert_same_optimum(a, b, X)


@pytest.mark.needs_numba
def test_at_the_benchmark_size_auto_is_compiled_and_agrees_with_numpy():
    # the data of benchmarks/bench_csvm.py at n = 1000 (COMPILED_MIN_SAMPLES): auto takes the
    # compiled solver there, the numpy SMO reaches the same certified optimum
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1000, 20))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    y = (score > 0).astype(int)
    kw = dict(C=1.0, epsilon=0.3, kernel="rbf", gamma=0.05, tol=1e-8)
    auto = CentralSVC(**kw).fit(X, y)
    compiled = CentralSVC(solver="compiled", **kw).fit(X, y)
    np.testing.assert_array_equal(auto.alpha_, compiled.alpha_)   # the same path
    assert_same_optimum(auto, CentralSVC(solver="numpy", **kw).fit(X, y), X)


@pytest.mark.needs_numba
def test_auto_is_numpy_below_the_threshold_and_compiled_from_it(monkeypatch):
    monkeypatch.setattr(csvm_mod, "COMPILED_MIN_SAMPLES", 40)
    for n, same in ((39, "numpy"), (40, "compiled")):
        X, y = blobs(n, seed=n)
        kw = dict(C=10.0, epsilon=0.3, kernel="rbf", gamma=0.7)
        auto = CentralSVC(**kw).fit(X, y)
        ref = CentralSVC(solver=same, **kw).fit(X, y)
        np.testing.assert_array_equal(auto.alpha_, ref.alpha_)
        assert auto.n_iter_ == ref.n_iter_


def test_without_numba_compiled_is_refused_and_auto_solves_with_numpy(monkeypatch):
    monkeypatch.setattr(csvm_mod, "compiled_solver", lambda: None)
    monkeypatch.setattr(csvm_mod, "COMPILED_MIN_SAMPLES", 10)
    X, y = blobs(30, seed=1)
    with pytest.raises(ImportError, match=r"solver='compiled' needs numba.*ktheory\[fast\]"):
        CentralSVC(solver="compiled").fit(X, y)
    auto = CentralSVC(C=5.0).fit(X, y)
    ref = CentralSVC(C=5.0, solver="numpy").fit(X, y)
    np.testing.assert_array_equal(auto.alpha_, ref.alpha_)
    assert auto.duality_gap_ <= auto.gap_bound_


@pytest.mark.needs_numba
def test_a_non_finite_compiled_round_falls_back_on_numpy(monkeypatch):
    from ktheory.svm import _fast

    real = _fast.fast_smo

    def broken(*args, **kwargs):
        res = real(*args, **kwargs)
        res.nonfinite = True
        return res

    monkeypatch.setattr(_fast, "fast_smo", broken)
    starts = []
    real_smo = csvm_mod._smo

    def spy(Q, p, y, C, target, max_iter, alpha=None, G=None):
        starts.append(alpha is None)
        return real_smo(Q, p, y, C, target, max_iter, alpha, G)

    monkeypatch.setattr(csvm_mod, "_smo", spy)
    X, y = blobs(50, seed=2)
    got = CentralSVC(C=3.0, kernel="rbf", gamma=0.5, solver="compiled").fit(X, y)
    assert starts and starts[0], "the numpy SMO solves from alpha = 0"
    ref = CentralSVC(C=3.0, kernel="rbf", gamma=0.5, solver="numpy").fit(X, y)
    # the compiled path's own Gram matrix and its unformed K - h h': the same optimum to
    # the rounding of the kernel values, not bit for bit
    assert got.duality_gap_ <= got.gap_bound_
    np.testing.assert_allclose(got.alpha_, ref.alpha_, rtol=0, atol=1e-9 * ref.alpha_.max())
    assert got.primal_objective_ == pytest.approx(ref.primal_objective_, rel=1e-9)
    np.testing.assert_array_equal(got.predict(X), ref.predict(X))


def test_hard_margin_is_solved_by_numpy_with_either_solver(monkeypatch):
    # C = inf never reaches the compiled solver (the numpy SMO detects an unbounded dual),
    # not with "compiled", nor with "auto" above its threshold: the numpy path's very alpha
    monkeypatch.setattr(csvm_mod, "COMPILED_MIN_SAMPLES", 10)
    monkeypatch.setattr(csvm_mod, "compiled_solver", lambda: object())   # "numba is here"

    def never(*args, **kwargs):
        raise AssertionError("the compiled solver was called with C = inf")

    monkeypatch.setattr(csvm_mod, "_compiled_smo", never)
    X, y = blobs(30, sep=3.0, seed=4)
    a = CentralSVC(C=np.inf, solver="numpy").fit(X, y)
    for solver in ("auto", "compiled"):
        b = CentralSVC(C=np.inf, solver=solver).fit(X, y)
        np.testing.assert_array_equal(a.alpha_, b.alpha_)


@pytest.mark.parametrize("solver,err,match", [
    ("fast", ValueError, "solver must be 'auto', 'numpy' or 'compiled', got 'fast'"),
    (1, TypeError, "solver must be 'auto', 'numpy' or 'compiled' \\(a str\\), got int 1"),
    (None, TypeError, "got NoneType None"),
])
def test_bad_solver_is_named(solver, err, match):
    X, y = blobs(20)
    with pytest.raises(err, match=match):
        CentralSVC(solver=solver).fit(X, y)


def test_the_compiled_matrix_is_signed_back_exactly():
    # the projected matrix is signed in place ((y y') * K~, with y of +-1): exact, and its
    # own inverse, so the numpy SMO reads the same Qt as before the change
    rng = np.random.default_rng(0)
    M = rng.normal(size=(7, 7))
    s = np.where(rng.random(7) < 0.5, -1.0, 1.0)
    want = (s[:, None] * s[None, :]) * M
    got = csvm_mod._signed_in_place(M.copy(), s)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(csvm_mod._signed_in_place(got, s), M)
    K = rng.normal(size=(300, 300))
    np.testing.assert_array_equal(csvm_mod._symmetrise(K.copy(), block=64), (K + K.T) / 2)


@pytest.mark.needs_numba
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_the_compiled_round_does_the_work(monkeypatch, kernel):
    # the numpy rounds after it only polish: a compiled round that solved the wrong problem
    # would still be certified (the numpy rounds would finish the job), so this is what
    # shows the compiled steps are the CSVM's
    numpy_steps = count_numpy_steps(monkeypatch)
    X, y = blobs(300, sep=0.7, seed=5)
    clf = CentralSVC(C=1.0, epsilon=0.3, kernel=kernel, gamma=0.5, tol=1e-6,
                     solver="compiled").fit(X, y)
    assert clf.duality_gap_ <= clf.gap_bound_
    assert clf.n_iter_ > 100
    assert sum(numpy_steps) <= 0.02 * clf.n_iter_, (numpy_steps, clf.n_iter_)


@pytest.mark.needs_numba
def test_a_stalled_compiled_round_takes_face_steps_and_goes_on_compiled(monkeypatch):
    """The benchmark's data with a linear kernel (the projected kernel of rank d - 1: SMO
    zig-zags on a degenerate face): where the compiled round stalls it moves the free
    multipliers by face steps and resumes, compiled, instead of leaving the rest to the
    numpy SMO (which took 2500 steps, 0.1 s, at n = 1000); the same certified optimum.

    Whether the solver's own test declares the stall here depends on the last bits of the
    kernel values (the violation zig-zags, and a window's end may catch it low), so the
    stall is declared for it: the first run stops after 15 000 steps, marked stalled, as
    the solver marks it (its stall detection is tested with :mod:`ktheory.svm._fast`)."""
    from ktheory.svm import _fast

    numpy_steps = count_numpy_steps(monkeypatch)
    warm_starts = []
    real = _fast.fast_smo

    def spy(*args, **kwargs):
        warm = kwargs.get("warm") is not None
        warm_starts.append(warm)
        if warm:
            return real(*args, **kwargs)
        args = list(args)
        args[5] = min(args[5], 15_000)                  # max_iter
        res = real(*args, **kwargs)
        assert not res.converged, "precondition: 15 000 steps do not solve it"
        res.stats["stalled"] = True
        return res

    monkeypatch.setattr(_fast, "fast_smo", spy)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1000, 20))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    y = (score > 0).astype(int)
    kw = dict(C=1.0, epsilon=0.3, kernel="linear", tol=1e-3)
    comp = CentralSVC(solver="compiled", **kw).fit(X, y)
    assert warm_starts == [False, True]               # stalled, face steps, resumed warm
    assert sum(numpy_steps) <= 0.02 * comp.n_iter_, (numpy_steps, comp.n_iter_)
    assert_same_optimum(comp, CentralSVC(solver="numpy", **kw).fit(X, y), X)


@pytest.mark.needs_numba
def test_at_a_large_C_a_second_stall_is_left_to_the_numpy_rounds():
    """At C = 1e8 (linear kernel) the compiled SMO stalls again after its face steps; its
    point goes to the numpy rounds, which certify it within max_iter (compiled rounds of
    face steps repeated until they stop stalling spent 20 000 steps each and did not)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 20))
    score = X[:, 0] * X[:, 1] + 0.5 * np.sin(2 * X[:, 2]) + 0.3 * X[:, 3:8].sum(axis=1)
    y = (score > 0).astype(int)
    kw = dict(C=1e8, epsilon=0.3, kernel="linear", tol=1e-3, max_iter=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        comp = CentralSVC(solver="compiled", **kw).fit(X, y)
    assert comp.duality_gap_ <= comp.gap_bound_ <= 1e-3
    assert_same_optimum(comp, CentralSVC(solver="numpy", **kw).fit(X, y), X)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40))
def test_the_unformed_projected_matrix_is_the_formed_one(seed, n):
    """``_LowRankQ`` (the compiled path's ``Qt = (y y') * (K - h h')``, never formed) against
    ``_DenseQ`` (the matrix formed and signed, the numpy path's): rows, columns, products
    and diagonal, to rounding; ``qmax`` bounds the formed matrix's largest entry."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[0], y[-1] = 1.0, -1.0
    K = rbf_kernel(X, X, gamma=0.7)
    l, g, sq = csvm_mod._centre_terms(K, y)
    h = g / np.sqrt(sq)
    dense = csvm_mod._DenseQ(
        csvm_mod._signed_in_place(K - np.outer(h, h), y))
    low = csvm_mod._LowRankQ(K, h, y)
    tol = 1e-14 * max(1.0, float(np.max(h * h)))
    F = np.flatnonzero(rng.random(n) < 0.5)
    a = rng.random(n)
    for i in (0, n // 2, n - 1):                  # the signs are exact: bit for bit
        np.testing.assert_array_equal(low.row(i), dense.row(i))
    np.testing.assert_array_equal(low.cols(F), dense.cols(F))
    np.testing.assert_array_equal(low.diag, dense.diag)
    np.testing.assert_allclose(low.matvec(a), dense.matvec(a), rtol=0, atol=tol * n * a.max())
    assert dense.qmax <= low.qmax * (1 + 1e-15)


def test_the_unformed_matrixs_scale_is_read_from_k_where_it_is_not_psd():
    # (x.z - 1)^3 is no kernel: |K_ij| exceeds max K_ii, and the rounding floor must see it
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3)) * 0.5
    y = np.where(np.arange(30) < 14, 1.0, -1.0)
    K = (X @ X.T - 1.0) ** 3                  # opposite points: |(-|x||z| - 1)^3| > |(|x|^2 - 1)^3|
    l, g, sq = csvm_mod._centre_terms(K, y)
    h = g / np.sqrt(sq)
    dense = csvm_mod._DenseQ(csvm_mod._signed_in_place(K - np.outer(h, h), y))
    assert np.abs(K).max() > np.abs(np.diag(K)).max()          # precondition
    low = csvm_mod._LowRankQ(K, h, y, psd=False)
    assert low.qmax == np.abs(K).max() + np.max(h * h)         # the largest term of each part
    assert dense.qmax <= low.qmax * (1 + 1e-15)
    assert csvm_mod._LowRankQ(K, h, y).qmax < low.qmax         # what psd=True would miss


@pytest.mark.needs_numba
def test_the_compiled_path_computes_its_gram_matrix_itself_where_it_agrees(monkeypatch):
    """The compiled path's Gram matrix by the compiled kernel code (:func:`_fast.gram`) for
    the RBF kernel on data of ordinary scale, translated far from the origin too (its rows
    are centred, as :func:`ktheory.kernels.rbf_kernel`'s), and by ``ktheory.kernels``
    where that kernel recomputes near pairs' distances (data far from their mean against
    the kernel's width), so that both agree with it to rounding."""
    from ktheory.svm import _fast

    calls = []
    real = _fast.gram
    monkeypatch.setattr(_fast, "gram", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    X, y = blobs(120, sep=0.8, seed=7)
    kw = dict(C=10.0, epsilon=0.3, kernel="rbf", gamma=0.5, solver="compiled", tol=1e-10)
    base = CentralSVC(**kw).fit(X, y)
    far = CentralSVC(**kw).fit(X + 1e6, y)
    assert calls == [2, 2]
    assert_same_optimum(base, CentralSVC(**(kw | {"solver": "numpy"})).fit(X, y), X)
    # translation: the same problem, to the rounding of the centred rows
    np.testing.assert_allclose(far.alpha_, base.alpha_, rtol=0, atol=1e-8 * base.alpha_.max())
    assert far.primal_objective_ == pytest.approx(base.primal_objective_, rel=1e-9)
    # spread over 1e5 against a width of 1: ktheory.kernels computes it
    Xw = X.copy()
    Xw[0] += 1e5
    calls.clear()
    wide = CentralSVC(**kw).fit(Xw, y)
    assert calls == []
    assert wide.duality_gap_ <= wide.gap_bound_


@pytest.mark.needs_numba
def test_a_certified_compiled_point_is_returned_as_it_is(monkeypatch):
    """The compiled round's point is checked first (its violation on the gradient recomputed
    from alpha, then the certificate): where both hold no numpy round runs at all; where
    the check fails (here: a compiled round stopped early, at max_iter's share) the numpy
    SMO goes on from that point and the fit still certifies."""
    numpy_steps = count_numpy_steps(monkeypatch)
    X, y = blobs(300, sep=0.7, seed=5)
    kw = dict(C=1.0, epsilon=0.3, kernel="rbf", gamma=0.5, tol=1e-3, solver="compiled")
    clf = CentralSVC(**kw).fit(X, y)
    assert clf.duality_gap_ <= clf.gap_bound_
    assert numpy_steps == []                    # _smo never called
    real = csvm_mod._compiled_smo
    monkeypatch.setattr(csvm_mod, "_compiled_smo",
                        lambda Q, s, C, p, target, max_iter, fast:
                        real(Q, s, C, p, target, 20, fast))
    early = CentralSVC(**kw).fit(X, y)
    assert len(numpy_steps) >= 1 and numpy_steps[0] > 0
    assert early.duality_gap_ <= early.gap_bound_
    assert_same_optimum(early, clf, X)


@pytest.mark.needs_numba
def test_a_compiled_round_that_spends_max_iter_reports_its_violation():
    X, y = blobs(200, seed=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=5 SMO steps exhausted") as rec:
        clf = CentralSVC(C=10.0, kernel="rbf", gamma=0.5, solver="compiled", max_iter=5).fit(X, y)
    assert clf.n_iter_ == 5
    assert np.isfinite(clf.kkt_violation_) and clf.kkt_violation_ > 0
    assert "KKT violation inf" not in str(rec[0].message)
