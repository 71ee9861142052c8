"""Sphinx extension: the verification dashboard, generated from the notebooks at build time.

On ``config-inited`` (before the table of contents is read) it writes
``book/dashboard.md`` from the chapters themselves: for each ``book/NN_*.ipynb`` listed in
``_toc.yml``,

* **checks**: ``assert`` statements plus calls of ``assert_*`` functions
  (``np.testing.assert_allclose`` and the like) in code cells, counted on the parsed
  syntax tree, so a word "assert" in a string or a comment does not count;
* **symbolic**: those checks whose statement uses sympy (``sp.``);
* **figures**: image outputs stored in the notebook;
* **exercises** and **solutions**: ``{exercise}`` directives and ``{solution}`` /
  ``{solution-start}`` directives;
* **errata**: entries of the chapter's fragments ``book/errata/chNN.md`` and
  ``chNN_wording.md`` (each begins with an ``(err-...)=`` target);
* **citations**: distinct BibTeX keys cited with ``{cite...}`` roles;
* **run time**: seconds from the first code cell's start to the last one's reply, from
  the timing metadata that the run that stored the outputs wrote into the notebook.

The page is not committed (``.gitignore``): every build writes it anew, so it changes
when a chapter changes. ``tests/test_dashboard.py`` recounts every column by other means.
"""

from __future__ import annotations

import ast
import datetime as _dt
import json
import re
from pathlib import Path

PAGE = "book/dashboard.md"
_FENCE = re.compile(r"^(`{3,}|:{3,})\s*\{(exercise|solution|solution-start)\}", re.M)
_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def chapters(root: Path) -> list[Path]:
    """Chapter notebooks in table-of-contents order."""
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    out = []
    for entry in re.findall(r"^\s*-?\s*file:\s*(\S+)\s*$", toc, flags=re.M):
        p = root / f"{entry}.ipynb"
        if p.is_file() and re.match(r"\d\d_", p.name):
            out.append(p)
    return out


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


class _Checks(ast.NodeVisitor):
    def __init__(self, lines: list[str]):
        self.lines = lines
        self.total = 0
        self.symbolic = 0

    def _count(self, node: ast.AST) -> None:
        text = "\n".join(self.lines[node.lineno - 1:node.end_lineno])
        self.total += 1
        if re.search(r"\bsp\.", text):
            self.symbolic += 1

    def visit_Assert(self, node: ast.Assert) -> None:
        self._count(node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name.startswith("assert_"):
            self._count(node)
        self.generic_visit(node)


def _seconds(cells: list[dict]) -> float | None:
    starts, ends = [], []
    for c in cells:
        ex = c.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in ex and "shell.execute_reply" in ex:
            starts.append(ex["iopub.execute_input"])
            ends.append(ex["shell.execute_reply"])
    if not starts:
        return None
    t = [_dt.datetime.fromisoformat(s.replace("Z", "+00:00")) for s in (min(starts), max(ends))]
    return (t[1] - t[0]).total_seconds()


def errata_count(root: Path, number: str) -> int:
    """Entries of the chapter's errata fragments (computational and wording), by their ids."""
    total = 0
    for name in (f"ch{number}.md", f"ch{number}_wording.md"):
        p = root / "book" / "errata" / name
        if p.is_file():
            total += len(re.findall(r"^\(err-[\w-]+\)=\s*$", p.read_text(encoding="utf-8"), flags=re.M))
    return total


def collect(root: Path) -> list[dict]:
    rows = []
    for nb_path in chapters(root):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        cells = nb["cells"]
        md = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
        title = next((ln[2:].strip() for ln in md.splitlines() if ln.startswith("# ")), nb_path.stem)
        checks = _Checks([])
        figures = 0
        for c in cells:
            if c["cell_type"] != "code":
                continue
            src = _source(c)
            checks.lines = src.splitlines()
            checks.visit(ast.parse(src))
            for out in c.get("outputs", []):
                data = out.get("data", {})
                figures += int("image/png" in data or "image/svg+xml" in data)
        kinds = [m.group(2) for m in _FENCE.finditer(md)]
        keys = {k.strip() for group in _CITE.findall(md) for k in group.split(",")}
        number = nb_path.name[:2]
        rows.append({
            "number": int(number), "title": title, "doc": nb_path.stem,
            "checks": checks.total, "symbolic": checks.symbolic, "figures": figures,
            "exercises": kinds.count("exercise"),
            "solutions": kinds.count("solution") + kinds.count("solution-start"),
            "errata": errata_count(root, number), "citations": len(keys),
            "seconds": _seconds(cells),
        })
    return rows


COLUMNS = ["checks", "symbolic", "figures", "exercises", "solutions", "errata", "citations"]


def render(rows: list[dict]) -> str:
    head = (
        "(dashboard)=\n# Verification dashboard\n\n"
        "This page is generated from the chapters each time the book is built (by\n"
        "`book/_ext/kt_dashboard.py`); nothing on it is typed by hand. **Checks** are `assert`\n"
        "statements and `assert_*` calls in the code cells (counted on the parsed code), of which\n"
        "**symbolic** use sympy; **figures** are stored image outputs; **exercises** and\n"
        "**solutions** count the exercise and solution blocks; **errata** are the entries the\n"
        "chapter contributes to {doc}`appendix_b_errata`; **citations** are distinct references\n"
        "cited; **run time** is the wall-clock time of the run that stored the chapter's outputs\n"
        "(on a 2-core machine, with other work running), from the timing metadata in the notebook.\n\n"
        "| Chapter | checks | symbolic | figures | exercises | solutions | errata | citations | run time (s) |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n"
    )
    lines = []
    for r in rows:
        t = "–" if r["seconds"] is None else f"{r['seconds']:.1f}"
        cells = " | ".join(str(r[c]) for c in COLUMNS)
        lines.append(f"| {{doc}}`{r['number']}. {r['title'].split('. ', 1)[-1]} <{r['doc']}>` | {cells} | {t} |")
    tot = {c: sum(r[c] for r in rows) for c in COLUMNS}
    secs = sum(r["seconds"] or 0.0 for r in rows)
    lines.append(f"| **Total ({len(rows)} chapters)** | " + " | ".join(f"**{tot[c]}**" for c in COLUMNS)
                 + f" | **{secs:.1f}** |")
    return head + "\n".join(lines) + "\n"


def write_page(root: Path) -> Path:
    page = root / PAGE
    text = render(collect(root))
    if not page.is_file() or page.read_text(encoding="utf-8") != text:
        page.write_text(text, encoding="utf-8")
    return page


def _on_config_inited(app, config) -> None:  # pragma: no cover - exercised by the build
    root = Path(app.srcdir)
    write_page(root)


def dedupe_inline_scripts(app, env=None) -> None:
    """Drop the second copy of each inline ``<script>`` that Sphinx 7.4 writes twice.

    ``app.add_js_file(None, body=...)`` called after the HTML builder started (sphinx-thebe's
    ``const THEBE_JS_URL = ...`` on ``env-before-read-docs``, sphinx-togglebutton's selector
    on ``builder-inited``) stores the script in the builder with the file name ``None``;
    ``prepare_writing`` then adds the registry's copy again as ``''``, which compares
    unequal, so every page declared ``const THEBE_JS_URL`` twice and logged "Uncaught
    SyntaxError: Identifier 'THEBE_JS_URL' has already been declared". Sphinx 8.2 fixes
    this (sphinx-doc/sphinx#13402); here the builder's list is normalised to ``''`` before
    writing, so that copy is recognised as the same script. A no-op for other builders.
    """
    files = getattr(app.builder, "_js_files", None)
    if not isinstance(files, list):
        return
    unique = []
    for js in files:
        if getattr(js, "filename", "") is None:
            js = type(js)("", priority=js.priority, **js.attributes)
        if js not in unique:
            unique.append(js)
    files[:] = unique


def setup(app):  # pragma: no cover - exercised by the build
    app.connect("config-inited", _on_config_inited, priority=10)
    # after the last extension added its scripts (env-before-read-docs), before writing
    app.connect("env-updated", dedupe_inline_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
