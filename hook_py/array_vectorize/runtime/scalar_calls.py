"""Calls run element by element in Python, on the lanes that reach them only (D19, D23).

``_vec_residue(xp, fn, lanes, *args)`` is what generated code calls where a recursive function
recurses past the depth the compiler inlined: ``fn`` is its scalar original (D19, the
*residue*); ``_vec_call_site(xp, fn, lanes, *args)`` where a call cannot be vectorized (another
library's function, a helper the compiler rejects) under ``fallback="calls"`` (D23): ``fn`` is
the callable, or a lambda of the call as written. Both are one function, ``_scalar_call``. ``lanes`` is a bool array (or a Python
bool) of the lanes that reach the call, as CPython's element loop reaches it; ``fn`` is called
once per such lane, in C order, with that lane's values as Python numbers (bool, int, float:
what CPython has there) and the uniform arguments (D14) as they are. It returns
``(values, raised)``:

* ``values``: an array of the broadcast shape of ``lanes`` and the array arguments holding each
  reached lane's result: every result a bool gives a bool array; ints and bools int64 (an int
  beyond int64 wraps modulo 2**64, docs/semantics.md item 6); any float float64 (ints and bools
  converted with ``float()``, item 8); the lanes not reached hold ``False`` (bool is the bottom
  of bool < int64 < float64: merged with them, the other side's dtype wins), and no reached
  lane at all gives an all-``False`` bool array. A result that is no number (None, a tuple, a
  string) is a ``TypeError`` naming the callee;
* ``raised``: a bool array of the lanes where ``fn`` raised. Such a lane ends there (D11): the
  generated code gives it a raise code, and if it is the first raising lane in C order, its
  exception is built again by calling ``fn`` on that lane's values (``_vec_rerun``), as a
  ``raise`` builds its message from the lane's values. The callee must be pure (D8, and D23's
  contract): called again on the same values it raises the same exception.

Lazy namespaces (Dask): the lanes and the array arguments are computed together, once per call
site and call (one ``dask.compute``); ``fn`` runs on the reached lanes and both results enter
the graph as arrays chunked like the lanes. Traced arrays (``jax.jit``): which lanes reach the
call is unknown while tracing, so a ``TypeError`` says so (a recursion the compiler proves
bounded has no residue, and traces).

``COUNTS`` holds how many elements each kind of call ran (``array_vectorize.stats()`` adds it).
"""

from __future__ import annotations

import numbers
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from . import compat
from .dtype import INT64_MAX, INT64_MIN, UINT64_MAX, _NAMESPACES, LatticeInt, namespace_info, settle
from .elementwise import _python_values
from .select import broadcast_shape

#: Elements finished by the scalar residue of a recursion (D19), and elements run by element-wise
#: call sites (D23), since process start.
COUNTS = {"residue_elements": 0, "call_site_elements": 0}



def _vec_residue(xp: Any, fn: Callable[..., Any], lanes: Any, *args: Any) -> tuple[Any, Any]:
    """D19: the scalar original ``fn`` of a recursive function on the lanes of ``lanes``."""
    return _scalar_call("residue_elements", xp, fn, lanes, args)


def _vec_call_site(xp: Any, fn: Callable[..., Any], lanes: Any, *args: Any) -> tuple[Any, Any]:
    """D23: a call that cannot be vectorized, ``fn``, on the lanes of ``lanes``."""
    return _scalar_call("call_site_elements", xp, fn, lanes, args)


def _scalar_call(counter: str, xp: Any, fn: Callable[..., Any], lanes: Any, args: tuple) -> tuple[Any, Any]:
    """``fn`` on the lanes of ``lanes``, once per lane in C order (module docstring)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    settle(args)
    # A LatticeInt takes two columns, its bits and its signs, merged into Python ints below.
    signs = {i: a.neg for i, a in enumerate(args) if type(a) is LatticeInt}
    args = tuple(a.bits if i in signs else a for i, a in enumerate(args))
    positions = [i for i, a in enumerate(args) if hasattr(a, "shape")]
    if not hasattr(lanes, "shape"):
        lanes = xp.asarray(bool(lanes), dtype=info.bool)
    arrays = [lanes] + [args[i] for i in positions] + list(signs.values())
    da = _dask(arrays)
    chunks = None
    if da is not None:
        arrays, chunks = _computed(da, arrays)
        xp = compat.array_namespace(*arrays)
        info = namespace_info(xp)
    else:
        _check_concrete(fn, xp, lanes)
    shape = broadcast_shape([a.shape for a in arrays])
    flat = [xp.reshape(xp.broadcast_to(a, shape), (-1,)) for a in arrays]
    numpy = sys.modules.get("numpy") if compat.is_numpy_namespace(xp) else None
    if numpy is not None:
        index = numpy.flatnonzero(flat[0])
        reached = index.tolist()
        columns = [c[index].tolist() for c in flat[1:]]
    else:
        mask = _python_values(xp, info, flat[0])
        reached = [i for i, m in enumerate(mask) if m]
        columns = [[v for v, m in zip(_python_values(xp, info, c), mask) if m] for c in flat[1:]]
    for k, i in enumerate(signs):
        at = positions.index(i)
        negative = columns[len(positions) + k]
        columns[at] = [v - (1 << 64) if n else v for v, n in zip(columns[at], negative)]
    columns = columns[: len(positions)]
    call_args = list(args)
    results: list[Any] = []
    done: list[int] = []
    raised: list[int] = []
    for row, lane in enumerate(reached):
        for column, position in zip(columns, positions):
            call_args[position] = column[row]
        try:
            value = fn(*call_args)
        except Exception:  # noqa: BLE001 - the lane raises (D11); _vec_rerun builds it again
            raised.append(lane)
            continue
        results.append(value)
        done.append(lane)
    COUNTS[counter] += len(reached)
    n = flat[0].shape[0]
    values = _scatter(xp, info, numpy, _column(fn, results), done, n, shape)
    flags = _scatter(xp, info, numpy, ("b", [True] * len(raised)), raised, n, shape)
    if da is not None:
        return da.from_array(values, chunks=chunks), da.from_array(flags, chunks=chunks)
    return values, flags


def _vec_rerun(fn: Callable[..., Any], *values: Any) -> BaseException:
    """The exception ``fn`` raises on one lane's ``values``: for the first raising lane in C
    order (D11), what ``_scalar_call`` saw raise there, built again."""
    try:
        fn(*values)
    except Exception as exc:  # noqa: BLE001 - the lane's exception is the result
        return exc
    raise RuntimeError(
        f"array-vectorize: {_name(fn)} raised on an element and returned when called again on the same "
        f"values {values!r}: calls run element by element (D19, D23) must be pure (D8)"
    )


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _column(fn: Any, results: list[Any]) -> tuple[str, list[Any]]:
    """The reached lanes' results as one kind (``b``, ``i`` or ``f``) of Python numbers."""
    kind = "b"
    for r in results:
        if type(r) is bool:
            continue
        if type(r) is float:
            kind = "f"
            continue
        if type(r) is int:
            kind = "f" if kind == "f" else "i"
            continue
        r = _number(fn, r)
        if isinstance(r, bool):
            continue
        kind = "f" if isinstance(r, float) or kind == "f" else "i"
    if kind == "b":
        return kind, [bool(r) for r in results]
    if kind == "i":
        return kind, [_wrap(int(_number(fn, r))) for r in results]
    return kind, [float(_number(fn, r)) for r in results]


def _number(fn: Any, r: Any) -> Any:
    """``r`` as a Python bool, int or float: a 0-d array or NumPy scalar of a real dtype (a
    vectorized function's result) converted; a ``TypeError`` for anything else."""
    if isinstance(r, (bool, int, float)):
        return r
    dt = getattr(r, "dtype", None)
    if dt is not None and getattr(r, "shape", None) == ():
        kind = getattr(dt, "kind", None)
        if kind == "b":
            return bool(r)
        if kind in ("i", "u"):
            return int(r)
        if kind == "f":
            return float(r)
    elif isinstance(r, numbers.Integral):
        return int(r)
    elif isinstance(r, numbers.Real):
        return float(r)
    raise TypeError(
        f"array-vectorize: {_name(fn)} returned a {type(r).__name__} ({r!r}) on an element, where the "
        "vectorized function needs a number (bool, int or float)"
    )


def _scatter(xp: Any, info: Any, numpy: Any, column: tuple[str, list[Any]], lanes: list[int], n: int, shape: tuple) -> Any:
    """An array of ``shape`` holding ``column``'s values at the flat ``lanes``, ``False`` (0)
    elsewhere; all-``False`` bool when ``lanes`` is empty."""
    kind, values = column
    if not lanes:
        return xp.zeros(shape, dtype=info.bool)
    dtype = {"b": info.bool, "i": info.int64, "f": info.float64}[kind]
    if numpy is not None:
        out = numpy.zeros(n, dtype=dtype)
        out[lanes] = values
        return out.reshape(shape)
    full: list[Any] = [False if kind == "b" else 0] * n
    for lane, v in zip(lanes, values):
        full[lane] = v
    return xp.reshape(xp.asarray(full, dtype=dtype), shape)


def _wrap(v: int) -> int:
    """An int as int64 holds it: modulo 2**64 (docs/semantics.md item 6)."""
    if INT64_MIN <= v <= INT64_MAX:
        return v
    v &= UINT64_MAX
    return v - (1 << 64) if v > INT64_MAX else v


def _check_concrete(fn: Any, xp: Any, lanes: Any) -> None:
    """A ``TypeError`` naming the call when the lanes are traced (``jax.jit``): which of them
    reach it is unknown."""
    if not type(lanes).__module__.startswith("jax"):
        return
    try:
        bool(xp.any(lanes))
    except Exception as exc:  # a tracer has no concrete truth value
        raise TypeError(
            f"array-vectorize: {_name(fn)} runs element by element on the elements that reach it (the scalar "
            "residue of a recursion deeper than the compiler inlined, D19, or a call under fallback=\"calls\", D23), "
            "and which elements those are needs their values, but the arrays are traced (e.g. under jax.jit). "
            "Call the vectorized function outside the trace (docs/semantics.md, element-wise calls)"
        ) from exc


def _dask(arrays: list) -> Any:
    """The ``dask.array`` module when some array is a Dask array, else None."""
    for a in arrays:
        if type(a).__module__.startswith("dask"):
            return sys.modules.get("dask.array")
    return None


def _computed(da: Any, arrays: list) -> tuple[list, Any]:
    """The arrays computed together (one evaluation of their graph) and the chunks of their
    broadcast, which the results take."""
    dask = sys.modules["dask"]  # loaded with dask.array
    lazy = [a if type(a).__module__.startswith("dask") else da.asarray(a) for a in arrays]
    chunks = da.broadcast_arrays(*lazy)[0].chunks
    return list(dask.compute(*lazy)), chunks
