"""D11's and D15's checks under a trace (``jax.jit``): decided when the compiled function runs.

Whether any lane raises (a ``raise``/``assert``, D11) or indexes a table out of range or misses a
dict key (D15) needs the lanes' values, which a trace does not know. ``_any_now_or_when_run``
answers at once where the values are concrete; under a trace it answers False (the call goes on,
computing what it computes where no lane raises) and adds to the traced function a host
callback (``jax.debug.callback``, ordered) that runs with the values when the compiled function
runs: the graph computes whether any lane is bad, the first bad lane in C order and the values
the exception is built from on that lane (a few scalars reach the host, not the arrays), and
the host raises the exception CPython's element loop raises there. JAX reports it as a
``JaxRuntimeError`` (a ``RuntimeError``) whose message ends with that exception's class and
message; its note (which element) is in the traceback JAX logs (docs/semantics.md item 29).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def _any_now_or_when_run(xp: Any, bad: Any, build: Callable[..., BaseException], *values: Any) -> bool:
    """Whether any lane of the bool array ``bad`` is true, as a Python bool, where its values are
    concrete. Where they are traced (``jax.jit``): False, after adding the check to the trace,
    which raises ``build(first, shape, *lane)`` when the compiled function runs and some lane is
    bad (``first`` the first bad lane in C order of ``shape``, ``bad``'s shape; ``lane`` each of
    ``values`` on that lane as the Python scalar CPython sees, an array broadcast to ``shape``
    first; a value without a dtype, uniform, as it is)."""
    try:
        return bool(xp.any(bad))
    except Exception as exc:
        if not _is_traced(bad):
            raise
        _check_when_run(xp, bad, build, values, exc)
        return False


def _is_traced(value: Any) -> bool:
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(value, jax.core.Tracer)


def _check_when_run(xp: Any, bad: Any, build: Callable[..., BaseException], values: tuple, exc: Exception) -> None:
    jax = sys.modules["jax"]
    shape = tuple(int(n) for n in bad.shape)
    # A mask XLA knows at compile time (a raise on uniform values broadcast to the lanes) would
    # be constant-folded, its reductions evaluated by the compiler element by element (minutes
    # for 1e6 lanes): the barrier keeps them for run time, where they are one pass.
    bad = jax.lax.optimization_barrier(bad)
    flat = xp.reshape(bad, (-1,))
    first = xp.argmax(xp.astype(flat, xp.int8))
    arrays = []  # per value: its position among the callback's arrays, or None (uniform)
    gathered = []
    for v in values:
        if hasattr(v, "dtype"):
            arrays.append(len(gathered))
            gathered.append(xp.reshape(xp.broadcast_to(v, shape), (-1,))[first])
        else:
            arrays.append(None)

    def host(any_bad: Any, first: Any, *lane_arrays: Any) -> None:
        if not bool(any_bad):
            return
        lane = [v if at is None else _python_scalar(lane_arrays[at]) for v, at in zip(values, arrays)]
        raise build(int(first), shape, *lane)

    try:
        jax.debug.callback(host, xp.any(flat), first, *gathered, ordered=True)
    except Exception:  # noqa: BLE001 - no callback here (another tracer): the check's own error
        raise TypeError(
            "array-vectorize: this function checks per element whether an element raises (a "
            "`raise`, `assert`, a table index or dict key, D11, D15), which needs concrete values, "
            "and the arrays are traced by a transformation that cannot run a host callback; "
            "call it outside the trace, or decorate it with vectorize(..., nan_on_raise=True)"
        ) from exc


def _python_scalar(value: Any) -> Any:
    """A gathered lane (a NumPy 0-d array on the host) as the Python scalar CPython sees."""
    kind = value.dtype.kind
    if kind == "b":
        return bool(value)
    if kind == "f":
        return float(value)
    return int(value)
