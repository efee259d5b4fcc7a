"""Lanes beyond the uint64 lattice (docs/semantics.md item 13) meeting float code: a branch merged
with a float side (an inlined helper returning either), Python operators and math functions of the
int body on the merge, a recursion inlined level by level (D19), a loop carrying the marks, and
``nan_on_raise``. Lots of 2**63 units (an int64 count times a uint64 literal), on NumPy and
array-api-strict, CPython as the oracle. Fuzz campaign 68, seed 690003 program 1751: a TypeError
(`float + Overflowed`) before."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import to_backend, to_numpy

LOT = 2**63  # units in a lot: a uint64 literal, so a count of lots is computed on the lattice


def lot_units(lots):
    if lots > 2:
        return 1.5
    return lots * LOT


def lot_cost(lots):
    if lots > 0:
        return 0.5 + lot_units(lots)
    return 0.0


def lot_root(lots):
    if lots > 0:
        return math.sqrt(lot_units(lots))
    return 0.0


def lot_is_large(lots):
    if lots > 0:
        return lot_units(lots) > 2.0
    return False


def lot_cost_expr(lots):
    return 1.5 + (lots * LOT if lots <= 2 else 0.5) if lots > 0 else 0.0


def lot_balance(lots):
    balance = 0.25
    for _ in range(2):
        if lots > 2:
            balance = balance + 1.0
        else:
            balance = lots * LOT
    return balance + 0.5 if lots > 0 else 0.0


def graded_fee(account, months):
    # Fuzz campaign 68 (690003 #1751): inlined 8 levels deep (D19).
    if 0 < months <= 6:
        return 1.5 + graded_fee(account, months - 1)
    return months * LOT


def tick_balance(lots, steps):
    ticks = lots * LOT
    n = 0
    while n < steps:
        ticks = ticks % 7 + n
        n += 1
    return ticks if lots < 2 else -1


def checked_lots(lots):
    units = lots * LOT
    if lots > 1:
        raise ValueError(f"{lots} lots exceed the desk limit")
    return units


def returned_lots(lots):
    units = lots * LOT
    if lots > 5:
        raise ValueError("over the desk limit")
    return units


def _i64(backend, *columns):
    return [to_backend(np.array(c, dtype=np.int64), backend) for c in columns]


def _cpython(fn, *columns):
    return [fn(*row) for row in zip(*columns)]


@pytest.mark.parametrize("backend", ["numpy", "strict"])
@pytest.mark.parametrize("fn", [lot_cost, lot_root, lot_is_large, lot_cost_expr, lot_balance])
def test_a_merge_with_a_float_side_raises_item_13_for_the_lanes_that_take_it(fn, backend):
    # The int body merges `lots * LOT` with a float: the merge converts the lanes that take the
    # integer side to float (a use other than `+ - * // %`, as `float()`): a lane there whose
    # value left the lattice raises item 13's OverflowError, naming it, where CPython computes
    # that int; the lanes that take the float side raise nothing (lane 0: 3 lots, 3 * 2**63).
    calm = [3, 1, 0, -1]
    got = to_numpy(vectorize(fn)(*_i64(backend, calm)))
    assert [v.item() for v in got] == _cpython(fn, calm), fn.__name__
    assert 2 * LOT >= 2**64 and len(_cpython(fn, [3, 2, 1])) == 3  # CPython: values, no exception
    with pytest.raises(OverflowError, match=r"^array-vectorize runtime: 2 \* 9223372036854775808 leaves the range of int64 and uint64 \(an integer computed with uint64, at flat index 1\)"):
        vectorize(fn)(*_i64(backend, [3, 2, 1]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_recursion_inlined_level_by_level_raises_item_13_not_a_type_error(backend):
    # Each inlined level (D19) merges `1.5 + ...` with `months * LOT`: 6 months reach 0 and
    # never leave the lattice (CPython's 9.0); 7 months are 7 * 2**63, returned (item 13).
    accounts = [1, 2]
    got = to_numpy(vectorize(graded_fee)(*_i64(backend, accounts, [6, 6])))
    assert got.tolist() == _cpython(graded_fee, accounts, [6, 6])
    with pytest.raises(OverflowError, match=r"7 \* 9223372036854775808 leaves the range .*flat index 1\)"):
        vectorize(graded_fee)(*_i64(backend, accounts, [6, 7]))
    # 3 months: a deeper level, which the lane does not reach, computes (3 - 7) * 2**63 and
    # merges it with a float: item 13's "any other use", on a side the lane does not take.
    assert graded_fee(1, 3) == 4.5
    with pytest.raises(OverflowError, match=r"-4 \* 9223372036854775808 leaves the range .*flat index 0\)"):
        vectorize(graded_fee)(*_i64(backend, [1], [3]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_loop_carrying_marks_keeps_each_operation_once(backend):
    # Lane 0 leaves the lattice (3 * 2**63) before a loop that lane 1 runs 40 times; each step
    # carries the marks through `% +` and the loop's merge. Lane 0 returns -1, as in CPython
    # (it ran out of memory before: the marks' operations doubled at each step).
    lots, steps = [3, 1, 0], [0, 40, 2]
    got = to_numpy(vectorize(tick_balance)(*_i64(backend, lots, steps)))
    assert [v.item() for v in got] == _cpython(tick_balance, lots, steps)
    # -3 lots: -3 * 2**63 is below -2**63, and lane 0 returns what its loop made of it.
    assert isinstance(tick_balance(-3, 40), int)  # CPython: a value, no exception
    with pytest.raises(OverflowError, match=r"-3 \* 9223372036854775808 leaves the range .*flat index 0\)"):
        vectorize(tick_balance)(*_i64(backend, [-3, 1], [40, 40]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_nan_on_raise_gives_nan_where_the_lane_raised_before_returning_its_value(backend):
    # Lane 3 raises ValueError before it returns its 3 * 2**63 units: NaN there, as for any
    # lane that raises; the others return their value as float64 (it raised item 13's
    # OverflowError before). A lane that returns a value beyond the lattice still raises it.
    lots = [0, -1, 1, 3]

    def cpython(n):
        try:
            return float(checked_lots(n))
        except ValueError:
            return math.nan

    got = to_numpy(vectorize(checked_lots, nan_on_raise=True)(*_i64(backend, lots)))
    assert got.dtype == np.float64 and np.array_equal(got, np.array([cpython(n) for n in lots]), equal_nan=True)
    with pytest.raises(OverflowError, match=r"2 \* 9223372036854775808 leaves the range .*flat index 1\)"):
        vectorize(returned_lots, nan_on_raise=True)(*_i64(backend, [1, 2, 9]))
