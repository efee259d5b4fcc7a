"""A division guarded by a test of its divisor (`if d == 0.0: return math.inf` then `n / d`) warns
of nothing: CPython never divides on the lanes the guard excludes, so NumPy must not report a
division by zero there (D1). The lanes CPython does divide by zero on still signal as before
(D3: IEEE values, NumPy's warning or `np.errstate(all="raise")`). Results are CPython's, element by
element. (The suite's fixture silences NumPy's warnings; these tests turn them back on, as
errors.)"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import FLOAT_EDGES, INT_EDGES, check, grid
from sourcefile import from_source


def ratio(n, d):
    if d == 0.0:
        return math.inf
    return n / d


def average_speed(distance, hours):
    if hours != 0.0:
        return distance / hours
    return 0.0


def _share(part, total):
    if total == 0.0:
        return 0.0
    return part / total


def energy_share(solar, wind, gas):
    """A helper's guard, inlined: the division is under the helper's test of `total`."""
    return _share(solar, solar + wind + gas)


def per_capita(income, people):
    """Floor division and remainder, guarded (ints or floats)."""
    if people == 0:
        return 0
    return income // people + income % people


@pytest.fixture
def strict_warnings():
    """NumPy's division-by-zero and invalid-operation reports turned into exceptions (the suite's
    fixture ignores them; underflow and overflow are no guard's business)."""
    with np.errstate(divide="raise", invalid="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("fn", [ratio, average_speed])
def test_a_guarded_division_signals_nothing_for_the_lanes_the_guard_excludes(fn, backend, strict_warnings):
    # (No inf / inf: NumPy reports an invalid operation where CPython gives nan silently, on lanes
    # that do divide; that is no guard's business.)
    n, d = grid(np.array([1.0, -2.5, 0.0, math.inf, 1e300]), np.array([0.0, -0.0, 4.0, -0.5, math.nan, 3.0]))
    check(vectorize(fn), n, d, backend=backend)
    check(vectorize(fn), 3.0, d, backend=backend)


def test_a_helper_s_guard_covers_its_division_once_inlined(backend, strict_warnings):
    solar, wind = grid(np.array([0.0, 1.5, -0.0]), np.array([0.0, 2.0, -1.5]))
    check(vectorize(energy_share), solar, wind, np.zeros_like(solar), backend=backend)


def test_guarded_floor_division_and_remainder_on_ints_and_floats(backend, strict_warnings):
    income, people = grid(np.array(INT_EDGES), np.array([0, 1, -3, 7]))
    check(vectorize(per_capita), income, people, backend=backend)
    finite = np.array([v for v in FLOAT_EDGES if math.isfinite(v)])  # inf // 7.0: see above
    income, people = grid(finite, np.array([0.0, -0.0, 1.0, -3.0, 7.5]))
    check(vectorize(per_capita), income, people, backend=backend)


def _tower(depth: int) -> str:
    """Loss shares through `depth` levels of helpers, each calling the next twice (past the
    inlining budget they are generated functions of their own, D7), the last a guarded division;
    the caller branches first, so both functions have conditions of their own."""
    helpers = "".join(
        f"def level{i}(a, b):\n    return level{i + 1}(a, b) + level{i + 1}(b, a)\n\n\n" for i in range(depth)
    )
    helpers += f"def level{depth}(a, b):\n    if b == 0.0:\n        return 0.0\n    return a / b\n\n\n"
    caller = "def shares(x, y):\n    if x < y:\n        x = x + 1.0\n    if y > 2.0:\n        return level0(x, y)\n    return level0(y, x)\n"
    return helpers + caller


def test_guards_of_helpers_lowered_on_their_own_are_their_own(backend, strict_warnings):
    fn = from_source(_tower(14), name="shares")
    vec = vectorize(fn)
    assert "def _vec_helper_" in vec.source  # lowered on their own, and called
    x, y = grid(np.array([0.0, -0.0, 1.5, 3.0, -2.0]), np.array([0.0, 2.5, -1.0, 4.0, -0.0]))
    check(vec, x, y, backend=backend)


def test_a_division_by_zero_on_a_lane_cpython_divides_on_still_signals():
    vec = vectorize(ratio)
    with np.errstate(divide="raise"):
        # The guard excludes d == 0 only; here the divisor is zero on a lane that divides.
        with pytest.raises(FloatingPointError):
            vectorize(lambda_free_ratio)(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
        vec(np.array([1.0, 2.0]), np.array([0.0, 1.0]))  # guarded: nothing


def lambda_free_ratio(n, d):
    if d == 1.0:
        return 0.0
    return n / d


def test_the_guard_costs_one_where_on_the_divisor_reusing_its_test():
    source = vectorize(ratio).source
    entry = source.split("\n\n\n")[0]
    assert "n / xp.where(cond, 1, d)" in entry, entry
    assert "logical_not" not in entry
