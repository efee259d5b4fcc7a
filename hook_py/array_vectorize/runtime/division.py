"""Correctly rounded ``p / q`` for 64-bit unsigned integer arrays, with array operations only.

CPython's ``int / int`` rounds the exact quotient once to the nearest float64 (ties to even).
``float(p) / float(q)`` rounds three times and is wrong as soon as ``p`` or ``q`` exceeds 2**53.
``u64_ratio`` computes, lane by lane and without pulling values into Python:

1. normalize: ``P = p << sp`` and ``D = q << sq`` have their top bit set (``sp``, ``sq`` are the
   leading-zero counts, found by a six-step binary search);
2. divide: ``N = floor(P * 2**62 / D)`` by 128-by-64-bit long division with 32-bit digits
   (Hacker's Delight, ``divlu``; its two correction loops run at most twice and are unrolled
   into masked updates). ``N`` lies in [2**61, 2**63), so it carries at least 62 significant bits;
3. sticky bit: when the remainder is not zero, set bit 0 of ``N``. Rounding ``N`` to 53 bits
   discards at least 9 bits, so bit 0 only ever acts as the sticky bit, and the (correctly
   rounded) int-to-float conversion of ``N`` rounds exactly as the exact quotient would;
4. scale by ``2**(sq - sp - 62)``: multiplications and divisions by powers of two built from
   integer shifts, exact because every intermediate stays within [2**-64, 2**64] (no subnormals).

When every lane of an eager array has ``p, q < 2**53`` one float division is already correctly
rounded, and steps 1-4 are skipped.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .dtype import Namespace, known_any

_B = 1 << 32
_LOW32 = _B - 1
_TWO_53 = 1 << 53


def _normalize(xp: Any, info: Namespace, x: Any) -> tuple[Any, Any]:
    """``(x << s, s)`` with the top bit of the result set; ``x`` is a uint64 array, ``x >= 1``."""
    s = xp.zeros_like(x)
    for k in (32, 16, 8, 4, 2, 1):
        # A uint64 0-d array, not a Python int: jax.jit refuses Python ints above INT64_MAX.
        small = x < info.scalar("u", 1 << (64 - k))
        x = xp.where(small, x << k, x)
        s = xp.where(small, s + k, s)
    return x, s


def _correct(xp: Any, q: Any, rhat: Any, vn0: Any, vn1: Any, un: Any, check_digit: bool) -> Any:
    """The ``again:`` loop of divlu, unrolled: lower the estimated digit ``q`` while it is too big."""
    active = None
    for _ in range(2):
        over = xp.multiply(q, vn0) > xp.add(rhat << 32, un)
        if check_digit:
            over = xp.logical_or(q >= _B, over)
        fix = over if active is None else xp.logical_and(active, over)
        q = xp.where(fix, xp.subtract(q, 1), q)
        rhat = xp.where(fix, xp.add(rhat, vn1), rhat)
        active = xp.logical_and(fix, rhat < _B)
    return q


def _div_normalized(xp: Any, P: Any, D: Any) -> tuple[Any, Any]:
    """``(floor(P * 2**62 / D), remainder)`` for uint64 arrays with the top bit set."""
    u1 = P >> 2  # the high word of P * 2**62; u1 < 2**62 < D, so the quotient fits 64 bits
    un1 = (P & 3) << 30  # the low word is (P & 3) << 62: its high half, and a zero low half
    vn1 = D >> 32
    vn0 = D & _LOW32
    # First digit. u1 < 2**62 and vn1 >= 2**31, so the estimate is already below 2**32.
    q1 = xp.floor_divide(u1, vn1)
    rhat = xp.subtract(u1, xp.multiply(q1, vn1))
    q1 = _correct(xp, q1, rhat, vn0, vn1, un1, check_digit=False)
    # Partial remainder: exact modulo 2**64, and its true value is below D < 2**64.
    un21 = xp.subtract(xp.add(u1 << 32, un1), xp.multiply(q1, D))
    # Second digit.
    q0 = xp.floor_divide(un21, vn1)
    rhat = xp.subtract(un21, xp.multiply(q0, vn1))
    q0 = _correct(xp, q0, rhat, vn0, vn1, 0, check_digit=True)
    remainder = xp.subtract(un21 << 32, xp.multiply(q0, D))
    return xp.add(q1 << 32, q0), remainder


def _pow2(xp: Any, info: Namespace, s: Any) -> Any:
    """``2.0 ** s`` exactly, for a uint64 array ``s`` in [0, 63]."""
    return xp.astype(info.scalar("u", 1) << s, info.float64)


def u64_ratio(xp: Any, info: Namespace, p: Any, q: Any) -> Any:
    """Correctly rounded float64 ``p / q`` for uint64 arrays ``p >= 1``, ``q >= 1`` (broadcast).

    The arrays must not be NumPy scalars (callers lift 0-d operands to shape ``(1,)``): scalar
    arithmetic would warn on the wrap-around this algorithm relies on.
    """
    if known_any(xp, xp.logical_or(p >= _TWO_53, q >= _TWO_53)) is False:
        return xp.divide(xp.astype(p, info.float64), xp.astype(q, info.float64))
    P, sp = _normalize(xp, info, p)
    D, sq = _normalize(xp, info, q)
    N, remainder = _div_normalized(xp, P, D)
    N = xp.where(remainder != 0, N | 1, N)
    ratio = xp.astype(N, info.float64) * 2.0**-62
    return ratio * _pow2(xp, info, sq) / _pow2(xp, info, sp)
