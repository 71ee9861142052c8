"""Shared pytest set-up: the ``needs_numba`` marker.

``make test-no-numba`` runs the SVM estimators' tests with numba hidden
(``tests/_no_numba`` first on ``PYTHONPATH``), as on a machine without it, where the
estimators solve with numpy. A test of what only the compiled solver does (kernel rows on
demand, its memory, its statistics) is marked ``needs_numba`` and is skipped there, by
name. Where numba is installed such a test runs with the compiled solver on every problem
size (``NUMPY_MAX_SAMPLES = 0``: by default training sets of up to 2048 samples are solved
on the numpy path).

``solver="auto"`` also depends on what the process did before (whether it has loaded the
compiled solver, how many numpy iterations its earlier fits spent). Every test starts as a
fresh process would: nothing loaded, nothing spent; so a test's result does not depend on
which tests ran before it in the same worker. The tests of that rule set the state
themselves.
"""

from __future__ import annotations

import pytest

try:
    import numba  # noqa: F401

    HAVE_NUMBA = True
except ImportError:
    HAVE_NUMBA = False


@pytest.fixture(autouse=True)
def _auto_solver_as_in_a_fresh_process(monkeypatch):
    from ktheory.svm import _kernel_svm

    monkeypatch.setattr(_kernel_svm, "_PROCESS_SPENT", [0])
    monkeypatch.setattr(_kernel_svm, "_compiled_loaded", lambda: False)


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
