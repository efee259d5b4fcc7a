"""Process-wide counters (``array_vectorize.stats()``): tests use them to prove that a cached or
installed import compiled nothing."""

from __future__ import annotations

import sys

COUNTERS: dict[str, int] = {
    # Functions compiled by the Rust core in this process (decorator or hook).
    "compiled": 0,
    # Decorations served by the import hook's code, compiled at this import or read from its cache.
    "hook_hits": 0,
    # Of those, the ones whose code was read from a cache file (a warm import).
    "disk_cache_hits": 0,
    # Decorations served from code precompiled into a wheel by the build backend.
    "precompiled_hits": 0,
    # In the functions made (by any path): recursive calls past the depth inlined, finished by
    # the scalar original element by element (D19), and calls run element by element (D23).
    "residue_sites": 0,
    "call_sites": 0,
    # Decorations whose compile (or precompiled code's check) waits for the first call: a name
    # they read was not bound yet (issue 31, first_call.py). Counted again above when served.
    "first_call": 0,
}


def bump(name: str, by: int = 1) -> None:
    COUNTERS[name] = COUNTERS.get(name, 0) + by


def stats() -> dict[str, int]:
    """Counters since process start: ``compiled``, ``hook_hits``, ``disk_cache_hits``,
    ``precompiled_hits``; ``residue_sites`` and ``call_sites``, the recursive calls finished by
    the scalar original (D19) and the calls run element by element (D23) in the functions made
    so far; ``residue_elements`` and ``call_site_elements``, the elements those ran."""
    out = dict(COUNTERS)
    runtime = sys.modules.get("array_vectorize.runtime.scalar_calls")
    counts = getattr(runtime, "COUNTS", None) or {"residue_elements": 0, "call_site_elements": 0}
    out.update(counts)
    return out
