"""Process-wide counters (``array_vectorize.stats()``): tests use them to prove that a cached or
installed import compiled nothing."""

from __future__ import annotations

COUNTERS: dict[str, int] = {
    # Functions compiled by the Rust core in this process (decorator or hook).
    "compiled": 0,
    # Decorations served by the import hook's code, compiled at this import or read from its cache.
    "hook_hits": 0,
    # Of those, the ones whose code was read from a cache file (a warm import).
    "disk_cache_hits": 0,
    # Decorations served from code precompiled into a wheel by the build backend.
    "precompiled_hits": 0,
    # Decorations whose compile (or precompiled code's check) waits for the first call: a name
    # they read was not bound yet (issue 31, first_call.py). Counted again above when served.
    "first_call": 0,
}


def bump(name: str, by: int = 1) -> None:
    COUNTERS[name] = COUNTERS.get(name, 0) + by


def stats() -> dict[str, int]:
    """Counters since process start: ``compiled``, ``hook_hits``, ``disk_cache_hits``, ``precompiled_hits``, ..."""
    return dict(COUNTERS)
