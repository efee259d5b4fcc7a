"""The import hook's on-disk cache: one file per module, next to CPython's ``.pyc``.

A cache file holds the static compile of one module (``_core.compile_module``'s entries, with the
code object of each generated module, itself marshalled so that a warm import unmarshals only the
functions it calls, and the stub that stands for it until then: emit.py), keyed by the content of
everything that determines it: the source bytes, the compiler's build id, the Python side that
shapes cached data (``emit.py``, ``docstring.py``, ``prepare.py``, this file), the interpreter's
cache tag and bytecode magic number, and the optimisation level. Never by the user's timestamps:
a same-size edit within a second or a ``git checkout`` cannot serve stale code, and a moved tree
still hits (the key holds no path).

Layout (all integers little-endian)::

    magic            8 bytes   b"AVCACHE\\0"
    format version   4 bytes   FORMAT_VERSION
    key             64 bytes   hex sha256 (cache_key)
    payload length   8 bytes
    payload sha256  64 bytes   hex
    payload          marshal.dumps({"entries": [...]})

``read`` checks every field before it unmarshals anything; any mismatch or I/O error is a miss.
``write`` goes through ``_core.write_atomic`` (temporary file, then rename): concurrent writers of
the same module leave one whole file. Both raise on problems; their caller (``prepare``) turns
every one into a miss or an unwritten file, never an import error.
"""

from __future__ import annotations

import gc
import marshal
import os
import sys

try:  # CPython: importlib's own, loaded at start-up (importing importlib costs ~0.4 ms)
    from _frozen_importlib_external import MAGIC_NUMBER, cache_from_source
except ImportError:  # pragma: no cover - another implementation's importlib
    from importlib.util import MAGIC_NUMBER, cache_from_source

from .. import __version__, _core

MAGIC = b"AVCACHE\0"
#: Bump whenever the payload's layout or meaning changes.
FORMAT_VERSION = 2
SUFFIX = ".avc"
#: What cache files are called after CPython's ``<module>.<cache tag>[.opt-N]``.
TAG = f"array-vectorize-{__version__}"

# magic, version (u32), key (64 hex), payload length (u64), payload sha256 (64 hex): 148 bytes.
HEADER_SIZE = 8 + 4 + 64 + 8 + 64
# Fields of a compile_module entry that nothing reads back from the cache: debug text, and the
# scalar source, which only serves to build the docstring when it is not cached itself.
_NOT_CACHED = ("ir",)
_NOT_CACHED_WITH_DOC = ("ir", "scalar_source")

_fingerprint: bytes | None = None


class CacheError(Exception):
    """Why a cache file was not usable (the message is logged, never raised to the importer)."""


def enabled() -> bool:
    """False under ARRAY_VECTORIZE_CACHE=0: no cache file is read or written."""
    return os.environ.get("ARRAY_VECTORIZE_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


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
            os.path.join(here, "prepare.py"),
            os.path.join(here, "cache.py"),
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
            MAGIC,
            str(FORMAT_VERSION).encode(),
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
    return f"{base}.{TAG}{SUFFIX}"


def encode(key: str, entries: list[dict]) -> bytes:
    """The whole cache file for `entries` (code objects included) under `key`."""
    kept = [
        {k: v for k, v in e.items() if k not in (_NOT_CACHED_WITH_DOC if "doc" in e else _NOT_CACHED)}
        for e in entries
    ]
    payload = marshal.dumps({"entries": kept})
    digest = _core.sha256_hex(payload).encode()
    header = b"".join(
        [MAGIC, FORMAT_VERSION.to_bytes(4, "little"), key.encode(), len(payload).to_bytes(8, "little"), digest]
    )
    if len(header) != HEADER_SIZE:
        raise ValueError(f"cache key {key!r} is not a hex sha256")
    return header + payload


def decode(data: bytes, key: str | None) -> list[dict]:
    """The entries of a cache file; CacheError unless header, key (when given), length and
    checksum all match and the payload has the expected shape."""
    if len(data) < HEADER_SIZE:
        raise CacheError(f"truncated header ({len(data)} bytes)")
    magic, version, file_key, length, digest = _unpack_header(data)
    if magic != MAGIC:
        raise CacheError("not an array-vectorize cache file (bad magic)")
    if version != FORMAT_VERSION:
        raise CacheError(f"format version {version}, expected {FORMAT_VERSION}")
    if key is not None and file_key != key.encode():
        raise CacheError("key mismatch (source, compiler or interpreter changed)")
    if len(data) - HEADER_SIZE != length:
        raise CacheError(f"payload is {len(data) - HEADER_SIZE} bytes, header says {length}")
    # Hashed and unmarshalled in place: a copy of the payload would cost more than the hashing.
    if _core.sha256_hex(data, HEADER_SIZE).encode() != digest:
        raise CacheError("payload checksum mismatch")
    payload = memoryview(data)[HEADER_SIZE:]
    # Unmarshalling allocates thousands of containers (code objects, dicts) but no cycles; left
    # on, the collector would run full collections over the whole heap in the middle of it.
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
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("qualname"), str) and isinstance(e.get("line"), int) for e in entries
    ):
        raise CacheError("payload has an unexpected shape")
    return entries


def _unpack_header(data: bytes) -> tuple[bytes, int, bytes, int, bytes]:
    return (
        data[:8],
        int.from_bytes(data[8:12], "little"),
        data[12:76],
        int.from_bytes(data[76:84], "little"),
        data[84:148],
    )


def header_key(data: bytes) -> str | None:
    """The key recorded in a cache file's header, if the header is readable."""
    if len(data) < HEADER_SIZE or data[:8] != MAGIC:
        return None
    return _unpack_header(data)[2].decode("ascii", "replace")


def read(path: str, key: str) -> list[dict]:
    """The cached entries at `path` for `key`. FileNotFoundError on a plain miss; CacheError
    (or another OSError) when the file is there but unusable."""
    with open(path, "rb") as f:
        data = f.read()
    return decode(data, key)


def write(path: str, key: str, entries: list[dict], source_path: str) -> None:
    """Writes the cache file atomically, creating its directory as CPython does for ``.pyc``
    files. Raises OSError (or ValueError for unmarshallable entries); callers log and go on."""
    data = encode(key, entries)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _core.write_atomic(path, data)
    try:  # like CPython's .pyc: the source file's permissions, without execute bits
        os.chmod(path, os.stat(source_path).st_mode & 0o666 | 0o200)
    except OSError:
        pass
