"""Emit: turn generated source into a callable that stands in for the scalar function.

The generated module is self-contained (frozen values are literals; its only globals are the
runtime helpers), so it is executed in a fresh globals dict built by the runtime registry. It
is registered in ``linecache`` under a name derived from its content, so ``inspect.getsource``
and tracebacks show the generated lines, and a cached code object compiled under the same name
stays valid across processes.
"""

from __future__ import annotations

import types
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from ._core import sha256_hex


def code_filename(qualname: str, source: str) -> str:
    digest = sha256_hex(source.encode())[:12]
    return f"<array-vectorize {qualname} {digest}>"


def compile_generated(qualname: str, source: str) -> types.CodeType:
    """The code of the generated module's entry (what the import hook caches): the exact body
    is compiled on its first call, as without a cache, so unmarshalling stays cheap."""
    head, _ = _split(source)
    return compile(head, code_filename(qualname, source), "exec", dont_inherit=True)


def register_source(filename: str, source: str) -> None:
    # Imported here: linecache pulls in tokenize and re (~7 ms in a bare interpreter), which a
    # process that never materializes a function should not pay.
    import linecache

    lines = source.splitlines(keepends=True)
    # mtime None: linecache.checkcache never evicts it (there is no file to compare with).
    linecache.cache[filename] = (len(source), None, lines, filename)


_EXACT_MARKER = "\n\n\ndef _vec_exact_"


def _split(source: str) -> tuple[str, str | None]:
    """(the entry's text, the exact body's text or None)."""
    split = source.find(_EXACT_MARKER)
    if split < 0:
        return source, None
    return source[: split + 1], source[split + 3 :]


def _install(source: str, filename: str, glob: dict[str, Any], code: types.CodeType | None) -> None:
    """Executes the entry (its cached code, when given) now, and the exact body (ARCHITECTURE.md,
    "Generated code") on its first call: most programs only ever take the float path, and
    compiling the exact body is more than half of the cost of `compile()`."""
    head, tail = _split(source)
    if code is None:
        code = compile(head, filename, "exec", dont_inherit=True)
    exec(code, glob)  # noqa: S102 - the generated module only defines functions
    if tail is None:
        return
    name = tail[len("def ") : tail.index("(")]
    if name in glob:  # a code object of the whole module (a wheel's .pyc)
        return
    # Blank lines in front keep the exact body's line numbers those of the registered source.
    padded = "\n" * head.count("\n") + "\n\n" + tail

    def compile_exact(*args: Any, **kwargs: Any) -> Any:
        exec(compile(padded, filename, "exec", dont_inherit=True), glob)  # noqa: S102
        return glob[name](*args, **kwargs)

    glob[name] = compile_exact


def materialize(
    original: types.FunctionType,
    source: str,
    entry: str,
    *,
    hidden: dict[str, Any] | None = None,
    namespace: Any = None,
    code: types.CodeType | None = None,
    doc: str | None = None,
    scalar_source: str | None = None,
) -> types.FunctionType:
    """Executes the generated module and dresses its entry function as `original`.

    `code` and `doc` (the generated module's code object and the vectorized docstring) come from
    the import hook's cache when known, so a warm import neither compiles nor tokenizes.
    """
    # A cached code object carries the name code_filename() would compute (a hash of `source`).
    filename = code.co_filename if code is not None else code_filename(original.__qualname__, source)
    register_source(filename, source)
    from .runtime.registry import helper_globals  # the runtime loads with the first function

    glob = helper_globals(namespace)
    glob["__name__"] = original.__module__
    # Hidden values (global arrays, fallback callees, D8) are globals of the generated module.
    if hidden:
        glob.update(hidden)
    _install(source, filename, glob, code)
    vec = glob[entry]
    # The generated entry declares the original's parameters, so with its defaults and
    # annotations its signature is the original's (no inspect.signature needed).
    vec.__defaults__ = original.__defaults__
    vec.__kwdefaults__ = original.__kwdefaults__
    vec.__annotations__ = dict(original.__annotations__)
    vec.__name__ = original.__name__
    vec.__qualname__ = original.__qualname__
    vec.__module__ = original.__module__
    if doc is None:
        from .docstring import vectorized_docstring

        doc = vectorized_docstring(original, scalar_source)
    vec.__doc__ = doc
    # Not __wrapped__: inspect.getsource would unwrap to the scalar original.
    vec._vectorized_original = original
    vec.source = source
    return vec
