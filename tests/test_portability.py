"""The portability check's premises (``make test-portable``, ``scripts/test_portable.py``).

numba caches compiled machine code on disk. The portability check runs the tests as other
processors would, with numba compiling for another CPU (``NUMBA_CPU_NAME=generic``): if the
cache served code compiled for this CPU to that run, the run would not test what it says.
Each environment has a cache directory of its own; these tests check, in addition, that
numba's cache key includes the target CPU, so that even a shared directory could not serve
one CPU's code to another.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_PROGRAM = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import cached_mod
    cached_mod.f(2.0)
    s = cached_mod.f.stats
    print(json.dumps({"hits": sum(s.cache_hits.values()),
                      "misses": sum(s.cache_misses.values())}))
    """
)


def _run(tmp_path: Path, cpu: str | None) -> dict[str, int]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    if cpu is not None:
        env["NUMBA_CPU_NAME"] = cpu
    out = subprocess.run([sys.executable, "-c", _PROGRAM, str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_numba_cache_never_serves_one_cpus_code_to_another(tmp_path):
    pytest.importorskip("numba")
    (tmp_path / "cached_mod.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef f(x):\n    return x * x + 1.0\n"
    )
    first = _run(tmp_path, None)                # compiled for this host, and cached
    assert first == {"hits": 0, "misses": 1}
    again = _run(tmp_path, None)                # the same CPU: served from the cache
    assert again == {"hits": 1, "misses": 0}
    generic = _run(tmp_path, "generic")         # another CPU, same directory: compiled anew
    assert generic == {"hits": 0, "misses": 1}
    assert _run(tmp_path, "generic") == {"hits": 1, "misses": 0}
    assert _run(tmp_path, None) == {"hits": 1, "misses": 0}   # both entries kept


def _portable_module():
    spec = importlib.util.spec_from_file_location("test_portable_script",
                                                  ROOT / "scripts" / "test_portable.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_portable_environments_differ_from_each_other_and_have_their_own_cache():
    mod = _portable_module()
    assert len(mod.ENVIRONMENTS) >= 2
    seen = set()
    for name, (needs, what, variables) in mod.ENVIRONMENTS.items():
        assert variables["OPENBLAS_CORETYPE"] in ("Nehalem", "Sandybridge", "Haswell", "SkylakeX")
        key = tuple(sorted(variables.items()))
        assert key not in seen
        seen.add(key)
        env = mod.env_for(name, variables)
        assert env["NUMBA_CACHE_DIR"].endswith(os.path.join(".numba-cache", name))
        for k in ("NUMBA_CPU_NAME", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS"):
            assert env.get(k) == variables.get(k)   # set as declared, or unset


def test_an_environment_this_processor_cannot_run_is_named_not_run(monkeypatch):
    mod = _portable_module()
    monkeypatch.setattr(mod, "cpu_flags", lambda: {"sse2"})
    name = "haswell-generic-1thread"
    needs, _, variables = mod.ENVIRONMENTS[name]
    reason = mod.why_not(name, needs, mod.env_for(name, variables))
    if reason is not None and "x86-64" in reason:
        pytest.skip("not an x86-64 machine")
    assert reason is not None and "avx2" in reason
