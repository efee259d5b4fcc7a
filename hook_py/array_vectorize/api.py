"""The ``vectorize`` decorator: option handling, precompiled lookup, live compilation, the
fallback decision and the canonical cache (reference architecture, api.py)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

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
    fallback: bool = False,
    verify: Any = None,
) -> Any:
    """Compile a scalar function into whole-array Array API code.

    Usable as ``@vectorize`` and ``@vectorize(...)``. Raises ``VectorizationError`` at decoration
    time, listing every construct that cannot be translated exactly (D10).

    protect_domains: give partial functions safe operands on lanes whose result is discarded (D1).
    namespace: pin the Array API namespace instead of taking it from the arguments.
    fallback: call what cannot be vectorized element by element instead of rejecting it.
    verify: example arguments; the result is checked against the scalar original at decoration.
    """
    if fn is None:

        def decorator(fn: Callable) -> Any:
            return vectorize(fn, protect_domains=protect_domains, namespace=namespace, fallback=fallback, verify=verify)

        return decorator
    original = getattr(fn, "_vectorized_original", fn)
    if not isinstance(original, FunctionType):
        raise TypeError(f"vectorize expects a Python function, got {type(fn).__name__}")
    canonical = not protect_domains and namespace is None and not fallback
    if canonical:
        # The canonical compilation is memoized on the original itself. The identity check
        # skips one that functools.wraps copied onto another function with the __dict__.
        cached = original.__dict__.get("__array_vectorized__")
        if cached is not None and getattr(cached, "_vectorized_original", None) is original:
            if verify is not None:
                _verify(cached, original, verify)
            return cached

    vec = _build(original, {"protect_domains": bool(protect_domains), "fallback": bool(fallback)}, namespace)
    decorated_modules.add(original.__module__)
    if verify is not None:
        _verify(vec, original, verify)
    if canonical:
        original.__array_vectorized__ = vec
    return vec


def _verify(vec: FunctionType, original: FunctionType, examples: Any) -> None:
    from .verify import verify_against_original

    verify_against_original(vec, original, examples)


def _build(original: FunctionType, options: dict, namespace: Any) -> FunctionType:
    entry = precompiled.lookup(original, options)
    if entry is not None:
        if entry["origin"] == "hook":
            _stats.bump("disk_cache_hits")
            return emit.from_cache(original, entry, namespace)
        _stats.bump("precompiled_hits")
        return emit.materialize(
            original,
            entry["source"],
            entry["entry"],
            namespace=namespace,
            code=entry.get("code"),
            doc=entry.get("doc"),
            scalar_source=entry.get("scalar_source"),
        )
    if compile_disabled():
        raise CompileDisabledError(
            f"{original.__module__}.{original.__qualname__} would be compiled, but ARRAY_VECTORIZE_NO_COMPILE=1 "
            "forbids compiling: precompile it (array_vectorize.build) or unset ARRAY_VECTORIZE_NO_COMPILE"
        )
    try:
        compiled, hidden = compile_live(original, options)
    except VectorizationError:
        code = original.__code__
        if not options["fallback"] or not (code.co_argcount or code.co_kwonlyargcount):
            raise  # nothing to loop over without parameters
        return _element_loop(original, namespace)
    return emit.materialize(
        original,
        compiled["source"],
        compiled["entry"],
        hidden=hidden,
        namespace=namespace,
        scalar_source=compiled["scalar_source"],
    )


def compile_live(original: FunctionType, options: dict) -> tuple[dict, dict]:
    """Compiles the live function with the Rust core; returns (result, hidden values)."""
    from .environment import EnvBuilder, function_source

    try:
        source, path, first_line = function_source(original)
    except (OSError, TypeError) as exc:
        raise VectorizationError(
            f"cannot vectorize {original.__qualname__}: its source is not available ({exc}); "
            "define it in a file rather than interactively or with exec()"
        ) from None
    builder = EnvBuilder()
    env = builder.env_of(original)
    name = original.__name__ if original.__name__ != "<lambda>" else "<lambda>"
    try:
        compiled = _core.compile_function(source, path, first_line, name, env, options)
    except _core.DeferredError as exc:  # only static compiles defer; a live env never should
        raise _core.InternalError(str(exc)) from None
    _stats.bump("compiled")
    hidden = {n: builder.hidden_values[n] for _, n in compiled["hidden"] if n in builder.hidden_values}
    return compiled, hidden


def _element_loop(original: FunctionType, namespace: Any) -> FunctionType:
    """fallback=True for a function that cannot be compiled at all: one element loop (D7)."""
    code = original.__code__
    n_pos = code.co_argcount
    names = list(code.co_varnames[: n_pos + code.co_kwonlyargcount])
    kwnames = names[n_pos:]
    entry = original.__name__ if original.__name__.isidentifier() else "_lambda"
    source = _core.element_loop(entry, names[:n_pos], code.co_posonlyargcount, kwnames)

    def call_original(*values: Any) -> Any:
        return original(*values[:n_pos], **dict(zip(kwnames, values[n_pos:])))

    from .environment import function_source

    try:
        scalar_source = function_source(original)[0]
    except OSError:
        scalar_source = None
    return emit.materialize(
        original, source, entry, hidden={"_vec_original": call_original}, namespace=namespace, scalar_source=scalar_source
    )
