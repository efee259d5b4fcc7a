"""Which source files of a directory are known not to mention ``array_vectorize``.

The hook's only cost on a module it does not change is the bail-out: reading the source and
searching it for the marker. This record turns that into one ``stat`` on later imports: each
``__pycache__`` directory may hold ``array-vectorize-<version>.unmarked``, mapping the names of the
directory's unmarked sources to their size and ``mtime_ns`` (a marshalled dict after a magic line),
read once per directory per process. A file whose size or modification time differs is read again.

The record only ever says "skip": if it were wrong (an edit that kept both the size and the
nanosecond modification time), the module's decorators would compile at run time, as without the
hook, never anything worse. Compiled code itself stays keyed by content (``cache.py``).

It lives where CPython puts the directory's ``.pyc`` files (``sys.pycache_prefix`` honoured), is
not written under ``sys.dont_write_bytecode`` or ``ARRAY_VECTORIZE_CACHE=0`` (and not read under
the latter), and is written once, at interpreter exit, atomically; lost updates between
concurrent processes only mean a file is read again next time.
"""

from __future__ import annotations

import marshal
import os
import sys

from .. import __version__, _core
from . import cache

NAME = f"array-vectorize-{__version__}.unmarked"
_MAGIC = f"array-vectorize {__version__} unmarked sources (marker array_vectorize)\n".encode()

# source directory -> {file name: (size, mtime_ns)}; {} when the directory has no usable record.
_known: dict[str, dict[str, tuple[int, int]]] = {}
# source directory -> records learnt in this process, written at exit.
_learnt: dict[str, dict[str, tuple[int, int]]] = {}
_flush_registered = False


def record_path(directory: str) -> str | None:
    """The record of `directory`: in its ``__pycache__`` (or under ``sys.pycache_prefix``)."""
    try:
        pyc = cache.cache_from_source(os.path.join(directory, "__init__.py"))
    except (NotImplementedError, ValueError):
        return None
    return os.path.join(os.path.dirname(pyc), NAME)


def _parse(data: bytes) -> dict[str, tuple[int, int]]:
    if not data.startswith(_MAGIC):
        return {}
    try:
        record = marshal.loads(data[len(_MAGIC) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(record, dict):
        return {}
    # Entries of any other shape never match a stat result, so they need no check here.
    return record


def _load(directory: str) -> dict[str, tuple[int, int]]:
    path = record_path(directory)
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            return _parse(f.read())
    except OSError:
        return {}


def known(origin: str) -> bool:
    """True when `origin` is recorded as unmarked and its size and mtime still match."""
    directory, name = os.path.split(origin)
    record = _known.get(directory)
    if record is None:
        record = _known[directory] = _load(directory)
    seen = record.get(name)
    if seen is None:
        return False
    try:
        st = os.stat(origin)
    except OSError:
        return False
    return seen == (st.st_size, st.st_mtime_ns)


def learn(origin: str, size: int, mtime_ns: int) -> None:
    """Records that `origin` (as it was at `size`, `mtime_ns`) does not mention the marker."""
    global _flush_registered
    if sys.dont_write_bytecode:
        return
    directory, name = os.path.split(origin)
    _learnt.setdefault(directory, {})[name] = (size, mtime_ns)
    if not _flush_registered:
        import atexit

        atexit.register(flush)
        _flush_registered = True


def flush() -> None:
    """Writes what this process learnt, merged with what is on disk. Never raises."""
    learnt = dict(_learnt)
    _learnt.clear()
    for directory, records in learnt.items():
        try:
            path = record_path(directory)
            if path is None:
                continue
            merged = _load(directory)
            merged.update(records)
            present = set(os.listdir(directory))  # forget files that are gone
            kept = {n: v for n, v in sorted(merged.items()) if n in present}
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _core.write_atomic(path, _MAGIC + marshal.dumps(kept))
        except Exception:  # noqa: BLE001 - a lost record only costs a read next time
            continue
