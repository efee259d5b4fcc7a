"""try / except / else / finally per lane (D11), against CPython's element loop as the oracle:
inside a `try` body, what CPython raises on for a lane (explicit raises, a helper's raise, a
division by zero, `0.0 ** -1`) sends that lane to the clause CPython picks; what no clause
catches leaves the call as CPython's first raising element's exception.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check_raising, floats, grid, ints


def check_humidity(rh):
    if rh < 0.0 or rh > 1.0:
        raise ValueError(f"relative humidity {rh} outside [0, 1]")
    return rh


def safe_ratio(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


def arithmetic_catches_floor_division(a, b):
    try:
        q = a // b + a % b
    except ArithmeticError:
        q = -1.0
    return q


def tuple_of_classes(rh, t):
    try:
        rh = check_humidity(rh)
        vp = rh * 6.112 / (t - 20.0)
    except (ValueError, ZeroDivisionError):
        vp = -999.0
    return vp


def explicit_raise_caught(rh):
    try:
        if rh < 0.0 or rh > 1.0:
            raise ValueError("out of range")
        out = rh * 100.0
    except ValueError:
        out = -1.0
    return out


def only_some_classes_caught(a, b):
    # A ValueError clause does not catch ZeroDivisionError: it leaves the call, with CPython's
    # message.
    try:
        if a < -100.0:
            raise ValueError(f"a={a} too small")
        r = a / b
    except ValueError:
        r = 0.0
    return r


def else_and_finally(x):
    scale = 2.0
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 1e300
    else:
        y = y + 1.0
        scale = 3.0
    finally:
        z = y * scale
    return z


def returns_in_try_and_clause(x, y):
    if x > 50.0:
        return 5.0
    try:
        return 10.0 / (x - y)
    except ZeroDivisionError:
        if x > 0.0:
            return -1.0
        w = -2.0
    return w * x


def bare_except_and_exception(x):
    try:
        a = 3.0 / x
    except Exception:
        a = 0.5
    try:
        b = x % (x - 1.0)
    except:  # noqa: E722 - the bare clause is the construct under test
        b = 0.25
    return a + b


def reraise(x):
    try:
        if x < 0.0:
            raise ValueError(f"negative {x}")
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    except ValueError:
        raise
    return y


def nested_tries(x, y):
    try:
        try:
            r = x / y
        except ValueError:
            r = 1.0
        s = 1.0 / x
    except ZeroDivisionError:
        r = -3.0
        s = 0.0
    return r + s


def values_seen_at_the_raise(x):
    y = 1.0
    try:
        y = x + 1.0
        z = 1.0 / x
        y = z
    except ZeroDivisionError:
        y = y * 10.0
    return y


def power_of_zero(base, e):
    try:
        p = base**e
    except ZeroDivisionError:
        p = -7.0
    return p


def assertion_caught(x):
    try:
        assert x >= 0.0, "negative"
        r = x * 0.5
    except AssertionError:
        r = 0.0
    return r


def unused_exception_name(x):
    try:
        r = 2.0 / x
    except ZeroDivisionError as err:  # noqa: F841 - bound and never read
        r = 0.0
    return r


def int_division_messages(n, d):
    try:
        if n > 1000:
            raise KeyError(n)
        q = n // d
    except ValueError:
        q = 0
    return q


def clause_raises_another(x):
    try:
        y = 4.0 / x
    except ZeroDivisionError:
        raise OverflowError(f"no inverse of {x}")
    return y


def dew_point_log(rh, t):
    try:
        gamma = math.log(rh) + 17.62 * t / (243.12 + t)
    except ValueError:
        gamma = -1e9
    return gamma


def growth(x):
    try:
        g = math.exp(x) - math.sin(x)
    except OverflowError:
        g = 1e308
    except ValueError:
        g = -2.0
    return g


def sqrt_checked(x):
    try:
        return math.sqrt(x) + math.log1p(x)
    except ValueError:
        return -1.0


def whole_units(x):
    try:
        n = int(x) + math.floor(x * 0.5) + round(x)
    except (ValueError, OverflowError):
        n = 0
    return n


def math_error_uncaught(x):
    try:
        y = math.acos(x)
    except ZeroDivisionError:
        y = 0.0
    return y


def wind_reading(u, v):
    # An anemometer's wind from its two components: a missing component (NaN) is a sensor
    # fault; the gust factor divides by the crosswind. The predicates and atan2, hypot,
    # copysign, erf and erfc raise for no float (seeds 690004 #1630, 690005 #1301: rejected
    # inside `try`), so every raise here is the fault's or the division's.
    try:
        if math.isnan(u) or math.isnan(v):
            raise ValueError("sensor fault")
        speed = math.hypot(u, v)
        bearing = math.degrees(math.atan2(math.copysign(v, u), u))
        gust = speed / (u - v) if math.isfinite(speed) else 0.0
        calm = (math.erf(speed) >= 0.0) + (math.erfc(bearing) <= 2.0) + (not math.isinf(bearing))
    except ZeroDivisionError:
        gust = -1.0
        calm = 2.0
    except ValueError:
        gust = -2.0
        calm = 3.0
    return gust + calm


FLOATS = np.concatenate([floats(8), np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -150.0, 20.0, 60.0, 800.0, -243.12])])


@pytest.mark.parametrize(
    "fn",
    [
        safe_ratio,
        arithmetic_catches_floor_division,
        tuple_of_classes,
        only_some_classes_caught,
        returns_in_try_and_clause,
        dew_point_log,
        nested_tries,
        power_of_zero,
        wind_reading,
    ],
    ids=lambda f: f.__name__,
)
def test_two_arguments(fn, backend):
    vec = vectorize(fn)
    x, y = grid(FLOATS, FLOATS)
    check_raising(vec, x, y, backend=backend, numeric=True)
    for a, b in zip(x[::5], y[::5]):
        check_raising(vec, np.array([a]), np.array([b]), backend=backend, numeric=True)


@pytest.mark.parametrize(
    "fn",
    [
        explicit_raise_caught,
        else_and_finally,
        bare_except_and_exception,
        reraise,
        values_seen_at_the_raise,
        assertion_caught,
        unused_exception_name,
        clause_raises_another,
        growth,
        sqrt_checked,
        math_error_uncaught,
    ],
    ids=lambda f: f.__name__,
)
def test_one_argument(fn, backend):
    vec = vectorize(fn)
    check_raising(vec, FLOATS, backend=backend, numeric=True)
    for v in FLOATS:
        check_raising(vec, np.array([v]), backend=backend, numeric=True)
        check_raising(vec, np.array(v), backend=backend, numeric=True)


def test_int_conversions_of_nan_and_infinity_are_caught(backend):
    # Within int64 (beyond it item 7 raises past the clauses: tests/build/test_int_conversion_three_ways.py).
    vec = vectorize(whole_units)
    values = np.array([0.0, -0.0, 2.5, -3.5, 1e15, -1e15, math.nan, math.inf, -math.inf, 7.0])
    check_raising(vec, values, backend=backend, numeric=True)
    for v in values:
        check_raising(vec, np.array([v]), backend=backend, numeric=True)


def test_int_operands_raise_cpythons_int_messages(backend):
    vec = vectorize(int_division_messages)
    n, d = grid(ints(6), np.array([0, 1, -3, 7]))
    check_raising(vec, n, d, backend=backend, numeric=True)
    got = check_raising(vec, np.array([5, 6]), np.array([2, 0]), backend=backend, numeric=True)
    assert type(got) is ZeroDivisionError and got.__notes__[-1].endswith("(flat index 1)")
    check_raising(vec, np.array([5, 2000]), np.array([0, 0]), backend=backend, numeric=True)


def test_predicates_of_ints_in_a_try_body(backend):
    # The predicates and atan2, hypot, copysign, erf, erfc take an int64 component as a float.
    u, v = grid(np.array([-7, -1, 0, 1, 3, 250]), np.array([-7, 0, 1, 3]))
    check_raising(vectorize(wind_reading), u, v, backend=backend, numeric=True)


def test_caught_lanes_take_the_clause_value():
    vec = vectorize(safe_ratio)
    got = vec(np.array([1.0, 2.0, -3.0]), np.array([0.0, 4.0, -0.0]))
    assert got.tolist() == [0.0, 0.5, 0.0]


def test_outside_try_a_division_by_zero_stays_ieee():
    def outside(a, b):
        r = a / b
        try:
            s = a / (b - 1.0)
        except ZeroDivisionError:
            s = 0.0
        return r + s

    got = vectorize(outside)(np.array([1.0, 1.0]), np.array([0.0, 1.0]))
    assert got.tolist() == [float("inf"), 1.0]


def _reads_exception(x):
    try:
        r = 1.0 / x
    except ZeroDivisionError as err:
        r = len(str(err))
    return r


def _return_in_finally(x):
    try:
        r = 1.0 / x
    finally:
        return 0.0


def _unknown_class(x):
    try:
        r = 1.0 / x
    except np.linalg.LinAlgError:
        r = 0.0
    return r


def _division_in_loop_in_try(x):
    total = 0.0
    try:
        for i in range(3):
            total = total + 1.0 / (x - i)
    except ZeroDivisionError:
        total = -1.0
    return total


@pytest.mark.parametrize(
    "fn, text",
    [
        (_reads_exception, "the caught exception `err` cannot be read"),
        (_return_in_finally, "inside `finally` are not supported"),
        (_unknown_class, "names exception classes: builtin ones"),
        (_division_in_loop_in_try, "within a loop (`for` or `while`"),
    ],
    ids=lambda v: getattr(v, "__name__", "text"),
)
def test_rejections_name_the_construct_and_position(fn, text):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert text in str(info.value)
    assert info.value.diagnostics[0]["line"] > fn.__code__.co_firstlineno


def shift_rota(hours):
    # A rota rounds the hours worked; whatever happened, a whole shift of zero hours is logged.
    logged = 0
    try:
        logged = hours / 8.0
    finally:
        logged = logged + int(0.0)
    return logged


def shift_rota_converting(hours):
    total = 0.0
    try:
        total = hours / 8.0
    finally:
        total = int(total)
    return total


def test_a_conversion_that_cannot_leave_int64_is_allowed_in_a_finally_clause(backend):
    # Fuzz 715002 #1447 and 712002 #1494: `int(0.0)` was refused in a `finally` clause, where
    # item 7's raise cannot happen (D10 refuses only a conversion that could raise there).
    check_raising(vectorize(shift_rota), floats(), backend=backend, numeric=True)
    with pytest.raises(VectorizationError, match="finally"):
        vectorize(shift_rota_converting)
