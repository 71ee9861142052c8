"""Remove per-chapter ``{bibliography}`` directives from the chapter notebooks.

The book has one bibliography (book/bibliography.md): sphinxcontrib-bibtex reports a
duplicate citation whenever two bibliographies list the same work, which a strict build
turns into an error. Chapters cite with ``{cite}`` and discuss their sources in a closing
"Notes and references" section. Markdown cells only; outputs are untouched.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

PATTERN = re.compile(r"\n*```\{bibliography\}[^`]*?```\n?", re.S)


def main(paths: list[str]) -> int:
    for p in map(Path, paths):
        nb = json.loads(p.read_text(encoding="utf-8"))
        changed = False
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            src = "".join(cell["source"])
            new = PATTERN.sub("\n", src).rstrip() + "\n" if PATTERN.search(src) else src
            if new != src and re.search(r"^#+ [^\n]*references\s*$", new.rstrip(), re.I | re.M) and re.search(
                r"^#+ [^\n]*\Z", new.rstrip(), re.M
            ):
                # the references heading is now the last line: say where the list is
                new = new.rstrip() + "\n\nThe works cited in this chapter are listed in the book's {doc}`bibliography`.\n"
            if new != src:
                cell["source"] = new.rstrip("\n").splitlines(True)
                changed = True
        nb["cells"] = [c for c in nb["cells"] if not (c["cell_type"] == "markdown" and not "".join(c["source"]).strip())]
        if changed:
            p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{p}: local bibliography removed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
