"""docs/semantics.md items 41-45 (and item 7 in the residue): what calls run element by element
(D19's residue, D23's call sites) and exceptions built as written (D21) do otherwise than
CPython's element loop, each pinned here; Dask and `jax.jit` (item 44) in tests/backends/test_scalar_calls_lazy.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import array_vectorize
from array_vectorize import vectorize
from oracle import BACKENDS, to_numpy


def deep_reciprocal(x, depth):
    """1 / x at the depth `depth` counts down to: in the residue when `depth > 8`."""
    if depth <= 0:
        return 1.0 / x
    return deep_reciprocal(x, depth - 1)


def test_item_41_the_residue_raises_cpythons_numeric_errors():
    vec = vectorize(deep_reciprocal)
    got = vec(np.array([0.0, 0.0]), np.array([2, 3]))
    assert got.tolist() == [math.inf, math.inf]  # D3 in the inlined levels
    with pytest.raises(ZeroDivisionError):
        vec(np.array([0.0]), np.array([12]))  # CPython's own error in the residue
    with pytest.raises(ZeroDivisionError):
        deep_reciprocal(0.0, 12)


def big_power(n, k):
    if k <= 0:
        return 1
    return n * big_power(n, k - 1)


def test_item_41_the_residues_ints_are_exact_until_placed():
    got = vectorize(big_power)(np.array([3, 3]), np.array([5, 50]))
    assert got.dtype == np.int64
    exact = 3**50
    assert got.tolist() == [243, (exact + 2**63) % 2**64 - 2**63]


def whole_units(balance, years):
    """A balance grown 5% a year for `years` years, cut to whole units; an infinite balance has
    none (CPython's OverflowError, caught). Past the levels inlined the residue finishes it."""
    if years > 0:
        return whole_units(balance * 1.05, years - 1)
    try:
        units = float(int(balance))
    except OverflowError:
        units = -1.0
    return units


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_items_7_and_41_a_conversion_beyond_int64_is_cpythons_in_the_residue_only(backend):
    """Fuzz finding 700007 #41: the same `int()` of a float beyond int64 raises item 7's
    OverflowError in the inlined levels (no `except` clause takes it, CPython raises nothing
    there) and is CPython's exact int in the elements the residue finishes (item 41); ±inf is
    CPython's OverflowError on both, which the clause takes; below 2**63 both are exact."""
    vec = vectorize(whole_units)
    xp = BACKENDS[backend]
    balance = [0.0, -0.0, 1.5, -7.9, 1234.56, 9.2e18, 1e300, -1e300, math.inf, -math.inf]
    for years in (12, 13):  # past the levels inlined: the residue, CPython's own conversion
        before = array_vectorize.stats()["residue_elements"]
        got = vec(xp.asarray(balance), xp.asarray([years] * len(balance)))
        assert array_vectorize.stats()["residue_elements"] - before == len(balance)
        assert to_numpy(got).tolist() == [whole_units(b, years) for b in balance]
    for years in (0, 2):  # inlined levels: exact within int64, ±inf caught as CPython catches it
        small = [0.0, -0.0, 1.5, -7.9, 1234.56, math.inf, -math.inf]
        got = vec(xp.asarray(small), xp.asarray([years] * len(small)))
        assert to_numpy(got).tolist() == [whole_units(b, years) for b in small]
    assert whole_units(1e300, 2) == 1e300 * 1.05 * 1.05  # CPython converts it exactly
    # Element 1, in an inlined level, raises item 7's error, which the `except` clause does not
    # take; element 0, in the residue, converts exactly; element 2 is within int64.
    with pytest.raises(OverflowError) as raised:
        vec(xp.asarray([5.0, 1e300, 2.0]), xp.asarray([12, 2, 2]))
    expected = f"int({1e300 * 1.05 * 1.05!r}) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)"
    assert raised.value.args == (expected,)
    assert "array-vectorize: raised for element (1,) (flat index 1)" in raised.value.__notes__

class Counter:
    """An impure callable: it records the elements it is called with."""

    def __init__(self):
        self.seen = []

    def __call__(self, v):
        self.seen.append(v)
        if v > 100.0:
            raise ValueError(f"{v} above the table")
        return v * 2.0


COUNT = Counter()


def counted(x):
    if x > 0.0:
        return COUNT(x)
    return 0


def test_item_42_the_callee_sees_the_reaching_elements_and_the_first_raising_one_twice():
    vec = vectorize(counted, fallback="calls")
    COUNT.seen.clear()
    vec(np.array([-1.0, 3.0, 4.0]))
    assert COUNT.seen == [3.0, 4.0]
    COUNT.seen.clear()
    with pytest.raises(ValueError, match="^200.0 above the table"):
        vec(np.array([3.0, 200.0, 300.0]))
    assert COUNT.seen == [3.0, 200.0, 300.0, 200.0]


def test_item_43_the_dtype_follows_the_elements_that_reached_the_call():
    vec = vectorize(counted, fallback="calls")
    assert vec(np.array([-1.0, -2.0])).dtype == np.int64
    both = vec(np.array([-1.0, 2.0]))
    assert both.dtype == np.float64 and both.tolist() == [0.0, 4.0]
    assert [type(counted(v)) for v in (-1.0, 2.0)] == [int, float]


class TableError(ValueError):
    built = 0

    def __init__(self, value):
        TableError.built += 1
        super().__init__(f"{value} outside the table")


def caught(x):
    try:
        if x > 1.0:
            raise TableError(x)
        y = x
    except TableError:
        y = -1.0
    return y


def test_item_45_an_exception_caught_inside_is_not_built():
    vec = vectorize(caught)
    TableError.built = 0
    assert vec(np.array([0.5, 2.0, 3.0])).tolist() == [0.5, -1.0, -1.0]
    assert TableError.built == 0
    assert [caught(v) for v in (0.5, 2.0, 3.0)] == [0.5, -1.0, -1.0]
    assert TableError.built == 2
