"""The verification dashboard (book/_ext/kt_dashboard.py) counts what the chapters hold.

Every column is recounted here by a different method than the extension's (tokens instead
of the syntax tree, raw JSON instead of parsed outputs, substring counts instead of
directive regexes), on the notebooks themselves; and the page must change when a chapter
changes.
"""

from __future__ import annotations

import copy
import io
import json
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import kt_dashboard as dash  # noqa: E402

CHAPTERS = sorted(ROOT.glob("book/[0-9][0-9]_*.ipynb"))


def _logical_lines(src: str):
    """Yield the token lists of each logical line of ``src``."""
    line = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                yield line
            line = []
        elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            line.append(tok)


def recount_checks(nb: dict) -> tuple[int, int]:
    total = symbolic = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for toks in _logical_lines("".join(cell["source"])):
            names = [t.string for t in toks if t.type == tokenize.NAME]
            n = names.count("assert") + sum(
                1 for i, t in enumerate(toks[:-1])
                if t.type == tokenize.NAME and t.string.startswith("assert_") and toks[i + 1].string == "("
            )
            total += n
            text = " ".join(t.string for t in toks)
            if n and re.search(r"\bsp \.", text):
                symbolic += n
    return total, symbolic


def test_chapters_exist():
    assert len(CHAPTERS) >= 11
    assert [p.name for p in dash.chapters(ROOT)] == [p.name for p in CHAPTERS]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_counts_agree_with_the_notebook(path):
    row = {r["doc"]: r for r in dash.collect(ROOT)}[path.stem]
    raw = path.read_text(encoding="utf-8")
    nb = json.loads(raw)
    total, symbolic = recount_checks(nb)
    assert row["checks"] == total
    assert row["symbolic"] == symbolic
    assert row["checks"] > 0
    assert row["figures"] == raw.count('"image/png":') + raw.count('"image/svg+xml":')
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert row["exercises"] == md.count("{exercise}")
    assert row["solutions"] == md.count("{solution}") + md.count("{solution-start}")
    keys = set()
    for role in re.finditer(r"\{cite[^}]*\}`([^`]*)`", md):
        keys.update(k.strip() for k in role.group(1).split(","))
    assert row["citations"] == len(keys)
    ids = []
    for fragment in (ROOT / "book" / "errata").glob(f"ch{path.name[:2]}*.md"):
        ids += [ln for ln in fragment.read_text(encoding="utf-8").splitlines()
                if ln.startswith("(err-") and ln.rstrip().endswith(")=")]
    assert row["errata"] == len(ids)
    stamps = [c["metadata"]["execution"] for c in nb["cells"]
              if c["cell_type"] == "code" and "execution" in c.get("metadata", {})]
    if stamps:
        first = min(s["iopub.execute_input"] for s in stamps)
        last = max(s["shell.execute_reply"] for s in stamps)
        from datetime import datetime

        def parse(s):
            return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")

        assert row["seconds"] == pytest.approx((parse(last) - parse(first)).total_seconds(), abs=1e-6)
    else:
        assert row["seconds"] is None


def test_every_stored_chapter_has_timing_metadata():
    """A fresh clone's build shows each chapter's run time, so the stored notebooks carry it."""
    missing = [r["doc"] for r in dash.collect(ROOT) if r["seconds"] is None]
    assert not missing, f"re-execute these notebooks to store timing metadata: {missing}"


def test_totals_row_adds_up():
    rows = dash.collect(ROOT)
    page = dash.render(rows)
    total_line = [ln for ln in page.splitlines() if ln.startswith("| **Total")][0]
    numbers = [int(x) for x in re.findall(r"\*\*(\d+)\*\*", total_line)]
    assert numbers == [sum(r[c] for r in rows) for c in dash.COLUMNS]
    assert f"Total ({len(rows)} chapters)" in total_line
    # one table row per chapter, each linking to its page
    for r in rows:
        assert f"<{r['doc']}>`" in page


def test_page_changes_when_a_chapter_changes(tmp_path):
    """Copy the book's sources, add a check and a figure to one chapter: the page follows."""
    for name in ("_toc.yml",):
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "book" / "errata").mkdir(parents=True)
    for p in CHAPTERS:
        (tmp_path / "book" / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    for p in (ROOT / "book" / "errata").glob("*.md"):
        (tmp_path / "book" / "errata" / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    before = dash.write_page(tmp_path).read_text(encoding="utf-8")
    target = tmp_path / "book" / CHAPTERS[0].name
    nb = json.loads(target.read_text(encoding="utf-8"))
    cell = copy.deepcopy(next(c for c in nb["cells"] if c["cell_type"] == "code"))
    cell["source"] = ["assert sp.simplify(sp.sin(x) ** 2 + sp.cos(x) ** 2) == 1\n"]
    cell["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo="}}]
    nb["cells"].append(cell)
    target.write_text(json.dumps(nb), encoding="utf-8")
    after = dash.write_page(tmp_path).read_text(encoding="utf-8")
    assert after != before
    old = {r["doc"]: r for r in dash.collect(ROOT)}[CHAPTERS[0].stem]
    new = {r["doc"]: r for r in dash.collect(tmp_path)}[CHAPTERS[0].stem]
    assert (new["checks"], new["symbolic"], new["figures"]) == (
        old["checks"] + 1, old["symbolic"] + 1, old["figures"] + 1)


def test_the_preface_links_the_dashboard_and_the_toc_lists_it():
    assert "<dashboard>`" in (ROOT / "book" / "00_preface.md").read_text(encoding="utf-8")
    assert re.search(r"^\s*-\s*file:\s*book/dashboard\s*$", (ROOT / "_toc.yml").read_text(), re.M)
    assert "book/dashboard.md" in (ROOT / ".gitignore").read_text().splitlines()
