"""Print pyproject's version floors as pins, for `make test-oldest`.

Each ``name>=X.Y`` among the runtime dependencies (scikit-learn among them) and the ``fast``
extra (numba) becomes
``name==X.Y.*``: the oldest release series the project claims to support, so that a floor
that no longer matches the features used fails a test instead of a user's install.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

def main() -> int:
    meta = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(meta["dependencies"]) + list(meta["optional-dependencies"]["fast"])
    for req in reqs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", req.replace(" ", ""))
        if not m:
            print(f"floors.py: cannot read a floor from {req!r}", file=sys.stderr)
            return 1
        print(f"{m.group(1)}=={m.group(2)}.*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
