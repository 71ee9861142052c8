"""The machine-readable benchmark record (benchmarks/results.json) and the page built from it.

``make bench`` (benchmarks/run_all.py) writes the record; book/_ext/kt_bench.py turns it
into the page "How fast is ktheory". These tests check the committed record's schema, that
every ``bench_*.py`` script is in it, that its derived fields agree with its raw ones, that
the recorder and the runner record rows, skips and failures, and that the page renders.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
RECORD = BENCH / "results.json"
for p in (BENCH, ROOT / "book" / "_ext"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import _record  # noqa: E402
import kt_bench  # noqa: E402
import run_all  # noqa: E402

ROW_KEYS = {
    "case": str, "solver": str, "peer": (str, type(None)), "n": int, "time_s": float,
    "peer_time_s": (float, type(None)), "ratio": (float, type(None)),
    "target_ratio": (float, type(None)), "target_time_s": (float, type(None)),
    "met": (bool, type(None)), "mem_mb": (float, type(None)),
    "peer_mem_mb": (float, type(None)), "series": (str, type(None)), "params": dict,
}


@pytest.fixture(scope="module")
def record() -> dict:
    assert RECORD.is_file(), "benchmarks/results.json is missing: run `make bench`"
    return json.loads(RECORD.read_text(encoding="utf-8"))


def check_row(row: dict, where: str) -> None:
    assert set(row) == set(ROW_KEYS), f"{where}: keys {sorted(set(row) ^ set(ROW_KEYS))}"
    for key, kind in ROW_KEYS.items():
        assert isinstance(row[key], kind), f"{where}: {key} = {row[key]!r}"
    assert row["time_s"] > 0 and math.isfinite(row["time_s"]), where
    assert row["n"] >= 0, where
    if row["peer"] is None:
        assert row["peer_time_s"] is None and row["ratio"] is None, where
    else:
        assert row["peer_time_s"] > 0, where
        assert math.isclose(row["ratio"], row["time_s"] / row["peer_time_s"], rel_tol=1e-12), where
    checks = []
    if row["target_ratio"] is not None:
        checks.append(row["ratio"] <= row["target_ratio"])
    if row["target_time_s"] is not None:
        checks.append(row["time_s"] <= row["target_time_s"])
    assert row["met"] == (all(checks) if checks else None), f"{where}: met disagrees"
    for key in ("mem_mb", "peer_mem_mb"):
        assert row[key] is None or row[key] >= 0, where


def test_record_schema_and_machine(record):
    assert record["schema_version"] == _record.SCHEMA_VERSION
    when = dt.datetime.fromisoformat(record["date"])
    assert when.tzinfo is not None
    m = record["machine"]
    assert isinstance(m["cpu"], str) and m["cpu"]
    assert isinstance(m["cores"], int) and m["cores"] >= 1
    assert isinstance(m["blas"], list)
    v = record["versions"]
    for lib in ("python", "ktheory", "numpy", "scipy", "scikit-learn"):
        assert isinstance(v[lib], str) and v[lib], lib


def test_every_benchmark_script_is_in_the_record(record):
    scripts = {p.stem for p in BENCH.glob("bench_*.py")}
    assert set(record["scripts"]) == scripts, (
        f"not in the record: {sorted(scripts - set(record['scripts']))}; "
        f"no longer a script: {sorted(set(record['scripts']) - scripts)} (run `make bench`)")


def test_every_entry_measured_or_says_why_not(record):
    for name, entry in record["scripts"].items():
        assert "error" not in entry, f"{name} failed in the recorded run: {entry['error']}"
        assert isinstance(entry["seconds"], float) and entry["seconds"] >= 0
        dt.datetime.fromisoformat(entry["started"])
        if "skipped" in entry:
            assert isinstance(entry["skipped"], str) and entry["skipped"].strip(), name
        else:
            assert entry["rows"], f"{name} recorded no row"
        for i, row in enumerate(entry["rows"]):
            check_row(row, f"{name} row {i}")


def test_scaling_series_can_be_plotted(record):
    groups = kt_bench.series_rows(record)
    assert groups, "no scaling series in the record (benchmarks/bench_scaling.py)"
    for name, rows in groups.items():
        ns = [r["n"] for r in rows]
        assert len(set(ns)) == len(ns) >= 3, f"{name}: sizes {ns}"
        assert len({r["solver"] for r in rows}) == 1 and len({r["peer"] for r in rows}) == 1, name
        assert all(r["mem_mb"] is not None for r in rows), name
        assert kt_bench.slope(ns, [r["time_s"] for r in rows]) is not None


def test_the_page_renders_every_series_and_row(record, tmp_path):
    text = kt_bench.render(record, tmp_path)
    assert text.startswith("(performance)=\n# How fast is ktheory\n")
    assert record["machine"]["cpu"] in text and record["date"] in text
    for name, rows in kt_bench.series_rows(record).items():
        assert (tmp_path / kt_bench.FIGDIR / f"{name}.png").stat().st_size > 1000
        assert f"perf-{name.replace('_', '-')}" in text
        assert rows[0]["solver"] in text
    n_plain = sum(1 for e in record["scripts"].values() for r in e["rows"] if not r["series"])
    table = text.split("## Every recorded comparison", 1)[1]
    assert table.count("\n| bench_") == n_plain


def test_slope_recovers_a_power_law():
    ns = [100, 200, 400, 800]
    assert math.isclose(kt_bench.slope(ns, [3e-6 * n**2.5 for n in ns]), 2.5, rel_tol=1e-12)
    assert kt_bench.slope([100], [1.0]) is None


def test_page_without_a_record_says_how_to_make_one():
    text = kt_bench.render(None)
    assert "make bench" in text and "(performance)=" in text


def test_recorder_rejects_inconsistent_rows():
    _record.ROWS.clear()
    try:
        with pytest.raises(ValueError, match="time_s"):
            _record.add("c", "s", n=10, time_s=-1.0)
        with pytest.raises(ValueError, match="time_s"):
            _record.add("c", "s", n=10, time_s=float("nan"))
        with pytest.raises(ValueError, match="peer"):
            _record.add("c", "s", n=10, time_s=1.0, peer="x")
        with pytest.raises(ValueError, match="target_ratio needs a peer"):
            _record.add("c", "s", n=10, time_s=1.0, target_ratio=1.0)
        row = _record.add("c", "s", n=10, time_s=2.0, peer="p", peer_time_s=4.0,
                          target_ratio=0.4, target_time_s=3.0)
        assert row["ratio"] == 0.5 and row["met"] is False
        row = _record.add("c", "s", n=10, time_s=2.0, target_time_s=3.0)
        assert row["met"] is True
        assert len(_record.ROWS) == 2
    finally:
        _record.ROWS.clear()


def test_runner_records_rows_skips_and_failures(tmp_path, monkeypatch):
    (tmp_path / "bench_ok.py").write_text(
        "from _record import add\n"
        "if __name__ == '__main__':\n"
        "    add('c', 'ours', n=5, time_s=1.0, peer='p', peer_time_s=2.0, target_ratio=1.0)\n")
    (tmp_path / "bench_gpu.py").write_text(
        "from _record import skip\n"
        "if __name__ == '__main__':\n"
        "    skip('no accelerator here')\n")
    (tmp_path / "bench_broken.py").write_text(
        "if __name__ == '__main__':\n    raise RuntimeError('boom')\n")
    (tmp_path / "bench_silent.py").write_text("x = 1\n")
    monkeypatch.setattr(run_all, "HERE", tmp_path)
    out = tmp_path / "results.json"
    assert run_all.main(["--output", str(out)]) == 1  # one script failed
    rec = json.loads(out.read_text())
    s = rec["scripts"]
    assert set(s) == {"bench_ok", "bench_gpu", "bench_broken", "bench_silent"}
    assert s["bench_ok"]["rows"][0]["met"] is True and "error" not in s["bench_ok"]
    assert s["bench_gpu"]["skipped"] == "no accelerator here" and s["bench_gpu"]["rows"] == []
    assert "RuntimeError: boom" in s["bench_broken"]["error"]
    assert "no row" in s["bench_silent"]["error"]
    # a partial run replaces only the named scripts' entries
    (tmp_path / "bench_broken.py").write_text(
        "from _record import add\n"
        "if __name__ == '__main__':\n    add('c', 'ours', n=1, time_s=0.5)\n")
    (tmp_path / "bench_silent.py").write_text(
        "from _record import skip\nif __name__ == '__main__':\n    skip('quiet')\n")
    assert run_all.main(["bench_broken", "bench_silent", "--output", str(out)]) == 0
    rec2 = json.loads(out.read_text())
    assert rec2["scripts"]["bench_ok"] == rec["scripts"]["bench_ok"]
    assert rec2["scripts"]["bench_broken"]["rows"][0]["time_s"] == 0.5
    assert rec2["partial_runs"] and rec2["partial_runs"][0]["date"] == rec["date"]
    with pytest.raises(SystemExit):
        run_all.main(["bench_nonexistent", "--output", str(out)])
