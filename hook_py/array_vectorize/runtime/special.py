"""Functions the Array API lacks (D17): ``math`` functions written in ``xp`` operations.

Every helper takes the namespace ``xp`` first, float64 arrays (or Python floats) after it, and
returns float64 (``_vec_isclose``: bool). They are plain array expressions: no Python branch on
array values and no in-place writes, so they run on NumPy and array-api-strict and trace under
``jax.jit`` (where XLA flushes subnormals and may fuse multiply-adds: semantics item 14).

Accuracy against CPython's ``math`` (measured; the figures are in ``docs/semantics.md``, section
"Functions the Array API lacks (D17)", and ``ULP_BOUNDS`` below holds the bounds the tests assert):

* ``erf``, ``erfc``: within 2 and 3 ulps (within 2 ulps of the true value for both);
* ``fmod``, ``remainder``, ``isclose``: exact (the same IEEE value in every lane).

Where CPython raises, D3 gives the IEEE value instead; each helper's docstring names those lanes.

``SPECIAL_HELPERS`` maps a stable key to the global name generated code uses and the callable, in
the shape of ``registry.RUNTIME_HELPERS``: registering a helper is adding its entry there.
"""

from __future__ import annotations

import math
from fractions import Fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from . import special_tables
from .dtype import _NAMESPACES, Namespace, namespace_info


def _info(xp: Any) -> Namespace:
    return _NAMESPACES.get(xp) or namespace_info(xp)


def _f64(xp: Any, info: Namespace, v: Any) -> Any:
    """``v`` as a float64 array: Python numbers become 0-d arrays, other dtypes are converted."""
    dt = getattr(v, "dtype", None)
    if dt is None:
        return info.scalar("f", float(v))
    if info.is_float64(dt):
        return v
    return xp.astype(v, info.float64)


#: (namespace, table name) -> the table as a 2-d float64 array of that namespace.
_TABLES: dict[tuple[Any, str], Any] = {}


def _table(xp: Any, name: str) -> Any:
    key = (xp, name)
    table = _TABLES.get(key)
    if table is None:
        rows = _FACTORIALS if name == "FACTORIALS" else getattr(special_tables, name)
        table = _TABLES[key] = xp.asarray(rows, dtype=xp.float64)
    return table


def _horner(s: Any, coeffs: Any) -> Any:
    """``c0 + c1 * s + c2 * s**2 + ...`` for a table row ``(centre, c0 head, c0 tail, c1, ...)``
    of Python floats or of per-lane arrays: the tail joins the sum before the head, so ``c0``
    counts to ~106 bits."""
    p = coeffs[-1]
    for c in coeffs[-2:2:-1]:
        p = p * s + c
    return (p * s + coeffs[2]) + coeffs[1]


def _piecewise(xp: Any, name: str, piece: Any, x: Any, shift: float = 0.0) -> Any:
    """The polynomial of table ``name`` on ``piece`` (int64 lanes, in range) at ``x + shift``:
    one gather of every lane's row, then Horner on its columns in ``s = x - (centre - shift)``
    (exact where ``x`` is within a factor of two of ``centre - shift``, by Sterbenz' lemma)."""
    table = _table(xp, name)
    shape = piece.shape
    rows = xp.take(table, xp.reshape(piece, (-1,)), axis=0)
    columns = [xp.reshape(rows[:, j], shape) for j in range(table.shape[1])]
    return _horner(x - (columns[0] - shift), columns)


def _split(x: Any) -> Any:
    """The 26 leading bits of ``x`` (Dekker's split; ``|x|`` well below 2**996): ``x * x`` of the
    result is exact."""
    c = 134217729.0 * x  # 2**27 + 1
    return c - (c - x)


# --------------------------------------------------------------------------- erf, erfc

_ERF_SMALL = special_tables.ERF_SMALL[0]
#: erfc(x) is below half the smallest subnormal from here on.
_ERFC_ZERO = 27.5


def _erf_parts(xp: Any, info: Namespace, x: Any) -> tuple[Any, Any, Any, Any]:
    """``(small, xq, tail, ax)``: ``small`` marks ``|x| < 0.5``, where ``erf(x) = x + xq``;
    elsewhere ``tail = erfc(|x|)`` (``ax = |x|``, NaN lanes read as 1.0).

    ``erf(x) / x - 1`` is one polynomial in ``x * x`` on ``|x| < 0.5``. Beyond it,
    ``erfc(x) = exp(-x*x) * erfcx(x)`` with ``erfcx`` a piecewise polynomial (28 pieces of width
    1 up to 28.5). ``exp(-x*x)`` is taken as ``exp(-h*h) * exp(-(x - h)(x + h))`` with ``h``
    the 26 leading bits of ``x``: ``h*h`` is exact, so the large exponent carries no rounding
    error (which ``exp`` would multiply by ``x*x``, up to ~750), and the second factor is
    ``1 + expm1(d)`` with ``|d| < 3e-5``.
    """
    ax = xp.where(xp.isnan(x), 1.0, xp.abs(x))
    small = ax < 0.5
    t = xp.where(small, ax, 0.0)
    xq = x * _horner(t * t - _ERF_SMALL[0], _ERF_SMALL)
    a = xp.clip(ax, 0.5, 28.0)
    piece = xp.astype(xp.floor(a - 0.5), info.int64)
    g = _piecewise(xp, "ERFCX", piece, a)
    h = _split(a)
    tail = xp.exp(-(h * h)) * (g + g * xp.expm1(-((a - h) * (a + h))))
    tail = xp.where(ax >= _ERFC_ZERO, 0.0, tail)
    return small, xq, tail, ax


def _vec_erf(xp: Any, x: Any) -> Any:
    """``math.erf(x)``: ``+-0`` keep their sign, ``erf(+-inf) == +-1``; no lane raises."""
    info = _info(xp)
    x = _f64(xp, info, x)
    with info.quiet():
        small, xq, tail, _ = _erf_parts(xp, info, x)
        result = xp.where(small, x + xq, xp.copysign(1.0 - tail, x))
    return xp.where(xp.isnan(x), x, result)


def _vec_erfc(xp: Any, x: Any) -> Any:
    """``math.erfc(x)``, without cancellation in the tails: relative accuracy down to the
    subnormals (``erfc(26.6)`` is ~1e-309), ``erfc(x) == 0`` from 27.3 on and 2 for large
    negative ``x``; ``erfc(+-inf)`` is 0 and 2; no lane raises."""
    info = _info(xp)
    x = _f64(xp, info, x)
    with info.quiet():
        small, xq, tail, ax = _erf_parts(xp, info, x)
        # Near 0.5, (x - 0.5) is exact and 0.5 - (...) loses nothing (erfc(0.5) ~ 0.48).
        near = xp.where(x >= 0.25, 0.5 - ((x - 0.5) + xq), 1.0 - (x + xq))
        result = xp.where(small, near, xp.where(x < 0.0, 2.0 - tail, tail))
    return xp.where(xp.isnan(x), x, result)


# --------------------------------------------------------------------------- gamma, lgamma

#: gamma(n) == (n - 1)! for n = 1..23, all exact in float64 (CPython returns these exactly).
_FACTORIALS = tuple(float(math.factorial(n)) for n in range(23))
#: sqrt(2 * pi) as head + tail.
_SQRT_2PI, _SQRT_2PI_TAIL = 2.5066282746310007, -1.8328579980459167e-16
_LOG_PI = 1.1447298858494002
#: log(2 * pi) / 2 - 1/2
_STIRLING_CONSTANT = 0.4189385332046727
#: B(2k) / (2k (2k - 1)), k = 1..8: log(gamma(x)) - Stirling's main terms ~ sum(c_k / x**(2k - 1)).
_STIRLING_SERIES = tuple(
    b / ((2 * k) * (2 * k - 1))
    for k, b in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510), 1)
)
#: gamma's table covers [1, 12), lgamma's Stirling sum starts at 12.5 (truncation < 1e-18).
_GAMMA_TABLE_END, _LGAMMA_TABLE_END = 12.0, 12.5
#: Above it gamma overflows and, for negative x, underflows to a signed zero (as in CPython).
_GAMMA_CLAMP = 200.0


def _stirling_sum(a: Any) -> Any:
    """``sum(c_k / a**(2k - 1))``, the correction to Stirling's formula (``a >= 12``)."""
    z = 1.0 / a
    w = z * z
    p = _STIRLING_SERIES[-1]
    for c in _STIRLING_SERIES[-2::-1]:
        p = p * w + c
    return p * z


def _sinpi(xp: Any, x: Any) -> Any:
    """``sin(pi * x)`` for finite ``x``: ``x - round(x)`` is exact, so the reduction loses nothing
    and large ``x`` keep their accuracy (0 at every integer)."""
    n = xp.round(x)
    s = xp.sin(math.pi * (x - n))
    half = 0.5 * n
    return xp.where(xp.floor(half) != half, -s, s)


def _gamma_table(xp: Any, info: Namespace, t: Any) -> Any:
    """``gamma(t)`` for ``-1 < t < 12`` (``t`` not 0 or -1) from the table on [1, 12):
    ``gamma(t + 1) / t`` below 1 and ``gamma(t + 2) / (t (t + 1))`` below 0, with the table's
    polynomial evaluated at the shifted argument without rounding it."""
    shift = xp.astype(t < 1.0, info.float64) + xp.astype(t < 0.0, info.float64)
    piece = xp.clip(xp.floor(2.0 * t) + 2.0 * shift - 2.0, 0.0, 21.0)
    value = _piecewise(xp, "GAMMA", xp.astype(piece, info.int64), t, shift)
    return value / xp.where(t < 0.0, t * (t + 1.0), xp.where(t < 1.0, t, 1.0))


def _stirling_gamma(xp: Any, a: Any) -> tuple[Any, Any]:
    """``(A, B)`` with ``gamma(a) = A * B * B`` for ``12 <= a <= 200``, each factor finite:
    ``B = a ** ((a - 0.5) / 2)`` (one ``pow`` of exact operands, no error growing with ``a``),
    ``A = exp(-a) * sqrt(2 pi) * exp(sum)``."""
    b = xp.pow(a, (a - 0.5) * 0.5)
    corr = _SQRT_2PI + (_SQRT_2PI_TAIL + _SQRT_2PI * xp.expm1(_stirling_sum(a)))
    return xp.exp(-a) * corr, b


def _vec_gamma(xp: Any, x: Any) -> Any:
    """``math.gamma(x)``.

    ``gamma(n)`` for integers 1..23 is exact, as in CPython. Otherwise: a piecewise polynomial on
    [1, 12) (below 1 through ``gamma(x + 1) / x``), Stirling's series from 12 on, and for
    ``x <= -1`` the reflection ``gamma(x) = pi / (sin(pi x) |x| gamma(|x|))``, whose large-``|x|``
    form divides by the Stirling factors one at a time so that results down to the subnormals
    stay accurate.

    D3 (CPython raises): ``gamma(+-0.0)`` is ``+-inf`` and a negative integer or ``-inf`` gives
    nan (``ValueError``); past 171.62 and for ``0 < x < 5.6e-309`` the result is ``inf``, and
    ``-inf`` for ``-5.6e-309 < x < 0`` (``OverflowError``). ``gamma(inf) == inf``; large negative
    non-integers give a zero with the sign of ``sin(pi x)``, as in CPython.
    """
    info = _info(xp)
    x = _f64(xp, info, x)
    with info.quiet():
        finite = xp.isfinite(x)
        xs = xp.where(finite, x, 1.5)
        a = xp.abs(xs)
        integral = xp.floor(xs) == xs
        t = xp.where(xs <= -1.0, a, xs)
        t = xp.where(xp.logical_or(xp.logical_or(t >= _GAMMA_TABLE_END, t == 0.0), t == -1.0), 1.5, t)
        table = _gamma_table(xp, info, t)
        big_a, big_b = _stirling_gamma(xp, xp.clip(a, _GAMMA_TABLE_END, _GAMMA_CLAMP))
        small = a < _GAMMA_TABLE_END
        positive = xp.where(small, table, (big_a * big_b) * big_b)
        c = math.pi / (_sinpi(xp, xs) * a)
        negative = xp.where(small, c / table, ((c / big_a) / big_b) / big_b)
        result = xp.where(xs > -1.0, positive, negative)
        index = xp.astype(xp.clip(xs, 1.0, 23.0), info.int64) - 1
        exact = xp.take(_table(xp, "FACTORIALS"), xp.reshape(index, (-1,)))
        result = xp.where(xp.logical_and(integral, xs <= 23.0), xp.reshape(exact, index.shape), result)
        result = xp.where(xp.logical_and(integral, xs < 0.0), math.nan, result)
        result = xp.where(xs == 0.0, xp.copysign(xp.full_like(x, math.inf), x), result)
    return xp.where(finite, result, xp.where(x > 0.0, x, math.nan))


def _lgamma_positive(xp: Any, info: Namespace, a: Any) -> Any:
    """``lgamma(a)`` for ``a > 0``: ``(a - 1)(a - 2) R(a)`` on [0.5, 3.5), with ``R`` a table, so
    the zeros at 1 and 2 keep relative accuracy; ``R(a + 1) a (a - 1) - log(a)`` below 0.5; a
    table of ``lgamma`` itself on [3.5, 12.5); Stirling's series beyond."""
    low = a < 0.5
    y = xp.where(low, a + 1.0, xp.where(a < 3.5, a, 1.5))  # picks the piece only
    piece = xp.where(y < 1.0, xp.floor(4.0 * y) - 2.0, xp.floor(2.0 * y))
    ratio = _piecewise(xp, "LGAMMA_RATIO", xp.astype(piece, info.int64), xp.where(low, a, y), xp.astype(low, info.float64))
    near = xp.where(low, (a * (a - 1.0)) * ratio - xp.log(a), ((a - 1.0) * (a - 2.0)) * ratio)
    mid = xp.clip(a, 3.5, _LGAMMA_TABLE_END)
    piece = xp.minimum(xp.floor(mid - 0.5) - 3.0, 8.0)
    table = _piecewise(xp, "LGAMMA", xp.astype(piece, info.int64), mid)
    big = xp.maximum(a, _LGAMMA_TABLE_END)
    stirling = (big - 0.5) * (xp.log(big) - 1.0) + (_STIRLING_CONSTANT + _stirling_sum(big))
    return xp.where(a < 3.5, near, xp.where(a < _LGAMMA_TABLE_END, table, stirling))


def _vec_lgamma(xp: Any, x: Any) -> Any:
    """``math.lgamma(x)``: ``log(|gamma(x)|)``.

    Positive ``x``: see ``_lgamma_positive``; ``lgamma(1) == lgamma(2) == 0.0``. Negative ``x``:
    CPython's reflection ``log(pi) - log|sin(pi x)| - log|x| - lgamma(|x|)`` (with an exact
    ``sin(pi x)`` reduction), and ``-log|x|`` for ``|x| < 1e-20``; near the two zeros of
    ``lgamma`` at -2.457 and -2.747 the terms cancel, so there (as in CPython) the error is small
    in absolute terms (~1e-15), not relative to the tiny result.

    D3 (CPython raises ``ValueError``): ``lgamma`` of zero or a negative integer is ``inf``; past
    2.55e305 the result is ``inf`` (``OverflowError``). ``lgamma(+-inf) == inf``.
    """
    info = _info(xp)
    x = _f64(xp, info, x)
    with info.quiet():
        finite = xp.isfinite(x)
        xs = xp.where(finite, x, 1.5)
        a = xp.abs(xs)
        safe = xp.where(a == 0.0, 1.5, a)
        positive = _lgamma_positive(xp, info, safe)
        reflected = ((_LOG_PI - xp.log(xp.abs(_sinpi(xp, xs)))) - xp.log(safe)) - positive
        result = xp.where(xs > 0.0, positive, reflected)
        result = xp.where(a < 1e-20, -xp.log(safe), result)
        integral = xp.floor(xs) == xs
        result = xp.where(xp.logical_and(integral, xp.logical_or(xs == 1.0, xs == 2.0)), 0.0, result)
        result = xp.where(xp.logical_and(integral, xs <= 0.0), math.inf, result)
    return xp.where(finite, result, xp.abs(x))


# --------------------------------------------------------------------------- fmod, remainder


def _abs_fmod(xp: Any, ax: Any, ay: Any) -> Any:
    """``fmod(ax, ay)`` for ``ax, ay >= 0`` (or NaN): exact.

    The Array API's ``remainder`` is Python's ``%`` (the divisor's sign). On non-negative
    operands floor and truncating division agree, so it is C's ``fmod``, which is exact: NumPy,
    array-api-strict, JAX and CuPy compute it with C ``fmod`` (a namespace computing it as
    ``x - y * floor(x / y)``, as PyTorch's ``remainder`` does, would not be exact).
    """
    return xp.remainder(ax, ay)


def _vec_fmod(xp: Any, x: Any, y: Any) -> Any:
    """``math.fmod(x, y)``, exact: the sign of ``x``, ``|result| < |y|``.

    D3: ``fmod(+-inf, y)`` and ``fmod(x, 0.0)`` give nan (CPython raises ``ValueError``);
    ``fmod(x, +-inf) == x`` for finite ``x``, as in CPython.
    """
    info = _info(xp)
    x, y = _f64(xp, info, x), _f64(xp, info, y)
    with info.quiet():
        r = _abs_fmod(xp, xp.abs(x), xp.abs(y))
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
    info = _info(xp)
    x, y = _f64(xp, info, x), _f64(xp, info, y)
    ax, ay = xp.abs(x), xp.abs(y)
    with info.quiet():
        m = _abs_fmod(xp, ax, ay)
        c = ay - m
        tie = m - 2.0 * _abs_fmod(xp, 0.5 * (ax - m), ay)
        r = xp.where(m < c, m, xp.where(m > c, -c, tie))
    return xp.copysign(xp.ones_like(x), x) * r


# --------------------------------------------------------------------------- fsum

#: -0.0 when this CPython's ``math.fsum`` keeps the sign of a sum of negative zeros, else 0.0.
_FSUM_OF_NEGATIVE_ZERO = math.fsum([-0.0])


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b`` exactly (Knuth; any order of
    magnitudes, no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fsum_finite(xp: Any, values: list[Any]) -> Any:
    """The correctly rounded sum of finite lanes (NaN or inf where an intermediate overflows).

    Shewchuk's expansion: each value goes through the partials with ``_two_sum``, which leaves
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
            x, low = _two_sum(x, p)
            lows.append(low)
        partials = [*lows, x]
    hi = partials[-1]
    lo = xp.zeros_like(hi)
    below = xp.zeros_like(hi)
    done = xp.zeros_like(hi) != 0.0
    for p in reversed(partials[:-1]):
        below = xp.where(xp.logical_and(done, below == 0.0), p, below)
        s, e = _two_sum(hi, p)
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
    info = _info(xp)
    values = [_f64(xp, info, v) for v in values]
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


def _split_constant(b: float) -> tuple[float, float]:
    """``b = hi + lo`` with ``hi`` the 26 leading bits of ``b`` (truncated, so ``lo`` has at most
    27 bits); done on the Python float, so it cannot overflow as Dekker's split would near
    ``DBL_MAX``."""
    m, ex = math.frexp(b)
    hi = math.ldexp(math.floor(math.ldexp(m, 26)), ex - 26)
    return hi, b - hi


def _two_product(a: Any, b: float) -> tuple[Any, Any]:
    """``(p, e)`` with ``p = fl(a * b)`` and ``p + e == a * b`` exactly for a constant ``b``
    (Dekker, no FMA needed: every partial product has at most 53 bits; exact unless ``p``
    overflows or the product's low part falls below the subnormal range)."""
    p = a * b
    a_hi = _split(a)
    a_lo = a - a_hi
    b_hi, b_lo = _split_constant(b)
    return p, (((a_hi * b_hi - p) + a_hi * b_lo) + a_lo * b_hi) + a_lo * b_lo


def _round_fraction_digits(xp: Any, ax: Any, n: int) -> Any:
    """``round(ax, n)`` for ``ax >= 0`` finite and ``0 <= n <= 22``, exact.

    ``t = ax * 10**n`` is held exactly as ``p + e`` (``10**n`` is an exact double). When
    ``p >= 2**53``, ``ax``'s ulp exceeds ``10**-n``, so rounding to ``n`` digits moves it less
    than half an ulp: the result is ``ax``. Otherwise ``k = round(p)`` (half to even) and the
    exact signs of ``t - (k +- 1/2)`` (``p - k`` is exact, and so is ``p - k -+ 1/2`` wherever
    the sign can be in doubt) give CPython's integer ``round-half-even(t)``, at most 2**53; the result is that integer divided by
    ``10**n``, one correctly rounded division, which is what CPython's decimal string gives.
    """
    scale = float(10**n)
    big = ax * scale >= _TWO_53  # also for ax * scale overflowing to inf
    a = xp.where(big, 0.0, ax)
    p, e = _two_product(a, scale)
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
    r = _abs_fmod(xp, ax, scale)
    odd = _abs_fmod(xp, ax, 2.0 * scale) >= scale
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
        p, e = _two_product(a, hi)
        k = xp.round(p)
        f = p - k
        # t - (k +- 1/2), to ~2**-100 of t: f -+ 1/2 is exact wherever the sign is in doubt.
        above = ((f - 0.5) + e) + a * lo
        below = ((f + 0.5) + e) + a * lo
        k = xp.where(above > 0.0, k + 1.0, xp.where(below < 0.0, k - 1.0, k))
        num = k / _FAR_SHIFT
        y = num / hi
        yh, ye = _two_product(y, hi)
        y = y + (((num - yh) - ye) - y * lo) / hi
        return xp.where(big, ax, y)
    hi, lo = _double_double(Fraction(10 ** (-n)))
    q = xp.round(ax / hi)
    big = q >= _TWO_53
    q = xp.where(big, 0.0, q)
    qh, qe = _two_product(q, hi)
    # ax - (q +- 1/2) * 10**m: ax - qh and then -+ hi / 2 are exact (Sterbenz) near a tie.
    above = (((ax - qh) - 0.5 * hi) - qe) - (q + 0.5) * lo
    below = (((ax - qh) + 0.5 * hi) - qe) - (q - 0.5) * lo
    q = xp.where(above > 0.0, q + 1.0, xp.where(below < 0.0, q - 1.0, q))
    qh, qe = _two_product(q, hi)
    y = xp.where(xp.isinf(qh), qh, qh + (qe + q * lo))  # inf: beyond the float range (D3)
    return xp.where(big, ax, y)


def _vec_round_digits(xp: Any, x: Any, ndigits: int) -> Any:
    """``round(x, ndigits)`` for float ``x`` and a constant int ``ndigits``: CPython rounds the
    exact binary value of ``x`` to ``ndigits`` decimal places, ties to even, then reads the
    decimal back correctly rounded (``round(2.675, 2) == 2.67``).

    Exact for ``-22 <= ndigits <= 22`` (see ``_round_fraction_digits`` and
    ``_round_integer_digits``) and beyond CPython's limits (``x`` above 323, ``0.0 * x`` below
    -308); in between, ``_round_far_digits``. The sign of ``x`` is kept (``round(-0.001, 2)``
    is ``-0.0``); nan and +-inf round to themselves. D3: a result beyond the float range is
    ``+-inf`` (CPython raises ``OverflowError``).
    """
    if isinstance(ndigits, bool) or not isinstance(ndigits, int):
        raise TypeError(f"round(x, ndigits) needs a constant int ndigits, got {type(ndigits).__name__}")
    info = _info(xp)
    x = _f64(xp, info, x)
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
    info = _info(xp)
    a, b = _f64(xp, info, a), _f64(xp, info, b)
    checked = []
    for tol in (rel_tol, abs_tol):
        if getattr(tol, "dtype", None) is None:
            if float(tol) < 0.0:
                raise ValueError("tolerances must be non-negative")
        else:
            checked.append(tol >= 0.0)
    rel, tol_abs = _f64(xp, info, rel_tol), _f64(xp, info, abs_tol)
    with info.quiet():
        diff = xp.abs(b - a)
        near = xp.logical_or(diff <= xp.abs(rel * b), diff <= xp.abs(rel * a))
        near = xp.logical_or(near, diff <= tol_abs)
    finite = xp.logical_not(xp.logical_or(xp.isinf(a), xp.isinf(b)))
    close = xp.logical_or(a == b, xp.logical_and(finite, near))
    for valid in checked:
        close = xp.logical_and(close, valid)
    return close


#: stable key -> (global name in generated code, callable), the shape of ``RUNTIME_HELPERS``.
SPECIAL_HELPERS: dict[str, tuple[str, Callable[..., Any]]] = {
    "erf": ("_vec_erf", _vec_erf),
    "erfc": ("_vec_erfc", _vec_erfc),
    "gamma": ("_vec_gamma", _vec_gamma),
    "lgamma": ("_vec_lgamma", _vec_lgamma),
    "fmod": ("_vec_fmod", _vec_fmod),
    "remainder": ("_vec_remainder", _vec_remainder),
    "isclose": ("_vec_isclose", _vec_isclose),
    "fsum": ("_vec_fsum", _vec_fsum),
    "round_digits": ("_vec_round_digits", _vec_round_digits),
}

#: The largest error (in ulps of CPython's ``math`` result) each helper is tested against; see
#: ``docs/semantics.md`` for what was measured and on which inputs. 0 means the same value.
ULP_BOUNDS: dict[str, int] = {
    "erf": 2,
    "erfc": 3,
    "gamma": 10,
    "lgamma": 12,
    "fmod": 0,
    "remainder": 0,
    "fsum": 0,
    "round_digits": 0,
    # round(x, n) for n > 299 where the result is below ~1e-292 (see _round_far_digits).
    "round_digits_subnormal": 1,
}

#: Helpers whose error is counted in ulps of ``max(|math result|, floor)``: an absolute bound
#: where the result is small. ``lgamma`` has zeros (at 1, 2 and two in every interval
#: ``(-n - 1, -n)``) near which CPython's own error is absolute, not relative.
ULP_FLOORS: dict[str, float] = {"lgamma": 1.0}
