"""Code compiled before the decorator ran: by the import hook (cached on disk) or by the build
backend (shipped in a wheel). The decorator uses it only when every assumption the static
compiler made still holds for the live function (DESIGN.md section 4); otherwise it compiles.
"""

from __future__ import annotations

import builtins
import math

from ._types import FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# co_filename -> {(qualname, co_firstlineno): entry from _core.compile_module, plus "origin"
# ("hook" or "wheel") and optionally "code" and "stub" (emit.materialize)}.
_REGISTRY: dict[str, dict[tuple[str, int], dict]] = {}


def register(filename: str, entries: list[dict], origin: str) -> None:
    """Makes a module's statically compiled functions available to the decorator, in place of
    what was registered under `filename` before."""
    table = {}
    for entry in entries:
        if entry.get("status") == "ok":
            entry["origin"] = origin
            table[(entry["qualname"], entry["line"])] = entry
    _REGISTRY[filename] = table


def forget(filename: str) -> None:
    _REGISTRY.pop(filename, None)


def _wheel_entry(fn: FunctionType) -> dict | None:
    try:
        from . import wheel_artifacts
    except ImportError:
        return None
    return wheel_artifacts.lookup(fn)


def lookup(fn: FunctionType, options: dict) -> dict | None:
    """The precompiled entry for `fn` if it is valid for the live function, else None."""
    code = fn.__code__
    table = _REGISTRY.get(code.co_filename)
    entry = table.get((fn.__qualname__, code.co_firstlineno)) if table is not None else None
    if entry is None:
        entry = _wheel_entry(fn)
        if entry is None:
            return None
    entry_opts = entry.get("options") or {}
    if bool(entry_opts.get("protect_domains")) != options["protect_domains"] or bool(
        entry_opts.get("fallback")
    ) != options["fallback"]:
        return None
    if not assumptions_hold(fn, entry.get("assumptions", ())):
        return None
    return entry


_MISSING = object()


def _same_const(live: Any, frozen: Any) -> bool:
    if type(live) is not type(frozen):
        return False
    if isinstance(frozen, tuple):
        return len(live) == len(frozen) and all(_same_const(a, b) for a, b in zip(live, frozen))
    if isinstance(frozen, float):
        if math.isnan(frozen):
            return math.isnan(live)
        return live == frozen and math.copysign(1.0, live) == math.copysign(1.0, frozen)
    return live == frozen


def assumptions_hold(fn: FunctionType, assumptions) -> bool:
    """Checks every (name, binding) the static compiler assumed against `fn`'s live globals."""
    freevars = fn.__code__.co_freevars
    glob = fn.__globals__
    missing = _MISSING
    for name, binding in assumptions:
        if name in freevars:
            return False
        live = glob.get(name, missing)
        tag = binding[0]
        if live is missing:
            if tag == "builtin" and hasattr(builtins, name):
                live = getattr(builtins, name)
            else:
                return False
        if tag == "const":
            if not _same_const(live, binding[1]):
                return False
        elif tag == "math":
            if live is not math:
                return False
        elif tag == "math_member":
            if live is not getattr(math, binding[1], missing):
                return False
        elif tag == "builtin":
            if live is not getattr(builtins, binding[1], missing):
                return False
        elif tag == "function":
            target = getattr(live, "_vectorized_original", live)
            code = getattr(target, "__code__", None)
            if (
                not isinstance(target, FunctionType)
                or target.__name__ != binding[1]
                or code.co_firstlineno != binding[2]
                or code.co_filename != fn.__code__.co_filename
            ):
                return False
        else:
            return False
    return True
