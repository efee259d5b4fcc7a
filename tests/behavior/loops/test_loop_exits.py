"""`break`, `continue`, loops' `else:` clauses and `for i in range(n)` with `n` per lane (D12).

Each lane leaves exactly where CPython leaves: a lane that breaks keeps the values it had at the
`break` (the loop index included), a lane that continues skips the rest of that iteration only,
an `else:` clause runs on the lanes that did not break. Every function here terminates for every
input, so the oracle can run CPython on each lane.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BACKENDS, FLOAT_EDGES, check

BACKEND_NAMES = sorted(BACKENDS)
FLOATS = np.array(FLOAT_EDGES + [0.1, 0.7, 3.0, -12.5, 1e6, 123.456, 0.999, 2.0001])
SMALL_INTS = np.array([-7, -3, -1, 0, 1, 2, 3, 5, 8, 13, 21, 40, 97, 100])


@vectorize
def newton_cbrt(a):
    """Cube root by Newton's method: `while True` + `break` once the step is tiny."""
    if not (a > 1e-200 and a < 1e200):
        return 0.0
    x = a if a > 1.0 else 1.0
    n = 0
    while True:
        step = (x * x * x - a) / (3.0 * x * x)
        x = x - step
        n += 1
        if abs(step) <= 1e-15 * x or n >= 200:
            break
    return x


@vectorize
def first_multiple_index(x):
    """The index of the first of 10 candidates that x divides; the `for` index after `break`."""
    for k in range(1, 11):
        if (x * k) % 7 == 0:
            break
    return k


@vectorize
def sum_skipping(x):
    """Sums 12 terms, skipping those whose index is a multiple of 3 (`continue` on a loop index)
    and those where the term would be negative (`continue` per lane)."""
    total = 0.0
    for i in range(12):
        if i % 3 == 0:
            continue
        term = x - i
        if term < 0.0:
            continue
        total += term
    return total


@vectorize
def bisect_root(c):
    """Bisection for x**3 + x = c with a bound: `for` + `break` when the bracket is tight."""
    lo = -1e3
    hi = 1e3
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        f = mid * mid * mid + mid - c
        if f > 0.0:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


@vectorize
def collatz_steps(n):
    """Collatz steps for n in 1..100, capped at 500; `else:` marks lanes that hit the cap."""
    if n < 1 or n > 100:
        return -1
    steps = 0
    while steps < 500:
        if n == 1:
            break
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    else:
        return -2
    return steps


@vectorize
def search_with_else(x):
    """`for ... else`: the first k in 0..7 with k*k > x, or 100 when none is."""
    for k in range(8):
        if k * k > x:
            found = k
            break
    else:
        found = 100
    return found


@vectorize
def nested_break(x):
    """A `break` in the inner loop leaves the inner loop only."""
    count = 0
    for i in range(4):
        j = 0
        while True:
            j += 1
            if j * (i + 1) > x or j > 20:
                break
        count += j
    return count


@vectorize
def continue_in_while(x):
    """`continue` in a `while`: the test is evaluated again on the updated values."""
    n = 0
    acc = 0
    while n < 30:
        n += 1
        if n % 4 == 0:
            continue
        if n > x:
            break
        acc += n
    return acc * 10 + n


@vectorize
def return_inside_for_after_continue(x):
    for i in range(10):
        if x > i:
            continue
        if x < -5.0:
            return -1.0
        return float(i) + x
    return 99.0


@vectorize
def triangular(n):
    """`for i in range(n)` with n per lane."""
    s = 0
    for i in range(n):
        s += i
    return s


@vectorize
def stepped_range(a, b):
    """range(a, b, 3) per lane, with `continue` and `break`."""
    s = 0
    last = -1
    for i in range(a, b, 3):
        if i % 2 == 0:
            continue
        if s > 200:
            break
        s += i
        last = i
    return s * 1000 + last


@vectorize
def countdown(n):
    """A negative constant step: range(n, 0, -2); the index after the loop (defined before it)."""
    i = -1
    p = 1
    for i in range(n, 0, -2):
        p = p * 3 % 1000003
    return p + i


@vectorize
def range_else(n, x):
    i = 0
    for i in range(n):
        if i * x > 10.0:
            break
    else:
        return -1.0
    return float(i)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_while_true_break_newton(backend):
    check(newton_cbrt, FLOATS, backend=backend)
    check(newton_cbrt, np.linspace(1e-3, 1e4, 57), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_for_index_after_break_is_per_lane(backend):
    check(first_multiple_index, SMALL_INTS, backend=backend)
    check(first_multiple_index, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_continue_on_index_and_per_lane(backend):
    check(sum_skipping, FLOATS, backend=backend)
    check(sum_skipping, SMALL_INTS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_bisection_breaks_per_lane(backend):
    check(bisect_root, np.concatenate([FLOATS[np.abs(FLOATS) < 1e8], np.linspace(-50, 50, 31)]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_while_else_runs_on_lanes_that_did_not_break(backend):
    check(collatz_steps, np.concatenate([SMALL_INTS, np.arange(1, 101)]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_for_else(backend):
    check(search_with_else, FLOATS, backend=backend)
    check(search_with_else, SMALL_INTS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_break_leaves_the_innermost_loop(backend):
    check(nested_break, np.concatenate([FLOATS, SMALL_INTS.astype(float)]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_continue_and_break_in_while(backend):
    check(continue_in_while, SMALL_INTS, backend=backend)
    check(continue_in_while, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_return_after_continue(backend):
    check(return_inside_for_after_continue, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_range_of_a_per_lane_count(backend):
    check(triangular, SMALL_INTS, backend=backend)
    check(triangular, np.array([True, False]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_range_with_start_stop_step_per_lane(backend):
    a = np.array([-10, -3, 0, 0, 1, 5, 7, 20, 50])
    b = np.array([40, 0, 0, 100, 2, 5, 90, 19, 400])
    check(stepped_range, a, b, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_range_with_a_negative_step(backend):
    check(countdown, SMALL_INTS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_range_else(backend):
    check(range_else, SMALL_INTS, np.linspace(-2.0, 5.0, SMALL_INTS.size), backend=backend)


@vectorize
def shifted(x, n):
    for i in range(n):
        x = x + i
    return x


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_range_of_a_float_raises_type_error_as_cpython(backend):
    xp = BACKENDS[backend]
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        shifted._vectorized_original(1.0, 2.5)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        shifted(xp.asarray([1.0]), xp.asarray([2.5]))
    check(shifted, np.array([1.0, 2.0, -0.0, math.nan]), np.array([3, 0, 1, -4]), backend=backend)


def test_range_of_a_float_value_is_rejected():
    with pytest.raises(VectorizationError, match="range\\(\\) bounds must be integers"):

        @vectorize
        def f(x, n):
            for i in range(n / 2):
                x = x + i
            return x

        f(np.array([1.0]), np.array([2]))


def test_range_step_per_lane_is_rejected():
    with pytest.raises(VectorizationError, match="step of range"):

        @vectorize
        def f(x, n):
            for i in range(0, 10, int(n)):
                x = x + i
            return x

        f(np.array([1.0]), np.array([2]))


def test_variable_assigned_after_a_continue_is_unbound_on_the_elements_that_skipped_it():
    # D20: an element that continued in every iteration never assigned `y`.
    from oracle import check_raising

    @vectorize
    def f(x):
        for i in range(3):
            if x > i:
                continue
            y = x * i
        return y

    assert check_raising(f, np.array([-1.0, 0.5, 1.5])) is None
    exc = check_raising(f, np.array([-1.0, 3.0, np.nan]))
    assert isinstance(exc, UnboundLocalError)


def test_while_true_with_break_compiles():
    assert newton_cbrt(np.array([8.0, 27.0])).tolist() == [2.0, 3.0]
    assert math.isclose(newton_cbrt._vectorized_original(2.0), 2.0 ** (1 / 3))
