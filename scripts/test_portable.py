"""The portability check (`make test-portable`): the same checks under other numeric environments.

The book promises that every claim verifies on the reader's machine. Readers' machines round
differently from the one that stored the notebooks' outputs: OpenBLAS picks its kernels by
processor (and sums in a different order with another thread count), numpy dispatches its
loops (exp, log, tanh, sums) by processor, and numba compiles for the host processor. Each
environment below forces one such combination, as an older or a different x86-64 processor
would, and runs the unit tests, the doctests and strict nbval over every notebook under it.

An environment that this processor cannot run (a core type whose instructions it lacks, a
non-x86 machine) is reported by name and skipped; the check fails if any environment that ran
failed, or if none could run. Each environment compiles numba's code into a cache directory of
its own (``.numba-cache/<name>``), so no environment is served machine code compiled for
another; ``tests/test_portability.py`` checks that numba's cache key includes the target CPU
anyway.

Usage: ``python scripts/test_portable.py [--only NAME ...] [--parts unit,doctest,notebooks]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
JOBS = os.environ.get("JOBS", "2")

# numpy >= 2.4 names its x86 feature groups X86_V2 (its baseline), X86_V3 (AVX2, FMA3, ...)
# and X86_V4 (AVX-512); disabling a group the processor lacks is harmless.
NO_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"
NO_AVX2 = "X86_V3 " + NO_AVX512

# name -> (CPU flags it needs in /proc/cpuinfo, what it simulates, the variables it sets)
ENVIRONMENTS: dict[str, tuple[set[str], str, dict[str, str]]] = {
    "nehalem-generic-1thread": (
        {"sse4_2"},
        "an x86-64-v2 processor (SSE4.2, no AVX): OpenBLAS's Nehalem kernels on one "
        "thread, numba compiling for a generic x86-64, numpy's loops without AVX2/AVX-512",
        {
            "OPENBLAS_CORETYPE": "Nehalem",
            "OPENBLAS_NUM_THREADS": "1",
            "NUMBA_CPU_NAME": "generic",
            "NPY_DISABLE_CPU_FEATURES": NO_AVX2,
        },
    ),
    "sandybridge-2threads": (
        {"avx"},
        "an AVX processor of 2011: OpenBLAS's Sandybridge kernels on two threads, numpy's "
        "loops without AVX-512, numba for this host",
        {
            "OPENBLAS_CORETYPE": "Sandybridge",
            "OPENBLAS_NUM_THREADS": "2",
            "NPY_DISABLE_CPU_FEATURES": NO_AVX512,
        },
    ),
    "haswell-generic-1thread": (
        {"avx2", "fma"},
        "the common AVX2 laptop or server: OpenBLAS's Haswell kernels on one thread, numpy's "
        "loops without AVX-512, numba compiling for a generic x86-64",
        {
            "OPENBLAS_CORETYPE": "Haswell",
            "OPENBLAS_NUM_THREADS": "1",
            "NUMBA_CPU_NAME": "generic",
            "NPY_DISABLE_CPU_FEATURES": NO_AVX512,
        },
    ),
    "skylakex-generic-1thread": (
        {"avx512f"},
        "an AVX-512 server: OpenBLAS's SkylakeX kernels on one thread (which compute small "
        "products without the blocked GEMM and round a product of permuted rows differently), "
        "numpy's AVX-512 loops, numba compiling for a generic x86-64",
        {
            "OPENBLAS_CORETYPE": "SkylakeX",
            "OPENBLAS_NUM_THREADS": "1",
            "NUMBA_CPU_NAME": "generic",
        },
    ),
}

PARTS = {
    "unit": [PY, "-m", "pytest", "-q", "-n", JOBS, "-m", "not browser",
             "-p", "no:cacheprovider", "tests"],
    "doctest": [PY, "-m", "pytest", "-q", "--doctest-modules", "-p", "no:cacheprovider",
                "ktheory"],
    "notebooks": [PY, "-m", "pytest", "-q", "-n", JOBS, "--dist", "loadfile", "--nbval",
                  "--nbval-current-env", "--nbval-cell-timeout=300", "-p",
                  "no:cacheprovider", "book"],
}

# What the probe prints: the kernels OpenBLAS runs, its threads, numpy's AVX2 group, numba's
# target. It also makes one BLAS call, so a core type that crashes this CPU crashes here.
PROBE = r"""
import json, numpy as np, threadpoolctl
from numpy._core._multiarray_umath import __cpu_features__ as f
from numba.core import config
a = np.ones((64, 64)); assert float((a @ a)[0, 0]) == 64.0
blas = [i for i in threadpoolctl.threadpool_info() if i["internal_api"] == "openblas"]
print(json.dumps({
    "openblas": [(i["architecture"], i["num_threads"]) for i in blas],
    "numpy_x86_v3": bool(f.get("X86_V3")), "numpy_x86_v4": bool(f.get("X86_V4")),
    "numba_cpu": config.CPU_NAME or "host",
}))
"""


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def env_for(name: str, variables: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NPY_DISABLE_CPU_FEATURES"):
        env.pop(key, None)
    env.update(variables)
    env["NUMBA_CACHE_DIR"] = str(ROOT / ".numba-cache" / name)
    return env


def why_not(name: str, needs: set[str], env: dict[str, str]) -> str | None:
    """None if this processor can run the environment, else the reason."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"it simulates x86-64 processors and this one is {platform.machine()}"
    missing = needs - cpu_flags()
    if missing:
        return "this processor lacks " + ", ".join(sorted(missing))
    probe = subprocess.run([PY, "-c", PROBE], env=env, capture_output=True, text=True,
                           cwd=ROOT, timeout=300)
    if probe.returncode != 0:
        return "the probe failed: " + (probe.stderr.strip().splitlines() or ["?"])[-1]
    got = json.loads(probe.stdout.strip().splitlines()[-1])
    want_core = env["OPENBLAS_CORETYPE"]
    cores = {arch for arch, _ in got["openblas"]}
    if cores != {want_core}:
        return f"OpenBLAS runs {sorted(cores)} here, not the {want_core} kernels asked for"
    print(f"  probe: {json.dumps(got)}")
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(ENVIRONMENTS), default=None)
    parser.add_argument("--parts", default="unit,doctest,notebooks")
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    for p in parts:
        if p not in PARTS:
            parser.error(f"--parts: unknown part {p!r}; expected some of {sorted(PARTS)}")
    names = args.only or list(ENVIRONMENTS)

    ran, failed, skipped, lines = [], [], [], []
    start = time.monotonic()
    for name in names:
        needs, what, variables = ENVIRONMENTS[name]
        env = env_for(name, variables)
        print(f"\n=== test-portable: {name}: {what}", flush=True)
        print("  " + " ".join(f"{k}={v}" for k, v in variables.items()), flush=True)
        reason = why_not(name, needs, env)
        if reason is not None:
            print(f"  SKIPPED {name}: {reason}", flush=True)
            skipped.append(name)
            lines.append(f"{name}: skipped ({reason})")
            continue
        ran.append(name)
        times = []
        for part in parts:
            t0 = time.monotonic()
            rc = subprocess.run(PARTS[part], env=env, cwd=ROOT).returncode
            dt = time.monotonic() - t0
            times.append(f"{part} {dt:.0f} s")
            if rc != 0:
                failed.append(f"{name}/{part}")
                times[-1] += " FAILED"
        lines.append(f"{name}: " + ", ".join(times))

    print("\n=== test-portable summary")
    for line in lines:
        print("  " + line)
    print(f"  total {time.monotonic() - start:.0f} s")
    if failed:
        print("test-portable: FAILED in " + ", ".join(failed))
        return 1
    if not ran:
        print("test-portable: FAILED: no environment could run on this processor")
        return 1
    print(f"test-portable: passed under {len(ran)} environment(s): " + ", ".join(ran)
          + ("; skipped: " + ", ".join(skipped) if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
