"""Bitwise operators on ints and bools with CPython's meaning (D15): ``& | ^ << >>`` and ``~``.

``&``, ``|`` and ``^`` of two bools give a bool; any other mix of ints and bools gives an int.
A float operand raises CPython's ``TypeError``. In the int64 world (no uint64 operand) the
result is CPython's value wrapped modulo 2**64 into int64, as every int64 operation
(docs/semantics.md item 6); on the uint64 lattice (``intops.py``) ``&``, ``|``, ``^`` act on the
two's complement bits and on the signs, exactly, and shifts follow the lattice's wrap rule
(item 13). A shift by 64 or more moves every bit out (``x << 64 == 0``, ``x >> 64`` is 0 or -1);
a negative count, CPython's ``ValueError``, gives 0 (D3-style, docs/semantics.md).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .dtype import LatticeInt, Namespace, python_int_kind
from .intops import Int, Site, _both, _differ, _either, as_int64, beyond, finish, magnitude, mask, negation_beyond, overflowed, to_int

BIT_OPS = frozenset(("and", "or", "xor", "lshift", "rshift"))
_SYMBOLS = {"and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}
_TYPE_NAMES = {"b": "bool", "B": "bool", "f": "float", "F": "float"}


def type_error(op: str, ka: str, kb: str) -> TypeError:
    """CPython's TypeError for a bit operation with a float operand."""
    na, nb = _TYPE_NAMES.get(ka, "int"), _TYPE_NAMES.get(kb, "int")
    return TypeError(f"unsupported operand type(s) for {_SYMBOLS[op]}: '{na}' and '{nb}'")


def _lattice(v: Any, kind: str) -> bool:
    return kind in "ul" or (kind == "I" and python_int_kind(int(v)) != "i")


def _as_bool(xp: Any, info: Namespace, kind: str, x: Any) -> Any:
    return x if kind == "b" else info.scalar("b", bool(x))


def bit_binary(xp: Any, info: Namespace, op: str, ka: str, a: Any, kb: str, b: Any) -> Any:
    """``a op b`` for int and bool operands (kinds of ``dtype.py``; no float)."""
    if ka in "bB" and kb in "bB" and op in ("and", "or", "xor"):
        x, y = _as_bool(xp, info, ka, a), _as_bool(xp, info, kb, b)
        if op == "and":
            return xp.logical_and(x, y)
        return xp.logical_or(x, y) if op == "or" else xp.logical_xor(x, y)
    if op in ("lshift", "rshift"):
        return _shift(xp, info, op, ka, a, kb, b)
    if _lattice(a, ka) or _lattice(b, kb):
        ia, ib = to_int(xp, info, ka, a), to_int(xp, info, kb, b)
        if op == "and":
            return finish(xp, info, xp.bitwise_and(ia.bits, ib.bits), _both(xp, ia.neg, ib.neg))
        if op == "or":
            return finish(xp, info, xp.bitwise_or(ia.bits, ib.bits), _either(xp, ia.neg, ib.neg))
        return finish(xp, info, xp.bitwise_xor(ia.bits, ib.bits), _differ(xp, ia.neg, ib.neg))
    x, y = as_int64(xp, info, ka, a), as_int64(xp, info, kb, b)
    if op == "and":
        return xp.bitwise_and(x, y)
    return xp.bitwise_or(x, y) if op == "or" else xp.bitwise_xor(x, y)


def _counts(xp: Any, info: Namespace, kb: str, b: Any) -> tuple[Any, Any]:
    """The shift counts clamped to [0, 64] as int64, and where they are negative."""
    c = to_int(xp, info, kb, b)
    negative = mask(info, c.neg)
    big = c.bits > info.scalar("u", 64)
    clamped = xp.where(xp.logical_or(negative, big), info.scalar("u", 64), c.bits)
    return xp.astype(clamped, info.int64), negative


def _shift(xp: Any, info: Namespace, op: str, ka: str, a: Any, kb: str, b: Any) -> Any:
    count, negative = _counts(xp, info, kb, b)
    out = count >= 64
    short = xp.where(out, info.scalar("i", 0), count)
    if not _lattice(a, ka):
        x = as_int64(xp, info, ka, a)
        if op == "lshift":
            value = xp.where(out, info.scalar("i", 0), xp.bitwise_left_shift(x, short))
        else:
            value = xp.bitwise_right_shift(x, xp.where(out, info.scalar("i", 63), count))
        return xp.where(negative, info.scalar("i", 0), value)
    v = to_int(xp, info, ka, a)
    neg = mask(info, v.neg)
    ushort = xp.astype(short, info.uint64)
    zero = info.scalar("u", 0)
    if op == "lshift":
        bits = xp.where(out, zero, xp.bitwise_left_shift(v.bits, ushort))
        site = _lshift_beyond(xp, info, v, b, kb, out, ushort, negative)
    else:
        # A negative lane lies in int64's range: its arithmetic shift there, back as bits.
        signed = xp.bitwise_right_shift(
            xp.astype(v.bits, info.int64), xp.where(out, info.scalar("i", 63), count)
        )
        logical = xp.where(out, zero, xp.bitwise_right_shift(v.bits, ushort))
        bits = xp.where(neg, xp.astype(signed, info.uint64), logical)
        site = None
    bits = xp.where(negative, zero, bits)
    return overflowed(info, finish(xp, info, bits, xp.logical_and(neg, xp.logical_not(negative))), site)


def _lshift_beyond(xp: Any, info: Namespace, v: Int, b: Any, kb: str, out: Any, ushort: Any, negative: Any) -> Site | None:
    """``beyond`` for ``v << count`` on the lattice: a non-negative lane leaves it where a bit
    moves past 2**64, a negative one where its magnitude moves past 2**63 (counts of 64 or more
    move every bit of a non-zero lane out; a negative count gives 0, item 24)."""
    m = magnitude(xp, info, v)
    moved = xp.bitwise_left_shift(m, ushort)
    lost = xp.logical_or(xp.bitwise_right_shift(moved, ushort) != m, xp.logical_and(out, m != 0))
    over = xp.logical_or(lost, xp.logical_and(mask(info, v.neg), moved > info.scalar("u", 1 << 63)))
    over = xp.logical_and(over, xp.logical_not(negative))
    return beyond(xp, info, over, "<<", v, to_int(xp, info, kb, b))


def bit_invert(xp: Any, info: Namespace, kind: str, a: Any) -> Any:
    """``~a`` (``-a - 1``) for an int or bool array or ``LatticeInt`` of kind ``kind``."""
    if kind in "fF":
        raise TypeError("bad operand type for unary ~: 'float'")
    if kind == "b":
        return xp.bitwise_invert(xp.astype(a, info.int64))
    if kind == "i":
        return xp.bitwise_invert(a)
    if kind == "u":
        site = negation_beyond(xp, info, Int(a, None), "~")
        return overflowed(info, finish(xp, info, xp.bitwise_invert(a), True), site)
    if type(a) is LatticeInt:
        site = negation_beyond(xp, info, Int(a.bits, a.neg), "~")
        return overflowed(info, finish(xp, info, xp.bitwise_invert(a.bits), xp.logical_not(a.neg)), site)
    raise TypeError(f"bad operand kind {kind!r} for unary ~")
