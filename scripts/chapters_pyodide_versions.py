"""Run every chapter as the in-browser kernel would, on this machine (``make test-pyodide-versions``).

The in-browser chapters (``book/_ext/kt_lite.py``) run on Pyodide's package versions, not
on ``requirements/lock.txt``'s: scikit-learn 1.8.0 there against 1.9.1 here, for instance,
and a default that changed between the two once failed chapter 1 in the browser only.
Pyodide's numerical cells need its CDN, so they cannot run in ``make test``; this runs them
natively instead, as close to the browser as CPython allows:

* every package a chapter uses whose version in Pyodide's lock differs from the installed
  one is installed at Pyodide's version into ``.pyodide/native-<version>/`` (a native wheel
  for this Python; a version with no such wheel is named and the locked one kept);
* numba, Dask and array-api-strict are hidden (``sys.modules[name] = None``, so
  ``importlib.util.find_spec`` finds none, as in Pyodide) and ktheory starts no thread
  (``ktheory._platform.CAN_START_THREADS = False``);
* each chapter is executed from the top (nbclient); any cell that raises is a failure.

Outputs are not compared with the stored ones: the versions differ, and so may the last
digits. Needs the package index once (the native wheels). Not part of ``make test``.

Usage: ``python scripts/chapters_pyodide_versions.py [chapter ...]``
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fetch_pyodide import CACHE, PYODIDE_VERSION, norm  # noqa: E402

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import kt_lite  # noqa: E402

#: the distributions the chapters import, and the dependencies whose version matters to them
PACKAGES = ("numpy", "scipy", "scikit-learn", "sympy", "mpmath", "matplotlib", "joblib", "threadpoolctl",
            "packaging")
HIDDEN = ("numba", "dask", "array_api_strict")
SITECUSTOMIZE = f'''"""Written by scripts/chapters_pyodide_versions.py: the browser's limits, natively."""
import sys

for _name in {HIDDEN!r}:
    sys.modules[_name] = None  # import fails and find_spec finds nothing, as in Pyodide
import ktheory._platform

ktheory._platform.CAN_START_THREADS = False
'''


def overlay() -> tuple[Path, list[str], list[str]]:
    lock = json.loads((CACHE / PYODIDE_VERSION / "core" / "pyodide-lock.json").read_text())["packages"]
    target = CACHE / f"native-{PYODIDE_VERSION}"
    target.mkdir(parents=True, exist_ok=True)
    installed, kept = [], []
    for name in PACKAGES:
        want = lock[norm(name)]["version"]
        have = importlib.metadata.version(name)
        if want == have:
            continue
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--no-deps", "--only-binary=:all:", "--upgrade", "--target", str(target),
                               f"{name}=={want}"], capture_output=True, text=True)
        if done.returncode == 0:
            installed.append(f"{name} {want} (lock: {have})")
        else:
            kept.append(f"{name} {have} (Pyodide has {want}: no wheel for this Python)")
    (target / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return target, installed, kept


def run(nb_path: Path, env: dict[str, str]) -> list[str]:
    code = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "NotebookClient(nb, timeout=900, kernel_name='python3', allow_errors=True,\n"
        "               resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
        "for i, c in enumerate(nb.cells):\n"
        "    for o in c.get('outputs', []):\n"
        "        if o.output_type == 'error':\n"
        "            print(f'cell {i}: {o.ename}: {o.evalue[:300]}')\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(nb_path), str(nb_path.parent)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return [f"the run failed: {done.stderr[-1500:]}"]
    return [line for line in done.stdout.splitlines() if line.startswith("cell ")]


def main() -> int:
    target, installed, kept = overlay()
    print("Pyodide's versions installed natively:", "; ".join(installed) or "none differ")
    for line in kept:
        print("kept:", line)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    probe = subprocess.run([sys.executable, "-c", "import sklearn, ktheory._platform as p, importlib.util as u;"
                            "print(sklearn.__version__, p.CAN_START_THREADS, u.find_spec('dask'))"],
                           env=env, capture_output=True, text=True)
    print("in the kernels:", probe.stdout.strip() or probe.stderr[-500:])
    names = sys.argv[1:]
    chapters = [p for p in kt_lite.chapters(ROOT) if not names or any(re.search(n, p.name) for n in names)]
    failed = 0
    for nb in chapters:
        t0 = time.perf_counter()
        errors = run(nb, env)
        print(f"{nb.name}: {'OK' if not errors else 'FAILED'} ({time.perf_counter() - t0:.0f} s)")
        for e in errors:
            print("   ", e)
        failed += bool(errors)
    print(f"{len(chapters) - failed} of {len(chapters)} chapters ran to the end on Pyodide's versions")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
