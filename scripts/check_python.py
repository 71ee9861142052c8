"""Check that this Python can use the lock (called by `make setup`).

The lock (requirements/lock.txt) is resolved for one Python minor version, named in
its header. An older Python than pyproject's floor is an error; another minor version
than the lock's is allowed with a warning (pip may still find wheels for it, but the
stored notebook outputs were produced under the lock's Python).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FLOOR = (3, 11)


def main(lock: str) -> int:
    here = sys.version_info[:2]
    if here < FLOOR:
        print(
            f"error: Python {here[0]}.{here[1]} is too old; Kernel Theory needs Python >= "
            f"{FLOOR[0]}.{FLOOR[1]} (numpy, scipy and scikit-learn in the lock need it). "
            "Run with PYTHON=python3.11 (or newer) make ...",
            file=sys.stderr,
        )
        return 1
    m = re.search(r"on Python (\d+)\.(\d+)", Path(lock).read_text(encoding="utf-8"))
    if m and (int(m.group(1)), int(m.group(2))) != here:
        print(
            f"warning: the lock was resolved on Python {m.group(1)}.{m.group(2)}, this is "
            f"Python {here[0]}.{here[1]}; if pip cannot install it, run with "
            f"PYTHON=python{m.group(1)}.{m.group(2)} or regenerate it with `make lock`.",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "requirements/lock.txt"))
