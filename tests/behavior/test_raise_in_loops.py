"""`raise` and `assert` inside loops (D11 with D12) are not compiled yet: each form is rejected
at decoration with its position, and the rewrite the message suggests (break out of the loop,
raise after it) compiles and matches CPython.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, check_raising


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
        (_raise_in_while, 4, "`raise` and `assert` inside a loop (`for` or `while`"),
        (_assert_in_range_loop, 3, "`raise` and `assert` inside a loop (`for` or `while`"),
        (_helper_raising_in_loop, 2, "a helper called there included"),
        (_division_in_try_in_loop, 3, "within a loop (`for` or `while`"),
        (_while_in_try, 1, "within a loop (`for` or `while`"),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_rejected_with_position(fn, line, text):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert text in str(info.value)
    diag = info.value.diagnostics[0]
    # The helper's raise is reported in the helper; the others where they stand.
    first = (_checked_step if fn is _helper_raising_in_loop else fn).__code__.co_firstlineno
    assert diag["line"] == first + line, diag


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
