"""Exact integer arithmetic on 64-bit arrays: the int64 world and the uint64 lattice.

Python integers are unbounded; arrays hold 64 bits. Two regimes:

* **int64 world** (no operand is uint64): results are int64 and wrap modulo 2**64 on overflow
  (``INT64_MAX + 1 == INT64_MIN``, ``abs(INT64_MIN) == INT64_MIN``,
  ``INT64_MIN // -1 == INT64_MIN``), as NumPy does.
* **uint64 lattice** (some operand is a uint64 array, a ``LatticeInt``, or a Python int in
  [2**63, 2**64)): every lane holds a value in [-2**63, 2**64), the union of the int64 and
  uint64 ranges, as its value modulo 2**64 (``bits``, uint64) plus where it is negative
  (``neg``). An operation computes its exact result lane by lane and keeps it when it lies in
  that range; a result outside wraps modulo 2**64 into it: a non-negative one into [0, 2**64),
  a negative one into int64's range (so a result below -2**63 wraps to a non-negative value,
  as int64 arithmetic would). A lane's value therefore never depends on the other lanes.
  Such a wrap is never returned silently (issue 28 item 3): an operation whose exact result
  leaves that range on some lane (``+ - * ** // << ~``, negation) marks those lanes
  (``beyond``: an ``Overflowed`` value, ``dtype.py``), which ``+ - * // %`` carry on and D1's
  select keeps only on the lanes that take that side; any other use, or returning it, raises
  ``OverflowError`` naming its first marked lane in C order and that lane's operands, so a lane
  CPython does not send through the operation raises nothing. On lazy backends, whose values
  cannot be inspected, the lane wraps.
  ``finish`` gives the result as a uint64 array when no lane is negative, else as a
  ``LatticeInt`` (bits and sign), which stays in the lattice through every later operation.
  Only the function's returned value picks one dtype for all lanes (``result``,
  docs/semantics.md item 13): uint64 when no lane is negative, else int64, each lane equal to
  its value modulo 2**64. On lazy backends (Dask, JAX) the values cannot be inspected, so an
  operation that may produce a negative value gives a ``LatticeInt`` (the returned value is
  then int64); uint64 only when it cannot (``u + v``, ``u * v``, ``u // v``, ``u % v``,
  ``u ** v``, ``u + 1``).

Integer division by zero (D3 gives no IEEE value for integers): ``x // 0 == 0`` and
``x % 0 == 0``, NumPy's convention.
"""

from __future__ import annotations

import itertools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .dtype import INT64_MIN, LatticeInt, Namespace, Overflowed, int_overflow, known_any, lane, python_int_kind

_TWO_63 = 1 << 63
#: The order operations leaving the lattice ran in (``Site.order``): ``dtype.joined_sites``.
_RUN_ORDER = itertools.count()


class Int:
    """An integer operand: ``bits`` (uint64 array, the value modulo 2**64) and ``neg``.

    ``neg`` is ``None`` when no lane is negative, ``True`` when every lane is (a negative
    literal), else a bool array.
    """

    __slots__ = ("bits", "neg")

    def __init__(self, bits: Any, neg: Any) -> None:
        self.bits = bits
        self.neg = neg


def to_int(xp: Any, info: Namespace, kind: str, x: Any) -> Int:
    """Operand ``x`` of kind ``b``/``i``/``u``/``l``/``B``/``I`` as an ``Int``."""
    if kind == "u":
        return Int(x, None)
    if kind == "l":
        return Int(x.bits, x.neg)
    if kind == "i":
        return Int(xp.astype(x, info.uint64), x < 0)
    if kind == "b":
        return Int(xp.astype(x, info.uint64), None)
    if kind == "B":
        return Int(info.scalar("u", int(x)), None)
    v = int(x)
    if python_int_kind(v) == "L":
        raise int_overflow(v)
    return Int(info.scalar("u", v % (1 << 64)), True if v < 0 else None)


def as_int64(xp: Any, info: Namespace, kind: str, x: Any) -> Any:
    """Operand of kind ``b``/``i``/``B``/``I`` (value in int64 range) as an int64 array."""
    if kind == "i":
        return x
    if kind == "b":
        return xp.astype(x, info.int64)
    return info.scalar("i", int(x))


def mask(info: Namespace, neg: Any) -> Any:
    """A tri-state ``neg`` as a bool array (0-d for the static states)."""
    if neg is None:
        return info.scalar("b", False)
    if neg is True:
        return info.scalar("b", True)
    return neg


def magnitude(xp: Any, info: Namespace, v: Int) -> Any:
    """``abs(v)`` as uint64 (exact, including 2**63 for INT64_MIN)."""
    if v.neg is None:
        return v.bits
    negated = xp.subtract(info.scalar("u", 0), v.bits)
    if v.neg is True:
        return negated
    return xp.where(v.neg, negated, v.bits)


def finish(xp: Any, info: Namespace, bits: Any, neg: Any) -> Any:
    """A lattice result from its exact value's ``bits`` and sign ``neg``: a uint64 array when no
    lane is negative, else a ``LatticeInt`` (see the module docstring).

    A negative exact value below -2**63 wraps into int64's range, where it is non-negative: a
    lane stays negative only where its bits are at least 2**63.
    """
    if neg is None:
        return bits
    neg = xp.logical_and(mask(info, neg), bits >= info.scalar("u", _TWO_63))
    if known_any(xp, neg) is False:
        return bits
    return LatticeInt(bits, neg)


def result(xp: Any, info: Namespace, value: Any) -> Any:
    """A function's returned value: a ``LatticeInt`` becomes uint64 when no lane is negative,
    else int64 (each lane its value modulo 2**64, docs/semantics.md item 13)."""
    if type(value) is not LatticeInt:
        return value
    if known_any(xp, value.neg) is False:
        return value.bits
    return xp.astype(value.bits, info.int64)


def _either(xp: Any, a: Any, b: Any) -> Any:
    """Tri-state or."""
    if a is None or b is True:
        return b
    if b is None or a is True:
        return a
    return xp.logical_or(a, b)


def _both(xp: Any, a: Any, b: Any) -> Any:
    """Tri-state and."""
    if a is None or b is None:
        return None
    if a is True:
        return b
    if b is True:
        return a
    return xp.logical_and(a, b)


def _differ(xp: Any, a: Any, b: Any) -> Any:
    """Tri-state xor."""
    if a is None:
        return b
    if b is None:
        return a
    if a is True and b is True:
        return None
    if a is True:
        return xp.logical_not(b)
    if b is True:
        return xp.logical_not(a)
    return xp.not_equal(a, b)


# --------------------------------------------------------------------------- uint64 lattice


def _value(xp: Any, v: Int, shape: tuple, index: int) -> int:
    """Lane ``index`` (C order, of ``shape``) of ``v`` as a Python int."""
    bit = int(lane(xp, v.bits, shape, index))
    if v.neg is None:
        return bit
    if v.neg is True:
        return bit - (1 << 64)
    return bit - (1 << 64) if bool(lane(xp, v.neg, shape, index)) else bit


class Site:
    """An operation ``a symbol b`` (``symbol a`` without ``b``) whose exact result leaves
    [-2**63, 2**64) on the lanes of ``over`` (docs/semantics.md item 13)."""

    __slots__ = ("over", "symbol", "a", "b", "order")

    def __init__(self, over: Any, symbol: str, a: Int, b: Int | None) -> None:
        self.over, self.symbol, self.a, self.b = over, symbol, a, b
        self.order = next(_RUN_ORDER)

    def error(self, xp: Any, shape: tuple, index: int) -> OverflowError:
        """Item 13's OverflowError for lane ``index`` of a value of ``shape``, naming its operands."""
        x = _value(xp, self.a, shape, index)
        if self.b is None:
            text = f"{self.symbol}({x})"
        else:
            text = f"{x} {self.symbol} {_value(xp, self.b, shape, index)}"
        return OverflowError(
            f"array-vectorize runtime: {text} leaves the range of int64 and uint64 (an integer computed "
            f"with uint64, at flat index {index}): vectorized integers are 64-bit (docs/semantics.md item 13)"
        )


def beyond(xp: Any, info: Namespace, over: Any, symbol: str, a: Int, b: Int | None = None) -> Site | None:
    """The site of ``a symbol b`` when a lane of ``over`` is true, its exact result leaving
    [-2**63, 2**64) there (module docstring; docs/semantics.md item 13), else None. A lazy mask
    is not inspected."""
    if known_any(xp, over) is not True:
        return None
    return Site(over, symbol, a, b)


def overflowed(info: Namespace, value: Any, site: Site | None) -> Any:
    """``value`` with the lanes of ``site`` marked as beyond the lattice (``Overflowed``)."""
    if site is None:
        return value
    return Overflowed(value, site.over, [site], info)


def negation_beyond(xp: Any, info: Namespace, a: Int, symbol: str) -> Site | None:
    """``beyond`` for ``-a`` (``symbol`` ``-``: below -2**63 where a non-negative lane exceeds
    2**63) or ``~a`` (``~``: ``-a - 1``, where it reaches 2**63)."""
    top = info.scalar("u", _TWO_63)
    big = a.bits > top if symbol == "-" else a.bits >= top
    over = big if a.neg is None else xp.logical_and(xp.logical_not(mask(info, a.neg)), big)
    return beyond(xp, info, over, symbol, a)


def _sum_carries(xp: Any, info: Namespace, sum_bits: Any, x: Any) -> Any:
    """Where the uint64 sum ``sum_bits`` of ``x`` and another uint64 wrapped past 2**64."""
    return sum_bits < x


def u_add(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    bits = xp.add(a.bits, b.bits)
    # Both non-negative: beyond 2**64 where the sum carries; both negative: below -2**63 where
    # the wrapped bits fall under 2**63; a mixed sum always lies in range.
    na, nb = mask(info, a.neg), mask(info, b.neg)
    over = xp.logical_and(xp.logical_not(xp.logical_or(na, nb)), _sum_carries(xp, info, bits, a.bits))
    if a.neg is not None and b.neg is not None:
        under = xp.logical_and(xp.logical_and(na, nb), bits < info.scalar("u", _TWO_63))
        over = xp.logical_or(over, under)
    site = beyond(xp, info, over, "+", a, b)
    # The sum is negative where both operands are, or where the negative one has the larger
    # magnitude (a negative operand's magnitude is at most 2**63, a negative one's bits at least
    # 2**63, so the comparison is false where both are negative).
    neg_a = None if a.neg is None else _both(xp, a.neg, magnitude(xp, info, a) > b.bits)
    neg_b = None if b.neg is None else _both(xp, b.neg, magnitude(xp, info, b) > a.bits)
    neg = _either(xp, _either(xp, neg_a, neg_b), _both(xp, a.neg, b.neg))
    return overflowed(info, finish(xp, info, bits, neg), site)


def less(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    """Exact ``a < b`` (bool array)."""
    if a.neg is None and b.neg is None:
        return a.bits < b.bits
    # Two's complement bits order correctly among negatives and among non-negatives.
    na, nb = mask(info, a.neg), mask(info, b.neg)
    return xp.where(xp.not_equal(na, nb), na, a.bits < b.bits)


def equal(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    """Exact ``a == b`` (bool array)."""
    same_bits = a.bits == b.bits
    if a.neg is None and b.neg is None:
        return same_bits
    return xp.logical_and(same_bits, xp.equal(mask(info, a.neg), mask(info, b.neg)))


def u_sub(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    bits = xp.subtract(a.bits, b.bits)
    na, nb = mask(info, a.neg), mask(info, b.neg)
    two_63 = info.scalar("u", _TWO_63)
    # A, B >= 0: below -2**63 where B - A > 2**63 (then the wrapped bits are under 2**63).
    both = xp.logical_not(xp.logical_or(na, nb))
    over = xp.logical_and(both, xp.logical_and(b.bits > a.bits, bits < two_63))
    if b.neg is not None:  # A >= 0 > B: A + |B| beyond 2**64 where it carries
        over = xp.logical_or(over, xp.logical_and(
            xp.logical_and(xp.logical_not(na), nb), _sum_carries(xp, info, bits, a.bits)
        ))
    if a.neg is not None:  # A < 0 <= B: below -2**63 where |A| + B exceeds 2**63
        reach = xp.add(magnitude(xp, info, a), b.bits)
        too_far = xp.logical_or(_sum_carries(xp, info, reach, b.bits), reach > two_63)
        over = xp.logical_or(over, xp.logical_and(xp.logical_and(na, xp.logical_not(nb)), too_far))
    site = beyond(xp, info, over, "-", a, b)
    if b.neg is True and a.neg is None:
        return overflowed(info, finish(xp, info, bits, None), site)
    return overflowed(info, finish(xp, info, bits, less(xp, info, a, b)), site)


def u_mul(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    bits = xp.multiply(a.bits, b.bits)
    sign = _differ(xp, a.neg, b.neg)
    # |A| * |B| wraps past 2**64 where dividing it back by |A| does not give |B|; a negative
    # product leaves the range beyond a magnitude of 2**63.
    ma, mb = magnitude(xp, info, a), magnitude(xp, info, b)
    product = xp.multiply(ma, mb)
    nonzero_a = ma != 0
    back = xp.floor_divide(product, xp.where(nonzero_a, ma, info.scalar("u", 1)))
    over = xp.logical_and(nonzero_a, back != mb)
    if sign is not None:
        over = xp.logical_or(over, xp.logical_and(mask(info, sign), product > info.scalar("u", _TWO_63)))
    site = beyond(xp, info, over, "*", a, b)
    if sign is None:
        return overflowed(info, finish(xp, info, bits, None), site)
    nonzero = xp.logical_and(a.bits != 0, b.bits != 0)
    return overflowed(info, finish(xp, info, bits, _both(xp, sign, nonzero)), site)


def u_floordiv(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    """Floor division with Python's signs; ``x // 0 == 0``."""
    ma, mb = magnitude(xp, info, a), magnitude(xp, info, b)
    by_zero = mb == 0
    mb1 = xp.where(by_zero, info.scalar("u", 1), mb)
    same = xp.floor_divide(ma, mb1)
    sign = _differ(xp, a.neg, b.neg)
    if sign is None:
        return xp.where(by_zero, info.scalar("u", 0), same)
    # Operands of opposite sign: floor(a / b) == -ceil(|a| / |b|).
    ma1 = xp.where(ma == 0, info.scalar("u", 1), ma)
    ceil = xp.add(xp.floor_divide(xp.subtract(ma1, 1), mb1), 1)
    ceil = xp.where(ma == 0, info.scalar("u", 0), ceil)
    sign = mask(info, sign)
    # A quotient below -2**63 leaves the range (2**64 - 1 // -1).
    over = xp.logical_and(xp.logical_and(sign, xp.logical_not(by_zero)), ceil > info.scalar("u", _TWO_63))
    site = beyond(xp, info, over, "//", a, b)
    bits = xp.where(sign, xp.subtract(info.scalar("u", 0), ceil), same)
    bits = xp.where(by_zero, info.scalar("u", 0), bits)
    neg = xp.logical_and(sign, xp.logical_and(ma != 0, xp.logical_not(by_zero)))
    return overflowed(info, finish(xp, info, bits, neg), site)


def u_mod(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    """Remainder with the divisor's sign (Python); ``x % 0 == 0``."""
    ma, mb = magnitude(xp, info, a), magnitude(xp, info, b)
    by_zero = mb == 0
    mb1 = xp.where(by_zero, info.scalar("u", 1), mb)
    rem = xp.remainder(ma, mb1)
    sign = _differ(xp, a.neg, b.neg)
    if sign is not None:
        # Opposite signs: |a % b| == |b| - (|a| mod |b|) unless that remainder is 0.
        flipped = xp.where(rem == 0, rem, xp.subtract(mb1, rem))
        rem = flipped if sign is True else xp.where(sign, flipped, rem)
    rem = xp.where(by_zero, info.scalar("u", 0), rem)
    if b.neg is None:
        return finish(xp, info, rem, None)
    negated = xp.subtract(info.scalar("u", 0), rem)
    bits = negated if b.neg is True else xp.where(b.neg, negated, rem)
    return finish(xp, info, bits, _both(xp, b.neg, rem != 0))


def u_pow(xp: Any, info: Namespace, a: Int, e: Int) -> Any:
    """``a ** e`` for exponents known to be non-negative; a result beyond the lattice's range
    raises (``beyond``)."""
    bits = xp.pow(a.bits, e.bits)
    site = _pow_beyond(xp, info, a, e)
    if a.neg is None:
        return overflowed(info, finish(xp, info, bits, None), site)
    odd = (e.bits & 1) == 1
    return overflowed(info, finish(xp, info, bits, _both(xp, a.neg, odd)), site)


def _pow_beyond(xp: Any, info: Namespace, a: Int, e: Int) -> Site | None:
    """``beyond`` for ``a ** e`` (``e`` non-negative): the magnitude's power in float64 decides
    every lane but those near 2**64, which are computed exactly."""
    ma = magnitude(xp, info, a)
    f64 = info.float64
    with info.quiet():
        estimate = xp.pow(xp.astype(ma, f64), xp.astype(e.bits, f64))
    over = estimate > 2.0**65
    near = xp.logical_and(estimate >= 2.0**62, xp.logical_not(over))
    if known_any(xp, near) is True:
        flat_e = xp.reshape(xp.broadcast_to(e.bits, near.shape), (-1,))
        flat_m = xp.reshape(xp.broadcast_to(ma, near.shape), (-1,))
        flat_near = xp.reshape(near, (-1,))
        negative = xp.reshape(xp.broadcast_to(mask(info, a.neg), near.shape), (-1,))
        exact = []
        for i in range(flat_near.shape[0]):
            if not bool(flat_near[i]):
                exact.append(False)
                continue
            p = int(flat_m[i]) ** int(flat_e[i])
            odd = int(flat_e[i]) % 2 == 1
            exact.append(p > _TWO_63 if bool(negative[i]) and odd else p >= 1 << 64)
        found = xp.reshape(xp.asarray(exact, dtype=info.bool), near.shape)
        over = xp.logical_or(over, found)
    return beyond(xp, info, over, "**", a, e)


# --------------------------------------------------------------------------- int64 world


def i_floordiv(xp: Any, info: Namespace, a: Any, b: Any) -> Any:
    """int64 floor division (Python signs); ``x // 0 == 0``; ``INT64_MIN // -1`` wraps."""
    by_zero = b == 0
    unsafe = xp.logical_or(by_zero, xp.logical_and(a == INT64_MIN, b == -1))
    b1 = xp.where(unsafe, info.scalar("i", 1), b)
    return xp.where(by_zero, info.scalar("i", 0), xp.floor_divide(a, b1))


def i_mod(xp: Any, info: Namespace, a: Any, b: Any) -> Any:
    """int64 remainder (Python signs); ``x % 0 == 0``."""
    by_zero = b == 0
    unsafe = xp.logical_or(by_zero, xp.logical_and(a == INT64_MIN, b == -1))
    b1 = xp.where(unsafe, info.scalar("i", 1), b)
    return xp.where(by_zero, info.scalar("i", 0), xp.remainder(a, b1))
