"""Functions the Array API lacks (D17): ``math`` functions written in ``xp`` operations.

Every helper takes the namespace ``xp`` first, float64 arrays (or Python floats) after it, and
returns float64 (``_vec_isclose``: bool). They are plain array expressions: no Python branch on
array values and no in-place writes, so they run on NumPy and array-api-strict and trace under
``jax.jit`` (where XLA flushes subnormals and may fuse multiply-adds: semantics item 14).

Accuracy against CPython's ``math`` (measured; the figures are in ``docs/semantics.md``, section
"Functions the Array API lacks (D17)", and ``ULP_BOUNDS`` below holds the bounds the tests assert):

* ``erf``, ``erfc``: within 2 and 4 ulps (within 1 and 2 ulps of the true value);
* ``gamma``: within 10 ulps (5 of the true value; CPython's own error reaches 7);
* ``lgamma``: within 16 ulps of ``max(|result|, 1)`` (2 ulps of the true value for ``x > 0``,
  where CPython's own error reaches ~1e4 ulps near 1 and 2, and 9 ulps at 3.9694226895583524,
  found by fuzz seed 97005, where this helper is correctly rounded);
* ``fmod``, ``remainder``, ``isclose``, ``fsum`` and ``round(x, n)`` (``special_exact.py``):
  exact, the same IEEE value in every lane (``round``: up to 1 ulp off for ``n >= 300`` with
  results below ~1e-292).

Where CPython raises, D3 gives the IEEE value instead; each helper's docstring names those lanes.

``SPECIAL_HELPERS`` maps a stable key to the global name generated code uses and the callable, in
the shape of ``registry.RUNTIME_HELPERS``: registering a helper is adding its entry there.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from . import compat
from ._generated import special_tables
from .dtype import Namespace
from .eft import as_f64, namespace, split
from .special_exact import _vec_fmod, _vec_fsum, _vec_isclose, _vec_remainder, _vec_round_digits


#: (namespace, table name) -> the table's columns, each a 1-d float64 array of that namespace.
_TABLES: dict[tuple[Any, str], tuple[Any, ...]] = {}


def _columns(xp: Any, name: str) -> tuple[Any, ...]:
    """The columns of table ``name`` as arrays of ``xp`` (gathering from a contiguous column is
    ~50 times faster on NumPy than gathering whole rows), cached unless the namespace's arrays
    are lazy (a JAX array made while tracing belongs to that trace and must not outlive it)."""
    key = (xp, name)
    columns = _TABLES.get(key)
    if columns is None:
        rows = [(f,) for f in _FACTORIALS] if name == "FACTORIALS" else getattr(special_tables, name)
        columns = tuple(xp.asarray(list(col), dtype=xp.float64) for col in zip(*rows))
        if not compat.is_lazy_array(columns[0]):
            _TABLES[key] = columns
    return columns


def _gather(xp: Any, name: str, piece: Any) -> list[Any]:
    """Every column of table ``name`` at ``piece`` (int64 lanes, in range), in ``piece``'s shape."""
    flat = xp.reshape(piece, (-1,))
    return [xp.reshape(xp.take(col, flat), piece.shape) for col in _columns(xp, name)]


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
    every lane's coefficients gathered, then Horner in ``s = x - (centre - shift)``
    (exact where ``x`` is within a factor of two of ``centre - shift``, by Sterbenz' lemma)."""
    columns = _gather(xp, name, piece)
    return _horner(x - (columns[0] - shift), columns)


# --------------------------------------------------------------------------- erf, erfc

_ERF_SMALL = special_tables.ERF_SMALL[0]


def _erf_parts(xp: Any, info: Namespace, x: Any) -> tuple[Any, Any, Any]:
    """``(small, xq, tail)``: ``small`` marks ``|x| < 0.5``, where ``erf(x) = x + xq``;
    elsewhere ``tail = erfc(|x|)`` (NaN lanes read as 1.0).

    ``erf(x) / x - 1`` is one polynomial in ``x * x`` on ``|x| < 0.5``. Beyond it,
    ``erfc(x) = exp(-x*x) * erfcx(x)`` with ``erfcx`` a piecewise polynomial (112 pieces of
    width 1/4 up to 28.5). ``exp(-x*x)`` is taken as ``exp(-h*h) * exp(-(x - h)(x + h))`` with ``h``
    the 26 leading bits of ``x``: ``h*h`` is exact, so the large exponent carries no rounding
    error (which ``exp`` would multiply by ``x*x``, up to ~750), and the second factor is
    ``1 + expm1(d)`` with ``|d| < 3e-5``.
    """
    ax = xp.where(xp.isnan(x), 1.0, xp.abs(x))
    small = ax < 0.5
    xq = x * _horner(x * x - _ERF_SMALL[0], _ERF_SMALL)  # used where small only
    a = xp.clip(ax, 0.5, 28.0)
    piece = xp.astype(xp.floor(4.0 * (a - 0.5)), info.int64)
    g = _piecewise(xp, "ERFCX", piece, a)
    h = split(a)
    # From 27.3 on exp(-h*h) underflows to 0 (|x| is clipped to 28 first): erfc is 0 there.
    tail = xp.exp(-(h * h)) * (g + g * xp.expm1(-((a - h) * (a + h))))
    return small, xq, tail


def _vec_erf(xp: Any, x: Any) -> Any:
    """``math.erf(x)``: ``+-0`` keep their sign, ``erf(+-inf) == +-1``; no lane raises."""
    info = namespace(xp)
    x = as_f64(xp, info, x)
    with info.quiet():
        small, xq, tail = _erf_parts(xp, info, x)
        result = xp.where(small, x + xq, xp.copysign(1.0 - tail, x))
    return xp.where(xp.isnan(x), x, result)


def _vec_erfc(xp: Any, x: Any) -> Any:
    """``math.erfc(x)``, without cancellation in the tails: relative accuracy down to the
    subnormals (``erfc(26.6)`` is ~1e-309), ``erfc(x) == 0`` from 27.3 on and 2 for large
    negative ``x``; ``erfc(+-inf)`` is 0 and 2; no lane raises."""
    info = namespace(xp)
    x = as_f64(xp, info, x)
    with info.quiet():
        small, xq, tail = _erf_parts(xp, info, x)
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
    piece = xp.clip(xp.floor(4.0 * t) + 4.0 * shift - 4.0, 0.0, 43.0)
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
    info = namespace(xp)
    x = as_f64(xp, info, x)
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
        (exact,) = _gather(xp, "FACTORIALS", index)
        result = xp.where(xp.logical_and(integral, xs <= 23.0), exact, result)
        result = xp.where(xp.logical_and(integral, xs < 0.0), math.nan, result)
        result = xp.where(xs == 0.0, xp.copysign(xp.full_like(x, math.inf), x), result)
    return xp.where(finite, result, xp.where(x > 0.0, x, math.nan))


def _lgamma_positive(xp: Any, info: Namespace, a: Any) -> Any:
    """``lgamma(a)`` for ``a > 0``, from one table: ``(a - 1)(a - 2) R(a)`` on [0.5, 3.5) (rows
    0-6 hold ``R``, so the zeros at 1 and 2 keep relative accuracy), ``R(a + 1) a (a - 1) -
    log(a)`` below 0.5, ``lgamma`` itself on [3.5, 12.5) (rows 7-15); Stirling's series beyond."""
    low = a < 0.5
    y = xp.where(low, a + 1.0, xp.clip(a, 0.5, _LGAMMA_TABLE_END))  # picks the piece
    direct = xp.minimum(xp.floor(y - 0.5) + 4.0, 15.0)
    piece = xp.where(y < 1.0, xp.floor(4.0 * y) - 2.0, xp.where(y < 3.5, xp.floor(2.0 * y), direct))
    shift = xp.astype(low, info.float64)
    p = _piecewise(xp, "LGAMMA", xp.astype(piece, info.int64), xp.where(low, a, y), shift)
    near = xp.where(low, (a * (a - 1.0)) * p - xp.log(a), ((a - 1.0) * (a - 2.0)) * p)
    big = xp.maximum(a, _LGAMMA_TABLE_END)
    stirling = (big - 0.5) * (xp.log(big) - 1.0) + (_STIRLING_CONSTANT + _stirling_sum(big))
    return xp.where(a < 3.5, near, xp.where(a < _LGAMMA_TABLE_END, p, stirling))


def _vec_lgamma(xp: Any, x: Any) -> Any:
    """``math.lgamma(x)``: ``log(|gamma(x)|)``.

    Positive ``x``: see ``_lgamma_positive``; ``lgamma(1) == lgamma(2) == 0.0``. Negative ``x``:
    CPython's reflection ``log(pi) - log|sin(pi x)| - log|x| - lgamma(|x|)`` (with an exact
    ``sin(pi x)`` reduction), and ``-log|x|`` for ``|x| < 1e-20``; near the zeros of ``lgamma``
    (two in every interval ``(-n - 1, -n)``: -2.457, -2.747, -3.144, -3.955, ...) the terms
    cancel, so there (as in CPython) the error is small in absolute terms (~1e-15), not relative
    to the tiny result.

    D3 (CPython raises ``ValueError``): ``lgamma`` of zero or a negative integer is ``inf``; past
    2.55e305 the result is ``inf`` (``OverflowError``). ``lgamma(+-inf) == inf``.
    """
    info = namespace(xp)
    x = as_f64(xp, info, x)
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
    "erfc": 4,
    "gamma": 10,
    "lgamma": 16,
    "fmod": 0,
    "remainder": 0,
    "isclose": 0,
    "fsum": 0,
    "round_digits": 0,
    # round(x, n) for n > 299 where the result is below ~1e-292 (see _round_far_digits).
    "round_digits_subnormal": 1,
}

#: Helpers whose error is counted in ulps of ``max(|math result|, floor)``: an absolute bound
#: where the result is small. ``lgamma`` has zeros (at 1, 2 and two in every interval
#: ``(-n - 1, -n)``) near which CPython's own error is absolute, not relative.
ULP_FLOORS: dict[str, float] = {"lgamma": 1.0}
