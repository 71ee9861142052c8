"""The package's layout: no import circle, no reaching into another package's privates,
the ``svm`` solver layer below its estimators, and long modules that say why they are long.

The imports are read from the source (``ast``), every ``import`` statement including those
inside functions (a lazy import closes a circle as surely as a top-level one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "ktheory"

#: Lines above which a module must say at its top why it stays one file.
LONG_MODULE = 600

#: The svm modules that make up its solver layer: they import no svm estimator module.
SVM_SOLVERS = {"ktheory.svm._core", "ktheory.svm._smo", "ktheory.svm._fast",
               "ktheory.svm._llw_qp", "ktheory.svm._llw_decomp", "ktheory.svm._llw_rows",
               "ktheory.svm._exact"}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


MODULES = _modules()


def _package(name: str) -> str:
    return name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """``(module, imported name or None, line)`` for every import of a ktheory module in
    ``name``; ``from pkg import sub`` of a submodule is an import of ``pkg.sub`` alone."""
    out = []
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names if a.name in MODULES]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(name).split(".")[: len(_package(name).split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target not in MODULES:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub, None, node.lineno) if sub in MODULES else (target, alias.name, node.lineno))
    return out


def _graph() -> dict[str, set[str]]:
    return {m: {t for t, _, _ in _imports(m) if t != m} for m in MODULES}


def test_the_module_list_is_read():
    assert {"ktheory.svm._svc", "ktheory.svm._core", "ktheory._validation"} <= set(MODULES)
    assert "ktheory.svm._kernel_svm" in _graph()["ktheory.svm._svc"]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles a depth-first search meets (each closes on a module on its path)."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return cycles


def test_no_import_circle():
    cycles = _cycles(_graph())
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_circle_test_can_fail():
    graph = _graph()
    graph["ktheory.svm._core"].add("ktheory.svm._svc")   # a solver importing an estimator
    assert any("ktheory.svm._core" in c and "ktheory.svm._svc" in c for c in _cycles(graph))


def _subpackage(name: str) -> str | None:
    """``ktheory.svm`` for ``ktheory.svm._svc``; None for a top-level module of ktheory."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and (ROOT / parts[1]).is_dir() else None


def test_no_private_imports_across_packages():
    """A subpackage's private modules and names are its own: from outside it, only its
    public names (``from ktheory.svm import SVC``). The shared private modules of the
    top level (``ktheory._validation``, ``ktheory._base``) serve every part of the package."""
    bad = []
    for m in MODULES:
        for target, name, line in _imports(m):
            sub = _subpackage(target)
            if sub is not None and _subpackage(m) != sub:
                private_module = any(p.startswith("_") for p in target.split(".")[2:])
                if private_module or (name or "").startswith("_"):
                    bad.append(f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports "
                               f"{target}{'.' + name if name else ''}")
            elif name is not None and name.startswith("_") and _package(target) != _package(m):
                bad.append(f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {target}.{name}")
    assert not bad, "private names imported across packages:\n" + "\n".join(bad)


def test_svm_solver_layer_imports_no_estimator():
    graph = _graph()
    bad = {m: sorted(t for t in graph[m] if t.startswith("ktheory.svm.") and t not in SVM_SOLVERS)
           for m in SVM_SOLVERS}
    assert not any(bad.values()), f"solver modules importing estimator modules: {bad}"
    # and the estimators do sit on it
    assert "ktheory.svm._smo" in graph["ktheory.svm._kernel_svm"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_long_modules_say_why(name):
    path = MODULES[name]
    n_lines = len(path.read_text(encoding="utf-8").splitlines())
    if n_lines <= LONG_MODULE:
        return
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "one file" in doc.lower(), (
        f"{path.relative_to(ROOT.parent)} has {n_lines} lines: split it, or say at its top why "
        "it stays one file"
    )
