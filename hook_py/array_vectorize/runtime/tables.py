"""``_vec_take``: a constant table indexed per lane (D15).

``_vec_take(xp, table, index, what)`` is ``table[index]`` for every lane of the integer array
``index``, with CPython's meaning: a negative index counts from the end, and an index outside
``[-len, len)`` raises ``IndexError(f"{what} index out of range")`` (``what`` is ``tuple`` or
``list``), the message CPython's element loop raises first (or, for an index beyond 64-bit
signed range, CPython's ``cannot fit 'int' into an index-sized integer``). The exception carries a note naming
the first offending lane in C order and its index. A float index raises CPython's
``TypeError``. Lowering gives lanes whose result is discarded (an untaken branch) the index 0,
so only lanes the scalar function would reach are checked.

The table is a tuple of Python numbers already in one kind (lowering printed them so): bools
give a bool array, floats a float64 array, ints an int64 array (uint64 when an item is at least
2**63; lowering refuses tables that need both).

``_vec_lookup(xp, keys, values, key)`` is ``{keys[0]: values[0], ...}[key]`` per lane for a
constant dict with number keys: a lane's key matches a dict key when CPython's ``==`` says so
(exactly, across bool, int and float: the dict's hash agrees with ``==`` on numbers; a NaN key
matches nothing, as no NaN of an argument is the dict's object). A lane whose key is missing
raises ``KeyError(key)`` with the key as the Python number CPython's element loop would see
(the first such lane in C order; a note names it). Lowering gives lanes that do not reach the
subscript the first key, so only lanes the scalar function would reach are checked.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .arith import _vec_binary
from .blocked import lane_position
from .dtype import _NAMESPACES, INT64_MAX, LatticeInt, namespace_info


def _table_array(xp: Any, info: Any, table: tuple) -> Any:
    first = table[0]
    if type(first) is bool:
        dtype = info.bool
    elif type(first) is float:
        dtype = info.float64
    elif max(table) > INT64_MAX:
        dtype = info.uint64
    else:
        dtype = info.int64
    return xp.asarray(table, dtype=dtype)


def _out_of_range(xp: Any, index: Any, bad: Any, what: str, offset: int = 0) -> IndexError:
    """CPython's IndexError, with a note naming the first bad lane (C order) and its index."""
    flat_bad = xp.reshape(bad, (-1,))
    first = int(xp.argmax(xp.astype(flat_bad, xp.int8)))
    value = int(xp.reshape(index, (-1,))[first]) + offset
    if -(1 << 63) <= value < (1 << 63):
        err = IndexError(f"{what} index out of range")
    else:
        err = IndexError("cannot fit 'int' into an index-sized integer")
    lane = lane_position(first, tuple(bad.shape))[0]  # in a block: its place in the whole call
    err.add_note(f"array-vectorize: first out-of-range lane is element {lane} (C order), index {value}")
    return err


def _vec_take(xp: Any, table: tuple, index: Any, what: str) -> Any:
    """``table[index]`` per lane with Python's negative indices and IndexError (module docstring)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    n = len(table)
    if isinstance(index, LatticeInt):
        # Its negative lanes are below -2**63 + 2**64 >= any length: out of range, or its
        # non-negative lanes are uint64.
        if bool(xp.any(index.neg)):
            raise _out_of_range(xp, index.bits, index.neg, what, offset=-(1 << 64))
        index = index.bits
    if type(index) in (int, bool):
        index = xp.asarray(int(index), dtype=info.int64)
    kind = info.kind(index)
    if kind in ("f", "F"):
        raise TypeError(f"{what} indices must be integers or slices, not float")
    if kind == "b":
        index = xp.astype(index, info.int64)
    if kind == "u":
        bad = index >= n
    else:
        bad = (index < -n) | (index >= n)
    if bool(xp.any(bad)):
        raise _out_of_range(xp, index, bad, what)
    if kind == "u":
        index = xp.astype(index, info.int64)
    pos = xp.where(index < 0, index + n, index)
    taken = xp.take(_table_array(xp, info, table), xp.reshape(pos, (-1,)), axis=0)
    return xp.reshape(taken, index.shape)


def _lane_value(xp: Any, info: Any, key: Any, lane: int) -> Any:
    """The Python number lane ``lane`` (C order) of ``key`` holds, as CPython's loop sees it."""
    if isinstance(key, LatticeInt):
        bits = int(xp.reshape(key.bits, (-1,))[lane])
        negative = bool(xp.reshape(key.neg, (-1,))[lane])
        return bits - (1 << 64) if negative else bits
    kind = info.kind(key)
    item = xp.reshape(key, (-1,))[lane]
    if kind == "b":
        return bool(item)
    if kind == "f":
        return float(item)
    return int(item)


def _vec_lookup(xp: Any, keys: tuple, values: tuple, key: Any) -> Any:
    """``dict(zip(keys, values))[key]`` per lane, with CPython's KeyError (module docstring)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    if type(key) in (int, bool, float):
        return dict(zip(keys, values))[key]
    shape = key.bits.shape if isinstance(key, LatticeInt) else key.shape
    pos = xp.asarray(0, dtype=info.int64)
    found = xp.asarray(False)
    for j, k in enumerate(keys):
        eq = xp.reshape(_vec_binary(xp, "eq", key, k), (-1,))
        pos = xp.where(eq, xp.asarray(j, dtype=info.int64), pos)
        found = found | eq
    missing = ~found
    if bool(xp.any(missing)):
        lane = int(xp.argmax(xp.astype(missing, xp.int8)))
        value = _lane_value(xp, info, key, lane)
        err = KeyError(value)
        lane = lane_position(lane, tuple(shape))[0]  # in a block: its place in the whole call
        err.add_note(f"array-vectorize: first missing key is element {lane} (C order)")
        raise err
    pos = xp.broadcast_to(pos, found.shape)
    taken = xp.take(_table_array(xp, info, values), pos, axis=0)
    return xp.reshape(taken, shape)
