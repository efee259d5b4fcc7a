"""What a call accepts besides arrays and numbers: a Python list, converted as np.vectorize
converts it (an array of the other arguments' namespace, NumPy when there is none), checked
against CPython element by element; and what a wrong argument gets: a TypeError naming the
parameter, with no internal exception chained to it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, check, to_backend, to_numpy


def overtime_pay(hours, rate):
    """Time and a half past 40 hours, double past 60."""
    if hours <= 40:
        return hours * rate
    if hours <= 60:
        return 40 * rate + (hours - 40) * rate * 1.5
    return 40 * rate + 20 * rate * 1.5 + (hours - 60) * rate * 2.0


def days_in_month(month, leap):
    if month == 2:
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


@pytest.mark.parametrize(
    "hours",
    [
        [0.0, 39.5, 40.0, 45.0, 60.0, 75.25, -0.0, math.inf, math.nan],  # float64
        [0, 40, 41, 60, 61, -3],  # int64
        [[10.0, 50.0], [61.0, 0.5]],  # nested: a 2-d array
        [True, False],  # bool
    ],
    ids=["floats", "ints", "nested", "bools"],
)
def test_a_list_is_an_array_as_numpy_makes_it(hours):
    vec = vectorize(overtime_pay)
    assert isinstance(vec(hours, 12.5), np.ndarray)
    # The oracle: CPython on each element of the array NumPy makes of the list (np.vectorize's
    # elements: here the list's own numbers), the call given the list.
    check(lambda h, r: vec(h.tolist(), r), np.asarray(hours), 12.5, scalar=overtime_pay)


def test_a_list_takes_the_namespace_of_the_other_arguments(backend):
    vec = vectorize(days_in_month)
    leap = np.array([True, False, True, False, False])
    months = [2, 2, 4, 12, 1]
    got = vec(months, to_backend(leap, backend))
    assert type(got) is type(to_backend(leap, backend))
    expected = [days_in_month(m, bool(k)) for m, k in zip(months, leap)]
    assert to_numpy(got).tolist() == expected
    check(vec, np.array(months), leap, backend=backend)


def test_lists_alone_and_large_lists_compute_with_numpy():
    vec = vectorize(overtime_pay)
    hours = np.linspace(0.0, 90.0, 1 << 18)  # large enough for the blocked evaluation of arrays
    rates = [10.0, 12.5] * (1 << 17)
    got = vec(hours.tolist(), rates)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, vec(hours, np.array(rates)))
    check(vec, hours[::4096], np.array(rates[::4096]))


def test_a_str_argument_names_the_parameter_and_chains_nothing():
    vec = vectorize(overtime_pay)
    with pytest.raises(TypeError, match=r"argument `rate` has unsupported type str") as info:
        vec(np.array([1.0, 2.0]), "12.5")
    assert info.value.__context__ is None and info.value.__cause__ is None
    with pytest.raises(TypeError, match=r"argument `hours` has unsupported type str") as info:
        vec("40", 12.5)
    assert info.value.__context__ is None and info.value.__cause__ is None
    with pytest.raises(TypeError, match=r"argument `rate` is a complex array"):
        vec(np.array([1.0]), np.array([1j]))
    with pytest.raises(TypeError, match=r"argument `hours` has unsupported dtype <U2"):
        vec(["40", "50"], 12.5)


def test_a_list_on_every_backend_gives_that_backend_s_array():
    vec = vectorize(overtime_pay)
    for name, module in BACKENDS.items():
        rate = to_backend(np.array([12.5, 20.0]), name)
        got = vec([35.0, 65.0], rate)
        assert type(got) is type(rate), name
        assert to_numpy(got).tolist() == [overtime_pay(35.0, 12.5), overtime_pay(65.0, 20.0)]
