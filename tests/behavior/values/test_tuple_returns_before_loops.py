"""Several results (D13) returned early, before a loop (D6 counted, a loop over a table, D12
masked `while`) whose body may raise per lane (D11): the loop carries the lanes done, and the
tuples returned before it keep their priority after it (fuzz 750010 #136 was rejected as "returned
from inside a loop"). Lanes take each path: the early return, a raise in the loop, the return
after it. Against CPython as the oracle, element by element, on NumPy and array-api-strict, in
the marked function and in a helper whose tuple the marked function unpacks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, NAN_TO_INT, check_outcomes
from sourcefile import from_source

BRACKETS = (10_000.0, 40_000.0, 90_000.0)
RATES = (0.1, 0.2, 0.35)


def tax_by_table(income):
    """A loop over a constant table; an explicit raise, and `int()` of NaN (0 by item 7 of
    docs/semantics.md, a ValueError in CPython) in it."""
    if income <= 0.0:
        return 0.0, 0, False
    owed = 0.0
    band = 0
    for limit in BRACKETS:
        if income > 1e15:
            raise ValueError(f"income {income} past the tables")
        whole = int(min(income, 1e6))
        if whole > limit:
            owed = owed + (whole - limit) * 0.1
            band = band + 1
    return owed, band, band == len(BRACKETS)


def tax_by_range(income, allowance):
    """A loop of a constant trip count; an explicit raise on some lanes in it."""
    if income < allowance:
        return allowance - income, -1
    left = income - allowance
    steps = 0
    for k in range(3):
        if left > 1e15:
            raise OverflowError(f"income {income} beyond the tables")
        if left > RATES[k] * 1e5:
            steps = steps + 1
    return left * RATES[steps - 1] if steps else 0.0, steps


def halvings_to_unit(mass):
    """A masked loop (D12); a raise on the lanes that would never leave it."""
    if not mass > 1.0:
        return mass, 0
    n = 0
    while mass >= 2.0:
        if mass == math.inf:
            raise ValueError("an unbounded mass never halves to one unit")
        mass = mass / 2.0
        n += 1
    return mass, n


def _tax_by_table(income):
    return tax_by_table(income)


def through_table_helper(income):
    owed, band, top = _tax_by_table(income)
    return owed + band - top


def through_range_helper(income, allowance):
    refund, steps = tax_by_range(income, allowance)
    return refund * steps


def through_while_helper(mass):
    m, n = halvings_to_unit(mass)
    return m + n


INCOMES = np.concatenate([np.array(FLOAT_EDGES), np.random.default_rng(7).uniform(-5e4, 3e5, 16), [5e3, 2.5e4, 6e4, 2e5]])
ALLOWANCES = np.array([0.0, -0.0, 1.0e4, -5.0, 2.5e4])

CASES = {
    "tax_by_table": (tax_by_table, (INCOMES,)),
    "tax_by_range": (tax_by_range, (INCOMES[:, None], ALLOWANCES)),
    "halvings_to_unit": (halvings_to_unit, (INCOMES,)),
    "through_table_helper": (through_table_helper, (INCOMES,)),
    "through_range_helper": (through_range_helper, (INCOMES[:, None], ALLOWANCES)),
    "through_while_helper": (through_while_helper, (INCOMES,)),
}


def _finite(args):
    """The same arguments without the lanes that raise in the loops (NaN, infinities, values
    past the tables), so that the values of every path are compared too."""
    return tuple(np.where(np.isfinite(a) & (np.abs(a) < 1e15), a, 3.0e4) for a in args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tuple_returned_before_a_loop_matches_cpython(name, backend):
    fn, args = CASES[name]
    vec = vectorize(fn)
    check_outcomes(vec, *args, backend=backend, as_values=(NAN_TO_INT,))
    check_outcomes(vec, *_finite(args), backend=backend, as_values=(NAN_TO_INT,))


def test_the_inputs_reach_every_path():
    """Early returns (<= 0 or NaN for the while loop), raises in the loops (NaN, +inf, past
    1e15) and returns after them (finite positive values above and below the tables)."""
    x = INCOMES
    assert (x <= 0.0).any() and np.isnan(x).any() and (x == math.inf).any() and (x > 1e15).any()
    assert ((x > 1.0) & (x < 1e4)).any() and ((x > 9e4) & (x < 1e6)).any()


def test_tuple_returned_from_inside_the_loop_is_still_rejected():
    err = _error(
        "T = (1.0, 2.0)\n\ndef f(x):\n    if x > 5.0:\n        return x, 0\n"
        "    for t in T:\n        if x > t:\n            return t, 1\n    return 0.0, 2\n"
    )
    assert "inside a loop" in str(err)


def test_one_value_in_the_loop_after_a_tuple_is_rejected():
    err = _error(
        "T = (1.0, 2.0)\n\ndef f(x):\n    if x > 5.0:\n        return x, 0\n"
        "    for t in T:\n        if x > t:\n            return t\n    return 0.0, 2\n"
    )
    assert "same number of values" in str(err)


def _error(source: str) -> VectorizationError:
    with pytest.raises(VectorizationError) as info:
        vectorize(from_source(source))
    return info.value
