"""``_vec_take``: a constant table indexed per lane (D15).

``_vec_take(xp, table, index, what)`` is ``table[index]`` for every lane of the integer array
``index``, with CPython's meaning: a negative index counts from the end, and an index outside
``[-len, len)`` raises ``IndexError(f"{what} index out of range")`` (``what`` is ``tuple`` or
``list``), the message CPython's element loop raises first (or, for an index beyond 64-bit
signed range, CPython's ``cannot fit 'int' into an index-sized integer``). The exception carries a note naming
the first offending lane in C order and its index. A float index raises CPython's
``TypeError``. Lowering gives lanes whose result is discarded (an untaken branch) the index 0,
so only lanes the scalar function would reach are checked. ``what`` is None where the compiler
proved every index within ``[-len, len)`` (src/analysis/ranges.rs: `month - 1` for a month in
[1, 12]): nothing is checked, so the gather needs no concrete value and runs under ``jax.jit``.
On NumPy an int64 index array is gathered by ``numpy.take``, which checks the bounds in its
loop (Python's negative indices are its own); only a failure is checked again here, for
CPython's message and the note.

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

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .arith import _vec_binary
from .blocked import lane_position
from .dtype import _NAMESPACES, INT64_MAX, LatticeInt, namespace_info
from .traced import _any_now_or_when_run


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


def _out_of_range(xp: Any, index: Any, bad: Any, what: str, at: int | None = None, shape: tuple | None = None) -> IndexError:
    """CPython's IndexError, with a note naming the first bad lane (C order) and its index
    (``index`` and ``bad`` hold that lane alone when ``at`` gives its place in ``shape``)."""
    flat_bad = xp.reshape(bad, (-1,))
    first = int(xp.argmax(xp.astype(flat_bad, xp.int8)))
    value = int(xp.reshape(index, (-1,))[first])
    if at is not None:
        first = at
    lane = lane_position(first, shape if shape is not None else tuple(bad.shape))[0]  # in a block: its place in the whole call
    return _index_error(what, lane, value)


def _index_error(what: str, lane: int, value: int) -> IndexError:
    """CPython's IndexError for ``value`` as an index, with a note naming lane ``lane``."""
    if -(1 << 63) <= value < (1 << 63):
        err = IndexError(f"{what} index out of range")
    else:
        err = IndexError("cannot fit 'int' into an index-sized integer")
    err.add_note(f"array-vectorize: first out-of-range lane is element {lane} (C order), index {value}")
    return err


#: NumPy arrays of the tables gathered from, by the identity of the table (a constant of the
#: generated code's, so its id is stable while it is kept here).
_NUMPY_TABLES: dict[int, tuple[tuple, Any]] = {}


def _numpy_take(table: tuple, index: Any) -> Any:
    """``numpy.take`` of the table at an int64 ``numpy.ndarray`` of indices: Python's negative
    indices, and an IndexError (NumPy's message) for any index outside ``[-len, len)``."""
    entry = _NUMPY_TABLES.get(id(table))
    if entry is None or entry[0] is not table:
        numpy = sys.modules["numpy"]
        if len(_NUMPY_TABLES) >= 4096:
            _NUMPY_TABLES.clear()
        entry = _NUMPY_TABLES[id(table)] = (table, _table_array(numpy, namespace_info(numpy), table))
    return entry[1].take(index)


def _vec_take(xp: Any, table: tuple, index: Any, what: str | None) -> Any:
    """``table[index]`` per lane with Python's negative indices and IndexError (module docstring).
    ``what`` None: the compiler proved every index in ``[-len, len)`` (no check, so no concrete
    value is needed: this works under tracing)."""
    nd = _ndarray()
    if type(index) is nd and index.ndim and index.dtype.char in "lq" and index.dtype.itemsize == 8:
        # NumPy checks the bounds in its loop; only a failure needs CPython's message.
        try:
            return _numpy_take(table, index)
        except IndexError:
            if what is None:
                raise
    return _take(xp, table, index, what)


def _vec_take_param(xp: Any, table: Any, index: Any) -> Any:
    """``table[index]`` per lane for a tuple or list of numbers given per call (D14, D15): its
    items converted once to one kind, as lowering prints a constant table's (any float makes
    them floats, else any int ints, else bools), then gathered as ``_vec_take`` gathers."""
    if type(table) not in (tuple, list):
        raise TypeError(
            f"array-vectorize: a parameter indexed per element must be given a tuple or a list of "
            f"numbers (D14, D15), not {type(table).__name__}"
        )
    kinds = set()
    for item in table:
        if isinstance(item, bool):
            kinds.add(bool)
        elif isinstance(item, int):
            kinds.add(int)
        elif isinstance(item, float):
            kinds.add(float)
        else:
            raise TypeError(
                f"array-vectorize: a {type(table).__name__} indexed per element must hold numbers "
                f"(bool, int, float), not {type(item).__name__} (D15)"
            )
    what = type(table).__name__
    if not table:  # every lane raises, as CPython's element loop does for any index
        return _take(xp, (0,), index, what, n=0)
    kind = float if float in kinds else int if int in kinds else bool
    items = tuple(kind(item) for item in table)
    if kind is int and min(items) < 0 and max(items) > INT64_MAX:
        raise TypeError(
            f"array-vectorize: this {what} mixes negative ints with ints of 2**63 or more, which no "
            "64-bit integer array holds (D15)"
        )
    return _take(xp, items, index, what)


def _take(xp: Any, table: tuple, index: Any, what: str | None, n: int | None = None) -> Any:
    """The gather of ``_vec_take`` on any namespace; ``n`` the table's length when not
    ``len(table)`` (an empty table: every index is out of range)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    n = len(table) if n is None else n
    if isinstance(index, LatticeInt):
        index = _lattice_index(xp, info, index, n, what)
    if type(index) in (int, bool):
        index = xp.asarray(int(index), dtype=info.int64)
    kind = info.kind(index)
    if kind in ("f", "F"):
        raise TypeError(f"{what} indices must be integers or slices, not float")
    if kind == "b":
        index = xp.astype(index, info.int64)
    if what is not None:
        bad = index >= n if kind == "u" else (index < -n) | (index >= n)
        # Under a trace (jax.jit): checked when the compiled function runs (runtime/traced.py).
        if _any_now_or_when_run(xp, bad, lambda lane, shape, value: _index_error(what, lane, value), index):
            raise _out_of_range(xp, index, bad, what)
    if kind == "u":
        index = xp.astype(index, info.int64)
    pos = xp.where(index < 0, index + n, index)
    taken = xp.take(_table_array(xp, info, table), xp.reshape(pos, (-1,)), axis=0)
    return xp.reshape(taken, index.shape)


def _lattice_index(xp: Any, info: Any, index: LatticeInt, n: int, what: str | None) -> Any:
    """A uint64-lattice index (docs/semantics.md item 13) as int64 indices, after CPython's
    IndexError for a lane outside ``[-n, n)``. A negative lane holds ``bits - 2**64``, in
    ``[-2**63, 0)``, which its bits read as int64 are; a non-negative lane is its uint64 bits
    (`-8` of `(u & 7) - 8` with `u` uint64 is a valid index of a table of 8 or more)."""
    signed = xp.astype(index.bits, info.int64)
    bad = xp.where(index.neg, signed < -n, index.bits >= n)
    def build(lane: int, shape: tuple, negative: bool, signed: int, bits: int) -> IndexError:
        return _index_error(what or "tuple", lane, signed if negative else bits)

    if _any_now_or_when_run(xp, bad, build, index.neg, signed, index.bits):
        flat = xp.reshape(bad, (-1,))
        first = int(xp.argmax(xp.astype(flat, xp.int8)))
        negative = bool(xp.reshape(index.neg, (-1,))[first])
        value = int(xp.reshape(signed if negative else index.bits, (-1,))[first])
        raise _out_of_range(xp, xp.asarray([value], dtype=info.int64 if negative else info.uint64), xp.asarray([True]), what or "tuple", at=first, shape=tuple(bad.shape))
    return signed  # every lane in range now: a non-negative one is below n, its bits as int64


def _ndarray() -> Any:
    numpy = sys.modules.get("numpy")
    return None if numpy is None else numpy.ndarray


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


def _missing_key(lane: int, shape: tuple, value: Any) -> KeyError:
    """CPython's KeyError for the key ``value`` of lane ``lane``, with a note naming the lane."""
    err = KeyError(value)
    err.add_note(f"array-vectorize: first missing key is element {lane} (C order)")
    return err


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
    if _any_now_or_when_run(xp, missing, _missing_key, key):
        lane = int(xp.argmax(xp.astype(missing, xp.int8)))
        value = _lane_value(xp, info, key, lane)
        raise _missing_key(lane_position(lane, tuple(shape))[0], shape, value)  # in a block: its place in the whole call
    pos = xp.broadcast_to(pos, found.shape)
    taken = xp.take(_table_array(xp, info, values), pos, axis=0)
    return xp.reshape(taken, shape)
