"""The built HTML book, opened in headless Chromium as a reader would.

For every page of the table of contents, served from localhost with all other
network access blocked, it asserts that

* MathJax (served from the build, not a CDN) typeset the mathematics: the page has
  ``mjx-container`` elements when its source has mathematics, and no ``mjx-merror``;
* no raw TeX delimiters (``$$``, ``\\(``, ``\\[``, ``\\begin{``) are left in the visible
  text outside code blocks;
* every image (the chapters' figures) loaded, with a non-zero natural width;
* no script error (an uncaught exception, such as a ``SyntaxError``) is logged to the console;
* in a 1366-pixel-wide window no code block scrolls sideways, nor the page, and the tables
  of the markdown pages (the verification dashboard's) are fully in view.

Run after ``jupyter-book build .`` (``make test-browser`` builds first). Under ``make``
(which sets ``KTHEORY_REQUIRE_BROWSER=1``) a missing Chromium, ChromeDriver or build is a
failure with the command that installs it; only ``make test SKIP_BROWSER=1`` skips the
check, by name. Run by hand without that variable, the tests skip with the reason.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import socketserver
import tempfile
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
# Overridable to check a private build: KTHEORY_BOOK_HTML=/tmp/jb/_build/html KTHEORY_TOC=/tmp/toc.yml
HTML = Path(os.environ.get("KTHEORY_BOOK_HTML", ROOT / "_build" / "html"))
TOC = Path(os.environ.get("KTHEORY_TOC", ROOT / "_toc.yml"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("KTHEORY_REQUIRE_BROWSER") == "1"


def _unavailable(reason: str) -> None:
    """Fail where the check is required (make), skip where it is run by hand."""
    if REQUIRED:
        pytest.fail(reason + " (or skip the browser check by name: make test SKIP_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


def toc_pages() -> list[str]:
    text = TOC.read_text(encoding="utf-8")
    return re.findall(r"^\s*(?:-\s*)?(?:root|file):\s*(\S+)\s*$", text, flags=re.M)


def page_has_math(entry: str) -> bool:
    for ext in (".md", ".ipynb"):
        p = ROOT / f"{entry}{ext}"
        if p.is_file():
            src = p.read_text(encoding="utf-8")
            return bool(re.search(r"\$|\\begin\{|\{math\}|text/latex", src))
    return False


@contextlib.contextmanager
def _serve(directory: Path, prefix: str = ""):
    """Serve ``directory`` on a free localhost port (quietly); yields the base URL. With a
    ``prefix`` the site is served only under ``/<prefix>/`` (a site not at the root)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):  # noqa: D102
            if prefix:
                if not path.startswith(f"/{prefix}/"):
                    return str(directory / "__not_served__")
                path = path[len(prefix) + 1:]
            return super().translate_path(path)

        def log_message(self, *args, **kwargs):  # noqa: D102 - keep the test output clean
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    httpd = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}" + (f"/{prefix}" if prefix else "")
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").is_file():
        _unavailable("the HTML book is not built (run `make book` or `make test-build` first)")
    with _serve(HTML) as url:
        yield url


@pytest.fixture(scope="module")
def driver():
    if CHROMIUM is None or CHROMEDRIVER is None:
        _unavailable("headless Chromium and ChromeDriver are not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="kt-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,2000",
        f"--user-data-dir={profile}",
        # Everything but the local server is unreachable: the page must need no network.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ):
        opts.add_argument(flag)
    # the console, read by test_no_page_logs_a_script_error
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.set_page_load_timeout(60)
    drv.set_script_timeout(60)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const imgs = Array.from(document.images);
const loaded = Promise.all(imgs.map(img => img.complete ? Promise.resolve() :
    new Promise(r => { img.onload = r; img.onerror = r; })));
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise : Promise.resolve();
Promise.all([loaded, typeset]).then(() => done(true), () => done(false));
"""

INSPECT = """
const body = document.querySelector('main') || document.body;
const clone = body.cloneNode(true);
clone.querySelectorAll('mjx-container, pre, code, script, style, .highlight, mjx-assistive-mml').forEach(e => e.remove());
return {
  mathjax: !!(window.MathJax && MathJax.version),
  mathjaxSrc: Array.from(document.scripts).map(s => s.src).filter(s => /mathjax/i.test(s)),
  containers: document.querySelectorAll('mjx-container').length,
  errors: document.querySelectorAll('mjx-merror').length,
  text: clone.innerText || clone.textContent,
  images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0})),
};
"""


@pytest.mark.parametrize("entry", toc_pages())
def test_page_renders_math_and_figures(server, driver, entry):
    driver.get(f"{server}/{entry}.html")
    assert driver.execute_async_script(WAIT_FOR_MATHJAX), "MathJax startup failed"
    info = driver.execute_script(INSPECT)
    src = info["mathjaxSrc"]
    assert all(s.startswith(server) for s in src), f"MathJax must be served by the book itself, got {src}"
    if page_has_math(entry):
        assert src, "the page has mathematics but no MathJax script"
        assert info["mathjax"], "MathJax did not load"
        assert info["containers"] > 0, "the page has mathematics but nothing was typeset"
    assert info["errors"] == 0, f"{info['errors']} MathJax errors (mjx-merror) on the page"
    for raw in ("$$", "\\(", "\\[", "\\begin{"):
        assert raw not in info["text"], f"raw TeX {raw!r} left in the visible text"
    broken = [i["src"] for i in info["images"] if not i["ok"]]
    assert not broken, f"images that did not load: {broken}"
    if entry.split("/")[-1][:2].isdigit() and not entry.endswith("00_preface"):
        figures = [i for i in info["images"] if "_images/" in (i["src"] or "") or (i["src"] or "").startswith("data:")]
        assert figures, "a chapter page without any figure"


# --- the printable edition (make pdf) -------------------------------------------------

SINGLE = Path(os.environ.get("KTHEORY_SINGLEHTML", ROOT / "_build" / "singlehtml"))
PDF = Path(os.environ.get("KTHEORY_PDF", ROOT / "_build" / "kernel-theory.pdf"))


def toc_titles() -> list[str]:
    """The first-level title of every page in the table of contents, from its source."""
    titles = []
    for entry in toc_pages():
        md, nb = ROOT / f"{entry}.md", ROOT / f"{entry}.ipynb"
        if nb.is_file():
            import json

            cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        elif md.is_file():  # also the dashboard, once a build has generated it
            text = md.read_text(encoding="utf-8")
        else:
            text = ""
        m = re.search(r"^# (.+)$", text, flags=re.M)
        if m:
            titles.append(m.group(1).strip())
    return titles


@pytest.fixture(scope="module")
def single_server():
    if not (SINGLE / "kernel-theory.html").is_file():
        _unavailable("the printable edition is not built (run `make pdf` first)")
    with _serve(SINGLE) as url:
        yield url


def test_pdf_source_page_holds_every_chapter(single_server, driver):
    """The page printed to PDF has every page of the table of contents, typeset, with its
    figures, and under print media each chapter's title starts a new page."""
    driver.set_script_timeout(600)
    driver.set_page_load_timeout(600)
    driver.get(f"{single_server}/kernel-theory.html")
    assert driver.execute_async_script(WAIT_FOR_MATHJAX), "MathJax startup failed"
    info = driver.execute_script(INSPECT)
    assert info["mathjax"] and info["containers"] > 1000, "the mathematics was not typeset"
    assert info["errors"] == 0, f"{info['errors']} MathJax errors"
    for raw in ("$$", "\\begin{"):
        assert raw not in info["text"], f"raw TeX {raw!r} left in the visible text"
    broken = [i["src"] for i in info["images"] if not i["ok"]]
    assert not broken, f"images that did not load: {broken[:5]}"
    # on the single page the root document holds the only h1; each chapter's title is an h2
    heads = driver.execute_script(
        "return Array.from(document.querySelectorAll('section > h2')).map(h => h.textContent)")

    def norm(t: str) -> str:
        return re.sub(r"[#¶]\s*$", "", t.replace("\u2019", "'").replace("`", "")).strip()

    heads = [norm(t) for t in heads]
    titles = [norm(t) for t in toc_titles()[1:]]  # [0] is the root document, the h1
    assert len(titles) >= 15
    missing = [t for t in titles if not any(t == h for h in heads)]
    assert not missing, f"chapters missing from the printable page: {missing}"
    figures = [i for i in info["images"] if "_images/" in (i["src"] or "")]
    assert len(figures) >= 30, f"only {len(figures)} figures on the printable page"
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        breaks = driver.execute_script(
            "return Array.from(document.querySelectorAll('section > h2'))"
            ".map(h => getComputedStyle(h).breakBefore)")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert breaks.count("page") >= len(titles) - 1, f"chapters do not start new pages: {breaks}"


def test_pdf_was_printed():
    if not PDF.is_file():
        _unavailable("the printable edition is not built (run `make pdf` first)")
    data = PDF.read_bytes()
    assert data.startswith(b"%PDF-")
    import importlib.util

    spec = importlib.util.spec_from_file_location("print_pdf", ROOT / "scripts" / "print_pdf.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    pages = mod.page_count(data)
    # every page of the table of contents starts a page, and the chapters are long
    assert pages >= 10 * len([e for e in toc_pages() if re.search(r"/\d\d_", e)]), pages


# --- code that fits the page at 1366 pixels -------------------------------------------

SCROLLING = """
const sel = 'div.cell_input pre, div.cell_output pre, div.output pre, div.highlight pre';
return Array.from(document.querySelectorAll(sel))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => (e.innerText || '').split('\\n').reduce((a, b) => a.length >= b.length ? a : b, '').slice(0, 70));
"""


@pytest.mark.parametrize("entry", [e for e in toc_pages() if (ROOT / f"{e}.ipynb").is_file()])
def test_no_code_block_scrolls_at_1366_pixels(server, driver, entry):
    """In a 1366-pixel-wide window (a common laptop) no code cell or output scrolls sideways."""
    size = driver.get_window_size()
    driver.set_window_size(1366, 900)
    try:
        driver.get(f"{server}/{entry}.html")
        assert driver.execute_async_script(WAIT_FOR_MATHJAX), "MathJax startup failed"
        total = driver.execute_script(
            "return document.querySelectorAll('div.cell_input pre, div.cell_output pre').length")
        scrolling = driver.execute_script(SCROLLING)
    finally:
        driver.set_window_size(size["width"], size["height"])
    assert total > 10, "no code cells found: the selector does not match the theme"
    assert not scrolling, f"{len(scrolling)} of {total} code blocks scroll sideways, e.g. {scrolling[:3]}"


MARKDOWN_PAGES = [e for e in toc_pages() if not (ROOT / f"{e}.ipynb").is_file()]
# Pages whose tables may scroll inside their container at 1366 pixels: the benchmark
# page's table of every recorded comparison has nine columns of long names.
WIDE_TABLES = {"book/performance"}

FITS = """
const view = document.documentElement.clientWidth;
const tables = Array.from(document.querySelectorAll('article table')).map(t => {
  const box = t.parentElement;  // the theme wraps each table in a scrolling container
  const cells = t.rows.length ? Array.from(t.rows[0].cells) : [];
  const last = cells.length ? cells[cells.length - 1] : t;
  return {
    head: cells.map(c => c.innerText.trim()).join(' | ').slice(0, 90),
    right: t.getBoundingClientRect().right,
    lastRight: last.getBoundingClientRect().right,
    boxRight: box.getBoundingClientRect().right,
    scrolls: box.scrollWidth > box.clientWidth + 1,
  };
});
return {view: view, pageScrolls: document.documentElement.scrollWidth > view + 1,
        pres: document.querySelectorAll('article pre').length, tables: tables};
"""


@pytest.mark.parametrize("entry", MARKDOWN_PAGES)
def test_markdown_page_fits_at_1366_pixels(server, driver, entry):
    """The markdown pages at 1366 pixels: no code block (the preface's commands, the API
    appendix's docstring examples) scrolls sideways, nor the page, and every table (the
    verification dashboard's nine columns, its run time last) is fully in view."""
    size = driver.get_window_size()
    driver.set_window_size(1366, 900)
    try:
        driver.get(f"{server}/{entry}.html")
        assert driver.execute_async_script(WAIT_FOR_MATHJAX), "MathJax startup failed"
        scrolling = driver.execute_script(SCROLLING)
        info = driver.execute_script(FITS)
    finally:
        driver.set_window_size(size["width"], size["height"])
    if entry.endswith(("00_preface", "appendix_d_api")):
        assert info["pres"] > 0, "no code blocks found: the selector does not match the theme"
    assert not scrolling, f"{len(scrolling)} of {info['pres']} code blocks scroll sideways, e.g. {scrolling[:3]}"
    assert not info["pageScrolls"], "the page scrolls sideways"
    if entry.endswith("dashboard"):
        assert info["tables"], "the dashboard has no table"
    if entry in WIDE_TABLES:
        return
    for t in info["tables"]:
        assert not t["scrolls"] and t["lastRight"] <= min(t["boxRight"], info["view"]) + 1, (
            f"table cut at the right (its last column ends at {t['lastRight']:.0f} px, the "
            f"view at {min(t['boxRight'], info['view']):.0f} px): {t['head']}")


@pytest.mark.parametrize("entry", toc_pages())
def test_no_page_logs_a_script_error(server, driver, entry):
    """No script on the page fails: the console has no uncaught exception (e.g. the
    ``SyntaxError: Identifier 'THEBE_JS_URL' has already been declared`` of an inline
    script written twice into the page)."""
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(f"{server}/{entry}.html")
    assert driver.execute_async_script(WAIT_FOR_MATHJAX), "MathJax startup failed"
    errors = [e["message"] for e in driver.get_log("browser")
              if e.get("level") == "SEVERE" and re.search(r"Uncaught|SyntaxError|THEBE_JS_URL", e["message"])]
    assert not errors, f"script errors in the console: {errors[:3]}"
