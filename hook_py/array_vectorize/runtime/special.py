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
        rows = getattr(special_tables, name)
        table = _TABLES[key] = xp.asarray(rows, dtype=xp.float64)
    return table


def _horner(s: Any, coeffs: Any) -> Any:
    """``sum(coeffs[j] * s**j)`` for a row ``(c0 head, c0 tail, c1, c2, ...)`` of Python floats or
    of per-lane arrays: the tail joins the sum before the head, so ``c0`` counts to ~106 bits."""
    p = coeffs[-1]
    for c in coeffs[-2:1:-1]:
        p = p * s + c
    return (p * s + coeffs[1]) + coeffs[0]


def _piecewise(xp: Any, name: str, piece: Any, s: Any) -> Any:
    """The polynomial of table ``name`` on ``piece`` (int64 lanes, in range) at ``s``: one
    gather of every lane's row, then Horner on its columns."""
    table = _table(xp, name)
    shape = piece.shape
    rows = xp.take(table, xp.reshape(piece, (-1,)), axis=0)
    columns = [xp.reshape(rows[:, j], shape) for j in range(table.shape[1])]
    return _horner(s, columns)


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
    xq = x * _horner(t * t - 0.125, _ERF_SMALL)
    a = xp.clip(ax, 0.5, 28.0)
    piece = xp.astype(xp.floor(a - 0.5), info.int64)
    g = _piecewise(xp, "ERFCX", piece, a - (xp.astype(piece, info.float64) + 1.0))
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
    "fmod": ("_vec_fmod", _vec_fmod),
    "remainder": ("_vec_remainder", _vec_remainder),
    "isclose": ("_vec_isclose", _vec_isclose),
}

#: The largest error (in ulps of CPython's ``math`` result) each helper is tested against; see
#: ``docs/semantics.md`` for what was measured and on which inputs. 0 means the same value.
ULP_BOUNDS: dict[str, int] = {
    "erf": 2,
    "erfc": 3,
    "fmod": 0,
    "remainder": 0,
}
