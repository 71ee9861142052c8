"""What the running Python can do, for the parts of ktheory that use threads.

ktheory runs in Pyodide (CPython compiled to WebAssembly, in the browser) and other
WebAssembly builds (``sys.platform`` ``"emscripten"`` or ``"wasi"``). There ``threading``
can be imported but ``threading.Thread.start`` raises ``RuntimeError("can't start new
thread")``, and there is no ``multiprocessing`` or ``subprocess``. The blocked loops of
:func:`ktheory.kernels.gram_matrix` and :mod:`ktheory.mercer` ask
:func:`effective_n_jobs` how many threads they may use; with one they run their blocks
serially in the calling thread, in the same order and with the same arithmetic per block,
so the result is the same.

Tests make a platform without threads by setting :data:`CAN_START_THREADS` to False: it
is read at each call of :func:`effective_n_jobs`, not copied at import.
"""

from __future__ import annotations

import sys

__all__ = ["CAN_START_THREADS", "NO_THREAD_PLATFORMS", "effective_n_jobs"]

#: Values of ``sys.platform`` on which a thread cannot be started (WebAssembly builds).
NO_THREAD_PLATFORMS = ("emscripten", "wasi")

#: Whether this Python can start threads: False on Pyodide and WASI.
CAN_START_THREADS: bool = sys.platform not in NO_THREAD_PLATFORMS


def effective_n_jobs(n_jobs: int) -> int:
    """The number of threads to use for ``n_jobs`` requested ones.

    Parameters
    ----------
    n_jobs : int
        Number of threads asked for, already validated by the caller.

    Returns
    -------
    int
        1 where threads cannot be started (:data:`CAN_START_THREADS` is False), else
        ``n_jobs`` unchanged.

    Examples
    --------
    >>> effective_n_jobs(1)
    1
    >>> effective_n_jobs(4) == (4 if CAN_START_THREADS else 1)
    True
    """
    return n_jobs if CAN_START_THREADS else 1
