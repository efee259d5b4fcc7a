"""``python -m array_vectorize check PATH``: the build backend's static compile of a source tree,
without building a wheel (for CI and pre-commit), and the source-tree side of ``show``.

Every ``.py`` file under PATH that mentions ``vectorize`` (``_core.scan_tree``, the build's own
finder) is given to ``precompile.compile_marked`` as a wheel would ship it: installed at its path
below its *root*, the directory above its top-level package (the highest directory up from the
file that holds an ``__init__.py``; a file outside any package is a top-level module of its own
directory). So each module has the name it is imported by, imports of other modules of its
package resolve from their files (``ModulesOnDisk``), and ``[tool.array-vectorize] runtime`` of
the nearest ``pyproject.toml`` above PATH applies as in the build. Nothing of the tree is run.

Exit status: 0 when every marked function compiles (or is listed in ``runtime``), 1 when one
cannot (each reported as ``file:line:col`` with the build's "To fix" advice), 2 for a PATH that
does not exist or a ``pyproject.toml`` the build would reject.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Iterator

from .. import _core
from . import config as _config
from .errors import BuildError
from .precompile import compile_marked, failure_message
from .wheelfile import Entry


def module_root(file: str) -> str:
    """The directory that `file`'s top-level package (or `file`, outside a package) sits in."""
    root = os.path.dirname(os.path.abspath(file))
    while os.path.isfile(os.path.join(root, "__init__.py")):
        parent = os.path.dirname(root)
        if parent == root:
            break
        root = parent
    return root


class ModulesOnDisk(Mapping):
    """Module name -> (install path, bytes) of the Python source files below `roots`, found as
    the import system finds them (``pkg/units.py``, else ``pkg/units/__init__.py``) when looked
    up: what ``precompile.program_modules`` reads as the modules a wheel ships."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = roots

    def __getitem__(self, name: str) -> tuple[str, bytes]:
        parts = name.split(".")
        for root in self.roots:
            for install in ("/".join(parts) + ".py", "/".join([*parts, "__init__.py"])):
                try:
                    with open(os.path.join(root, *install.split("/")), "rb") as f:
                        return install, f.read()
                except OSError:
                    continue
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())  # looked up by name only

    def __len__(self) -> int:
        return 0


def _files(path: str) -> list[str]:
    """The ``.py`` files under `path` that mention ``vectorize`` (`path` itself for a file)."""
    if os.path.isfile(path):
        return [path]
    return [os.path.join(path, *rel.split("/")) for rel in _core.scan_tree(path)]


def _project_config(path: str) -> _config.Config:
    """``[tool.array-vectorize]`` of the nearest ``pyproject.toml`` at or above `path`."""
    here = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path))
    while True:
        if os.path.isfile(os.path.join(here, "pyproject.toml")):
            return _config.load(here)
        parent = os.path.dirname(here)
        if parent == here:
            return _config.Config()
        here = parent


def _shown(root: str, install: str) -> str:
    """A file as the user names it: relative to the working directory when below it."""
    full = os.path.join(root, *install.split("/"))
    rel = os.path.relpath(full)
    return full if rel.startswith(os.pardir) else rel


def check(path: str) -> int:
    """The command: every marked function under `path` compiled statically; 0, 1 or 2."""
    if not os.path.exists(path):
        print(f"{path}: no such file or directory", file=sys.stderr)
        return 2
    try:
        config = _project_config(path)
    except BuildError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    entries: dict[str, Entry] = {}
    roots: list[str] = []
    root_of: dict[str, str] = {}
    for file in _files(path):
        root = module_root(file)
        install = os.path.relpath(os.path.abspath(file), root).replace(os.sep, "/")
        with open(file, "rb") as f:
            entries.setdefault(install, Entry(f.read()))
        root_of.setdefault(install, root)
        if root not in roots:
            roots.append(root)
    shipped = ModulesOnDisk(roots)

    def shown_path(install: str) -> str:
        if install in root_of:
            return _shown(root_of[install], install)
        for root in roots:
            if os.path.isfile(os.path.join(root, *install.split("/"))):
                return _shown(root, install)
        return install

    # No dist-info directory: every entry is a module.
    outcome = compile_marked(entries, "\0", config, shown_path, shipped)
    if outcome.problems:
        print(failure_message(outcome.problems), file=sys.stderr, flush=True)
    report = outcome.report
    modules = len({t.rpartition(":")[0] for t in outcome.targets})
    parts = [f"{len(report.precompiled)} compile"]
    if report.runtime:
        parts.append(f"{len(report.runtime)} left to run time by [tool.array-vectorize] runtime")
    if outcome.problems:
        parts.append(f"{len(outcome.problems)} cannot be precompiled")
    n = len(outcome.targets)
    print(
        f"array_vectorize check: {n} marked function{'s' if n != 1 else ''} in {modules} "
        f"module{'s' if modules != 1 else ''} under {path}: {', '.join(parts)}",
        flush=True,
    )
    return 1 if outcome.problems else 0
