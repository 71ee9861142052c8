"""Shared pytest set-up: the ``needs_numba`` marker.

``make test-no-numba`` runs the SVM estimators' tests with numba hidden
(``tests/_no_numba`` first on ``PYTHONPATH``), as on a machine without it, where the
estimators solve with numpy. A test of what only the compiled solver does (kernel rows on
demand, its memory, its statistics) is marked ``needs_numba`` and is skipped there, by
name. Where numba is installed such a test runs with the compiled solver on every problem
size (``NUMPY_MAX_SAMPLES = 0``: by default training sets of up to 2048 samples are solved
on the numpy path).

``solver="auto"`` also depends on what the process did before (whether a compiled solve has
run, how many numpy iterations its earlier fits spent). The tests run without that history
(``_PROCESS_WIDE = False``: each fit has its own numpy budget, as the first fit of a fresh
process has), so that a test's result does not depend on which tests ran before it in the same
worker, nor on how many Hypothesis examples came before; the tests of the process's rule are
marked ``process_rule`` and start from a fresh process's state (nothing run, nothing spent).
"""

from __future__ import annotations

import sys

import pytest

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:
    HAVE_NUMBA = False


@pytest.fixture(autouse=True)
def _auto_solver_without_process_history(request, monkeypatch):
    from ktheory.svm import _kernel_svm

    monkeypatch.setattr(_kernel_svm, "_PROCESS_SPENT", [0])
    fast = sys.modules.get("ktheory.svm._fast")   # imported by an earlier test: not run yet
    if fast is not None:
        monkeypatch.setattr(fast, "RAN", [False])
    monkeypatch.setattr(_kernel_svm, "_IMPORT_FAILED", [False])
    monkeypatch.setattr(_kernel_svm, "_PROCESS_WIDE",
                        request.node.get_closest_marker("process_rule") is not None)


@pytest.fixture(autouse=True)
def _compiled_solver_for_needs_numba(request, monkeypatch):
    if request.node.get_closest_marker("needs_numba") is not None:
        from ktheory.svm import _kernel_svm

        monkeypatch.setattr(_kernel_svm, "NUMPY_MAX_SAMPLES", 0)


def pytest_collection_modifyitems(config, items):
    if HAVE_NUMBA:
        return
    skip = pytest.mark.skip(reason="needs numba's compiled solver (numba is not importable)")
    for item in items:
        if "needs_numba" in item.keywords:
            item.add_marker(skip)
