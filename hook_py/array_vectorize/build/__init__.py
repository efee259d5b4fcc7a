"""``array_vectorize.build``: a PEP 517 / PEP 660 build backend that precompiles marked functions
into the wheel.

    [build-system]
    requires = ["array-vectorize"]
    build-backend = "array_vectorize.build"

It wraps a standard backend (``hatchling.build`` unless ``[tool.array-vectorize] backend`` names
another), re-exports its hooks and overrides only ``build_wheel``: the wrapped backend builds the
wheel into a temporary directory, every ``.py`` file of that wheel that mentions ``vectorize`` is
compiled statically by the Rust core (nothing of the package is executed), the artifacts
(``wheel_artifacts.py``) are added, and the wheel is written back reproducibly with a fresh
``RECORD`` (``wheelfile.py``). Editable installs are the wrapped backend's: the decorator compiles
at run time, so edits are picked up. The source tree is only read.

A marked function that cannot be precompiled fails the build with its position, the reason and
what to do (``precompile.py``); problems a user can fix raise ``BuildError``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import zipfile

from . import config as _config
from . import precompile as _precompile
from . import wheelfile as _wheelfile
from .errors import BuildError

__all__ = [
    "BuildError",
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]


# ---------------------------------------------------------------------------- PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return _requires("wheel", config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return _requires("sdist", config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _requires("editable", config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    # The artifacts change no metadata but RECORD, which is not part of prepared metadata.
    return _prepare_metadata("wheel", metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare_metadata("editable", metadata_directory, config_settings)


def build_sdist(sdist_directory, config_settings=None):
    backend = _config.load().load_backend()
    _check_requirements(backend, "sdist", config_settings)
    return backend.build_sdist(sdist_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    start = time.perf_counter()
    config = _config.load()
    backend = config.load_backend()
    _check_requirements(backend, "wheel", config_settings)
    with tempfile.TemporaryDirectory(prefix="array-vectorize-build-") as tmp:
        name = backend.build_wheel(tmp, config_settings=config_settings, metadata_directory=metadata_directory)
        entries = _wheelfile.read(os.path.join(tmp, name))
        mode = _wheelfile.file_mode(os.path.join(tmp, name))
    dist_info = _wheelfile.dist_info_dir(entries)
    artifacts, report = _precompile.precompile(entries, dist_info, config, os.getcwd())
    clash = sorted(set(artifacts) & set(entries))
    if clash:
        raise BuildError(f"the package already ships files where precompiled code goes: {', '.join(clash)}")
    entries.update(artifacts)
    os.makedirs(wheel_directory, exist_ok=True)
    _wheelfile.write(os.path.join(wheel_directory, name), entries, mode)
    left = (
        f"; left to run time: {', '.join(report.runtime)} (compiled by the decorator at import; under "
        "ARRAY_VECTORIZE_NO_COMPILE=1 each raises CompileDisabledError when called, and its module imports)"
        if report.runtime
        else ""
    )
    print(
        f"array_vectorize.build: precompiled {len(report.precompiled)} marked function(s) in "
        f"{report.modules} module(s) into {name} ({time.perf_counter() - start:.2f} s){left}",
        file=sys.stderr,
    )
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # Nothing is precompiled: the installed package runs the project's files in place, and the
    # decorator (or the import hook) compiles them at run time, so edits are picked up.
    backend = _config.load().load_backend()
    hook = getattr(backend, "build_editable", None)
    if hook is None:
        raise BuildError(f"the wrapped backend {backend.__name__} does not support editable installs (PEP 660)")
    _check_requirements(backend, "editable", config_settings)
    return hook(wheel_directory, config_settings=config_settings, metadata_directory=metadata_directory)


# ---------------------------------------------------------------------------- helpers


def _requires(kind: str, config_settings) -> list[str]:
    config = _config.load()
    requires = config.requires(kind)
    try:
        backend = config.load_backend()
    except BuildError:
        # Not installed yet (the usual case): the frontend installs `requires` first and then
        # calls the build hook, which imports it and checks what it would have asked for.
        return requires
    hook = getattr(backend, f"get_requires_for_build_{kind}", None)
    if hook is not None:
        requires += [r for r in hook(config_settings) if r not in requires]
    return requires


def _check_requirements(backend, kind: str, config_settings) -> None:
    """Fails clearly if the wrapped backend needs something the frontend did not install."""
    hook = getattr(backend, f"get_requires_for_build_{kind}", None)
    if hook is None:
        return
    missing = _config.missing_requirements(hook(config_settings))
    if missing:
        raise BuildError(
            f"the wrapped backend needs {', '.join(missing)} to build this project, which the frontend could not know\n"
            "when it asked array_vectorize.build; add "
            + ("it" if len(missing) == 1 else "them")
            + " to [build-system] requires in pyproject.toml"
        )


def _prepare_metadata(kind: str, metadata_directory: str, config_settings) -> str:
    backend = _config.load().load_backend()
    hook = getattr(backend, f"prepare_metadata_for_build_{kind}", None)
    if hook is not None:
        return hook(metadata_directory, config_settings=config_settings)
    # The hook is optional in PEP 517: build the wrapped backend's wheel and take its metadata.
    build = getattr(backend, "build_wheel" if kind == "wheel" else "build_editable", None)
    if build is None:
        raise BuildError(f"the wrapped backend {backend.__name__} cannot build {kind} wheels")
    with tempfile.TemporaryDirectory(prefix="array-vectorize-metadata-") as tmp:
        name = build(tmp, config_settings=config_settings)
        with zipfile.ZipFile(os.path.join(tmp, name)) as zf:
            dist_info = _wheelfile.dist_info_dir({n: None for n in zf.namelist()})
            for member in zf.namelist():
                if member.startswith(dist_info + "/") and not member.endswith("/"):
                    target = os.path.join(metadata_directory, *member.split("/"))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with zf.open(member) as src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
    return dist_info
