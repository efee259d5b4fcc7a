"""The import hook's cache files: their layout, both ways. A warm import reads one
(``read_cache``, from ``prepare`` in ``__init__.py``); a cache miss writes one (``write_cache``,
from ``compile.py``), and ``cli.py`` lists and clears them. What the payload's records hold is
``records.CachedFunction``.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
from _operator import is_, itemgetter, le  # built into the interpreter, as itertools: no import cost
from itertools import chain, repeat

try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import MAGIC_NUMBER, cache_from_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.util import MAGIC_NUMBER, cache_from_source

from .. import __version__, _core

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..records import CachedFunction

# A cache file holds the static compile of one module (``_core.compile_module``'s entries as
# ``records.CachedFunction``s, with the code of each entry function and its vectorized docstring:
# compile.py), keyed by the content of everything that determines it: the source bytes, the
# compiler's build id, the Python side that shapes cached data (``emit.py``, ``docstring.py``,
# this module, ``__init__.py``, ``compile.py``), the interpreter's cache tag and bytecode magic number, and the optimisation level. Never by the
# user's timestamps: a same-size edit within a second or a ``git checkout`` cannot serve stale
# code, and a moved tree still hits (the key holds no path). It lives next to CPython's ``.pyc``.
#
# Layout (all integers little-endian)::
#
#     magic            8 bytes   b"AVCACHE\0"
#     format version   4 bytes   CACHE_FORMAT_VERSION
#     key             64 bytes   hex sha256 (cache_key)
#     payload length   8 bytes
#     payload checksum 8 bytes   _core.checksum64 of the payload
#     payload          marshal.dumps({"entries": [...], "deps": [(path, sha256), ...]})
#
# Every entry holds every field a warm import reads (since format 8, issue 28; ``entries_problem``).
# ``deps`` (since format 7, issue 12; absent when empty): the other modules of the program whose
# text the compile read (a helper imported from ``.units``), each by its path relative to the
# module's directory and the sha256 of its bytes, checked on every read (``_check_deps``): an edit
# of ``units.py`` makes the importer's cache file unusable, and it is compiled and written again.
#
# ``decode_cache`` checks every field before it unmarshals anything; any mismatch or I/O error is
# a miss. The key guards staleness (a sha256 over the source and everything else that shapes the
# entries); the payload needs only a guard against torn, truncated or bit-flipped files, which
# unmarshalling must never see (a damaged code object can crash the interpreter): a 64-bit
# checksum that runs near memory speed, where a second sha256 over the ~2 KB per function cost a
# warm import as much as reading the file. Writing (``write_cache``) goes through
# ``_core.write_atomic`` (temporary file, then rename): concurrent writers of the same module
# leave one whole file. Both raise on problems; their callers turn every one into a miss or an
# unwritten file, never an import error.

CACHE_MAGIC = b"AVCACHE\0"
#: Bump whenever the payload's layout or meaning changes. 9: the records carry the core's lists of
#: out-of-line helper functions (``helpers``, ``exact_helpers``), which format 8's lacked (emit
#: then searched the generated text for them): an older file is a miss, compiled and written again.
#: 11: the records carry ``int_lanewise``, codegen's word on whether a large int64 call may run
#: in blocks (runtime/blocked.py; format 10's runtime read it from the generated text).
#: 12: and ``mixed_lanewise``, the same word for the mixed body's kinds (issue 30).
CACHE_FORMAT_VERSION = 12
CACHE_SUFFIX = ".avc"
#: What cache files are called after CPython's ``<module>.<cache tag>[.opt-N]``.
CACHE_TAG = f"array-vectorize-{__version__}"
# magic, version (u32), key (64 hex), payload length (u64), payload checksum (u64): 92 bytes.
HEADER_SIZE = 8 + 4 + 64 + 8 + 8

_fingerprint: bytes | None = None


class CacheError(Exception):
    """Why a cache file was not usable (the message is logged, never raised to the importer)."""


def _python_fingerprint() -> bytes:
    """What of the Python side shapes cached data: the package version, the compiler's build id,
    and the size and modification time of the files that make it. (These are the tool's own
    files: a stat is enough to notice an edit of an editable install, and reading and hashing
    them would cost a warm import more than everything else it does.)"""
    global _fingerprint
    if _fingerprint is None:
        here = os.path.dirname(os.path.abspath(__file__))
        parts = [__version__, _core.BUILD_ID]
        for path in (
            os.path.join(here, "..", "emit.py"),
            os.path.join(here, "..", "docstring.py"),
            os.path.join(here, "__init__.py"),
            os.path.join(here, "cachefile.py"),
            os.path.join(here, "compile.py"),
        ):
            try:
                st = os.stat(path)
                parts.append(f"{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append("?")
        _fingerprint = "|".join(parts).encode()
    return _fingerprint


def cache_key(source: bytes) -> str:
    """Hex sha256 over the source bytes and everything else that determines the entries."""
    impl = sys.implementation
    prefix = b"\0".join(
        [
            CACHE_MAGIC,
            str(CACHE_FORMAT_VERSION).encode(),
            _python_fingerprint(),
            f"{impl.cache_tag}|optimize={sys.flags.optimize}".encode(),
            MAGIC_NUMBER,
            b"",
        ]
    )
    return _core.sha256_hex(prefix + source)


def cache_path(source_path: str) -> str | None:
    """Where the cache file of `source_path` lives: CPython's ``.pyc`` location (``__pycache__`` or
    ``sys.pycache_prefix``, interpreter tag, ``.opt-N``) with this tool's suffix; None when the
    interpreter has no cache tag."""
    try:
        pyc = cache_from_source(source_path)
    except (NotImplementedError, ValueError):
        return None
    base = pyc[: -len(".pyc")] if pyc.endswith(".pyc") else pyc
    return f"{base}.{CACHE_TAG}{CACHE_SUFFIX}"


# ---- the shape of an entry (issue 28 item 8): every field a warm import reads, checked for
# presence and type before any entry is used, so that a cache file with the right key and
# checksum whose entry lacks a field is a miss like any unusable file, never an import error.


def _code_type() -> None:
    """Stands for its own code object's type (``types.CodeType`` without importing ``types``)."""


#: What every cached entry holds (``records.CachedFunction``, made by ``compile.cached``), and what
#: an entry of status "ok" holds besides, each with the types its value may have. The generated
#: module is ``source`` split at ``fast_len``; the docstring is cached (``doc``) or built from
#: ``scalar_source``.
_ENTRY_FIELDS = {"qualname": (str,), "line": (int,), "status": (str,)}
_OK_FIELDS = {
    "options": (dict,),
    "entry": (str,),
    "exact_entry": (str, type(None)),
    "assumptions": (list,),
    "hidden": (list,),
    "helpers": (list,),
    "exact_helpers": (list,),
    "int_lanewise": (bool,),
    "mixed_lanewise": (str, type(None)),
    "element_sites": (list,),
    "code": (type(_code_type.__code__), type(None)),
    "source": (str,),
    "fast_len": (int,),
}
_OPTIONS = ("protect_domains", "fallback", "optimize", "nan_on_raise")

# The checks run over all the entries of a file at once, a field (or a list's items) at a time,
# in C loops (``map``, ``itemgetter``, ``set``): an entry checked field by field in Python cost a
# warm import ~2.7 us, more than unmarshalling it.
_HEAD = itemgetter(*_ENTRY_FIELDS)
_OK_ROW = itemgetter(*_OK_FIELDS)


def _all_of_type(values, kinds) -> bool:
    """Whether the type of every one of `values` is one of `kinds` (exactly: no subclass)."""
    return set(map(type, values)) <= set(kinds)


def _fields_problem(columns: list[tuple], fields: dict) -> str | None:
    """What field of `columns` (the values of each of `fields`, in order, one per entry) holds
    a value of a type its field does not allow, or None."""
    for (name, kinds), values in zip(fields.items(), columns):
        if _shared(values):
            if type(values[0]) in kinds:
                continue
        elif _all_of_type(values, kinds):
            continue
        return f"an entry has a {next(type(v) for v in values if type(v) not in kinds).__name__} for {name}"
    return None


def _shared(values) -> bool:
    """Whether `values` (not empty) are one object: the writer shares equal values between the
    entries of a module (compile.py `cached`: the options, the empty lists, often the
    assumptions) and marshal keeps them shared, so one check of it is a check of all. (Stops at
    the first other object: cheap when they differ.)"""
    return all(map(is_, values, repeat(values[0])))


def _distinct(values) -> list:
    """The distinct objects (by identity) among `values` (a sequence)."""
    if values and _shared(values):
        return [values[0]]
    return list(dict(zip(map(id, values), values)).values())


def _items(lists) -> list:
    """The distinct items of `lists`, by identity. The writer shares equal lists and items
    between the entries of a module (compile.py `cached`) and marshal keeps them shared, so a
    module's few distinct assumptions are checked once each."""
    if not any(lists):  # all empty, as most functions' hidden values and helpers
        return []
    return _distinct(list(chain.from_iterable(_distinct(lists))))


def _shapes(items: list) -> set:
    """The distinct tuples of the types of the items of each of `items` (TypeError unless each
    is iterable)."""
    return set(map(tuple, map(map, repeat(type), items)))


def entries_problem(entries: list) -> str | None:
    """What makes `entries` no list the hook's writer wrote (an entry that is no dict, a field
    missing or of another type or shape), or None. Issue 28 item 8: a file with the right key
    and checksum whose entry lacks a field is a miss like any unusable file, never an import
    error."""
    if not _all_of_type(entries, (dict,)):
        return "an entry is not a dict"
    try:
        heads = list(map(_HEAD, entries))
        ok = [e for e, head in zip(entries, heads) if head[2] == "ok"]
        rows = list(map(_OK_ROW, ok))
    except KeyError as exc:
        return f"an entry misses {exc}"
    columns = list(zip(*rows))
    problem = _fields_problem(list(zip(*heads)), _ENTRY_FIELDS) or _fields_problem(columns, _OK_FIELDS)
    if problem is not None or not rows:
        return problem
    column = dict(zip(_OK_FIELDS, columns))
    if min(column["fast_len"]) < 0 or not all(map(le, column["fast_len"], map(len, column["source"]))):
        return "an entry has fast_len beyond its source"
    if not _all_of_type(map(dict.get, ok, repeat("doc"), map(dict.get, ok, repeat("scalar_source"))), (str,)):
        return "an entry has neither doc nor scalar_source"
    for options in _distinct(column["options"]):
        if not _all_of_type(map(options.get, _OPTIONS), (bool,)):
            return "an entry has options of another shape"
    try:
        return _items_problem(column)
    except TypeError:  # an item that is not iterable
        return "an entry has an item of another shape"


def _items_problem(column: dict) -> str | None:
    """What is wrong with the items of the lists of the "ok" entries (`column`: field name ->
    the values of every entry), or None."""
    assumptions = _items(column["assumptions"])
    if not _all_of_type(assumptions, (tuple,)) or not _shapes(assumptions) <= {(str, tuple)}:
        return "an entry has an assumption of another shape"
    bindings = [binding for _, binding in assumptions]
    if not all(bindings) or not _all_of_type([binding[0] for binding in bindings], (str,)):
        return "an entry has an assumption of another shape"
    hidden = _items(column["hidden"])
    if not _all_of_type(hidden, (tuple,)) or not _shapes(hidden) <= {(str, str)}:
        return "an entry has a hidden value of another shape"
    sites = _items(column["element_sites"])
    if not _all_of_type(sites, (tuple,)) or not _shapes(sites) <= {(str, str, int)}:
        return "an entry has an element site of another shape"
    if not _all_of_type(_items(column["helpers"] + column["exact_helpers"]), (str,)):
        return "an entry has a helper list of another shape"
    return None


def decode_cache(data: bytes, key: str | None, origin: str | None = None) -> list[CachedFunction]:
    """The entries of a cache file; CacheError unless header, key (when given), length and
    checksum all match and the payload has the expected shape."""
    if len(data) < HEADER_SIZE:
        raise CacheError(f"truncated header ({len(data)} bytes)")
    magic, version, file_key, length, checksum = unpack_header(data)
    if magic != CACHE_MAGIC:
        raise CacheError("not an array-vectorize cache file (bad magic)")
    if version != CACHE_FORMAT_VERSION:
        raise CacheError(f"format version {version}, expected {CACHE_FORMAT_VERSION}")
    if key is not None and file_key != key.encode():
        raise CacheError("key mismatch (source, compiler or interpreter changed)")
    if len(data) - HEADER_SIZE != length:
        raise CacheError(f"payload is {len(data) - HEADER_SIZE} bytes, header says {length}")
    # Checked and unmarshalled in place: a copy of the payload would cost more than the check.
    if _core.checksum64(data, HEADER_SIZE) != checksum:
        raise CacheError("payload checksum mismatch")
    payload = memoryview(data)[HEADER_SIZE:]
    # Unmarshalling allocates hundreds of containers (code objects, dicts) but no cycles; left
    # on, the collector would run collections over them in the middle of it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        record = marshal.loads(payload)
    except (EOFError, ValueError, TypeError) as exc:
        raise CacheError(f"payload does not unmarshal: {exc}") from None
    finally:
        if collecting:
            gc.enable()
    entries = record.get("entries") if isinstance(record, dict) else None
    if not isinstance(entries, list):
        raise CacheError("payload has an unexpected shape")
    problem = entries_problem(entries)
    if problem is not None:
        raise CacheError(problem)
    if origin is not None:
        _check_deps(record.get("deps") or (), origin)
    return entries


def _check_deps(deps, origin: str) -> None:
    """CacheError unless every other module of the program the compile read (issue 12: a helper
    imported from it) still has the bytes it had."""
    here = os.path.dirname(origin)
    for rel, sha in deps:
        try:
            data = read_file(os.path.join(here, rel))
        except OSError:
            raise CacheError(f"{rel}, which it imports from, is unreadable") from None
        if _core.sha256_hex(data) != sha:
            raise CacheError(f"{rel}, which it imports from, changed")


def unpack_header(data: bytes) -> tuple[bytes, int, bytes, int, int]:
    return (
        data[:8],
        int.from_bytes(data[8:12], "little"),
        data[12:76],
        int.from_bytes(data[76:84], "little"),
        int.from_bytes(data[84:92], "little"),
    )


def read_cache(path: str, key: str, origin: str | None = None) -> list[CachedFunction]:
    """The cached entries at `path` for `key` (and the module at `origin`, whose imported
    modules' bytes are checked). FileNotFoundError on a plain miss; CacheError (or another
    OSError) when the file is there but unusable."""
    return decode_cache(read_file(path), key, origin)


def read_file(path: str) -> bytes:
    """The bytes of `path`, read at the OS level: no buffered file object (~10 us each here) for
    one read of a file whose size fstat gives."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size)
        while len(data) < size:  # a short read (a signal, or the file grown meanwhile)
            more = os.read(fd, size - len(data))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return data


def encode_cache(key: str, entries: list[CachedFunction], deps: list = ()) -> bytes:
    """The whole cache file for `entries` under `key` (the layout above); `deps`: the other
    modules of the program the compile read, ``(path relative to the module's directory, sha256
    of its bytes)``, checked on read."""
    record: dict = {"entries": entries}
    if deps:
        record["deps"] = [tuple(d) for d in deps]
    payload = marshal.dumps(record)
    header = b"".join(
        [
            CACHE_MAGIC,
            CACHE_FORMAT_VERSION.to_bytes(4, "little"),
            key.encode(),
            len(payload).to_bytes(8, "little"),
            _core.checksum64(payload).to_bytes(8, "little"),
        ]
    )
    if len(header) != HEADER_SIZE:
        raise ValueError(f"cache key {key!r} is not a hex sha256")
    return header + payload


def write_cache(path: str, key: str, entries: list[CachedFunction], source_path: str, deps: list = ()) -> None:
    """Writes the cache file atomically, creating its directory as CPython does for ``.pyc``
    files. Raises OSError (or ValueError for unmarshallable entries); callers log and go on."""
    data = encode_cache(key, entries, deps)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _core.write_atomic(path, data, pyc_mode(source_path))


def pyc_mode(source_path: str) -> int:
    """The mode CPython gives a ``.pyc`` (``importlib._bootstrap_external._calc_mode``): the
    source's, or 0o666 when it cannot be read, plus owner write; ``write_atomic`` then keeps
    the read and write bits and applies the umask, as ``_write_atomic`` does."""
    try:
        mode = os.stat(source_path).st_mode
    except OSError:
        mode = 0o666
    return mode | 0o200
