"""`max`/`min` against a parameter passed as a number (runtime/select.py `_vec_pick`): on NumPy
the float body takes one `maximum`/`minimum` pass when the number is neither NaN nor zero, and
must still give CPython's result in every lane: NaN on either side, ties of 0.0 and -0.0,
infinities, subnormals; in both argument orders, and in a clamp."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats

NUMBERS = [math.nan, 0.0, -0.0, 1.5, -2.5, math.inf, -math.inf, 5e-324, -5e-324, 1e300]


def floor_at(x, c):
    return max(x, c)


def cap_at(x, c):
    return min(x, c)


def floor_first(x, c):
    return max(c, x)


def band(x, lo, hi):
    return min(max(x, lo), hi)


def price_floor(price, floor):
    """A price never below the regulated floor, nor above 3x it."""
    floored = max(price, floor)
    return min(floored, 3.0 * floor)


@pytest.mark.parametrize("fn", [floor_at, cap_at, floor_first, price_floor], ids=lambda f: f.__name__)
@pytest.mark.parametrize("c", NUMBERS, ids=repr)
def test_against_a_number(fn, c, backend):
    check(vectorize(fn), floats(30), c, backend=backend)


@pytest.mark.parametrize("lo", NUMBERS[:5], ids=repr)
@pytest.mark.parametrize("hi", NUMBERS[:5], ids=repr)
def test_band_with_numbers(lo, hi, backend):
    check(vectorize(band), floats(30), lo, hi, backend=backend)


def test_against_arrays_of_bounds(backend):
    x = floats(30)
    lo = np.resize(np.array(NUMBERS), x.shape)
    hi = lo[::-1].copy()
    check(vectorize(band), x, lo, hi, backend=backend)
    check(vectorize(floor_at), x, lo, backend=backend)


def test_all_numbers_give_a_0d_array_as_before():
    got = vectorize(floor_at)(1.0, 2.5)
    assert isinstance(got, np.ndarray) and got.shape == () and float(got) == 2.5
