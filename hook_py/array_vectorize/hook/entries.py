"""The shape of a cached entry of the import hook (issue 28 item 8): every field a warm import
reads, checked for presence and type before any entry is used, so that a cache file with the
right key and checksum whose entry lacks a field is a miss like any unusable file, never an
import error."""

from __future__ import annotations


def _code_type() -> None:
    """Stands for its own code object's type (``types.CodeType`` without importing ``types``)."""


#: What every cached entry holds (``compile.cacheable``), and what an entry of status "ok" holds
#: besides, each with the types its value may have. The generated module is ``source`` split at
#: ``fast_len``; the docstring is cached (``doc``) or built from ``scalar_source``.
_ENTRY_FIELDS = {"qualname": (str,), "line": (int,), "status": (str,)}
_OK_FIELDS = {
    "options": (dict,),
    "entry": (str,),
    "exact_entry": (str, type(None)),
    "assumptions": (list,),
    "hidden": (list,),
    "code": (type(_code_type.__code__), type(None)),
    "source": (str,),
    "fast_len": (int,),
}
_OK_KEYS = frozenset(_ENTRY_FIELDS) | frozenset(_OK_FIELDS)
_OPTIONS = ("protect_domains", "fallback", "optimize", "nan_on_raise")


def entry_problem(e) -> str | None:
    """What makes `e` no entry the hook's writer wrote (a field missing or of another type), or
    None. Issue 28 item 8: a file with the right key and checksum whose entry lacks a field is a
    miss like any unusable file, never an import error."""
    if type(e) is not dict:
        return "is not a dict"
    required = _OK_FIELDS if e.get("status") == "ok" else {}
    if not e.keys() >= (_OK_KEYS if required else _ENTRY_FIELDS.keys()):
        return "misses a field"
    for fields in (_ENTRY_FIELDS, required):
        for name, types in fields.items():
            if type(e[name]) not in types:
                return f"has a {type(e[name]).__name__} for {name}"
    if not required:
        return None
    if not 0 <= e["fast_len"] <= len(e["source"]):
        return "has fast_len beyond its source"
    if type(e.get("doc", e.get("scalar_source"))) is not str:
        return "has neither doc nor scalar_source"
    options = e["options"]
    if any(type(options.get(name)) is not bool for name in _OPTIONS):
        return "has options of another shape"
    for item in e["assumptions"]:
        if type(item) is not tuple or len(item) != 2 or type(item[0]) is not str or type(item[1]) is not tuple or not item[1] or type(item[1][0]) is not str:
            return "has an assumption of another shape"
    for item in e["hidden"]:
        if type(item) is not tuple or len(item) != 2 or type(item[0]) is not str or type(item[1]) is not str:
            return "has a hidden value of another shape"
    return None
