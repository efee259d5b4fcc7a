"""The import hook behind ``import array_vectorize.auto`` (DESIGN.md section 2, way 2).

A warm import goes through this module and ``cachefile`` (the cache files' layout, read and
written: content keys, header, payload) alone, so this one holds everything else a warm import
runs, in sections: the switches and the log; the records of unmarked sources; ``prepare`` (per
marked module: the cache, else ``compile.py``); the meta-path finder (the cheap bail-out) and its
loaders; installation. Every module costs ~70-160 us to import on top of its contents, on the
path of every process that installs the hook; the cold parts are modules of their own, imported
when needed:

- ``compile``: a cache miss: the Rust core's static compile of the module and the Python side of
  its entries (the records the cache holds), written by ``cachefile``;
- ``cli``: ``python -m array_vectorize cache info|clear PATH``.

``VectorizeFinder`` sits at the front of ``sys.meta_path`` and changes nothing about *finding*: it
asks the finders behind it, in order, and returns what the first one returns. Only when that spec
is a source file that mentions ``array_vectorize`` (the cheap bail-out: a substring test, no
parse; the standard library and sources recorded as unmarked are not even read) does it swap the
spec's loader for one whose ``create_module`` first hands the module to ``prepare``. Every other
module keeps its spec and loader untouched.

The swapped-in loader overrides ``create_module`` only, which importlib calls just before
``exec_module``: a plain ``SourceFileLoader`` becomes a subclass instance (so ``isinstance`` checks
and ``pkg_resources`` keep working); any other loader (pytest's assertion rewriter, for one) is
wrapped by a delegating proxy. Either way the original loader's ``exec_module`` produces and runs
the module's code exactly as without the hook, and no frame of the hook is on the stack while the
module runs. No importlib function is patched.
"""

from __future__ import annotations

import marshal
import os
import sys

try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import SOURCE_SUFFIXES, SourceFileLoader, cache_from_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.machinery import SOURCE_SUFFIXES, SourceFileLoader
    from importlib.util import cache_from_source

from .. import __version__, _core, _stats, emit, precompiled
from .cachefile import CacheError, cache_key, cache_path, read_cache, read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..records import CachedFunction, HookOrigin

# ---- switches and log ----------------------------------------------------------------------------

# The static compiler recognises a marked function only through an import of `array_vectorize`
# (`from array_vectorize import vectorize [as v]`, `import array_vectorize [as av]`; see
# src/static_module/mod.rs `decorator_spellings`), so a module whose bytes lack this name has none. (Plain
# "vectorize" would also catch every module that mentions `np.vectorize`.)
MARKER = b"array_vectorize"

# wheel_artifacts.ARTIFACT_DIR, not imported from there: that module is only loaded when needed.
WHEEL_ARTIFACT_DIR = "__vectorized__"


def cache_enabled() -> bool:
    """False under ARRAY_VECTORIZE_CACHE=0: no cache file or record is read or written."""
    return os.environ.get("ARRAY_VECTORIZE_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


#: Log levels: ARRAY_VECTORIZE_DEBUG=hook logs the modules that mention array_vectorize (the ones
#: the hook compiles, reads from its cache or leaves to the decorator, and why); hook-all also
#: every module skipped on the way (the standard library, sources without the marker).
MARKED_MODULES, ALL_MODULES = 1, 2


def debug_level() -> int:
    """0, MARKED_MODULES or ALL_MODULES, from ARRAY_VECTORIZE_DEBUG (comma-separated)."""
    parts = {p.strip() for p in os.environ.get("ARRAY_VECTORIZE_DEBUG", "").split(",")}
    if "hook-all" in parts:
        return ALL_MODULES
    return MARKED_MODULES if "hook" in parts else 0


# Read once: the finder runs on every import of the process, and the switches are set before it
# starts.
_DEBUG = debug_level()
_REMEMBER = cache_enabled()  # whether unmarked sources are recorded and looked up


def log(fullname: str, what: str, level: int = MARKED_MODULES) -> None:
    """One line on stderr when ARRAY_VECTORIZE_DEBUG asks for `level` or more."""
    if _DEBUG >= level:
        try:
            sys.stderr.write(f"array-vectorize hook: {fullname}: {what}\n")
        except (AttributeError, OSError, ValueError):  # no usable stderr
            pass


def skip(fullname: str, why: str, level: int = MARKED_MODULES) -> None:
    _stats.bump("hook_skipped")
    log(fullname, f"skipped ({why})", level)


# ---- records of unmarked sources -----------------------------------------------------------------
#
# The hook's only cost on a module it does not change is the bail-out: reading the source and
# searching it for the marker. A record turns that into one ``stat`` on later imports: each
# ``__pycache__`` directory may hold ``array-vectorize-<version>.unmarked``, mapping the names of
# the directory's unmarked sources to their size and ``mtime_ns`` (a marshalled dict after a magic
# line), read once per directory per process. A file whose size or modification time differs is
# read again.
#
# A record only ever says "skip": if it were wrong (an edit that kept both the size and the
# nanosecond modification time), the module's decorators would compile at run time, as without
# the hook, never anything worse. Compiled code itself stays keyed by content.
#
# It lives where CPython puts the directory's ``.pyc`` files (``sys.pycache_prefix`` honoured), is
# not written under ``sys.dont_write_bytecode`` or ``ARRAY_VECTORIZE_CACHE=0`` (and not read under
# the latter), and is written once, at interpreter exit, atomically; lost updates between
# concurrent processes only mean a file is read again next time.

UNMARKED_RECORD = f"array-vectorize-{__version__}.unmarked"
_UNMARKED_MAGIC = f"array-vectorize {__version__} unmarked sources (marker array_vectorize)\n".encode()

# source directory -> {file name: (size, mtime_ns)}; {} when the directory has no usable record.
_known: dict[str, dict[str, tuple[int, int]]] = {}
# source directory -> records learnt in this process, written at exit.
_learnt: dict[str, dict[str, tuple[int, int]]] = {}
_flush_registered = False


def record_path(directory: str) -> str | None:
    """The record of `directory`: in its ``__pycache__`` (or under ``sys.pycache_prefix``)."""
    try:
        pyc = cache_from_source(os.path.join(directory, "__init__.py"))
    except (NotImplementedError, ValueError):
        return None
    return os.path.join(os.path.dirname(pyc), UNMARKED_RECORD)


def _parse_record(data: bytes) -> dict[str, tuple[int, int]]:
    if not data.startswith(_UNMARKED_MAGIC):
        return {}
    try:
        record = marshal.loads(data[len(_UNMARKED_MAGIC) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(record, dict):
        return {}
    # Entries of any other shape never match a stat result, so they need no check here.
    return record


def _load_record(directory: str) -> dict[str, tuple[int, int]]:
    path = record_path(directory)
    if path is None:
        return {}
    try:
        return _parse_record(read_file(path))
    except OSError:
        return {}


def known_unmarked(origin: str) -> bool:
    """True when `origin` is recorded as unmarked and its size and mtime still match."""
    directory, name = os.path.split(origin)
    record = _known.get(directory)
    if record is None:
        record = _known[directory] = _load_record(directory)
    seen = record.get(name)
    if seen is None:
        return False
    try:
        st = os.stat(origin)
    except OSError:
        return False
    return seen == (st.st_size, st.st_mtime_ns)


def learn_unmarked(origin: str, size: int, mtime_ns: int) -> None:
    """Records that `origin` (as it was at `size`, `mtime_ns`) does not mention the marker."""
    global _flush_registered
    if sys.dont_write_bytecode:
        return
    directory, name = os.path.split(origin)
    _learnt.setdefault(directory, {})[name] = (size, mtime_ns)
    if not _flush_registered:
        import atexit

        atexit.register(flush_unmarked)
        _flush_registered = True


def flush_unmarked() -> None:
    """Writes what this process learnt, merged with what is on disk. Never raises."""
    learnt = dict(_learnt)
    _learnt.clear()
    for directory, records in learnt.items():
        try:
            path = record_path(directory)
            if path is None:
                continue
            merged = _load_record(directory)
            merged.update(records)
            present = set(os.listdir(directory))  # forget files that are gone
            kept = {n: v for n, v in sorted(merged.items()) if n in present}
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _core.write_atomic(path, _UNMARKED_MAGIC + marshal.dumps(kept))
        except Exception:  # noqa: BLE001 - a lost record only costs a read next time
            continue


# ---- prepare: a marked module, just before it runs -----------------------------------------------


def read_source(loader, origin: str) -> bytes:
    get_data = getattr(loader, "get_data", None)
    if get_data is not None:
        data = get_data(origin)
        if isinstance(data, bytes):
            return data
    with open(origin, "rb") as f:
        return f.read()


def registered_names(origin: str) -> list[str]:
    """The file names the module's code objects may carry: `origin` (what CPython's loaders
    compile under) and, when pathlib is in use, ``str(Path(origin))`` (what pytest's assertion
    rewriter compiles under)."""
    names = [origin]
    pathlib = sys.modules.get("pathlib")
    if pathlib is not None:
        try:
            alt = str(pathlib.Path(origin))
        except (TypeError, ValueError):
            alt = origin
        if alt != origin:
            names.append(alt)
    return names


def prepare(spec, loader, namespace: dict, data: bytes | None = None) -> None:
    """Makes the module's statically compiled functions available to its decorators, from the
    cache or the compiler, for the module execution whose globals are `namespace`. `data`: the
    source bytes when the finder has read them already. Never raises: on any problem the module
    imports as without the hook (its decorators compile at run time)."""
    fullname = spec.name
    origin = spec.origin
    if data is None:
        try:
            data = read_source(loader, origin)
        except Exception as exc:  # noqa: BLE001
            skip(fullname, f"source not readable: {exc}", ALL_MODULES)
            return
    if MARKER not in data:
        skip(fullname, "no marker", ALL_MODULES)
        return
    try:
        _prepare(fullname, origin, data, namespace)
    except Exception as exc:  # noqa: BLE001 - the hook must never break an import
        _stats.bump("hook_errors")
        log(fullname, f"skipped (hook error: {type(exc).__name__}: {exc})")


def _served_by_a_wheel(fullname: str, origin: str) -> bool:
    """Whether the build backend precompiled this module into its wheel: then the decorator finds
    those artifacts, and the hook leaves the module alone. (A stat for any other module.)"""
    head, tail = os.path.split(origin)
    if not os.path.isfile(os.path.join(head, WHEEL_ARTIFACT_DIR, tail[: -len(".py")] + ".json")):
        return False
    from .. import wheel_artifacts

    return wheel_artifacts.serves(origin, fullname)


def _prepare(fullname: str, origin: str, data: bytes, namespace: dict) -> None:
    if origin.endswith(".py") and _served_by_a_wheel(fullname, origin):
        skip(fullname, "precompiled in its wheel")
        return
    key = cache_key(data)
    enabled = cache_enabled()
    path = cache_path(origin) if enabled else None
    entries = None
    if not enabled:
        why_miss = "ARRAY_VECTORIZE_CACHE=0"
    elif path is None:
        why_miss = "no cache location"
    else:
        why_miss = "no cache file"
        try:
            entries = read_cache(path, key, origin)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except (CacheError, OSError, ValueError) as exc:
            _stats.bump("hook_cache_invalid")
            why_miss = f"cache file unusable: {exc}"
    if entries is not None:
        _stats.bump("hook_cache_hits")
        # stats()["disk_cache_hits"] counts their decorations.
        register(origin, entries, namespace, data, read_from_file=True)
        if _DEBUG:
            log(fullname, f"cache hit ({summary(entries, 'read from the cache, nothing compiled')}) {path}")
            log_left_to_decorator(fullname, entries)
        return
    from ..api import compile_disabled

    if compile_disabled():
        skip(fullname, f"{why_miss}, and ARRAY_VECTORIZE_NO_COMPILE=1 forbids compiling")
        return
    from .compile import compile_and_cache

    entries, how = compile_and_cache(fullname, origin, data, key, path, why_miss)
    if entries is None:
        skip(fullname, how)  # a failed compile: the decorators compile at run time
        return
    register(origin, entries, namespace, data, read_from_file=False)
    log(fullname, f"compiled ({summary(entries, 'compiled')}) {how}")
    log_left_to_decorator(fullname, entries)


def register(origin: str, entries: list[CachedFunction], namespace: dict, data: bytes, *, read_from_file: bool) -> None:
    """Registers the records of the module at `origin`, compiled from `data` (and read from its
    cache file, or compiled just now), for the module execution whose globals are `namespace`."""
    came_from: HookOrigin = "cache" if read_from_file else "hook"
    for name in registered_names(origin):
        precompiled.forget(name)
        precompiled.register(name, entries, came_from, namespace, data)


def log_left_to_decorator(fullname: str, entries: list[CachedFunction]) -> None:
    """One line per function the static compile left to the decorator, and why: it compiles them
    at every import (their code is not cached)."""
    for e in entries:
        status = e.get("status")
        if status == "deferred":
            names = e.get("deferred") or ()
            why = "; ".join(f"reads `{n}`, which the module's text does not pin down" if n.isidentifier() else n for n in names)
            log(fullname, f"{e['qualname']} (line {e['line']}) left to the decorator, which compiles it at each import: {why}")
        elif status == "error":
            first = (e.get("error") or "").partition("\n")[0]
            log(fullname, f"{e['qualname']} (line {e['line']}) rejected by the compiler (the decorator reports it): {first}")


def summary(entries: list[CachedFunction], ok: str) -> str:
    """What a module's entries hold, for the debug log: `ok` says what became of the functions
    that compiled (``compiled`` by this import, ``read from the cache`` on a hit)."""
    counts = {"ok": 0, "deferred": 0, "error": 0}
    for e in entries:
        status = e.get("status", "error")
        counts[status] = counts.get(status, 0) + 1
    return f"{counts['ok']} {ok}, {counts['deferred']} deferred to the decorator, {counts['error']} rejected"


# ---- finder --------------------------------------------------------------------------------------

_SUFFIXES = tuple(SOURCE_SUFFIXES)
# The standard library never marks functions: its modules are skipped by location, without reading
# them. (Third-party packages installed under it, in site-packages, are not skipped.)
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep if getattr(os, "__file__", None) else "\0"
_SITE_IN_STDLIB = tuple(_STDLIB + d + os.sep for d in ("site-packages", "dist-packages"))


def _in_stdlib(origin: str) -> bool:
    return origin.startswith(_STDLIB) and not origin.startswith(_SITE_IN_STDLIB)


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


# The bail-out reads this much of a source first: most modules fit, and a larger one is read
# whole. ``os.read`` allocates the bytes without filling them first (a 64 KiB buffer zero-filled
# once cost a warm import ~45 us of page faults here) and touches only the pages the file fills;
# the block is reused by the next read once this one is dropped.
_READ_SIZE = 1 << 16


def _read_for_marker(loader, origin: str) -> tuple[bytes | None, str]:
    """The module's source when it mentions `MARKER`, else None; and how that is known. This is
    the hook's whole cost on unmarked modules: a ``stat`` when a record knows the file, else a
    read and a substring search."""
    if type(loader) is not SourceFileLoader:
        data = read_source(loader, origin)
        return (data if MARKER in data else None, "read")
    remember = _REMEMBER
    if remember and known_unmarked(origin):
        return (None, "recorded")
    fd = os.open(origin, os.O_RDONLY)
    try:
        data = os.read(fd, _READ_SIZE)
        if len(data) == _READ_SIZE:  # a large file: read it whole
            data = read_source(loader, origin)
        if MARKER not in data:
            data = None
            if remember:
                st = os.fstat(fd)
                learn_unmarked(origin, st.st_size, st.st_mtime_ns)
    finally:
        os.close(fd)
    return (data, "read")


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
        skip(spec.name, "standard library", ALL_MODULES)
        return spec
    if target is not None:
        # importlib.reload(): entries registered by the previous import describe the old text.
        for name in registered_names(origin):
            precompiled.forget(name)
    try:
        data, how = _read_for_marker(loader, origin)
    except Exception as exc:  # noqa: BLE001 - an unreadable file is the original loader's business
        skip(spec.name, f"source not readable: {exc}", ALL_MODULES)
        return spec
    if data is None:
        skip(spec.name, "no marker" if how == "read" else "no marker, known from its record", ALL_MODULES)
        return spec
    if target is not None:
        # A reload executes the module without creating it: prepare now, for its globals.
        prepare(spec, loader, target.__dict__, data)
        data = None
    if type(loader) is SourceFileLoader:
        spec.loader = HookSourceFileLoader(loader.name, loader.path)
        spec.loader._source = data
    else:
        spec.loader = HookLoader(loader, data)
    return spec


# ---- loaders -------------------------------------------------------------------------------------
#
# The work happens in create_module: exec_module stays the original loader's own, so no frame of
# the hook sits between importlib and the module's code (importlib trims its own frames from the
# tracebacks of errors raised at import; it would not trim ours). Each carries the source bytes
# the finder read, so the file is read once (the original loader reads it again to compile, or
# reads the .pyc, exactly as without the hook).


def _new_module(name: str):
    """The module importlib would create when ``create_module`` returns None (``_new_module``):
    the hook creates it itself, so that the entries it registers are tied to its globals."""
    return type(sys)(name)


class HookSourceFileLoader(SourceFileLoader):
    """A ``SourceFileLoader`` that compiles the module's marked functions when creating it."""

    _source: bytes | None = None

    def create_module(self, spec):
        data, self._source = self._source, None
        module = super().create_module(spec) or _new_module(spec.name)
        prepare(spec, self, module.__dict__, data)
        return module


class HookLoader:
    """Wraps any other loader (pytest's assertion rewriter, ...): ``create_module`` prepares, then
    delegates; every other attribute, ``exec_module`` included, is the original loader's."""

    def __init__(self, loader, source: bytes | None = None) -> None:
        self._loader = loader
        self._source = source

    def __getattr__(self, name: str):
        return getattr(self._loader, name)

    def __repr__(self) -> str:
        return f"<array_vectorize hook around {self._loader!r}>"

    def create_module(self, spec):
        data, self._source = self._source, None
        create = getattr(self._loader, "create_module", None)
        module = (create(spec) if create is not None else None) or _new_module(spec.name)
        prepare(spec, self._loader, module.__dict__, data)
        return module


class _LinecacheLoader:
    """linecache's own loader, which then hands it the sources of lazy functions decorated
    before it was imported (emit.from_cache)."""

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
