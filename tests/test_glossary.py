"""The English–Chinese glossary covers every technical term of the seed notes.

``tests/data/seed_terms.tsv`` is written by ``scripts/seed_terms.py`` from the seeds'
headings and bold definitions (the seeds are not part of a clone, so the list is
committed). Every term must appear in the glossary: a Chinese term in the 中文 column,
an English one in the English column.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TERMS = ROOT / "tests" / "data" / "seed_terms.tsv"
GLOSSARY = ROOT / "book" / "appendix_c_glossary.md"
SEEDS = ROOT.parent / "shared" / "seeds"


def _norm(s: str) -> str:
    s = s.replace("（", "(").replace("）", ")").replace("，", ",")
    return re.sub(r"\s+", "", s).lower()


def seed_terms() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in TERMS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        term, gloss, kind, seed = line.split("\t")
        rows.append((term, gloss, kind, seed))
    return rows


def glossary_rows() -> list[tuple[str, str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            rows.append((cells[0], cells[1]))
    return rows[1:]  # the header row


def test_the_list_is_not_empty():
    terms = seed_terms()
    assert len(terms) >= 40
    assert {k for _, _, k, _ in terms} == {"heading", "bold"}


@pytest.mark.parametrize("row", seed_terms(), ids=lambda r: r[0])
def test_glossary_lists_the_term(row):
    term = row[0]
    rows = glossary_rows()
    if re.search(r"[\u4e00-\u9fff]", term):
        column = [_norm(zh) for _, zh in rows]
    else:
        column = [_norm(en) for en, _ in rows]
    assert any(_norm(term) in c for c in column), f"glossary lacks the seed term {term!r} ({row[3]})"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds are not beside this clone")
def test_committed_list_is_current():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "seed_terms.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
