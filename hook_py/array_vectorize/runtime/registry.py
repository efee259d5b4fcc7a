"""The seam between code generation and the runtime helpers.

Which helpers generated code calls, under which global names, is the core's contract
(``_core.RUNTIME_HELPERS``, defined once in src/codegen/runtime.rs). This module binds each of
its names to the function of that name here, and emit builds the globals of generated code with
``helper_globals``. (The compiled core is the one module outside ``runtime/`` that the runtime
reads: it has no Python dependencies.)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from .. import _core
from .args import (
    _vec_bool0d,
    _vec_exact_args,
    _vec_f64,
    _vec_float_args,
    _vec_float_args_blocked,
    _vec_int_args,
    _vec_mixed_args,
    _vec_owned,
    make_exact_args,
    make_float_args,
    make_int_args,
    make_mixed_args,
    specializing_prologue,
)
from .arith import _vec_binary, _vec_result, _vec_unary
from . import blocked, horner, loops, trig
from .blocked import Dispatch
from .elementwise import _vec_elementwise
from .horner import _vec_horner
from .loops import _vec_any, _vec_ifexp, _vec_lanes, _vec_pack, _vec_unpack, _vec_while
from .raises import _vec_int_overflow, _vec_raise_uniform, _vec_raised_to_nan, _vec_raises, _vec_unbound
from .scalar_calls import _vec_call_site, _vec_rerun, _vec_residue
from .select import _vec_broadcast, _vec_clip, _vec_pick, _vec_select
from .special import SPECIAL_HELPERS
from .tables import _vec_lookup, _vec_take, _vec_take_param
from .trig import _vec_sincos
from .uniform import _vec_element_type, _vec_loop_args, _vec_sequence_given, _vec_uniform, _vec_unpack_given

_IMPLEMENTATIONS = (
    _vec_float_args, _vec_exact_args, _vec_int_args, _vec_mixed_args, _vec_binary, _vec_unary, _vec_select, _vec_broadcast, _vec_elementwise, _vec_result,
    _vec_take, _vec_take_param, _vec_lookup, _vec_pick, _vec_clip, _vec_horner, _vec_f64, _vec_bool0d, _vec_owned, *(fn for _, fn in SPECIAL_HELPERS.values()), _vec_any,
    _vec_while, _vec_ifexp, _vec_lanes, _vec_pack, _vec_unpack, _vec_sincos,
    _vec_raises, _vec_raise_uniform, _vec_raised_to_nan, _vec_unbound, _vec_int_overflow, _vec_uniform, _vec_unpack_given, _vec_sequence_given,
    _vec_element_type, _vec_loop_args,
    _vec_residue, _vec_call_site, _vec_rerun,
)


loops.TRACED_LOOP_ERROR = _core.VectorizationError
horner._kernel = _core.horner_f64
trig.NATIVE = _core.sin_cos_at


def _bind(contract: dict[str, dict[str, Any]], functions: tuple[Callable[..., Any], ...]) -> dict[str, tuple[str, Callable[..., Any]]]:
    """``key -> (name, function)`` for every helper of ``contract``, each function found by name."""
    by_name = {fn.__name__: fn for fn in functions}
    missing = sorted(h["name"] for h in contract.values() if h["name"] not in by_name)
    if missing:
        raise ImportError(f"array-vectorize runtime: no implementation of {', '.join(missing)} (a core/runtime mismatch)")
    return {key: (h["name"], by_name[h["name"]]) for key, h in contract.items()}


#: stable key -> (global name in generated code, callable)
RUNTIME_HELPERS: dict[str, tuple[str, Callable[..., Any]]] = _bind(_core.RUNTIME_HELPERS, _IMPLEMENTATIONS)

_FLOAT_ARGS = RUNTIME_HELPERS["float_args"][0]
blocked.LOOP_DRIVER = RUNTIME_HELPERS["while"][0]
_EXACT_ARGS = RUNTIME_HELPERS["exact_args"][0]
_INT_ARGS = RUNTIME_HELPERS["int_args"][0]
_MIXED_ARGS = RUNTIME_HELPERS["mixed_args"][0]

#: For emit.py: the exact-body slot of a function that may be evaluated in blocks, and the float
#: prologue that sends large NumPy inputs there (runtime/blocked.py).
BLOCKED_DISPATCH = Dispatch
BLOCKED_FLOAT_ARGS = _vec_float_args_blocked
#: For emit.py: a generated function's own float prologue (made from the shared one it is given).
SPECIALIZING_PROLOGUE = specializing_prologue

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
            glob[_FLOAT_ARGS] = _vec_float_args_blocked
        return glob
    entry = _PINNED_GLOBALS.get(id(namespace))
    if entry is None or entry[0] is not namespace:
        pinned = dict(_DEFAULT_GLOBALS)
        pinned[_FLOAT_ARGS] = make_float_args(namespace)
        pinned[_EXACT_ARGS] = make_exact_args(namespace)
        pinned[_INT_ARGS] = make_int_args(namespace)
        pinned[_MIXED_ARGS] = make_mixed_args(namespace)
        # The entry keeps ``namespace`` alive, so its id cannot be reused by another object.
        entry = _PINNED_GLOBALS[id(namespace)] = (namespace, pinned)
    return dict(entry[1])
