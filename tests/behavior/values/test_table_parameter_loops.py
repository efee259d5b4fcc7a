"""Sequences given per call walked, searched and reduced (D14, D15; issue 27, the rest of item
"a table parameter with a default"): `for lo, rate in zip(bands, rates)`, `enumerate(rates)`,
`for b in bands`, `bisect.bisect_right(bounds, x)`, `sum`/`min`/`max`/`any`/`all` of the
sequence (CPython's own, once per call) and `sum`/`any`/`all` of a comprehension over it (a
Python loop over its items in the generated code). The table is left at its default, passed as
a tuple, as a list, of length 0, 1 and many. CPython running the scalar original on the same
arguments is the oracle, on every backend."""

from __future__ import annotations

import bisect
import math
from bisect import bisect_left

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, check_raising, floats

THRESHOLDS = (0.0, 12_570.0, 50_270.0, 125_140.0)
RATES = (0.0, 0.2, 0.4, 0.45)
INCOMES = np.array(
    [0.0, -0.0, 1.0, -1.0, 12_570.0, 12_569.99, 12_570.01, 50_270.0, 125_140.0, 125_140.5, 1e9, math.inf, -math.inf, math.nan, 5e-324]
)
EDGE = np.concatenate([INCOMES, floats(20)])


def band_tax(income, thresholds=THRESHOLDS, rates=RATES):
    tax = 0.0
    for lo, rate in zip(thresholds, rates):
        if income > lo:
            tax += (income - lo) * rate
    return tax


def marginal_band(income, thresholds=THRESHOLDS):
    return bisect.bisect_right(thresholds, income)


def first_band_at_or_above(income, thresholds=THRESHOLDS):
    return bisect_left(thresholds, income)


def bands_passed(income, thresholds=THRESHOLDS):
    n = 0
    for lo in thresholds:
        if income >= lo:
            n += 1
    return n


def weighted(x, weights=(0.5, 0.25, 0.25)):
    return x * sum(weights) + max(weights) - min(weights)


def flags(x, rates=RATES):
    if any(rates):
        if all(rates):
            return x
        return -x
    return 0.0


def poly(x, coeffs=(1.0, -2.0, 0.5)):
    return sum(c * x**k for k, c in enumerate(coeffs))


def above_any(x, thresholds=THRESHOLDS):
    return any(x > t for t in thresholds)


def below_all(x, thresholds=THRESHOLDS):
    return all(x < t for t in thresholds if t > 0)


def stepped(x, thresholds=THRESHOLDS, rates=RATES):
    return sum(rate for lo, rate in zip(thresholds, rates) if x >= lo)


TABLES = {
    "default": None,
    "tuple": (0.0, 100.0, 1_000.0),
    "list": [-5.0, 0.0, 0.0, 7.5, math.inf],
    "one": (10.0,),
    "empty": (),
    "ints": [0, 10, 20],
}


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES.keys())
def test_bisect_of_a_table_parameter(table, backend):
    args = () if table is None else (table,)
    check(vectorize(marginal_band), EDGE, *args, backend=backend)
    check(vectorize(first_band_at_or_above), EDGE, *args, backend=backend)
    check(vectorize(marginal_band), np.array([-3, 0, 10, 11, 20, 2**62]), *args, backend=backend)


@pytest.mark.parametrize("table", [(3.0, 1.0, 2.0), (0.0, math.nan, 5.0), [math.nan], (5, 4, 3, 2, 1, 0)], ids=str)
def test_bisect_of_an_unsorted_table_is_cpythons_search(table, backend):
    """CPython's binary search, run as it is: the probes decide, sorted or not (module doc)."""
    xs = np.array([-1.0, 0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.5, 5.0, math.nan, math.inf])
    check(vectorize(marginal_band), xs, table, backend=backend)
    check(vectorize(first_band_at_or_above), xs, table, backend=backend)


def search(x, t):
    return bisect_left(t, x)


def test_bisect_of_a_parameter_without_a_default(backend):
    """Searched by `bisect`, a parameter is a sequence given per call (it was rejected before:
    `bisect_left() searches a constant tuple or list`)."""
    xs = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, math.nan])
    check(vectorize(search), xs, (0.0, 1.0), backend=backend)
    check(vectorize(search), xs, [0, 0, 1], backend=backend)


ZIPPED = {
    "default": None,
    "tuple": ((0.0, 100.0), (0.1, 0.3)),
    "list": ([0.0, 10.0, 20.0, 30.0], [0.5, 0.25, 0.125, 0.0625]),
    "shorter rates": ((0.0, 10.0, 20.0), [1.0]),
    "one": ((5.0,), (2.0,)),
    "empty": ((), ()),
    "ints": ((0, 10), (1, 2)),
}


@pytest.mark.parametrize("tables", ZIPPED.values(), ids=ZIPPED.keys())
def test_zip_of_table_parameters(tables, backend):
    args = () if tables is None else tables
    check(vectorize(band_tax), EDGE, *args, backend=backend)
    # An empty table: `sum` stays the int 0 for CPython, a float array here (item 8).
    check(vectorize(stepped), EDGE, *args, backend=backend, check_kind=tables not in (((), ()),))


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES.keys())
def test_a_loop_over_a_table_parameter_binds_each_item(table, backend):
    args = () if table is None else (table,)
    check(vectorize(bands_passed), EDGE, *args, backend=backend)


@pytest.mark.parametrize("weights", [None, (1.0,), [0.5, -0.0, 2.0], (3, 1, 2), [True, False]], ids=str)
def test_sum_min_max_of_a_table_parameter_once_per_call(weights, backend):
    args = () if weights is None else (weights,)
    check(vectorize(weighted), EDGE, *args, backend=backend, check_kind=False)


def test_min_of_an_empty_table_parameter_raises_cpythons_value_error():
    with pytest.raises(ValueError) as cpython:
        weighted(1.0, ())
    with pytest.raises(ValueError) as got:
        vectorize(weighted)(np.array([1.0, 2.0]), ())
    assert got.value.args == cpython.value.args


@pytest.mark.parametrize("rates", [None, (), (0.0, 0.0), (1.0, 2.0), [0, 3], (math.nan,), (-0.0, 1.0)], ids=str)
def test_any_all_of_a_table_parameter_decide_once_per_call(rates, backend):
    args = () if rates is None else (rates,)
    check(vectorize(flags), EDGE, *args, backend=backend)


@pytest.mark.parametrize("coeffs", [None, (), (2.0,), [1, 2, 3], (0.5, -0.0, math.inf, 1.0)], ids=str)
def test_sum_of_a_comprehension_over_a_table_parameter(coeffs, backend):
    args = () if coeffs is None else (coeffs,)
    xs = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e10, math.inf, -math.inf, math.nan])
    # An empty table: `sum` stays the int 0 for CPython, a float array here (item 8).
    check_raising(vectorize(poly), xs, *args, backend=backend) if coeffs != () else None
    if coeffs == ():
        check(vectorize(poly), xs, (), backend=backend, check_kind=False)


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES.keys())
def test_any_all_of_a_comprehension_over_a_table_parameter(table, backend):
    args = () if table is None else (table,)
    check(vectorize(above_any), EDGE, *args, backend=backend)
    check(vectorize(below_all), EDGE, *args, backend=backend)


def ratio_after(x, divisors=(1.0, 0.0)):
    return any(x / d > 1.0 for d in divisors)


def test_any_stops_at_the_first_true_item_as_cpython():
    """CPython's `any` does not evaluate the items after the first true one: 2.0 / 0.0 is never
    computed for x = 2.0, while x = 0.5 reaches it and raises ZeroDivisionError (D11)."""
    check(vectorize(ratio_after), np.array([2.0, 3.0, 1e300]))
    check_raising(vectorize(ratio_after), np.array([2.0, 0.5, 3.0]))


def enumerated(x, rates=RATES):
    total = 0.0
    for k, r in enumerate(rates, 1):
        total += k * r * x
    return total


@pytest.mark.parametrize("rates", [None, (), (2.0,), [1, 2, 3]], ids=str)
def test_enumerate_of_a_table_parameter(rates, backend):
    args = () if rates is None else (rates,)
    check(vectorize(enumerated), EDGE, *args, backend=backend, check_kind=rates != [1, 2, 3])


def zip_with_constant(x, thresholds=THRESHOLDS):
    tax = 0.0
    for lo, rate in zip(thresholds, (0.1, 0.2)):
        if x > lo:
            tax += (x - lo) * rate
    return tax


def test_zip_of_a_table_parameter_and_a_constant_table(backend):
    check(vectorize(zip_with_constant), EDGE, backend=backend)
    check(vectorize(zip_with_constant), EDGE, [5.0, 6.0, 7.0], backend=backend)


def banded_tax_with_allowance_taper(income, bands=THRESHOLDS, rates=RATES):
    """The band index counts too: past the second band, the personal allowance tapers away."""
    tax = 0.0
    for i, (lo, rate) in enumerate(zip(bands, rates)):
        if income > lo:
            tax += (income - lo) * rate
            if i >= 2:
                tax += (income - lo) * 0.01 * i
    return tax


def numbered_pairs(x, lows=THRESHOLDS, rates=RATES):
    return sum(k * rate * max(x - lo, 0.0) for k, (lo, rate) in enumerate(zip(lows, rates), 1))


def zip_one(x, rates=RATES):
    total = 0.0
    for k, item in enumerate(zip(rates)):
        total += k * item[0] * x + len(item)
    return total


def zip_alone(x, rates=RATES):
    total = 0.0
    for item in zip(rates):
        total += item[0] * x + len(item)
    return total


def test_zip_of_one_table_parameter_makes_one_item_tuples(backend):
    """Fails before: the item was bound to the number itself, not CPython's 1-tuple
    (`item[0]` raised TypeError: 'float' object is not subscriptable)."""
    check(vectorize(zip_alone), EDGE, backend=backend)
    check(vectorize(zip_alone), EDGE, [1, 2], backend=backend)


ENUMERATED_ZIPS = {
    "default": None,
    "tuple": ((0.0, 100.0), (0.1, 0.3)),
    "list": ([0.0, 10.0, 20.0, 30.0], [0.5, 0.25, 0.125, 0.0625]),
    "shorter rates": ((0.0, 10.0, 20.0), [1.0, 2.0]),
    "empty": ((), ()),
    "ints": ((0, 10, 20), (1, 2, 3)),
}


@pytest.mark.parametrize("tables", ENUMERATED_ZIPS.values(), ids=ENUMERATED_ZIPS.keys())
def test_enumerate_of_a_zip_of_table_parameters(tables, backend):
    """Fails before: `enumerate(zip(bands, rates))` was refused ("enumerate() runs over a
    sequence given per call and a constant start")."""
    args = () if tables is None else tables
    check(vectorize(banded_tax_with_allowance_taper), EDGE, *args, backend=backend)
    # An empty table: `sum` stays the int 0 for CPython, a float array here (item 8).
    check(vectorize(numbered_pairs), EDGE, *args, backend=backend, check_kind=tables != ((), ()))
    check(vectorize(zip_one), EDGE, *args[1:], backend=backend)


def smallest_of_each(x, rates=RATES):
    return min(r * x for r in rates)


def bounded_search(x, thresholds=THRESHOLDS):
    return bisect.bisect_right(thresholds, x, 1)


def zip_with_local(x, thresholds=THRESHOLDS):
    out = 0.0
    for lo, y in zip(thresholds, [x, 2 * x]):
        out += lo * y
    return out


@pytest.mark.parametrize(
    ("fn", "advice"),
    [
        (smallest_of_each, "use a loop with a start value"),
        (bounded_search, "`lo` and `hi` are not supported"),
        (zip_with_local, "constant tables only"),
    ],
    ids=lambda v: getattr(v, "__name__", "advice"),
)
def test_what_stays_out_is_rejected_with_its_position_and_advice(fn, advice):
    with pytest.raises(VectorizationError, match=advice) as got:
        vectorize(fn)(np.array([1.0]))
    assert "test_table_parameter_loops.py:" in str(got.value), got.value


def test_a_table_parameter_given_an_array_per_element_is_a_clear_type_error():
    with pytest.raises(TypeError, match="is an array"):
        vectorize(band_tax)(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
