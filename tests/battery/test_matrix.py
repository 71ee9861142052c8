"""The battery's matrix has no empty cell: every public callable x every category."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from battery._common import CATEGORIES

HERE = Path(__file__).parent
MODULES = sorted(p.stem for p in HERE.glob("test_battery_*.py"))


def _tables():
    for name in MODULES:
        mod = importlib.import_module(f"battery.{name}")
        yield name, mod.PUBLIC, mod.CASES, getattr(mod, "EXEMPT", {})


def test_battery_modules_exist():
    assert MODULES, "no battery module (tests/battery/test_battery_*.py)"


@pytest.mark.parametrize("module", MODULES)
def test_no_empty_cell(module):
    mod = importlib.import_module(f"battery.{module}")
    covered = {(c.callable, c.category) for c in mod.CASES}
    na = getattr(mod, "NOT_APPLICABLE", {})
    for key, reason in na.items():
        assert key[0] in mod.PUBLIC and key[1] in CATEGORIES, f"N/A entry for an unknown cell {key}"
        assert isinstance(reason, str) and len(reason) > 10, f"N/A cell {key} needs a real reason"
        assert key not in covered, f"cell {key} has cases and is also marked not applicable"
    empty = [(f, c) for f in mod.PUBLIC for c in CATEGORIES if (f, c) not in covered and (f, c) not in na]
    assert not empty, f"{len(empty)} empty cells, e.g. {empty[:5]}"
    unknown = {c.callable for c in mod.CASES} - set(mod.PUBLIC)
    assert not unknown, f"cases for callables not listed in PUBLIC: {sorted(unknown)}"


def test_every_public_name_is_in_the_battery():
    """Every callable in a ktheory module's __all__ is in some battery module's PUBLIC,
    or in its ``EXEMPT`` with a reason (a result container users never call, say)."""
    import ktheory

    listed = set()
    for _, public, _, exempt in _tables():
        listed |= {".".join(p.split(".")[1:3]) for p in list(public) + list(exempt)}
        assert all(isinstance(r, str) and len(r) > 10 for r in exempt.values())
    missing = []
    for info in pkgutil.iter_modules(ktheory.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"ktheory.{info.name}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not callable(obj) or isinstance(obj, type) and issubclass(obj, (Warning, Exception)):
                continue
            if f"{info.name}.{name}" not in listed:
                missing.append(f"ktheory.{info.name}.{name}")
    assert not missing, f"public callables with no battery row: {missing}"
