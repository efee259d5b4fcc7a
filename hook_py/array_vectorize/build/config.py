"""``[tool.array-vectorize]`` in the project's ``pyproject.toml``: which backend to wrap, what it
needs installed, and which marked functions are left to run time.

    [tool.array-vectorize]
    backend = "hatchling.build"               # default; any PEP 517 backend module ("mod:obj" too)
    backend-requires = ["hatchling>=1.21"]    # default: KNOWN_BACKENDS, else the module's name
    runtime = ["pkg.mod:fn", "pkg.legacy:*"]  # module:qualname patterns compiled at run time

Unknown keys are errors with a did-you-mean, so a typo never silently changes a build.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

from .errors import BuildError

DEFAULT_BACKEND = "hatchling.build"

# What get_requires_for_build_* returns for well-known backends; the frontend installs it before
# calling the build hook. A frontend asks once, before the wrapped backend is installed, so its
# own get_requires_* cannot be consulted then: what it would add by default is listed here
# (hatchling's editable wheels need `editables`), and anything else it asks for (hatch build-hook
# dependencies, say) is checked when the build hook runs (`missing_requirements`).
KNOWN_BACKENDS: dict[str, list[str]] = {
    "hatchling.build": ["hatchling>=1.21"],
    "flit_core.buildapi": ["flit_core>=3.4"],
    "setuptools.build_meta": ["setuptools>=70.1"],
    "pdm.backend": ["pdm-backend"],
    "poetry.core.masonry.api": ["poetry-core>=1.0"],
    "scikit_build_core.build": ["scikit-build-core"],
}
KNOWN_EDITABLE_EXTRAS: dict[str, list[str]] = {
    "hatchling.build": ["editables~=0.3"],
    "pdm.backend": ["editables"],
}

KEYS = ("backend", "backend-requires", "runtime")


@dataclass
class Config:
    backend: str = DEFAULT_BACKEND
    backend_requires: list[str] = field(default_factory=lambda: list(KNOWN_BACKENDS[DEFAULT_BACKEND]))
    # module:qualname patterns (fnmatch) of marked functions the build leaves to run time.
    runtime: list[str] = field(default_factory=list)

    def requires(self, kind: str) -> list[str]:
        """What the frontend must install for a "wheel", "sdist" or "editable" build."""
        extra = KNOWN_EDITABLE_EXTRAS.get(self.backend, []) if kind == "editable" else []
        return self.backend_requires + [r for r in extra if r not in self.backend_requires]

    def load_backend(self) -> Any:
        """Imports the wrapped backend (PEP 517 "module" or "module:object")."""
        module_name, _, attr = self.backend.partition(":")
        try:
            backend = importlib.import_module(module_name)
        except ImportError as exc:
            raise BuildError(
                f"cannot import the build backend {self.backend!r} that array_vectorize.build wraps ({exc}).\n"
                "Add the package that provides it to [build-system] requires in pyproject.toml, or name it in\n"
                '[tool.array-vectorize] backend-requires = ["..."].'
            ) from None
        for part in filter(None, attr.split(".")):
            backend = getattr(backend, part)
        return backend


def load(project_dir: str = ".") -> Config:
    """Reads and validates ``[tool.array-vectorize]`` of ``project_dir/pyproject.toml``."""
    path = os.path.join(project_dir, "pyproject.toml")
    if tomllib is None:  # pragma: no cover
        raise BuildError("array_vectorize.build needs the `tomli` package on Python < 3.11: pip install tomli")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise BuildError(f"{path}: not found; array_vectorize.build builds projects described by pyproject.toml") from None
    except tomllib.TOMLDecodeError as exc:
        raise BuildError(f"{path}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("array-vectorize", {})
    return from_table(table, path)


def from_table(table: Any, path: str = "pyproject.toml") -> Config:
    where = f"{path}: [tool.array-vectorize]"
    if not isinstance(table, dict):
        raise BuildError(f"{where} must be a table")
    problems = []
    for key in table:
        if key not in KEYS:
            problems.append(f"{where}: unknown key {key!r}{did_you_mean(key, KEYS)}")
    config = Config()
    if "backend" in table:
        backend = table["backend"]
        if not isinstance(backend, str) or not backend.strip() or backend.startswith(":"):
            problems.append(f'{where}: backend must be a PEP 517 backend name such as "hatchling.build", got {backend!r}')
        else:
            config.backend = backend.strip()
            config.backend_requires = list(KNOWN_BACKENDS.get(config.backend, []))
            if config.backend == "array_vectorize.build":
                problems.append(f"{where}: backend cannot be array_vectorize.build itself")
    if "backend-requires" in table:
        requires = table["backend-requires"]
        if not _string_list(requires):
            problems.append(f"{where}: backend-requires must be a list of requirement strings, got {requires!r}")
        else:
            config.backend_requires = list(requires)
    elif "backend" in table and config.backend not in KNOWN_BACKENDS and not problems:
        # The distribution is usually named like the backend's top-level module.
        config.backend_requires = [config.backend.split(".")[0].split(":")[0].replace("_", "-")]
    if "runtime" in table:
        runtime = table["runtime"]
        if not _string_list(runtime):
            problems.append(f'{where}: runtime must be a list of "module:qualname" patterns, got {runtime!r}')
        else:
            for pattern in runtime:
                module, sep, qualname = pattern.partition(":")
                if not sep or not module or not qualname or ":" in qualname:
                    problems.append(
                        f'{where}: runtime entry {pattern!r} must be "module:qualname", '
                        'for example "mypkg.pricing:black_scholes" or "mypkg.legacy:*"'
                    )
            config.runtime = list(runtime)
    if problems:
        raise BuildError("\n".join(problems))
    return config


def did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(choices)})"


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def missing_requirements(requirements: list[str]) -> list[str]:
    """The requirements not satisfied by what is installed (by distribution name and version;
    markers honoured). Without `packaging` (every backend that asks for extras brings it), only
    the names are checked."""
    from importlib import metadata

    try:
        from packaging.requirements import Requirement
    except ImportError:  # pragma: no cover
        Requirement = None
    missing = []
    for text in requirements:
        if Requirement is None:
            name, spec = re.split(r"[\s<>=!~;\[]", text, maxsplit=1)[0], None
        else:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate():
                continue
            name, spec = req.name, req.specifier
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(text)
            continue
        if spec is not None and not spec.contains(version, prereleases=True):
            missing.append(text)
    return missing
