"""A `while` test that can raise for an element (D12 with D11, D19, D20): the test runs before each
iteration on the elements still looping, as in CPython, and an element whose test raises leaves
the loop with its raise there, on the first iteration or a later one; the call raises what
CPython's element loop raises first (the first raising element in C order). The `else:` clause
runs for the elements whose test turned false, not for those that broke. Against CPython as the
oracle, on NumPy and array-api-strict, with edge values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, check, check_raising, first_raise, to_backend

CRITICAL_PRESSURE = 22.064  # MPa, water


def _boiling_point(p):
    # A validating helper (D11): raises outside the liquid-vapour line.
    if p < 0.0 or p > CRITICAL_PRESSURE:
        raise ValueError(f"pressure {p} MPa is off the saturation line")
    return 100.0 + 12.0 * p


def pump_stages(p, limit):
    """Stages a feed pump needs until the water boils at 330 C: a lane may raise on the first
    test (a negative pressure), on a later one (a stage overshoots the critical point), reach
    the temperature (the `else:`), or stop at its stage limit (the `break`, no `else:`)."""
    stages = 0
    while _boiling_point(p) < 330.0:
        if stages >= limit:
            break
        p = p * 1.5 + 0.25
        stages += 1
    else:
        return -stages
    return stages


def _balance_after(balance, years):
    # A recursion whose depth is the element's (D19): its residue may raise per element.
    if balance > 1e7:
        raise OverflowError(f"balance {balance} exceeds the insured limit")
    if years <= 0:
        return balance
    return _balance_after(balance * 1.07, years - 1)


def years_to_target(savings, target):
    """Years until compounded savings reach a target: the recursion sits in the `while` test."""
    years = 0
    while years < 40 and _balance_after(savings, years) < target:
        years += 1
    return years


TAX_BRACKETS = (0.0, 11000.0, 44725.0, 95375.0, 182100.0)


def bracket_of(income):
    """The tax bracket of an income: a per-element index read in the test (D11: IndexError past
    the last bracket, on a later iteration)."""
    k = 0
    while TAX_BRACKETS[k] <= income:
        k += 1
    return k


def bracket_or_cap(income, cap):
    """As `bracket_of`, with a per-element cap (`break`) and an `else:` for the bracket found."""
    k = 0
    while TAX_BRACKETS[k] <= income:
        k += 1
        if k >= cap:
            break
    else:
        k = k * 10
    return k


def cooling_days(t):
    """A name some elements never assigned, read in the test (D20: UnboundLocalError there)."""
    if t > -273.15:
        ambient = 20.0
    days = 0
    while t > ambient + 0.5 and days < 200:
        t = ambient + (t - ambient) * 0.5
        days += 1
    return days


PRESSURES = np.array([1.0, 5.0, 12.0, 0.0, -0.0, 0.5, 14.0, 15.0, 20.0, -1.0, 7.5, math.nan, 19.0])
LIMITS = np.array([9, 2, 9, 9, 0, 9, 9, 9, 1, 9, 9, 9, 3], dtype=np.int64)


def _suffixes(vec, *columns, backend):
    """The whole array, then each suffix of it: which element raises first is CPython's, wherever
    the first raising element stands."""
    for first in range(len(columns[0])):
        check_raising(vec, *[c[first:] for c in columns], backend=backend)


def test_a_validating_helper_in_the_test_raises_on_its_elements(backend):
    _suffixes(vectorize(pump_stages), PRESSURES, LIMITS, backend=backend)


def test_raising_on_the_first_iteration_and_on_a_later_one(backend):
    vec = vectorize(pump_stages)
    nine = np.array([9, 9, 9])
    # -1.0 raises on the first test; 15.0 on the second (15.0 * 1.5 + 0.25 = 22.75 MPa).
    first = check_raising(vec, np.array([14.0, -1.0, 15.0]), nine, backend=backend)
    assert "-1.0 MPa" in str(first)
    # The earlier element raises first in CPython's order, though in a later iteration.
    later = check_raising(vec, np.array([14.0, 15.0, -1.0]), nine, backend=backend)
    assert "22.75 MPa" in str(later)
    # Its stage limit stops 15.0 before the second test: -1.0's raise is the call's.
    limited = check_raising(vec, np.array([14.0, 15.0, -1.0]), np.array([9, 0, 9]), backend=backend)
    assert "-1.0 MPa" in str(limited)


def test_else_runs_when_the_test_turns_false_not_after_break(backend):
    vec = vectorize(pump_stages)
    edges = np.array([x for x in FLOAT_EDGES if not (x < 0.0)])
    for limit in (0, 1, 3, 9):
        check_raising(vec, edges, np.full(len(edges), limit, dtype=np.int64), backend=backend)


SAVINGS = np.array([1000.0, 5e6, 9e6, 0.0, -0.0, 250.0, math.nan, -5.0, 9.9e6, 1e5])
TARGETS = np.array([2000.0, 2e7, 1e7, 1.0, 0.0, 1e9, 10.0, 1.0, 2e7, 3e5])


def test_a_recursion_residue_in_the_test(backend):
    _suffixes(vectorize(years_to_target), SAVINGS, TARGETS, backend=backend)


def test_a_recursion_residue_in_the_test_on_edge_values(backend):
    edges = np.array(FLOAT_EDGES)
    check_raising(vectorize(years_to_target), edges, 5e5, backend=backend)
    check_raising(vectorize(years_to_target), np.array([[1.0], [100.0], [0.5]]), edges[:8], backend=backend)


INCOMES = np.array([0.0, 50000.0, -10.0, 11000.0, math.nan, 44725.0, 1e5, 182099.0, 182100.0, 5e6, math.inf, -0.0])


def _index_raises(vec, *columns, backend):
    """`check_raising` for an index read out of range: the same class and args as CPython's
    first raise (the note names the first lane out of range in the iteration where one is, the
    index read's own note, not D11's), else the same values."""
    expected = first_raise(vec._vectorized_original, *columns)
    if expected is None:
        check(vec, *columns, backend=backend)
        return
    error, _ = expected
    with pytest.raises(type(error)) as info:
        vec(*[to_backend(c, backend) for c in columns])
    assert info.value.args == error.args


def test_a_per_element_index_in_the_test(backend):
    for first in range(len(INCOMES)):
        _index_raises(vectorize(bracket_of), INCOMES[first:], backend=backend)


def test_a_per_element_index_in_the_test_with_break_and_else(backend):
    for cap in (1, 3, 5, 9):
        caps = np.full(len(INCOMES), cap, dtype=np.int64)
        for first in range(len(INCOMES)):
            _index_raises(vectorize(bracket_or_cap), INCOMES[first:], caps[first:], backend=backend)
    _index_raises(vectorize(bracket_or_cap), INCOMES, np.array([1, 2, 3, 4, 5, 6] * 2, dtype=np.int64), backend=backend)


def test_a_name_unbound_on_some_elements_in_the_test(backend):
    temps = np.array([90.0, 20.0, -300.0, 20.5, math.nan, 1e300, -273.15, 21.0, math.inf])
    _suffixes(vectorize(cooling_days), temps, backend=backend)


def _else_breaks_the_outer_loop(x):
    total = 0
    for k in range(3):
        while _boiling_point(x) < 200.0:
            x = x + 1.0
        else:
            break
        total += k
    return total


def test_an_else_that_leaves_the_enclosing_loop_is_rejected_at_the_test():
    # D10: the `else:` cannot move into the loop's body, where its `break` would end the
    # `while` itself; rejected where the test stands, with the rewrite to write.
    with pytest.raises(VectorizationError) as info:
        vectorize(_else_breaks_the_outer_loop)
    assert "cannot stand with an `else:` clause that breaks or continues" in str(info.value)
    diag = info.value.diagnostics[0]
    assert diag["line"] == _else_breaks_the_outer_loop.__code__.co_firstlineno + 3, diag
