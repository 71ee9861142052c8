"""The chapters in the reader's browser: JupyterLite with the Pyodide kernel.

What can be checked without the network:

* the site's Pyodide lock (``book/_ext/kt_lite.py``): every wheel the site serves is there
  with its own sha256, every other package points at Pyodide's CDN by absolute URL, and
  ``ktheory``'s declared dependencies (distribution names and version ranges) are in it;
* every module a chapter imports is in Pyodide's standard library (its ``python_stdlib.zip``
  or compiled into ``pyodide.asm.wasm``), in the lock, or ``ktheory``;
* under Node, with Pyodide's npm package, the ``ktheory`` wheel installs with micropip
  (``deps=False``), ``import ktheory`` works and sympy runs;
* on the built site (``browser``): each chapter page links to its notebook in JupyterLite;
  the site is under 150 MB; served under a sub-path, with every outside host refused by a
  recording proxy, the kernel starts and the sympy cells tagged ``lite-offline`` in
  chapter 7 run to their stored outputs; and no page asks any outside host for anything.

What needs the network (numpy, scipy, scikit-learn and matplotlib come from Pyodide's CDN)
is named by ``test_numpy_cells_need_the_network``, which skips, saying so.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import kt_lite  # noqa: E402

CACHE = ROOT / ".pyodide" / kt_lite.PYODIDE_VERSION
HTML = Path(os.environ.get("KTHEORY_BOOK_HTML", ROOT / "_build" / "html"))
#: imported only behind a switch that is off where the package is absent (as in Pyodide)
OPTIONAL = {"dask": "chapter 12's USE_DASK", "numba": "chapter 8's HAVE_NUMBA"}
TAG = "lite-offline"
#: what the test runs first: the part of chapter 7's first cell that needs no compiled package
PREAMBLE = "import sympy as sp"


def _need_cache() -> None:
    if importlib.util.find_spec("jupyterlite_core") is None:  # make test-latest / test-oldest
        pytest.skip("the book's toolchain (the [book] extra: JupyterLite, setuptools>=77) is not installed")
    if not (CACHE / "FETCHED").is_file():
        pytest.skip(f"{CACHE} is missing: run `python scripts/fetch_pyodide.py` (make setup does)")


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    _need_cache()
    return kt_lite.stage(ROOT, tmp_path_factory.mktemp("lite") / "lite-src")


def _lock(pyodide: Path) -> dict:
    return json.loads((pyodide / "pyodide-lock.json").read_text())["packages"]


def test_lock_serves_local_wheels_and_the_cdn(staged):
    packages = _lock(staged)
    local = {n: e for n, e in packages.items() if "://" not in e["file_name"]}
    for name, entry in local.items():
        path = staged / entry["file_name"]
        assert path.is_file(), f"{name}: {entry['file_name']} is not on the site"
        assert kt_lite.sha256(path) == entry["sha256"], f"{name}: sha256 of {path.name} differs from the lock"
    for name in ("micropip", "ipython", "jedi", "sympy", "mpmath", "ktheory", "array-api-compat", "comm"):
        assert name in local, f"{name} must be served by the site"
    for name in ("numpy", "scipy", "scikit-learn", "matplotlib"):
        assert packages[name]["file_name"].startswith(kt_lite.CDN), f"{name} must come from Pyodide's CDN"
    remote = [e["file_name"] for e in packages.values() if "://" in e["file_name"]]
    assert all(f.startswith(kt_lite.CDN) for f in remote)
    wheels = sorted(p.name for p in staged.glob("*.whl"))
    assert wheels == sorted(e["file_name"] for e in local.values()), "a wheel on the site that the lock does not name"


def test_ktheory_dependencies_are_in_pyodides_lock(staged):
    packages = _lock(staged)
    (wheel,) = staged.glob("ktheory-*.whl")
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith("METADATA"))).decode()
    reqs = [Requirement(line.split(":", 1)[1]) for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    runtime = [r for r in reqs if r.marker is None]
    assert {kt_lite.norm(r.name) for r in runtime} >= {"numpy", "scipy", "sympy", "scikit-learn"}
    for req in runtime:
        name = kt_lite.norm(req.name)
        assert name in packages, f"ktheory depends on {req.name}, which Pyodide's lock lacks"
        assert Version(packages[name]["version"]) in req.specifier, (
            f"ktheory needs {req}, Pyodide has {packages[name]['version']}")
    assert sorted(packages["ktheory"]["depends"]) == sorted(kt_lite.norm(r.name) for r in runtime)
    assert packages["ktheory"]["imports"] == ["ktheory"]


def test_rewrite_lock_refuses_what_it_cannot_serve(staged, tmp_path):
    lock = {"packages": {"sympy": {"name": "sympy", "version": "0.0.1", "file_name": "x.whl", "sha256": "0",
                                    "depends": [], "imports": ["sympy"]}}}
    sympy = next(staged.glob("sympy-*.whl"))
    with pytest.raises(ValueError, match="version"):
        kt_lite.rewrite_lock(lock, [sympy])
    other = next(staged.glob("six-*.whl"))
    with pytest.raises(ValueError, match="neither in Pyodide's lock"):
        kt_lite.rewrite_lock({"packages": {}}, [other])
    (wheel,) = staged.glob("ktheory-*.whl")
    with pytest.raises(ValueError, match="depends on"):
        kt_lite.rewrite_lock({"packages": {}}, [wheel])


def _chapter_imports() -> dict[str, list[tuple[str, bool]]]:
    """Top-level module -> [(chapter, imported inside an ``if`` or a ``try``)] over every code cell."""
    found: dict[str, list[tuple[str, bool]]] = {}
    for nb in kt_lite.chapters(ROOT):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "\n".join(s for s in "".join(cell["source"]).splitlines() if not s.lstrip().startswith(("%", "!")))
            for _, names, guarded in _imports(ast.parse(src), guards=(ast.If, ast.Try)):
                for name in names:
                    if not name.startswith("."):
                        found.setdefault(name.split(".")[0], []).append((nb.name, guarded))
    return found


def test_every_chapter_import_exists_in_pyodide(staged):
    stdlib, provided, wasm = _available_in_pyodide(staged)
    missing = []
    for module, uses in sorted(_chapter_imports().items()):
        if _in_pyodide(module, stdlib, provided, wasm):
            continue
        if module in OPTIONAL and all(guarded for _, guarded in uses):
            continue
        missing.append(f"{module} ({', '.join(sorted({c for c, _ in uses}))})")
    assert not missing, f"imported by a chapter but absent from Pyodide: {missing}"
    assert "ktheory" in provided and "math" not in stdlib and b"PyInit_math\0" in wasm  # what the test relies on


def _available_in_pyodide(staged: Path) -> tuple[set[str], set[str], bytes]:
    with zipfile.ZipFile(staged / "python_stdlib.zip") as z:
        stdlib = {n.split("/")[0].removesuffix(".py") for n in z.namelist()}
    provided = {m for e in _lock(staged).values() for m in e.get("imports", [])}
    return stdlib, provided, (staged / "pyodide.asm.wasm").read_bytes()


def _in_pyodide(module: str, stdlib: set[str], provided: set[str], wasm: bytes) -> bool:
    """In Pyodide's standard library (zipped, or compiled into the interpreter) or its lock."""
    return (module in stdlib or module in provided or module in ("sys", "builtins")
            or b"PyInit_" + module.encode() + b"\0" in wasm)


def _imports(tree: ast.AST, guards: tuple[type, ...] = (ast.FunctionDef, ast.Try)):
    """(node, [module names], lazy) for each import; lazy: inside one of ``guards``."""
    lazy = {id(n) for node in ast.walk(tree) if isinstance(node, guards) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield node, [a.name for a in node.names], id(node) in lazy
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else ["." * node.level + (node.module or "")]
            yield node, names, id(node) in lazy


def test_ktheory_imports_exist_in_pyodide(staged):
    """Every module ktheory imports when its own modules load (KernelPCA's included) is in
    Pyodide. The optional accelerators and backends (numba, Dask) are imported only inside a
    function or a ``try``, or by a module of their own (the compiled SMO, ``svm/_fast.py``)
    that is itself imported only that way."""
    stdlib, provided, wasm = _available_in_pyodide(staged)
    optional = {"numba", "dask", "distributed"}
    trees = {path: ast.parse(path.read_text()) for path in sorted((ROOT / "ktheory").rglob("*.py"))}
    optional_modules = {path.stem for path, tree in trees.items()
                        if any(not lazy and {n.split(".")[0] for n in names} & optional
                               for _, names, lazy in _imports(tree))}
    assert optional_modules == {"_fast"}, optional_modules  # what the rule below relies on
    bad = []
    for path, tree in trees.items():
        for node, names, lazy in _imports(tree):
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            for name in names:
                if name.startswith(".") or name.startswith("ktheory"):
                    if name.split(".")[-1] in optional_modules and not lazy:
                        bad.append(f"{where} imports the optional module {name} eagerly")
                    continue
                module = name.split(".")[0]
                if _in_pyodide(module, stdlib, provided, wasm):
                    continue
                if module in optional and (lazy or path.stem in optional_modules):
                    continue
                bad.append(f"{where} imports {module}, which Pyodide lacks")
    assert not bad, bad


def test_wheel_installs_and_imports_in_pyodide_under_node(staged):
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run Pyodide outside the browser (apt-get install nodejs)")
    (wheel,) = staged.glob("ktheory-*.whl")
    done = subprocess.run([node, str(ROOT / "tests" / "lite" / "pyodide_node.mjs"), str(staged), str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["version"] == kt_lite.wheel_metadata(wheel)["version"]
    assert result["file"].startswith("/lib/python3"), result["file"]
    assert result["sympy"] == "sqrt(pi)"
    # offline, the numerical modules stop at a compiled package that only the CDN has
    assert result["svm"] in {"ModuleNotFoundError: numpy", "ModuleNotFoundError: scipy",
                             "ModuleNotFoundError: sklearn"}, result["svm"]


def _macros() -> dict:
    yaml = pytest.importorskip("yaml")

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]


def test_served_notebooks_keep_every_code_cell_and_define_the_macros():
    macros = _macros()
    assert {"R", "X", "inner", "normH"} <= set(macros)
    for nb in kt_lite.chapters(ROOT):
        original = json.loads(nb.read_text())
        served = kt_lite.lite_notebook(original, macros)
        code = [c for c in original["cells"] if c["cell_type"] == "code"]
        assert [c for c in served["cells"] if c["cell_type"] == "code"] == code, nb.name
        first = "".join(served["cells"][0]["source"])
        for name, body in macros.items():
            args = f"[{body[1]}]" if isinstance(body, list) else ""
            assert f"\\newcommand{{\\{name}}}{args}{{" in first, (nb.name, name)
        text = "".join("".join(c["source"]) for c in served["cells"] if c["cell_type"] == "markdown")
        assert not re.search(r"^\([^()\s]+\)=\s*$", text, flags=re.M), f"{nb.name}: a MyST target left"
        assert len(served["cells"]) == len(original["cells"]) + 1


def test_one_pyodide_version_everywhere():
    sys.path.insert(0, str(ROOT / "scripts"))
    import fetch_pyodide

    kernel = pytest.importorskip("jupyterlite_pyodide_kernel.constants")
    assert kt_lite.PYODIDE_VERSION is fetch_pyodide.PYODIDE_VERSION  # one definition, imported
    assert kt_lite.PYODIDE_VERSION == kernel.PYODIDE_VERSION
    assert f".pyodide/{kt_lite.PYODIDE_VERSION}/FETCHED" in (ROOT / "Makefile").read_text()
    assert f"Pyodide {kt_lite.PYODIDE_VERSION}" in (ROOT / "README.md").read_text()


def test_pinned_wheels_are_what_the_site_needs(staged):
    """requirements/pyodide-wheels.txt pins (with sha256) exactly the pure closure of the
    kernel's and the chapters' packages in Pyodide's lock at its versions, and the extras at
    requirements/lock.txt's; the site serves those files."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import fetch_pyodide

    lock = json.loads((CACHE / "core" / "pyodide-lock.json").read_text())
    assert fetch_pyodide.pinned() == fetch_pyodide.wanted(lock)
    lines = [ln for ln in fetch_pyodide.PINS.read_text().splitlines() if ln and not ln.startswith("#")]
    assert all(re.search(r" --hash=sha256:[0-9a-f]{64}$", ln) for ln in lines)
    digests = {ln.split("==")[0]: ln.rsplit(":", 1)[1] for ln in lines}
    packages = _lock(staged)
    for name, digest in digests.items():
        assert packages[name]["sha256"] == digest, f"{name}: the site serves another file than the pinned one"


def test_numpy_cells_need_the_network():
    pytest.skip("NEEDS THE NETWORK, not checked here: importing ktheory.svm and running the numpy cells in "
                "Pyodide fetch numpy, scipy, scikit-learn and matplotlib from " + kt_lite.CDN)


# --- the built site (after `make test-build`) -----------------------------------------


def _need_site() -> None:
    if not (HTML / "lite" / "jupyter-lite.json").is_file():
        from test_browser import _unavailable

        _unavailable(f"the JupyterLite site is not built in {HTML / 'lite'} (run `make test-build` first)")


@pytest.mark.browser
def test_site_size():
    _need_site()
    total = sum(f.stat().st_size for f in HTML.rglob("*") if f.is_file())
    lite = sum(f.stat().st_size for f in (HTML / "lite").rglob("*") if f.is_file())
    print(f"built site: {total / 1e6:.1f} MB, of which JupyterLite {lite / 1e6:.1f} MB")
    assert total < 150e6, f"the built site is {total / 1e6:.1f} MB (limit 150 MB)"


@pytest.mark.browser
def test_every_chapter_page_links_to_its_notebook_in_jupyterlite():
    _need_site()
    for nb in kt_lite.chapters(ROOT):
        page = HTML / "book" / (nb.stem + ".html")
        html = page.read_text(encoding="utf-8")
        m = re.search(r'<a class="kt-lite-link[^"]*" href="([^"]+)"', html)
        assert m, f"{page.name}: no 'Run in the browser' link"
        href = m.group(1)
        assert href == f"../lite/notebooks/index.html?path={nb.name}", href
        assert 'href="00_preface.html#run-in-the-browser"' in html, f"{page.name}: no link to the preface's section"
        target = (page.parent / href.split("?")[0]).resolve()
        assert target.is_file(), f"{page.name}: the link's page {target} does not exist"
        stored = HTML / "lite" / "files" / nb.name
        served = kt_lite.lite_notebook(json.loads(nb.read_text()), _macros())
        assert json.loads(stored.read_text()) == served, f"{nb.name} on the site is not the chapter's"
    chapter_pages = {HTML / "book" / (nb.stem + ".html") for nb in kt_lite.chapters(ROOT)}
    others = [p for p in HTML.rglob("*.html") if "lite" not in p.relative_to(HTML).parts and p not in chapter_pages]
    assert any(p.name == "00_preface.html" for p in others)
    assert 'id="run-in-the-browser"' in (HTML / "book" / "00_preface.html").read_text(encoding="utf-8")
    linked = [p.name for p in others if "kt-lite-link" in p.read_text(encoding="utf-8")]
    assert not linked, f"pages without a notebook link to JupyterLite: {linked}"


class _Refuse(socketserver.StreamRequestHandler):
    """A proxy's answer to every request: 403 (no outside host is ever reached)."""

    def handle(self):
        self.rfile.readline(4096)
        self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class _Proxy(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Refuse)


def _outside_requests(netlog: Path, origin: str) -> list[str]:
    """URLs outside ``origin`` that its pages or their workers asked for, from Chromium's net log.

    Chromium's own traffic (updates, accounts, autofill) has no initiator; a request made by
    a page, a worker or a service worker of the site names the site's origin."""
    text = netlog.read_text()
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # a log cut short: close its event list
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if event["type"] == start_job and params.get("initiator") == origin:
            if not params["url"].startswith(origin + "/"):
                urls.append(params["url"])
    return urls


@pytest.fixture(scope="module")
def session():
    """Open the site, served under a sub-path, as a reader would; every outside request is
    refused by a proxy and recorded in Chromium's net log. Returns what was seen."""
    _need_site()
    from test_browser import CHROMEDRIVER, CHROMIUM, _serve, _unavailable

    if CHROMIUM is None or CHROMEDRIVER is None:
        _unavailable("headless Chromium and ChromeDriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    proxy = _Proxy()
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    profile = Path(tempfile.mkdtemp(prefix="kt-lite-"))
    netlog = profile / "netlog.json"
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1000", f"--user-data-dir={profile / 'p'}",
                 f"--proxy-server=http://127.0.0.1:{proxy.server_address[1]}", f"--log-net-log={netlog}"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.set_page_load_timeout(90)
    drv.set_script_timeout(240)
    nb = ROOT / "book" / "07_svm_derivation.ipynb"
    seen: dict = {"cells": _tagged_cells(nb), "links": {}}
    try:
        with _serve(HTML, "some/sub/path") as base:
            seen["base"] = base
            for chapter in kt_lite.chapters(ROOT):
                drv.get(f"{base}/book/{chapter.stem}.html")
                links = drv.find_elements("css selector", "a.kt-lite-link")
                seen["links"][chapter.name] = [a.get_attribute("href") for a in links]
            drv.get(f"{base}/lite/notebooks/index.html?path={nb.name}")
            seen["kernel"] = drv.execute_async_script(RUN_CELLS, [PREAMBLE] + [src for src, _ in seen["cells"]])
    finally:
        drv.quit()
        proxy.shutdown()
    seen["outside"] = _outside_requests(netlog, re.match(r"http://[^/]+", base).group(0))
    shutil.rmtree(profile, ignore_errors=True)
    return seen


RUN_CELLS = """
const cells = arguments[0];
const done = arguments[arguments.length - 1];
(async () => {
  const t0 = Date.now();
  const wait = async (what, ok) => {
    while (!ok()) {
      if (Date.now() - t0 > 150000) throw new Error("timed out waiting for " + what);
      await new Promise(r => setTimeout(r, 250));
    }
  };
  // the notebook the link opened, with the kernel JupyterLite starts for it
  await wait("JupyterLite (window.jupyterapp)", () => window.jupyterapp && window.jupyterapp.shell);
  const app = window.jupyterapp;
  await wait("the notebook panel", () => app.shell.currentWidget && app.shell.currentWidget.sessionContext);
  const ctx = app.shell.currentWidget.sessionContext;
  await ctx.ready;
  await wait("the kernel", () => ctx.session && ctx.session.kernel);
  const kernel = ctx.session.kernel;
  const t1 = Date.now();
  await kernel.info;
  const results = [];
  for (const code of cells) {
    const texts = [];
    let error = null;
    const future = kernel.requestExecute({ code, stop_on_error: true });
    future.onIOPub = msg => {
      const t = msg.header.msg_type;
      if (t === "stream") texts.push(msg.content.text);
      else if (t === "execute_result") texts.push(msg.content.data["text/plain"] + "\\n");
      else if (t === "error") error = msg.content.ename + ": " + msg.content.evalue;
    };
    const reply = await future.done;
    results.push({ text: texts.join(""), error, status: reply.content.status });
  }
  return { results, seconds: (Date.now() - t1) / 1000, path: ctx.path };
})().then(r => done({ ok: r }), e => done({ err: String((e && e.stack) || e) }));
"""


def _tagged_cells(nb: Path) -> list[tuple[str, str]]:
    cells = json.loads(nb.read_text())["cells"]
    out = []
    for cell in cells:
        if cell["cell_type"] == "code" and TAG in cell["metadata"].get("tags", []):
            text = "".join("".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream")
            out.append(("".join(cell["source"]), text))
    return out


@pytest.mark.browser
def test_chapter_links_open_jupyterlite_under_a_sub_path(session):
    base = session["base"]
    for name, links in session["links"].items():
        assert links == [f"{base}/lite/notebooks/index.html?path={name}"], (name, links)


@pytest.mark.browser
def test_kernel_starts_offline_and_sympy_cells_reproduce_their_outputs(session):
    cells = session["cells"]
    assert len(cells) >= 5, f"chapter 7 has {len(cells)} cells tagged {TAG!r}"
    for src, _ in cells:  # what the tag promises: the cell needs no compiled package
        mods = {n.split(".")[0] for _, names, _ in _imports(ast.parse(src)) for n in names}
        assert mods <= {"sympy", "itertools", "math"}, mods
    reply = session["kernel"]
    assert "ok" in reply, reply.get("err")
    results = reply["ok"]["results"]
    print(f"kernel start and {len(cells)} sympy cells: {reply['ok']['seconds']:.0f} s")
    assert reply["ok"]["path"] == "07_svm_derivation.ipynb", reply["ok"]["path"]
    assert results[0]["status"] == "ok", results[0]
    for (src, expected), got in zip(cells, results[1:]):
        assert got["status"] == "ok", f"{got['error']} in\n{src}"
        assert got["text"] == expected, f"output {got['text']!r} != stored {expected!r} for\n{src}"


@pytest.mark.browser
def test_pages_ask_no_outside_host(session):
    """The chapter pages, JupyterLite, the kernel's start and the sympy cells ask no outside
    host for anything (only cells that import numpy reach kt_lite.OUTSIDE_HOSTS)."""
    assert "kernel" in session and session["links"]
    assert session["outside"] == [], f"outside requests: {sorted(set(session['outside']))}"
