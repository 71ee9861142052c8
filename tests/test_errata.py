"""Every computational erratum of appendix B is a test: the seed's form fails, the fix holds.

Appendix B is assembled from ``book/errata/chNN.md`` (computational errata: a wrong
formula, value, sign, claim that a computation can refute) and
``book/errata/chNN_wording.md`` (wording, notation and attribution, listed apart). Every
entry starts with a MyST target ``(err-chNN-slug)=`` on its own line. For each target in
a computational fragment, ``tests/errata/chNN.py`` holds a function returning
``(seed_form_holds, corrected_form_holds)``; this file asserts ``(False, True)`` for each,
and that the ids in the book and the tests are the same set.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ERRATA_DIR = ROOT / "book" / "errata"
_ID = re.compile(r"^\((err-ch(\d\d)-[a-z0-9-]+)\)=\s*$", re.M)


def book_ids(wording: bool) -> dict[str, str]:
    """id -> fragment file name, for the computational (or the wording) fragments."""
    out: dict[str, str] = {}
    for p in sorted(ERRATA_DIR.glob("ch[0-9][0-9]*.md")):
        if p.stem.endswith("_wording") != wording:
            continue
        for m in _ID.finditer(p.read_text(encoding="utf-8")):
            assert m.group(2) == p.stem[2:4], f"{m.group(1)} is in {p.name}"
            assert m.group(1) not in out, f"duplicate erratum id {m.group(1)}"
            out[m.group(1)] = p.name
    return out


def registry() -> dict:
    out = {}
    for p in sorted((ROOT / "tests" / "errata").glob("ch[0-9][0-9].py")):
        mod = importlib.import_module(f"errata.{p.stem}")
        for key, fn in mod.ERRATA.items():
            assert key not in out, f"duplicate test for {key}"
            out[key] = fn
    return out


COMPUTATIONAL = book_ids(wording=False)
WORDING = book_ids(wording=True)
REGISTRY = registry()


def test_every_fragment_entry_has_an_id():
    """Each entry of a fragment (a bold-led paragraph or list item) is preceded by its id."""
    for p in sorted(ERRATA_DIR.glob("ch[0-9][0-9]*.md")):
        text = p.read_text(encoding="utf-8")
        entries = re.findall(r"^(?:\d+\.\s+|-\s+)?\*\*", text, flags=re.M)
        ids = _ID.findall(text)
        assert len(ids) == len(entries), f"{p.name}: {len(entries)} entries but {len(ids)} ids"


def test_ids_are_disjoint_and_nonempty():
    assert len(COMPUTATIONAL) >= 30
    assert not set(COMPUTATIONAL) & set(WORDING)


def test_every_computational_erratum_has_a_test():
    missing = sorted(set(COMPUTATIONAL) - set(REGISTRY))
    assert not missing, f"computational errata without a test in tests/errata/: {missing}"


def test_every_test_names_a_computational_erratum():
    stale = sorted(set(REGISTRY) - set(COMPUTATIONAL))
    assert not stale, f"tests for ids that are not computational errata in the book: {stale}"


def test_appendix_includes_every_fragment():
    text = (ROOT / "book" / "appendix_b_errata.md").read_text(encoding="utf-8")
    for p in sorted(ERRATA_DIR.glob("ch[0-9][0-9]*.md")):
        assert f"errata/{p.name}" in text, f"appendix B does not include {p.name}"
    assert text.index("_wording.md") > max(text.index(f"errata/{p.name}")
                                           for p in ERRATA_DIR.glob("ch[0-9][0-9].md"))


@pytest.mark.parametrize("erratum", sorted(REGISTRY), ids=str)
def test_seed_form_fails_and_correction_holds(erratum):
    seed_holds, corrected_holds = REGISTRY[erratum]()
    assert isinstance(seed_holds, (bool, np.bool_)) and isinstance(corrected_holds, (bool, np.bool_))
    assert not seed_holds, f"{erratum}: the seed's form holds on these inputs"
    assert corrected_holds, f"{erratum}: the corrected form does not hold"
