"""A constant table indexed per element inside a loop (D15 with D11, D12), against CPython as
the oracle: a lane that has left the loop reads nothing more (not even through a helper the
loop calls), and of the lanes that index outside the table, the one named is CPython's first
raising element in C order, whatever the iteration it raises in (CPython's element loop runs
each element's iterations to the end before the next element's).
"""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, check_outcomes, check_raising

# Share of a bonus vested after 0, 1, ... 5 whole years of service.
VESTING = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
# Yearly pension indexation steps, as a list.
INDEXATION = [0.01, 0.015, 0.02]


def vested(year):
    return VESTING[year]


def vested_bonus(start, years):
    """100 a year vested from service year `start` on, for `years` years."""
    total = 0.0
    for k in range(years):
        total += 100.0 * VESTING[start + k]
    return total


def vested_through_helper(start, years):
    """As `vested_bonus`, the table read in a helper whose own loop runs `k` times: a lane
    whose `years` have run out never calls it again."""
    total = 0.0
    for k in range(years):
        total += accrued(start, k)
    return total


def accrued(start, k):
    s = 0.0
    for j in range(k):
        s += VESTING[start + j]
    return s


def indexed_pension(amount, years, first):
    """A pension indexed `years` times by the steps of INDEXATION from step `first` on,
    stopping early on a negative amount (a `while` loop: lanes leave at different iterations)."""
    k = 0
    while k < years and amount >= 0.0:
        amount *= 1.0 + INDEXATION[first + k]
        k += 1
    return amount


def test_a_lane_past_its_last_iteration_reads_no_table(backend):
    # Element 0 runs one iteration (index 5); element 1 runs three (indices 0, 1, 2): in the
    # second, element 0's index would be 6, out of range, but it has left the loop.
    check(vectorize(vested_bonus), np.array([5, 0, 4]), np.array([1, 3, 2]), backend=backend)


def test_a_finished_lane_in_a_helper_reads_no_table(backend):
    # Element 0 (start -9) calls `accrued(-9, 0)`, which loops zero times; only in a second
    # iteration, which element 0 does not run, would it read VESTING[-9].
    check(vectorize(vested_through_helper), np.array([-9, 0, 2]), np.array([1, 3, 2]), backend=backend)


@pytest.mark.parametrize(
    "start, years",
    [
        # element 1 raises in the second iteration (index 6), element 2 in the first (index -7):
        # CPython names element 1
        ([4, 5, -7], [1, 3, 1]),
        # element 0 raises in the third iteration, element 1 in the first
        ([4, 9, 0], [3, 1, 2]),
        # element 2 alone, in the fourth iteration; element 0 would in a fifth it does not run
        ([5, 0, 3], [1, 4, 4]),
        # none raises: element 0 stops before index 6
        ([5, 0, -6], [1, 6, 2]),
    ],
)
def test_the_first_raising_element_in_c_order_is_named(start, years, backend):
    check_outcomes(vectorize(vested_bonus), np.array(start), np.array(years), backend=backend)


def test_the_first_raising_element_in_c_order_through_a_helper(backend):
    # element 0 raises in its third iteration (accrued(5, 2) reads VESTING[6]); element 2 in its
    # second (accrued(-7, 1) reads VESTING[-7]); element 1 finished before reading beyond.
    check_outcomes(
        vectorize(vested_through_helper), np.array([5, -20, -7, 1]), np.array([3, 1, 2, 3]), backend=backend
    )


def test_a_while_loop_names_cpythons_element_of_a_list():
    # element 0 leaves at once (negative amount; it would read index 7), element 1 raises in
    # the third iteration, element 2 stops after two, element 3 raises in the first: CPython
    # names element 1.
    amounts = np.array([-1.0, 100.0, 50.0, 0.0])
    years = np.array([9, 5, 2, 4])
    first = np.array([7, 1, 1, 3])
    got = check_raising(vectorize(indexed_pension), amounts, years, first)
    assert isinstance(got, IndexError) and got.args == ("list index out of range",)


def test_2d_elements_in_c_order(backend):
    start = np.array([[0, 4], [-7, 5]])
    years = np.array([[6, 3], [1, 1]])
    check_outcomes(vectorize(vested_bonus), start, years, backend=backend)


def test_outside_loops_the_gather_still_names_cpythons_element():
    # Outside loops the gather checks at call time, with a note of its own naming the lane.
    with pytest.raises(IndexError, match="tuple index out of range") as info:
        vectorize(vested)(np.array([1, 2, 7, -9, 3]))
    assert "array-vectorize: first out-of-range lane is element 2 (C order), index 7" in info.value.__notes__
