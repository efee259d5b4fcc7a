"""raise / assert per lane (D11), against CPython's element loop as the oracle: when an element
raises, the vectorized call raises the first raising element's exception (C order), built from
that element's values, with a note naming it; otherwise the values match.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check_raising, floats, grid, ints, to_backend, to_numpy

T_MAX = 373.15
MIN_RH = 0


def in_unit_interval(rh):
    if rh < 0.0 or rh > 1.0:
        raise ValueError(f"relative humidity must lie in [0, 1], got {rh}")
    return rh


def check_positive(v):
    if v <= 0:
        raise ValueError("must be positive", v)


def f_string_message(rh, t):
    if rh < MIN_RH or rh > 1:
        raise ValueError(f"relative humidity {rh} outside [0, 1] at t={t:.2f}")
    return rh * t


def class_without_call(x):
    if x < 0:
        raise ValueError
    return math.sqrt(x)


def several_args(x, n):
    if x > n:
        raise ValueError("x above n", x, n)
    return x - n


def returned_lanes_never_raise(x):
    if x > 10:
        return 10.0
    if x > 5:
        raise OverflowError(f"x={x} in the forbidden band")
    if x < -5:
        raise ArithmeticError("too small: " + str(x))
    return x * 2


def raised_lanes_never_raise_again(x):
    if x < 0:
        raise ValueError(f"negative {x}")
    if x < 100:
        raise KeyError(x)
    return x


def nested_branches(x, y):
    if x > 0:
        if y > x:
            raise ZeroDivisionError("y beyond x: %s > %s" % (y, x))
        z = y / x
    else:
        z = y
    return z + 1


def asserts(x, y):
    assert x == x, "x is NaN"
    assert y != 0
    return x / y


def helper_statement(x):
    check_positive(x)
    return math.log(x)


def helper_value(rh, t):
    rh = in_unit_interval(rh)
    return rh * t


def int_and_bool_values(n, flag):
    if n < -50:
        if flag == True:  # noqa: E712 - truth values of bools are another issue's construct
            raise ValueError(f"n={n!r} flag={flag}", n, flag)
    return n + 1


def formats(x):
    if x > 1e6:
        raise RuntimeError("x={} repr={} fmt={}".format(x, repr(x), format(x, ".3e")))
    return x


def always_raises(x):
    raise NotImplementedError(f"not for {x}")


def constant_limit(t):
    if t > T_MAX:
        raise ValueError(f"t={t} exceeds {T_MAX}")
    return t - 273.15


def test_names_the_first_raising_element(backend):
    rh = np.array([0.5, 0.2, 1.5, -0.1, 2.0])
    t = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    got = check_raising(vectorize(f_string_message), rh, t, backend=backend)
    assert got is not None and "1.5" in str(got)


def test_two_dimensional_index(backend):
    x = np.array([[1.0, 2.0], [3.0, 7.0]])
    got = check_raising(vectorize(returned_lanes_never_raise), x, backend=backend)
    assert got.__notes__ == ["array-vectorize: raised for element (1, 1) (flat index 3)"]


@pytest.mark.parametrize(
    "fn",
    [f_string_message, class_without_call, several_args, nested_branches, asserts, helper_value],
    ids=lambda f: f.__name__,
)
def test_float_functions_on_edges(fn, backend):
    n = fn.__code__.co_argcount
    vec = vectorize(fn)
    column = floats(10)
    if n == 1:
        check_raising(vec, column, backend=backend)
        for v in column:
            check_raising(vec, np.array([v]), backend=backend)
    else:
        x, y = grid(column, column)
        check_raising(vec, x, y, backend=backend)
        for a, b in zip(x[::7], y[::7]):
            check_raising(vec, np.array([a]), np.array([b]), backend=backend)


@pytest.mark.parametrize(
    "fn",
    [returned_lanes_never_raise, raised_lanes_never_raise_again, helper_statement, formats, constant_limit],
    ids=lambda f: f.__name__,
)
def test_one_argument_lane_by_lane(fn, backend):
    vec = vectorize(fn)
    values = np.concatenate([floats(10), np.array([5.5, 7.0, 10.5, 200.0, 500.0, 2e6, -6.0])])
    check_raising(vec, values, backend=backend)
    for v in values:
        check_raising(vec, np.array([v]), backend=backend)
        check_raising(vec, np.array(v), backend=backend)  # 0-d


def test_ints_and_bools_reach_the_message_as_python_ints_and_bools(backend):
    vec = vectorize(int_and_bool_values)
    n, flag = grid(ints(5), np.array([False, True]))
    got = check_raising(vec, n, flag, backend=backend)
    assert "n=-100 flag=True" in str(got) and type(got.args[1]) is int and got.args[2] is True
    check_raising(vec, np.array([1, 2, 3]), np.array([True, True, False]), backend=backend)


def test_nothing_raises_on_empty_arrays(backend):
    vec = vectorize(always_raises)
    check_raising(vec, np.array([], dtype=np.float64), backend=backend)
    check_raising(vec, np.array([3.0, 4.0]), backend=backend)


def test_assert_compiled_out_under_dash_O(tmp_path):
    module = tmp_path / "asserting.py"
    module.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from array_vectorize import vectorize

            @vectorize
            def f(x):
                assert x > 0, "positive"
                return x * 2

            print(f(np.array([-1.0, 2.0])).tolist())
            """
        )
    )
    env_run = dict(cwd=tmp_path, capture_output=True, text=True, timeout=120)
    optimized = subprocess.run([sys.executable, "-O", str(module)], **env_run)
    assert optimized.stdout.strip() == "[-2.0, 4.0]", optimized.stderr
    plain = subprocess.run([sys.executable, str(module)], **env_run)
    assert "AssertionError: positive" in plain.stderr


def _raise_in_loop_in_try(x):
    try:
        for i in range(3):
            if x > i:
                raise ValueError("in loop")
    except ValueError:
        x = 0.0
    return x


def _raise_from_caught(x):
    # The caught exception exists on one element only (`from None` and classes compile).
    try:
        y = 1.0 / x
    except ZeroDivisionError as e:
        raise ValueError("x") from e
    return y


def _module_in_message(x):
    if x > 0:
        raise ValueError(math.pi)
    return x


class ThermoError(ValueError):
    # A body of its own: raised as written (D21).
    def __str__(self):
        return "thermo"


def _user_class(x):
    if x > 0:
        raise ThermoError("hot")
    return x


@pytest.mark.parametrize("fn", [_module_in_message, _user_class], ids=lambda f: f.__name__)
def test_messages_and_classes_as_written(fn, backend):
    # D21: `math.pi` in a message, a class with its own `__str__` (rejected before D21).
    from oracle import check_raising

    got = check_raising(vectorize(fn), np.array([-1.0, 0.5, 2.0]), backend=backend)
    assert str(got) == str(first_raise_of(fn, [-1.0, 0.5, 2.0]))


def first_raise_of(fn, values):
    for v in values:
        try:
            fn(v)
        except Exception as exc:  # noqa: BLE001
            return exc
    return None


@pytest.mark.parametrize(
    "fn, text",
    [
        (_raise_in_loop_in_try, "a raise inside a loop (`for` or `while`) or an `if` on a uniform value"),
        (_raise_from_caught, "the caught exception `e` cannot be read"),
    ],
    ids=lambda v: getattr(v, "__name__", "text"),
)
def test_rejections_name_the_construct_and_position(fn, text):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert text in str(info.value)
    assert info.value.diagnostics[0]["line"] > fn.__code__.co_firstlineno


def count_checked(n):
    if n < 0:
        raise ValueError(f"negative count {n}")
    return n * 2


@pytest.mark.parametrize("fn", [f_string_message, returned_lanes_never_raise, count_checked, asserts], ids=lambda f: f.__name__)
def test_nan_on_raise_gives_nan_exactly_where_cpython_raises(fn, backend):
    from oracle import first_raise, to_backend, to_numpy

    vec = vectorize(fn, nan_on_raise=True)
    n = fn.__code__.co_argcount
    column = np.array([-5, -1, 0, 1, 7, 1000]) if fn is count_checked else np.concatenate([floats(6), [5.5, 7.0, 12.0, -6.0]])
    args = grid(*[column] * n)
    got = to_numpy(vec(*[to_backend(a, backend) for a in args]))
    assert got.dtype == np.float64
    for lane, scalars in enumerate(zip(*[a.ravel().tolist() for a in args])):
        raised = first_raise(fn, *[np.array(s) for s in scalars])
        if raised is not None:
            assert np.isnan(got.ravel()[lane]), scalars
        else:
            try:
                expected = fn(*scalars)
            except ArithmeticError:
                continue  # D3: an IEEE value
            assert got.ravel()[lane] == expected or (expected != expected and got.ravel()[lane] != got.ravel()[lane]), scalars


def test_try_catches_are_unaffected_by_nan_on_raise():
    def ratio(a, b):
        try:
            r = a / b
        except ZeroDivisionError:
            r = -1.0
        if r > 100.0:
            raise ValueError("too steep")
        return r

    got = vectorize(ratio, nan_on_raise=True)(np.array([1.0, 500.0, 3.0]), np.array([0.0, 1.0, 2.0]))
    assert got[0] == -1.0 and np.isnan(got[1]) and got[2] == 1.5


def settlement_or_fail(exposure, fee):
    # A uint64 exposure plus a rounded fee (docs/semantics.md item 13), a check that never fails.
    if fee > 1e300:
        raise ArithmeticError("fee out of range")
    return exposure + round(fee)


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_nan_on_raise_converts_uint64_lattice_lanes_as_float_does(backend):
    # Fuzz seed 97001, program 155: with a negative lane beside it, a lane past 2**63 was
    # converted through int64's wrap-around (-8.47e18 for 9.98e18).
    exposure = np.array([9981073344467819354, 5], dtype=np.uint64)
    fee = np.array([0.0, -7.0])
    got = to_numpy(vectorize(settlement_or_fail, nan_on_raise=True)(to_backend(exposure, backend), to_backend(fee, backend)))
    assert got.tolist() == [float(settlement_or_fail(int(e), float(f))) for e, f in zip(exposure, fee)]
