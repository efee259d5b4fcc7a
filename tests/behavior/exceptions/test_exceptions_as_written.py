"""Exceptions as written (D21): a raise builds its exception from anything CPython evaluates for
the raising element: `%`-formatting, f-strings with format specs, `str.format`, `str()`,
module-level message strings, concatenation, any exception class (its own `__init__` with extra
arguments, a library's class, a metaclass), built in Python once, from the first raising
element's values as CPython has them (an int element as an int, a float as a float, a bool as a
bool). CPython's element loop is the oracle (class, args, attributes, the note naming the
element), on NumPy and array-api-strict.

PYTEST_DONT_REWRITE: the functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import abc
import math
import statistics

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check_raising, first_raise, floats, grid, ints, to_backend

OUT_OF_RANGE = "t=%g is outside the valid range"
BRACKET_MSG = "income {income:,.2f} is below the first bracket ({floor})"
MESSAGES = {"humidity": "relative humidity %.1f%% outside [0, 100]"}
FLOOR = 0.0


class SteamTableError(ValueError):
    """A state outside the region a correlation covers, with the offending values."""

    def __init__(self, quantity, value, low, high):
        super().__init__(f"{quantity}={value!r} outside [{low}, {high}]")
        self.quantity = quantity
        self.value = value
        self.bounds = (low, high)


class CalibratedError(SteamTableError):
    def __str__(self):
        return "calibrated: " + super().__str__()


class TaxRuleError(ValueError, metaclass=abc.ABCMeta):
    pass


def saturation_temperature(t):
    if t < 273.15 or t > 647.096:
        raise ValueError(OUT_OF_RANGE % t)
    return t - 273.15


def first_bracket(income):
    if income < FLOOR:
        raise ValueError(BRACKET_MSG.format(income=income, floor=FLOOR))
    return income * 0.2


def humidity(rh):
    if rh < 0.0 or rh > 100.0:
        raise ValueError(MESSAGES["humidity"] % rh)
    return rh / 100.0


def pressure_region(p, t):
    if p <= 0.0:
        raise SteamTableError("p", p, 0.0, 100.0)
    if t > 1073.15:
        raise CalibratedError("T", t, 273.15, 1073.15)
    return p * t


def counted(n, x, flag):
    if n > 3 and flag:
        raise ValueError(n, x, flag)
    return x * n


def specs(n, x):
    if x < 0.0:
        raise ValueError(f"n={n:+05d} x={x:.3e} ratio={x / (n or 1):8.2%} " + str(n) + repr(x))
    return x


def library_class(x):
    if x < 0.0:
        raise statistics.StatisticsError(f"negative sample {x}")
    return math.sqrt(x)


def abstract_class(income):
    if income < 0:
        raise TaxRuleError("negative income", income)
    return income


def constant_in_message(x):
    if x > 1.0:
        raise ValueError(f"above {math.pi:.4f} / pi: {x / math.pi}")
    return x


def caught_own_class(p, t):
    try:
        v = pressure_region(p, t)
    except CalibratedError:
        v = -1.0
    except SteamTableError:
        v = -2.0
    return v


@pytest.mark.parametrize(
    "fn, column",
    [
        (saturation_temperature, np.array([300.0, 273.15, 700.0, 200.0, math.nan])),
        (first_bracket, np.array([1000.0, -1234567.891, -0.0, -5.0])),
        (humidity, np.array([50.0, 100.5, -1.0])),
        (library_class, np.array([4.0, -2.5, -1.0])),
        (abstract_class, np.array([10, -3, 5])),
        (constant_in_message, np.array([0.5, 3.0])),
    ],
    ids=lambda v: getattr(v, "__name__", "column"),
)
def test_the_first_raising_element_raises_what_cpython_builds(fn, column, backend):
    got = check_raising(vectorize(fn), column, backend=backend)
    assert got is not None


def test_an_own_init_with_extra_arguments_and_attributes(backend):
    p = np.array([1.0, 2.0, -1.0, 5.0])
    t = np.array([300.0, 2000.0, 300.0, 400.0])
    got = check_raising(vectorize(pressure_region), p, t, backend=backend)
    expected, _ = first_raise(pressure_region, p, t)
    assert type(got) is CalibratedError
    assert (got.quantity, got.value, got.bounds) == (expected.quantity, expected.value, expected.bounds)
    assert str(got) == str(expected)


def test_a_class_with_its_own_init_is_caught_by_its_classes(backend):
    p = np.array([1.0, -2.0, 3.0, -0.0])
    t = np.array([300.0, 300.0, 2000.0, 5000.0])
    got = vectorize(caught_own_class)(to_backend(p, backend), to_backend(t, backend))
    assert np.asarray(got).tolist() == [caught_own_class(a, b) for a, b in zip(p.tolist(), t.tolist())]


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.bool_])
def test_element_values_have_cpythons_types(dtype, backend):
    n = np.array([1, 7, 2]).astype(np.int64)
    x = np.array([0.5, 1.5, 2.5]).astype(dtype)
    flag = np.array([True, True, False])
    got = check_raising(vectorize(counted), n, x, flag, backend=backend)
    expected, _ = first_raise(counted, n, x, flag)
    assert [type(a) for a in got.args] == [type(a) for a in expected.args]


def test_format_specs_on_ints_and_floats(backend):
    n, x = grid(np.array([0, 3, -12, 2**40]), np.array([1.0, -0.0, -2.5e-10, -math.inf]))
    got = check_raising(vectorize(specs), n, x, backend=backend)
    assert got is not None


def test_a_message_that_fails_to_format_raises_cpythons_error():
    # `%d` of a float works in CPython; of NaN it raises ValueError ("cannot convert float NaN").
    def bad_format(x):
        if x < 0.0 or x != x:
            raise ValueError("%d" % x)
        return x

    got = check_raising(vectorize(bad_format), np.array([1.0, math.nan, -2.0]))
    assert "NaN" in str(got)


def test_raise_without_a_message_class_only_and_module_string_on_random_values(backend):
    column = np.concatenate([floats(30), np.array([273.15, 647.096, 647.0961])])
    check_raising(vectorize(saturation_temperature), column, backend=backend)
    check_raising(vectorize(first_bracket), ints(10).astype(np.float64), backend=backend)
