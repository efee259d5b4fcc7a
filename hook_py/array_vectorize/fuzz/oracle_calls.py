"""CPython's value of the D16 and D17 calls of a fuzzed program, for ``oracle.py``.

* ``special_math()``: the D17 ``math`` functions (``erf``, ``erfc``, ``gamma``, ``lgamma``,
  ``fmod``, ``remainder``, ``isclose``, ``fsum``) as CPython computes them, with the IEEE value
  docs/semantics.md's D17 table documents where CPython raises (D3); inside a ``try`` body
  CPython's exception stands (item 30 rejects these there, so it is never reached);
* ``NumpyShim``: ``np`` for the oracle. On floats it is NumPy itself (D16: NumPy's semantics,
  ``np.sqrt(-1.0)`` is nan, warnings silenced), its scalar results read back as Python floats;
  on ints and bools it follows item 19: ints keep Python's rules (``np.power`` of two ints is
  ``**``, ``np.abs``/``np.floor``/``np.sign``/``np.maximum`` of ints stay ints), a bool counts
  as the int 0 or 1, and the float functions compute in float64.

Nothing here knows what the compiler folds; the only facts read are the documented ones. The
IEEE helpers and the run's facts (``FALLBACKS``, ``in_try``) are ``oracle_ieee.py``'s.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Dict

import numpy as np

from .oracle_ieee import FALLBACKS, Huge, ieee_pow, in_try


def _beyond_floats(args: Any) -> bool:
    """Some argument (or item of ``fsum``'s one argument) is an int too large for a float."""
    for a in args:
        for x in a if isinstance(a, (tuple, list)) else (a,):
            if type(x) is int:
                try:
                    float(x)
                except OverflowError:
                    return True
    return False


def _fallback(fn: Callable[..., Any], ieee: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except (ValueError, OverflowError):
            if in_try():
                raise
            if _beyond_floats(args):
                # CPython's OverflowError converting the int, not the function's own error (the
                # D17 table): an int beyond 64 bits, which the vectorized code wraps (item 6)
                # or refuses (item 17). The element is not compared.
                raise Huge() from None
            FALLBACKS[0] += 1
            return ieee(*args)

    call.__name__ = fn.__name__
    return call


def _gamma_ieee(x: Any) -> float:
    # D17 table: ValueError gives +-inf at +-0, nan at negative integers and -inf; OverflowError
    # gives an infinity signed like x (x > 171.62, 0 < x < 5.6e-309, -5.6e-309 < x < 0).
    x = float(x)
    if x == 0.0:
        return math.copysign(math.inf, x)
    if x < 0 and (x == -math.inf or x == math.floor(x)):
        return math.nan
    return math.copysign(math.inf, x)


def _fsum_ieee(values: Any) -> float:
    values = [float(v) for v in values]
    if any(v != v for v in values):
        return math.nan
    infs = {v for v in values if math.isinf(v)}
    if len(infs) == 2:  # inf + -inf
        return math.nan
    if infs:
        return infs.pop()
    exact = sum((Fraction(v) for v in values), Fraction(0))
    try:
        return float(exact)
    except OverflowError:
        return -math.inf if exact < 0 else math.inf


def special_math() -> Dict[str, Callable[..., Any]]:
    """The D17 functions with their documented IEEE values (module docstring)."""
    return {
        "erf": math.erf,
        "erfc": math.erfc,
        "isclose": math.isclose,
        "gamma": _fallback(math.gamma, _gamma_ieee),
        "lgamma": _fallback(math.lgamma, lambda x: math.inf),
        "fmod": _fallback(math.fmod, lambda x, y: math.nan),
        "remainder": _fallback(math.remainder, lambda x, y: math.nan),
        "fsum": _fallback(math.fsum, _fsum_ieee),
    }


# ------------------------------------------------------------------------- D16: numpy in scalars


def _py(v: Any) -> Any:
    """A NumPy scalar (or 0-d array) as the Python scalar of its kind."""
    if isinstance(v, np.ndarray):
        v = v[()]
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _is_int(v: Any) -> bool:
    return type(v) in (int, bool)


def _quiet(fn: Callable[..., Any], *args: Any) -> Any:
    with np.errstate(all="ignore"):
        return _py(fn(*[np.float64(float(a)) for a in args]))


class NumpyShim:
    """``np`` as the fuzzed programs use it (module docstring; item 19 on ints and bools)."""

    pi = math.pi
    inf = math.inf
    e = math.e
    nan = math.nan

    def __getattr__(self, name: str) -> Any:
        fn = getattr(np, name)
        return lambda *args: _quiet(fn, *args)  # the float functions: sqrt, exp, log, ...

    @staticmethod
    def float64(x: Any) -> float:
        return float(x)

    @staticmethod
    def abs(x: Any) -> Any:
        return abs(int(x)) if _is_int(x) else _quiet(np.abs, x)

    @staticmethod
    def floor(x: Any) -> Any:
        return int(x) if _is_int(x) else _quiet(np.floor, x)

    @staticmethod
    def sign(x: Any) -> Any:
        if _is_int(x):
            return (x > 0) - (x < 0)
        return _quiet(np.sign, x)

    @staticmethod
    def power(a: Any, b: Any) -> Any:
        if _is_int(a) and _is_int(b):
            return ieee_pow(int(a), int(b))
        return _quiet(np.power, a, b)

    @staticmethod
    def maximum(a: Any, b: Any) -> Any:
        if _is_int(a) and _is_int(b):
            return max(int(a), int(b))
        return _quiet(np.maximum, a, b)

    @staticmethod
    def minimum(a: Any, b: Any) -> Any:
        if _is_int(a) and _is_int(b):
            return min(int(a), int(b))
        return _quiet(np.minimum, a, b)

    @staticmethod
    def clip(x: Any, lo: Any, hi: Any) -> Any:
        return NumpyShim.minimum(NumpyShim.maximum(x, lo), hi)

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> Any:
        # NumPy promotes the two branches to one kind: a float if either is a float, else an
        # int (a bool with an int counts as the int, item 19).
        chosen = a if cond else b
        if isinstance(a, float) or isinstance(b, float):
            return float(chosen)
        if type(a) is bool and type(b) is bool:
            return chosen
        return int(chosen)
