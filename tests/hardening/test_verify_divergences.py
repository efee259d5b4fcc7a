"""``verify=`` compares with the documented divergences applied (docs/semantics.md), and names the
first element that differs beyond them.

Accepted: transcendental functions and float powers within the documented 4 ulps (item 9; NumPy's
``tanh`` differs from the C library's in the last bit on many inputs), NaN where CPython returns
a complex number (item 4), any IEEE value where CPython raises (D3, items 1-7 and 16), integers
equal modulo 2**64 where the exact value leaves the result's dtype (items 6 and 13), and ints held
as float64 in mixed-kind results (item 8). Everything else is a mismatch, reported with its
index, the arguments by name, CPython's value and the vectorized one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from array_vectorize.verify import verify_against_original

SPREAD = np.linspace(-3.0, 3.0, 2001)


def activation(x):
    return math.tanh(x) * 2.0 - 0.5


def log_return(price, base):
    return math.log(price / base) + math.exp(-price) ** 1.5


def cube_root(volume):
    return volume ** (1.0 / 3.0)


def payout(units):
    if units > 0:
        return units
    return 0.5


def compounded(units):
    return units * 3 + 1


def reciprocal(rate):
    return 1.0 / rate


def test_last_bit_differences_of_transcendentals_are_accepted():
    # NumPy's tanh is not the C library's: some elements differ in the last bit.
    assert any(np.tanh(v) != math.tanh(v) for v in SPREAD.tolist())
    vectorize(activation, verify=(SPREAD,))
    vectorize(log_return, verify=(np.linspace(0.1, 50.0, 501), np.linspace(3.0, 0.2, 501)))


def test_complex_results_as_nan_are_accepted():
    vectorize(cube_root, verify=(np.array([-8.0, -1.0, 0.0, 27.0]),))


def test_ieee_values_where_cpython_raises_are_accepted():
    vectorize(reciprocal, verify=(np.array([0.0, -0.0, 2.0]),))


def test_wrapped_integers_and_ints_held_as_floats_are_accepted():
    vectorize(compounded, verify=(np.array([2**62, -(2**62), 5], dtype=np.int64),))
    vectorize(payout, verify=(np.array([2**53 + 1, -3], dtype=np.int64),))


def perturbed(vec, ulps):
    def shifted(*args):
        out = np.asarray(vec(*args))
        for _ in range(ulps):
            out = np.nextafter(out, np.inf)
        return out

    shifted.source = vec.source
    return shifted


def test_differences_beyond_the_documented_ulps_are_reported():
    vec = vectorize(activation)
    verify_against_original(perturbed(vec, 3), activation, (SPREAD,))  # within 4 ulps of libm's
    with pytest.raises(VectorizationError) as info:
        verify_against_original(perturbed(vec, 6), activation, (SPREAD,))
    message = str(info.value)
    assert "activation(x=-3.0)" in message and "index (0,)" in message
    assert repr(activation(-3.0)) in message
    assert "ulp" in message


def test_functions_without_transcendentals_are_compared_exactly():
    vec = vectorize(reciprocal)
    with pytest.raises(VectorizationError, match="ulp"):
        verify_against_original(perturbed(vec, 1), reciprocal, (np.array([4.0]),))


def test_the_first_difference_is_reported_with_index_arguments_and_values():
    def wrong(price, base):
        return price + base

    vec = vectorize(log_return)
    prices = np.array([[1.0, 2.0], [3.0, 4.0]])
    bases = np.array([1.0, 1.0])
    with pytest.raises(VectorizationError) as info:
        verify_against_original(vec, wrong, (prices, bases))
    message = str(info.value)
    assert "index (0, 0)" in message and "wrong(price=1.0, base=1.0)" in message
    assert "2.0 in CPython" in message and repr(log_return(1.0, 1.0)) in message
    assert "4 of 4 elements differ" in message
