"""The three-ways check of an example corpus package (tests/corpus/kit_*): every function's
decorator source is the import hook's static compile's (given the package's other modules, as the
hook finds them) and the build backend's artifact, and the static assumptions hold for the live
functions."""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path

from array_vectorize import _core
from array_vectorize.api import compile_live
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.precompiled import assumptions_hold


def assert_package_same_three_ways(kit: Path, qualified_names, tmp_path, table: dict | None = None) -> None:
    """`kit` is the package's folder; `qualified_names` its functions as `module.function`, all
    of which (and no other) the build backend must precompile; `table` the package's
    `[tool.array-vectorize]` (`runtime`: the functions it leaves to the decorator)."""
    package = kit.name
    texts = {p.name: p.read_text() for p in sorted(kit.glob("*.py"))}
    modules = {
        package if name == "__init__.py" else f"{package}.{name[:-3]}": (text, str(kit / name), hashlib.sha256(text.encode()).hexdigest())
        for name, text in texts.items()
    }
    dist_info = f"{package}-0.1.0.dist-info"
    entries = {f"{dist_info}/METADATA": Entry(f"Name: {package.replace('_', '-')}\n".encode())}
    entries.update({f"{package}/{name}": Entry(text.encode()) for name, text in texts.items()})
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table(table or {}), str(tmp_path))
    assert sorted(report.precompiled) == sorted(f"{package}.{q.replace('.', ':')}" for q in qualified_names)
    options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0}
    static_of = {}
    for qualified in sorted(qualified_names):
        module, name = qualified.split(".")
        if module not in static_of:
            text = texts[f"{module}.py"]
            entries = _core.compile_module(text, str(kit / f"{module}.py"), package=package, modules=modules)
            static_of[module] = {e["name"]: e for e in entries}
        static = static_of[module][name]
        assert static["status"] == "ok", static
        (artifact,) = [e.data.decode() for k, e in artifacts.items() if k == f"{package}/__vectorized__/{module}/{name}.py"]
        vec = getattr(importlib.import_module(f"{package}.{module}"), name)
        live, _ = compile_live(vec._vectorized_original, options)
        assert live["source"] == static["source"] == artifact, qualified
        assert assumptions_hold(vec._vectorized_original, static["assumptions"]), static["assumptions"]
