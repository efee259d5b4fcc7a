"""`for i, c in enumerate(T)` and `for a, b in zip(T1, T2)` over constant tables in plain `for`
loops (D6, D15), against CPython on every backend: the targets are rebound from the items at
each iteration, `break`/`continue` and early returns per lane (D12), the last items after the
loop, `else:` clauses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats, ints

# Horner would be faster; people write the power series as it reads.
COEFFS = (1.0, -0.5, 0.125, -1.0 / 48.0)
BAND_TOPS = [12_570.0, 50_270.0, 125_140.0]
BAND_RATES = [0.0, 0.2, 0.4]
WEIGHTS = (3, 1, 4, 1, 5)


def series(x):
    acc = 0.0
    for k, c in enumerate(COEFFS):
        acc += c * x**k
    return acc


def shifted_powers(x):
    total = 0.0
    for k, c in enumerate(COEFFS, 1):
        total = total + c * x**k
        k = -k  # rebinding the target does not disturb the iteration
    return total + k


def banded_tax(income):
    tax = 0.0
    lower = 0.0
    for top, rate in zip(BAND_TOPS, BAND_RATES):
        if income <= lower:
            break
        tax += (min(income, top) - lower) * rate
        lower = top
    else:
        tax += (income - lower) * 0.45 if income > lower else 0.0
    return tax


def first_band_above(income):
    for i, top in enumerate(BAND_TOPS):
        if income < top:
            return i
    return len(BAND_TOPS)


def weighted_skip(n):
    acc = 0
    for w, sign in zip(WEIGHTS, (1, -1, 1, -1, 1, -1)):
        if w == 1:
            continue
        acc += sign * w * n
    return acc + w


def last_items(x):
    for i, c in enumerate((2, 3.5, -1)):
        x = x * c
    return x + i


FUNCTIONS = [series, shifted_powers, banded_tax, first_band_above, weighted_skip, last_items]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_unpacking_loops_match_cpython(fn, backend):
    values = np.concatenate([floats(), np.array([12_570.0, 50_270.0, 125_140.0, 2e5, 6e4])])
    check(vectorize(fn), values, backend=backend)
    check(vectorize(fn), ints(), backend=backend)


def over_a_dict(x):
    for k, v in enumerate({1: 2.0}):
        x += k
    return x


def too_many_names(x):
    for a, b, c in zip(COEFFS, COEFFS):
        x += a
    return x


def over_a_parameter(x, t):
    for a, b in zip(t, COEFFS):
        x += a
    return x


def not_enumerate(x):
    for a, b in ((1, 2), (3, 4)):
        x += a
    return x


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (over_a_dict, "constant tuples or lists"),
        (too_many_names, "gives 2 values per item"),
    ],
    ids=lambda v: getattr(v, "__name__", "msg"),
)
def test_unpacking_what_is_not_a_constant_table_is_rejected(fn, message):
    with pytest.raises(VectorizationError, match=message):
        vectorize(fn)


def test_unpacking_a_zip_over_a_table_parameter_runs_per_call():
    # Issue 27 (docs/semantics.md item 47): a parameter zipped with a constant table is a table
    # given per call, walked as CPython walks it, stopping at the shorter of the two.
    f = vectorize(over_a_parameter)
    x = np.array([0.0, -0.0, 1.5, -2.25, np.inf, np.nan])
    for t in ((), (0.5,), (1.0, -3.0), (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)):
        got = f(x, t)
        want = [over_a_parameter(float(v), t) for v in x]
        np.testing.assert_array_equal(got, np.array(want))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_a_display_of_pairs_is_unrolled():
    # D18: a tuple of tuples written in the loop is a local container, run over item by item.
    assert vectorize(not_enumerate)(np.array([1.5])).tolist() == [not_enumerate(1.5)]


def test_no_loop_variable_names_leak_into_the_signature():
    assert "def series(x)" in vectorize(series).source
    assert not math.isnan(float(vectorize(series)(0.5)))
