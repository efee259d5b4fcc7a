"""`for i in range(n)` with a per-element bound `n` (D12) whose array has a float dtype: CPython
raises `TypeError` for the first element that reaches the loop; the vectorized call raises the
same `TypeError` when the loop statement is reached, for every element at once
(docs/semantics.md item 34)."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, first_raise, to_backend


def compound_interest(rate, years):
    if rate < 0.0:
        return -1.0
    balance = 1.0
    for _ in range(years):
        balance *= 1.0 + rate
    return balance


def test_int_bounds_match_cpython(backend):
    check(vectorize(compound_interest), np.array([0.05, -0.1, 0.0, 0.2]), np.array([3, 2, 0, 5]), backend=backend)


def test_a_float_bound_reached_raises_cpythons_type_error(backend):
    rates, years = np.array([-0.1, 0.05]), np.array([2.0, 3.0])
    expected, index = first_raise(compound_interest, rates, years)
    assert index == (1,)
    with pytest.raises(TypeError) as got:
        vectorize(compound_interest)(to_backend(rates, backend), to_backend(years, backend))
    assert got.value.args == expected.args


def test_a_float_bound_no_element_reaches_still_raises():
    # Item 34: CPython returns -1.0 for both elements (neither reaches the loop).
    rates, years = np.array([-0.1, -0.2]), np.array([2.0, 3.0])
    assert [compound_interest(r, y) for r, y in zip(rates.tolist(), years.tolist())] == [-1.0, -1.0]
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        vectorize(compound_interest)(rates, years)
    # The documented way out: an int bound.
    check(vectorize(compound_interest), rates, years.astype(np.int64))
