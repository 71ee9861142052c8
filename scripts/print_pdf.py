"""Print the single-page HTML edition of the book to PDF with headless Chromium.

Usage: ``python scripts/print_pdf.py SINGLEHTML_DIR OUT.pdf`` (``make pdf`` runs it after
``jupyter-book build . --builder singlehtml``). The page is served from localhost with
every other host unreachable, MathJax (served from the build) finishes typesetting and
every image loads before Chromium's ``Page.printToPDF`` prints it, so the PDF has the
mathematics typeset and the figures in place; ``book/_static/print.css`` starts each
chapter on a new page and hides the navigation. Prints the number of pages.
"""

from __future__ import annotations

import base64
import functools
import http.server
import re
import shutil
import socketserver
import sys
import tempfile
import threading
from pathlib import Path

#: The single page, copied to the build's root, where its relative paths resolve.
PAGE = "kernel-theory.html"

WAIT = """
const done = arguments[arguments.length - 1];
const imgs = Array.from(document.images);
const loaded = Promise.all(imgs.map(img => img.complete ? Promise.resolve() :
    new Promise(r => { img.onload = r; img.onerror = r; })));
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise : Promise.resolve();
Promise.all([loaded, typeset]).then(() => done(true), () => done(false));
"""


def page_count(pdf: bytes) -> int:
    """Pages of a PDF written by Chromium (its page objects are plain dictionaries)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def main(html_dir: str, out: str) -> int:
    root = Path(html_dir)
    source = root / "book" / "index.html"
    if not source.is_file():
        print(f"print_pdf: {source} not found; build the single-page HTML first", file=sys.stderr)
        return 2
    # Sphinx writes the single page under book/ (the root document is book/index) with paths
    # relative to the build's root (_static/, _images/); the page is printed from there.
    page = PAGE
    (root / page).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver_bin = shutil.which("chromedriver")
    if chromium is None or driver_bin is None:
        print("print_pdf: headless Chromium and ChromeDriver are needed "
              "(Debian: apt-get install chromium chromium-driver)", file=sys.stderr)
        return 2
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args, **kwargs):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    httpd = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="kt-pdf-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(driver_bin), options=opts)
    try:
        # printing ~200 pages can take minutes on a busy 2-core machine: raise the client's
        # 120 s read timeout for the commands below
        drv.command_executor._client_config.timeout = 1800
        drv.set_page_load_timeout(600)
        drv.set_script_timeout(900)
        drv.get(f"http://127.0.0.1:{httpd.server_address[1]}/{page}")
        if not drv.execute_async_script(WAIT):
            print("print_pdf: MathJax did not finish typesetting", file=sys.stderr)
            return 1
        errors = drv.execute_script("return document.querySelectorAll('mjx-merror').length")
        if errors:
            print(f"print_pdf: {errors} MathJax errors on the page", file=sys.stderr)
            return 1
        result = drv.execute_cdp_cmd("Page.printToPDF", {
            "printBackground": True, "preferCSSPageSize": False, "scale": 0.8,
            "paperWidth": 8.27, "paperHeight": 11.69,  # A4, inches
            "marginTop": 0.6, "marginBottom": 0.6, "marginLeft": 0.55, "marginRight": 0.55,
            "displayHeaderFooter": True,
            "headerTemplate": "<span></span>",
            "footerTemplate": ('<div style="font-size:8px;width:100%;text-align:center;">'
                               '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'),
        })
    finally:
        drv.quit()
        httpd.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    pdf = base64.b64decode(result["data"])
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(pdf)
    print(f"print_pdf: wrote {out}: {page_count(pdf)} pages, {len(pdf) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
