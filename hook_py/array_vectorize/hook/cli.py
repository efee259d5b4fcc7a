"""``python -m array_vectorize cache info|clear PATH``: the import hook's cache files under a tree.

Cache files sit in the ``__pycache__`` directories of the tree, or under ``sys.pycache_prefix``
(``PYTHONPYCACHEPREFIX``) when one is set; both places are searched.
"""

from __future__ import annotations

import os
import sys

from . import UNMARKED_RECORD, cache_enabled
from .cachefile import (
    CACHE_MAGIC,
    CACHE_SUFFIX,
    CACHE_TAG,
    HEADER_SIZE,
    CacheError,
    cache_key,
    cache_path,
    decode_cache,
    unpack_header,
)

_TMP_PREFIX = ".tmp-array-vectorize-"


def _is_cache_file(name: str) -> bool:
    return name.endswith(CACHE_SUFFIX) and ".array-vectorize-" in name


def _roots(path: str) -> list[str]:
    roots = [path]
    prefix = sys.pycache_prefix
    if prefix:
        mirrored = os.path.join(prefix, os.path.splitdrive(os.path.abspath(path))[1].lstrip(os.sep))
        if os.path.isdir(mirrored):
            roots.append(mirrored)
    return roots


def _walk(path: str) -> tuple[list[str], list[str], list[str]]:
    """(cache files, records of unmarked sources, leftover temporary files) under `path`."""
    files, records, temps = [], [], []
    for i, root in enumerate(_roots(path)):
        for dirpath, dirnames, filenames in os.walk(root):
            in_cache_dir = i > 0 or os.path.basename(dirpath) == "__pycache__"
            dirnames[:] = [d for d in dirnames if not d.startswith((".git", ".hg", ".svn"))]
            for name in filenames:
                if _is_cache_file(name):
                    files.append(os.path.join(dirpath, name))
                elif name.startswith("array-vectorize-") and name.endswith(".unmarked"):
                    records.append(os.path.join(dirpath, name))
                elif in_cache_dir and name.startswith(_TMP_PREFIX):
                    temps.append(os.path.join(dirpath, name))
    return sorted(set(files)), sorted(set(records)), sorted(set(temps))


def _source_of(cache_file: str) -> str | None:
    """The module source a cache file belongs to, when this interpreter would use that file."""
    directory, name = os.path.split(cache_file)
    module = name.split(".")[0]
    tag = f".{sys.implementation.cache_tag}."
    if tag not in name:
        return None
    prefix = sys.pycache_prefix
    if os.path.basename(directory) == "__pycache__":
        candidate = os.path.join(os.path.dirname(directory), module + ".py")
    elif prefix and os.path.abspath(directory).startswith(os.path.abspath(prefix) + os.sep):
        rel = os.path.relpath(directory, prefix)
        candidate = os.path.join(os.sep, rel, module + ".py")
    else:
        return None
    return candidate if os.path.isfile(candidate) else None


def header_key(data: bytes) -> str | None:
    """The key recorded in a cache file's header, if the header is readable."""
    if len(data) < HEADER_SIZE or data[:8] != CACHE_MAGIC:
        return None
    return unpack_header(data)[2].decode("ascii", "replace")


def _describe(path: str) -> tuple[str, str]:
    """(status, detail) of one cache file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return "unreadable", str(exc)
    try:
        entries = decode_cache(data, None)
    except CacheError as exc:
        return "corrupt", str(exc)
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.get("status", "?")] = counts.get(e.get("status", "?"), 0) + 1
    detail = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no marked functions"
    source = _source_of(path)
    if source is None:
        return "other", detail + " (another interpreter, or its source is gone)"
    if cache_path(source) != path:
        return "other", detail + " (another interpreter or optimisation level)"
    try:
        with open(source, "rb") as f:
            key = cache_key(f.read())
    except OSError as exc:
        return "other", f"{detail} (source unreadable: {exc})"
    return ("fresh" if header_key(data) == key else "stale"), detail


def cache_info(path: str) -> int:
    """Lists every cache file under `path` with its state; returns the exit status."""
    if not os.path.exists(path):
        print(f"{path}: no such file or directory", file=sys.stderr)
        return 2
    files, records, temps = _walk(path)
    total = 0
    by_status: dict[str, int] = {}
    for f in files:
        try:
            size = os.path.getsize(f)
        except OSError:
            size = 0
        total += size
        status, detail = _describe(f)
        by_status[status] = by_status.get(status, 0) + 1
        print(f"{status:10} {size:>9} B  {f}: {detail}")
    summary = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
    print(f"{len(files)} cache file(s), {total} bytes" + (f" ({summary})" if summary else ""))
    if records:
        print(f"{len(records)} record(s) of unmarked sources ({UNMARKED_RECORD}), which spare the hook reading them")
    if temps:
        print(f"{len(temps)} leftover temporary file(s) (removed by `cache clear`)")
    print(f"cache {'on' if cache_enabled() else 'off (ARRAY_VECTORIZE_CACHE=0)'}; files are named *.{CACHE_TAG}{CACHE_SUFFIX}")
    return 0


def cache_clear(path: str) -> int:
    """Removes every cache file (and leftover temporary file) under `path`."""
    if not os.path.exists(path):
        print(f"{path}: no such file or directory", file=sys.stderr)
        return 2
    files, records, temps = _walk(path)
    failed = 0
    counts = {}
    for kind, group in (("cache file(s)", files), ("record(s) of unmarked sources", records), ("temporary file(s)", temps)):
        counts[kind] = 0
        for f in group:
            try:
                os.remove(f)
                counts[kind] += 1
            except FileNotFoundError:
                pass
            except OSError as exc:
                failed += 1
                print(f"cannot remove {f}: {exc}", file=sys.stderr)
    print("removed " + ", ".join(f"{n} {kind}" for kind, n in counts.items()) + f" under {path}")
    return 1 if failed else 0
