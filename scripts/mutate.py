#!/usr/bin/env python3
"""Mutation testing of the ``ktheory`` package: do the tests notice small code changes?

The script takes a snapshot of ``ktheory/`` and ``tests/`` from git
(``git archive <ref>``) into a temporary directory, never touching the
working tree. It enumerates mechanical mutants of every module with the
``ast`` module:

* arithmetic ``+ - * / // % **`` swapped (``+ <-> -``, ``* <-> /``, ``** -> *``, ``// -> /``, ``% -> *``),
  also in augmented assignments (``+=`` ...);
* comparisons ``< <= > >= == != is is not in not in`` changed (boundary and negation);
* ``and <-> or``; ``not x -> x``; ``-x -> x``;
* numeric constants ``n -> n + 1``, ``n -> 0``, ``n -> -n``; ``True <-> False``.

Code inside ``raise`` statements (error messages), f-strings, type annotations
and ``__all__`` is not mutated. A deterministic, seeded sample is drawn,
spread over every module. Each mutant is applied to a private copy of the
package per worker, and the tests that cover the mutated module (see
``MODULE_TESTS``, plus the module's doctests) run on it with ``-x``; the copy
comes first on ``PYTHONPATH`` and a canary checks, for every run, that the
copy is what was imported. A mutant is *killed* when the tests fail, *timed
out* when they exceed ``--timeout``, *survived* when they pass.

Usage (from the repository root)::

    python scripts/mutate.py                      # 220 mutants, seed 0, 2 workers
    python scripts/mutate.py --list --n-mutants 0 # list every candidate mutant
    python scripts/mutate.py --modules kernels alignment --n-mutants 50
    python scripts/mutate.py --rerun /tmp/mutation_report.txt --extra-tests tests/test_mutants.py

The report (``--report``, default ``/tmp/mutation_report.txt``) lists the
counts, the kill rate and every survivor as ``file:line: original -> mutant``.
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import io
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: Test files run for a mutant of a module, by path prefix inside the package
#: (the first matching prefix wins). ``tests/test_mutants.py`` and
#: ``tests/battery/test_battery_<module>.py`` are added when they exist.
MODULE_TESTS: list[tuple[str, list[str]]] = [
    ("ktheory/kernels", ["tests/test_kernels.py", "tests/test_pd_kernels.py"]),
    ("ktheory/alignment", ["tests/test_alignment.py"]),
    ("ktheory/rkhs", ["tests/test_rkhs.py"]),
    ("ktheory/svm/_core", ["tests/test_svc.py", "tests/test_svr.py", "tests/test_svm_fast.py"]),
    ("ktheory/svm/_smo", ["tests/test_svc.py", "tests/test_svr.py", "tests/test_svm_numpy_path.py"]),
    ("ktheory/svm/_kernel_svm", ["tests/test_svc.py", "tests/test_svr.py", "tests/test_llw.py"]),
    ("ktheory/svm/_svc", ["tests/test_svc.py", "tests/test_svc_multiclass.py"]),
    ("ktheory/svm/_ovo", ["tests/test_svc_multiclass.py"]),
    ("ktheory/svm/_svr", ["tests/test_svr.py"]),
    ("ktheory/svm/_llw", ["tests/test_llw.py"]),
    ("ktheory/svm/_exact", ["tests/test_svm_exact.py"]),
    ("ktheory/svm", ["tests/test_svc.py", "tests/test_svm_exact.py"]),
    ("ktheory/_validation", ["tests/test_kernels.py", "tests/test_alignment.py", "tests/test_svc.py"]),
]

#: A pytest plugin loaded into every run: a fast, deterministic hypothesis
#: profile, and the canary (the file of the imported ``ktheory``).
PLUGIN = '''
import os
from hypothesis import settings, HealthCheck
settings.register_profile("mutation", max_examples=20, derandomize=True, database=None, deadline=None,
                          suppress_health_check=list(HealthCheck))

def pytest_sessionfinish(session, exitstatus):
    import sys
    mod = sys.modules.get("ktheory")
    with open(os.environ["MUTATION_CANARY"], "w") as fh:
        fh.write(getattr(mod, "__file__", "") or "")
'''


# ---------------------------------------------------------------------------
# mutant generation
# ---------------------------------------------------------------------------
BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
              ast.Pow: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.Mult}
CMP_SWAP = {ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.Gt], ast.Gt: [ast.GtE, ast.Lt],
            ast.GtE: [ast.Gt, ast.Lt], ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq],
            ast.Is: [ast.IsNot], ast.IsNot: [ast.Is], ast.In: [ast.NotIn], ast.NotIn: [ast.In]}


@dataclasses.dataclass(frozen=True)
class Mutant:
    path: str          # inside the snapshot, e.g. "ktheory/kernels.py"
    lineno: int
    col: int
    end_lineno: int
    end_col: int
    kind: str
    original: str      # source text of the node
    replacement: str   # text written in its place

    @property
    def ident(self) -> str:
        """Unique id: nested nodes can start at the same place (``a + b + c``), so the end is included."""
        return f"{self.path}:{self.lineno}:{self.col}:{self.end_lineno}:{self.end_col}:{self.kind}"

    def describe(self) -> str:
        return f"{self.path}:{self.lineno}: {_short(self.original)} -> {_short(self.replacement)}"


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _skip_regions(tree: ast.AST) -> set[int]:
    """ids of nodes whose subtree is not mutated (messages, annotations, __all__)."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            for sub in ast.walk(node):
                skip.add(id(sub))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.JoinedStr)):
            mark(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warn":
            for a in node.args:
                mark(a)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
            for a in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs,
                      node.args.vararg, node.args.kwarg]:
                if a is not None:
                    mark(a.annotation)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in ("__all__", "__version__") for t in targets):
                mark(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            mark(node)  # docstrings
    return skip


def _variants(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """(kind, mutated copy of node) pairs for one node."""
    out: list[tuple[str, ast.AST]] = []
    if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
        new = copy.deepcopy(node)
        new.op = BINOP_SWAP[type(node.op)]()
        out.append((f"binop_{type(node.op).__name__}", new))
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAP:
        new = copy.deepcopy(node)
        new.op = BINOP_SWAP[type(node.op)]()
        out.append((f"augassign_{type(node.op).__name__}", new))
    elif isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            for repl in CMP_SWAP.get(type(op), []):
                new = copy.deepcopy(node)
                new.ops[k] = repl()
                out.append((f"cmp{k}_{type(op).__name__}_{repl.__name__}", new))
    elif isinstance(node, ast.BoolOp):
        new = copy.deepcopy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append((f"boolop_{type(node.op).__name__}", new))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append((f"drop_{type(node.op).__name__}", copy.deepcopy(node.operand)))
    elif isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            out.append(("const_bool", ast.Constant(value=not v)))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            cands = [("const_plus1", v + 1)]
            if v != 0:
                cands += [("const_zero", type(v)(0)), ("const_neg", -v)]
            for kind, nv in cands:
                out.append((kind, ast.Constant(value=nv)))
    return out


def _is_statement(node: ast.AST) -> bool:
    return isinstance(node, ast.stmt)


def mutants_of_file(root: Path, rel: str) -> list[Mutant]:
    src = (root / rel).read_text(encoding="utf-8")
    tree = ast.parse(src)
    skip = _skip_regions(tree)
    lines = src.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def segment(node: ast.AST) -> str:
        """Source text of a node (ast.get_source_segment re-splits the file on every call)."""
        def pos(lineno: int, col: int) -> int:  # col is a UTF-8 byte offset
            return starts[lineno - 1] + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8"))
        return src[pos(node.lineno, node.col_offset):pos(node.end_lineno, node.end_col_offset)]

    out: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno") or getattr(node, "end_lineno", None) is None:
            continue
        original = segment(node)
        for kind, new in _variants(node):
            text = ast.unparse(new)
            if not _is_statement(node):
                text = f"({text})"
            out.append(Mutant(rel, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                              kind, original, text))
    out.sort(key=lambda m: (m.lineno, m.col, m.kind))
    return out


def apply_mutant(src: str, m: Mutant) -> str:
    lines = src.splitlines(keepends=True)
    # offsets are in UTF-8 bytes per line
    def offset(lineno: int, col: int) -> int:
        before = "".join(lines[: lineno - 1])
        return len(before) + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8"))

    a, b = offset(m.lineno, m.col), offset(m.end_lineno, m.end_col)
    assert src[a:b] == m.original, (m.ident, src[a:b], m.original)
    return src[:a] + m.replacement + src[b:]


def sample_mutants(all_by_module: dict[str, list[Mutant]], n: int, seed: int) -> list[Mutant]:
    """A deterministic sample of ``n`` mutants spread over every module (all when n <= 0 or n >= total)."""
    total = sum(len(v) for v in all_by_module.values())
    if n <= 0 or n >= total:
        return [m for v in all_by_module.values() for m in v]
    rng = random.Random(seed)
    mods = [k for k in sorted(all_by_module) if all_by_module[k]]
    # proportional allocation with at least min(10, count) per module
    quota = {k: min(len(all_by_module[k]), 10) for k in mods}
    rest = n - sum(quota.values())
    if rest < 0:
        quota = {k: 0 for k in mods}
        rest = n
    weights = {k: len(all_by_module[k]) - quota[k] for k in mods}
    wsum = sum(weights.values())
    fractional = []
    for k in mods:
        share = rest * weights[k] / wsum if wsum else 0
        add = min(int(share), len(all_by_module[k]) - quota[k])
        quota[k] += add
        fractional.append((share - int(share), k))
    left = n - sum(quota.values())
    for _, k in sorted(fractional, reverse=True):
        if left <= 0:
            break
        if quota[k] < len(all_by_module[k]):
            quota[k] += 1
            left -= 1
    chosen: list[Mutant] = []
    for k in mods:
        chosen += sorted(rng.sample(all_by_module[k], quota[k]), key=lambda m: (m.lineno, m.col, m.kind))
    return chosen


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------
def _unit_tests(snapshot: Path) -> list[str]:
    """Every tests/test_*.py except the book, browser and mutant tests (the fallback)."""
    return sorted(str(p.relative_to(snapshot)) for p in (snapshot / "tests").glob("test_*.py")
                  if p.name not in ("test_book.py", "test_browser.py", "test_mutants.py"))


def tests_for(rel: str, snapshot: Path) -> tuple[list[str], list[str]]:
    """(test files, doctest modules) run for a mutant of ``rel``.

    The first ``MODULE_TESTS`` prefix that matches; else ``tests/test_<name>*.py``
    for ``ktheory/<name>...``; else every unit test file. The module's own
    battery table and ``tests/test_mutants.py`` are added when they exist.
    """
    stem = rel[:-3] if rel.endswith(".py") else rel
    stem = stem.removesuffix("/__init__")
    files = None
    for prefix, tests in MODULE_TESTS:
        if stem == prefix or stem.startswith(prefix + "/"):
            files = [f for f in tests if (snapshot / f).exists()]
            break
    parts = stem.split("/")
    name = parts[1].lstrip("_") if len(parts) > 1 else ""
    if not files:
        files = sorted(str(p.relative_to(snapshot)) for p in (snapshot / "tests").glob(f"test_{name}*.py")) if name else []
    if not files:
        files = _unit_tests(snapshot)
    extra = [f"tests/battery/test_battery_{name}.py", "tests/test_mutants.py"]
    files += [f for f in extra if (snapshot / f).exists() and f not in files]
    doctest = [rel] if not rel.endswith("__init__.py") else []
    return files, doctest


def take_snapshot(repo: Path, ref: str, dest: Path) -> None:
    data = subprocess.run(["git", "-C", str(repo), "archive", ref, "ktheory", "tests"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        try:
            tf.extractall(dest, filter="data")
        except TypeError:  # Python without extraction filters (before 3.11.4 / 3.10.12)
            tf.extractall(dest)


class Worker:
    def __init__(self, base: Path, snapshot: Path, python: str, timeout: float, nice: int):
        self.dir = base
        shutil.copytree(snapshot, base, dirs_exist_ok=False)
        (base / "_mutation_plugin.py").write_text(PLUGIN)
        self.python, self.timeout, self.nice = python, timeout, nice
        self.canary = base / "_canary.txt"

    def run(self, tests: list[str], doctests: list[str], timeout: float | None = None) -> tuple[str, float, str]:
        env = dict(os.environ, PYTHONPATH=str(self.dir), PYTHONDONTWRITEBYTECODE="1",
                   MUTATION_CANARY=str(self.canary), PYTHONHASHSEED="0")
        cmd = ["nice", "-n", str(self.nice), self.python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "-p", "_mutation_plugin", "--hypothesis-profile=mutation", "--hypothesis-seed=0",
               "-W", "ignore::pytest.PytestUnknownMarkWarning", "--no-header", "-o", "addopts=",
               *tests]
        if doctests:
            cmd += ["--doctest-modules", *doctests]
        if self.canary.exists():
            self.canary.unlink()
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=self.dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return "timeout", time.monotonic() - t0, out
        dt = time.monotonic() - t0
        imported = self.canary.read_text() if self.canary.exists() else ""
        if proc.returncode in (0, 1) and not imported.startswith(str(self.dir) + os.sep):
            raise RuntimeError(f"canary: the tests imported ktheory from {imported!r}, not from {self.dir}")
        if proc.returncode == 0:
            return "survived", dt, out
        if proc.returncode == 1:
            return "killed", dt, out
        return "error", dt, out  # collection error, interrupted, ...: the mutant broke the import


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Report: counts, kill rate, survivors as file:line: original -> mutant.")
    ap.add_argument("-n", "--n-mutants", type=int, default=220,
                    help="number of mutants to run (seeded sample spread over modules; <= 0: all). Default 220.")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    ap.add_argument("--modules", nargs="*", default=None,
                    help="restrict to these modules (substrings of the path, e.g. kernels svm/_smo)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per mutant before it counts as timed out; the effective limit is "
                         "max(TIMEOUT, 3 x the unmutated run time of the same tests). Default 60.")
    ap.add_argument("-j", "--workers", type=int, default=2, choices=[1, 2], help="parallel workers (at most 2)")
    ap.add_argument("--nice", type=int, default=15, help="niceness of the test processes (default 15)")
    ap.add_argument("--ref", default="HEAD", help="git ref to snapshot (default HEAD)")
    ap.add_argument("--extra-tests", nargs="*", default=[],
                    help="test files (paths in the working tree) copied into the snapshot's tests/ "
                         "before running, e.g. uncommitted tests/test_mutants.py")
    ap.add_argument("--rerun", metavar="REPORT", default=None,
                    help="run only the survivors listed in an earlier report (by mutant id)")
    ap.add_argument("--report", default="/tmp/mutation_report.txt", help="report file")
    ap.add_argument("--list", action="store_true", help="list the selected mutants and exit")
    ap.add_argument("--python", default=None, help="interpreter that runs the tests (default: .venv/bin/python "
                    "of the repository if present, else this interpreter)")
    args = ap.parse_args(argv)

    python = args.python or (str(REPO / ".venv/bin/python") if (REPO / ".venv/bin/python").exists()
                             else sys.executable)
    tmp = Path(tempfile.mkdtemp(prefix="ktheory_mutation_"))
    try:
        snapshot = tmp / "snapshot"
        snapshot.mkdir()
        take_snapshot(REPO, args.ref, snapshot)
        for f in args.extra_tests:
            shutil.copy(REPO / f if not os.path.isabs(f) else f, snapshot / "tests" / Path(f).name)
        modules = sorted(str(p.relative_to(snapshot)) for p in (snapshot / "ktheory").rglob("*.py"))
        if args.modules:
            modules = [m for m in modules if any(s in m for s in args.modules)]
        by_module = {m: mutants_of_file(snapshot, m) for m in modules}
        if args.rerun:
            text = Path(args.rerun).read_text()
            section = text.split("survivors (file:line: original -> mutant):", 1)[-1].split("\ntimed out:", 1)[0]
            wanted = set(re.findall(r"\[id (\S+)\]", section))
            described = {(d.strip(), i) for d, i in re.findall(r"^ *(.*?)  \[id (\S+)\]$", section, re.M)}
            chosen = []
            for m in (m for v in by_module.values() for m in v):
                short = f"{m.path}:{m.lineno}:{m.col}:{m.kind}"  # ids of reports written before the end was added
                if m.ident in wanted or (short in wanted and (m.describe(), short) in described):
                    chosen.append(m)
            missing = wanted - {m.ident for m in chosen} - {f"{m.path}:{m.lineno}:{m.col}:{m.kind}" for m in chosen}
            if missing:
                print(f"warning: {len(missing)} mutant ids of {args.rerun} not found in this snapshot", flush=True)
        else:
            chosen = sample_mutants(by_module, args.n_mutants, args.seed)
        print(f"candidates: " + ", ".join(f"{m} {len(v)}" for m, v in by_module.items())
              + f"; selected {len(chosen)}", flush=True)
        if args.list:
            for m in chosen:
                print(f"{m.describe()}  [id {m.ident}]")
            return 0

        workers = [Worker(tmp / f"w{k}", snapshot, python, args.timeout, args.nice) for k in range(args.workers)]
        free = list(workers)
        lock = threading.Lock()

        # baseline: the unmutated snapshot passes the tests of every selected module, and the canary works
        print("baseline: unmutated tests on the snapshot ...", flush=True)
        groups = sorted({tuple(tests_for(m.path, snapshot)[0]) for m in chosen})
        base_t: dict[tuple, float] = {}
        for g in groups:
            status, dt, out = workers[0].run(list(g), [], timeout=max(600.0, args.timeout))
            if status != "survived":
                print(out[-3000:])
                print(f"baseline FAILED for {list(g)} ({status}); fix the tests first", flush=True)
                return 2
            base_t[g] = dt
            print(f"  ok {dt:6.1f}s {' '.join(g)} (ktheory from {workers[0].canary.read_text()})", flush=True)

        results: list[tuple[Mutant, str, float]] = []
        t_start = time.monotonic()

        def job(m: Mutant) -> tuple[Mutant, str, float, str]:
            with lock:
                w = free.pop()
            try:
                target = w.dir / m.path
                original = target.read_text(encoding="utf-8")
                mutated = apply_mutant(original, m)
                try:
                    compile(mutated, str(target), "exec")
                except SyntaxError:
                    return m, "invalid", 0.0, ""
                target.write_text(mutated, encoding="utf-8")
                try:
                    tests, doctests = tests_for(m.path, w.dir)
                    limit = max(args.timeout, 3.0 * base_t.get(tuple(tests), 0.0))
                    status, dt, out = w.run(tests, doctests, timeout=limit)
                finally:
                    target.write_text(original, encoding="utf-8")
                return m, status, dt, out
            finally:
                with lock:
                    free.append(w)

        def write_report(final: bool) -> str:
            counts = {s: sum(1 for _, st, _ in results if st == s)
                      for s in ("killed", "survived", "timeout", "error", "invalid")}
            n_valid = len(results) - counts["invalid"]
            detected = counts["killed"] + counts["timeout"] + counts["error"]
            rate = 100.0 * detected / n_valid if n_valid else 0.0
            summary = (f"mutants {n_valid}, killed {counts['killed']}, survived {counts['survived']}, "
                       f"timed out {counts['timeout']}, errors {counts['error']}, invalid {counts['invalid']}; "
                       f"kill rate {rate:.1f}% ((killed + timed out + errors) / mutants)")
            lines = [
                "ktheory mutation report" + ("" if final else f" (PARTIAL: {len(results)} of {len(chosen)} done)"),
                f"ref {args.ref}, seed {args.seed}, n_mutants {args.n_mutants}, timeout {args.timeout:g}s, "
                f"workers {len(workers)}, extra tests {args.extra_tests or '-'}, rerun {args.rerun or '-'}",
                f"wall time {(time.monotonic() - t_start) / 60:.1f} min",
                "",
                "per module: selected / killed / survived / timed out / errors",
            ]
            for mod in modules:
                rs = [st for m, st, _ in results if m.path == mod]
                if rs:
                    lines.append(f"  {mod}: {len(rs)} / {rs.count('killed')} / {rs.count('survived')} / "
                                 f"{rs.count('timeout')} / {rs.count('error')}   (candidates {len(by_module[mod])})")
            lines += ["", "survivors (file:line: original -> mutant):"]
            for m, st, _ in sorted(results, key=lambda r: (r[0].path, r[0].lineno, r[0].col, r[0].kind)):
                if st == "survived":
                    lines.append(f"  {m.describe()}  [id {m.ident}]")
            lines += ["", "timed out:"]
            lines += [f"  {m.describe()}  [id {m.ident}]" for m, st, _ in results if st == "timeout"]
            lines += ["", "SUMMARY: " + summary, ""]
            Path(args.report).write_text("\n".join(lines), encoding="utf-8")
            return summary

        with ThreadPoolExecutor(max_workers=len(workers)) as pool:
            futures = [pool.submit(job, m) for m in chosen]
            for k, fut in enumerate(as_completed(futures), 1):
                m, status, dt, out = fut.result()
                results.append((m, status, dt))
                elapsed = time.monotonic() - t_start
                eta = elapsed / k * (len(chosen) - k)
                if k % 5 == 0:
                    write_report(final=False)
                print(f"[{k:4d}/{len(chosen)}] {status:8s} {dt:6.1f}s {m.describe()}   "
                      f"(elapsed {elapsed / 60:.1f} min, eta {eta / 60:.1f} min)", flush=True)

        summary = write_report(final=True)
        print("SUMMARY: " + summary, flush=True)
        print(f"report written to {args.report}", flush=True)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
