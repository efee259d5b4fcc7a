"""Example corpus for isinstance and type of elements (D22): scalar functions written the way the
validation code of scientific libraries guards its inputs (`isinstance(x, numbers.Real)` before a
physics formula, integral counts kept exact, a bool mask accepted as a weight, `type(c) in (list,
tuple)` for coefficient pairs). Each compiles and matches CPython element by element on NumPy and
array-api-strict, for float64, int64, uint64 and bool arguments (each element passed to CPython as
the Python scalar `.item()` gives)."""

from __future__ import annotations

import math
import numbers
from numbers import Integral, Real

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, check

BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]

TEMPERATURES = np.array([-40.0, -0.0, 0.0, 20.0, 99.5, 373.946, 1e4, math.inf, math.nan])
KELVIN_INTS = np.array([0, 1, 250, 273, 300, 647, 10_000], dtype=np.int64)
COUNTS = np.array([0, 1, 2, 3, 30, 1000], dtype=np.int64)
UCOUNTS = np.array([0, 1, 2, 50, 2**32], dtype=np.uint64)
FLAGS = np.array([False, True])


def saturation_pressure_kpa(t_celsius):
    """Magnus formula with the guard a thermodynamics package writes before it."""
    if not isinstance(t_celsius, Real):
        raise TypeError("temperature must be a real number")
    if t_celsius < -45.0 or t_celsius > 60.0:
        raise ValueError(f"temperature {t_celsius} outside the Magnus range")
    return 0.61094 * math.exp(17.625 * t_celsius / (t_celsius + 243.04))


def kelvin_from_input(t):
    """Integral inputs are taken as whole kelvins, reals as degrees Celsius."""
    if isinstance(t, bool):
        raise TypeError("a flag is not a temperature")
    if isinstance(t, Integral):
        return t * 1.0
    return t + 273.15


def degrees_of_freedom(n, ddof):
    """A statistics helper: counts stay ints, fractional effective sizes stay floats."""
    if not isinstance(n, numbers.Number) or not isinstance(ddof, (int, float)):
        raise TypeError("n and ddof must be numbers")
    if isinstance(n, int) and isinstance(ddof, int):
        return max(n - ddof, 0)
    return max(n - ddof, 0.0)


def mask_weight(w):
    """A weight given as a bool mask is 0 or 1; numeric weights are clipped to [0, 1]."""
    if type(w) is bool:
        return 1.0 if w else 0.0
    if w != w:
        return 0.0
    return min(max(w * 1.0, 0.0), 1.0)


def poly_or_constant(c, x):
    """A coefficient pair gives a line; one number scales."""
    if type(c) in (list, tuple):
        slope, intercept = c
        return slope * x + intercept
    return c * x


def binomial_pairs(n):
    """Pairs from n items: exact for integral counts, the continuous extension for reals."""
    if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
        return n * (n - 1) // 2
    return n * (n - 1) / 2.0


def scaled_step(x):
    if type(x) == float and (math.isinf(x) or x != x):
        return 0.0
    return x * 0.5


CORPUS = [
    (saturation_pressure_kpa, lambda: [(TEMPERATURES[:4],), (KELVIN_INTS[:2],), (FLAGS,)]),
    (kelvin_from_input, lambda: [(TEMPERATURES,), (KELVIN_INTS,), (UCOUNTS,)]),
    (degrees_of_freedom, lambda: [(COUNTS, 1), (COUNTS * 1.5, 1), (COUNTS, 0.5), (FLAGS, 0), (UCOUNTS, 1)]),
    (mask_weight, lambda: [(FLAGS,), (TEMPERATURES / 100.0,), (COUNTS,)]),
    (poly_or_constant, lambda: [(TEMPERATURES, TEMPERATURES[::-1]), (COUNTS, COUNTS), (FLAGS, 2.5)]),
    (binomial_pairs, lambda: [(COUNTS,), (UCOUNTS,), (TEMPERATURES[:5],), (FLAGS,)]),
    (scaled_step, lambda: [(TEMPERATURES,), (COUNTS,), (FLAGS,)]),
]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn, calls", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_corpus_function_compiles_and_matches_cpython(fn, calls, backend):
    vec = vectorize(fn)
    for args in calls():
        check(vec, *args, backend=backend)


def test_a_flag_is_refused_as_a_temperature():
    with pytest.raises(TypeError, match="a flag is not a temperature"):
        vectorize(kelvin_from_input)(FLAGS)
