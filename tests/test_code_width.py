"""Code and printed output fit the page: at most 87 characters a line in every chapter.

A code cell of the book's theme shows 87 characters without a horizontal scrollbar in a
1366-pixel-wide browser window (93 at 1920 pixels); longer lines scroll sideways, and the
reader must scroll to read the check a claim rests on. ``ruff format`` keeps the code at
87 columns (``[tool.ruff] line-length`` in pyproject.toml); strings, comments and printed
output are wrapped by hand. The browser check (tests/test_browser.py) measures the same
thing on the built pages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(ROOT.glob("book/[0-9][0-9]_*.ipynb"))
WIDTH = 87


def _long_lines(nb: dict) -> list[str]:
    bad = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            if len(line) > WIDTH:
                bad.append(f"cell {i} code ({len(line)}): {line.strip()[:60]}")
        for out in cell.get("outputs", []):
            text = out.get("text") if "text" in out else out.get("data", {}).get("text/plain", "")
            for line in "".join(text).splitlines():
                if len(line) > WIDTH:
                    bad.append(f"cell {i} output ({len(line)}): {line.strip()[:60]}")
    return bad


def test_the_limit_is_the_formatters():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f"line-length = {WIDTH}" in text


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_line_wider_than_the_page(path):
    bad = _long_lines(json.loads(path.read_text(encoding="utf-8")))
    assert not bad, f"{len(bad)} lines wider than {WIDTH} characters:\n" + "\n".join(bad[:20])


def test_the_check_can_fail():
    nb = {"cells": [{"cell_type": "code", "source": ["x" * 88], "outputs": []},
                    {"cell_type": "code", "source": ["print(1)"],
                     "outputs": [{"output_type": "stream", "text": ["y" * 88]}]}]}
    assert len(_long_lines(nb)) == 2
