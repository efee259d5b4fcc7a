"""The check the three-way tests share: a module's marked functions give byte-identical
generated source through the decorator (live compile), the import hook's static compile and the
build backend's artifact, and the static compile's assumptions hold for the live functions."""

from __future__ import annotations

import contextlib
import importlib
import sys
import uuid

from array_vectorize import _core
from array_vectorize.api import compile_live
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.imports import program_modules
from array_vectorize.precompiled import assumptions_hold


@contextlib.contextmanager
def module_on_path(text: str, prefix: str, tmp_path, monkeypatch):
    """Module `text` written under `tmp_path` with a fresh name (`prefix` and random letters, so no
    test imports another's), importable while the block runs: yields (its name, `tmp_path`)."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield name, tmp_path
    finally:
        sys.modules.pop(name, None)


def assert_same_source_three_ways(text: str, name: str, tmp_path, names, stdlib: bool = False) -> None:
    """`text` is written as module `name` (importable from `tmp_path`) and as a wheel's `name/m.py`.
    `stdlib`: the static compile reads the standard library modules the text imports, as the
    import hook hands them over (imports.py `program_modules`; `statistics.NormalDist`, issue 27)."""
    modules = program_modules(text, name, False, lambda other: None) if stdlib else {}
    static = {e["name"]: e for e in _core.compile_module(text, str(tmp_path / f"{name}.py"), None, "", modules)}
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(text.encode())}
    artifacts, _ = precompile.precompile(entries, dist_info, config.from_table({}), str(tmp_path))
    mod = importlib.import_module(name)
    for fn_name in names:
        assert_one_same_three_ways(mod, fn_name, static, artifacts)


def assert_one_same_three_ways(mod, fn_name: str, static: dict, artifacts: dict) -> None:
    """Function `fn_name` of the imported module `mod`: its live compile, its static compile (the
    entries of `_core.compile_module` by name) and its artifact of `precompile` give one source,
    and the static compile's assumptions hold for the live function."""
    assert static[fn_name]["status"] == "ok", static[fn_name]
    (artifact,) = [e.data.decode() for k, e in artifacts.items() if k.endswith(f"{fn_name}.py")]
    vec = getattr(mod, fn_name)
    options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0}
    live, _ = compile_live(vec._vectorized_original, options)
    assert live["source"] == static[fn_name]["source"] == artifact == vec.source, fn_name
    assert assumptions_hold(vec._vectorized_original, static[fn_name]["assumptions"]), static[fn_name]["assumptions"]
