"""The exact D17 helpers: ``math.fmod``, ``math.remainder``, ``math.fsum`` of a fixed number of
arguments, ``round(x, n)`` with a constant ``n``, and ``math.isclose``, in ``xp`` operations.

Each gives CPython's value in every lane (``round(x, n)``: for ``-308 <= n <= 299``; see its
docstring), and the IEEE value D3 prescribes where CPython raises. ``special.py`` lists them in
``SPECIAL_HELPERS``.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .eft import abs_fmod, as_f64, namespace, two_product, two_sum


# --------------------------------------------------------------------------- fmod, remainder


def _vec_fmod(xp: Any, x: Any, y: Any) -> Any:
    """``math.fmod(x, y)``, exact: the sign of ``x``, ``|result| < |y|``.

    D3: ``fmod(+-inf, y)`` and ``fmod(x, 0.0)`` give nan (CPython raises ``ValueError``);
    ``fmod(x, +-inf) == x`` for finite ``x``, as in CPython.
    """
    info = namespace(xp)
    x, y = as_f64(xp, info, x), as_f64(xp, info, y)
    with info.quiet():
        r = abs_fmod(xp, xp.abs(x), xp.abs(y))
    return xp.copysign(r, x)


def _vec_remainder(xp: Any, x: Any, y: Any) -> Any:
    """``math.remainder(x, y)``, exact: ``x - n * y`` with ``n`` the nearest integer to ``x / y``,
    ties to even.

    CPython's steps, lane by lane: ``m = fmod(|x|, |y|)`` and ``c = |y| - m`` are exact, so
    comparing them decides whether ``m`` is below, above or exactly at half of ``|y|``; at a tie
    ``(|x| - m) / 2`` (exact: ``|x| - m`` is a multiple of ``|y|``) tells the parity of the
    quotient. D3: ``remainder(+-inf, y)`` and ``remainder(x, 0.0)`` give nan (CPython raises
    ``ValueError``); ``remainder(x, +-inf) == x`` for finite ``x``.
    """
    info = namespace(xp)
    x, y = as_f64(xp, info, x), as_f64(xp, info, y)
    ax, ay = xp.abs(x), xp.abs(y)
    with info.quiet():
        m = abs_fmod(xp, ax, ay)
        c = ay - m
        tie = m - 2.0 * abs_fmod(xp, 0.5 * (ax - m), ay)
        r = xp.where(m < c, m, xp.where(m > c, -c, tie))
    return xp.copysign(xp.ones_like(x), x) * r


# --------------------------------------------------------------------------- fsum

#: -0.0 when this CPython's ``math.fsum`` keeps the sign of a sum of negative zeros, else 0.0.
_FSUM_OF_NEGATIVE_ZERO = math.fsum([-0.0])


def _fsum_finite(xp: Any, values: list[Any]) -> Any:
    """The correctly rounded sum of finite lanes (NaN or inf where an intermediate overflows).

    Shewchuk's expansion: each value goes through the partials with ``two_sum``, which leaves
    the partials non-overlapping in increasing magnitude and their exact sum equal to the sum of
    the values so far (lanes keep their zero partials: a zero changes nothing). The partials are
    then added from the top until an addition is inexact; the rounding error ``lo`` of that
    addition is half an ulp of the result at most, and when it is exactly half an ulp the sign of
    the next non-zero partial below decides the rounding, as in CPython's ``fsum``.
    """
    partials: list[Any] = []
    for x in values:
        lows = []
        for p in partials:
            x, low = two_sum(x, p)
            lows.append(low)
        partials = [*lows, x]
    hi = partials[-1]
    lo = xp.zeros_like(hi)
    below = xp.zeros_like(hi)
    done = xp.zeros_like(hi) != 0.0
    for p in reversed(partials[:-1]):
        below = xp.where(xp.logical_and(done, below == 0.0), p, below)
        s, e = two_sum(hi, p)
        hi = xp.where(done, hi, s)
        lo = xp.where(done, lo, e)
        done = xp.logical_or(done, e != 0.0)
    same_sign = xp.logical_or(xp.logical_and(lo < 0.0, below < 0.0), xp.logical_and(lo > 0.0, below > 0.0))
    twice = 2.0 * lo
    up = hi + twice
    return xp.where(xp.logical_and(same_sign, up - hi == twice), up, hi)


def _vec_fsum(xp: Any, *values: Any) -> Any:
    """``math.fsum((v1, v2, ...))`` of a fixed number of arguments, lane by lane.

    Guarantee: where CPython returns a value, the same value (the exact sum correctly rounded,
    ties to even). Where CPython raises: ``inf + -inf`` gives nan (``ValueError``); an
    intermediate overflow (``OverflowError``) gives the correctly rounded sum, ``+-inf`` if that
    overflows, computed again on the values scaled by a power of two (exact unless the lane also
    holds values below ``2**-1000`` in magnitude, which the scaling rounds); with an infinite
    value, the sum of the infinities. A sum of zeros is ``+0.0`` or ``-0.0`` as this CPython's
    ``fsum`` gives it.
    """
    info = namespace(xp)
    values = [as_f64(xp, info, v) for v in values]
    if not values:
        return info.scalar("f", 0.0)
    scale = 2.0 ** -(len(values) - 1).bit_length()  # 1 / 2**k >= 1 / len(values)
    with info.quiet():
        finite = [xp.where(xp.isfinite(v), v, 0.0) for v in values]
        total = _fsum_finite(xp, finite)
        rescaled = _fsum_finite(xp, [v * scale for v in finite]) / scale
        total = xp.where(xp.isfinite(total), total, rescaled)
        special = None
        ieee = None
        for v in values:
            part = xp.where(xp.isfinite(v), 0.0, v)
            special = part if special is None else special + part
            ieee = v if ieee is None else ieee + v
        if math.copysign(1.0, _FSUM_OF_NEGATIVE_ZERO) < 0.0:
            zero = ieee  # where every value is a zero, their IEEE sum: -0.0 only if all are -0.0
        else:
            zero = xp.zeros_like(total)
        total = xp.where(total == 0.0, zero, total)
        return xp.where(special == 0.0, total, special)


# --------------------------------------------------------------------------- round(x, n)

#: CPython's limits: ``round(x, n)`` is ``x`` above ``_NDIGITS_MAX`` and ``0.0 * x`` below
#: ``_NDIGITS_MIN`` (``floatobject.c``).
_NDIGITS_MAX, _NDIGITS_MIN = 323, -308
#: Powers of ten up to here are exact doubles.
_EXACT_POW10 = 22
_TWO_53 = 2.0**53


def _round_fraction_digits(xp: Any, ax: Any, n: int) -> Any:
    """``round(ax, n)`` for ``ax >= 0`` finite and ``0 <= n <= 22``, exact.

    ``t = ax * 10**n`` is held exactly as ``p + e`` (``10**n`` is an exact double). When
    ``p >= 2**53``, ``ax``'s ulp exceeds ``10**-n``, so rounding to ``n`` digits moves it less
    than half an ulp: the result is ``ax``. Otherwise ``k = round(p)`` (half to even) and the
    exact signs of ``t - (k +- 1/2)`` (``p - k`` is exact, and so is ``p - k -+ 1/2`` wherever
    the sign can be in doubt) give CPython's integer ``round-half-even(t)``, at most 2**53; the
    result is that integer divided by ``10**n``, one correctly rounded division, which is what
    CPython's decimal string gives.
    """
    scale = float(10**n)
    big = ax * scale >= _TWO_53  # also for ax * scale overflowing to inf
    a = xp.where(big, 0.0, ax)
    p, e = two_product(a, scale)
    k = xp.round(p)
    f = p - k
    # The signs of t - (k + 1/2) and t - (k - 1/2). An exact tie needs no step: either e == 0 and
    # round(p) already took the even side, or p >= 2**52, e == +-1/2 and fl(t) did.
    k = xp.where((f - 0.5) + e > 0.0, k + 1.0, xp.where((f + 0.5) + e < 0.0, k - 1.0, k))
    return xp.where(big, ax, k / scale)


def _round_integer_digits(xp: Any, ax: Any, m: int) -> Any:
    """``round(ax, -m)`` for ``ax >= 0`` finite and ``1 <= m <= 22``, exact.

    With ``P = 10**m`` exact, ``r = fmod(ax, P)`` is exact, the truncated quotient is odd when
    ``fmod(ax, 2 P) >= P``, and the two candidates ``ax - r`` and ``ax + (P - r)`` (``P - r`` is
    exact by Sterbenz' lemma when ``r >= P / 2``, the only case it is used) are each one
    correctly rounded operation on the exact multiple of ``P`` CPython's string conversion
    rounds. Overflow gives ``inf`` (CPython raises ``OverflowError``).
    """
    scale = float(10**m)
    r = abs_fmod(xp, ax, scale)
    odd = abs_fmod(xp, ax, 2.0 * scale) >= scale
    up = xp.logical_or(r > 0.5 * scale, xp.logical_and(r == 0.5 * scale, odd))
    return xp.where(up, ax + (scale - r), ax - r)


def _double_double(v: Fraction) -> tuple[float, float]:
    """``v`` as ``hi + lo`` (about 106 bits)."""
    hi = float(v)
    return hi, float(v - Fraction(hi))


#: Positive powers of ten beyond 22 are used scaled by 2**-64 (so 10**323 fits).
_FAR_SHIFT = 2.0**64


def _round_far_digits(xp: Any, ax: Any, n: int) -> Any:
    """``round(ax, n)`` for ``22 < |n|``, where ``10**|n|`` is not a double: ``10**|n|`` as a
    double-double (relative error below 2**-106), so the rounding to an integer and the final
    scaling are each decided from a ~106-bit value and can differ from CPython only when the
    exact value lies within ~2**-100 (relative) of a rounding boundary.

    ``n > 0``: the result is ``ax`` when ``ax * 10**n >= 2**53`` (``ax``'s ulp then exceeds
    ``10**-n``); else ``k = round(ax * 10**n)`` with a one-step correction from the low parts,
    and ``k / 10**n`` by a division corrected with its residual. ``n < 0``: likewise with the
    quotient ``ax / 10**-n`` and the product by ``10**-n``.
    """
    if n > 0:
        hi, lo = _double_double(Fraction(10**n) / Fraction(_FAR_SHIFT))
        big = (ax * _FAR_SHIFT) * hi >= _TWO_53
        a = xp.where(big, 0.0, ax) * _FAR_SHIFT
        p, e = two_product(a, hi)
        k = xp.round(p)
        f = p - k
        # t - (k +- 1/2), to ~2**-100 of t: f -+ 1/2 is exact wherever the sign is in doubt.
        above = ((f - 0.5) + e) + a * lo
        below = ((f + 0.5) + e) + a * lo
        k = xp.where(above > 0.0, k + 1.0, xp.where(below < 0.0, k - 1.0, k))
        num = k / _FAR_SHIFT
        y = num / hi
        yh, ye = two_product(y, hi)
        y = y + (((num - yh) - ye) - y * lo) / hi
        return xp.where(big, ax, y)
    # Everything a quarter of its size, so that no candidate q * 10**m overflows (exact: the
    # values involved are at least 10**22 / 4); the final times 4 gives inf past the range (D3).
    hi, lo = _double_double(Fraction(10 ** (-n)) / 4)
    a = 0.25 * ax
    q = xp.round(a / hi)
    big = q >= _TWO_53
    q = xp.where(big, 0.0, q)
    qh, qe = two_product(q, hi)
    # a - (q +- 1/2) * hi: a - qh and then -+ hi / 2 are exact (Sterbenz) near a tie.
    above = (((a - qh) - 0.5 * hi) - qe) - (q + 0.5) * lo
    below = (((a - qh) + 0.5 * hi) - qe) - (q - 0.5) * lo
    q = xp.where(above > 0.0, q + 1.0, xp.where(below < 0.0, q - 1.0, q))
    qh, qe = two_product(q, hi)
    return xp.where(big, ax, 4.0 * (qh + (qe + q * lo)))


def _vec_round_digits(xp: Any, x: Any, ndigits: int) -> Any:
    """``round(x, ndigits)`` for float ``x`` and an int ``ndigits`` (a constant, or one value per
    call, D14: read with ``operator.index`` as CPython reads it): CPython rounds the
    exact binary value of ``x`` to ``ndigits`` decimal places, ties to even, then reads the
    decimal back correctly rounded (``round(2.675, 2) == 2.67``).

    Exact for ``-22 <= ndigits <= 22`` (see ``_round_fraction_digits`` and
    ``_round_integer_digits``) and beyond CPython's limits (``x`` above 323, ``0.0 * x`` below
    -308); in between, ``_round_far_digits``. The sign of ``x`` is kept (``round(-0.001, 2)``
    is ``-0.0``); nan and +-inf round to themselves. D3: a result beyond the float range is
    ``+-inf`` (CPython raises ``OverflowError``).
    """
    if ndigits is None:
        # D14: a per-call ndigits of None is `round(x)`, an int, where the generated code
        # computes a float.
        raise TypeError("round(x, ndigits) with ndigits None gives an int, which this compiled function does not: pass an int ndigits, or call round(x) for None")
    # CPython's conversion of ndigits (an int, a bool, a NumPy int; a float raises TypeError).
    ndigits = operator.index(ndigits)
    info = namespace(xp)
    x = as_f64(xp, info, x)
    if ndigits > _NDIGITS_MAX:
        return x
    if ndigits < _NDIGITS_MIN:
        return xp.where(xp.isfinite(x), xp.copysign(xp.zeros_like(x), x), x)
    finite = xp.isfinite(x)
    ax = xp.where(finite, xp.abs(x), 0.0)
    with info.quiet():
        if 0 <= ndigits <= _EXACT_POW10:
            magnitude = _round_fraction_digits(xp, ax, ndigits)
        elif -_EXACT_POW10 <= ndigits < 0:
            magnitude = _round_integer_digits(xp, ax, -ndigits)
        else:
            magnitude = _round_far_digits(xp, ax, ndigits)
    return xp.where(finite, xp.copysign(magnitude, x), x)


# --------------------------------------------------------------------------- isclose


def _vec_isclose(xp: Any, a: Any, b: Any, rel_tol: Any = 1e-09, abs_tol: Any = 0.0) -> Any:
    """``math.isclose(a, b, rel_tol=..., abs_tol=...)`` lane by lane (bool), as CPython defines it:
    equal values are close (``inf`` with ``inf``), otherwise an infinity is close to nothing, else
    ``|b - a| <= max(rel_tol * |a|, rel_tol * |b|)`` or ``|b - a| <= abs_tol``; NaN is close to
    nothing.

    A negative tolerance given as a Python number raises ``ValueError`` as CPython does; given as
    an array, its negative lanes are ``False`` (an array cannot raise per lane, D3).
    """
    info = namespace(xp)
    a, b = as_f64(xp, info, a), as_f64(xp, info, b)
    checked = []
    for tol in (rel_tol, abs_tol):
        if getattr(tol, "dtype", None) is None:
            if float(tol) < 0.0:
                raise ValueError("tolerances must be non-negative")
        else:
            checked.append(xp.logical_not(tol < 0.0))  # a NaN tolerance is no error (CPython)
    rel, tol_abs = as_f64(xp, info, rel_tol), as_f64(xp, info, abs_tol)
    with info.quiet():
        diff = xp.abs(b - a)
        near = xp.logical_or(diff <= xp.abs(rel * b), diff <= xp.abs(rel * a))
        near = xp.logical_or(near, diff <= tol_abs)
    finite = xp.logical_not(xp.logical_or(xp.isinf(a), xp.isinf(b)))
    close = xp.logical_or(a == b, xp.logical_and(finite, near))
    for valid in checked:
        close = xp.logical_and(close, valid)
    return close
