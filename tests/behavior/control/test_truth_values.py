"""Truth values (D4): a number as a condition (`if x:`, `elif x:`, `not x`, `x and y`, `x or y`,
ternaries) is Python's truth value per element, `x != 0`, against CPython as the oracle on the
edge values where it could go wrong: NaN (true), -0.0 (false), subnormals, infinities, the int64
extremes, uint64 above int64's range, and bool columns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import FLOAT_EDGES, check, floats, grid

TRUTH_FLOATS = np.array(FLOAT_EDGES + [5e-324 * 3, -2.2250738585072014e-308 / 4, -math.nan], dtype=np.float64)
TRUTH_INTS = np.array([0, 1, -1, 2, 2**62, 2**63 - 1, -(2**63), -(2**63) + 1, 4096], dtype=np.int64)
TRUTH_UINTS = np.array([0, 1, 2**63, 2**64 - 1, 2**64 - 2, 2**32], dtype=np.uint64)
TRUTH_BOOLS = np.array([False, True])
COLUMNS = {"f": TRUTH_FLOATS, "i": TRUTH_INTS, "u": TRUTH_UINTS, "b": TRUTH_BOOLS}


def if_number(x):
    if x:
        return 1.5
    return -2.0


def if_else_assign(x):
    if x:
        y = 2.0
    else:
        y = 3.0
    return y


def elif_number(x, y):
    if x > 100:
        return 0.0
    elif y:
        return 1.0
    else:
        return 2.0


def elif_chain_of_numbers(x, y):
    if x:
        return 10
    elif y:
        return 20
    return 30


def not_number(x):
    if not x:
        return 7.0
    return -7.0


def not_value(x):
    return not x


def and_number(x, y):
    if x and y:
        return 1.0
    return 0.0


def or_number(x, y):
    if x or y:
        return 1.0
    return 0.0


def and_value(x, y):
    return x and y


def or_value(x, y):
    return x or y


def ternary_number(x):
    return 4.0 if x else 5.0


def nested_truth(x, y):
    if x:
        if not y:
            return 1.0
        return 2.0
    return 3.0


def truth_in_loop(x):
    total = 0.0
    for i in range(3):
        if x:
            total = total + i
        if i:
            total = total * 2.0
    return total


def truth_of_computed(x):
    d = x - 1.0
    if d:
        return 1.0 / d
    return 0.0


def bool_column(flag, x):
    if flag:
        return x + x
    return x


CASES = {
    "if_number": (if_number, ["f", "i", "u", "b"]),
    "if_else_assign": (if_else_assign, ["f", "i", "u", "b"]),
    "elif_number": (elif_number, ["ff", "fi", "iu", "fb"]),
    "elif_chain_of_numbers": (elif_chain_of_numbers, ["ff", "ii", "uf", "bi"]),
    "not_number": (not_number, ["f", "i", "u", "b"]),
    "not_value": (not_value, ["f", "i", "u", "b"]),
    "and_number": (and_number, ["ff", "ii", "fu", "bf"]),
    "or_number": (or_number, ["ff", "ii", "uf", "bi"]),
    "and_value": (and_value, ["ff", "ii", "uu", "bb"]),
    "or_value": (or_value, ["ff", "ii", "uu", "bb"]),
    "ternary_number": (ternary_number, ["f", "i", "u", "b"]),
    "nested_truth": (nested_truth, ["ff", "if", "ub", "bi"]),
    "truth_in_loop": (truth_in_loop, ["f", "i", "u", "b"]),
    "truth_of_computed": (truth_of_computed, ["f"]),
    "bool_column": (bool_column, ["bf", "bi"]),
}

PARAMS = [(name, kinds) for name, (_, all_kinds) in sorted(CASES.items()) for kinds in all_kinds]


@pytest.mark.parametrize("name,kinds", PARAMS, ids=[f"{n}-{k}" for n, k in PARAMS])
def test_truth_value_matches_cpython(name, kinds, backend):
    fn = CASES[name][0]
    args = grid(*[COLUMNS[k] for k in kinds])
    check(vectorize(fn), *args, backend=backend)


def test_truth_value_on_random_floats(backend):
    values = floats(200, seed=3)
    values[::7] = 0.0
    values[::11] = -0.0
    check(vectorize(if_number), values, backend=backend)
    check(vectorize(not_number), values, backend=backend)


def test_truth_value_on_python_scalars():
    vec = vectorize(if_number)
    for v in (0.0, -0.0, math.nan, 5e-324, 0, 3, True, False, 2**64 - 1):
        assert float(np.asarray(vec(v))) == if_number(v)


def test_if_number_compiles_to_a_comparison_with_zero():
    source = vectorize(if_number).source
    assert "!= 0" in source, source
