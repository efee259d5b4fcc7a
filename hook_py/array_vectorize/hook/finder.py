"""The meta-path finder and the loaders of the import hook, and its installation.

``VectorizeFinder`` sits at the front of ``sys.meta_path`` and changes nothing about *finding*: it
asks the finders behind it, in order, and returns what the first one returns. Only when that spec
is a source file that mentions ``array_vectorize`` (the cheap bail-out: a substring test, no
parse; the standard library and sources recorded as unmarked are not even read) does it swap the
spec's loader for one whose ``create_module`` first hands the module to ``prepare`` (compile or
read the cache, register). Every other module keeps its spec and loader untouched.

The swapped-in loader overrides ``create_module`` only, which importlib calls just before
``exec_module``: a plain ``SourceFileLoader`` becomes a subclass instance (so ``isinstance`` checks
and ``pkg_resources`` keep working); any other loader (pytest's assertion rewriter, for one) is
wrapped by a delegating proxy. Either way the original loader's ``exec_module`` produces and runs
the module's code exactly as without the hook, and no frame of the hook is on the stack while the
module runs. No importlib function is patched.
"""

from __future__ import annotations

import os
import sys
try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import SOURCE_SUFFIXES, SourceFileLoader
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.machinery import SOURCE_SUFFIXES, SourceFileLoader

from .. import emit, precompiled
from . import cache, unmarked
from .prepare import MARKER, prepare, read_source, registered_names, skip

_SUFFIXES = tuple(SOURCE_SUFFIXES)
# The standard library never marks functions: its modules are skipped by location, without reading
# them. (Third-party packages installed under it, in site-packages, are not skipped.)
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep if getattr(os, "__file__", None) else "\0"
_SITE_IN_STDLIB = tuple(_STDLIB + d + os.sep for d in ("site-packages", "dist-packages"))


# Whether unmarked sources are recorded and looked up (ARRAY_VECTORIZE_CACHE, read at install: this
# is on the path of every import).
_REMEMBER = cache.enabled()


def _in_stdlib(origin: str) -> bool:
    return origin.startswith(_STDLIB) and not origin.startswith(_SITE_IN_STDLIB)


# ---- finder --------------------------------------------------------------------------------------


class VectorizeFinder:
    """Delegates every lookup to the finders behind it; hooks the loader of marked modules."""

    # Recognised across reloads of this module (install() stays idempotent).
    _array_vectorize_hook = True

    def __init__(self) -> None:
        import _thread

        self._local = _thread._local()

    def __repr__(self) -> str:
        return "<array_vectorize import hook>"

    def find_spec(self, fullname: str, path=None, target=None):
        # Re-entry guard: a finder behind us may look the same name up through sys.meta_path.
        local = self._local
        active = getattr(local, "names", None)
        if active is None:
            active = local.names = set()
        if fullname in active:
            return None
        active.add(fullname)
        try:
            spec = self._delegate(fullname, path, target)
        finally:
            active.discard(fullname)
        if spec is None:
            return None
        if fullname == "linecache" and emit._pending_sources:
            return _flushing_linecache(spec)
        return _consider(spec, target)

    def _delegate(self, fullname: str, path, target):
        # The finders behind this one, in order. (Index loops: this runs on every import, and
        # allocating here would move the garbage collector's schedule.)
        meta_path = sys.meta_path
        i = 0
        n = len(meta_path)
        while i < n and meta_path[i] is not self:
            i += 1
        i = i + 1 if i < n else 0
        while i < len(meta_path):
            finder = meta_path[i]
            i += 1
            if finder is self:
                continue
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                # A legacy finder: stop here and let importlib consult the finders in order itself.
                return None
            spec = find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def invalidate_caches(self) -> None:
        """Nothing to invalidate: cache files are keyed by content."""


# One buffer per thread for the bail-out: most modules fit, and reading into it allocates nothing.
# 64 KiB: a larger buffer costs more to fault in once (~1.3 us per page here) than the larger
# modules cost to read whole.
_BUFFER_SIZE = 1 << 16
_buffers = None


def _mentions_marker(loader, origin: str) -> tuple[bool, str]:
    """Whether the module's source mentions `MARKER`, and how that is known: the hook's whole
    cost on unmarked modules (a ``stat`` when ``unmarked`` knows the file, else a read and a
    substring search)."""
    if type(loader) is not SourceFileLoader or not hasattr(os, "readv"):
        return (MARKER in read_source(loader, origin), "read")
    remember = _REMEMBER
    if remember and unmarked.known(origin):
        return (False, "recorded")
    local = _local_buffers()
    buf = getattr(local, "buf", None)
    if buf is None:
        buf = local.buf = bytearray(_BUFFER_SIZE)
    fd = os.open(origin, os.O_RDONLY)
    try:
        n = os.readv(fd, [buf])
        if n < _BUFFER_SIZE:
            found = buf.find(MARKER, 0, n) >= 0
        else:  # a large file: read it whole
            found = MARKER in read_source(loader, origin)
        if not found and remember:
            st = os.fstat(fd)
            unmarked.learn(origin, st.st_size, st.st_mtime_ns)
    finally:
        os.close(fd)
    return (found, "read")


def _local_buffers():
    global _buffers
    if _buffers is None:
        import _thread

        _buffers = _thread._local()
    return _buffers


def _consider(spec, target=None):
    """`spec` itself, or `spec` with a hooking loader when its module may hold marked functions."""
    origin = spec.origin
    loader = spec.loader
    if (
        loader is None
        or not spec.has_location
        or not isinstance(origin, str)
        or not origin.endswith(_SUFFIXES)
        or isinstance(loader, (HookSourceFileLoader, HookLoader))
        or not hasattr(loader, "exec_module")
        or spec.name.partition(".")[0] == "array_vectorize"  # ours: names itself, marks nothing
    ):
        return spec
    if _in_stdlib(origin):
        skip(spec.name, "standard library")
        return spec
    if target is not None:
        # importlib.reload(): entries registered by the previous import describe the old text.
        for name in registered_names(origin):
            precompiled.forget(name)
    try:
        marked, how = _mentions_marker(loader, origin)
    except Exception as exc:  # noqa: BLE001 - an unreadable file is the original loader's business
        skip(spec.name, f"source not readable: {exc}")
        return spec
    if not marked:
        skip(spec.name, "no marker" if how == "read" else "no marker, known from its record")
        return spec
    if type(loader) is SourceFileLoader:
        spec.loader = HookSourceFileLoader(loader.name, loader.path)
    else:
        spec.loader = HookLoader(loader)
    if target is not None:
        # A reload executes the module without creating it: prepare now.
        prepare(spec, spec.loader)
    return spec


# ---- loaders -------------------------------------------------------------------------------------
#
# The work happens in create_module: exec_module stays the original loader's own, so no frame of
# the hook sits between importlib and the module's code (importlib trims its own frames from the
# tracebacks of errors raised at import; it would not trim ours).


class HookSourceFileLoader(SourceFileLoader):
    """A ``SourceFileLoader`` that compiles the module's marked functions when creating it."""

    def create_module(self, spec):
        prepare(spec, self)
        return super().create_module(spec)


class HookLoader:
    """Wraps any other loader (pytest's assertion rewriter, ...): ``create_module`` prepares, then
    delegates; every other attribute, ``exec_module`` included, is the original loader's."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str):
        return getattr(self._loader, name)

    def __repr__(self) -> str:
        return f"<array_vectorize hook around {self._loader!r}>"

    def create_module(self, spec):
        prepare(spec, self._loader)
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None


class _LinecacheLoader:
    """linecache's own loader, which then hands it the sources of lazy functions decorated
    before it was imported (emit.register_source_lazily)."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def __getattr__(self, name: str):
        return getattr(self._loader, name)

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        emit.flush_pending_sources(module)


def _flushing_linecache(spec):
    if spec.loader is not None and hasattr(spec.loader, "exec_module"):
        spec.loader = _LinecacheLoader(spec.loader)
    return spec


# ---- installation --------------------------------------------------------------------------------


def _installed() -> list:
    return [f for f in sys.meta_path if getattr(f, "_array_vectorize_hook", False)]


def is_installed() -> bool:
    return bool(_installed())


def install() -> bool:
    """Puts the finder at the front of ``sys.meta_path``; a no-op when it is already there.
    Returns True when this call installed it."""
    if _installed():
        return False
    sys.meta_path.insert(0, VectorizeFinder())
    _warn_about_earlier_imports()
    return True


def uninstall() -> bool:
    """Removes the finder. Modules already imported keep their compiled functions."""
    found = _installed()
    for f in found:
        sys.meta_path.remove(f)
    return bool(found)


def _marked_modules_already_imported() -> list[str]:
    from ..api import decorated_modules

    return sorted(
        n
        for n in decorated_modules
        if isinstance(n, str) and n != "__main__" and n.split(".")[0] != "array_vectorize" and n in sys.modules
    )


def _warn_about_earlier_imports() -> None:
    try:
        early = _marked_modules_already_imported()
    except Exception:  # noqa: BLE001 - a diagnostic, never a reason to fail
        return
    if not early:
        return
    import warnings

    shown = ", ".join(early[:5]) + (f" and {len(early) - 5} more" if len(early) > 5 else "")
    warnings.warn(
        f"array_vectorize.auto was imported after {shown}, which contain{'s' if len(early) == 1 else ''} "
        "vectorized functions: those were compiled at run time and are not cached. Import "
        "array_vectorize.auto before them (for example first thing in your entry point).",
        UserWarning,
        stacklevel=_caller_stacklevel(),
    )


def _caller_stacklevel() -> int:
    """warnings.warn's stacklevel, from our caller, of the first frame outside importlib and this
    package: the line that imported array_vectorize.auto. (warnings skips importlib's frames
    itself, so they are not counted.)"""
    frame = sys._getframe(2)  # our caller's caller: stacklevel 2
    level = 2
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    while frame is not None:
        filename = frame.f_code.co_filename
        if "importlib" in filename and "_bootstrap" in filename:
            frame = frame.f_back
            continue
        if not os.path.abspath(filename).startswith(here):
            return level
        frame = frame.f_back
        level += 1
    return 1
