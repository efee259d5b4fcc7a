"""Exact comparisons across bool, int64, uint64 and float64, as CPython compares numbers.

CPython compares an int with a float exactly (``2**53 + 1 > 2.0**53`` is True), and bools as the
ints 0 and 1. Array libraries convert the int to float64 first (wrong above 2**53), and strict
ones reject mixed kinds outright. Here:

* int array vs float array: ``fi = float(i)`` (rounded to nearest). Where ``fi != x`` the float
  comparison of ``fi`` and ``x`` is already the exact answer (``fi`` is the float nearest to
  ``i``, so no float lies strictly between them); where ``fi == x``, ``x`` is an integer and is
  converted back to the int dtype and compared as an integer (``fi`` equal to 2**63 or 2**64,
  just above the dtype, means ``i < x``);
* int array vs Python float: the float becomes an integer threshold in Python
  (``i < x`` is ``i < ceil(x)``, ``i <= x`` is ``i <= floor(x)``, ...; NaN and infinities are
  constants);
* float array vs Python int of any size: compared with ``float(n)`` (``DBL_MAX`` with its sign
  when it overflows), and the lanes equal to it are decided by the exact sign of
  ``n - int(float(n))``;
* int64 vs uint64, ``LatticeInt`` values (``intops.py``), and ints against out-of-range Python
  ints: exact, by sign and bits; a ``LatticeInt`` against a float compares its negative lanes
  as int64 and the others as uint64.

NaN compares unequal to everything (``!=`` is True), as in CPython. Results are bool arrays.
"""

from __future__ import annotations

import math
import operator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from .dtype import DBL_MAX, INT64_MAX, INT64_MIN, TWO_63, TWO_64, UINT64_MAX, Namespace
from .intops import equal, less, to_int

OPS: dict[str, Callable[[Any, Any], Any]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}
#: ``a op b`` is ``b SWAP[op] a``.
SWAP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def outcome(op: str, rel: int) -> bool:
    """The value of ``a op b`` when ``a`` is less than (-1), equal to (0) or greater than (1) ``b``."""
    if op == "lt":
        return rel < 0
    if op == "le":
        return rel <= 0
    if op == "gt":
        return rel > 0
    if op == "ge":
        return rel >= 0
    if op == "eq":
        return rel == 0
    return rel != 0


def _const(xp: Any, info: Namespace, like: Any, value: bool) -> Any:
    return xp.full_like(like, value, dtype=info.bool)


def _where_const(xp: Any, cond: Any, value: bool, other: Any) -> Any:
    """``where(cond, value, other)`` for a Python bool ``value`` and a bool array ``other``."""
    if value:
        return xp.logical_or(cond, other)
    return xp.logical_and(xp.logical_not(cond), other)


def int_array_vs_int(xp: Any, info: Namespace, op: str, kind: str, x: Any, v: int) -> Any:
    """``x op v`` for an int64 (``kind == "i"``) or uint64 array ``x`` and any Python int ``v``."""
    lo, hi = (INT64_MIN, INT64_MAX) if kind == "i" else (0, UINT64_MAX)
    if v > hi:
        return _const(xp, info, x, outcome(op, -1))
    if v < lo:
        return _const(xp, info, x, outcome(op, 1))
    if v > INT64_MAX:  # jax.jit refuses Python ints beyond int64: compare with a uint64 0-d array
        return OPS[op](x, info.scalar("u", v))
    return OPS[op](x, v)


def int_array_vs_float(xp: Any, info: Namespace, op: str, kind: str, x: Any, v: float) -> Any:
    """``x op v`` for an int64/uint64 array ``x`` and a Python float ``v``."""
    if v != v:
        return _const(xp, info, x, op == "ne")
    if math.isinf(v):
        return _const(xp, info, x, outcome(op, -1 if v > 0 else 1))
    if op in ("eq", "ne"):
        if not v.is_integer():
            return _const(xp, info, x, op == "ne")
        return int_array_vs_int(xp, info, op, kind, x, int(v))
    # For an integer i: i < v <=> i < ceil(v); i <= v <=> i <= floor(v); same for > and >=.
    threshold = math.ceil(v) if op in ("lt", "ge") else math.floor(v)
    return int_array_vs_int(xp, info, op, kind, x, threshold)


def float_array_vs_int(xp: Any, info: Namespace, op: str, x: Any, v: int) -> Any:
    """``x op v`` for a float64 array ``x`` and a Python int ``v`` of any size."""
    try:
        fv = float(v)
    except OverflowError:
        fv = DBL_MAX if v > 0 else -DBL_MAX
    excess = v - int(fv)
    plain = OPS[op](x, fv)
    if excess == 0:
        return plain
    # Lanes equal to fv are below v when v exceeds fv, above it otherwise.
    return _where_const(xp, x == fv, outcome(op, -1 if excess > 0 else 1), plain)


def int_array_vs_float_array(xp: Any, info: Namespace, op: str, kind: str, x: Any, y: Any) -> Any:
    """``x op y`` for an int64/uint64 array ``x`` and a float64 array ``y``, exactly."""
    fx = xp.astype(x, info.float64)
    tie = fx == y
    top = TWO_63 if kind == "i" else TWO_64
    in_range = fx < top
    back = xp.astype(xp.where(xp.logical_and(tie, in_range), y, 0.0), x.dtype)
    # fx == top (just above the dtype) means x < y.
    at_tie = _where_const(xp, xp.logical_not(in_range), outcome(op, -1), OPS[op](x, back))
    return xp.where(tie, at_tie, OPS[op](fx, y))


def _mixed_ints(xp: Any, info: Namespace, op: str, ka: str, a: Any, kb: str, b: Any) -> Any:
    """Exact comparison of two integer operands when their kinds differ (int64 vs uint64)."""
    ia, ib = to_int(xp, info, ka, a), to_int(xp, info, kb, b)
    if op == "eq":
        return equal(xp, info, ia, ib)
    if op == "ne":
        return xp.logical_not(equal(xp, info, ia, ib))
    if op == "lt":
        return less(xp, info, ia, ib)
    if op == "gt":
        return less(xp, info, ib, ia)
    if op == "le":
        return xp.logical_not(less(xp, info, ib, ia))
    return xp.logical_not(less(xp, info, ia, ib))


def compare(xp: Any, info: Namespace, op: str, ka: str, a: Any, kb: str, b: Any) -> Any:
    """``a op b`` exactly; ``ka``/``kb`` are the operands' kinds, at least one an array kind."""
    a_float, b_float = ka in "fF", kb in "fF"
    if a_float and b_float:
        return OPS[op](a, b)
    if a_float:  # put the float on the right
        op, ka, a, kb, b = SWAP[op], kb, b, ka, a
        a_float, b_float = False, True
    if b_float:
        if ka == "l":
            signed = compare(xp, info, op, "i", xp.astype(a.bits, info.int64), kb, b)
            return xp.where(a.neg, signed, compare(xp, info, op, "u", a.bits, kb, b))
        if ka == "b":
            return OPS[op](xp.astype(a, info.float64), b)
        if ka == "B":
            return OPS[op](float(a), b)
        if ka == "I":
            return float_array_vs_int(xp, info, SWAP[op], b, int(a))
        if kb == "F":
            return int_array_vs_float(xp, info, op, ka, a, float(b))
        return int_array_vs_float_array(xp, info, op, ka, a, b)
    # Integers and bools.
    if ka in "bB" and kb in "bB":
        if op in ("eq", "ne"):
            return OPS[op](a, b)
        ka, a = ("i", xp.astype(a, info.int64)) if ka == "b" else ("I", int(a))
        kb, b = ("i", xp.astype(b, info.int64)) if kb == "b" else ("I", int(b))
    if ka == "b":
        ka, a = "i", xp.astype(a, info.int64)
    if kb == "b":
        kb, b = "i", xp.astype(b, info.int64)
    if ka in "IB":
        op, ka, a, kb, b = SWAP[op], kb, b, ka, a
    if "l" in (ka, kb):
        if kb in "IB" and not INT64_MIN <= int(b) <= UINT64_MAX:
            return _const(xp, info, a.bits, outcome(op, -1 if int(b) > 0 else 1))
        return _mixed_ints(xp, info, op, ka, a, kb, b)
    if kb in "IB":
        return int_array_vs_int(xp, info, op, ka, a, int(b))
    if ka == kb:
        return OPS[op](a, b)
    return _mixed_ints(xp, info, op, ka, a, kb, b)


__all__ = ["OPS", "SWAP", "compare", "outcome"]
