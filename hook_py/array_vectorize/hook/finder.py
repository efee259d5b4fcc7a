"""The meta-path finder and the loaders of the import hook.

``VectorizeFinder`` sits at the front of ``sys.meta_path`` and changes nothing about *finding*: it
asks the finders behind it, in order, and returns what the first one returns. Only when that spec
is a source file whose bytes mention ``array_vectorize`` (the cheap bail-out: a substring test, no
parse) does it swap the spec's loader for one that, before the original loader executes the
module, statically compiles the module's marked functions (or reads them from the cache) and
registers them with ``precompiled``. Every other module keeps its spec and loader untouched.

The swapped-in loader overrides ``exec_module`` only: a plain ``SourceFileLoader`` becomes a
subclass instance (so ``isinstance`` checks and ``pkg_resources`` keep working); any other loader
(pytest's assertion rewriter, for one) is wrapped by a delegating proxy. Either way the original
loader produces and executes the module's code exactly as without the hook. No importlib function
is patched.
"""

from __future__ import annotations

import os
import sys
import time
import types
from importlib.machinery import SOURCE_SUFFIXES, SourceFileLoader

try:  # what importlib.util re-exports, without importing importlib.util
    from importlib._bootstrap_external import decode_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.util import decode_source

from .. import _core, _stats, precompiled
from . import cache, unmarked

# The static compiler recognises a marked function only through an import of `array_vectorize`
# (`from array_vectorize import vectorize [as v]`, `import array_vectorize [as av]`; see
# src/module.rs `decorator_spellings`), so a module whose bytes lack this name has none. (Plain
# "vectorize" would also catch every module that mentions `np.vectorize`.)
MARKER = b"array_vectorize"
_SUFFIXES = tuple(SOURCE_SUFFIXES)
# The standard library never marks functions: its modules are skipped by location, without reading
# them. (Third-party packages installed under it, in site-packages, are not skipped.)
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep if getattr(os, "__file__", None) else "\0"
_SITE_IN_STDLIB = tuple(_STDLIB + d + os.sep for d in ("site-packages", "dist-packages"))
# wheel_artifacts.ARTIFACT_DIR, not imported from there: that module is only loaded when needed.
WHEEL_ARTIFACT_DIR = "__vectorized__"


def _in_stdlib(origin: str) -> bool:
    return origin.startswith(_STDLIB) and not origin.startswith(_SITE_IN_STDLIB)


# ---- observability -------------------------------------------------------------------------------


def debug_enabled() -> bool:
    return "hook" in (p.strip() for p in os.environ.get("ARRAY_VECTORIZE_DEBUG", "").split(","))


# Read once: the finder runs on every import of the process, and the switch is set before it starts.
_DEBUG = debug_enabled()


def log(fullname: str, what: str) -> None:
    """One line per module on stderr under ARRAY_VECTORIZE_DEBUG=hook."""
    if _DEBUG:
        try:
            sys.stderr.write(f"array-vectorize hook: {fullname}: {what}\n")
        except (AttributeError, OSError, ValueError):  # no usable stderr
            pass


def _skip(fullname: str, why: str) -> None:
    _stats.bump("hook_skipped")
    log(fullname, f"skipped ({why})")


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


def _read_source(loader, origin: str) -> bytes:
    get_data = getattr(loader, "get_data", None)
    if get_data is not None:
        data = get_data(origin)
        if isinstance(data, bytes):
            return data
    with open(origin, "rb") as f:
        return f.read()


# One buffer per thread for the bail-out: most modules fit, and reading into it allocates nothing.
_BUFFER_SIZE = 1 << 18
_buffers = None


def _mentions_marker(loader, origin: str) -> tuple[bool, str]:
    """Whether the module's source mentions `MARKER`, and how that is known: the hook's whole
    cost on unmarked modules (a ``stat`` when ``unmarked`` knows the file, else a read and a
    substring search)."""
    if type(loader) is not SourceFileLoader or not hasattr(os, "readv"):
        return (MARKER in _read_source(loader, origin), "read")
    remember = cache.enabled()
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
            found = MARKER in _read_source(loader, origin)
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
        _skip(spec.name, "standard library")
        return spec
    if target is not None:
        # importlib.reload(): entries registered by the previous import describe the old text.
        for name in _registered_names(origin):
            precompiled.forget(name)
    try:
        marked, how = _mentions_marker(loader, origin)
    except Exception as exc:  # noqa: BLE001 - an unreadable file is the original loader's business
        _skip(spec.name, f"source not readable: {exc}")
        return spec
    if not marked:
        _skip(spec.name, "no marker" if how == "read" else "no marker, known from its record")
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
# The work happens in create_module, which importlib calls just before exec_module: exec_module
# stays the original loader's own, so no frame of the hook sits between importlib and the module's
# code (importlib trims its own frames from tracebacks of errors raised at import; it would not
# trim ours).


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


# ---- the work ------------------------------------------------------------------------------------


def _registered_names(origin: str) -> list[str]:
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


def prepare(spec, loader) -> None:
    """Makes the module's statically compiled functions available to its decorators, from the
    cache or the compiler. Never raises: on any problem the module imports as without the hook
    (its decorators compile at run time)."""
    fullname = spec.name
    origin = spec.origin
    try:
        data = _read_source(loader, origin)
    except Exception as exc:  # noqa: BLE001
        _skip(fullname, f"source not readable: {exc}")
        return
    if MARKER not in data:
        _skip(fullname, "no marker")
        return
    try:
        _prepare(fullname, origin, data)
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


def _prepare(fullname: str, origin: str, data: bytes) -> None:
    if origin.endswith(".py") and _served_by_a_wheel(fullname, origin):
        _skip(fullname, "precompiled in its wheel")
        return
    key = cache.cache_key(data)
    path = cache.cache_path(origin) if cache.enabled() else None
    entries = None
    if not cache.enabled():
        why_miss = "ARRAY_VECTORIZE_CACHE=0"
    elif path is None:
        why_miss = "no cache location"
    else:
        why_miss = "no cache file"
        try:
            entries = cache.read(path, key)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except (cache.CacheError, OSError, ValueError) as exc:
            _stats.bump("hook_cache_invalid")
            why_miss = f"cache file unusable: {exc}"
    if entries is not None:
        _stats.bump("hook_cache_hits")
        _register(origin, entries)
        log(fullname, f"cache hit ({_summary(entries)}) {path}")
        return

    from ..api import compile_disabled

    if compile_disabled():
        _skip(fullname, f"{why_miss}, and ARRAY_VECTORIZE_NO_COMPILE=1 forbids compiling")
        return
    t0 = time.perf_counter()
    try:
        source = decode_source(data)
        entries = _core.compile_module(source, origin)
    except (_core.VectorizationError, _core.InternalError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        # Never cached: the module is left to the normal import system (and its decorators).
        _stats.bump("hook_compile_errors")
        _skip(fullname, f"static compile failed: {_first_problem(exc)}")
        return
    _stats.bump("compiled", sum(1 for e in entries if e.get("status") != "deferred"))
    _stats.bump("hook_modules_compiled")
    _add_python_side(entries, source, origin, fullname)
    _register(origin, entries)
    seconds = time.perf_counter() - t0
    log(fullname, f"compiled ({_summary(entries)}) in {seconds * 1e3:.1f} ms [{why_miss}]; {_write(path, key, entries, origin)}")


def _first_problem(exc: Exception) -> str:
    for d in getattr(exc, "diagnostics", None) or ():
        text = d.get("text") if isinstance(d, dict) else None
        if text:
            return text.splitlines()[0]
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _write(path: str | None, key: str, entries: list[dict], origin: str) -> str:
    if path is None:
        return "cache off" if not cache.enabled() else "no cache location"
    if sys.dont_write_bytecode:
        return "cache not written (sys.dont_write_bytecode)"
    try:
        cache.write(path, key, entries, origin)
    except (OSError, ValueError) as exc:
        _stats.bump("hook_cache_write_errors")
        return f"cache not written ({exc})"
    _stats.bump("hook_cache_writes")
    return f"cache written {path}"


def _register(origin: str, entries: list[dict]) -> None:
    for name in _registered_names(origin):
        precompiled.forget(name)
        precompiled.register(name, entries, "hook")


def _summary(entries: list[dict]) -> str:
    counts = {"ok": 0, "deferred": 0, "error": 0}
    for e in entries:
        status = e.get("status", "error")
        counts[status] = counts.get(status, 0) + 1
    return f"{counts['ok']} compiled, {counts['deferred']} deferred, {counts['error']} rejected"


def _add_python_side(entries: list[dict], source: str, origin: str, fullname: str) -> None:
    """Adds to each compiled entry what the decorator would otherwise compute at every import:
    ``code``, the generated module's code object (so a warm import compiles no Python), and
    ``doc``, the vectorized docstring (so it does not tokenize the scalar source)."""
    from ..docstring import vectorized_docstring
    from ..emit import compile_generated

    ok = [e for e in entries if e.get("status") == "ok"]
    for e in ok:
        try:
            e["code"] = compile_generated(e["qualname"], e["source"])
        except (SyntaxError, ValueError):
            pass  # the decorator compiles it and reports the problem
    if not ok:
        return
    # The docstring is computed exactly as the decorator computes it, from a function made of the
    # module's own bytecode: same __doc__ (and -OO strips it alike), same inspect.getsource.
    try:
        module_code = compile(source, origin, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return
    functions = {}
    stack = [module_code]
    while stack:
        code = stack.pop()
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                functions.setdefault((const.co_name, const.co_firstlineno), const)
                stack.append(const)
    glob = {"__name__": fullname}
    for e in ok:
        code = functions.get((e["name"], e["line"]))
        if code is None or getattr(code, "co_qualname", e["qualname"]) != e["qualname"]:
            continue
        try:
            closure = tuple(types.CellType() for _ in code.co_freevars)
            stand_in = types.FunctionType(code, glob, e["name"], None, closure)
            stand_in.__qualname__ = e["qualname"]
            e["doc"] = vectorized_docstring(stand_in, e.get("scalar_source"))
        except Exception:  # noqa: BLE001 - the decorator computes it at import instead
            pass


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
    from ..api import _CANONICAL_CACHE

    names = set()
    for original in list(_CANONICAL_CACHE.keys()):
        names.add(getattr(original, "__module__", None))
    # Decorations with options are not in the canonical cache: look at modules that bound the
    # decorator under its own name (a dict lookup each; a scan only for those few).
    for name, mod in list(sys.modules.items()):
        d = getattr(mod, "__dict__", None)
        if not isinstance(d, dict) or "vectorize" not in d or name in names:
            continue
        for value in list(d.values()):
            if type(value) is types.FunctionType and "_vectorized_original" in value.__dict__:
                names.add(name)
                break
    return sorted(
        n
        for n in names
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
