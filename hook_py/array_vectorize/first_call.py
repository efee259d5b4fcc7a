"""Functions compiled at their first call (issue 31).

CPython resolves a function's globals when it runs, so a module may decorate a function that
calls a helper defined further down, or a method that names its own class, whose body is still
running. Neither name is bound when ``@vectorize`` runs, so the function can be neither compiled
nor have its precompiled code's assumptions checked (DESIGN.md section 4) then. Decoration does
not fail for that: it returns a *stand-in* that does both at the first call, and then becomes
the vectorized function.

The stand-in is the final function object from the start (references taken before the first
call stay valid): a function declaring the original's parameters (``_core.first_call_stub``,
so its signature, name, qualname, module and defaults are the original's), whose body hands
them to ``_vec_first_call``. That call makes the vectorized function *in the stand-in's own
globals dict* (``emit.materialize(into=...)``), from the precompiled entry if its assumptions
now hold, else by compiling the live function, and gives the stand-in its code
(``__code__``), its ``source`` and its docstring. Until then ``.source`` and
``inspect.getsource`` show the stand-in, whose docstring says why it waits.

The same rule holds on all three ways in: the decorator alone, the import hook and a wheel
(their entries are checked at the first call, and served when they hold, so
``ARRAY_VECTORIZE_NO_COMPILE=1`` finds them). A name still unbound at the first call is the
compiler's error then (``VectorizationError``: ``name ... is not defined``), as CPython raises
``NameError`` at a call, and the next call tries again.
"""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from .records import Found

from . import _core, _stats, emit
from ._types import FunctionType

#: The global the stand-in calls (src/codegen/first_call.rs FIRST_CALL).
_FIRST_CALL = "_vec_first_call"


def resolve(vec: FunctionType) -> None:
    """Makes `vec` final now if it is a stand-in (what its first call does first): compiles it,
    or checks and uses its precompiled entry; raises what that first call would."""
    first_call = vec.__globals__.get(_FIRST_CALL)
    if first_call is not None:
        first_call.resolve()


def stand_in(
    original: FunctionType,
    make: Callable[[dict], FunctionType],
    found: Found | None,
    *,
    unbound: list[str] = (),
    listed: bool = False,
) -> FunctionType:
    """The stand-in for `original`, whose names `unbound` are not bound yet, or which its
    package's build left to run time (`listed`: under ARRAY_VECTORIZE_NO_COMPILE=1, the first
    call raises CompileDisabledError, and the module imported). `make(glob)` makes the
    vectorized function in the globals dict `glob` at the first call (api.py: from `found`, the
    precompiled record, if its assumptions hold then, else by compiling). `original` takes no
    ``*args``/``**kwargs`` (api._can_wait: the compiler rejects those, at decoration)."""
    code = original.__code__
    n_pos = code.co_argcount
    names = list(code.co_varnames[: n_pos + code.co_kwonlyargcount])
    kwnames = names[n_pos:]
    entry_name = original.__name__ if original.__name__.isidentifier() else "_lambda"
    if listed:
        why = "since its package left it to run time, and ARRAY_VECTORIZE_NO_COMPILE=1 was set when it was decorated"
    else:
        shown = ", ".join(f"`{n}`" for n in unbound)
        why = f"since {shown} {'was' if len(unbound) == 1 else 'were'} not bound when it was decorated"
    note = f"Not compiled yet: array-vectorize compiles {original.__qualname__} at its first call, {why}."
    text = _core.first_call_stub(entry_name, names[:n_pos], code.co_posonlyargcount, kwnames, note)
    filename = emit.code_filename(original.__qualname__ + " (first call)", text)
    emit.register_source(filename, text)
    glob: dict[str, Any] = {"__name__": original.__module__}
    exec(compile(text, filename, "exec", dont_inherit=True), glob)  # noqa: S102 - defines one function
    vec = glob.pop(entry_name)
    stub_code = vec.__code__
    lock = threading.Lock()

    def resolve() -> None:
        with lock:
            if vec.__code__ is stub_code:
                final = make(glob)
                vec.__code__ = final.__code__
                vec.__doc__ = final.__doc__
                vec.__dict__["source"] = final.__dict__["source"]

    def first_call(*values: Any) -> Any:
        resolve()
        return vec(*values[:n_pos], **dict(zip(kwnames, values[n_pos:])))

    first_call.resolve = resolve  # type: ignore[attr-defined]
    glob[_FIRST_CALL] = first_call
    vec.__defaults__ = original.__defaults__
    vec.__kwdefaults__ = original.__kwdefaults__
    if original.__annotations__:
        vec.__annotations__ = dict(original.__annotations__)
    vec.__qualname__ = original.__qualname__
    entry = found[1] if found is not None else None
    if entry is not None and entry.get("doc") is not None:
        vec.__doc__ = entry["doc"]
    else:
        from .docstring import vectorized_docstring

        vec.__doc__ = vectorized_docstring(original, entry.get("scalar_source") if entry else None)
    vec.__dict__ = {"_vectorized_original": original, "source": text}
    _stats.bump("first_call")
    return vec
