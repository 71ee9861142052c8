"""The machine-readable benchmark record (issue 28).

Every ``bench_*.py`` script reports its measurements here as rows::

    from _record import add, skip

    add("qda", "GaussianQuadraticClassifier fit + predict_log_proba",
        n=20000, time_s=t_ours, peer="sklearn QuadraticDiscriminantAnalysis",
        peer_time_s=t_peer, target_ratio=1.2, params={"d": 20, "classes": 3})

``time_s`` is ktheory's median wall time, ``peer_time_s`` the peer's in the same run
(interleaved repeats where the script does so), ``ratio = time_s / peer_time_s`` (below 1:
ktheory is faster), ``target_ratio`` the issue's ceiling for that ratio (``None`` where the
row only reports) and ``target_time_s`` a ceiling on ``time_s`` itself; ``met`` says
whether every target given holds. ``mem_mb`` / ``peer_mem_mb`` are peak resident memory of the fit in MiB
where the script measures it (in a fresh subprocess, see :func:`peak_rss_mib`), else
``None``. A row with ``series`` set belongs to a scaling series: the book's page "How fast
is ktheory" plots its time and memory against ``n`` on log-log axes.

A script that cannot run here (it needs an accelerator, say) calls ``skip(reason)``.

``run_all.py`` (``make bench``) collects the rows of every script and writes
``benchmarks/results.json`` with the machine (CPU model, cores), the library versions and
the date; ``tests/test_bench_record.py`` checks its schema and that every ``bench_*.py``
is in it. Run standalone, a script only prints.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import platform
import sys
from importlib import metadata
from typing import Any

SCHEMA_VERSION = 1

#: rows reported by the script being run (run_all.py empties it before each script)
ROWS: list[dict[str, Any]] = []
#: reasons a script gave for not running here
SKIPPED: list[str] = []


def _finite_positive(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return value


def add(
    case: str,
    solver: str,
    *,
    n: int,
    time_s: float,
    peer: str | None = None,
    peer_time_s: float | None = None,
    target_ratio: float | None = None,
    target_time_s: float | None = None,
    mem_mb: float | None = None,
    peer_mem_mb: float | None = None,
    series: str | None = None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Record one measurement and return the row."""
    time_s = _finite_positive("time_s", time_s)
    peer_time_s = _finite_positive("peer_time_s", peer_time_s)
    if (peer is None) != (peer_time_s is None):
        raise ValueError("peer and peer_time_s go together")
    ratio = None if peer_time_s is None else time_s / peer_time_s
    target_ratio = _finite_positive("target_ratio", target_ratio)
    target_time_s = _finite_positive("target_time_s", target_time_s)
    if target_ratio is not None and ratio is None:
        raise ValueError("target_ratio needs a peer")
    checks = []
    if target_ratio is not None:
        checks.append(ratio <= target_ratio)
    if target_time_s is not None:
        checks.append(time_s <= target_time_s)
    row = dict(
        case=str(case),
        solver=str(solver),
        peer=peer,
        n=int(n),
        time_s=time_s,
        peer_time_s=peer_time_s,
        ratio=ratio,
        target_ratio=target_ratio,
        target_time_s=target_time_s,
        met=bool(all(checks)) if checks else None,
        mem_mb=None if mem_mb is None else float(mem_mb),
        peer_mem_mb=None if peer_mem_mb is None else float(peer_mem_mb),
        series=series,
        params=dict(params or {}),
    )
    ROWS.append(row)
    return row


def skip(reason: str) -> None:
    """Record that the running script does not measure anything here, and why."""
    SKIPPED.append(str(reason))
    print(f"skipped: {reason}", flush=True)


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else ``platform.processor``)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("ktheory", "numpy", "scipy", "scikit-learn", "numba", "threadpoolctl"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def blas() -> list[dict[str, Any]]:
    """The BLAS/OpenMP libraries numpy and scipy loaded, with their thread counts."""
    try:
        import numpy  # noqa: F401  (loads the BLAS)
        import scipy.linalg  # noqa: F401
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keep = ("internal_api", "version", "architecture", "num_threads", "threading_layer")
    return [{k: info.get(k) for k in keep} for info in threadpool_info()]


def machine() -> dict[str, Any]:
    return dict(
        cpu=cpu_model(),
        cores=usable_cores(),
        cpu_count=os.cpu_count(),
        system=f"{platform.system()} {platform.release()}",
        blas=blas(),
        env={k: os.environ[k] for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                        "OPENBLAS_CORETYPE", "NUMBA_CPU_NAME")
             if k in os.environ},
    )


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


# -- peak memory of a call, in a fresh process ---------------------------------------------

def rss_status() -> dict[str, int]:
    """``{"VmRSS": ..., "VmHWM": ...}`` of this process in bytes (Linux ``/proc``)."""
    out: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(("VmHWM", "VmRSS")):
                key, val = line.split(":")
                out[key] = int(val.split()[0]) * 1024  # kB in /proc
    return out


#: What the SVM rows' solver names say about the process they were timed in.
AFTER_COMPILED = "in a session: after a compiled solve, solver='auto' runs compiled"


def load_compiled_svm() -> bool:
    """Load ktheory's compiled SMO (numba and its cached code) with a tiny fit, as any session
    that has fitted a large set has: ``solver="auto"`` then solves small sets compiled too.
    The benchmarks time fits in that state; ``bench_start.py`` times first fits in fresh
    processes. False where numba cannot be imported (every fit is then numpy's)."""
    import numpy as np

    from ktheory.svm import SVC
    from ktheory.svm._kernel_svm import compiled_solver

    if compiled_solver() is None:
        return False
    X = np.random.default_rng(0).standard_normal((40, 3))
    SVC(solver="compiled").fit(X, (X[:, 0] > 0).astype(int))
    return True


def reset_peak() -> bool:
    """Reset this process's peak resident size (``VmHWM``); False where Linux refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _trim_heap() -> None:
    """Return the C heap's free memory to the system (glibc only; elsewhere nothing)."""
    import gc

    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_rss_mib(fn) -> tuple[float, float | None]:
    """Run ``fn()``; return (wall seconds, peak resident memory it added, MiB).

    Meant for a fresh child process: memory the C allocator keeps from earlier calls (a
    warm-up) is first returned to the system (glibc's ``malloc_trim``), so that a solver
    whose ``malloc``'d blocks would be served again from that pool is charged for them; the
    peak (``VmHWM``) is reset through ``/proc/self/clear_refs`` where Linux allows it, and
    the resident size just before the call is subtracted. Where ``/proc`` is missing the
    memory is ``None``.
    """
    import time

    _trim_heap()
    try:
        reset = reset_peak()
        before = rss_status()
    except OSError:
        before = None
    t0 = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - t0
    if before is None:
        return elapsed, None
    after = rss_status()
    base = before["VmRSS"] if reset else max(before["VmRSS"], before["VmHWM"])
    return elapsed, max(after["VmHWM"] - base, 0) / 2**20


if __name__ == "__main__":  # pragma: no cover
    import json

    json.dump(dict(machine=machine(), versions=versions()), sys.stdout, indent=1)
    print()
