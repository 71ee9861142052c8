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

The wheels and their sha256 are pinned in ``requirements/pyodide-wheels.txt`` (downloaded
with ``--require-hashes``); ``--pin`` rewrites that file from Pyodide's lock and
``requirements/lock.txt`` (after a version change), trusting what the index serves then.

Usage: ``python scripts/fetch_pyodide.py [--check | --pin]``. ``--check`` says whether numpy
and scipy now publish WebAssembly wheels on PyPI (then the CDN step could go): exit 0 if
both do, 1 if not, 2 if the index could not be asked.
"""

from __future__ import annotations

import hashlib
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
PINS = ROOT / "requirements" / "pyodide-wheels.txt"
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


def pinned() -> dict[str, str]:
    """Name -> version of ``requirements/pyodide-wheels.txt``."""
    out = {}
    for line in PINS.read_text().splitlines():
        if line and not line.startswith("#"):
            name, rest = line.split("==", 1)
            out[norm(name)] = rest.split()[0]
    return out


def wanted(lock: dict) -> dict[str, str]:
    """What the pins must hold: the pure closure of ``ROOTS`` in Pyodide's lock and ``EXTRA``
    at requirements/lock.txt's versions."""
    extra = {n: v for n, v in locked_versions().items() if n in EXTRA}
    if len(extra) != len(EXTRA):
        sys.exit(f"fetch_pyodide: requirements/lock.txt must pin {sorted(EXTRA)}")
    return {**pure_closure(lock), **extra}


def fetch_wheels(dest: Path, pins: dict[str, str]) -> None:
    dest.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                    "--no-deps", "--only-binary=:all:", "--implementation", "py", "--python-version", "3.14",
                    "--platform", "any", "--require-hashes", "-d", str(dest), "-r", str(PINS)], check=True)
    got = {norm(f.name.split("-")[0]) for f in dest.glob("*.whl")}
    missing = sorted(set(pins) - got)
    if missing:
        sys.exit(f"fetch_pyodide: no pure-Python wheel downloaded for {missing}")


def pin(lock: dict) -> None:
    """Rewrite ``requirements/pyodide-wheels.txt``: download the wanted wheels, record their sha256."""
    pins = wanted(lock)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--only-binary=:all:", "--implementation", "py", "--python-version", "3.14",
                        "--platform", "any", "-d", tmp, *[f"{n}=={v}" for n, v in sorted(pins.items())]], check=True)
        files = {norm(f.name.split("-")[0]): f for f in Path(tmp).glob("*.whl")}
        lines = [line for line in PINS.read_text().splitlines() if line.startswith("#")]
        for name in sorted(pins):
            digest = hashlib.sha256(files[name].read_bytes()).hexdigest()
            lines.append(f"{name}=={pins[name]} --hash=sha256:{digest}")
    PINS.write_text("\n".join(lines) + "\n")
    print(f"fetch_pyodide: {len(pins)} wheels pinned in {PINS.relative_to(ROOT)}")


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
        unreachable = any(m in r.stderr for m in (b"Retrying", b"NewConnectionError", b"Max retries exceeded",
                                                  b"Could not fetch URL", b"Failed to establish"))
        if r.returncode == 0:
            print(f"{name}: a {tag} wheel is on the index")
        elif not unreachable and (b"No matching distribution" in r.stderr or b"Could not find a version" in r.stderr):
            print(f"{name}: no {tag} wheel on the index (the CDN is needed)")
            status = max(status, 1)
        else:
            print(f"{name}: could not ask the index: {r.stderr.decode(errors='replace').strip()[-300:]}")
            status = 2
    return status


def main() -> int:
    if "--check" in sys.argv[1:]:
        return check_wasm_wheels()
    target = CACHE / PYODIDE_VERSION
    stamp = target / "FETCHED"
    if "--pin" in sys.argv[1:]:
        if not (target / "core" / "pyodide-lock.json").is_file():
            fetch_core(target / "core")
        pin(json.loads((target / "core" / "pyodide-lock.json").read_text()))
    stamp_text = hashlib.sha256(PINS.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == stamp_text:
        stamp.touch()  # up to date (make compares its time with the pins')
        return 0
    shutil.rmtree(target / "wheels", ignore_errors=True)
    if not (target / "core" / "pyodide-lock.json").is_file():
        shutil.rmtree(target, ignore_errors=True)
        fetch_core(target / "core")
    lock = json.loads((target / "core" / "pyodide-lock.json").read_text())
    pins = wanted(lock)
    if pinned() != pins:
        sys.exit(f"fetch_pyodide: {PINS.relative_to(ROOT)} does not match Pyodide's lock and requirements/lock.txt"
                 " (run `python scripts/fetch_pyodide.py --pin`)")
    fetch_wheels(target / "wheels", pins)
    stamp.write_text(stamp_text)
    size = sum(f.stat().st_size for f in target.rglob("*") if f.is_file())
    print(f"fetch_pyodide: Pyodide {PYODIDE_VERSION} core and {len(list((target / 'wheels').glob('*.whl')))}"
          f" wheels in {target} ({size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
