"""Float64 building blocks of the D17 helpers (``special.py``, ``special_exact.py``): coercion
to float64 and the error-free transformations (Dekker's split and product, Knuth's sum), written
in array operations so that they run on any Array API namespace.

Each is exact under IEEE round-to-nearest; XLA's contraction of a multiply and an add into an FMA
(semantics item 14) keeps them exact, since every product they form is exact.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .dtype import _NAMESPACES, Namespace, namespace_info


def namespace(xp: Any) -> Namespace:
    """The (memoized) dtype table of ``xp``."""
    return _NAMESPACES.get(xp) or namespace_info(xp)


def as_f64(xp: Any, info: Namespace, v: Any) -> Any:
    """``v`` as a float64 array: Python numbers become 0-d arrays, other dtypes are converted."""
    dt = getattr(v, "dtype", None)
    if dt is None:
        return info.scalar("f", float(v))
    if info.is_float64(dt):
        return v
    return xp.astype(v, info.float64)


def split(x: Any) -> Any:
    """The 26 leading bits of ``x`` (Dekker's split; ``|x|`` well below 2**996): ``x * x`` of the
    result is exact."""
    c = 134217729.0 * x  # 2**27 + 1
    return c - (c - x)


def split_constant(b: float) -> tuple[float, float]:
    """``b = hi + lo`` with ``hi`` the 26 leading bits of ``b`` (truncated, so ``lo`` has at most
    27 bits); done on the Python float, so it cannot overflow as Dekker's split would near
    ``DBL_MAX``."""
    m, ex = math.frexp(b)
    hi = math.ldexp(math.floor(math.ldexp(m, 26)), ex - 26)
    return hi, b - hi


def two_product(a: Any, b: float) -> tuple[Any, Any]:
    """``(p, e)`` with ``p = fl(a * b)`` and ``p + e == a * b`` exactly for a constant ``b``
    (Dekker, no FMA needed: every partial product has at most 53 bits; exact unless ``p``
    overflows or the product's low part falls below the subnormal range)."""
    p = a * b
    a_hi = split(a)
    a_lo = a - a_hi
    b_hi, b_lo = split_constant(b)
    return p, (((a_hi * b_hi - p) + a_hi * b_lo) + a_lo * b_hi) + a_lo * b_lo


def two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b`` exactly (Knuth; any order of
    magnitudes, no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def abs_fmod(xp: Any, ax: Any, ay: Any) -> Any:
    """``fmod(ax, ay)`` for ``ax, ay >= 0`` (or NaN): exact.

    The Array API's ``remainder`` is Python's ``%`` (the divisor's sign). On non-negative
    operands floor and truncating division agree, so it is C's ``fmod``, which is exact: NumPy,
    array-api-strict, JAX and CuPy compute it with C ``fmod`` (a namespace computing it as
    ``x - y * floor(x / y)``, as PyTorch's ``remainder`` does, would not be exact).
    """
    return xp.remainder(ax, ay)
