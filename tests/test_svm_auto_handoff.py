"""``solver="auto"``: the numpy path for small problems, handed to the compiled solver
(from the start) when it needs more than ``AUTO_NUMPY_ITER`` iterations (issue 29: raw
breast_cancer with a linear kernel at C = 100 needs 4e8 SMO iterations, hours on the numpy
path)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ktheory.svm import SVC, SVR, ConvergenceWarning
from ktheory.svm import _kernel_svm

pytestmark = pytest.mark.needs_numba

R = np.random.default_rng(4)
X = R.normal(size=(120, 3)) * [1.0, 30.0, 0.1]
Y = (X[:, 0] + 0.05 * X[:, 1] + R.normal(size=120) > 0).astype(int)
Z = X[:, 0] + 0.02 * X[:, 1] + 0.3 * R.normal(size=120)


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(_kernel_svm, "AUTO_NUMPY_ITER", 20)
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)


@pytest.mark.parametrize("Est,target", [(SVC, Y), (SVR, Z)])
def test_long_numpy_run_is_handed_to_the_compiled_solver(small_budget, Est, target):
    """Past the budget the fit is the compiled solver's (it reports solver_stats_, the
    numpy path None), with no ConvergenceWarning from the abandoned numpy run, and the
    same solution as solver="compiled"."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        auto = Est(kernel="linear", C=10.0, tol=1e-8).fit(X, target)
    comp = Est(kernel="linear", C=10.0, tol=1e-8, solver="compiled").fit(X, target)
    assert np.all(auto.n_iter_ > 20) and auto.solver_stats_ is not None
    assert np.array_equal(auto.n_iter_, comp.n_iter_)   # SVC: (1,) array, SVR: int
    np.testing.assert_allclose(auto.dual_coef_, comp.dual_coef_, rtol=0, atol=1e-12)


def test_short_runs_stay_on_the_numpy_path(monkeypatch):
    """Within the budget nothing changes: the numpy path's fit (no solver_stats_)."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    est = SVC(kernel="rbf", C=1.0).fit(X, Y)
    assert np.all(est.n_iter_ < _kernel_svm.AUTO_NUMPY_ITER) and est.solver_stats_ is None


def test_user_limit_within_the_budget_is_the_numpy_paths(small_budget):
    """A max_iter the user sets at or below the budget stays on the numpy path (and warns
    there when reached)."""
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = SVC(kernel="linear", C=10.0, max_iter=15).fit(X, Y)
    assert est.solver_stats_ is None


def test_one_vs_one_spends_one_budget_over_all_its_pairs(monkeypatch):
    """The budget is the fit's, not each pair's: the pairs solved on the numpy path spend
    at most AUTO_NUMPY_ITER iterations together; the pair that exhausts it is solved again
    compiled, and so is every later pair (no second numpy run before a hand-over)."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    rng = np.random.default_rng(7)
    Xm = rng.normal(size=(150, 2))
    ym = np.digitize(Xm[:, 0] + 0.8 * rng.normal(size=150), [-0.5, 0.5])
    free = SVC(kernel="rbf", C=100.0, tol=1e-6, solver="numpy").fit(Xm, ym)
    per_pair = free.n_iter_
    budget = int(per_pair[0] + per_pair[1] // 2)   # pair 0 fits, pair 1 exhausts it
    monkeypatch.setattr(_kernel_svm, "AUTO_NUMPY_ITER", budget)
    auto = SVC(kernel="rbf", C=100.0, tol=1e-6).fit(Xm, ym)
    comp = SVC(kernel="rbf", C=100.0, tol=1e-6, solver="compiled").fit(Xm, ym)
    compiled = [s is not None and bool(s) for s in auto.solver_stats_]
    assert compiled == [False, True, True]
    assert auto.n_iter_[0] == per_pair[0]
    # the compiled pairs read the numpy path's Gram matrix, solver="compiled" its own rows:
    # the same problems, optima within the tolerance (iterates may part at a near-tie)
    np.testing.assert_allclose(auto.objective_, comp.objective_, rtol=1e-6)


def test_without_numba_the_numpy_path_runs_once(small_budget, monkeypatch):
    """Where numba is not installed no budget is spent on a hand-over that cannot happen:
    one numpy run, to the end (before: the budget's run, thrown away, then a second)."""
    monkeypatch.setattr(_kernel_svm, "_numba_installed", lambda: False)
    calls = []
    real = _kernel_svm.KernelSVMBase._dual_numpy
    monkeypatch.setattr(_kernel_svm.KernelSVMBase, "_dual_numpy",
                        lambda *a, **k: calls.append(a[7]) or real(*a, **k))
    est = SVC(kernel="linear", C=10.0, tol=1e-8).fit(X, Y)
    assert len(calls) == 1 and est.solver_stats_ is None and est.n_iter_[0] > 20


@pytest.mark.process_rule
def test_after_a_compiled_solve_small_fits_are_compiled(monkeypatch):
    """Once a compiled solve has run in the process, numba's load is paid: solver="auto"
    solves a small set compiled (the same steps as solver="compiled"); before, with numpy,
    also though the compiled solver's module is imported (the import alone is about half
    of the load: the code itself loads at the first solve)."""
    from ktheory.svm import _fast  # noqa: F401  imported, not run

    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    fresh = SVC(kernel="rbf", C=1.0, tol=1e-6).fit(X, Y)
    comp = SVC(kernel="rbf", C=1.0, tol=1e-6, solver="compiled").fit(X, Y)
    after = SVC(kernel="rbf", C=1.0, tol=1e-6).fit(X, Y)
    assert fresh.solver_stats_ is None and after.solver_stats_ is not None
    assert np.array_equal(after.n_iter_, comp.n_iter_)
    np.testing.assert_allclose(after.objective_, fresh.objective_, rtol=1e-6)
    assert SVR(kernel="rbf").fit(X, Z).solver_stats_ is not None
    # an explicit solver="numpy" stays on numpy
    assert SVC(kernel="rbf", C=1.0, tol=1e-6, solver="numpy").fit(X, Y).solver_stats_ is None


@pytest.mark.process_rule
def test_a_compiled_centralsvc_round_counts_as_a_compiled_solve(monkeypatch):
    """CentralSVC's compiled round loads the same compiled code: after it, small SVC fits
    under "auto" are compiled too (the mark is the compiled solver's own, whoever calls it)."""
    from ktheory.csvm import CentralSVC

    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is None
    CentralSVC(kernel="rbf", solver="compiled").fit(X, Y)
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is not None


@pytest.mark.process_rule
def test_without_the_process_rule_each_fit_has_its_own_budget(monkeypatch):
    """The tests' default (_PROCESS_WIDE = False, see conftest) is the rule of a fresh
    process's first fit, whatever ran before: a spent budget and a compiled solve are
    ignored."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    monkeypatch.setattr(_kernel_svm, "_PROCESS_SPENT", [10 * _kernel_svm.AUTO_NUMPY_ITER])
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is not None
    monkeypatch.setattr(_kernel_svm, "_PROCESS_WIDE", False)
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is None
    assert _kernel_svm._PROCESS_SPENT[0] == 10 * _kernel_svm.AUTO_NUMPY_ITER   # not counted


@pytest.mark.process_rule
def test_a_failed_import_of_the_compiled_solver_is_not_retried(monkeypatch):
    """numba found but not importable (make test-no-numba's stand-in): the first failed
    import is remembered; later problems and fits go to numpy without trying again."""
    import builtins

    monkeypatch.setattr(_kernel_svm, "_PROCESS_SPENT", [10 * _kernel_svm.AUTO_NUMPY_ITER])
    monkeypatch.setattr(_kernel_svm, "_numba_installed", lambda: True)
    tries = []
    real_import = builtins.__import__

    def failing(name, globals=None, locals=None, fromlist=(), level=0):
        if fromlist and "_fast" in fromlist and level == 1:
            tries.append(name)
            raise ImportError("numba is broken here")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", failing)
    Xm = np.vstack([X, X + 3.0])
    ym = np.r_[Y, Y + 2]                      # 4 classes: 6 pairs
    est = SVC(kernel="rbf").fit(Xm, ym)
    est2 = SVC(kernel="rbf").fit(X, Y)
    assert len(tries) == 1 and _kernel_svm._IMPORT_FAILED[0]
    assert all(s is None for s in est.solver_stats_) and est2.solver_stats_ is None


@pytest.mark.process_rule
def test_the_numpy_budget_is_the_processs_not_each_fits(monkeypatch):
    """The budget counts the process's "auto" fits together (renting skis until the rent
    equals the price): the fit that exhausts it hands over, and later fits are compiled
    from the start, with no numpy run; solver="numpy" fits spend nothing of it."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    one = SVC(kernel="linear", C=10.0, tol=1e-6, solver="numpy").fit(X, Y).n_iter_[0]
    assert _kernel_svm._PROCESS_SPENT[0] == 0
    monkeypatch.setattr(_kernel_svm, "AUTO_NUMPY_ITER", int(1.5 * one))
    calls = []
    real = _kernel_svm.KernelSVMBase._dual_numpy
    monkeypatch.setattr(_kernel_svm.KernelSVMBase, "_dual_numpy",
                        lambda *a, **k: calls.append(a[7]) or real(*a, **k))
    fits = [SVC(kernel="linear", C=10.0, tol=1e-6).fit(X, Y) for _ in range(3)]
    compiled = [f.solver_stats_ is not None for f in fits]
    assert compiled == [False, True, True]
    # fit 1 to the end on numpy; fit 2 spends the half budget left, then is compiled; fit 3
    # never touches numpy
    assert calls == [int(1.5 * one), int(1.5 * one) - one]
    assert _kernel_svm._PROCESS_SPENT[0] == int(1.5 * one)
    for f in fits[1:]:
        np.testing.assert_allclose(f.objective_, fits[0].objective_, rtol=1e-6)


@pytest.mark.process_rule
def test_without_numba_the_process_budget_never_switches(monkeypatch):
    """The state of a process with numba says compiled; without numba it cannot."""
    monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 2048)
    monkeypatch.setattr(_kernel_svm, "_PROCESS_SPENT", [10 * _kernel_svm.AUTO_NUMPY_ITER])
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is not None
    monkeypatch.setattr(_kernel_svm, "_numba_installed", lambda: False)
    assert SVC(kernel="rbf").fit(X, Y).solver_stats_ is None
    assert SVR(kernel="rbf").fit(X, Z).solver_stats_ is None


def test_in_a_fresh_process_small_fits_are_numpy_until_a_compiled_solve_has_run():
    """The real process state (no fixture): a first small fit does not import numba; once a
    compiled solve has run, small fits under "auto" are compiled."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np; from ktheory.svm import SVC\n"
        "rng = np.random.default_rng(0); X = rng.normal(size=(300, 2)); y = (X[:, 0] > 0).astype(int)\n"
        "out = [SVC().fit(X, y).solver_stats_ is None, 'numba' in sys.modules]\n"
        "SVC(solver='compiled').fit(X[:50], y[:50])\n"
        "out.append(SVC().fit(X, y).solver_stats_ is None)\n"
        "print(*out)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out == ["True", "False", "False"]
