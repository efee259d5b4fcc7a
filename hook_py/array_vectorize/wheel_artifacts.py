"""Code precompiled into a wheel by ``array_vectorize.build``, found at decoration time.

Layout, beside each module ``pkg/mod.py`` of the installed wheel that has marked functions::

    pkg/__vectorized__/mod.json              manifest: BUILD_ID, sha256 of mod.py, one entry
                                             per precompiled function (compile_module's, less
                                             the source, plus the vectorized docstring), each
                                             naming its file; under "runtime", the qualnames
                                             of those [tool.array-vectorize] runtime lists
    pkg/__vectorized__/mod/<qualname>.py     the generated source, byte for byte; the
                                             installer byte-compiles it like any module

`lookup(fn)` derives the manifest's path from ``fn.__code__.co_filename`` (no scan of the file
system), reads it once per execution of the module (``_Manifest``: an entry serves one
function of one module execution; another one reads the manifest again), and uses it only if
the installed ``mod.py`` hashes to what was compiled and the manifest was written by this very
compiler (``BUILD_ID``); otherwise it returns None and the decorator compiles. The code object comes from the ``.pyc`` the installer
wrote (``SourceFileLoader.get_code`` validates it and falls back to compiling the ``.py``), with
its file name changed to the one emit gives generated code, so nothing is compiled at import.
The vectorized docstring is precomputed too (it costs more than the compile: ``inspect``
tokenizes the function) and used when the interpreter and ``docstring.py`` are those of the build
and the function's ``__doc__`` is the compiled one. The decorator then checks options and
assumptions (``precompiled.lookup``).
"""

from __future__ import annotations

import json
import os
import sys
import types
from importlib.machinery import SourceFileLoader
from typing import Any

from . import _core, docstring, emit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from .records import ManifestFunction, WheelFunction

# Shared with the writer, array_vectorize/build/precompile.py. Format 2: each function carries
# the core's lists of out-of-line helper functions (``helpers``, ``exact_helpers``). Format 3:
# several functions may share a (qualname, line): a factory's, once per call the build saw
# (issue 31). Format 4: each function names its exact body (``exact_entry``, which the wheel's
# .pyc defines; emit puts the blocking ``Dispatch`` around it) and carries the core's
# ``int_lanewise`` (issue 30), and since the mixed body ``mixed_lanewise`` (a format-4 file
# without it is read as None: a mixed int/float call of its functions runs whole).
ARTIFACT_DIR = "__vectorized__"
FORMAT = 4

#: `_load_manifest`'s answer when the manifest gives nothing usable: no entries, no module bytes.
_NOTHING = (None, None)

# co_filename of a module -> _Manifest (its entries are None when there are no usable artifacts).
_MODULES: dict[str, _Manifest] = {}


class _Manifest:
    """A module's manifest as read (and its source hash checked) for one module execution.

    ``namespace`` is that execution's globals (None until the first lookup adopts them); ``used``
    the entries it has taken. A lookup from other globals, or one of an entry already taken (the
    module body ran again: ``importlib.reload``, ``exec`` into the module, perhaps after an edit),
    reads the manifest and hashes the module file again before trusting it.
    """

    __slots__ = ("entries", "namespace", "source", "used")

    def __init__(
        self, loaded: tuple[dict[tuple[str, int], list[ManifestFunction]] | None, bytes | None], namespace: dict | None = None
    ) -> None:
        self.entries, self.source = loaded  # source: the module's bytes, when they were the built ones
        self.namespace = namespace
        self.used: set[tuple[str, int, int]] = set()


def manifest_path(module_file: str) -> str:
    """Where the manifest of the module at `module_file` (a ``.py`` path) lives."""
    head, tail = os.path.split(module_file)
    return os.path.join(head, ARTIFACT_DIR, tail[:-3] + ".json")


def lookup(fn: types.FunctionType, usable: Callable[[ManifestFunction], ManifestFunction | None]) -> WheelFunction | None:
    """The wheel's record for `fn` that `usable` accepts (precompiled.usable: its options and
    assumptions checked), as `usable` returns it, with ``fast_source`` (the whole generated
    module) and ``code`` (which defines the exact body and the helpers too); or None. A function
    made by a factory has one record per call the build saw (issue 31): the first unused one
    `usable` accepts serves it."""
    filename = fn.__code__.co_filename
    namespace = fn.__globals__
    manifest = _MODULES.get(filename)
    if manifest is None:
        manifest = _MODULES[filename] = _Manifest(_load_manifest(filename, fn.__module__), namespace)
    if manifest.entries is None:
        return None
    key = (fn.__qualname__, fn.__code__.co_firstlineno)
    candidates = manifest.entries.get(key)
    if not candidates:
        return None
    fresh = [(*key, i) for i in range(len(candidates)) if (*key, i) not in manifest.used]
    if manifest.namespace is None:
        manifest.namespace = namespace
    elif manifest.namespace is not namespace or not fresh:
        entries, source = _load_manifest(filename, fn.__module__)
        # The bytes read before stay a candidate text when the file has changed since.
        manifest = _MODULES[filename] = _Manifest((entries, source or manifest.source), namespace)
        candidates = (manifest.entries or {}).get(key)
        if not candidates:
            return None
        fresh = [(*key, i) for i in range(len(candidates))]
    if len(candidates) == 1:
        manifest.used.add(fresh[0])  # one use, whatever the check finds (as the hook's registry)
    for slot in fresh:
        entry = usable(candidates[slot[2]])
        if entry is None:
            continue
        manifest.used.add(slot)
        loaded = _load_function(filename, entry)
        if loaded is None:
            return None
        source, code = loaded
        # Without the precomputed docstring when something assigned __doc__: the decorator
        # builds it from the live function.
        keep_doc = _doc_is_compiled(fn)
        found: WheelFunction = {k: v for k, v in entry.items() if k != "doc" or keep_doc}
        found["fast_source"] = source
        found["code"] = code
        return found
    return None


def serves(module_file: str, module: str) -> bool:
    """Whether the module at `module_file`, imported as `module`, has valid precompiled
    artifacts: the import hook need not compile it (the decorator will find them)."""
    # Read for every import of the module (a reload included): the next execution's lookups
    # adopt it.
    manifest = _MODULES[module_file] = _Manifest(_load_manifest(module_file, module))
    return bool(manifest.entries)


def left_to_runtime(fn: types.FunctionType) -> bool:
    """Whether the wheel that installed `fn`'s module has no code for it because the project
    lists it in ``[tool.array-vectorize] runtime`` (the manifest's ``"runtime"``): under
    ``ARRAY_VECTORIZE_NO_COMPILE=1`` it then raises when called, its module imported (issue 31),
    and the message says so. Read on that path only."""
    filename = fn.__code__.co_filename
    if not filename.endswith(".py"):
        return False
    try:
        with open(manifest_path(filename), "rb") as f:
            manifest = json.loads(f.read())
        return manifest.get("module") == fn.__module__ and fn.__qualname__ in manifest.get("runtime", ())
    except (OSError, ValueError, AttributeError, TypeError):
        return False


def forget() -> None:
    """Drops what was read (tests; a reinstall in the same process)."""
    _MODULES.clear()


def module_bytes(filename: str) -> bytes | None:
    """The bytes of the module file at `filename` as they were when its manifest was read and
    they hashed to what the build compiled (live_source.py tries them as the text of a function
    whose file changed since)."""
    manifest = _MODULES.get(filename)
    return None if manifest is None else manifest.source


def _load_manifest(filename: str, module: str) -> tuple[dict[tuple[str, int], list[ManifestFunction]] | None, bytes | None]:
    """The manifest's entries (a list per (qualname, line)) and the module's bytes, or
    (None, None)."""
    if not filename.endswith(".py"):
        return _NOTHING
    try:
        with open(manifest_path(filename), "rb") as f:
            manifest = json.loads(f.read())
        if (
            not isinstance(manifest, dict)
            or manifest.get("format") != FORMAT
            or manifest.get("build_id") != _core.BUILD_ID
            or manifest.get("module") != module
        ):
            return _NOTHING
        with open(filename, "rb") as f:
            source = f.read()
        if _core.sha256_hex(source) != manifest.get("source_sha256"):
            return _NOTHING  # the installed module is not the one that was compiled
        docs_valid = manifest.get("doc_key") == doc_key()
        entries = {}
        for e in manifest["functions"]:
            # As the core returned it: binding tuples, constants untagged (`_binding`); the
            # precomputed docstring only when made by this interpreter and docstring.py.
            read: ManifestFunction = {k: v for k, v in e.items() if k != "doc" or docs_valid}
            read["assumptions"] = [(name, _binding(binding)) for name, binding in e["assumptions"]]
            entries.setdefault((e["qualname"], e["line"]), []).append(read)
        return entries, source
    except (OSError, ValueError, KeyError, TypeError):
        return _NOTHING


_DOC_KEY: list[dict] = []


def doc_key() -> dict:
    """What the precomputed vectorized docstrings depend on besides the module's source: the
    interpreter (``inspect.getsource``, docstring compilation) and ``docstring.py``."""
    if not _DOC_KEY:
        try:
            with open(docstring.__file__, "rb") as f:
                digest = _core.sha256_hex(f.read())
        except (OSError, TypeError):
            digest = None
        _DOC_KEY.append({"cache_tag": sys.implementation.cache_tag, "docstring_sha256": digest})
    return _DOC_KEY[0]


def _doc_is_compiled(fn: types.FunctionType) -> bool:
    # The docstring the compiler put in the function, not one assigned later (as the hook checks).
    consts = fn.__code__.co_consts
    first = consts[0] if consts else None
    return fn.__doc__ is (first if isinstance(first, str) else None)


def _binding(binding: list) -> tuple:
    """An assumption's binding as the core returned it (the build tags constants: `_const`)."""
    if binding[0] == "const":
        return ("const", _const(binding[1]))
    return _tupled(binding)


def _const(value: Any) -> Any:
    if isinstance(value, dict):
        ((tag, items),) = value.items()
        if tag == "tuple":
            return tuple(_const(v) for v in items)
        if tag == "list":
            return [_const(v) for v in items]
        return {_const(k): _const(v) for k, v in items}
    return value


def _tupled(value: Any) -> Any:
    # JSON has no tuples; frozen constants (D8) and binding tuples are tuples.
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def _load_function(module_file: str, entry: ManifestFunction) -> tuple[str, types.CodeType] | None:
    head, tail = os.path.split(module_file)
    path = os.path.join(head, ARTIFACT_DIR, tail[:-3], entry["file"])
    loader = SourceFileLoader(f"{ARTIFACT_DIR}.{entry['qualname']}", path)
    try:
        source = loader.get_data(path).decode("utf-8")
        if _core.sha256_hex(source.encode("utf-8")) != entry["source_sha256"]:
            return None
        code = loader.get_code(loader.name)
    except (OSError, ImportError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    if code is None:
        return None
    return source, _renamed(code, emit.code_filename(entry["qualname"], source))


def _renamed(code: types.CodeType, filename: str) -> types.CodeType:
    """`code` as if compiled under `filename` (the generated module and every function in it)."""
    consts = code.co_consts
    if any(isinstance(c, types.CodeType) for c in consts):
        consts = tuple([_renamed(c, filename) if isinstance(c, types.CodeType) else c for c in consts])
        return code.replace(co_filename=filename, co_consts=consts)
    return code.replace(co_filename=filename)
