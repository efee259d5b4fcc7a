"""The other modules of the program a module's imports name (issue 12), for the static compiles of
the import hook and the build backend: ``from .units import to_k``, ``from pkg.units import
to_k``, ``import pkg.units as u``. Only modules of the importing module's own top-level package
are followed (``math``, NumPy and the rest keep their own meaning, D8, D16); each is then found
by the caller as the import system would, its text handed to ``_core.compile_module``
(``modules=``), which resolves the imported names from it (src/static_module/imports.rs).
"""

from __future__ import annotations

import ast
import importlib.util


def imported_modules(source: str, fullname: str, is_package: bool) -> list[str]:
    """Absolute names of the modules of `fullname`'s top-level package that the top-level
    imports of `source` may bind a name from (for ``from m import x``, `m` and ``m.x``)."""
    package = fullname if is_package else fullname.rpartition(".")[0]
    top = fullname.partition(".")[0]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        # Issue 28 item 9: text too deep for CPython's parser (a 12k-`elif` chain raises
        # MemoryError) follows no imports; the core's compile names its problem with a position.
        return []
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            try:
                base = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package)
            except (ImportError, ValueError):
                continue
            names.append(base)
            names.extend(f"{base}.{a.name}" for a in stmt.names if a.name != "*")
        elif isinstance(stmt, ast.Import):
            names.extend(a.name for a in stmt.names if a.asname is not None or "." not in a.name)
    out: list[str] = []
    for name in names:
        if name != fullname and name.partition(".")[0] == top and name not in out:
            out.append(name)
    return out


def package_of(fullname: str, is_package: bool) -> str:
    return fullname if is_package else fullname.rpartition(".")[0]
