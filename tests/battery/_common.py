"""The bad-input battery: a committed matrix of (public callable x input category).

Each ``tests/battery/test_battery_<module>.py`` defines

* ``CASES``: a list of :class:`Case`, each one call of a public callable on one kind of
  input, with the outcome it must have: a clear ``ValueError`` / ``TypeError`` whose
  message names the argument (``match``), or ``"ok"`` with a ``check`` that compares the
  result with an oracle (sklearn, scipy, brute force, a closed form);
* ``PUBLIC``: the public callables the module covers (``"ktheory.svm.SVC.fit"``);
* ``EXEMPT`` (optional): ``{"ktheory.svm.SMOResult": reason}`` for public names that take
  no user input (result containers);
* ``NOT_APPLICABLE``: ``{(callable, category): reason}`` for the cells where a category
  cannot apply (e.g. ``"one-class"`` for a kernel function);

and runs ``run_case`` over its cases. ``test_matrix.py`` collects every module's table and
fails on an empty cell: each public callable named in :data:`PUBLIC` has, for each
category in :data:`CATEGORIES`, at least one case or a stated reason.

Every case runs under a time limit (a hang is a failure) and with warnings turned into
errors only where ``warns`` says one is expected.
"""

from __future__ import annotations

import re
import signal
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

#: The input categories of the battery (issue "ktheory under hostile input").
CATEGORIES: tuple[str, ...] = (
    "shape",          # wrong ndim, mismatched lengths or feature counts, 1-D where 2-D is needed
    "dtype-complex",  # complex arrays: a TypeError, never a silent real part
    "dtype-bool",     # bool arrays: accepted as 0/1 or rejected clearly, as documented
    "dtype-object",   # object / string arrays where numbers are expected
    "dtype-float32",  # float32 input: accepted, tolerances follow the dtype
    "nan-inf",        # NaN or inf anywhere in the numeric input
    "empty",          # zero samples or zero features
    "one-sample",     # a single sample
    "one-class",      # a single class (estimators) / constant target
    "extreme-scale",  # values near 1e±200, sigma near 1e±200: correct or a clear error, no NaN
    "non-symmetric",  # a kernel matrix that must be symmetric and is not
    "non-psd",        # a kernel matrix that must be PSD and is not
    "param-type",     # a parameter of the wrong type (str for a number, float for an int, ...)
    "param-range",    # a parameter out of its range (sigma <= 0, C <= 0, degree < 0, ...)
    "huge-size",      # sizes that would run for hours or exhaust memory: refused up front
)

#: Seconds one case may take before it counts as a hang.
TIME_LIMIT = 20


@dataclass
class Case:
    """One call of a public callable on one kind of input, with its expected outcome.

    Parameters
    ----------
    callable : str
        Public name, e.g. ``"ktheory.kernels.gaussian_kernel"`` or ``"ktheory.svm.SVC.fit"``.
    category : str
        One of :data:`CATEGORIES`.
    call : callable
        No-argument function performing the call; returns the result.
    expect : {"ValueError", "TypeError", "ok"}
        The outcome class. ``"ValueError"`` also accepts subclasses (``NotFittedError``...).
    match : str, optional
        For an error: a regular expression the message must match (name the argument).
    check : callable, optional
        For ``"ok"``: called with the result; must raise (assert) when the result is wrong.
    warns : type, optional
        A warning class the call must emit (e.g. ``ConvergenceWarning``).
    note : str
        What the case is about (shown in its test id).
    setup : callable, optional
        Run before the time limit starts: a one-off cost that is not the call's (numba
        compiling the SVMs' solver on a cold cache), so that it is not counted as a hang.
    """

    callable: str
    category: str
    call: Callable[[], Any]
    expect: str
    match: str | None = None
    check: Callable[[Any], None] | None = None
    warns: type[Warning] | None = None
    note: str = ""
    setup: Callable[[], Any] | None = None
    _id: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown battery category {self.category!r}")
        if self.expect not in ("ValueError", "TypeError", "ok"):
            raise ValueError(f"expect must be 'ValueError', 'TypeError' or 'ok', got {self.expect!r}")
        if self.expect == "ok" and self.check is None:
            raise ValueError(f"{self.callable}/{self.category}: an 'ok' case needs a check (an oracle)")
        if self.expect != "ok" and not self.match:
            raise ValueError(f"{self.callable}/{self.category}: an error case needs `match` (the argument's name)")

    def __str__(self) -> str:
        short = self.callable.replace("ktheory.", "")
        note = re.sub(r"[^\w.=+-]+", "_", self.note)[:40]
        return f"{short}|{self.category}|{note}"


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:  # pragma: no cover - only on a hang
    raise _Hang()


def run_case(case: Case) -> None:
    """Run ``case`` and assert its outcome class (the body of every battery test)."""
    if case.setup is not None:
        case.setup()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = case.call()
            except _Hang:
                pytest.fail(f"hang: {case} ran for more than {TIME_LIMIT} s")
            except (ValueError, TypeError) as exc:
                if case.expect == "ok":
                    pytest.fail(f"valid input rejected: {type(exc).__name__}: {exc}")
                expected = ValueError if case.expect == "ValueError" else TypeError
                assert isinstance(exc, expected), (
                    f"expected {case.expect}, got {type(exc).__name__}: {exc}"
                )
                assert re.search(case.match or "", str(exc)), (
                    f"the message does not name what it should ({case.match!r}): {exc}"
                )
                return
            except MemoryError:
                pytest.fail(f"memory blow-up: {case} raised MemoryError instead of refusing up front")
            except Exception as exc:  # an opaque traceback is a defect
                pytest.fail(f"opaque error {type(exc).__name__}: {exc}")
            finally:
                signal.alarm(0)
        if case.expect != "ok":
            pytest.fail(f"expected {case.expect}, but the call returned {type(result).__name__}")
        if case.warns is not None:
            assert any(issubclass(w.category, case.warns) for w in caught), (
                f"expected a {case.warns.__name__} warning"
            )
        bad = [w for w in caught if issubclass(w.category, (np.exceptions.ComplexWarning, RuntimeWarning))]
        assert not bad, f"numerical warning on a valid input: {bad[0].message}"
        assert case.check is not None
        case.check(result)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def warm_compiled_svm() -> None:
    """Compile (or load from numba's cache) the SVMs' compiled solver with a tiny fit, where
    numba is installed: the setup of a case whose large fit uses it."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return
    from ktheory.svm import SVC, SVR

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    SVC(solver="compiled").fit(X, [0, 0, 1, 1])
    SVR(solver="compiled").fit(X, [0.0, 1.0, 2.0, 3.0])
