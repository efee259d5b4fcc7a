"""Emit: turn generated source into a callable that stands in for the scalar function.

The generated module is self-contained (frozen values are literals; its only globals are the
runtime helpers), so it is executed in a fresh globals dict built by the runtime registry. It
is registered in ``linecache`` under a name derived from its content, so ``inspect.getsource``
and tracebacks show the generated lines, and a cached code object compiled under the same name
stays valid across processes.

Functions from the import hook's cache get their globals lazily (ARCHITECTURE.md, "Warm
imports"): the decorator makes the final function from the cached code of the entry at once,
but its globals hold only the argument prologue it calls first (every entry does), as a
stand-in that fills in the runtime helpers and the exact body on the first call. A warm import
pays for neither the runtime nor the generated module's execution.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from ._core import RUNTIME_HELPERS, sha256_hex
from ._types import CodeType, FunctionType


def code_filename(qualname: str, source: str) -> str:
    digest = sha256_hex(source.encode())[:12]
    return f"<array-vectorize {qualname} {digest}>"


def compile_generated(qualname: str, fast_source: str, exact_source: str) -> CodeType:
    """The code of the generated module's entry text (`fast_source`); the exact body is compiled
    on its first call (``_install``). Named after the whole module, `fast_source + exact_source`."""
    return compile(fast_source, code_filename(qualname, fast_source + exact_source), "exec", dont_inherit=True)


#: ``code.co_names[:1]`` of an entry that can be made lazily: it calls an argument prologue
#: first (src/codegen/assemble.rs), with its parameters as the only arguments when nothing is
#: hidden.
_LAZY_PROLOGUES = tuple((RUNTIME_HELPERS[key]["name"],) for key in ("float_args", "exact_args"))


def entry_code(module_code: CodeType, entry: str) -> CodeType | None:
    """The code of the function `entry` in the generated module's code (what a lazy function is
    made of: the import hook caches it)."""
    for const in module_code.co_consts:
        if isinstance(const, CodeType) and const.co_name == entry:
            return const
    return None


def register_source(filename: str, source: str) -> None:
    """Makes `source` the text of `filename` for ``inspect.getsource`` and tracebacks."""
    # Imported here: linecache pulls in tokenize and re (~7 ms in a bare interpreter), which a
    # process that never materializes a function should not pay.
    import linecache

    flush_pending_sources(linecache)
    _register(linecache, filename, source)


def _register(linecache: Any, filename: str, source: str) -> None:
    lines = source.splitlines(keepends=True)
    # mtime None: linecache.checkcache never evicts it (there is no file to compare with).
    linecache.cache[filename] = (len(source), None, lines, filename)


#: Sources of lazy functions decorated before anything imported linecache (file name -> text).
#: A lazy function registers its source without importing linecache (a warm import should not
#: pay for it); nothing can read linecache before it is imported, and the import hook flushes
#: these into it as it loads (hook/__init__.py), the first call of a function at the latest.
_pending_sources: dict[str, str] = {}


def register_source_lazily(filename: str, source: str) -> None:
    linecache = sys.modules.get("linecache")
    if linecache is None or not hasattr(linecache, "cache"):
        _pending_sources[filename] = source
    else:
        _register(linecache, filename, source)


def flush_pending_sources(linecache: Any) -> None:
    while _pending_sources:
        filename, source = _pending_sources.popitem()
        _register(linecache, filename, source)


def _install(
    fast_source: str, exact_source: str, exact_entry: str | None, filename: str, glob: dict[str, Any], code: CodeType | None
) -> None:
    """Executes the entry (its cached code, when given) now, and the exact body (ARCHITECTURE.md,
    "Generated code") on its first call: most programs only ever take the float path, and
    compiling the exact body is more than half of the cost of `compile()`."""
    if code is None:
        code = compile(fast_source, filename, "exec", dont_inherit=True)
    exec(code, glob)  # noqa: S102 - the generated module only defines functions
    _install_exact(fast_source, exact_source, exact_entry, filename, glob)


def _install_exact(fast_source: str, exact_source: str, exact_entry: str | None, filename: str, glob: dict[str, Any]) -> None:
    """Puts the exact body `exact_entry` in `glob`, compiled on its first call, unless it is there
    already (a code object of the whole module: a wheel's .pyc) or there is none."""
    if exact_entry is None or exact_entry in glob:
        return
    # Blank lines in front keep the exact body's line numbers those of the registered source,
    # `fast_source + exact_source`.
    padded = "\n" * fast_source.count("\n") + exact_source

    def compile_exact(*args: Any, **kwargs: Any) -> Any:
        exec(compile(padded, filename, "exec", dont_inherit=True), glob)  # noqa: S102
        return glob[exact_entry](*args, **kwargs)

    glob[exact_entry] = compile_exact


def _globals(module: str, hidden: dict[str, Any] | None, namespace: Any) -> dict[str, Any]:
    """The generated module's globals: the runtime helpers and the hidden values (global arrays,
    fallback callees, D8)."""
    from .runtime.registry import helper_globals  # the runtime loads with the first function

    glob = helper_globals(namespace)
    glob["__name__"] = module
    if hidden:
        glob.update(hidden)
    return glob


#: The prefix of the generated functions of out-of-line helpers (src/codegen/callee.rs).
_HELPER_FUNCTIONS = "\ndef _vec_helper_"


class _FirstCall:
    """What a lazy function's prologue name is bound to until its first call (see `_lazy`). One
    object rather than a closure: a warm import makes one per function, and a closure's cells
    are as many more objects for the garbage collector to track."""

    __slots__ = ("code", "exact_entry", "exact_source", "fast_source", "glob", "module", "namespace", "prologue")

    def __init__(
        self, code: CodeType, glob: dict[str, Any], parts: tuple[str, str, str | None], module: str, namespace: Any
    ) -> None:
        self.code = code
        self.glob = glob
        self.fast_source, self.exact_source, self.exact_entry = parts
        self.module = module
        self.namespace = namespace
        self.prologue = code.co_names[0]

    def __call__(self, *args: Any) -> Any:
        # Another thread may have filled the globals meanwhile; filling them twice at once is
        # harmless, the values are the same. The exact body goes in first and the helpers in
        # one update (atomic under the GIL) that replaces this stand-in last: a thread that
        # finds the real prologue finds everything else too.
        glob = self.glob
        if glob.get(self.prologue) is self:
            if _pending_sources:
                import linecache

                flush_pending_sources(linecache)
            if _HELPER_FUNCTIONS in self.fast_source:
                # The entry's text also defines the functions of out-of-line helpers (D7),
                # which the cached code of the entry alone does not.
                exec(compile(self.fast_source, self.code.co_filename, "exec", dont_inherit=True), glob)  # noqa: S102
            _install_exact(self.fast_source, self.exact_source, self.exact_entry, self.code.co_filename, glob)
            glob.update(_globals(self.module, None, self.namespace))
        return glob[self.prologue](*args)


def _lazy(code: CodeType, parts: tuple[str, str, str | None], module: str, namespace: Any) -> FunctionType:
    """The entry made from its cached `code`, with globals filled on its first call (see the
    module doc). The function object is final from the start: references taken before the
    first call stay valid, and its code, signature and source are the generated ones."""
    # The first global the entry reads is the prologue it calls first.
    glob: dict[str, Any] = {"__name__": module}
    glob[code.co_names[0]] = _FirstCall(code, glob, parts, module, namespace)
    return FunctionType(code, glob)


def materialize(
    original: FunctionType,
    fast_source: str,
    entry: str,
    *,
    exact_source: str = "",
    exact_entry: str | None = None,
    hidden: dict[str, Any] | None = None,
    namespace: Any = None,
    code: CodeType | None = None,
    lazy: bool = False,
    doc: str | None = None,
    scalar_source: str | None = None,
) -> FunctionType:
    """Executes the generated module and dresses its entry function as `original`.

    The module's text is ``fast_source + exact_source``, as ``_core`` returns it: the entry is
    compiled now, the exact body `exact_entry` on its first call. A module given whole as
    `fast_source` (the element loop; a wheel's, whose `code` defines both functions) has no
    `exact_source`. `code` and `doc` (the generated module's code object and the vectorized
    docstring) come from the import hook's cache or a wheel when known, so a warm import neither
    compiles nor tokenizes. `lazy` (the import hook's entries): `code` is the entry function's own
    code, and the globals are filled on the first call (see the module doc).
    """
    source = fast_source + exact_source if exact_source else fast_source
    if lazy and code is not None and not hidden and code.co_names[:1] in _LAZY_PROLOGUES:
        register_source_lazily(code.co_filename, source)
        vec = _lazy(code, (fast_source, exact_source, exact_entry), original.__module__, namespace)
    else:
        # A code object from a cache or a wheel carries the name code_filename() would compute.
        filename = code.co_filename if code is not None else code_filename(original.__qualname__, source)
        register_source(filename, source)
        glob = _globals(original.__module__, hidden, namespace)
        _install(fast_source, exact_source, exact_entry, filename, glob, None if lazy else code)
        vec = glob[entry]
    # The generated entry declares the original's parameters, so with its defaults and
    # annotations its signature is the original's (no inspect.signature needed).
    vec.__defaults__ = original.__defaults__
    vec.__kwdefaults__ = original.__kwdefaults__
    annotations = original.__annotations__
    if annotations:  # else vec's own, made empty when first read
        vec.__annotations__ = dict(annotations)
    vec.__name__ = original.__name__
    vec.__qualname__ = original.__qualname__
    vec.__module__ = original.__module__
    if doc is None:
        from .docstring import vectorized_docstring

        doc = vectorized_docstring(original, scalar_source)
    vec.__doc__ = doc
    # Not __wrapped__: inspect.getsource would unwrap to the scalar original.
    vec.__dict__ = {"_vectorized_original": original, "source": source}
    return vec
