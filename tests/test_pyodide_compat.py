"""ktheory where no thread can be started (Pyodide, WASI): the blocked loops run serially.

In Pyodide ``threading.Thread.start`` raises ``RuntimeError("can't start new thread")``.
``ktheory._platform.CAN_START_THREADS`` is False there, and :func:`ktheory.kernels.gram_matrix`
and the row-block loop of :mod:`ktheory.mercer` (``_run_blocks``: ``NystromFeatures`` and
``RandomFourierFeatures.transform``) then run their blocks one after another in the calling
thread. These tests make such a platform here (the flag set to False, ``Thread.start``
raising as in Pyodide) and check that

* the results are bit for bit those of the threaded run (the same blocks, each computed
  by the same code);
* no thread is started, while with the flag left True the same patched ``Thread.start``
  makes the same calls fail (so the tests can fail);
* ``sys.platform == "emscripten"`` (or ``"wasi"``) sets the flag at import;
* ``n_jobs`` is validated as before.
"""

from __future__ import annotations

import importlib
import sys
import threading
from functools import partial

import numpy as np
import pytest

import ktheory._platform as platform_mod
from ktheory import mercer
from ktheory.kernels import gaussian_kernel, gram_matrix, linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel
from ktheory.mercer import NystromFeatures, RandomFourierFeatures

RNG = np.random.default_rng(2024)
X = RNG.standard_normal((90, 4))
Y = RNG.standard_normal((70, 4))
X_BIG = RNG.standard_normal((4500, 3))  # > 2 * 2048 rows: three blocks of mercer's _run_blocks


_REAL_START = threading.Thread.start


def _refuse_start(self):
    raise RuntimeError("can't start new thread")


@pytest.fixture
def no_threads(monkeypatch):
    """A platform like Pyodide: the flag False and ``Thread.start`` raising."""
    monkeypatch.setattr(platform_mod, "CAN_START_THREADS", False)
    monkeypatch.setattr(threading.Thread, "start", _refuse_start)


def _threaded(monkeypatch, call):
    """``call()`` on this machine, with threads, checking that it did start some."""
    monkeypatch.setattr(platform_mod, "CAN_START_THREADS", True)
    starts = []

    def counted_start(thread):
        starts.append(thread)
        return _REAL_START(thread)

    monkeypatch.setattr(threading.Thread, "start", counted_start)
    out = call()
    monkeypatch.undo()
    assert starts, "the reference run started no thread: the comparison would prove nothing"
    return out


def _mean_kernel(A, B):  # not one of ktheory's kernels: gram_matrix's generic blocked path
    return gaussian_kernel(A, B, sigma=1.7) + 0.5 * linear_kernel(A, B)


GRAM_CASES = {
    "gaussian fast path": lambda: gram_matrix(gaussian_kernel, X, block_size=8, n_jobs=2, sigma=1.3),
    "rbf fast path, X and Y": lambda: gram_matrix(rbf_kernel, X, Y, block_size=8, n_jobs=2, gamma=0.4),
    "polynomial fast path": lambda: gram_matrix(polynomial_kernel, X, block_size=8, n_jobs=2, degree=3),
    "sigmoid fast path (partial)": lambda: gram_matrix(
        partial(sigmoid_kernel, gamma=0.1, coef0=0.5), X, block_size=8, n_jobs=2
    ),
    "generic path, symmetry checked": lambda: gram_matrix(_mean_kernel, X, block_size=16, n_jobs=2),
    "generic path, upper triangle": lambda: gram_matrix(
        _mean_kernel, X, block_size=16, n_jobs=2, check_symmetry=False
    ),
    "generic path, X and Y": lambda: gram_matrix(_mean_kernel, X, Y, block_size=16, n_jobs=3),
}


def _mercer_cases():
    nys = NystromFeatures(25, sigma=1.5, random_state=0).fit(X_BIG[:300])
    rff = RandomFourierFeatures(30, sigma=1.5, random_state=0).fit(X_BIG[:300])
    return {
        "NystromFeatures.transform": lambda: nys.transform(X_BIG),
        "RandomFourierFeatures.transform": lambda: rff.transform(X_BIG),
        "_gaussian_block_product, 16-row blocks": lambda: mercer._gaussian_block_product(
            X_BIG[:90], nys.landmarks_, 1.5, nys.normalization_, rows=16, n_jobs=3
        ),
    }


MERCER_CASES = _mercer_cases()


def _assert_same(serial: np.ndarray, reference: np.ndarray) -> None:
    """The same result to rounding: the same blocks by the same arithmetic, but BLAS may use
    its own threads in the serial run and not in the threaded one (threadpool_limits), so
    the last bits are not compared."""
    assert serial.shape == reference.shape
    np.testing.assert_allclose(serial, reference, rtol=1e-12, atol=1e-12 * float(np.abs(reference).max()))


@pytest.mark.parametrize("name", sorted(GRAM_CASES))
def test_gram_matrix_without_threads_equals_threaded(name, monkeypatch, no_threads):
    call = GRAM_CASES[name]
    serial = call()  # Thread.start raises: this ran in the calling thread
    reference = _threaded(monkeypatch, call)
    _assert_same(serial, reference)


@pytest.mark.parametrize("name", sorted(MERCER_CASES))
def test_mercer_blocks_without_threads_equal_threaded(name, monkeypatch, no_threads):
    call = MERCER_CASES[name]
    serial = call()
    reference = _threaded(monkeypatch, call)
    _assert_same(serial, reference)


@pytest.mark.parametrize("call", [GRAM_CASES["gaussian fast path"], GRAM_CASES["generic path, X and Y"],
                                  MERCER_CASES["RandomFourierFeatures.transform"],
                                  MERCER_CASES["NystromFeatures.transform"]],
                         ids=["gram fast", "gram generic", "rff", "nystrom"])
def test_the_patched_start_fails_the_threaded_code(call, monkeypatch):
    """With the flag True (as before the change), the Pyodide-like ``Thread.start`` makes
    the call fail: the tests above would catch a thread started on such a platform."""
    monkeypatch.setattr(platform_mod, "CAN_START_THREADS", True)
    monkeypatch.setattr(threading.Thread, "start", _refuse_start)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        call()


def test_run_blocks_serial_order(no_threads):
    seen = []
    mercer._run_blocks(seen.append, 10, 3, 4)
    assert seen == [0, 3, 6, 9]


def test_effective_n_jobs(monkeypatch):
    monkeypatch.setattr(platform_mod, "CAN_START_THREADS", True)
    assert platform_mod.effective_n_jobs(1) == 1 and platform_mod.effective_n_jobs(3) == 3
    monkeypatch.setattr(platform_mod, "CAN_START_THREADS", False)
    assert platform_mod.effective_n_jobs(1) == 1 and platform_mod.effective_n_jobs(3) == 1


@pytest.fixture
def reloaded_as():
    """Reload ``ktheory._platform`` under another ``sys.platform``; restore it afterwards."""
    original = sys.platform

    def reload(name):
        sys.platform = name
        try:
            importlib.reload(platform_mod)
        finally:
            sys.platform = original

    yield reload
    importlib.reload(platform_mod)
    assert platform_mod.CAN_START_THREADS == (original not in ("emscripten", "wasi"))


@pytest.mark.parametrize("name", ["emscripten", "wasi"])
def test_the_flag_follows_sys_platform(name, reloaded_as, monkeypatch):
    reloaded_as(name)
    assert platform_mod.CAN_START_THREADS is False
    # read at each call (not copied at import): gram_matrix sees it without a reload of its own
    monkeypatch.setattr(threading.Thread, "start", _refuse_start)
    serial = GRAM_CASES["generic path, X and Y"]()
    np.testing.assert_array_equal(serial, gram_matrix(_mean_kernel, X, Y, block_size=16, n_jobs=1))
    reloaded_as("linux")
    assert platform_mod.CAN_START_THREADS is True


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError),
                                      ("2", TypeError)])
def test_n_jobs_still_validated_without_threads(bad, exc, no_threads):
    with pytest.raises(exc, match="n_jobs must be a positive integer"):
        gram_matrix(gaussian_kernel, X, n_jobs=bad)
    with pytest.raises(exc, match="n_jobs must be a positive integer"):
        gram_matrix(_mean_kernel, X, n_jobs=bad)
