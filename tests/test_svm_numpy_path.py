"""The SVMs without numba: the numpy path against the compiled solver, in one process.

``ktheory.svm._smo._compiled`` returns None where numba cannot be imported; patched to do
so here, ``SVC``, one-vs-one and ``SVR`` solve by the reference SMO on the Gram matrix. The
same problem and stopping rule: objectives within the tolerance, the same predictions
wherever the decision value is clear of it. (``make test-no-numba`` runs the estimators'
whole test files with numba really hidden.)
"""

from __future__ import annotations

import numpy as np
import pytest

from ktheory.svm import SVC, SVR
from ktheory.svm import _smo

TOL = 1e-3


def _numpy_path(monkeypatch):
    monkeypatch.setattr(_smo, "_compiled", lambda: None)


def _data(k: int, n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (np.floor((X[:, 0] + 0.4 * rng.normal(size=n) + 2) * k / 4)).clip(0, k - 1)
    return X, y.astype(int)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "precomputed"])
@pytest.mark.parametrize("k", [2, 3])
def test_svc_numpy_path_matches_the_compiled_solver(monkeypatch, kernel, k):
    X, y = _data(k)
    A = X @ X.T if kernel == "precomputed" else X
    kw = dict(kernel=kernel, C=2.0, tol=TOL, degree=2)
    fast = SVC(**kw).fit(A, y)
    _numpy_path(monkeypatch)
    slow = SVC(**kw).fit(A, y)
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


def test_svr_numpy_path_matches_the_compiled_solver(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 2))
    z = np.sin(X[:, 0]) + 0.1 * rng.normal(size=120)
    fast = SVR(C=3.0, epsilon=0.1, tol=TOL).fit(X, z)
    _numpy_path(monkeypatch)
    slow = SVR(C=3.0, epsilon=0.1, tol=TOL).fit(X, z)
    assert slow.solver_stats_ is None
    assert slow.objective_ == pytest.approx(fast.objective_, rel=2 * TOL)
    np.testing.assert_allclose(slow.predict(X), fast.predict(X), atol=20 * TOL)


def test_numpy_path_refuses_a_gram_matrix_beyond_the_limit(monkeypatch):
    _numpy_path(monkeypatch)
    X, y = _data(2, n=600)
    with pytest.raises(ValueError, match="numba is not installed.*gram_limit_mb"):
        SVC(gram_limit_mb=1).fit(X, y)
