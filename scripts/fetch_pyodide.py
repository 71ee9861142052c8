"""Fetch what the in-browser chapters need into ``.pyodide/`` (run by ``make setup``).

The book's "Run in the browser" pages (JupyterLite with the Pyodide kernel, built by
``book/_ext/kt_lite.py``) are served from the book's own site. This script puts their
ingredients in a local cache, once, from the two registries the project already uses:

* the Pyodide core (interpreter, standard library, ``pyodide-lock.json``) from the npm
  package ``pyodide`` at the version ``jupyterlite-pyodide-kernel`` pins;
* every pure-Python wheel the kernel and the chapters need (IPython and its
  dependencies, micropip, sympy, mpmath, joblib, threadpoolctl, matplotlib's pure
  dependencies, ...) from PyPI at the version in Pyodide's lock, and array-api-compat,
  array-api-strict and comm at the versions of ``requirements/lock.txt``.

Compiled packages (numpy, scipy, scikit-learn, matplotlib, pillow, kiwisolver,
contourpy) have no WebAssembly wheels on PyPI; the site loads them from Pyodide's CDN
at the reader's run time (``kt_lite.py`` writes their absolute URLs into the lock).

Usage: ``python scripts/fetch_pyodide.py [--check]``. ``--check`` says whether numpy and
scipy now publish WebAssembly wheels on PyPI (then the CDN step could go).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".pyodide"
#: what jupyterlite-pyodide-kernel 0.8.6 pins (its constants.PYODIDE_VERSION)
PYODIDE_VERSION = "314.0.6"
#: the packages the kernel itself loads (micropip, IPython, jedi) and those the chapters
#: import; their pure-Python dependencies are served from the site
ROOTS = ("micropip", "ipython", "jedi", "sympy", "numpy", "scipy", "scikit-learn", "matplotlib")
#: not in Pyodide's lock: from PyPI at the versions of requirements/lock.txt
EXTRA = ("array-api-compat", "array-api-strict", "comm")
#: files of the npm package the site does not need (source maps, types, demo consoles)
SKIP = re.compile(r"\.(map|d\.ts)$|^console.*\.html$|^README\.md$")


def norm(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pure_closure(lock: dict) -> dict[str, str]:
    """Pure-Python packages (name -> version) in the dependency closure of ``ROOTS``."""
    packages = lock["packages"]
    seen: set[str] = set()
    stack = list(ROOTS)
    while stack:
        name = norm(stack.pop())
        if name not in seen:
            seen.add(name)
            stack.extend(packages[name]["depends"])
    return {
        n: packages[n]["version"] for n in sorted(seen) if packages[n]["file_name"].endswith("-none-any.whl")
    }


def locked_versions() -> dict[str, str]:
    """The versions pinned in requirements/lock.txt, by normalised name."""
    pins = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[norm(name)] = version.strip()
    return pins


def fetch_core(dest: Path) -> None:
    if shutil.which("npm") is None:
        sys.exit("fetch_pyodide: npm is needed to fetch Pyodide's core (apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", "--silent", f"pyodide@{PYODIDE_VERSION}"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        with tarfile.open(Path(tmp) / f"pyodide-{PYODIDE_VERSION}.tgz") as tar:
            tar.extractall(tmp, filter="data")
        dest.mkdir(parents=True)
        for f in sorted((Path(tmp) / "package").iterdir()):
            if f.is_file() and not SKIP.search(f.name):
                shutil.copy2(f, dest / f.name)


def fetch_wheels(dest: Path, pins: dict[str, str]) -> None:
    dest.mkdir(parents=True)
    reqs = [f"{name}=={version}" for name, version in sorted(pins.items())]
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                    "--no-deps", "--only-binary=:all:", "--implementation", "py", "--python-version", "3.14",
                    "--platform", "any", "-d", str(dest), *reqs], check=True)
    got = {norm(f.name.split("-")[0]) for f in dest.glob("*.whl")}
    missing = sorted(set(pins) - got)
    if missing:
        sys.exit(f"fetch_pyodide: no pure-Python wheel downloaded for {missing}")


def check_wasm_wheels() -> int:
    """Report whether numpy and scipy publish WebAssembly wheels on PyPI."""
    core = CACHE / PYODIDE_VERSION / "core"
    lock = json.loads((core / "pyodide-lock.json").read_text())
    tag = f"pyemscripten_{lock['info']['abi_version']}_wasm32"
    status = 0
    for name in ("numpy", "scipy"):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                                "--platform", tag, "--python-version", "3.14", "--implementation", "cp", "-d", tmp,
                                f"{name}=={lock['packages'][name]['version']}"], capture_output=True)
        ok = r.returncode == 0
        status |= not ok
        print(f"{name}: {'a ' + tag + ' wheel is on PyPI' if ok else 'no ' + tag + ' wheel on PyPI (CDN needed)'}")
    return status


def main() -> int:
    if "--check" in sys.argv[1:]:
        return check_wasm_wheels()
    target = CACHE / PYODIDE_VERSION
    stamp = target / "FETCHED"
    pins_extra = {n: v for n, v in locked_versions().items() if n in EXTRA}
    wanted = json.dumps(pins_extra, sort_keys=True)
    if stamp.exists() and stamp.read_text() == wanted:
        stamp.touch()  # up to date (make compares its time with the lock's)
        return 0
    if len(pins_extra) != len(EXTRA):
        sys.exit(f"fetch_pyodide: requirements/lock.txt must pin {sorted(EXTRA)}")
    shutil.rmtree(target, ignore_errors=True)
    fetch_core(target / "core")
    lock = json.loads((target / "core" / "pyodide-lock.json").read_text())
    fetch_wheels(target / "wheels", {**pure_closure(lock), **pins_extra})
    stamp.write_text(wanted)
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    print(f"fetch_pyodide: Pyodide {PYODIDE_VERSION} core and {len(list((target / 'wheels').glob('*.whl')))}"
          f" wheels in {target} ({size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
