"""A cache miss of the import hook: the Rust core's static compile of the module, the Python side
of its entries (what a warm import would otherwise compute), made into the records the cache
holds (``records.CachedFunction``), and the cache file written. Imported only on a miss: a warm
import never loads it.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import decode_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.util import decode_source

from .. import _core, _stats
from .cachefile import write_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType

    from ..records import CachedFunction, ModuleFunction

# Fields of a compile_module entry that a warm import never reads: fields only the compile itself
# uses, and the scalar source, which only serves to build the docstring when that is not cached
# itself. The generated module is cached whole (`source`, which is `fast_source + exact_source`)
# with the length of `fast_source` (`fast_len`): the function's `.source` is that text, so a warm
# import allocates it once, and the two parts only at the first call (emit.py).
_NOT_CACHED = frozenset({"ir", "float_ir", "name"})
_NOT_CACHED_WITH_DOC = _NOT_CACHED | {"scalar_source"}
_WHOLE = frozenset({"fast_source", "exact_source", "source"})


def compile_and_cache(
    fullname: str, origin: str, data: bytes, key: str, path: str | None, why_miss: str
) -> tuple[list[CachedFunction] | None, str]:
    """Compiles the module's marked functions and writes the cache file: their records (what the
    hook registers, as a warm import would read them) and how it went (time, where the cache
    file went), for the log. None and why, for a failed compile, which is never cached: the
    module's decorators compile at run time."""
    t0 = time.perf_counter()
    try:
        source = decode_source(data)
        package, modules, deps = _program_modules(source, fullname, origin)
        entries = _core.compile_module(source, origin, None, package, modules)
    except (_core.VectorizationError, _core.InternalError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        _stats.bump("hook_compile_errors")
        return None, f"static compile failed: {_first_problem(exc)}"
    _stats.bump("compiled", sum(1 for e in entries if e.get("status") != "deferred"))
    _stats.bump("hook_modules_compiled")
    records = cached(entries, _entry_codes(entries), _docstrings(entries, source, origin, fullname))
    seconds = time.perf_counter() - t0
    return records, f"in {seconds * 1e3:.1f} ms [{why_miss}]; {_write(path, key, records, origin, deps)}"


def _program_modules(source: str, fullname: str, origin: str) -> tuple[str, dict, list]:
    """The modules of the program this module's imports name, and theirs in turn
    (array_vectorize/imports.py), found as the import system finds a submodule (the parent
    package's ``submodule_search_locations``; a top-level module on ``sys.path``), when it is
    a plain source file, and the modules of the standard library they name:
    ``(package, {name: (text, path, sha256)}, [(path relative to the module's directory,
    sha256)])``, the last the program's files the cache file depends on (a standard library
    function is checked by its own text, by the decorator). A module whose parent package is
    not imported yet is not looked for (finding it would run the package's code); one that is
    not Python source (a C extension, a namespace package) is left out: the names imported
    from it stay unresolved and their functions are compiled at run time."""
    from importlib.machinery import PathFinder

    from ..imports import package_of, program_modules

    is_package = os.path.basename(origin).startswith("__init__.")
    here = os.path.dirname(origin)

    def find(name: str):
        imported = sys.modules.get(name)
        if imported is not None:  # what the import system already found
            return _source_of(getattr(imported, "__spec__", None))
        parent = name.rpartition(".")[0]
        search = None
        if parent == fullname:  # a package's own submodule, while its __init__ loads
            search = [here]
        elif parent:
            parent_module = sys.modules.get(parent)
            search = getattr(getattr(parent_module, "__spec__", None), "submodule_search_locations", None)
            if search is None:
                return None
        try:
            return _source_of(PathFinder.find_spec(name, list(search) if search is not None else None))
        except (ImportError, ValueError, OSError):
            return None

    modules = program_modules(source, fullname, is_package, find)
    deps = [(os.path.relpath(path, here), sha) for _, path, sha in modules.values() if sha is not None]
    return package_of(fullname, is_package), modules, deps


def _source_of(spec) -> tuple[str, str, str] | None:
    """(text, path, sha256 of the bytes) of the module `spec` finds, when a plain source file."""
    from importlib.machinery import SourceFileLoader

    origin = getattr(spec, "origin", None)
    if spec is None or not isinstance(spec.loader, SourceFileLoader) or not isinstance(origin, str) or not origin.endswith(".py"):
        return None
    try:
        with open(origin, "rb") as f:
            raw = f.read()
        return decode_source(raw), origin, _core.sha256_hex(raw)
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None


def _first_problem(exc: Exception) -> str:
    for d in getattr(exc, "diagnostics", None) or ():
        text = d.get("text") if isinstance(d, dict) else None
        if text:
            return text.splitlines()[0]
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _write(path: str | None, key: str, records: list[CachedFunction], origin: str, deps: list = ()) -> str:
    if path is None:
        return "cache not written"  # off, or no place for it: the log line says which
    if sys.dont_write_bytecode:
        return "cache not written (sys.dont_write_bytecode)"
    try:
        write_cache(path, key, records, origin, deps)
    except (OSError, ValueError) as exc:
        _stats.bump("hook_cache_write_errors")
        return f"cache not written ({exc})"
    _stats.bump("hook_cache_writes")
    return f"cache written {path}"


def cached(
    entries: list[ModuleFunction], codes: dict[int, CodeType], docs: dict[tuple[str, int], str]
) -> list[CachedFunction]:
    """The records of `entries` as the cache holds them (``records.CachedFunction``), with the
    code of each entry function (by position) and its vectorized docstring (by qualname and
    line: the same for each of a factory's functions) where known:
    without the fields a warm import never reads, and with equal keys and values shared, so that
    marshal writes them once and a warm import allocates them once (every record has the same
    keys; neighbouring functions share their options and most lists of assumptions). Sharing is by
    marshalled form, which tells 1 from 1.0 and True, and 0.0 from -0.0."""
    shared: dict[bytes, object] = {}

    def share(value):
        if isinstance(value, str) and value.isidentifier():
            return sys.intern(value)  # as compile() interns names: shared with the code objects
        if isinstance(value, (str, tuple, dict, float, int)):
            if isinstance(value, tuple):
                value = tuple(share(v) for v in value)
            elif isinstance(value, dict):
                value = {share(k): share(v) for k, v in value.items()}
            try:
                return shared.setdefault(marshal.dumps(value), value)
            except ValueError:  # unmarshallable: encoding will say so
                return value
        if isinstance(value, list):
            # Shared too (records are never changed in place): the reader checks a module's
            # few distinct lists once each (cachefile.entries_problem).
            value = [share(v) for v in value]
            try:
                return shared.setdefault(marshal.dumps(value), value)
            except ValueError:
                return value
        return value

    records = []
    for i, e in enumerate(entries):
        doc = docs.get((e["qualname"], e["line"]))
        dropped = (_NOT_CACHED_WITH_DOC if doc is not None else _NOT_CACHED) | _WHOLE
        record = {sys.intern(k): share(v) for k, v in e.items() if k not in dropped}
        if e.get("status") == "ok":
            # Every field a warm import reads, also when empty (cachefile.entries_problem: an
            # entry without one is a miss).
            fast = e["fast_source"]
            record["source"] = fast + e["exact_source"]
            record["fast_len"] = len(fast)
            record["code"] = codes.get(i)
        if doc is not None:
            record["doc"] = doc
        records.append(record)
    return records


def _entry_codes(entries: list[ModuleFunction]) -> dict[int, CodeType]:
    """The code of each compiled entry function, by its entry's position in `entries`, so that
    a warm import compiles no Python and executes no generated module (emit.py makes the
    function from it, lazily). (Not by (qualname, line): a factory's function has an entry per
    call of the factory, each with its own closure values: issue 31.)"""
    from ..emit import compile_generated, entry_code

    codes = {}
    for i, e in enumerate(entries):
        if e.get("status") != "ok" or e.get("hidden"):  # values only the live function has
            continue
        try:
            code = entry_code(compile_generated(e["qualname"], e["fast_source"], e["exact_source"]), e["entry"])
        except (SyntaxError, ValueError):
            continue  # the decorator compiles it and reports the problem
        if code is not None:
            codes[i] = code
    return codes


def _docstrings(entries: list[ModuleFunction], source: str, origin: str, fullname: str) -> dict[tuple[str, int], str]:
    """The vectorized docstring of each compiled function, so that a warm import does not
    tokenize the scalar source. Computed exactly as the decorator computes it, from a function
    made of the module's own bytecode: same __doc__ (and -OO strips it alike), same
    inspect.getsource."""
    import types

    from ..docstring import vectorized_docstring

    ok = [e for e in entries if e.get("status") == "ok"]
    if not ok:
        return {}
    try:
        module_code = compile(source, origin, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}  # MemoryError: too deep for CPython's parser (issue 28 item 9); so is the import
    functions = {}
    stack = [module_code]
    while stack:
        code = stack.pop()
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                functions.setdefault((const.co_name, const.co_firstlineno), const)
                stack.append(const)
    glob = {"__name__": fullname}
    docs = {}
    for e in ok:
        code = functions.get((e["name"], e["line"]))
        if code is None or getattr(code, "co_qualname", e["qualname"]) != e["qualname"]:
            continue
        try:
            closure = tuple(types.CellType() for _ in code.co_freevars)
            stand_in = types.FunctionType(code, glob, e["name"], None, closure)
            stand_in.__qualname__ = e["qualname"]
            docs[(e["qualname"], e["line"])] = vectorized_docstring(stand_in, e.get("scalar_source"))
        except Exception:  # noqa: BLE001 - the decorator computes it at import instead
            pass
    return docs
