"""Sphinx extension: the page "How fast is ktheory", generated from the benchmark record.

On ``config-inited`` it reads ``benchmarks/results.json`` (written by ``make bench``, see
``benchmarks/run_all.py``) and writes

* ``book/performance.md``: the machine and the date of the run, the library versions, for
  every scaling series (rows with ``series`` set, ``benchmarks/bench_scaling.py``) a figure
  and a table of time and peak memory against n beside the peer, with the fitted slope of
  log time against log n, and a table of every other recorded row with its target;
* ``book/_static/performance/<series>.png``: the log-log figures (matplotlib, Agg).

Neither is committed (``.gitignore``): each build writes them anew from the record, so the
page shows what the last benchmark run measured. ``tests/test_bench_record.py`` checks the
record's schema and renders this page from it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

PAGE = "book/performance.md"
FIGDIR = "book/_static/performance"
RECORD = "benchmarks/results.json"


def load(root: Path) -> dict | None:
    path = root / RECORD
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def slope(ns: list[float], ts: list[float]) -> float | None:
    """Least-squares slope of log t against log n (None with fewer than two sizes)."""
    pts = [(math.log(n), math.log(t)) for n, t in zip(ns, ts) if n > 0 and t and t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def series_rows(record: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for entry in record.get("scripts", {}).values():
        for row in entry.get("rows", []):
            if row.get("series"):
                out.setdefault(row["series"], []).append(row)
    for rows in out.values():
        rows.sort(key=lambda r: r["n"])
    return out


def _fmt_time(t: float | None) -> str:
    if t is None:
        return "–"
    return f"{t:.3g}"


def _fmt_mem(m: float | None) -> str:
    return "–" if m is None else f"{m:.0f}"


def figure(root: Path, name: str, rows: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    ns = [r["n"] for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, key, peer_key, label in ((axes[0], "time_s", "peer_time_s", "time (s)"),
                                     (axes[1], "mem_mb", "peer_mem_mb", "peak memory (MiB)")):
        peer_name = rows[0].get("peer")
        for k, who, style, color in ((key, "ktheory", "o-", "C0"),
                                     (peer_key, peer_name, "s--", "C1")):
            if who is None:
                continue
            # memory below the resident-size resolution is recorded as 0: not drawn
            pts = [(n, r[k]) for n, r in zip(ns, rows) if r[k] is not None and r[k] > 0]
            if not pts:
                continue
            b = slope(*zip(*pts)) if key == "time_s" else None
            tag = who.split(" (")[0] + (f" (slope {b:.2f})" if b is not None else "")
            ax.loglog(*zip(*pts), style, color=color, label=tag)
        ax.xaxis.set_minor_formatter(NullFormatter())  # only the decades are labelled
        ax.set_xlabel("n (samples)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle(rows[0]["solver"], fontsize=9)
    fig.tight_layout()
    out = root / FIGDIR / f"{name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return f"_static/performance/{name}.png"


def render(record: dict | None, root: Path | None = None) -> str:
    from ktheory.svm._kernel_svm import AUTO_NUMPY_ITER, NUMPY_MAX_SAMPLES

    head = "(performance)=\n# How fast is ktheory\n\n"
    if record is None:
        return head + ("No benchmark record is present: run `make bench` to write\n"
                       "`benchmarks/results.json`; the next build turns it into this page.\n")
    m = record["machine"]
    v = record["versions"]
    blas = ", ".join(f"{b.get('internal_api')} {b.get('version')} ({b.get('architecture')}, "
                     f"{b.get('num_threads')} threads)" for b in m.get("blas", [])) or "–"
    lib = ", ".join(f"{k} {v[k]}" for k in v if v[k])
    text = [head,
            "This page is generated from the benchmark record `benchmarks/results.json` each time\n"
            "the book is built (by `book/_ext/kt_bench.py`); `make bench` writes the record by\n"
            "running every script in `benchmarks/`. Nothing on it is typed by hand, and it shows\n"
            "what the chapters' algorithms cost on one machine, beside the library a reader would\n"
            "otherwise use.\n\n",
            f"- **Machine:** {m['cpu']}, {m['cores']} usable cores ({m['system']}).\n"
            f"- **BLAS:** {blas}.\n"
            f"- **Run:** {record['date']} (UTC).\n"
            f"- **Versions:** {lib}.\n\n"]
    partial = record.get("partial_runs") or []
    if partial:
        text.append(f"Some scripts' entries come from earlier runs ({len(partial)}); each script's "
                    "start time is in the record.\n\n")
    text.append(
        "**How it is measured.** Each point of a scaling series is one fit in a fresh process "
        "(`benchmarks/bench_scaling.py`): the solver is warmed up first (imports, compiled "
        "code), then timed; the fastest of up to three runs is kept, and the memory is the "
        "peak resident size the fit added. *Ratio* is ktheory's time over the peer's: below 1, "
        "ktheory is faster. The *slope* is the least-squares exponent $b$ in "
        "$t \\approx a\\,n^b$ over the sizes shown: how the cost grows with $n$ at these "
        "sizes (an $O(n^2)$ kernel method shows a slope near 2 once the kernel dominates, "
        "less while fixed costs do). On a shared machine single timings move by tens of per "
        "cent between runs; the slopes and the orders of magnitude are what to read.\n\n"
        "**Which solver.** By default (`solver=\"auto\"`) `SVC` and `SVR` solve "
        f"training sets of at most {NUMPY_MAX_SAMPLES} samples with numpy, on the Gram "
        "matrix, so that a first fit of such a set does not load numba "
        "(`benchmarks/bench_start.py`); they hand over to the compiled solver when "
        f"the process's fits have spent {AUTO_NUMPY_ITER:,} SMO steps on numpy, when the "
        "Gram matrix would exceed `gram_limit_mb`, or once a compiled solve has run in the "
        "process (numba's load is then paid). The benchmarks time fits after a compiled "
        "solve, so every SVC and SVR row here runs the compiled solver, except "
        "the first fits of `bench_start`, each in a fresh process (`CentralSVC` runs its "
        "first round compiled from 1000 samples, on a Gram matrix that the compiled kernel "
        "code computes).\n\n")
    groups = series_rows(record)
    if groups:
        text.append("## Cost against the number of samples\n\n")
    for name in sorted(groups):
        rows = groups[name]
        first = rows[0]
        text.append(f"### {first['solver']}\n\n")
        peer = first.get("peer")
        text.append(f"Peer: {peer}.\n\n" if peer else "No library implements it; ktheory only.\n\n")
        if root is not None:
            src = figure(root, name, rows)
            ns = [r["n"] for r in rows]
            b = slope(ns, [r["time_s"] for r in rows])
            bp = slope(ns, [r["peer_time_s"] for r in rows]) if peer else None
            cap = f"Time and peak memory against n, log-log; ktheory's slope {b:.2f}" if b is not None else "Time and peak memory against n"
            if bp is not None:
                cap += f", the peer's {bp:.2f}"
            text.append(f"```{{figure}} {src}\n:name: perf-{name.replace('_', '-')}\n:width: 100%\n\n"
                        f"{cap}.\n```\n\n")
        text.append("| n | ktheory (s) | peer (s) | ratio | ktheory MiB | peer MiB |\n"
                    "|--:|--:|--:|--:|--:|--:|\n")
        for r in rows:
            ratio = "–" if r.get("ratio") is None else f"{r['ratio']:.2f}"
            text.append(f"| {r['n']} | {_fmt_time(r['time_s'])} | {_fmt_time(r.get('peer_time_s'))} "
                        f"| {ratio} | {_fmt_mem(r.get('mem_mb'))} | {_fmt_mem(r.get('peer_mem_mb'))} |\n")
        text.append("\n")
    text.append("## Every recorded comparison\n\n"
                "Rows outside the scaling series, script by script, with the target the project "
                "set for the ratio or the time where it set one (*met*: whether this run met it).\n\n"
                "| script | case | n | ktheory (s) | peer | peer (s) | ratio | target | met |\n"
                "|---|---|--:|--:|---|--:|--:|--:|:-:|\n")
    skipped = []
    for script, entry in sorted(record.get("scripts", {}).items()):
        if "skipped" in entry:
            skipped.append(f"- `{script}`: skipped ({entry['skipped']}).\n")
        if "error" in entry:
            skipped.append(f"- `{script}`: failed in this run ({entry['error']}).\n")
        for r in entry.get("rows", []):
            if r.get("series"):
                continue
            target = []
            if r.get("target_ratio") is not None:
                target.append(f"ratio ≤ {r['target_ratio']:.3g}")
            if r.get("target_time_s") is not None:
                target.append(f"≤ {r['target_time_s']:g} s")
            met = {None: "", True: "yes", False: "**no**"}[r.get("met")]
            ratio = "–" if r.get("ratio") is None else f"{r['ratio']:.2f}"
            case = str(r["case"]).replace("|", "/")
            peer = (r.get("peer") or "–").replace("|", "/")
            text.append(f"| {script} | {case} | {r['n']} | {_fmt_time(r['time_s'])} | {peer} "
                        f"| {_fmt_time(r.get('peer_time_s'))} | {ratio} | {', '.join(target) or '–'} "
                        f"| {met} |\n")
    text.append("\n")
    if skipped:
        text.append("Scripts that did not measure here:\n\n" + "".join(skipped) + "\n")
    return "".join(text)


def write_page(root: Path) -> Path:
    page = root / PAGE
    text = render(load(root), root)
    if not page.is_file() or page.read_text(encoding="utf-8") != text:
        page.write_text(text, encoding="utf-8")
    return page


def _on_config_inited(app, config) -> None:  # pragma: no cover - exercised by the build
    write_page(Path(app.srcdir))


def setup(app):  # pragma: no cover - exercised by the build
    app.connect("config-inited", _on_config_inited, priority=10)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
