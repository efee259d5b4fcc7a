"""What the import hook does to a module that may hold marked functions, just before it executes:
find its static compile in the cache (``cache.py``) or run the Rust core on its text, and register
the result with ``precompiled``, where the module's decorators look first. Also the hook's log.
"""

from __future__ import annotations

import os
import sys
import time

try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import decode_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.util import decode_source

from .. import _core, _stats, precompiled
from . import cache

# The static compiler recognises a marked function only through an import of `array_vectorize`
# (`from array_vectorize import vectorize [as v]`, `import array_vectorize [as av]`; see
# src/module.rs `decorator_spellings`), so a module whose bytes lack this name has none. (Plain
# "vectorize" would also catch every module that mentions `np.vectorize`.)
MARKER = b"array_vectorize"

# wheel_artifacts.ARTIFACT_DIR, not imported from there: that module is only loaded when needed.
WHEEL_ARTIFACT_DIR = "__vectorized__"



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


def skip(fullname: str, why: str) -> None:
    _stats.bump("hook_skipped")
    log(fullname, f"skipped ({why})")


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


def prepare(spec, loader) -> None:
    """Makes the module's statically compiled functions available to its decorators, from the
    cache or the compiler. Never raises: on any problem the module imports as without the hook
    (its decorators compile at run time)."""
    fullname = spec.name
    origin = spec.origin
    try:
        data = read_source(loader, origin)
    except Exception as exc:  # noqa: BLE001
        skip(fullname, f"source not readable: {exc}")
        return
    if MARKER not in data:
        skip(fullname, "no marker")
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
        skip(fullname, "precompiled in its wheel")
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
        skip(fullname, f"{why_miss}, and ARRAY_VECTORIZE_NO_COMPILE=1 forbids compiling")
        return
    t0 = time.perf_counter()
    try:
        source = decode_source(data)
        entries = _core.compile_module(source, origin)
    except (_core.VectorizationError, _core.InternalError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        # Never cached: the module is left to the normal import system (and its decorators).
        _stats.bump("hook_compile_errors")
        skip(fullname, f"static compile failed: {_first_problem(exc)}")
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
    for name in registered_names(origin):
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
    ``code``, the code of the generated entry function (so a warm import compiles no Python and
    executes no generated module: emit.py makes the function from it, lazily), and ``doc``, the
    vectorized docstring (so it does not tokenize the scalar source)."""
    import types

    from ..docstring import vectorized_docstring
    from ..emit import compile_generated, entry_code

    ok = [e for e in entries if e.get("status") == "ok"]
    for e in ok:
        if e.get("hidden"):  # values only the live function has: nothing to cache
            continue
        try:
            code = entry_code(compile_generated(e["qualname"], e["source"]), e["entry"])
        except (SyntaxError, ValueError):
            continue  # the decorator compiles it and reports the problem
        if code is not None:
            e["code"] = code
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
