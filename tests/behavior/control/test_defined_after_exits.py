"""A variable is defined after an `if`/`elif`/`else` whose branches that do not assign it end
their path (`continue`, `break`, `return`, `raise`): every path that reaches the read assigned it,
so the function compiles (no "may be undefined") and matches CPython per element. A branch that
neither assigns nor leaves keeps the read rejected.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, check, check_raising, grid

FLOATS = np.array(FLOAT_EDGES + [0.1, 0.7, 2.5, -2.5, 3.5, -12.5, 1e6])


def heating_degree_sum(t):
    # The shape: `y` is assigned on the branches that reach `acc += y`.
    acc = 0.0
    for i in range(4):
        if t > i:
            y = 1.0
        elif t < -i:
            continue
        else:
            y = 2.0
        acc += y
    return acc


def tariff_steps(usage):
    acc = 0.0
    for step in range(5):
        if usage > 10.0 * step:
            rate = 0.1 * step
        elif usage < 0.0:
            break
        else:
            rate = 0.0
        acc += rate * usage
    return acc


def bracket_rate(income):
    if income > 50000.0:
        rate = 0.4
    elif income < 0.0:
        return 0.0
    else:
        rate = 0.2
    return rate * income


def checked_albedo(a):
    if a > 0.9:
        k = 0.9
    elif a < 0.0:
        raise ValueError(f"albedo {a} is negative")
    else:
        k = a
    return 1.0 - k


def several_elifs(x):
    acc = 0.0
    k = 0
    while k < 6:
        k += 1
        if x > k:
            y = x - k
        elif x < -k:
            continue
        elif x == 0.0:
            break
        else:
            y = 0.5
        acc += y
    return acc


def nested_exit(x, y):
    total = 0.0
    for i in range(3):
        if x > i:
            d = x - i
        else:
            if y > 0.0:
                continue
            if y < -5.0:
                break
            d = y
        total += d
    return total


@pytest.mark.parametrize(
    "fn", [heating_degree_sum, tariff_steps, bracket_rate, several_elifs], ids=lambda f: f.__name__
)
def test_one_argument(fn, backend):
    check(vectorize(fn), FLOATS, backend=backend)


def test_raise_in_an_elif(backend):
    vec = vectorize(checked_albedo)
    check_raising(vec, FLOATS, backend=backend)
    check_raising(vec, np.array([0.3, 1.5, 0.0, -0.0]), backend=backend)


def test_nested_if_with_continue_and_break(backend):
    x, y = grid(FLOATS, np.array([-6.0, -1.0, 0.0, -0.0, 2.0, math.nan]))
    check(vectorize(nested_exit), x, y, backend=backend)


def not_assigned_on_one_branch(x):
    acc = 0.0
    for i in range(3):
        if x > i:
            y = 1.0
        elif x < -i:
            pass
        else:
            y = 2.0
        acc += y
    return acc


def test_a_branch_that_neither_assigns_nor_leaves_reads_unbound_per_element():
    # D20: an element that takes the `pass` branch in the first iteration raises
    # UnboundLocalError at `acc += y`, as CPython does; the others add their values.
    from oracle import check_raising

    vec = vectorize(not_assigned_on_one_branch)
    exc = check_raising(vec, np.array([5.0, 0.5, -0.5, 0.0, np.nan, -5.0]))
    assert isinstance(exc, UnboundLocalError)
    assert check_raising(vec, np.array([5.0, 0.5, 0.0, np.nan])) is None
