"""The SVMs' two SMO paths: the numpy path against the compiled solver, in one process.

``solver="numpy"`` runs the reference SMO on the Gram matrix, ``solver="compiled"`` numba's
solver; ``"auto"`` picks numpy up to ``NUMPY_MAX_SAMPLES`` samples and where numba cannot be
imported (patched here: ``ktheory.svm._kernel_svm.compiled_solver`` returning None). The
same problem and stopping rule: objectives within the tolerance, the same predictions
wherever the decision value is clear of it. (``make test-no-numba`` runs the estimators'
whole test files with numba really hidden.)
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktheory.svm import SVC, SVR
from ktheory.svm import _kernel_svm

TOL = 1e-3

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:
    HAVE_NUMBA = False


def _numpy_path(monkeypatch):
    monkeypatch.setattr(_kernel_svm, "compiled_solver", lambda: None)


def _data(k: int, n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (np.floor((X[:, 0] + 0.4 * rng.normal(size=n) + 2) * k / 4)).clip(0, k - 1)
    return X, y.astype(int)


@pytest.mark.needs_numba
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "precomputed"])
@pytest.mark.parametrize("k", [2, 3])
def test_svc_numpy_path_matches_the_compiled_solver(kernel, k):
    X, y = _data(k)
    A = X @ X.T if kernel == "precomputed" else X
    kw = dict(kernel=kernel, C=2.0, tol=TOL, degree=2)
    fast = SVC(solver="compiled", **kw).fit(A, y)
    slow = SVC(solver="numpy", **kw).fit(A, y)
    assert slow.solver_stats_ is None or slow.solver_stats_ == [None] * len(slow.solver_stats_)
    obj_f, obj_s = np.atleast_1d(fast.objective_), np.atleast_1d(slow.objective_)
    np.testing.assert_allclose(obj_s, obj_f, rtol=2 * TOL)
    if k > 2:   # every pairwise decision value clear of the tolerance
        fast.set_params(decision_function_shape="ovo")
        clear = np.all(np.abs(fast.decision_function(A)) > 10 * TOL, axis=1)
    else:
        clear = np.abs(fast.decision_function(A)) > 10 * TOL
    np.testing.assert_array_equal(slow.predict(A)[clear], fast.predict(A)[clear])
    assert clear.mean() > 0.8


@pytest.mark.needs_numba
def test_svr_numpy_path_matches_the_compiled_solver():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 2))
    z = np.sin(X[:, 0]) + 0.1 * rng.normal(size=120)
    fast = SVR(C=3.0, epsilon=0.1, tol=TOL, solver="compiled").fit(X, z)
    slow = SVR(C=3.0, epsilon=0.1, tol=TOL, solver="numpy").fit(X, z)
    assert slow.solver_stats_ is None
    assert slow.objective_ == pytest.approx(fast.objective_, rel=2 * TOL)
    np.testing.assert_allclose(slow.predict(X), fast.predict(X), atol=20 * TOL)


def test_numpy_path_refuses_a_gram_matrix_beyond_the_limit(monkeypatch):
    _numpy_path(monkeypatch)
    X, y = _data(2, n=600)
    with pytest.raises(ValueError, match="numba is not installed.*gram_limit_mb"):
        SVC(gram_limit_mb=1).fit(X, y)


@pytest.mark.parametrize("n", [_kernel_svm.NUMPY_MAX_SAMPLES, _kernel_svm.NUMPY_MAX_SAMPLES + 1])
def test_small_problems_solve_with_numpy_and_do_not_import_numba(n):
    """Up to NUMPY_MAX_SAMPLES samples the fit neither imports numba nor waits for it to
    compile; above, the compiled solver runs (where numba is installed)."""
    code = (
        "import sys, numpy as np; from ktheory.svm import SVC\n"
        f"rng = np.random.default_rng(0); X = rng.normal(size=({n}, 2))\n"
        "est = SVC(kernel='linear', tol=1e-2).fit(X, (X[:, 0] > 0).astype(int))\n"
        "print('numba' in sys.modules, est.solver_stats_ is None)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    if n <= _kernel_svm.NUMPY_MAX_SAMPLES:
        assert out == ["False", "True"]
    elif HAVE_NUMBA:
        assert out == ["True", "False"]
    else:
        assert out == ["False", "True"]


def test_compiled_solver_without_numba_says_how_to_get_it(monkeypatch):
    _numpy_path(monkeypatch)
    X, y = _data(2, n=40)
    with pytest.raises(ImportError, match=r"solver='compiled' needs numba.*ktheory\[fast\]"):
        SVC(solver="compiled").fit(X, y)
    assert SVC(solver="auto").fit(X, y).solver_stats_ is None


@settings(max_examples=60, deadline=None)
@given(runs=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8), st.booleans()),
                     min_size=1, max_size=20),
       seed=st.integers(0, 1000))
def test_gather_block_equals_fancy_indexing(runs, seed):
    # one-vs-one's pairs (two runs, reversed), a binary problem (one run), and any index
    # list (more runs than the limit, repeats, direction changes): the values of ix_
    from ktheory.svm._kernel_svm import gather_block

    G = np.random.default_rng(seed).normal(size=(40, 40))
    idx = np.concatenate([np.arange(a, min(a + m, 40))[:: -1 if rev else 1]
                          for a, m, rev in runs])
    got = gather_block(G, idx)
    assert got.flags.c_contiguous and got.dtype == np.float64
    np.testing.assert_array_equal(got, G[np.ix_(idx, idx)])


@settings(max_examples=60, deadline=None)
@given(n=st.one_of(st.integers(0, 70), st.integers(60, 200)), seed=st.integers(0, 1000),
       dtype=st.sampled_from([np.float64, np.float32]))
def test_permute_in_place_equals_fancy_indexing(n, seed, dtype):
    # n > 128 (float64) or n > 181 (float32): the column pass in more than one block
    from ktheory.svm import _core

    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n)).astype(dtype)
    order = rng.permutation(n)
    want = G[np.ix_(order, order)]
    assert _core.permute_in_place(G, order) is G
    np.testing.assert_array_equal(G, want)
    G = rng.normal(size=(n, n))
    want = G[::-1, ::-1].copy()                   # a binary problem's reversed order
    np.testing.assert_array_equal(_core.permute_in_place(G, np.arange(n)[::-1]), want)


def test_permute_in_place_refuses_bad_arguments():
    from ktheory.svm._core import permute_in_place

    with pytest.raises(ValueError, match="C-contiguous 3 x 3"):
        permute_in_place(np.zeros((3, 4)), np.arange(3))
    with pytest.raises(ValueError, match="C-contiguous 3 x 3.*not C-contiguous"):
        permute_in_place(np.zeros((3, 3), order="F"), np.arange(3))
    with pytest.raises(ValueError, match="permutation"):       # would cycle forever
        permute_in_place(np.zeros((2, 2)), np.array([1, 1]))


def test_one_vs_one_linear_kernel_is_precomputed_x_xt_bit_for_bit(monkeypatch):
    """One-vs-one on the numpy path computes the Gram matrix of X as given, then permutes
    it to the grouped order: kernel="linear", a callable returning np.dot(A, B.T) and
    kernel="precomputed" on X @ X.T fit the very same pairs on every BLAS (OpenBLAS's
    SkylakeX kernel rounds X[perm] @ X[perm].T differently from X @ X.T permuted, and the
    two fits then stopped at different points of iris' non-unique linear dual; scikit-
    learn's test_precomputed asserts them equal to 6 decimals). A binary fit and Platt's
    cross-validation folds compute the Gram matrix of their own sample order (for a binary
    fit, permuting X's matrix cost 2.5 ms of 14 at n = 1000), so only one-vs-one's pairs
    are promised bit for bit."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 10**6)   # the numpy path
    rng = np.random.default_rng(42)
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)                # 3 classes
    perm = rng.permutation(y.size)                 # classes interleaved, as a user's data
    X, y = np.ascontiguousarray(X[perm]), y[perm]
    w = rng.uniform(0.5, 2.0, size=y.size)
    for sw in (None, w):
        fits = [SVC(kernel="linear").fit(X, y, sample_weight=sw),
                SVC(kernel=lambda A, B: np.dot(A, B.T)).fit(X, y, sample_weight=sw),
                SVC(kernel="precomputed").fit(np.dot(X, X.T), y, sample_weight=sw)]
        for other in fits[1:]:
            np.testing.assert_array_equal(other.support_, fits[0].support_)
            np.testing.assert_array_equal(other.dual_coef_, fits[0].dual_coef_)
            np.testing.assert_array_equal(other.intercept_, fits[0].intercept_)
