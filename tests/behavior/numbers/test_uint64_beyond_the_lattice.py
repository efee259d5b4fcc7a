"""Integers computed with uint64 (docs/semantics.md item 13; issue 28 item 3): each lane holds
CPython's value in [-2**63, 2**64) whatever its neighbours hold, and an operation whose exact
result leaves that range raises OverflowError naming it, never a wrapped value. Ledger and
calendar formulas, on NumPy and array-api-strict, CPython as the oracle."""

from __future__ import annotations

import math

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


def days_left(today, deadline):
    if deadline >= today:
        return deadline - today
    return 0


def instalment_gap(paid, due):
    gap = (due - paid) // 3 * 2 % 1000 + 1
    return gap if due >= paid else 0


def unused_shortfall(paid, due):
    shortfall = due - paid
    return paid


def quadrupled_gap(credit, debit):
    return (credit - debit) * 4


def checked_gap(credit, debit):
    gap = credit - debit
    if credit > 10:
        raise ValueError(f"credit {credit} above the limit")
    return gap


def overdrawn(credit, debit):
    if credit > debit:
        return debit - credit
    return 0


def gap_as_float(credit, debit):
    gap = debit - credit
    return float(gap) if credit < debit else 0.0


def gap_size(credit, debit):
    gap = debit - credit
    return abs(gap) if credit < debit else 0


def gap_root(credit, debit):
    gap = debit - credit
    return math.sqrt(gap) if credit < debit else 0.0


def reported_gap(credit, debit):
    gap = debit - credit
    if credit > 3:
        raise ValueError(f"gap {gap} on an account over the limit")
    return 0


def tiered_gap(credit, debit):
    if credit > debit:
        return credit - debit
    gap = debit - credit
    return gap if gap > 5 else 0


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
    # 0 - (2**64 - 1) is below -2**63: the lane computes it on its own path.
    with pytest.raises(OverflowError, match="0 - 18446744073709551615 leaves the range"):
        vectorize(quadrupled_gap)(to_backend(np.array([0], dtype=np.uint64), backend), to_backend(np.array([2**64 - 1], dtype=np.uint64), backend))
    with pytest.raises(OverflowError, match=r"18446744073709551615 \+ 1 leaves the range .*flat index 1"):
        vectorize(ledger_total)(to_backend(np.array([3, 2**64 - 1], dtype=np.uint64), backend), 1)
    with pytest.raises(OverflowError, match=r"18446744073709551615 // -1 leaves the range"):
        vectorize(per_share)(to_backend(np.array([4, 2**64 - 1], dtype=np.uint64), backend), -1)


def _u64(backend, *columns):
    return [to_backend(np.array(c, dtype=np.uint64), backend) for c in columns]


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_the_first_lane_and_the_first_operation_that_left_the_range_are_named(backend):
    # Lane 0 leaves the range at `*` only, lane 1 at `-` already: the first lane in C order and
    # the first operation on it, with that lane's operands.
    credit, debit = [2**62, 0], [0, 2**64 - 1]
    with pytest.raises(OverflowError, match=r"^array-vectorize runtime: 4611686018427387904 \* 4 leaves the range of int64 and uint64 \(an integer computed with uint64, at flat index 0\): vectorized integers are 64-bit \(docs/semantics.md item 13\)$"):
        vectorize(quadrupled_gap)(*_u64(backend, credit, debit))
    with pytest.raises(OverflowError, match=r"^array-vectorize runtime: 0 - 18446744073709551615 leaves the range .*at flat index 0\)"):
        vectorize(quadrupled_gap)(*_u64(backend, credit[::-1], debit[::-1]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_branch_cpython_does_not_take_raises_nothing(backend):
    # D1 computes both sides of each `if`; a lane keeps the side it takes, so what the other side
    # computed beyond the range on that lane raises nothing: CPython's values on every lane, for
    # a conditional expression, an `if` statement, marks carried through `// * % + -` before the
    # merge, and a value computed and never used.
    credit = [0, 5, 2**64 - 1, 2**63, 7]
    debit = [2**64 - 1, 3, 0, 2**63 + 7, 7]
    for fn in (ledger_gap, days_left, instalment_gap, unused_shortfall):
        want = [fn(a, b) for a, b in zip(credit, debit)]
        got = to_numpy(vectorize(fn)(*_u64(backend, credit, debit)))
        assert got.dtype == np.uint64 and got.tolist() == want, fn.__name__
    assert any(not -(2**63) <= b - a for a, b in zip(credit, debit))  # an untaken side leaves it
    # The side a lane takes keeps its marks through the merge: lane 1 computes 0 - (2**64 - 1).
    assert overdrawn(2**64 - 1, 0) == -(2**64 - 1)
    with pytest.raises(OverflowError, match=r"0 - 18446744073709551615 leaves the range .*flat index 1\)"):
        vectorize(overdrawn)(*_u64(backend, [0, 2**64 - 1, 3], [2**64 - 1, 0, 1]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_any_other_use_raises_for_every_lane_it_holds_beyond(backend):
    # Only `+ - * // %` and the merge of branches carry the marks: a comparison of the value,
    # on the side of a branch that lane 0 does not take, raises for it (CPython: values).
    credit, debit = [2**64 - 1, 0, 9], [0, 2**64 - 1, 2]
    assert [tiered_gap(a, b) for a, b in zip(credit, debit)] == [2**64 - 1, 2**64 - 1, 7]
    with pytest.raises(OverflowError, match=r"0 - 18446744073709551615 leaves the range .*flat index 0\)"):
        vectorize(tiered_gap)(*_u64(backend, credit, debit))
    # The message of a `raise` on a lane where the value is beyond: item 13's OverflowError
    # (CPython's message would show the int); where the value is in range, CPython's raise.
    with pytest.raises(OverflowError, match=r"0 - 18446744073709551615 leaves the range .*flat index 0\)"):
        vectorize(reported_gap)(*_u64(backend, credit, debit))
    with pytest.raises(ValueError, match="gap 2 on an account over the limit"):
        vectorize(reported_gap)(*_u64(backend, [0, 9], [2**64 - 1, 11]))
    # float(), abs and a math function of it likewise, on the side lane 0 does not take.
    for fn in (gap_as_float, gap_size, gap_root):
        assert fn(2**64 - 1, 0) == 0 and fn(0, 2**64 - 1) > 0  # CPython: values, no exception
        with pytest.raises(OverflowError, match=r"0 - 18446744073709551615 leaves the range .*flat index 0\)"):
            vectorize(fn)(*_u64(backend, credit, debit))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_a_raise_statement_before_the_use_comes_first(backend):
    # Lane 0's gap leaves the range (CPython: an int below -2**63, returned), lane 1 raises
    # ValueError at the `raise`, which runs before the value is returned: CPython's exception.
    credit, debit = [0, 20], [2**64 - 1, 11]
    with pytest.raises(ValueError, match="credit 20 above the limit"):
        checked_gap(credit[1], debit[1])
    assert checked_gap(credit[0], debit[0]) == -(2**64 - 1)
    with pytest.raises(ValueError, match="credit 20 above the limit"):
        vectorize(checked_gap)(*_u64(backend, credit, debit))
    with pytest.raises(OverflowError, match="0 - 18446744073709551615 leaves the range"):
        vectorize(checked_gap)(*_u64(backend, credit[:1], debit[:1]))
