"""`raise` and `assert` inside loops (D11 with D6/D12): a lane that raises in an iteration leaves
the loop with its raise, the others go on, and the call raises what CPython's element loop raises
first (the first raising element in C order, whichever iteration it raised in), its message built
from the values that element had at its raise. Against CPython as the oracle, on edge values.
What is still rejected is rejected at decoration with its position.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, INT_EDGES, check_raising


def _raise_in_while(x):
    n = 0
    while x > 1.0:
        if x > 1e12:
            raise OverflowError(f"{x} takes too many halvings")
        x = x / 2.0
        n += 1
    return n


def _assert_in_range_loop(x, n):
    acc = 0.0
    for k in range(n):
        assert x > k, "below the step"
        acc += x - k
    return acc


def _checked_step(v):
    if v < 0.0:
        raise ValueError(f"negative step {v}")
    return v


def _helper_raising_in_loop(x):
    acc = 0.0
    for k in range(3):
        acc += _checked_step(x - k)
    return acc


def _division_in_try_in_loop(x):
    acc = 0.0
    for k in range(3):
        try:
            acc += 1.0 / (x - k)
        except ZeroDivisionError:
            acc += 0.0
    return acc


def _while_in_try(x):
    try:
        n = 0
        while n < 3:
            x = 1.0 / (x - n)
            n += 1
    except ZeroDivisionError:
        x = -1.0
    return x


@pytest.mark.parametrize(
    ("fn", "line", "text"),
    [
        (_while_in_try, 1, "within a loop (`for` or `while`)"),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_rejected_with_position(fn, line, text):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert text in str(info.value)
    diag = info.value.diagnostics[0]
    # Reported at the `try` where it stands.
    assert diag["line"] == fn.__code__.co_firstlineno + line, diag


def _uniform_read_by_the_index_in_message(x, params: dict):
    for k in range(3):
        name = params[k]
        if x > k:
            raise ValueError(f"{name}: {x}")
    return x


def _uniform_read_in_message(x, params: dict):
    for k in range(3):
        name = params["name"]
        if x > k:
            raise ValueError(f"{name}: {x}")
    return x


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_message_reads_a_uniform_item_the_body_reads_the_same_on_every_iteration(backend):
    # D14: `params["name"]` is the same on every iteration: a phi carries it out of the loop
    # (campaign 57; it was rejected as a uniform value the loop computes).
    vec = vectorize(_uniform_read_in_message)
    for xs in ([-1.0, 0.0, -0.0], [-1.0, 0.5, 2.5, math.nan], FLOAT_EDGES):
        check_raising(vec, np.array(xs), {"name": "tariff"}, backend=backend)


def _break_in_except(x):
    for n in range(3):
        try:
            x = 1.0 / (x - n)
        except ZeroDivisionError:
            x = -1.0
            break
    return x


@pytest.mark.parametrize(
    ("fn", "line", "text"),
    [
        (_uniform_read_by_the_index_in_message, 4, "not a tuple or a uniform value the loop computes"),
        (_break_in_except, 2, "`break` and `continue` inside an `except`, `else` or `finally` clause of a `try` in a loop"),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_loop_raises_still_rejected_with_position(fn, line, text):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert text in str(info.value)
    assert info.value.diagnostics[0]["line"] == fn.__code__.co_firstlineno + line


def _helper_rewritten(x):
    # `_helper_raising_in_loop` with the check written in the loop's body.
    acc = 0.0
    for k in range(3):
        v = x - k
        if v < 0.0:
            raise ValueError(f"negative step {v}")
        acc += v
    return acc


def _while_in_try_rewritten(x):
    # The rewrite the message suggests for `_while_in_try`: the `try` inside the loop.
    n = 0
    while n < 3:
        failed = False
        try:
            x = 1.0 / (x - n)
        except ZeroDivisionError:
            x = -1.0
            failed = True
        if failed:
            break
        n += 1
    return x


def compound_balance(p, r):
    # Finance: a balance that must stay under a limit, checked every year.
    bal = p
    for year in range(5):
        bal = bal * (1.0 + r)
        if bal > 1e6:
            raise ValueError(f"balance {bal} over the limit in year {year}")
        if bal < 0.0:
            return -1.0
    return bal


def trajectory_settles(x):
    # Physics validation: a lane raising late (k = 4) behind one raising early keeps C order.
    for k in range(5):
        if x * k > 10.0:
            raise ValueError(f"x={x} overshoots at step {k}")
    return x


def checked_at_one_step(x):
    # A raise under an `if` on the loop index (a Python `if`).
    for k in range(4):
        if k == 2:
            if x < 0:
                raise ValueError(f"negative at step {k}: {x}")
        x = x + 1.0
    return x


def bounded_sum(x):
    # `break` and `else:` beside a raise.
    s = 0.0
    for k in range(6):
        if x + k > 100:
            break
        if x + k < -100:
            raise ValueError(f"low {x + k}")
        s += x
    else:
        s = -s
    return s


def energy_grid(x):
    t = 0.0
    for i in range(3):
        for j in range(3):
            t = t + x * i - j
            if t > 50.0:
                raise ArithmeticError(f"t={t} at {i},{j}")
    return t


def partial_sums(x, n):
    # A per-element `range(n)` (a masked loop).
    acc = 0
    for k in range(n):
        acc += k
        if acc > x:
            raise ValueError(f"acc={acc} > x={x} at k={k}")
    return acc


def reraised_pole(x):
    acc = 0.0
    for k in range(3):
        try:
            acc += 1.0 / (x - k)
        except ZeroDivisionError:
            raise ValueError(f"pole at k={k}") from None
    return acc


XS = np.array(FLOAT_EDGES + [3.0, 1e13, 1e6, 7.0, 11.0, 60.0, -150.0, 2.0000001])


def _each(vec, *args, backend, numeric=False):
    """The whole array, then each element alone (which element raises first is CPython's)."""
    check_raising(vec, *args, backend=backend, numeric=numeric)
    first = args[0]
    for i in range(len(first)):
        lane = [np.array([a[i]], dtype=a.dtype) if isinstance(a, np.ndarray) else a for a in args]
        check_raising(vec, *lane, backend=backend, numeric=numeric)


def _above_absolute_zero(t):
    if t < -273.15:
        raise ValueError(f"{t} is below absolute zero")
    return t


def cooling_steps(t0):
    # Helpers that raise, called in loops whose own bodies show no raise (D11): the loop is
    # lowered again carrying the helper's raises.
    t = t0
    for step in range(4):
        t = _above_absolute_zero(t - 100.0 * step)
    return t


def _vessel_rating(p, step):
    assert p > -50.0, f"pressure {p} below the vessel rating at step {step}"


def pumped_pressure(p):
    n = 0
    while abs(p) < 1e5:
        _vessel_rating(p, n)
        p = abs(p) * 2.0 + 1.0
        n += 1
    return n


def layered_cooling(t0):
    t = t0
    for layer in range(2):
        for step in range(2):
            t = _above_absolute_zero(t - 60.0 * (layer + step))
    return t


def _safe_ratio(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return 0.0


def harmonic_weights(x):
    acc = 0.0
    for k in range(3):
        acc += _safe_ratio(1.0, x - k)
    return acc


def early_cap_then_cooling(t0):
    if t0 > 5000.0:
        return -1.0
    t = t0
    for step in range(3):
        t = _above_absolute_zero(t - 150.0)
        if t < 0.0:
            return t
    return t


@pytest.mark.parametrize(
    "fn",
    [
        _raise_in_while, trajectory_settles, checked_at_one_step, bounded_sum, energy_grid, _helper_rewritten,
        _helper_raising_in_loop, cooling_steps, pumped_pressure, layered_cooling, harmonic_weights,
        early_cap_then_cooling,
    ],
    ids=lambda f: f.__name__,
)
def test_raise_in_a_loop_matches_cpython(fn, backend):
    _each(vectorize(fn), XS, backend=backend)


@pytest.mark.parametrize("r", [0.5, -2.0, 0.0, -0.0, math.inf, math.nan])
def test_raise_beside_a_return_in_a_loop(r, backend):
    _each(vectorize(compound_balance), XS * 1000.0, r, backend=backend)
    check_raising(vectorize(compound_balance), np.array([1.0, 2e5, 3e5]), 1.0, backend=backend)


def _restocked_twice(stock):
    week = 0
    while week < 2:
        week += 1
        assert stock != 0.0, "empty before restocking"
        stock = stock - 10.0
        assert stock > -5.0, "overdrawn after restocking"
    return stock


def test_the_second_assert_of_a_while_body_raises_its_own_message(backend):
    # The raise code the loop carries (site 2 here) was cast to bool, so every lane raised
    # site 1's message (fuzz seed 202 #35 once while tests were made bool masks).
    stock = np.array([5e-324, 12.0, 25.0, 0.0, 30.0])
    for first in range(len(stock)):
        check_raising(vectorize(_restocked_twice), stock[first:], backend=backend)


def test_assert_in_a_range_loop(backend):
    ns = np.array([0, 1, 3, 5, 2, 4] * 7, dtype=np.int64)[: len(XS)]
    _each(vectorize(_assert_in_range_loop), XS, ns, backend=backend)


def test_raise_in_a_per_element_range(backend):
    ints = np.array(INT_EDGES, dtype=np.int64)
    ns = np.array([0, 1, 3, 5, 2, 4, 7] * 3, dtype=np.int64)[: len(ints)]
    _each(vectorize(partial_sums), ints.astype(np.float64), ns, backend=backend)
    _each(vectorize(partial_sums), XS, np.full(len(XS), 4, dtype=np.int64), backend=backend)


@pytest.mark.parametrize("fn", [_division_in_try_in_loop, reraised_pole, _while_in_try_rewritten], ids=lambda f: f.__name__)
def test_try_in_a_loop(fn, backend):
    values = np.array([0.0, -0.0, 1.0, 2.0, 3.0, 0.5, math.inf, -math.inf, math.nan, 1e-300])
    _each(vectorize(fn), values, backend=backend, numeric=True)


def test_the_lowest_element_raises_whatever_its_iteration(backend):
    # Element 1 raises at step 4, element 2 at step 1: CPython's loop reaches element 1 first.
    got = check_raising(vectorize(trajectory_settles), np.array([1.0, 2.6, 20.0]), backend=backend)
    assert got is not None and got.args == ("x=2.6 overshoots at step 4",)


def halvings_checked(x):
    # The suggested rewrite of `_raise_in_while`: break out, raise after the loop.
    n = 0
    too_big = False
    while x > 1.0:
        if x > 1e12:
            too_big = True
            break
        x = x / 2.0
        n += 1
    if too_big:
        raise OverflowError(f"{x} takes too many halvings")
    return n


def test_the_suggested_rewrite_matches_cpython(backend):
    values = np.array([v for v in FLOAT_EDGES if not math.isinf(v)] + [3.0, 1e13, 1e6, 0.5])
    check_raising(vectorize(halvings_checked), values, backend=backend)
    for v in values:
        check_raising(vectorize(halvings_checked), np.array([v]), backend=backend)


def loop_under_a_uniform_if(x, mode: str):
    # The loop's raise code and snapshots leave the Python `if` too (scalar_if.rs).
    if mode == "check":
        for k in range(3):
            y = x * k
            if y > 5.0:
                raise ValueError(f"y={y} at k={k}")
    return x


def loop_under_an_array_if(x):
    if x > 0:
        t = x
        for k in range(4):
            t = t * 2.0
            if t > 100.0:
                raise OverflowError(f"t={t}")
        return t
    return -x


@pytest.mark.parametrize("mode", ["check", "skip"])
def test_loop_that_raises_under_a_uniform_if(mode, backend):
    _each(vectorize(loop_under_a_uniform_if), XS, mode, backend=backend)


def test_loop_that_raises_under_an_array_if(backend):
    _each(vectorize(loop_under_an_array_if), XS, backend=backend)


def metered_bill(kwh, tariff: dict):
    # Uniform values (D14) read before the loop, a number and a string, in the message of a
    # raise inside it: the same on every iteration, read after the loop as they are.
    cap = tariff["cap"]
    unit = tariff.get("unit", "kWh")
    bill = 0.0
    for step in range(3):
        bill += kwh * tariff["rate"]
        if bill > cap:
            raise ValueError(f"bill {bill} over the cap {cap} ({unit}) at step {step}")
    return bill


@pytest.mark.parametrize(
    "tariff",
    [{"cap": 100, "rate": 0.25}, {"cap": 1e6, "rate": 2.5, "unit": "MWh"}, {"cap": -0.0, "rate": 1.0}],
    ids=["int-cap", "float-cap-with-unit", "negative-zero-cap"],
)
def test_a_loop_raise_reads_uniform_values_from_before_the_loop(tariff, backend):
    _each(vectorize(metered_bill), XS, tariff, backend=backend)


def test_nan_on_raise_in_a_loop():
    def expected(v):
        try:
            return trajectory_settles(v)
        except ValueError:
            return math.nan

    got = vectorize(trajectory_settles, nan_on_raise=True)(XS)
    np.testing.assert_array_equal(got, np.array([expected(float(v)) for v in XS]))


CRITICAL_K = 647.096


def _saturation_range(t_kelvin):
    # Steam tables: the saturation line ends at the critical point.
    if t_kelvin > CRITICAL_K:
        raise ValueError(f"{t_kelvin} K is above the critical point")
    return 273.16, t_kelvin


def superheated_cycles(pressure):
    # A tuple helper called with a constant it always raises for (D11, D13), after a `break`
    # (D12) some lanes take: the lanes reaching the call all raise, those that broke return.
    # Rejected as "tuple unpacking needs a tuple" (fuzz seed 690001 #1508).
    cycle = 0
    while True:
        cycle += 1
        if pressure < 0.0 or cycle > 3:
            break
        low, high = _saturation_range(700.0)
        pressure = pressure + (high - low) * 0.01
    return pressure


def skipped_cycles(pressure):
    # The same after a `continue`.
    total = 0.0
    for cycle in range(4):
        if pressure < cycle:
            continue
        low, high = _saturation_range(700.0)
        total += (high - low) * 0.01
    return total


@pytest.mark.parametrize("fn", [superheated_cycles, skipped_cycles], ids=lambda f: f.__name__)
def test_a_tuple_helper_raising_on_every_lane_that_did_not_leave_the_iteration(fn, backend):
    _each(vectorize(fn), XS, backend=backend)
    # Only lanes that leave: no raise.
    check_raising(vectorize(fn), np.array([-1.0, -math.inf, -5e-324]), backend=backend)


# ---- a message read under a Python `if` of a loop index (fuzz 750008 #1123) ----
# A uniform value (D14) the body computes from the function's parameters alone is the same on
# every iteration that computes it; under `if band:` (a loop index) not every iteration does, so
# the loop carries the last one computed (a merge with the value carried so far), which is the
# one a lane that raised there read.


def _bracket_limit(limit, income, band):
    if income * band > limit:
        raise ValueError(f"income {income} over the {limit} limit in band {band}")
    return income * 0.1 * band


def banded_tax_through_a_helper(income, brackets: dict):
    # The helper's `limit` is `brackets['top']`, computed in the inner `for` under `if band:`.
    tax = 0.0
    year = 0
    while year < 2:
        year += 1
        for band in range(3):
            if band:
                tax = tax + _bracket_limit(brackets["top"], income + year, band)
    return tax


def banded_tax_direct(income, brackets: dict):
    # The same value read directly by the raise, assigned in the branch.
    tax = 0.0
    year = 0
    while year < 2:
        year += 1
        for band in range(3):
            if band:
                cap = brackets["top"]
                if (income + year) * band > cap:
                    raise ValueError(f"income {income + year} over {cap} in band {band}, year {year}")
                tax = tax + income * 0.1
    return tax


def banded_tax_in_for_loops(income, brackets: dict):
    # Both loops counted; the branch on the outer index, the helper in the inner loop.
    tax = 0.0
    for year in range(2):
        if year:
            for band in range(1, 3):
                tax = tax + _bracket_limit(brackets["top"], income, band + year)
        tax = tax + 1.0
    return tax


@pytest.mark.parametrize(
    "fn", [banded_tax_through_a_helper, banded_tax_direct, banded_tax_in_for_loops], ids=lambda f: f.__name__
)
def test_a_message_reads_a_uniform_item_computed_under_an_if_on_a_loop_index(fn, backend):
    vec = vectorize(fn)
    brackets = {"top": 100.0, "low": 5.0}
    _each(vec, XS, brackets, backend=backend)
    # Element 2 raises in an earlier iteration than element 1, element 3 in a later one (year 2
    # of the `while` ones): CPython's first raising element in C order is element 1, with the
    # values it had at its raise.
    got = check_raising(vec, np.array([10.0, 60.0, 150.0, 49.0]), brackets, backend=backend)
    assert got is not None
    check_raising(vec, np.array([[-1.0, 60.0], [150.0, math.nan]]), brackets, backend=backend)
    # No element raises: the values.
    assert check_raising(vec, np.array([0.0, -0.0, 1.0, -math.inf, 5e-324]), brackets, backend=backend) is None


def _band_rate_changes(income, brackets: dict):
    # A program's merge of two such values differs from one iteration to the next: still rejected.
    for band in range(3):
        if band:
            rate = brackets["top"]
        else:
            rate = brackets["low"]
        if income > band:
            raise ValueError(f"{rate}: {income}")
    return income


def test_a_message_reading_a_merge_of_uniform_values_is_still_rejected():
    with pytest.raises(VectorizationError) as info:
        vectorize(_band_rate_changes)
    assert "not a tuple or a uniform value the loop computes" in str(info.value)
