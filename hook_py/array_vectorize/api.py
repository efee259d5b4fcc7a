"""The ``vectorize`` decorator: option handling, precompiled lookup, live compilation, the
fallback decision and the canonical cache (reference architecture, api.py)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from .records import CompiledFunction, Found

from . import _core, _stats, emit, precompiled
from ._types import FunctionType

VectorizationError = _core.VectorizationError

#: The modules (``__module__``) of every function vectorized in this process, so that installing
#: the import hook late can say which modules it came too late for.
decorated_modules: set[str] = set()


class CompileDisabledError(RuntimeError):
    """Raised instead of compiling when ARRAY_VECTORIZE_NO_COMPILE=1."""


def compile_disabled() -> bool:
    return os.environ.get("ARRAY_VECTORIZE_NO_COMPILE", "") not in ("", "0")


def vectorize(
    fn: Callable | None = None,
    *,
    protect_domains: bool = False,
    namespace: Any = None,
    fallback: bool | str = False,
    verify: Any = None,
    nan_on_raise: bool = False,
) -> Any:
    """Compile a scalar function into whole-array Array API code.

    Usable as ``@vectorize`` and ``@vectorize(...)``. Raises ``VectorizationError`` at decoration
    time, listing every construct that cannot be translated exactly (D10).

    protect_domains: give partial functions safe operands on lanes whose result is discarded (D1).
    namespace: pin the Array API namespace instead of taking it from the arguments.
    fallback: ``"calls"``: a call that cannot be vectorized (another library's function, a helper
        the compiler rejects) runs element by element where it stands, the rest vectorized (D23);
        ``True``: the same, and a function that cannot be compiled at all becomes one element
        loop; ``False``: such calls are rejected.
    nan_on_raise: elements that reach a ``raise`` or ``assert`` (D11) give NaN (a float64 result)
        instead of the call raising; for traced namespaces (``jax.jit``), where whether any
        element raised cannot be known at call time.
    verify: example arguments, one per positional parameter, each a number or an array (a tuple
        for several parameters: ``verify=(np.array([-1.0, 0.5]), 1.0)`` for ``f(x, lam)``; a
        bare value for one); the result is checked against the scalar original, element by
        element, at decoration.
    """
    # A compile error is raised from here, the user's `@vectorize` line, without the frames of
    # array_vectorize that found it: its message says where each problem is (file:line:col), and
    # those frames are of no use to the reader, as pytest hides its own. (An InternalError, a bug
    # of ours, keeps them.) The `raise` line is what the traceback shows, so it says so.
    plain = not (protect_domains or fallback or nan_on_raise) and namespace is None and verify is None
    if plain and type(fn) is FunctionType and not fn.__dict__:
        # A plain `def` under a bare `@vectorize`, every function of a warm import: `_vectorize`
        # without what cannot apply to it (an empty __dict__: not vectorized, memoized or
        # wrapped yet), one call less per decorator.
        try:
            vec = _build(fn, _CANONICAL_OPTIONS or _canonical_options(), None)
        except VectorizationError as exc:
            raise exc.with_traceback(None) from None  # the problems, each at its file:line:col, are below
        decorated_modules.add(fn.__module__)
        fn.__array_vectorized__ = vec
        return vec
    options = (protect_domains, namespace, fallback, verify, nan_on_raise)
    if fn is None:

        def decorator(fn: Callable) -> Any:
            try:
                return _vectorize(fn, *options)
            except VectorizationError as exc:
                raise exc.with_traceback(None) from None  # the problems, each at its file:line:col, are below

        return decorator
    try:
        return _vectorize(fn, *options)
    except VectorizationError as exc:
        raise exc.with_traceback(None) from None  # the problems, each at its file:line:col, are below


def _vectorize(
    fn: Callable, protect_domains: bool, namespace: Any, fallback: bool, verify: Any, nan_on_raise: bool
) -> Any:
    if isinstance(fn, (staticmethod, classmethod)):
        # `@vectorize` above `@staticmethod`/`@classmethod`: the function inside, wrapped again.
        return type(fn)(_vectorize(fn.__func__, protect_domains, namespace, fallback, verify, nan_on_raise))
    original = getattr(fn, "_vectorized_original", fn)
    if not isinstance(original, FunctionType):
        raise TypeError(f"vectorize expects a Python function, got {type(fn).__name__}")
    if fallback not in (False, True, "calls"):
        raise TypeError(f'fallback= takes False, True or "calls", got {fallback!r}')
    if verify is not None:
        check_verify_examples(original, verify)
    canonical = not protect_domains and namespace is None and not fallback and not nan_on_raise
    if canonical:
        # The canonical compilation is memoized on the original itself. The identity check
        # skips one that functools.wraps copied onto another function with the __dict__.
        cached = original.__dict__.get("__array_vectorized__")
        if cached is not None and getattr(cached, "_vectorized_original", None) is original:
            if verify is not None:
                _verify(cached, original, verify)
            return cached

    options = (
        _canonical_options()
        if canonical
        else {
            "protect_domains": bool(protect_domains),
            "fallback": bool(fallback),
            "optimize": sys.flags.optimize > 0,
            "nan_on_raise": bool(nan_on_raise),
        }
    )
    vec = _build(original, options, namespace, whole=fallback is True)
    decorated_modules.add(original.__module__)
    if verify is not None:
        _verify(vec, original, verify)
    if canonical:
        original.__array_vectorized__ = vec
    return vec


_CANONICAL_OPTIONS: dict[str, bool] = {}


def _canonical_options() -> dict[str, bool]:
    """The options of ``@vectorize`` without arguments, one dict per process (read only): every
    decorator of a warm import passes it, and precompiled.lookup compares an entry's options
    with it once per distinct options of the cache (sys.flags.optimize is fixed at start-up)."""
    if not _CANONICAL_OPTIONS:
        _CANONICAL_OPTIONS.update(protect_domains=False, fallback=False, optimize=sys.flags.optimize > 0, nan_on_raise=False)
    return _CANONICAL_OPTIONS


def check_verify_examples(original: FunctionType, examples: Any) -> None:
    """Raises TypeError, showing the accepted form, unless `examples` is one number or array per
    positional parameter of `original` (a tuple of them, or one bare value for one parameter)."""
    code = original.__code__
    names = code.co_varnames[: code.co_argcount]
    required = len(names) - len(original.__defaults__ or ())
    args = examples if isinstance(examples, tuple) else (examples,)
    problem = None
    if not required <= len(args) <= len(names):
        wanted = f"{required}" if required == len(names) else f"{required} to {len(names)}"
        problem = f"got {len(args)} example argument{'s' if len(args) != 1 else ''}, the function takes {wanted}"
    else:
        for name, value in zip(names, args):
            if not _is_example_value(value):
                problem = f"the example for `{name}` is a {type(value).__name__}"
                break
    if problem is None:
        return
    shown = ", ".join(names)
    example = ", ".join(["np.array([0.5, -1.0])"] + ["1.0"] * (max(required, 1) - 1))
    if max(required, 1) > 1:
        example = f"({example})"
    raise TypeError(
        f"verify= for {original.__qualname__}({shown}): {problem}. Give one example per positional "
        "parameter, each a number or an array (the elements are compared with the scalar original), "
        f"as a tuple, e.g. verify={example}; a function of one parameter also takes the bare value"
    )


def _is_example_value(value: Any) -> bool:
    """A Python number or an array (anything with ``shape`` and ``dtype``: NumPy's and other
    Array API libraries')."""
    if isinstance(value, (bool, int, float)):
        return True
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _verify(vec: FunctionType, original: FunctionType, examples: Any) -> None:
    from .verify import verify_against_original

    verify_against_original(vec, original, examples)


def _build(original: FunctionType, options: dict, namespace: Any, whole: bool = False) -> FunctionType:
    """The vectorized function; `whole` (``fallback=True``): one element loop where the function
    cannot be compiled."""
    if "__wrapped__" in original.__dict__:  # functools.wraps: the code is the wrapper's
        inner = _wrapped_function(original)
        if whole:
            return _element_loop(original, namespace, signature=inner)
        raise _wrapper_error(original, inner)
    found = precompiled.lookup(original, options)
    if found is not None:
        unbound = found[1].get("unbound")
        if unbound:
            # Issue 31: a name its precompiled code assumes is not bound yet (a helper further
            # down the module, the class whose body is running): checked at the first call.
            return _stand_in(original, options, namespace, found, whole, unbound=unbound)
        return from_found(original, found, namespace)
    if compile_disabled():
        if _can_wait(original) and _left_to_runtime(original):
            # Issue 31: its wheel's build left it to run time; its module imports, and it
            # raises when called.
            return _stand_in(original, options, namespace, None, whole, listed=True)
        raise _compile_disabled_error(original)
    try:
        return compile_and_emit(original, options, namespace, whole=whole, defer_unbound=_can_wait(original))
    except NotBoundYet as exc:
        return _stand_in(original, options, namespace, None, whole, unbound=exc.names)


def _stand_in(
    original: FunctionType, options: dict, namespace: Any, found: Found | None, whole: bool, **why: Any
) -> FunctionType:
    """first_call.stand_in for `original` (issue 31), which at its first call uses `found`, the
    precompiled record, if its assumptions hold then, and else compiles the live function (`whole`:
    as `_build`'s)."""
    from . import first_call

    def make(glob: dict) -> FunctionType:
        if found is not None and precompiled.check_assumptions(original, found[1].get("assumptions", ())) is True:
            return from_found(original, found, namespace, into=glob)
        if compile_disabled():
            raise _compile_disabled_error(original)
        return compile_and_emit(original, options, namespace, whole=whole, into=glob)

    return first_call.stand_in(original, make, found, **why)


def _left_to_runtime(original: FunctionType) -> bool:
    try:
        from .wheel_artifacts import left_to_runtime
    except ImportError:
        return False
    return left_to_runtime(original)


def _can_wait(original: FunctionType) -> bool:
    # Issue 31: only a function without *args/**kwargs gets a stand-in (first_call.stand_in
    # declares the original's parameters); the compiler rejects the others at decoration.
    return not original.__code__.co_flags & 0x0C  # CO_VARARGS | CO_VARKEYWORDS


def from_found(original: FunctionType, found: Found, namespace: Any, into: dict | None = None) -> FunctionType:
    """The vectorized function made from a precompiled record whose assumptions hold
    (``precompiled.lookup``'s answer): a wheel's or the import hook's. `into`: the globals dict
    to make it in (first_call.py, at a first call: the one its stand-in already has)."""
    origin, entry = found
    if entry.get("element_sites"):
        _count_sites(entry)
    hidden_names = entry.get("hidden")
    objects = precompiled.hidden_objects(original, hidden_names, entry.get("assumptions", ())) if hidden_names else None
    if origin == "wheel":
        _stats.bump("precompiled_hits")
        # The whole module is `fast_source`, and its code (the installer's .pyc) defines the
        # exact body and the out-of-line helpers too; emit puts the exact body's `Dispatch`
        # around the one it defines.
        return emit.materialize(
            original,
            entry["fast_source"],
            entry["entry"],
            exact_entry=entry["exact_entry"],
            int_lanewise=entry["int_lanewise"],
            # Absent from a wheel built before the mixed body (issue 30): its calls run whole.
            mixed_lanewise=entry.get("mixed_lanewise"),
            namespace=namespace,
            code=entry["code"],
            hidden=objects,
            blocks_share_hidden=emit.shares_hidden(entry),
            doc=entry.get("doc"),
            into=into,
        )
    counters = _stats.COUNTERS  # the path of every function of a warm import: no calls
    counters["hook_hits"] += 1
    if origin == "cache":
        counters["disk_cache_hits"] += 1
    return emit.from_cache(original, entry, namespace, objects, into)


def compile_and_emit(
    original: FunctionType,
    options: dict,
    namespace: Any,
    *,
    whole: bool = False,
    defer_unbound: bool = False,
    into: dict | None = None,
) -> FunctionType:
    """Compiles the live function and makes the vectorized function (an element loop when
    `whole`, ``fallback=True``, and the compiler rejects it). `defer_unbound`: raise NotBoundYet
    when it reads a name not bound yet, rather than the compiler's error."""
    try:
        compiled, hidden = compile_live(original, options, defer_unbound=defer_unbound)
    except VectorizationError:
        code = original.__code__
        if not whole or not (code.co_argcount or code.co_kwonlyargcount):
            raise  # nothing to loop over without parameters
        return _element_loop(original, namespace, into=into)
    _count_sites(compiled)
    return emit.materialize(
        original,
        compiled["fast_source"],
        compiled["entry"],
        exact_source=compiled["exact_source"],
        exact_entry=compiled["exact_entry"],
        int_lanewise=compiled["int_lanewise"],
        mixed_lanewise=compiled["mixed_lanewise"],
        hidden=hidden,
        blocks_share_hidden=emit.shares_hidden(compiled),
        namespace=namespace,
        scalar_source=compiled["scalar_source"],
        into=into,
        defer=True,
    )


def _count_sites(compiled: dict) -> None:
    """Counts the calls the function runs element by element (``stats()``: ``residue_sites``,
    D19; ``call_sites``, D23)."""
    for kind, _, _ in compiled.get("element_sites", ()):
        _stats.bump("residue_sites" if kind == "residue" else "call_sites")


def _compile_disabled_error(original: FunctionType) -> CompileDisabledError:
    """What ARRAY_VECTORIZE_NO_COMPILE=1 says of a function it keeps from compiling: one its
    wheel leaves to run time on purpose (``[tool.array-vectorize] runtime``; it raises when
    first called, its module imported: issue 31) must be taken out of that list or allowed to
    compile; any other must be precompiled."""
    name = f"{original.__module__}.{original.__qualname__}"
    if _left_to_runtime(original):
        return CompileDisabledError(
            f"{name} is listed in [tool.array-vectorize] runtime of the project that built its wheel, so the wheel "
            "holds no code for it and the decorator compiles it when it is first called, which "
            f'ARRAY_VECTORIZE_NO_COMPILE=1 forbids: take "{original.__module__}:{original.__qualname__}" out of '
            "`runtime` (the build then precompiles it, or says why it cannot), or unset ARRAY_VECTORIZE_NO_COMPILE"
        )
    return CompileDisabledError(
        f"{name} would be compiled, but ARRAY_VECTORIZE_NO_COMPILE=1 forbids compiling: precompile it "
        "(array_vectorize.build) or unset ARRAY_VECTORIZE_NO_COMPILE"
    )


class NotBoundYet(Exception):
    """The live function reads names that are not bound yet (issue 31): `names`."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(", ".join(names))
        self.names = names


def compile_live(original: FunctionType, options: dict, *, defer_unbound: bool = False) -> tuple[CompiledFunction, dict]:
    """Compiles the live function with the Rust core; returns (result, hidden values).
    `defer_unbound`: a name the function (or a helper) reads that is bound nowhere yet raises
    NotBoundYet; without it, the compiler reports it (`name ... is not defined`)."""
    from .environment import EnvBuilder, compile_name, function_source
    from .live_source import SourceChanged

    try:
        source, path, first_line = function_source(original)
    except SourceChanged as exc:
        raise _source_changed_error(original, exc) from None
    except (OSError, TypeError) as exc:
        raise VectorizationError(
            f"cannot vectorize {original.__qualname__}: its source is not available ({exc}); "
            "define it in a file rather than interactively or with exec()"
        ) from None
    builder = EnvBuilder(mark_unbound=defer_unbound)
    env = builder.env_of(original)
    name = compile_name(original)
    args = (source, path, first_line, name)
    try:
        compiled = _core.compile_function(*args, env, options)
    except _core.DeferredError as exc:
        # A live env defers only on the names EnvBuilder marked as not bound yet.
        if not builder.unbound:
            raise _core.InternalError(str(exc)) from None
        names = list(getattr(exc, "names", None) or sorted(builder.unbound))
        # Anything else wrong with the function is reported now, not at its first call: the
        # compile without those names must find nothing but them undefined.
        _compile_without_unbound(original, args, options, names)
        raise NotBoundYet(names) from None
    except VectorizationError:
        if builder.unbound:  # report the names not defined with the rest, as without marks
            _compile_without_unbound(original, args, options, [])
        raise
    _stats.bump("compiled")
    hidden = {}
    for kind, n in compiled["hidden"]:
        if kind == "scalar":  # D19: the scalar original a residue calls
            hidden[n] = emit.scalar_original(original, n, builder.hidden_values.get(n))
        elif n in builder.hidden_values:
            hidden[n] = builder.hidden_values[n]
    return compiled, hidden


def _compile_without_unbound(original: FunctionType, args: tuple, options: dict, names: list[str]) -> None:
    """Compiles `original` with the names not bound yet left out of its environment: raises its
    VectorizationError unless the only problems are those of `names` being undefined."""
    from .environment import EnvBuilder

    try:
        _core.compile_function(*args, EnvBuilder().env_of(original), options)
    except VectorizationError as err:
        undefined = {f"name `{n}` is not defined" for n in names}
        undefined |= {f"cannot call `{n}`: name is not defined" for n in names}
        if any(d["message"] not in undefined for d in err.diagnostics):
            raise


def _source_changed_error(original: FunctionType, exc: Exception) -> Exception:
    """The refusal of a function whose file no longer holds the code that runs (issue 28 item
    2), positioned at the line its code starts at."""
    code = original.__code__
    path, line = code.co_filename, code.co_firstlineno
    message = str(exc).split(": ", 1)[-1]
    error = VectorizationError(f"cannot vectorize: 1 problem\n{path}:{line}:1: {message}")
    error.diagnostics = [
        {"code": "source-changed", "message": message, "path": path, "line": line, "col": 1,
         "end_line": line, "end_col": 2, "text": f"{path}:{line}:1: {message}"}
    ]
    return error


def _wrapped_function(wrapper: FunctionType) -> FunctionType:
    """The innermost Python function behind a chain of ``__wrapped__`` (the wrapper itself when
    the chain ends elsewhere)."""
    inner, seen = wrapper, {id(wrapper)}
    while isinstance(getattr(inner, "__wrapped__", None), FunctionType) and id(inner.__wrapped__) not in seen:
        inner = inner.__wrapped__
        seen.add(id(inner))
    return inner


def _wrapper_error(wrapper: FunctionType, inner: FunctionType) -> Exception:
    """The refusal of a function that another decorator wrapped before ``@vectorize``: compiling
    the function inside would drop what the wrapper does (D10), and the wrapper's code is not the
    function's. Positioned at the wrapped function's ``def``."""
    import linecache

    code, wcode = inner.__code__, wrapper.__code__
    path, line, col, text = code.co_filename, code.co_firstlineno, 1, ""
    lines = linecache.getlines(path, inner.__globals__)
    for number in range(line, min(len(lines), line + 200) + 1):  # past the decorators
        stripped = lines[number - 1].lstrip()
        if stripped.startswith(("def ", "async def ")):
            line, text = number, lines[number - 1].rstrip("\n")
            col = len(text) - len(stripped.rstrip("\n")) + 1
            break
    wname = getattr(wcode, "co_qualname", wcode.co_name)
    message = (
        f"`{inner.__name__}` reaches @vectorize wrapped by `{wname}` ({wcode.co_filename}:{wcode.co_firstlineno}), "
        "which functools.wraps made look like it: vectorizing the function inside would drop what the "
        "wrapper does. Put @vectorize directly on the def, under the other decorator, or pass "
        "fallback=True to call the wrapper element by element"
    )
    rendered = f"{path}:{line}:{col}: {message}"
    if text:
        rendered += f"\n    {text}\n    {' ' * (col - 1)}^"
    error = VectorizationError(f"cannot vectorize: 1 problem\n{rendered}")
    error.diagnostics = [
        {"code": "wrapped-function", "message": message, "path": path, "line": line, "col": col,
         "end_line": line, "end_col": col + 1, "text": rendered}
    ]
    return error


def _element_loop(
    original: FunctionType, namespace: Any, signature: FunctionType | None = None, into: dict | None = None
) -> FunctionType:
    """fallback=True for a function that cannot be compiled at all: one element loop (D7).

    ``signature``: the function whose parameters the loop declares (the wrapped function, for a
    ``functools.wraps`` wrapper taking ``*args``); ``original`` is what each element calls.
    """
    shape = signature or original
    code = shape.__code__
    n_pos = code.co_argcount
    names = list(code.co_varnames[: n_pos + code.co_kwonlyargcount])
    kwnames = names[n_pos:]
    entry = shape.__name__ if shape.__name__.isidentifier() else "_lambda"
    source = _core.element_loop(entry, names[:n_pos], code.co_posonlyargcount, kwnames)

    def call_original(*values: Any) -> Any:
        return original(*values[:n_pos], **dict(zip(kwnames, values[n_pos:])))

    from .environment import function_source

    try:
        scalar_source = function_source(shape)[0]
    except OSError:
        scalar_source = None
    vec = emit.materialize(
        original,
        source,
        entry,
        hidden={"_vec_original": call_original},
        namespace=namespace,
        scalar_source=scalar_source,
        into=into,
    )
    vec.__defaults__, vec.__kwdefaults__ = shape.__defaults__, shape.__kwdefaults__
    return vec
