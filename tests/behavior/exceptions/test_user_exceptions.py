"""The program's own exception classes (D11): `class RangeError(ValueError): pass` (or with only a
docstring) raised per lane and matched by `except` as CPython matches (subclass rules), and
`raise ... from ...` / a bare `raise` as CPython sets `__cause__` and `__suppress_context__`.
CPython's element loop is the oracle; classes with a body of their own are rejected with a
position.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check_raising, first_raise, floats, grid, to_backend


class PhysicalRangeError(ValueError):
    """A quantity outside the range its formula holds for."""


class HumidityRangeError(PhysicalRangeError):
    pass


class OrbitError(ArithmeticError):
    """An orbit that does not close."""


class TaxRuleError(Exception):
    pass


class BracketError(TaxRuleError):
    """An income that falls in no bracket."""


class VerboseError(ValueError):
    def __init__(self, value):
        super().__init__(f"bad value {value}")


class WithAttribute(ValueError):
    code = 7


def check_humidity(rh):
    if rh < 0.0 or rh > 1.0:
        raise HumidityRangeError(f"relative humidity {rh} outside [0, 1]")
    return rh


def dew_point(t, rh):
    rh = check_humidity(rh)
    if t < -60.0 or t > 60.0:
        raise PhysicalRangeError(f"temperature {t} outside the Magnus range")
    g = math.log(rh) + 17.62 * t / (243.12 + t)
    return 243.12 * g / (17.62 - g)


def dew_point_or_floor(t, rh):
    # The humidity error is caught by its own class; the temperature error, its base, is not.
    try:
        d = dew_point(t, rh)
    except HumidityRangeError:
        d = -273.15
    return d


def dew_point_or_nan(t, rh):
    # `except ValueError` catches both: the program's classes derive from it.
    try:
        d = dew_point(t, rh)
    except ValueError:
        d = math.nan
    return d


def orbital_period(a, mu):
    if a <= 0.0:
        raise OrbitError(f"semi-major axis {a} must be positive")
    return 2.0 * math.pi * math.sqrt(a * a * a / mu)


def period_or_zero(a, mu):
    try:
        p = orbital_period(a, mu)
    except ArithmeticError:
        p = 0.0
    return p


def period_tuple_clause(a, mu):
    try:
        p = orbital_period(a, mu) / (mu - 1.0)
    except (PhysicalRangeError, OrbitError):
        p = -1.0
    except ZeroDivisionError:
        p = -2.0
    return p


def income_tax(income):
    if income < 0.0:
        raise BracketError(f"negative income {income}")
    if income > 1e9:
        raise TaxRuleError("income beyond the schedule")
    return 0.2 * income if income > 12000.0 else 0.0


def tax_or_flag(income):
    try:
        t = income_tax(income)
    except TaxRuleError:
        t = -1.0
    return t


def bare_class_raised(x):
    if x < 0.0:
        raise PhysicalRangeError
    return x


def cause_suppressed(x):
    if x < 0.0:
        raise PhysicalRangeError(f"negative {x}") from None
    return math.sqrt(x)


def cause_a_class(x):
    if x < 0.0:
        raise PhysicalRangeError(f"negative {x}") from ZeroDivisionError
    return x * 2.0


def cause_an_instance(x):
    if x > 1.0:
        raise HumidityRangeError("saturated") from ValueError(f"rh {x}")
    return x


def cause_in_clause(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        raise OrbitError(f"no inverse of {x}") from None
    return y


def reraised_program_class(x):
    try:
        if x > 100.0:
            raise HumidityRangeError(x)
        y = x * 0.5
    except PhysicalRangeError:
        raise
    return y


FLOATS = np.concatenate([floats(8), np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 60.0, -61.0, 1e-310, math.inf, -math.inf, math.nan])])


@pytest.mark.parametrize(
    "fn",
    [dew_point, dew_point_or_floor, dew_point_or_nan, orbital_period, period_or_zero, period_tuple_clause],
    ids=lambda f: f.__name__,
)
def test_two_arguments(fn, backend):
    vec = vectorize(fn)
    # Inside a `try` body, math's domain errors raise as in CPython (docs/semantics.md item 30).
    numeric = fn not in (dew_point, orbital_period)
    x, y = grid(FLOATS, FLOATS)
    check_raising(vec, x, y, backend=backend, numeric=numeric)
    for a, b in zip(x[::7], y[::7]):
        check_raising(vec, np.array([a]), np.array([b]), backend=backend, numeric=numeric)


@pytest.mark.parametrize(
    "fn",
    [income_tax, tax_or_flag, bare_class_raised, cause_suppressed, cause_a_class, cause_an_instance, cause_in_clause, reraised_program_class],
    ids=lambda f: f.__name__,
)
def test_one_argument(fn, backend):
    vec = vectorize(fn)
    values = np.concatenate([FLOATS, np.array([12000.0, 12000.5, 2e9, 150.0])])
    check_raising(vec, values, backend=backend, numeric=fn is cause_in_clause)
    for v in values:
        check_raising(vec, np.array([v]), backend=backend, numeric=fn is cause_in_clause)


def test_caught_lanes_take_the_clause_value(backend):
    vec = vectorize(dew_point_or_floor)
    got = vec(to_backend(np.array([20.0, 20.0, 20.0]), backend), to_backend(np.array([0.5, 1.5, -0.1]), backend))
    expected = [dew_point_or_floor(20.0, rh) for rh in (0.5, 1.5, -0.1)]
    assert [float(v) for v in np.asarray(got)] == expected
    assert expected[1] == -273.15


def test_the_first_raising_element_picks_the_class():
    # Element 1 raises the base class (uncaught), element 2 the subclass (caught): CPython stops
    # at element 1.
    vec = vectorize(dew_point_or_floor)
    got = check_raising(vec, np.array([20.0, 99.0, 20.0]), np.array([0.5, 0.5, 2.0]), numeric=True)
    assert type(got) is PhysicalRangeError


@pytest.mark.parametrize(
    ("fn", "value"),
    [(cause_suppressed, -4.0), (cause_a_class, -1.0), (cause_an_instance, 3.0), (cause_in_clause, 0.0), (reraised_program_class, 500.0)],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_cause_and_context_as_cpython(fn, value, backend):
    expected, _ = first_raise(fn, np.array([1.0, value]), numeric=True)
    with pytest.raises(type(expected)) as got:
        vectorize(fn)(to_backend(np.array([1.0, value]), backend))
    exc = got.value
    assert exc.args == expected.args
    assert exc.__suppress_context__ == expected.__suppress_context__
    assert type(exc.__cause__) is type(expected.__cause__)
    assert getattr(exc.__cause__, "args", None) == getattr(expected.__cause__, "args", None)


def test_raise_inside_a_clause_has_no_context():
    # docs/semantics.md item 33: CPython chains the handled exception as __context__; the
    # vectorized raise happens after the body, with nothing being handled.
    expected, _ = first_raise(cause_in_clause, np.array([0.0]), numeric=True)
    assert isinstance(expected.__context__, ZeroDivisionError)
    with pytest.raises(OrbitError) as got:
        vectorize(cause_in_clause)(np.array([0.0]))
    assert got.value.__context__ is None
    assert got.value.__suppress_context__ and got.value.__cause__ is None


def raises_verbose(x):
    if x < 0.0:
        raise VerboseError(x)
    return x


def catches_with_attribute(x):
    try:
        y = 1.0 / x
    except WithAttribute:
        y = 0.0
    return y


def test_a_class_with_its_own_init_is_raised_as_written(backend):
    # D21 (rejected before it): the class's own `__init__` builds the first raising element's.
    got = check_raising(vectorize(raises_verbose), np.array([1.0, -2.5, -3.0]), backend=backend)
    assert type(got) is VerboseError and str(got) == "bad value -2.5"


def test_a_class_with_an_attribute_is_matched_by_its_mro(backend):
    # A ZeroDivisionError is no WithAttribute (a ValueError): it leaves the `try`, as in CPython.
    vec = vectorize(catches_with_attribute)
    check_raising(vec, np.array([2.0, 0.0, -4.0]), backend=backend, numeric=True)
    check_raising(vec, np.array([2.0, -4.0]), backend=backend, numeric=True)


def test_two_classes_with_one_name_are_refused():
    first = type("Clash", (ValueError,), {"__module__": __name__})
    second = type("Clash", (ValueError,), {"__module__": __name__})

    def helper(x):
        if x > 1.0:
            raise second("high")
        return x

    def clash(x):
        try:
            y = helper(x)
        except first:
            y = 0.0
        return y

    # A class built by type() has no source text to name, but the name is what the compiler
    # reads: the clause's `first` resolves, and the helper's `second` is refused rather than
    # taken for the other class of the same qualified name.
    with pytest.raises(VectorizationError, match="`second` cannot be raised per element: it is the exception class `Clash`, one of two different classes of that name"):
        vectorize(clash)
