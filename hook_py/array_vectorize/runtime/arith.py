"""``_vec_binary`` and ``_vec_unary``: CPython's arithmetic and comparisons, lane by lane.

Operands are arrays of bool, int64, uint64 or float64, ``LatticeInt`` values (integer arrays of
the uint64 lattice with negative lanes, ``intops.py``), or Python bool/int/float scalars (at least
one an array). The helpers cast explicitly, so they run unchanged on strict backends
(array-api-strict rejects bool arithmetic, mixed-kind promotion and cross-kind comparison).

Result dtypes:

* bools act as the ints 0 and 1 (``True + True == 2``, int64);
* any float operand: float64 (ints are converted to the nearest float first, as CPython does);
  comparisons stay exact (see ``compare.py``);
* ints: int64, or under the uint64 lattice uint64 or a ``LatticeInt`` (see ``intops.py``;
  ``_vec_result`` gives the function's returned value one dtype);
* ``int / int``: float64, correctly rounded (see ``division.py``);
* ``int ** int``: int64/uint64 when every exponent is non-negative, float64 when some exponent
  is negative (CPython: ``2 ** -1 == 0.5``);
* comparisons: bool.

Divergences from CPython (each pinned by a test in ``tests/unit/test_runtime*.py``):

* **D3, float division by zero**: ``x / 0.0`` and ``x // 0.0`` give the IEEE quotient
  (``+-inf``, or ``nan`` for ``0.0 / 0.0`` and NaN operands); ``x % 0.0`` is ``nan``.
  CPython raises ``ZeroDivisionError``.
* **D3, integer division by zero**: ``x / 0`` gives ``+-inf`` (``nan`` for ``0 / 0``);
  ``x // 0 == 0`` and ``x % 0 == 0`` (integers have no IEEE value; NumPy's convention).
* **D3, powers**: ``0.0 ** -1`` and ``0 ** -1`` give ``inf`` (``-0.0 ** -1`` gives ``-inf``);
  a negative float to a non-integer power gives ``nan`` (CPython returns a complex); a float
  power that overflows gives ``+-inf`` (CPython raises ``OverflowError``).
* **Float powers are the backend's ``pow``**: special values (zeros, infinities, NaN, signs)
  follow C99 as CPython's do, but finite results may differ from CPython's C-library ``pow`` in
  the last place (NumPy's SIMD loops on AVX-512 machines are not correctly rounded; neither is
  ``pow`` on every platform CPython runs on). This also applies to ``int ** negative int``,
  which CPython computes as ``float(a) ** float(b)``.
* **Integer overflow wraps** modulo 2**64 (int64 world: ``INT64_MAX + 1 == INT64_MIN``,
  ``INT64_MIN // -1 == INT64_MIN``, ``-INT64_MIN == INT64_MIN``, ``abs(INT64_MIN) == INT64_MIN``;
  uint64 lattice: see ``intops.py``).
* **Mixed-sign integer exponents**: an int exponent array with both negative and non-negative
  lanes gives a float64 result for every lane (the non-negative lanes are the int64 power,
  wrapped, converted to float). On lazy backends an int exponent *array* always gives float64,
  since its signs cannot be inspected.
* ``int(x)`` and ``round(x)`` of a float: NaN gives 0, and values beyond int64 (including
  ``+-inf``) saturate to ``INT64_MAX`` / ``INT64_MIN`` here; the generated code raises
  OverflowError per lane before (docs/semantics.md item 7, ``_vec_int_overflow``) unless
  ``protect_domains=True`` asks for these values. ``int`` and ``round`` of a uint64 array stay
  uint64.
* ``-u`` for a uint64 array follows the lattice: a ``LatticeInt`` when some lane is non-zero
  (lanes above 2**63 wrap to non-negative values), uint64 when every lane is 0.
* A Python int literal beyond 64 bits raises ``OverflowError`` in integer arithmetic (it is
  converted to float next to a float operand, and compared exactly in comparisons).

Floating-point warnings: ``truediv``, ``floordiv``, ``mod`` and ``pow`` with a float result run
under ``Namespace.quiet()`` (their IEEE special values are the intended result, D3), as do
``int / int`` and negative integer powers; integer paths mask their operands so that no warning
can arise. ``add``, ``sub`` and ``mul`` of floats are the plain operators, so a float overflow to
``inf`` (silent in CPython) warns exactly as the same operator in the float body does.
"""

from __future__ import annotations

import math
import operator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .bits import BIT_OPS, bit_binary, bit_invert
from .bits import type_error as bit_type_error
from .compare import OPS as COMPARE_OPS
from .compare import compare
from .division import u64_ratio
from .dtype import (
    _NAMESPACES,
    INT64_MAX,
    INT64_MIN,
    TWO_63,
    LatticeInt,
    Namespace,
    Overflowed,
    int_overflow,
    joined_sites,
    known_any,
    namespace_info,
    python_int_kind,
    shown_int,
)
from .intops import (
    Int,
    _differ,
    as_int64,
    finish,
    i_floordiv,
    i_mod,
    magnitude,
    negation_beyond,
    overflowed,
    result,
    to_int,
    u_add,
    u_floordiv,
    u_mod,
    u_mul,
    u_pow,
    u_sub,
)

#: Operations whose float result needs no special value handling: the plain operator.
_PLAIN = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, **COMPARE_OPS}
#: Float operations that may produce IEEE special values CPython would raise on (D3).
_QUIET = {"truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod, "pow": None, "np_pow": None}

BINARY_OPS = frozenset(_PLAIN) | frozenset(_QUIET) | BIT_OPS
# The ``np_`` ops are NumPy's rounding (D16): a float stays a float, an int or bool keeps its value.
UNARY_OPS = frozenset((
    "neg", "pos", "abs", "not", "invert", "float", "int", "bool", "round", "floor", "ceil", "trunc",
    "np_floor", "np_ceil", "np_trunc", "np_round", "index", "lift",
))
_NUMPY_ROUNDING = {"np_floor": "floor", "np_ceil": "ceil", "np_trunc": "trunc", "np_round": "round"}


def _vec_binary(xp: Any, op: str, a: Any, b: Any) -> Any:
    """CPython's ``a op b`` lane by lane (``op`` in ``BINARY_OPS``)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    if op in BIT_OPS:
        return _binary(xp, info, op, a, b)
    f64 = info.f64
    if (type(a) is float or getattr(a, "dtype", None) is f64) and (
        type(b) is float or getattr(b, "dtype", None) is f64
    ):
        plain = _PLAIN.get(op)
        if plain is not None:
            return plain(a, b)
        if not (type(a) is float and type(b) is float):
            return _float_binary(xp, info, op, a, b)
    return _binary(xp, info, op, a, b)


def _vec_result(xp: Any, value: Any) -> Any:
    """The value a generated function returns: a ``LatticeInt`` as one array (uint64 when no lane
    is negative, else int64); an ``Overflowed`` raises item 13's OverflowError; anything else
    unchanged."""
    if type(value) is not LatticeInt:
        if type(value) is Overflowed:
            raise value.error()
        return value
    return result(xp, _NAMESPACES.get(xp) or namespace_info(xp), value)


def _scalar_kind(v: Any, kind: str) -> str:
    """The array kind a Python scalar of kind ``B``/``I``/``F`` would take."""
    if kind == "B":
        return "b"
    if kind == "F":
        return "f"
    k = python_int_kind(int(v))
    if k == "L":
        raise int_overflow(int(v))
    return k


def _binary(xp: Any, info: Namespace, op: str, a: Any, b: Any) -> Any:
    if op not in BINARY_OPS:
        raise ValueError(f"array-vectorize runtime: unknown binary operation {op!r}")
    if (type(a) is Overflowed or type(b) is Overflowed) and op in _CARRIED:
        return _carried(xp, info, op, a, b)
    ka, kb = info.kind(a), info.kind(b)
    if ka in "BIF" and kb in "BIF":  # no array operand: give the left one its natural dtype
        ka_ = _scalar_kind(a, ka)
        a, ka = info.scalar(ka_, a), ka_
    if op in COMPARE_OPS:
        return compare(xp, info, op, ka, a, kb, b)
    if op in BIT_OPS and (ka in "fF" or kb in "fF"):
        raise bit_type_error(op, ka, kb)
    if ka in "fF" or kb in "fF":
        return _float_binary(xp, info, op, _to_float(xp, info, ka, a), _to_float(xp, info, kb, b))
    # Integer arithmetic. NumPy turns 0-d results into scalars, whose arithmetic warns on the
    # wrap-around the helpers rely on; compute on shape (1,) and restore the shape at the end.
    lifted = _ndim(a) == 0 and _ndim(b) == 0
    if lifted:
        a, b = _reshape(xp, a, (1,)), _reshape(xp, b, (1,))
    int_op = bit_binary if op in BIT_OPS else _int_binary
    value = int_op(xp, info, op, ka, a, kb, b)
    return _reshape(xp, value, ()) if lifted else value


#: Operations that carry item 13's marked lanes on (``Overflowed``); any other raises there.
_CARRIED = frozenset(("add", "sub", "mul", "floordiv", "mod"))


def _carried(xp: Any, info: Namespace, op: str, a: Any, b: Any) -> Any:
    """``a op b`` where an operand has lanes beyond the lattice (docs/semantics.md item 13): the
    result keeps them marked (with those of the operation itself), so that only the lanes a
    select keeps can raise later."""
    marked = [x for x in (a, b) if type(x) is Overflowed]
    value = _binary(xp, info, op, *[x.value if type(x) is Overflowed else x for x in (a, b)])
    if type(value) is not Overflowed and info.kind(value) not in "iul":
        raise marked[0].error()  # a float result (`d + 0.5`): a use other than integer arithmetic
    if type(value) is Overflowed:
        marked.append(value)
        value = value.value
    over = marked[0].over
    for x in marked[1:]:
        over = xp.logical_or(over, x.over)
    return Overflowed(value, over, joined_sites(marked), info)


def _ndim(x: Any) -> int:
    if type(x) is LatticeInt:
        return getattr(x.bits, "ndim", 0)
    if type(x) is Overflowed:
        return _ndim(x.value)
    return getattr(x, "ndim", 0)


def _reshape(xp: Any, x: Any, shape: tuple[int, ...]) -> Any:
    """Array (or ``LatticeInt``) ``x`` reshaped; Python scalars unchanged."""
    if type(x) is LatticeInt:
        return LatticeInt(xp.reshape(x.bits, shape), xp.reshape(x.neg, shape))
    if type(x) is Overflowed:  # its sites keep their shape: ``dtype.lane`` reads them
        return Overflowed(_reshape(xp, x.value, shape), xp.reshape(x.over, shape), x.sites, x.info)
    return xp.reshape(x, shape) if hasattr(x, "dtype") else x


def _to_float(xp: Any, info: Namespace, kind: str, x: Any) -> Any:
    if kind in "fF":
        return x
    if kind in "biu":
        return xp.astype(x, info.float64)
    if kind == "l":  # each lane's value, rounded once: a negative lane as int64, the rest as uint64
        signed = xp.astype(xp.astype(x.bits, info.int64), info.float64)
        return xp.where(x.neg, signed, xp.astype(x.bits, info.float64))
    try:
        return float(x)
    except OverflowError:
        raise OverflowError(
            f"array-vectorize runtime: integer {shown_int(int(x))} is too large to convert to float"
        ) from None


def _float_binary(xp: Any, info: Namespace, op: str, x: Any, y: Any) -> Any:
    plain = _PLAIN.get(op)
    if plain is not None:
        return plain(x, y)
    if op == "pow":
        return _pow(xp, info, x, y)
    if op == "np_pow":
        return _np_pow(xp, info, x, y)
    with info.quiet():
        return _QUIET[op](x, y)


def _pow(xp: Any, info: Namespace, x: Any, y: Any) -> Any:
    """IEEE ``x ** y`` (C99 special values, as CPython's ``float.__pow__``; D3 for the rest).

    NumPy computes a power with a broadcast exponent of 0.5 as ``sqrt``, which gives
    ``-0.0 ** 0.5 == -0.0`` and ``-inf ** 0.5 == nan`` (C99 and CPython: ``0.0`` and ``inf``);
    those two lanes are patched.
    """
    if type(x) is float:
        x = info.scalar("f", x)
    if type(y) is float:
        half: Any = y == 0.5
        y = info.scalar("f", y)
    else:
        half = y == 0.5
    with info.quiet():
        result = xp.pow(x, y)
    # C99 and CPython: x ** 0 == 1 and 1 ** y == 1 for every x and y, a signaling NaN included
    # (NumPy 2.4's pow returns nan for a signaling NaN there).
    result = xp.where(xp.logical_or(y == 0.0, x == 1.0), 1.0, result)
    if half is False:
        return result
    result = xp.where(xp.logical_and(half, x == 0.0), 0.0, result)
    return xp.where(xp.logical_and(half, x == -math.inf), math.inf, result)


def _np_pow(xp: Any, info: Namespace, x: Any, y: Any) -> Any:
    """NumPy's ``np.power`` of float64 scalars (D16): C99's ``pow``, except that an exponent of
    0.5 is computed as ``sqrt``, as ``np.power(np.float64(x), 0.5)`` is: ``-0.0 ** 0.5 == -0.0``
    and ``-inf ** 0.5`` is nan (``pow`` and CPython: ``0.0`` and ``inf``). (NumPy's own array
    power takes that path only for a scalar exponent; a lane of an exponent array is ``pow``.)"""
    if type(x) is float:
        x = info.scalar("f", x)
    if type(y) is float:
        y = info.scalar("f", y)
    with info.quiet():
        result = xp.pow(x, y)
        result = xp.where(xp.logical_or(y == 0.0, x == 1.0), 1.0, result)
        half = y == 0.5
        if known_any(xp, half) is not False:
            result = xp.where(half, xp.sqrt(x), result)
    return result


def _uint_lattice(v: Any, kind: str) -> bool:
    return kind in "ul" or (kind == "I" and python_int_kind(int(v)) != "i")


def _int_binary(xp: Any, info: Namespace, op: str, ka: str, a: Any, kb: str, b: Any) -> Any:
    if op == "truediv":
        quotient = _small_int_truediv(xp, info, ka, a, kb, b)
        if quotient is not None:
            return quotient
        return _int_truediv(xp, info, to_int(xp, info, ka, a), to_int(xp, info, kb, b))
    if op == "pow" or op == "np_pow":  # NumPy's power of two ints is `**` (semantics.md item 19)
        return _int_pow(xp, info, ka, a, kb, b)
    if _uint_lattice(a, ka) or _uint_lattice(b, kb):
        ia, ib = to_int(xp, info, ka, a), to_int(xp, info, kb, b)
        if op == "add":
            return u_add(xp, info, ia, ib)
        if op == "sub":
            return u_sub(xp, info, ia, ib)
        if op == "mul":
            return u_mul(xp, info, ia, ib)
        if op == "floordiv":
            return u_floordiv(xp, info, ia, ib)
        return u_mod(xp, info, ia, ib)
    x, y = as_int64(xp, info, ka, a), as_int64(xp, info, kb, b)
    if op == "add":
        return xp.add(x, y)
    if op == "sub":
        return xp.subtract(x, y)
    if op == "mul":
        return xp.multiply(x, y)
    if kb == "I" and int(b) not in (0, -1):
        # A Python int divisor other than 0 and -1: no lane divides by zero or overflows
        # (INT64_MIN // -1), the two cases the Array API leaves to the library; on every other
        # lane its `floor_divide` and `remainder` are Python's `//` and `%` (floor semantics).
        return xp.floor_divide(x, y) if op == "floordiv" else xp.remainder(x, y)
    if op == "floordiv":
        return i_floordiv(xp, info, x, y)
    return i_mod(xp, info, x, y)


_TWO_53 = 2.0**53


def _small_int_truediv(xp: Any, info: Namespace, ka: str, a: Any, kb: str, b: Any) -> Any:
    """``float(a) / float(b)`` when every magnitude is below 2**53, else ``None``.

    Below 2**53 both conversions are exact, so the IEEE division rounds the exact quotient once,
    as CPython does; IEEE signs agree with CPython's (``0 / -5 == -0.0``), and a zero divisor
    gives the D3 values (``+-inf``, ``nan``).
    """
    fa, fb = _to_float(xp, info, ka, a), _to_float(xp, info, kb, b)
    large = None
    for kind, f in ((ka, fa), (kb, fb)):
        if kind in "BI":
            if abs(f) >= _TWO_53:
                return None
        elif kind != "b":
            too_big = xp.abs(f) >= _TWO_53  # |int| >= 2**53 exactly when |float(int)| >= 2**53
            large = too_big if large is None else xp.logical_or(large, too_big)
    if large is not None and known_any(xp, large) is not False:
        return None
    with info.quiet():
        return fa / fb


def _int_truediv(xp: Any, info: Namespace, a: Int, b: Int) -> Any:
    """``a / b`` for integers: correctly rounded; ``x / 0`` is ``+-inf``, ``0 / 0`` is ``nan`` (D3)."""
    ma, mb = magnitude(xp, info, a), magnitude(xp, info, b)
    zero_a, zero_b = ma == 0, mb == 0
    one = info.scalar("u", 1)
    ratio = u64_ratio(xp, info, xp.where(zero_a, one, ma), xp.where(zero_b, one, mb))
    ratio = xp.where(zero_a, 0.0, ratio)
    ratio = xp.where(zero_b, math.inf, ratio)
    ratio = xp.where(xp.logical_and(zero_a, zero_b), math.nan, ratio)
    # CPython's sign rule holds for zero numerators too: 0 / -5 == -0.0.
    sign = _differ(xp, a.neg, b.neg)
    if sign is None:
        return ratio
    if sign is True:
        return xp.negative(ratio)
    return xp.where(sign, xp.negative(ratio), ratio)


def _int_pow(xp: Any, info: Namespace, ka: str, a: Any, kb: str, b: Any) -> Any:
    """``a ** b`` for integer operands (CPython: float result for negative exponents)."""
    if kb == "l":  # a negative lattice lane exists: float64 for every lane, as below
        safe_bits = xp.where(b.neg, info.scalar("u", 0), b.bits)
        power = _nonneg_int_pow(xp, info, ka, a, "u", safe_bits)
        as_float = _to_float(xp, info, info.kind(power), power)
        return xp.where(b.neg, _float_pow(xp, info, ka, a, kb, b), as_float)
    if kb in "bBu":
        negative_exp: Any = None
    elif kb == "I":
        negative_exp = True if b < 0 else None
    else:
        negative_exp = b < 0
    if negative_exp is True:
        return _float_pow(xp, info, ka, a, kb, b)
    some_negative = known_any(xp, negative_exp)
    if some_negative is False:
        return _nonneg_int_pow(xp, info, ka, a, kb, b)
    # Some (or, lazily, possibly some) exponent is negative: float64 for every lane.
    safe_b = xp.where(negative_exp, info.scalar("i", 0), b)
    power = _nonneg_int_pow(xp, info, ka, a, "i", safe_b)
    as_float = _to_float(xp, info, info.kind(power), power)
    return xp.where(negative_exp, _float_pow(xp, info, ka, a, kb, b), as_float)


def _nonneg_int_pow(xp: Any, info: Namespace, ka: str, a: Any, kb: str, b: Any) -> Any:
    if _uint_lattice(a, ka) or _uint_lattice(b, kb):
        return u_pow(xp, info, to_int(xp, info, ka, a), to_int(xp, info, kb, b))
    return xp.pow(as_int64(xp, info, ka, a), as_int64(xp, info, kb, b))


def _float_pow(xp: Any, info: Namespace, ka: str, a: Any, kb: str, b: Any) -> Any:
    """``float(a) ** float(b)``: CPython's value for an int to a negative int power."""
    return _pow(xp, info, _to_float(xp, info, ka, a), _to_float(xp, info, kb, b))


# --------------------------------------------------------------------------- unary


def _vec_unary(xp: Any, op: str, a: Any) -> Any:
    """CPython's ``op(a)`` lane by lane (``op`` in ``UNARY_OPS``; ``not`` is ``a == 0``)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    kind = info.kind(a)
    if kind in "BIF":
        kind = _scalar_kind(a, kind)
        a = info.scalar(kind, a)
    if op == "lift":  # a number whose kind only the call knows (D14), as an array of that kind
        return a
    if op == "invert":
        return bit_invert(xp, info, kind, a)
    if kind == "f":
        if op == "index":  # range() of a float (D12)
            raise TypeError("'float' object cannot be interpreted as an integer")
        return _float_unary(xp, info, op, a)
    if kind == "l":
        return _lattice_unary(xp, info, op, a)
    if op == "not":
        return xp.logical_not(a) if kind == "b" else a == 0
    if op == "bool":
        return a if kind == "b" else a != 0
    if op == "float":
        return xp.astype(a, info.float64)
    if kind == "b":
        a = xp.astype(a, info.int64)
        if op == "neg":
            return xp.negative(a)
        _check_unary(op)
        return a
    if kind == "u":
        if op == "neg":
            site = negation_beyond(xp, info, Int(a, None), "-")
            bits = xp.subtract(info.scalar("u", 0), a)
            return overflowed(info, finish(xp, info, bits, a != 0), site)
        _check_unary(op)
        return a
    if op == "neg":
        return xp.negative(a)
    if op == "abs":
        return xp.abs(a)
    _check_unary(op)
    return a


def _lattice_unary(xp: Any, info: Namespace, op: str, a: LatticeInt) -> Any:
    if op == "not":
        return a.bits == 0
    if op == "bool":
        return a.bits != 0
    if op == "float":
        return _to_float(xp, info, "l", a)
    if op == "neg":
        site = negation_beyond(xp, info, to_int(xp, info, "l", a), "-")
        bits = xp.subtract(info.scalar("u", 0), a.bits)
        return overflowed(info, finish(xp, info, bits, xp.logical_and(xp.logical_not(a.neg), a.bits != 0)), site)
    if op == "abs":
        return magnitude(xp, info, to_int(xp, info, "l", a))
    _check_unary(op)
    return a


def _check_unary(op: str) -> None:
    if op not in UNARY_OPS:
        raise ValueError(f"array-vectorize runtime: unknown unary operation {op!r}")


def _float_unary(xp: Any, info: Namespace, op: str, a: Any) -> Any:
    if op == "neg":
        return xp.negative(a)
    if op == "pos":
        return a
    if op == "abs":
        return xp.abs(a)
    if op == "not":
        return a == 0.0
    if op == "bool":
        return a != 0.0
    if op == "float":
        return a
    if op in _NUMPY_ROUNDING:
        return getattr(xp, _NUMPY_ROUNDING[op])(a)
    if op in ("floor", "ceil", "trunc"):
        # math.floor/ceil/trunc return ints: NaN and beyond int64 as for int() (documented).
        return float_to_int64(xp, info, getattr(xp, op)(xp.where(xp.isnan(a), 0.0, a)))
    if op in ("int", "round"):
        # NaN lanes become 0 (documented); masking them first also keeps signaling NaNs from
        # raising the invalid flag in trunc/round.
        a = xp.where(xp.isnan(a), 0.0, a)
        return float_to_int64(xp, info, xp.trunc(a) if op == "int" else xp.round(a))
    raise ValueError(f"array-vectorize runtime: unknown unary operation {op!r}")


def float_to_int64(xp: Any, info: Namespace, t: Any) -> Any:
    """Integral floats ``t`` as int64: NaN -> 0, beyond int64 (and +-inf) saturate."""
    in_range = xp.logical_and(t >= -TWO_63, t < TWO_63)  # False for NaN
    v = xp.astype(xp.where(in_range, t, 0.0), info.int64)
    v = xp.where(t >= TWO_63, info.scalar("i", INT64_MAX), v)
    return xp.where(t < -TWO_63, info.scalar("i", INT64_MIN), v)
