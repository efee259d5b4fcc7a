"""The other modules a module's imports name, for the static compiles of the import hook and the
build backend (``_core.compile_module``'s ``modules=``, src/static_module/imports.rs):

- modules of the program (issue 12): ``from .units import to_k``, ``from pkg.units import
  to_k``, ``import pkg.units as u``; only modules of the importing module's own top-level
  package are followed, each then found by the caller as the import system would;
- modules of the standard library (issue 31): ``from calendar import isleap``, ``import
  colorsys``. Their pure functions compile from their source like any helper, as the decorator
  compiles them from the live function; each is pinned by its own text, not by its file (which
  changes between Python versions), so code precompiled on one Python serves another whose
  function is the same. ``math`` and ``bisect`` keep the meaning the compiler gives them (D8,
  D15), NumPy too (D16).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

#: Modules the compiler gives a meaning of its own: never read as text.
_OWN_MEANING = frozenset({"math", "bisect", "numpy", "array_vectorize"})


def imported_modules(source: str, fullname: str, is_package: bool) -> tuple[list[str], list[str]]:
    """Absolute names of the modules of `fullname`'s top-level package that the top-level
    imports of `source` may bind a name from (for ``from m import x``, `m` and ``m.x``), and
    the top-level standard library modules they name."""
    package = fullname if is_package else fullname.rpartition(".")[0]
    top = fullname.partition(".")[0]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        # Issue 28 item 9: text too deep for CPython's parser (a 12k-`elif` chain raises
        # MemoryError) follows no imports; the core's compile names its problem with a position.
        return [], []
    names: list[str] = []
    stdlib: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            try:
                base = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package)
            except (ImportError, ValueError):
                continue
            names.append(base)
            names.extend(f"{base}.{a.name}" for a in stmt.names if a.name != "*")
            if not stmt.level:
                stdlib.append(base)
        elif isinstance(stmt, ast.Import):
            names.extend(a.name for a in stmt.names if a.asname is not None or "." not in a.name)
            stdlib.extend(a.name for a in stmt.names)
    out: list[str] = []
    for name in names:
        if name != fullname and name.partition(".")[0] == top and name not in out:
            out.append(name)
    std = [n for n in dict.fromkeys(stdlib) if "." not in n and n != top and _in_stdlib(n)]
    return out, std


def program_modules(
    source: str, fullname: str, is_package: bool, find: Callable[[str], tuple[str, str, str] | None]
) -> dict[str, tuple[str, str, str | None]]:
    """What ``_core.compile_module(modules=...)`` reads for module `fullname` (text `source`):
    ``{name: (text, path, sha256)}`` of the modules of the program its imports name, and theirs
    in turn (a constant of one may come from a helper of a third), each found by `find` (the
    caller's way: the import system's search, or the wheel's files; None when it is not Python
    source), and of the standard library modules they name (sha256 None: each function is
    pinned by its own text)."""
    modules: dict[str, tuple[str, str, str | None]] = {}
    queue = [(source, fullname, is_package)]
    seen = {fullname}
    while queue:
        text, name, package = queue.pop(0)
        program, stdlib = imported_modules(text, name, package)
        for std in stdlib:
            found = None if std in modules else stdlib_source(std)
            if found is not None:
                try:
                    modules[std] = (importlib.util.decode_source(found[0]), found[1], None)
                except (SyntaxError, UnicodeDecodeError):
                    pass
        for other in program:
            if other in seen:
                continue
            seen.add(other)
            found = find(other)
            if found is not None:
                modules[other] = found
                queue.append((found[0], other, os.path.basename(found[1]).startswith("__init__.")))
    return modules


def package_of(fullname: str, is_package: bool) -> str:
    return fullname if is_package else fullname.rpartition(".")[0]


def _in_stdlib(name: str) -> bool:
    if name in _OWN_MEANING:
        return False
    known = getattr(sys, "stdlib_module_names", None)  # Python 3.10+
    return name in known if known is not None else True  # 3.9: stdlib_source checks where it is


_STDLIB_DIR: list[str] = []


def stdlib_source(name: str) -> tuple[bytes, str] | None:
    """The bytes and path of the standard library module `name` when it is a Python source file
    of the standard library's directory (not a C module, nor a module of that name elsewhere),
    found without importing it."""
    from importlib.machinery import PathFinder, SourceFileLoader

    if not _STDLIB_DIR:
        import sysconfig

        _STDLIB_DIR.append(os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep)
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else None
    if spec is None:
        try:
            spec = PathFinder.find_spec(name)
        except (ImportError, ValueError, OSError):
            return None
    origin = getattr(spec, "origin", None)
    if (
        spec is None
        or not isinstance(spec.loader, SourceFileLoader)
        or not isinstance(origin, str)
        or not origin.endswith(".py")
        or not os.path.realpath(origin).startswith(_STDLIB_DIR[0])
    ):
        return None
    try:
        with open(origin, "rb") as f:
            return f.read(), origin
    except OSError:
        return None
