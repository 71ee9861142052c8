"""Run every benchmark script in this folder (``make bench``).

Each script prints its own timings and ratios against scikit-learn or another baseline.
Timings are medians of repeated runs on this machine; they are not tested, only reported.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(p for p in HERE.glob("bench_*.py"))
    for path in scripts:
        print(f"=== {path.name} ===", flush=True)
        runpy.run_path(str(path), run_name="__main__")
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
