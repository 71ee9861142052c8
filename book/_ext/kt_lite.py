"""Sphinx extension: every chapter runs in the reader's browser (JupyterLite + Pyodide).

After an ``html`` build (not ``singlehtml``, the printable edition) it writes a JupyterLite
site under ``<outdir>/lite/`` whose drive holds the chapter notebooks, and every chapter
page gets a "Run in the browser" link to ``lite/notebooks/index.html?path=<chapter>``
(a relative link, so the book works when served from any path).

The site's Pyodide (``lite/static/pyodide/``) is assembled here from what
``scripts/fetch_pyodide.py`` cached in ``.pyodide/`` (``make setup``):

* Pyodide's core (interpreter, standard library) from its npm package;
* pure-Python wheels from PyPI (IPython and the kernel's dependencies, micropip, sympy,
  mpmath, joblib, threadpoolctl, array-api-compat, array-api-strict, matplotlib's pure
  dependencies) and a ``ktheory`` wheel built from this checkout;
* ``pyodide-lock.json`` rewritten: those wheels point at the site's own files (with their
  own sha256), ``ktheory``, ``array-api-compat``, ``array-api-strict`` and ``comm`` are
  added (so ``import ktheory`` in a cell loads it and its dependencies, as the kernel does
  for any import it finds in the lock), and every other package (the compiled numpy,
  scipy, scikit-learn, matplotlib, pillow, kiwisolver, contourpy) points at Pyodide's CDN
  by absolute URL with the lock's own sha256, so the browser checks what it fetches.

Reading the book needs no network; nor do starting the kernel and, after ``import sympy as
sp``, the symbolic cells. Each chapter's first cell imports numpy (so do ktheory's numerical
modules): that fetches the compiled packages from ``cdn.jsdelivr.net`` once. ``tests/test_lite.py`` checks all of this.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Any

# the Pyodide version and the cache are scripts/fetch_pyodide.py's (make setup runs it)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from fetch_pyodide import CACHE, PYODIDE_VERSION, norm  # noqa: E402

CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
#: hosts the in-browser chapters may contact, and why (the page and the README say so)
OUTSIDE_HOSTS = {"cdn.jsdelivr.net": "Pyodide's compiled packages (numpy, scipy, scikit-learn, matplotlib)"}
CHAPTER = re.compile(r"^book/\d\d_[a-z0-9_]+$")
#: wheels added to Pyodide's lock, with the modules they provide (the kernel loads a package
#: when a cell imports one of these)
ADDED = {"ktheory": ["ktheory"], "array-api-compat": ["array_api_compat"],
         "array-api-strict": ["array_api_strict"], "comm": ["comm"]}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wheel_metadata(path: Path) -> dict[str, Any]:
    """Name, version and unconditional ``Requires-Dist`` names of a wheel."""
    with zipfile.ZipFile(path) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(z.read(meta).decode("utf-8"))
    requires = []
    for req in msg.get_all("Requires-Dist") or []:
        if ";" in req:  # extras and environment markers: not installed by default
            continue
        requires.append(norm(re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req).group(1)))
    return {"name": norm(msg["Name"]), "version": msg["Version"], "requires": requires}


def cache_dir() -> Path:
    """The cache ``scripts/fetch_pyodide.py`` fills."""
    path = CACHE / PYODIDE_VERSION
    if not (path / "FETCHED").is_file():
        raise RuntimeError(f"{path} is missing: run `python scripts/fetch_pyodide.py` (make setup does)")
    return path


def build_wheel(root: Path, dest: Path) -> Path:
    """A ``ktheory`` wheel built from the checkout ``root`` (no dependencies, no network)."""
    root, dest = root.resolve(), dest.resolve()  # pip runs in a temporary directory
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("ktheory-*.whl"):
        old.unlink()
    # from a copy, as scripts/lock.sh does: the checkout gets no build/ or egg-info, and two
    # builds at once (pytest-xdist) do not share a build directory
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(root / name, src / name)
        shutil.copytree(root / "ktheory", src / "ktheory", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                        "--no-build-isolation", "-w", str(dest), str(src)], check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
    (wheel,) = dest.glob("ktheory-*.whl")
    return wheel


def rewrite_lock(lock: dict, wheels: list[Path]) -> dict:
    """Pyodide's lock with ``wheels`` served locally and every other package from the CDN."""
    lock = json.loads(json.dumps(lock))
    packages = lock["packages"]
    for entry in packages.values():
        if "://" not in entry["file_name"]:
            entry["file_name"] = CDN + entry["file_name"]
    for wheel in wheels:
        meta = wheel_metadata(wheel)
        name = meta["name"]
        if name in packages:
            entry = packages[name]
            if entry["version"] != meta["version"]:
                raise ValueError(f"{wheel.name}: version {meta['version']}, Pyodide's lock has {entry['version']}")
        elif name in ADDED:
            missing = [r for r in meta["requires"] if r not in packages and r not in ADDED]
            if missing:
                raise ValueError(f"{wheel.name} depends on {missing}, which are neither in Pyodide's lock nor added")
            entry = packages[name] = {"name": name, "version": meta["version"], "imports": ADDED[name],
                                      "depends": meta["requires"], "install_dir": "site",
                                      "package_type": "package", "unvendored_tests": False}
        else:
            raise ValueError(f"{wheel.name} is neither in Pyodide's lock nor one of {sorted(ADDED)}")
        entry["file_name"] = wheel.name
        entry["sha256"] = sha256(wheel)
    return lock


def stage(root: Path, lite_dir: Path) -> Path:
    """Write JupyterLite's ``lite_dir``: the site's Pyodide and its ``jupyter-lite.json``."""
    cache = cache_dir()
    shutil.rmtree(lite_dir, ignore_errors=True)
    pyodide = lite_dir / "static" / "pyodide"
    shutil.copytree(cache / "core", pyodide)
    wheels = [Path(shutil.copy2(w, pyodide / w.name)) for w in sorted((cache / "wheels").glob("*.whl"))]
    wheels.append(build_wheel(root, pyodide))
    lock = json.loads((cache / "core" / "pyodide-lock.json").read_text())
    (pyodide / "pyodide-lock.json").write_text(json.dumps(rewrite_lock(lock, wheels), indent=1, sort_keys=True))
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Kernel Theory",
            # tests/test_lite.py drives the kernel through window.jupyterapp
            "exposeAppInBrowser": True,
            "litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {"disablePyPIFallback": True},
            },
        },
    }
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=1))
    return pyodide


def chapters(root: Path) -> list[Path]:
    return sorted((root / "book").glob("[0-9][0-9]_*.ipynb"))


#: a MyST target line, ``(label)=``, which JupyterLab would show as text
MYST_TARGET = re.compile(r"^\(([^()\s]+)\)=[ \t]*\n?", flags=re.M)


def tex_macros(macros: dict[str, Any]) -> str:
    """The book's MathJax macros (``mathjax3_config.tex.macros``) as ``\\newcommand``s."""
    out = []
    for name, body in macros.items():
        if isinstance(body, (list, tuple)):
            out.append(f"\\newcommand{{\\{name}}}[{body[1]}]{{{body[0]}}}")
        else:
            out.append(f"\\newcommand{{\\{name}}}{{{body}}}")
    return " ".join(out)


def lite_notebook(nb: dict, macros: dict[str, Any]) -> dict:
    """The chapter as the site serves it: the same code cells (sources, outputs, tags), a
    first cell that defines the book's TeX macros for JupyterLab's MathJax (they live in
    ``_config.yml``, which JupyterLab does not read), and no MyST target lines."""
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text = MYST_TARGET.sub("", "".join(cell["source"]))
            cell["source"] = text.splitlines(keepends=True)
    note = ("*Kernel Theory*, running in your browser (JupyterLite, with the Pyodide kernel). "
            "Run the cells from the top (Run, Run All Cells). The first code cell imports numpy, "
            "scipy, scikit-learn and matplotlib, which are downloaded from Pyodide's CDN; "
            "offline, run `import sympy as sp` instead and the symbolic cells still work. "
            "(This cell also defines the book's TeX macros for the formulas below.)$"
            + tex_macros(macros) + "$")
    nb["cells"].insert(0, {"cell_type": "markdown", "id": "kt-lite-macros",
                           "metadata": {"tags": ["kt-lite"]}, "source": [note]})
    return nb


def build_site(root: Path, outdir: Path, work: Path, macros: dict[str, Any] | None = None) -> None:
    """Build the JupyterLite site into ``outdir`` (its ``lite_dir``, the notebooks as served
    and doit's state in ``work``)."""
    root, outdir, work = root.resolve(), outdir.resolve(), work.resolve()
    lite_dir = work / "lite-src"
    stage(root, lite_dir)
    shutil.rmtree(outdir, ignore_errors=True)
    served = work / "notebooks"
    shutil.rmtree(served, ignore_errors=True)
    served.mkdir(parents=True)
    for nb in chapters(root):
        text = json.dumps(lite_notebook(json.loads(nb.read_text()), macros or {}), indent=1, ensure_ascii=False)
        (served / nb.name).write_text(text + "\n")
    contents = [arg for nb in sorted(served.glob("*.ipynb")) for arg in ("--contents", str(nb))]
    cmd = [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(lite_dir), "--output-dir",
           str(outdir), "--apps", "notebooks", "--no-sourcemaps", "--no-unused-shared-packages", *contents]
    done = subprocess.run(cmd, cwd=lite_dir, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"jupyter lite build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    settings = json.loads((outdir / "jupyter-lite.json").read_text())["jupyter-config-data"]
    url = settings["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"].get("pyodideUrl", "")
    if url != "./static/pyodide/pyodide.mjs":
        raise RuntimeError(f"the JupyterLite site does not use its own Pyodide (pyodideUrl {url!r})")


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.name != "html":
        return
    root = Path(app.confdir)
    out = Path(app.outdir)
    macros = (app.config.mathjax3_config or {}).get("tex", {}).get("macros", {})
    build_site(root, out / "lite", out.parent / ".lite", macros)


LINK = (
    '<div class="kt-lite admonition tip"><p class="admonition-title">Run this chapter in your browser</p>'
    '<p><a class="kt-lite-link reference external" href="{href}">Open {name} in JupyterLite</a>: '
    "the chapter's notebook in a Python kernel (Pyodide) that runs in this browser tab, with "
    "<code>ktheory</code> from this site. Nothing to install. The chapter&#8217;s first cell "
    "imports numpy, so it fetches numpy, scipy, scikit-learn and matplotlib from Pyodide&#8217;s "
    "CDN; without a network the kernel still starts, and after <code>import sympy as sp</code> "
    'the symbolic cells run (see <a href="{preface}">running the chapters</a>).</p></div>'
)


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if app.builder.name != "html" or not CHAPTER.match(pagename) or "body" not in context:
        return
    if not (Path(app.confdir) / (pagename + ".ipynb")).is_file():  # a chapter notebook only
        return
    name = pagename.split("/")[-1] + ".ipynb"
    href = context["pathto"]("lite/notebooks/index.html", 1) + "?path=" + name
    preface = context["pathto"]("book/00_preface") + "#run-in-the-browser"
    context["body"] = LINK.format(href=href, name=name, preface=preface) + context["body"]


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
