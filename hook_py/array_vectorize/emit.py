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

    from .records import CachedFunction

from . import _core
from ._core import RUNTIME_HELPERS, sha256_hex
from ._types import CodeType, FunctionType


def code_filename(qualname: str, source: str) -> str:
    digest = sha256_hex(source.encode())[:12]
    return f"<array-vectorize {qualname} {digest}>"


def compile_generated(qualname: str, fast_source: str, exact_source: str) -> CodeType:
    """The code of the generated module's entry text (`fast_source`); the exact body is compiled
    on its first call (``_install``). Named after the whole module, `fast_source + exact_source`."""
    return compile(fast_source, code_filename(qualname, fast_source + exact_source), "exec", dont_inherit=True)


#: ``code.co_names[0]`` of an entry that can be made lazily: it calls an argument prologue
#: first (src/codegen/assemble.rs), with its parameters as the only arguments when nothing is
#: hidden.
_LAZY_PROLOGUE_NAMES = tuple(RUNTIME_HELPERS[key]["name"] for key in ("float_args", "exact_args"))
_FLOAT_ARGS = RUNTIME_HELPERS["float_args"]["name"]


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
#: A lazy function (``from_cache``) registers its source without importing linecache (a warm
#: import should not pay for it); nothing can read linecache before it is imported, and the
#: import hook flushes these into it as it loads (hook/__init__.py), the first call of a
#: function at the latest.
_pending_sources: dict[str, str] = {}


def flush_pending_sources(linecache: Any) -> None:
    while _pending_sources:
        filename, source = _pending_sources.popitem()
        _register(linecache, filename, source)


def _install(
    parts: tuple[str, str, str | None, bool, str | None],
    filename: str,
    glob: dict[str, Any],
    code: CodeType | None,
    entry: str,
    deferred: FunctionType | None = None,
) -> None:
    """Executes the entry `entry` (its cached code, when given) now, and the exact body
    (ARCHITECTURE.md, "Generated code") on its first call: most programs only ever take the
    float path, and compiling the exact body is more than half of the cost of `compile()`.
    `parts` is ``(fast_source, exact_source, exact_entry, int_lanewise, mixed_lanewise)``.
    `deferred`: the original, whose entry is compiled at its first call (`_defer_entry`)."""
    if deferred is not None:
        _defer_entry(parts[0], filename, glob, entry, deferred)
    else:
        if code is None:
            code = compile(parts[0], filename, "exec", dont_inherit=True)
        exec(code, glob)  # noqa: S102 - the generated module only defines functions
    blocks = glob.get(_FLOAT_ARGS) is _blocked_prologue()
    _install_exact(parts, filename, glob, glob[entry], blocks)
    if _FLOAT_ARGS in glob:
        glob[_FLOAT_ARGS] = _own_prologue(glob[_FLOAT_ARGS], glob)


#: Stand-in code per (positional count, positional-only count, keyword-only names): the same
#: bytecode serves every function of those, its positional names given by ``code.replace``.
_STUBS: dict[tuple[int, int, tuple[str, ...]], CodeType] = {}


def _stub_code(n_pos: int, posonly: int, kwonly: tuple[str, ...]) -> CodeType:
    """``def f(a0, a1, /, a2, *, k): return _vec_first_call()(a0, a1, a2, k=k)`` on one line:
    the first call makes the function final, then calls it from the stand-in's own frame (one
    frame, at the `def` line, in a traceback of the first call)."""
    key = (n_pos, posonly, kwonly)
    code = _STUBS.get(key)
    if code is None:
        params = [f"a{i}" for i in range(n_pos)]
        declared = params[:posonly] + ["/"] * (posonly > 0) + params[posonly:] + ["*"] * bool(kwonly) + list(kwonly)
        args = params + [f"{k}={k}" for k in kwonly]
        text = f"def f({', '.join(declared)}): return {_FIRST_CALL}()({', '.join(args)})\n"
        glob: dict[str, Any] = {}
        exec(compile(text, "<array-vectorize stub>", "exec", dont_inherit=True), glob)  # noqa: S102 - defines one function
        code = _STUBS[key] = glob["f"].__code__
    return code


def _qualname(entry: str) -> dict[str, str]:
    """``co_qualname`` for ``code.replace`` where the code has one (Python 3.11+)."""
    return {"co_qualname": entry} if sys.version_info >= (3, 11) else {}


#: The global the stand-in code of a deferred entry calls (src/codegen/first_call.rs
#: FIRST_CALL, as issue 31's stand-ins: ``first_call.resolve`` finds it).
_FIRST_CALL = "_vec_first_call"


def _defer_entry(fast_source: str, filename: str, glob: dict[str, Any], entry: str, original: FunctionType) -> None:
    """Puts in ``glob[entry]`` the entry function whose code is compiled at its first call
    (issue 30: CPython's ``compile()`` of the entry's text was a third of a decoration). Until
    then its code is a stand-in declaring the original's parameters (`_stub_code`, compiled
    once per count of parameters), under the module's file name, so its signature,
    ``inspect.getsource`` and ``source`` are the generated ones from the start. Its first call
    (or ``first_call.resolve``) compiles `fast_source`, executes it in `glob` (defining the
    out-of-line helpers the text defines after the entry) and gives the function that code:
    the same function object, so references taken before stay valid. Two threads making the
    first call at once may both compile; the results are equal and either one's code serves
    (no lock: none to be held across a fork)."""
    code = original.__code__
    n_pos = code.co_argcount
    names = code.co_varnames[: n_pos + code.co_kwonlyargcount]
    kwnames = names[n_pos:]
    stub_code = _stub_code(n_pos, code.co_posonlyargcount, kwnames).replace(
        co_varnames=names, co_filename=filename, co_name=entry, **_qualname(entry)
    )
    vec = glob[entry] = FunctionType(stub_code, glob, entry)

    def resolve() -> None:
        if vec.__code__ is not stub_code:
            return
        exec(compile(fast_source, filename, "exec", dont_inherit=True), glob)  # noqa: S102
        made = glob[entry].__code__
        glob[entry] = vec
        shape = (made.co_argcount, made.co_posonlyargcount, made.co_kwonlyargcount, made.co_varnames[: len(names)])
        if shape != (n_pos, code.co_posonlyargcount, len(kwnames), names):
            raise _core.InternalError(f"the generated entry of {original.__qualname__} does not declare its parameters")
        vec.__code__ = made

    def first_call() -> FunctionType:
        resolve()
        return vec

    first_call.resolve = resolve  # type: ignore[attr-defined]
    glob[_FIRST_CALL] = first_call


def _install_exact(
    parts: tuple[str, str, str | None, bool, str | None], filename: str, glob: dict[str, Any], entry: FunctionType, blocks: bool
) -> None:
    """Puts the exact body `exact_entry` in `glob`, compiled on its first call, unless it is there
    already (a code object of the whole module: a wheel's .pyc) or there is none. The exact
    body's slot holds a ``runtime.blocked.Dispatch`` of `entry` and the exact body, which runs
    the calls the float prologue sends it (pandas and xarray arguments, and large NumPy ones
    when `blocks`: `entry` may be evaluated in blocks) and passes every other call on; and
    large int64 calls when `int_lanewise` too (the core's word that the int body is lane-wise,
    issue 30), and large calls of int64 and float64 arrays of the kinds `mixed_lanewise` (the
    core's word that the mixed body is lane-wise, None when not or there is none)."""
    fast_source, exact_source, exact_entry, int_lanewise, mixed_lanewise = parts
    if exact_entry is None:
        return
    if exact_entry in glob:
        if type(glob[exact_entry]) is not _dispatch_type():
            glob[exact_entry] = _dispatch_type()(entry, glob[exact_entry], blocks, int_lanewise, mixed_lanewise)
        return
    # Blank lines in front keep the exact body's line numbers those of the registered source,
    # `fast_source + exact_source`.
    padded = "\n" * fast_source.count("\n") + exact_source

    def compile_exact(*args: Any, **kwargs: Any) -> Any:
        exec(compile(padded, filename, "exec", dont_inherit=True), glob)  # noqa: S102
        exact = glob[exact_entry]
        dispatch.exact = exact
        glob[exact_entry] = dispatch
        return exact(*args, **kwargs)

    dispatch = glob[exact_entry] = _dispatch_type()(entry, compile_exact, blocks, int_lanewise, mixed_lanewise)


def _own_prologue(shared: Any, glob: dict[str, Any]) -> Any:
    """The float prologue of the function whose globals are `glob`: one that specializes itself
    to the argument types it sees (runtime/args.py `specializing_prologue`)."""
    from .runtime.registry import SPECIALIZING_PROLOGUE

    return SPECIALIZING_PROLOGUE(shared, glob, _FLOAT_ARGS)


def _blocked_prologue() -> Any:
    from .runtime.registry import BLOCKED_FLOAT_ARGS

    return BLOCKED_FLOAT_ARGS


def _dispatch_type() -> Any:
    from .runtime.registry import BLOCKED_DISPATCH

    return BLOCKED_DISPATCH


def shares_hidden(record: Any) -> bool:
    """Whether the hidden values of a compiled function or a record of one (its ``hidden`` and
    ``element_sites``) are all module-level objects the generated code reads whole, the same in
    every block of a call (kind ``"object"``: a settings dict, a string, an Enum, an exception
    class, D14, D21), and it runs no call element by element (D19, D23): it may then be evaluated
    in blocks like a function with no hidden value. A global array (an argument of the
    prologue, never cut into blocks) or a callee keeps the call whole."""
    return all(kind == "object" for kind, _ in record.get("hidden") or ()) and not record.get("element_sites")


def _globals(
    module: str,
    hidden: dict[str, Any] | None,
    namespace: Any,
    into: dict[str, Any] | None = None,
    blocks_share_hidden: bool = False,
) -> dict[str, Any]:
    """The generated module's globals: the runtime helpers and the hidden values (global arrays,
    fallback callees, D8). A function whose namespace is not pinned and that binds no hidden
    values, or only ones every block shares (`blocks_share_hidden`, ``shares_hidden``), may be
    evaluated in blocks (runtime/blocked.py): its float prologue is the one that sends large
    NumPy inputs there. `into`: the dict to fill (a function compiled at its first call keeps its
    globals dict)."""
    from .runtime.registry import helper_globals  # the runtime loads with the first function

    glob = helper_globals(namespace, blocked=namespace is None and (not hidden or blocks_share_hidden))
    glob["__name__"] = module
    if hidden:
        glob.update(hidden)
    if into is not None:
        into.update(glob)
        return into
    return glob


class _FirstCall(tuple):
    """What a lazy function's prologue name is bound to until its first call (see `from_cache`):
    ``(entry, glob, (source, fast_len, exact_entry, helper_functions, int_lanewise, mixed_lanewise),
    namespace)``:
    the generated module's text, cut into `_install`'s parts only then, the functions of
    out-of-line helpers the entry's part defines (the core's list, ``helpers``), and the core's
    ``int_lanewise`` and ``mixed_lanewise``. A tuple made in one C call rather than a
    closure or an object with attributes: a warm import makes one per function."""

    __slots__ = ()

    def __call__(self, *args: Any) -> Any:
        # Another thread may have filled the globals meanwhile; filling them twice at once is
        # harmless, the values are the same. The exact body goes in first and the helpers in
        # one update (atomic under the GIL) that replaces this stand-in last: a thread that
        # finds the real prologue finds everything else too.
        entry, glob, (source, fast_len, exact_entry, helper_functions, int_lanewise, mixed_lanewise), namespace = self
        parts = (source[:fast_len], source[fast_len:], exact_entry, int_lanewise, mixed_lanewise)
        code = entry.__code__
        prologue = code.co_names[0]
        if glob.get(prologue) is self:
            if _pending_sources:
                import linecache

                flush_pending_sources(linecache)
            helpers = _globals(glob["__name__"], None, namespace)
            blocks = helpers[_FLOAT_ARGS] is _blocked_prologue()
            if helper_functions:
                # The entry's text also defines the functions of out-of-line helpers (D7),
                # which the cached code of the entry alone does not.
                exec(compile(parts[0], code.co_filename, "exec", dont_inherit=True), glob)  # noqa: S102
            _install_exact(parts, code.co_filename, glob, entry, blocks)
            helpers[_FLOAT_ARGS] = _own_prologue(helpers[_FLOAT_ARGS], glob)
            glob.update(helpers)
        return glob[prologue](*args)


#: The prefix of the globals holding scalar originals (D19, src/lower/calls/elementwise/recursion.rs).
SCALAR_PREFIX = "_vec_scalar_"


def scalar_original(original: FunctionType, hidden_name: str, value: Any = None) -> Any:
    """The scalar function a residue calls (D19) for the global `hidden_name`
    (``_vec_scalar_<name>``): the function `<name>` of `original`'s module, or `original` itself
    when `<name>` is its own name and the module has not bound it yet (the decorator runs before
    the `def` binds its name); `value`, when given, is what the live environment bound to it.
    A function whose own name reads anything but itself (a vectorized wrapper, once `@vectorize`
    has bound it) is called as a copy whose globals read that name as the copy: its recursion
    stays scalar, as the scalar original's."""
    name = hidden_name[len(SCALAR_PREFIX) :]
    if value is None:
        value = original.__globals__.get(name, original if name == original.__name__ else None)
    fn = getattr(value, "_vectorized_original", value)
    if not isinstance(fn, FunctionType) or fn.__globals__.get(fn.__name__) is fn:
        return fn
    return _self_bound(fn)


class _SelfBound(dict):
    """Globals of a copy of a function that read the function's own name as the copy, and every
    other name in the function's module, live (D19)."""

    __slots__ = ("module",)

    def __missing__(self, key: str) -> Any:
        return self.module[key]


def _self_bound(fn: FunctionType) -> FunctionType:
    glob = _SelfBound(__builtins__=fn.__globals__.get("__builtins__", __builtins__))
    glob.module = fn.__globals__
    copy = FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    glob[fn.__name__] = copy
    return copy


def from_cache(
    original: FunctionType,
    entry: CachedFunction,
    namespace: Any,
    hidden: dict[str, Any] | None,
    into: dict[str, Any] | None = None,
) -> FunctionType:
    """`materialize` for a record of the import hook, lazily when it can be: the path of every
    function of a warm import, so it does only what a lazy function needs. `hidden`: the
    module-level objects it reads (precompiled.hidden_objects), when it reads any. The record
    holds every field read here (hook/cachefile.py ``entries_problem``): the module's text whole,
    ``source``, cut into its two parts at ``fast_len``. `into`: as for `materialize` (never
    lazy then)."""
    code = entry["code"]
    source, fast_len = entry["source"], entry["fast_len"]
    names = code.co_names if code is not None else ()
    if into is not None or entry["hidden"] or not names or names[0] not in _LAZY_PROLOGUE_NAMES:
        return materialize(
            original,
            source[:fast_len],
            entry["entry"],
            exact_source=source[fast_len:],
            exact_entry=entry["exact_entry"],
            int_lanewise=entry["int_lanewise"],
            mixed_lanewise=entry["mixed_lanewise"],
            hidden=hidden,
            blocks_share_hidden=shares_hidden(entry),
            namespace=namespace,
            code=code,
            lazy=True,
            doc=entry.get("doc"),
            scalar_source=entry.get("scalar_source"),
            into=into,
        )
    # Made lazily (see the module doc), in line (the path of every function of a warm import):
    # the entry from its cached `code`, with globals filled on its first call. The function
    # object is final from the start: references taken before the first call stay valid, and
    # its code, signature and source are the generated ones. Its name, defaults and module
    # (``glob["__name__"]``) are the original's.
    filename = code.co_filename
    linecache = sys.modules.get("linecache")
    if linecache is None or not hasattr(linecache, "cache"):
        _pending_sources[filename] = source
    else:
        _register(linecache, filename, source)
    text = (source, fast_len, entry["exact_entry"], entry["helpers"], entry["int_lanewise"], entry["mixed_lanewise"])
    glob: dict[str, Any] = {"__name__": original.__module__}
    vec = FunctionType(code, glob, original.__name__, original.__defaults__)
    # The first global the entry reads is the prologue it calls first.
    glob[code.co_names[0]] = _FirstCall((vec, glob, text, namespace))
    kwdefaults = original.__kwdefaults__
    if kwdefaults is not None:
        vec.__kwdefaults__ = kwdefaults
    annotations = original.__annotations__
    if annotations:
        vec.__annotations__ = dict(annotations)
    vec.__qualname__ = original.__qualname__
    doc = entry.get("doc")
    if doc is None:
        from .docstring import vectorized_docstring

        doc = vectorized_docstring(original, entry.get("scalar_source"))
    vec.__doc__ = doc
    vec.__dict__ = {"_vectorized_original": original, "source": source}
    return vec


def materialize(
    original: FunctionType,
    fast_source: str,
    entry: str,
    *,
    exact_source: str = "",
    exact_entry: str | None = None,
    int_lanewise: bool = False,
    mixed_lanewise: str | None = None,
    hidden: dict[str, Any] | None = None,
    blocks_share_hidden: bool = False,
    namespace: Any = None,
    code: CodeType | None = None,
    lazy: bool = False,
    doc: str | None = None,
    scalar_source: str | None = None,
    into: dict[str, Any] | None = None,
    defer: bool = False,
) -> FunctionType:
    """Executes the generated module and dresses its entry function as `original`.

    The module's text is ``fast_source + exact_source``, as ``_core`` returns it: the entry is
    compiled now, the exact body `exact_entry` on its first call (`int_lanewise`: the core's
    word that its int body may run in blocks; `mixed_lanewise`, that its mixed body may;
    `blocks_share_hidden`: its `hidden` values are ones every block shares, ``shares_hidden``). A module given whole as `fast_source` (the
    element loop; a wheel's, whose `code` defines both functions) has no `exact_source`. `code` and `doc` (the generated module's code object and the vectorized
    docstring) come from the import hook's cache or a wheel when known, so a warm import neither
    compiles nor tokenizes. `lazy`: `code` is the entry function's own code (an import hook entry
    that `from_cache` could not make lazily), so the module is compiled again here. `into`: the
    globals dict to execute the module in (first_call.py: the one its stand-in already has).
    `defer`: compile the entry's text at its first call (`_defer_entry`; not with `code` or
    `into`, whose function is final now).
    """
    source = fast_source + exact_source if exact_source else fast_source
    # A code object from a cache or a wheel carries the name code_filename() would compute.
    filename = code.co_filename if code is not None else code_filename(original.__qualname__, source)
    register_source(filename, source)
    glob = _globals(original.__module__, hidden, namespace, into, blocks_share_hidden)
    parts = (fast_source, exact_source, exact_entry, int_lanewise, mixed_lanewise)
    deferred = original if defer and code is None and into is None else None
    _install(parts, filename, glob, None if lazy else code, entry, deferred)
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
