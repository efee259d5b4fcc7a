"""Integers computed with uint64 (docs/semantics.md item 13; issue 28 item 3): each lane holds
CPython's value in [-2**63, 2**64) whatever its neighbours hold, and an operation whose exact
result leaves that range raises OverflowError naming it, never a wrapped value. Ledger and
calendar formulas, on NumPy and array-api-strict, CPython as the oracle."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import to_backend, to_numpy


def julian_day_number(year, month, day):
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045


def ledger_gap(credit, debit):
    return credit - debit if credit > debit else debit - credit


def rounded_down_half(credit, debit):
    return (credit - debit) // 2


def ledger_total(credit, debit):
    return credit + debit


def per_share(total, shares):
    return total // shares


def scaled_units(units, factor):
    return units * factor + 1


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_lanes_hold_their_values_in_the_int64_and_uint64_ranges_together(backend):
    # Item 13: each lane holds CPython's value in [-2**63, 2**64), whatever the other lanes hold;
    # the result is uint64 when no lane is negative, else int64 (each lane its value modulo 2**64).
    u = np.array([2**64 - 1, 5, 2**63, 0], dtype=np.uint64)
    v = np.array([2**63 - 1, 9, 2**63 + 1, 2**63], dtype=np.uint64)  # every difference in range
    got = to_numpy(vectorize(rounded_down_half)(to_backend(u, backend), to_backend(v, backend)))
    want = [rounded_down_half(int(a), int(b)) for a, b in zip(u, v)]
    assert got.dtype == np.int64 and [int(g) for g in got] == [w - 2**64 if w >= 2**63 else w for w in want]
    got = to_numpy(vectorize(ledger_gap)(to_backend(u, backend), to_backend(v, backend)))
    assert got.dtype == np.uint64 and got.tolist() == [ledger_gap(int(a), int(b)) for a, b in zip(u, v)]


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_result_leaving_the_range_raises_overflow_error(backend):
    # Item 13 (issue 28 item 3): an operation whose exact result leaves [-2**63, 2**64) raises
    # OverflowError naming the operation and the lane, even on a lane a branch CPython does not
    # take discards; it is never wrapped into a value that a later `//` turns into neither
    # CPython's value nor a wrapping of it (the calendar of the issue: a month near 2**64).
    years, days = np.array([2000, 2000], dtype=np.uint64), np.array([1, 1], dtype=np.uint64)
    months = np.array([3, 2**64 - 2], dtype=np.uint64)
    assert julian_day_number(2000, 2**64 - 2, 1) > 2**64  # CPython's exact value
    with pytest.raises(OverflowError, match=r"14 - 18446744073709551614 leaves the range of int64 and uint64 .*flat index 1"):
        vectorize(julian_day_number)(*[to_backend(a, backend) for a in (years, months, days)])
    calm = np.array([12, 3], dtype=np.uint64)
    got = to_numpy(vectorize(julian_day_number)(*[to_backend(a, backend) for a in (years, calm, days)]))
    assert got.tolist() == [julian_day_number(2000, 12, 1), julian_day_number(2000, 3, 1)]
    u, k = np.array([2**63, 3], dtype=np.uint64), np.array([2, 4], dtype=np.uint64)
    with pytest.raises(OverflowError, match=r"9223372036854775808 \* 2 leaves the range"):
        vectorize(scaled_units)(to_backend(u, backend), to_backend(k, backend))
    # 0 - (2**64 - 1) is below -2**63 on the lane whose credit is smaller: ledger_gap computes
    # both sides of its `if` (D1), so that lane raises although CPython takes the other side.
    assert ledger_gap(0, 2**64 - 1) == 2**64 - 1
    with pytest.raises(OverflowError, match="0 - 18446744073709551615 leaves the range"):
        vectorize(ledger_gap)(to_backend(np.array([0], dtype=np.uint64), backend), to_backend(np.array([2**64 - 1], dtype=np.uint64), backend))
    with pytest.raises(OverflowError, match=r"18446744073709551615 \+ 1 leaves the range .*flat index 1"):
        vectorize(ledger_total)(to_backend(np.array([3, 2**64 - 1], dtype=np.uint64), backend), 1)
    with pytest.raises(OverflowError, match=r"18446744073709551615 // -1 leaves the range"):
        vectorize(per_share)(to_backend(np.array([4, 2**64 - 1], dtype=np.uint64), backend), -1)
