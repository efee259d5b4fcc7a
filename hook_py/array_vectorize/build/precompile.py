"""Compiles the marked functions of a wheel's modules into artifacts (``wheel_artifacts.py``
describes their layout and how the decorator finds them).

What is compiled is what the wheel ships: each ``.py`` entry that mentions ``vectorize`` goes
through ``_core.compile_module``, statically (nothing of the package runs, DESIGN.md section 4).
Diagnostics name the file in the source tree that the entry came from, found with
``_core.scan_tree``, so that a message points where the user edits.

Every marked function must come out "ok", or be listed in ``[tool.array-vectorize] runtime``:
an "error" (the compiler rejects it) and a "deferred" (it reads a name whose value only the
running module knows) both fail the build, listing every such function at once, because a wheel
that silently leaves functions to run time breaks ``ARRAY_VECTORIZE_NO_COMPILE=1`` deployments.
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib.util
import io
import json
import linecache
import posixpath
import tokenize
import types
import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping

from .. import _core
from ..docstring import vectorized_docstring
from ..wheel_artifacts import ARTIFACT_DIR, FORMAT, doc_key
from .config import Config
from .errors import BuildError
from .wheelfile import Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..records import ManifestFunction, ModuleFunction

MARKER = b"vectorize"


@dataclass
class Report:
    """What the build did, for the summary line and for tests."""

    modules: int = 0
    precompiled: list[str] = field(default_factory=list)  # "module:qualname"
    runtime: list[str] = field(default_factory=list)  # left to run time by the config


@dataclass
class _Problem:
    target: str  # module:qualname
    text: str  # the positioned message
    # True when compiling at run time can succeed (deferred: the build lacks a value only the
    # running module has); False when the compiler rejects the function itself, wherever it runs.
    runtime_helps: bool = True


def module_name(install_path: str) -> str | None:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` (``__init__.py`` names its package); None when the
    path is not importable as a module (a directory name that is no identifier)."""
    parts = install_path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def install_path(arcname: str, dist_info: str) -> str | None:
    """Where a wheel entry is installed relative to site-packages, or None (metadata, scripts,
    headers, data)."""
    if arcname.startswith(dist_info + "/"):
        return None
    top, _, rest = arcname.partition("/")
    if top.endswith(".data"):
        kind, _, rest = rest.partition("/")
        return rest if kind in ("purelib", "platlib") and rest else None
    return arcname


def precompile(entries: dict[str, Entry], dist_info: str, config: Config, source_root: str) -> tuple[dict[str, Entry], Report]:
    """The artifacts to add to a wheel whose files are `entries`; raises BuildError listing every
    marked function that can neither be precompiled nor is left to run time by `config`."""
    source_paths = _source_index(source_root)
    outcome = compile_marked(
        entries, dist_info, config, lambda path: _shown_path(path, source_paths), _shipped_modules(entries, dist_info)
    )
    _check_runtime_patterns(config, outcome.targets)
    if outcome.problems:
        raise BuildError(failure_message(outcome.problems))
    return outcome.artifacts, outcome.report


@dataclass
class Outcome:
    """What compiling the marked functions of a wheel's (or a source tree's) modules gave."""

    artifacts: dict[str, Entry]
    report: Report
    problems: list[_Problem]
    targets: list[str]  # every marked function seen, for the config check


# long: the backend's one pass over a wheel's modules: scan, static compile, artifacts and the report, in order
def compile_marked(
    entries: dict[str, Entry], dist_info: str, config: Config, shown_path: Callable[[str], str], shipped: Mapping[str, tuple[str, bytes]]
) -> Outcome:
    """Every marked function of the ``.py`` files of `entries` (wheel paths, installed at
    ``install_path``) compiled statically, as the build does and ``python -m array_vectorize
    check`` reports (build/check.py): messages name files by `shown_path` (what the user edits),
    and imported modules of the program are looked up in `shipped`."""
    report = Report()
    artifacts: dict[str, Entry] = {}
    problems: list[_Problem] = []
    targets: list[str] = []
    for arcname in sorted(entries):
        path = install_path(arcname, dist_info)
        if path is None or not path.endswith(".py") or f"/{ARTIFACT_DIR}/" in f"/{path}":
            continue
        data = entries[arcname].data
        if MARKER not in data:
            continue
        module = module_name(path)
        if module is None:
            continue
        shown = shown_path(path)
        try:
            text = importlib.util.decode_source(data)
            package, modules = program_modules(text, module, path, shipped, shown_path)
            functions = _core.compile_module(text, shown, None, package, modules)
        except (SyntaxError, UnicodeDecodeError) as exc:
            functions = None
            why = f"{shown}: cannot decode this module: {exc}"
        except _core.VectorizationError as exc:
            functions = None
            why = str(exc)
        if functions is None:
            # Only a module that can reach array_vectorize can hold marked functions.
            if b"array_vectorize" in data:
                target = f"{module}:*"
                targets.append(target)
                if _runtime(config, target):
                    report.runtime.append(target)
                else:
                    problems.append(_Problem(target, f"{why}\n  so the build cannot look for marked functions in {module}"))
            continue
        files: dict[str, bytes] = {}
        manifest_functions = []
        left_to_runtime = []  # the manifest names them, for the decorator's messages
        docs = _docstrings(data, text, functions)
        for fn in functions:
            target = f"{module}:{fn['qualname']}"
            targets.append(target)
            if _runtime(config, target):
                report.runtime.append(target)
                left_to_runtime.append(fn["qualname"])
                continue
            marked_at = f"{shown}:{fn['line']}"
            if fn["status"] == "error":
                # With fallback=True the decorator turns what the compiler rejects into element
                # loops at import (the build does not precompile those): then run time helps.
                fallback = bool((fn.get("options") or {}).get("fallback"))
                problems.append(_Problem(target, f"{fn['error']}\n  in {target} (marked at {marked_at})", runtime_helps=fallback))
                continue
            # Module-level objects (Enum classes, exception classes: D11, D14, D21) and the scalar
            # originals of recursive functions (D19) are globals the import binds from the live
            # module once their assumptions hold; other hidden values (arrays, callables) exist
            # only when the module runs.
            live_only = [h for h in fn.get("hidden") or () if h[0] not in ("object", "scalar")]
            if fn["status"] == "deferred" or live_only:
                why = [
                    f"`{d}` is bound to something the build cannot evaluate" if d.isidentifier() else d
                    for d in fn.get("deferred") or [h[-1] for h in live_only]
                ]
                problems.append(
                    _Problem(
                        target,
                        f"{marked_at}: {target} can only be compiled once its module runs: {'; '.join(why)}\n"
                        "  (the build reads what the text determines: literals and constants computed exactly\n"
                        "  from them, `math`, functions of the package and of the standard library, a factory's\n"
                        "  calls whose arguments the text gives; give decorator options as literals)",
                    )
                )
                continue
            filename = _artifact_name(fn, files)
            source = fn["source"].encode("utf-8")
            files[filename] = source
            record: ManifestFunction = {
                "qualname": fn["qualname"],
                "name": fn["name"],
                "line": fn["line"],
                "options": fn["options"],
                "entry": fn["entry"],
                "exact_entry": fn["exact_entry"],
                "helpers": fn["helpers"],
                "exact_helpers": fn["exact_helpers"],
                "int_lanewise": fn["int_lanewise"],
                "mixed_lanewise": fn["mixed_lanewise"],
                "hidden": [list(h) for h in fn.get("hidden") or ()],
                "element_sites": [list(site) for site in fn.get("element_sites") or ()],
                "assumptions": [[name, _binding_json(b)] for name, b in fn["assumptions"]],
                "file": filename,
                "source_sha256": _core.sha256_hex(source),
            }
            doc = docs.get((fn["qualname"], fn["line"]))
            manifest_functions.append(record if doc is None else {**record, "doc": doc})
            report.precompiled.append(target)
        if not manifest_functions and not left_to_runtime:
            continue
        report.modules += bool(manifest_functions)
        prefix = arcname[: -len(posixpath.basename(arcname))]  # keeps a .data/purelib/ prefix
        stem = posixpath.basename(arcname)[:-3]
        manifest = {
            "format": FORMAT,
            "build_id": _core.BUILD_ID,
            "module": module,
            "source_sha256": _core.sha256_hex(data),
            "doc_key": doc_key(),
            "functions": manifest_functions,
        }
        if left_to_runtime:
            manifest["runtime"] = sorted(set(left_to_runtime))
        artifacts[f"{prefix}{ARTIFACT_DIR}/{stem}.json"] = Entry(
            (json.dumps(manifest, indent=1, sort_keys=True, allow_nan=True) + "\n").encode("utf-8")
        )
        for filename, source in files.items():
            artifacts[f"{prefix}{ARTIFACT_DIR}/{stem}/{filename}"] = Entry(source)
    return Outcome(artifacts, report, problems, targets)


def _docstrings(data: bytes, text: str, functions: list[ModuleFunction]) -> dict[tuple[str, int], str]:
    """The vectorized docstring of each compiled function, as the decorator would build it from
    the live function, without running the module: Python compiles the module's text (compile
    executes nothing), each function object is made from its code object, and ``inspect`` reads
    its source from ``linecache``, where the text is registered as ``linecache`` would read the
    installed file. Any failure leaves the decorator to build the docstring at run time."""
    wanted = [(f["qualname"], f["line"], f.get("scalar_source")) for f in functions if f["status"] == "ok"]
    if not wanted:
        return {}
    filename = "<array-vectorize build>"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are the decorator's to show, at import
            code = compile(data, filename, "exec", dont_inherit=True)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        lines = io.TextIOWrapper(io.BytesIO(data), encoding, line_buffering=True).readlines()
    except (SyntaxError, ValueError, LookupError, UnicodeDecodeError, MemoryError, RecursionError):
        return {}  # MemoryError: too deep for CPython's parser (issue 28 item 9)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    functions_by_key = {}
    _collect_functions(code, "", functions_by_key)
    docs = {}
    linecache.cache[filename] = (len(text), None, lines, filename)
    try:
        for qualname, line, scalar_source in wanted:
            fn_code = functions_by_key.get((qualname, line))
            if fn_code is None:
                continue
            closure = tuple(types.CellType() for _ in fn_code.co_freevars)  # a factory's function
            fn = types.FunctionType(fn_code, {"__name__": filename}, None, None, closure)
            try:
                # As the decorator does: from the compiler's text of the function if it gave one.
                args = (fn,) if scalar_source is None else (fn, scalar_source)
                docs[(qualname, line)] = vectorized_docstring(*args)
            except Exception:  # noqa: BLE001 - the decorator builds it at run time instead
                pass
    finally:
        linecache.cache.pop(filename, None)
    return docs


def _collect_functions(code: types.CodeType, prefix: str, out: dict, in_function: bool = False) -> None:
    """(qualname, co_firstlineno) -> code object, for the functions of the places compile_module
    looks: the module level, class bodies (nested ones too), and the functions a top-level
    function defines (a factory's)."""
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        qualname = prefix + const.co_name
        if const.co_flags & 0x2:  # CO_NEWLOCALS: a function
            out.setdefault((qualname, const.co_firstlineno), const)
            if not prefix:
                _collect_functions(const, qualname + ".<locals>.", out, in_function=True)
        elif not in_function:  # a class body
            _collect_functions(const, qualname + ".", out)


def _runtime(config: Config, target: str) -> bool:
    return any(fnmatch.fnmatchcase(target, p) for p in config.runtime)


def _artifact_name(fn: ModuleFunction, taken: dict[str, bytes]) -> str:
    # `<locals>` (a function made by a factory) has no place in a portable file name.
    stem = fn["qualname"].replace("<", "-").replace(">", "-")
    name = f"{stem}.py"
    if name in taken:  # the same qualname defined twice in one module
        name = f"{stem}-{fn['line']}.py"
    n = 1
    while name in taken:  # a factory's function, once per call of the factory (issue 31)
        n += 1
        name = f"{stem}-{fn['line']}-{n}.py"
    return name


def _source_index(source_root: str) -> list[str]:
    try:
        return _core.scan_tree(source_root)
    except OSError:
        return []


def _shown_path(install_path: str, source_paths: list[str]) -> str:
    """The source-tree path the wheel entry came from (src/ layout, flat layout, or another
    mapping the wrapped backend applied), else the wheel path."""
    candidates = [p for p in source_paths if p == install_path or p.endswith("/" + install_path)]
    if len(candidates) > 1:
        candidates = sorted(candidates, key=len)
    return candidates[0] if candidates else install_path


def _check_runtime_patterns(config: Config, targets: list[str]) -> None:
    bad = []
    for pattern in config.runtime:
        if any(fnmatch.fnmatchcase(t, pattern) for t in targets):
            continue
        close = _close(pattern, targets)
        hint = f"; did you mean {close!r}?" if close else ""
        bad.append(f"[tool.array-vectorize] runtime entry {pattern!r} matches no marked function{hint}")
    if bad:
        raise BuildError("\n".join(bad) + _known_targets(targets))


def _close(pattern: str, targets: list[str]) -> str | None:
    match = difflib.get_close_matches(pattern, targets, n=1, cutoff=0.6)
    return match[0] if match else None


def _known_targets(targets: list[str]) -> str:
    if not targets:
        return "\n(the wheel has no marked functions)"
    shown = ", ".join(targets[:10]) + (", ..." if len(targets) > 10 else "")
    return f"\n(marked functions: {shown})"


def failure_message(problems: list[_Problem]) -> str:
    """Every problem, then what to do: a rejected function fails at run time too, so it must
    change; only a deferred one can be left to run time (`runtime = [...]`)."""
    n = len(problems)
    head = f"{n} marked function{'s' if n != 1 else ''} cannot be precompiled:\n\n"
    body = "\n\n".join(p.text for p in problems)
    rejected = [p.target for p in problems if not p.runtime_helps]
    deferred = [p.target for p in problems if p.runtime_helps]
    advice = []
    if rejected:
        them = "it" if len(rejected) == 1 else "them"
        advice.append(
            f"{_listed(rejected)} {'is' if len(rejected) == 1 else 'are'} rejected by the compiler, in the build and at\n"
            f"run time alike: change {them} as the message says. (Or decorate {them} `@vectorize(fallback=True)`,\n"
            "which runs what cannot be vectorized element by element, slowly, and list "
            f"{them} in\n`[tool.array-vectorize] runtime`: the decorator makes those element loops at import.)"
        )
    if deferred:
        them = "it" if len(deferred) == 1 else "them"
        advice.append(
            f"{_listed(deferred)} can be compiled once {'its module runs' if len(deferred) == 1 else 'their modules run'}: "
            f"leave {them} to the decorator at import\nby listing {them} in pyproject.toml:\n\n"
            "    [tool.array-vectorize]\n    runtime = ["
            + ", ".join(f'"{t}"' for t in deferred)
            + "]"
        )
    return head + body + "\n\nTo fix:\n" + "\n\n".join(advice) + "\n"


def _listed(targets: list[str]) -> str:
    return ", ".join(targets)


def _shipped_modules(entries: dict[str, Entry], dist_info: str) -> dict[str, tuple[str, bytes]]:
    """Every Python source module the wheel installs: module name -> (install path, bytes)."""
    out = {}
    for arcname, entry in entries.items():
        path = install_path(arcname, dist_info)
        if path is None or not path.endswith(".py") or f"/{ARTIFACT_DIR}/" in f"/{path}":
            continue
        name = module_name(path)
        if name is not None:
            out[name] = (path, entry.data)
    return out


def program_modules(
    text: str, module: str, path: str, shipped: Mapping[str, tuple[str, bytes]], shown_path: Callable[[str], str]
) -> tuple[str, dict]:
    """The modules of the wheel this module's imports name, and theirs in turn
    (array_vectorize/imports.py), each found where the import system finds it once installed:
    the submodule's file in its package directory, as the wheel lays it out (``pkg/units.py``,
    ``pkg/units/__init__.py``). Modules the wheel does not ship as source stay unresolved
    (their functions are reported deferred). The modules of the standard library they name are
    the build interpreter's (each function is pinned by its own text, which the one installed
    later must match)."""
    from ..imports import package_of
    from ..imports import program_modules as imported

    def find(name: str):
        found = shipped.get(name)
        if found is None:
            return None
        other_path, data = found
        try:
            other_text = importlib.util.decode_source(data)
        except (SyntaxError, UnicodeDecodeError):
            return None
        return other_text, shown_path(other_path), _core.sha256_hex(data)

    is_package = path.endswith("/__init__.py") or path == "__init__.py"
    return package_of(module, is_package), imported(text, module, is_package, find)


def _binding_json(binding) -> list:
    """An assumption's binding as JSON: a frozen constant's tuples, lists and dicts tagged, since
    JSON has no tuples and only string keys (D8, D15; `wheel_artifacts` decodes them)."""
    if binding[0] == "const":
        return ["const", _const_json(binding[1])]
    return list(binding)


def _const_json(value):
    if isinstance(value, tuple):
        return {"tuple": [_const_json(v) for v in value]}
    if isinstance(value, list):
        return {"list": [_const_json(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_const_json(k), _const_json(v)] for k, v in value.items()]}
    return value
