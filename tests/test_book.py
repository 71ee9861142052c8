"""Checks of the book's sources that nbval and Sphinx do not make.

* Every code cell of every notebook has been executed and its outputs stored, in
  order (nbval silently skips a cell whose execution_count is null, so a cleared
  notebook would otherwise "pass" strict mode).
* No stored error, no stderr output (warnings carry run-dependent temp paths),
  no path of the author's machine and no timing output.
* Every notebook in book/ is in _toc.yml and every _toc.yml entry exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
#: The verification dashboard: generated at build time (not committed), so a clone lacks it.
GENERATED_DASHBOARD = "book/dashboard"
#: "How fast is ktheory": generated at build time from benchmarks/results.json.
GENERATED_PERFORMANCE = "book/performance"
NOTEBOOKS = sorted(p for p in BOOK.glob("*.ipynb"))
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:home|root|tmp|work|Users)/")
TIMING = re.compile(r"\b\d+(\.\d+)?\s*(ms|µs|us|s) ± |Wall time:|CPU times:")


def toc_files() -> list[str]:
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    return re.findall(r"^\s*(?:-\s*)?(?:root|file):\s*(\S+)\s*$", text, flags=re.M)


def source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def test_there_are_chapters():
    assert NOTEBOOKS, "book/ holds no notebook"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_fully_executed_in_order(nb_path: Path):
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and source(c).strip()]
    assert code, f"{nb_path.name} has no code cell"
    counts = [c.get("execution_count") for c in code]
    missing = [i for i, n in enumerate(counts) if n is None]
    assert not missing, f"{nb_path.name}: code cells {missing} were never executed (no stored output)"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{nb_path.name}: execution counts {counts} are not 1..{len(counts)}: re-run the notebook top to bottom "
        "(jupyter execute --inplace book/NAME.ipynb)"
    )


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_outputs_are_clean(nb_path: Path):
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    assert nb.get("metadata", {}).get("kernelspec", {}).get("name") == "python3", "kernelspec must be python3"
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", f"{nb_path.name} cell {i}: stored error"
            if out.get("output_type") == "stream":
                assert out.get("name") != "stderr", f"{nb_path.name} cell {i}: output on stderr: {out.get('text')!r:.200}"
            text = json.dumps(out.get("text", "")) + json.dumps(
                {k: v for k, v in out.get("data", {}).items() if k.startswith("text/")}
            )
            assert not MACHINE_PATH.search(text), f"{nb_path.name} cell {i}: a machine path in the output"
            assert not TIMING.search(text), f"{nb_path.name} cell {i}: timing output (timings belong in benchmarks/)"
            assert "image/svg+xml" not in out.get("data", {}), f"{nb_path.name} cell {i}: SVG output (not reproducible)"
            assert " at 0x" not in text, f"{nb_path.name} cell {i}: an object address in the output"


def test_every_notebook_is_in_the_toc_and_every_toc_entry_exists():
    entries = toc_files()
    assert entries and entries[0] == "book/index"
    for entry in entries:
        if entry == GENERATED_DASHBOARD:  # written by book/_ext/kt_dashboard.py at build time
            assert (ROOT / "book" / "_ext" / "kt_dashboard.py").is_file()
            continue
        if entry == GENERATED_PERFORMANCE:  # written by book/_ext/kt_bench.py at build time
            assert (ROOT / "book" / "_ext" / "kt_bench.py").is_file()
            assert (ROOT / "benchmarks" / "results.json").is_file()
            continue
        candidates = [ROOT / f"{entry}{ext}" for ext in ("", ".md", ".ipynb")]
        assert any(c.is_file() for c in candidates), f"_toc.yml lists {entry}, which does not exist"
    listed = {e.removesuffix(".ipynb") for e in entries}
    for nb in NOTEBOOKS:
        assert f"book/{nb.stem}" in listed, f"{nb.name} is not in _toc.yml"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_has_its_parts(nb_path: Path):
    """The chapter shape of BOOK_PLAN.md: an opening, checks, exercises with solutions, references."""
    if nb_path.stem.startswith("00_"):
        pytest.skip("the preface is not a chapter")
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    md = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    code = "\n".join(source(c) for c in nb["cells"] if c["cell_type"] == "code")
    assert re.search(r"what you will learn", md, re.I), "no 'What you will learn' opening"
    assert re.search(r"^\s*assert\b|np\.testing\.assert", code, re.M), "no verification in any code cell"
    n_ex = len(re.findall(r"[`:]{3}\{exercise\}", md))
    n_sol = len(re.findall(r"[`:]{3}\{solution(?:-start)?\}", md))
    assert n_ex >= 1, "no exercises"
    assert n_sol >= n_ex, f"{n_ex} exercises but {n_sol} solutions"
    assert re.search(r"\{cite[:\w]*\}`", md), "no citation"
    assert re.search(r"^#+ .*references", md, re.I | re.M), "no 'Notes and references' section"
    # one bibliography for the whole book (book/bibliography.md): a second one listing the same work
    # is a duplicate citation, an error in the strict build
    assert "{bibliography}" not in md, "a chapter-level {bibliography}: cite into the book's bibliography instead"
    figures = sum(
        1
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    assert figures >= 1, "no figure"


@pytest.mark.parametrize("path", sorted(BOOK.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_no_backticks_in_a_fence_info_string(path):
    """A backtick fence's info string may not contain a backtick (CommonMark): such a line is
    not a directive but text, and its closing fence then opens a code block that swallows the
    prose after it."""
    for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                assert not re.match(r"^\s*```+\{[^}]+\}.*`", line), f"cell {i}: {line[:80]}"
