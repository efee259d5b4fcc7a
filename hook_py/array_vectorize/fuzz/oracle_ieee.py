"""D3 for the oracle: CPython's arithmetic with the documented IEEE value where CPython raises
(docs/semantics.md items 1-5, 7), and the facts of an element's run the comparison reads (an IEEE
value taken, a float saturated, an int beyond int64, a ``try`` body running). ``oracle.py`` runs
programs through these helpers; ``oracle_calls.py`` (the D16 and D17 calls) uses them too, so they
sit below both.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
INT64_END = 1 << 63
UINT64_END = 1 << 64


class Huge(Exception):
    """An integer power beyond 64 bits (``3 ** 2**63``): CPython would compute it for ever; the
    vectorized code wraps it (item 6) or raises (item 17). The element is not compared."""


#: How many times CPython raised and an IEEE value was taken instead (``Ok.ieee``).
FALLBACKS = [0]

#: How many ``try`` bodies are running: inside one, numeric errors are CPython's exceptions, sent
#: to the ``except`` clauses (D11, item 30); D3's IEEE values hold everywhere else (handlers,
#: ``else`` and ``finally`` included).
TRY_DEPTH = [0]


def in_try() -> bool:
    return TRY_DEPTH[0] > 0


#: Whether a finite float beyond int64 was saturated on the way (item 7; ``Ok.exact``), and
#: whether conversions are CPython's exact ones instead (the second run that gives ``Ok.exact``).
SATURATED = [False]
EXACT_CONVERSIONS = [False]

#: Whether a float converted beyond int64 raises OverflowError (item 7, issue 28 item 4: the
#: oracle's runs of a program compiled without ``protect_domains``) or saturates (the runs with
#: it, and the fuzz model's array readings); and whether such a conversion raised on the way.
CONVERSIONS_RAISE = [False]
BEYOND_RAISED = [False]


def beyond_int64(function: str, x: float) -> OverflowError:
    """Item 7's exception for ``function`` of a float ``x`` beyond int64 (written here, not taken
    from the runtime): CPython's own for ±inf; for a finite float, whose int CPython computes
    exactly, the one saying an int array cannot hold it."""
    if x in (math.inf, -math.inf):
        try:
            int(x)
        except OverflowError as exc:
            exc.__traceback__ = None
            error = exc
    else:
        error = OverflowError(f"{function}({x!r}) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)")
    return error


class BeyondInt64(BaseException):
    """Item 7's raise in the oracle: the element raises ``error``, which no ``except`` clause of
    the program catches (inside a ``try`` body CPython raises nothing there: it computes the
    exact int, which a vectorized integer cannot hold)."""

    def __init__(self, error: OverflowError) -> None:
        super().__init__(error)
        self.error = error


def np_value(fn: Callable[..., Any], *args: Any) -> Any:
    """NumPy's value of ``fn`` on float64 operands (the IEEE value where CPython raises)."""
    FALLBACKS[0] += 1
    try:
        xs = [np.float64(float(a)) for a in args]
    except OverflowError:
        raise Huge() from None
    with np.errstate(all="ignore"):
        return float(fn(*xs))


def _ints(a: Any, b: Any) -> bool:
    return type(a) in (int, bool) and type(b) in (int, bool)


def ieee_div(a: Any, b: Any) -> Any:
    if in_try():
        return a / b
    try:
        return a / b
    except ZeroDivisionError:  # items 1, 2: +-inf, nan for 0 / 0
        return np_value(np.divide, a, b)
    except OverflowError:  # int / int beyond the float range
        raise Huge() from None


def ieee_floordiv(a: Any, b: Any) -> Any:
    if in_try():
        return _wide(a // b)
    try:
        return _wide(a // b)
    except ZeroDivisionError:  # int // 0 is 0 (item 2); the IEEE quotient for floats (item 1)
        FALLBACKS[0] += 1
        return 0 if _ints(a, b) else np_value(np.floor_divide, a, b)


def ieee_mod(a: Any, b: Any) -> Any:
    if in_try():
        return a % b
    try:
        return a % b
    except ZeroDivisionError:
        FALLBACKS[0] += 1
        return 0 if _ints(a, b) else np_value(np.remainder, a, b)


def ieee_pow(a: Any, b: Any) -> Any:
    if in_try():
        return a ** b
    if _ints(a, b) and b >= 64 and abs(a) >= 2:
        if b > 100_000:
            raise Huge()
    try:
        r = a ** b
    except (ZeroDivisionError, OverflowError):  # item 4: 0.0 ** -1 is inf; overflow is inf
        return np_value(np.power, a, b)
    if type(r) is complex:  # item 4: (-8.0) ** (1/3) is nan
        return np_value(np.power, a, b)
    return _wide(r)


def _saturate(x: float, exact: Callable[[float], int], function: str = "int") -> int:
    """``int(x)``-like conversions of a float (item 7): nan gives 0; beyond int64 (±inf
    included) raises ``beyond_int64`` past every ``except`` clause when ``CONVERSIONS_RAISE``,
    else saturates. Inside a ``try`` body, nan and ±inf raise as in CPython (item 30)."""
    if in_try() and (x != x or x in (math.inf, -math.inf)):
        return exact(x)
    if CONVERSIONS_RAISE[0] and (x >= 9.223372036854775807e18 or x < -9.223372036854775807e18):
        BEYOND_RAISED[0] = True
        raise BeyondInt64(beyond_int64(function, x))
    if x != x or x in (math.inf, -math.inf):
        FALLBACKS[0] += 1
    if x != x:
        return 0
    if x >= 9.223372036854775807e18 or x < -9.223372036854775807e18:
        if x not in (math.inf, -math.inf):
            if EXACT_CONVERSIONS[0]:
                return _wide(exact(x))
            SATURATED[0] = True
        return INT64_MAX if x > 0 else INT64_MIN
    return exact(x)


def ieee_int(x: Any = 0) -> Any:
    # An int beyond int64 kept by `int()` (`int(max(0, 2**63, 1.0))`, where item 8 holds the
    # max as float64 and item 7 raises, fuzz finding 690009 #754) is WIDE: no int64 lane holds it.
    return _saturate(x, int) if isinstance(x, float) else _wide(int(x))


def ieee_round(x: Any, *nd: Any) -> Any:
    if isinstance(x, float) and not nd:
        return _saturate(x, round, "round")
    try:
        # An int rounded to tens or more may leave int64 (`round(INT64_MAX, -1)`): WIDE, item 6.
        return _wide(round(x, *nd))
    except OverflowError:  # D17 table, round_digits: `round(1.7e308, -308)` is +-inf
        if in_try():
            raise
        FALLBACKS[0] += 1
        return math.copysign(math.inf, x)


#: Whether the element being run computed an int outside int64's range (``Ok.wide``,
#: ``Raised.wide``): there the vectorized value wraps (items 6, 13), so a condition on it, a
#: raise decision included, may go the other way.
WIDE = [False]


def _wide(v: Any) -> Any:
    if type(v) is int and not INT64_MIN <= v < INT64_END:
        WIDE[0] = True
    return v


def _wide_add(a: Any, b: Any) -> Any:
    return _wide(a + b)


def _wide_sub(a: Any, b: Any) -> Any:
    return _wide(a - b)


def _wide_mul(a: Any, b: Any) -> Any:
    return _wide(a * b)
