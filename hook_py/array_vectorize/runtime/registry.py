"""The seam between code generation and the runtime helpers.

Generated code reaches the helpers only as globals named here; codegen refers to them by the
stable keys of ``RUNTIME_HELPERS`` and emit builds the globals with ``helper_globals``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from .args import (
    _vec_exact_args,
    _vec_f64,
    _vec_float_args,
    _vec_float_args_blocked,
    make_exact_args,
    make_float_args,
)
from .arith import _vec_binary, _vec_unary
from .blocked import Dispatch
from .elementwise import _vec_elementwise
from .select import _vec_broadcast, _vec_minmax, _vec_pick, _vec_select

#: stable key -> (global name in generated code, callable)
RUNTIME_HELPERS: dict[str, tuple[str, Callable[..., Any]]] = {
    "float_args": ("_vec_float_args", _vec_float_args),
    "exact_args": ("_vec_exact_args", _vec_exact_args),
    "binary": ("_vec_binary", _vec_binary),
    "unary": ("_vec_unary", _vec_unary),
    "select": ("_vec_select", _vec_select),
    "broadcast": ("_vec_broadcast", _vec_broadcast),
    "elementwise": ("_vec_elementwise", _vec_elementwise),
    "f64": ("_vec_f64", _vec_f64),
    "pick": ("_vec_pick", _vec_pick),
    "minmax": ("_vec_minmax", _vec_minmax),
}

#: For emit.py: the exact-body slot of a function that may be evaluated in blocks, and the float
#: prologue that sends large NumPy inputs there (runtime/blocked.py).
BLOCKED_DISPATCH = Dispatch
BLOCKED_FLOAT_ARGS = _vec_float_args_blocked

_DEFAULT_GLOBALS: dict[str, Any] = {name: fn for name, fn in RUNTIME_HELPERS.values()}
_PINNED_GLOBALS: dict[int, tuple[Any, dict[str, Any]]] = {}


def helper_globals(namespace: Any = None, blocked: bool = False) -> dict[str, Any]:
    """A fresh globals dict for generated code: every helper under its emitted name.

    With ``namespace`` the argument prologues use that namespace instead of detecting one from the
    arguments. ``blocked`` (only without ``namespace``): the float prologue sends large NumPy
    inputs to the blocked evaluation (runtime/blocked.py; emit.py puts its ``Dispatch`` in the
    exact body's slot). The dicts are built once (per namespace) and copied, so callers may add
    to the result (``exec`` does).
    """
    if namespace is None:
        glob = dict(_DEFAULT_GLOBALS)
        if blocked:
            glob["_vec_float_args"] = _vec_float_args_blocked
        return glob
    entry = _PINNED_GLOBALS.get(id(namespace))
    if entry is None or entry[0] is not namespace:
        pinned = dict(_DEFAULT_GLOBALS)
        pinned["_vec_float_args"] = make_float_args(namespace)
        pinned["_vec_exact_args"] = make_exact_args(namespace)
        # The entry keeps ``namespace`` alive, so its id cannot be reused by another object.
        entry = _PINNED_GLOBALS[id(namespace)] = (namespace, pinned)
    return dict(entry[1])
