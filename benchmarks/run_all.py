"""Run the benchmark scripts in this folder and write the record (``make bench``).

Each ``bench_*.py`` prints its own timings and ratios against scikit-learn or another
baseline and reports its rows to ``_record`` (see its docstring). This script runs them
one after the other in this process and writes ``benchmarks/results.json``:

* ``machine``: CPU model, usable cores, BLAS libraries and their thread counts;
* ``versions``: Python, ktheory, numpy, scipy, scikit-learn, numba;
* ``scripts``: for every ``bench_*.py``, its rows, or ``skipped`` with the reason, or
  ``error`` with the exception, and when it ran and how long it took.

``run_all.py bench_csvm bench_ridge`` runs only those scripts and replaces their entries in
an existing record (the other scripts keep theirs, with their own dates); the machine and
versions are then those of the latest run, and ``partial_runs`` lists the machines of
earlier runs whose entries remain. The book's page "How fast is ktheory" is built from this
file (``book/_ext/kt_bench.py``); ``tests/test_bench_record.py`` checks its schema.

Timings are medians on this machine; they are not tested, only reported.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORD = HERE / "results.json"

if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _record  # noqa: E402


def scripts() -> list[Path]:
    return sorted(HERE.glob("bench_*.py"))


def run_one(path: Path) -> dict:
    _record.ROWS.clear()
    _record.SKIPPED.clear()
    print(f"=== {path.name} ===", flush=True)
    started = _record.now()
    t0 = time.perf_counter()
    argv = sys.argv
    sys.argv = [str(path)]
    entry: dict = {"started": started}
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:  # a script's main() may sys.exit(0)
        if exc.code not in (None, 0):
            entry["error"] = f"SystemExit({exc.code!r})"
    except Exception as exc:  # recorded, and the run goes on to the next script
        traceback.print_exc()
        entry["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        sys.argv = argv
    entry["seconds"] = round(time.perf_counter() - t0, 1)
    entry["rows"] = list(_record.ROWS)
    if _record.SKIPPED:
        entry["skipped"] = "; ".join(_record.SKIPPED)
    elif not entry["rows"] and "error" not in entry:
        entry["error"] = "the script recorded no row and gave no reason to skip"
    print(flush=True)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scripts to run (default: all), e.g. bench_csvm")
    parser.add_argument("--output", type=Path, default=RECORD)
    args = parser.parse_args(argv)
    available = {p.stem: p for p in scripts()}
    names = [n.removesuffix(".py") for n in args.names] or list(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        parser.error(f"no such benchmark script: {', '.join(unknown)}; "
                     f"choose from {', '.join(available)}")

    record: dict = {}
    if args.names and args.output.is_file():
        record = json.loads(args.output.read_text(encoding="utf-8"))
    previous = {k: record.get(k) for k in ("machine", "versions", "date")}
    entries = dict(record.get("scripts", {}))
    for name in names:
        entries[name] = run_one(available[name])
        entries[name]["machine_cpu"] = _record.cpu_model()

    out = dict(
        schema_version=_record.SCHEMA_VERSION,
        date=_record.now(),
        machine=_record.machine(),
        versions=_record.versions(),
        scripts={k: entries[k] for k in sorted(entries) if k in available},
    )
    partial = list(record.get("partial_runs", []))
    if previous["machine"] is not None and set(names) != set(available):
        partial.append(previous)
    if partial:
        out["partial_runs"] = partial
    args.output.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"record written to {args.output}")
    failed = [k for k, v in out["scripts"].items() if "error" in v]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
