"""Sequences given per call (D14, D15; issue 27 part 2 item 1): a parameter of the vectorized
function indexed per element (`rates[band]`), whether the caller leaves its default or passes a
tuple or list of numbers, is converted once per call and gathered, with Python's negative indices
and IndexError; `len(table)` is a Python int once per call; `lower, upper = limits` unpacks once
per call (either may be None); a loop over such a sequence (`for lo, hi, rate in brackets`) runs
once per item with the items as Python numbers. CPython running the scalar original on the same
arguments is the oracle, on every backend."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats, ints, to_backend

RATES = (0.0, 0.1, 0.2, 0.35)
BRACKETS = ((0.0, 12_570.0, 0.0), (12_570.0, 50_270.0, 0.2), (50_270.0, 125_140.0, 0.4), (125_140.0, math.inf, 0.45))
INCOMES = np.array([0.0, -0.0, 1.0, 12_570.0, 12_570.01, 50_270.0, 99_999.5, 125_140.0, 1e7, math.inf, math.nan, -5.0])
BANDS = np.array([0, 1, 2, 3, -1, -4, 2, 0])


def band_charge(amount, band, rates=RATES):
    return amount * rates[band]


def step_of(band, steps=[-2, 0, 3]):
    return steps[band] + 1


def flag_of(band, flags=(True, False)):
    return flags[band]


@pytest.mark.parametrize(
    "table",
    [None, (0.5, 0.25), [1.5, -2.0, 3.0, 0.0], (1, 2, 3, 4, 5), [True, False, True, False], (0, 2.5, -1), (2**62, -3, 7, 1)],
    ids=["default", "tuple", "list", "ints", "bools", "mixed", "wide"],
)
def test_a_table_parameter_default_or_passed_is_gathered_per_element(table, backend):
    vec = vectorize(band_charge)
    bands = BANDS % (len(RATES) if table is None else len(table))
    amounts = np.array([100.0, -0.0, 1e6, np.inf, np.nan, 3.0, -7.5, 1e-310])
    if table is None:
        check(vec, amounts, bands, backend=backend)
    else:
        # Ints and floats mixed are gathered as floats (docs/semantics.md item 47).
        one_kind = len({type(v) for v in table}) == 1
        check(vec, amounts, bands, table, backend=backend, check_kind=one_kind)
        if one_kind:  # mixed: an int item times an int is an int for CPython (item 47)
            check(vec, ints()[: len(bands)], bands, table, backend=backend)


def test_an_int_and_a_bool_table_keep_their_kinds(backend):
    check(vectorize(step_of), np.array([0, 1, 2, -1, -3]), backend=backend)
    check(vectorize(step_of), np.array([0, 1, -2]), (7, 8), backend=backend)
    check(vectorize(flag_of), np.array([0, 1, -1, -2]), backend=backend)
    check(vectorize(flag_of), np.array([0, 1, -1, -2, 2]), [False, True, True], backend=backend)


def test_an_index_outside_a_given_table_raises_cpythons_index_error(backend):
    """D15: CPython's IndexError (its message, the type's name) at the first element out of range."""
    vec = vectorize(band_charge)
    amounts, bands = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 1, -3, 5])
    for table in [(0.5, 0.25), [0.5, 0.25, 1.0]]:
        with pytest.raises(IndexError) as cpython:
            [band_charge(a, b, table) for a, b in zip(amounts.tolist(), bands.tolist())]
        with pytest.raises(IndexError) as got:
            vec(to_backend(amounts, backend), to_backend(bands, backend), table)
        assert got.value.args == cpython.value.args
        first = 2 if len(table) == 2 else 3
        assert any(f"element {first}" in n for n in getattr(got.value, "__notes__", [])), got.value


def test_an_index_of_a_float_dtype_raises_cpythons_type_error():
    vec = vectorize(band_charge)
    with pytest.raises(TypeError, match="tuple indices must be integers or slices, not float"):
        vec(np.array([1.0]), np.array([1.0]), (0.5, 0.25))


def band_charge_if(amount, band, rates=RATES):
    if amount > 0:
        return amount * rates[band]
    return 0.0


def test_elements_that_do_not_reach_the_subscript_are_not_checked(backend):
    """D1: a lane on the other side of an `if` reads index 0, so its out-of-range band does not
    raise (CPython never evaluates it)."""
    check(vectorize(band_charge_if), np.array([-1.0, 5.0, -2.0, 0.0]), np.array([9, 1, -9, 4]), (0.5, 0.25), backend=backend)


def test_what_is_not_a_tuple_or_list_of_numbers_is_a_clear_type_error():
    vec = vectorize(band_charge)
    with pytest.raises(TypeError, match="tuple or a list of numbers"):
        vec(np.array([1.0]), np.array([0]), {0: 0.5})
    with pytest.raises(TypeError, match="must hold numbers"):
        vec(np.array([1.0]), np.array([0]), (0.5, "a"))
    with pytest.raises(TypeError, match="is an array"):  # D14: a per-call value, not per element
        vec(np.array([1.0]), np.array([0]), np.array([0.5, 0.25]))


def share(x, weights=(1.0, 2.0, 3.0)):
    return x / len(weights) + weights[len(weights) - 1]


def test_len_of_a_table_parameter_is_read_once_per_call(backend):
    vec = vectorize(share)
    check(vec, floats(), backend=backend)
    check(vec, floats(), [4.0, 5.5], backend=backend)
    check(vec, ints(), (1, 2, 3, 4, 9), backend=backend)


def clamp(x, limits=(None, 1.0)):
    lower, upper = limits
    if lower is not None and x < lower:
        return lower
    if upper is not None and x > upper:
        return upper
    return x


@pytest.mark.parametrize("limits", [None, (0.0, None), (None, None), (-1.5, 2.5), [0, 10]], ids=str)
def test_tuple_parameters_unpack_once_per_call_either_may_be_none(limits, backend):
    vec = vectorize(clamp)
    args = () if limits is None else (limits,)
    # A limit returned where `x` is returned elsewhere: one array of both kinds (item 8).
    check(vec, floats(), *args, backend=backend, check_kind=False)
    check(vec, ints(), *args, backend=backend, check_kind=False)


@pytest.mark.parametrize("limits", [(0.0, 1.0, 2.0), (1.0,), 3.0])
def test_unpacking_a_tuple_of_another_length_raises_cpythons_error(limits):
    with pytest.raises((ValueError, TypeError)) as cpython:
        clamp(0.5, limits)
    with pytest.raises(type(cpython.value)) as got:
        vectorize(clamp)(np.array([0.5, 2.0]), limits)
    assert got.value.args == cpython.value.args


def income_tax(income, brackets=BRACKETS):
    tax = 0.0
    for lo, hi, rate in brackets:
        if income > lo:
            tax += (min(income, hi) - lo) * rate
    return tax


def top_rate(income, brackets=BRACKETS):
    for lo, hi, rate in brackets:
        if income <= hi:
            return rate
    return -1.0


def tiered(units, limits=[10, 20, 50], prices=(1.0, 1.5, 2.5)):
    cost = 0.0
    for k in range(len(limits)):
        if units > limits[k]:
            cost += prices[k]
    return cost


@pytest.mark.parametrize(
    "brackets",
    [None, ((0.0, 100.0, 0.1), (100.0, math.inf, 0.3)), [(0, 10, 1), (10, 20, 2)], ()],
    ids=["default", "two", "ints", "empty"],
)
def test_a_loop_over_a_table_parameter_runs_once_per_row(brackets, backend):
    args = () if brackets is None else (brackets,)
    check(vectorize(income_tax), INCOMES, *args, backend=backend)
    # An int rate returned where -1.0 is returned elsewhere: one float array (item 8).
    check(vectorize(top_rate), INCOMES, *args, backend=backend, check_kind=False)


def test_a_range_over_the_length_of_a_table_parameter(backend):
    vec = vectorize(tiered)
    units = np.array([0, 5, 10, 11, 20, 21, 49, 50, 51, -3])
    check(vec, units, backend=backend)
    check(vec, units, (5, 15), [0.5, 0.25], backend=backend)
    check(vec, units.astype(float), [], (), backend=backend)


def rate_of(band, rates):
    return rates[band]


def charge_through_helper(amount, band, rates=RATES):
    return amount * rate_of(band, rates)


def test_a_table_parameter_passed_on_to_a_helper(backend):
    vec = vectorize(charge_through_helper)
    check(vec, np.array([1.0, 2.0, -3.0, 0.5]), np.array([0, 1, 2, -1]), backend=backend)
    check(vec, np.array([1.0, 2.0, -3.0, 0.5]), np.array([0, 1, 1, -1]), [7.0, 9.0], backend=backend)


def test_docs_semantics_item_47_an_empty_sequence_is_read_once_per_call():
    """An empty tuple indexed per element raises at the call, even where CPython's elements never
    reach the subscript (they read index 0); mixed ints and floats come back as floats."""
    assert band_charge_if(-1.0, 0, ()) == 0.0
    with pytest.raises(IndexError, match="tuple index out of range"):
        vectorize(band_charge_if)(np.array([-1.0]), np.array([0]), ())
    got = vectorize(step_of)(np.array([0, 1]), (7, 8.5))
    assert got.dtype == np.float64 and step_of(0, (7, 8.5)) == 8  # an int for CPython


def unguarded(x, limits=(None, 1.0)):
    lower, upper = limits
    return x * upper + lower


def test_docs_semantics_item_31_an_unpacked_none_read_as_a_number_is_the_stand_in():
    """CPython raises TypeError (`x + None`); the unpacked item that may be None reads False."""
    with pytest.raises(TypeError):
        unguarded(2.0)
    np.testing.assert_array_equal(np.asarray(vectorize(unguarded)(np.array([2.0, -1.5]))), [2.0, -1.5])
