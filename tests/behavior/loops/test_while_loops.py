"""`while` loops (D12): each lane iterates exactly as CPython iterates it, under an activity mask.

Every function here terminates for every input (an iteration bound, or a test integer loops
always reach), so the oracle can run CPython on each lane.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BACKENDS, FLOAT_EDGES, check

BACKEND_NAMES = sorted(BACKENDS)
FLOATS = np.array(FLOAT_EDGES + [0.1, 0.7, 3.0, -12.5, 1e6, 123.456])


@vectorize
def kepler(M, e):
    E = M
    n = 0
    while n < 60:
        step = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E = E - step
        if abs(step) < 1e-13:
            return E
        n = n + 1
    return E


@vectorize
def digit_sum(n):
    s = 0
    n = abs(n)
    while n > 0:
        s = s + n % 10
        n = n // 10
    return s


@vectorize
def halvings(x):
    k = 0
    while abs(x) > 1.0 and k < 2000:
        x = x / 2
        k = k + 1
    return k


@vectorize
def sqrt_newton(a):
    if not (a > 0.0 and a < 1e300):
        return -1.0
    x = a
    while True:
        y = 0.5 * (x + a / x)
        if abs(y - x) <= 1e-15 * x:
            return y
        x = y


@vectorize
def int_then_float(x):
    t = 1
    while t < x and t < 1e6:
        t = t * 1.5
    return t


@vectorize
def nested_in_branch(n):
    if n >= 0:
        c = 0
        while n != 0:
            n = n - 1
            c = c + 2
        return c
    return -1


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_newton_to_tolerance_with_early_return(backend):
    M = np.linspace(-4.0, 7.0, 45)
    for e in (0.0, 0.1, 0.5, 0.9, 0.99):
        check(kepler, M, np.full_like(M, e), backend=backend)
    check(kepler, FLOATS, 0.3, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_integer_loop_runs_each_lane_its_own_count(backend):
    check(digit_sum, np.array([0, 1, 9, 10, 99, 12345, -987, 2**62, -(2**62), 2**63 - 1]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_compound_condition_and_edge_floats(backend):
    check(halvings, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_while_true_ends_when_every_lane_returned(backend):
    check(sqrt_newton, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_int_before_float_inside_is_one_float_array(backend):
    check(int_then_float, FLOATS, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_lanes_off_the_path_never_iterate(backend):
    # A negative lane would loop forever in the `while`; it never enters it.
    check(nested_in_branch, np.array([-5, -1, 0, 1, 7, 30]), backend=backend)


@vectorize
def compounded_quarters(balance):
    quarters = 4
    while quarters:  # a Python int as the test: its truth (D4)
        balance = balance * 1.01
        quarters -= 1
    return balance


@vectorize
def capped_doublings(x):
    n = 0
    while n < 3 and 2:  # the int 2 while n < 3, else False
        x = x + x
        n += 1
    return x


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_python_int_as_the_test_loops_on_its_truth(backend):
    # Both crashed the compiler (an int 0-d array as the loop's bool mask; fuzz seed 561001 #1273).
    check(compounded_quarters, FLOATS, backend=backend)
    check(capped_doublings, FLOATS, backend=backend)


def _positive_stock(level):
    if level < 0.0:
        raise ValueError("negative stock")
    return level


def drawn_down(level):
    days = 0
    while days < 30 and _positive_stock(level) > 1.0:
        level = level * 0.8 - 0.5
        days += 1
    return days


def drawn_down_in_the_body(level):
    days = 0
    while True:
        if not (days < 30 and _positive_stock(level) > 1.0):
            break
        level = level * 0.8 - 0.5
        days += 1
    return days


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_while_test_that_can_raise_runs_as_its_rewrite_in_the_body(backend):
    # Once an InternalError (fuzz seeds 561001 #1273, 561002 #1868, 561003 #660), then rejected
    # at the test: now the test is evaluated before each iteration on the lanes still looping,
    # as the rewrite in the body is, and a lane whose test raises raises there (D11, D12).
    from oracle import check_raising

    levels = np.array([0.0, 1.0, 2.5, 40.0, 1e6, np.inf, -0.0, np.nan, 1.2])
    for fn in (drawn_down, drawn_down_in_the_body):
        check(vectorize(fn), levels, backend=backend)
        for first in range(3):
            check_raising(vectorize(fn), np.array([5.0, 40.0, -1.0, 3.0])[first:], backend=backend)
    with pytest.raises(ValueError, match="negative stock"):
        vectorize(drawn_down)(np.array([5.0, -1.0]))


def test_lane_that_never_enters_keeps_its_values():
    out = halvings(np.array([0.5, 4.0]))
    assert out.tolist() == [0, 2]


def test_while_true_without_return_is_rejected():
    with pytest.raises(VectorizationError, match="never ends"):

        @vectorize
        def spin(x):
            while True:
                x = x + 1
            return x

        spin(np.array([1.0]))


def test_variable_first_assigned_in_a_while_is_unbound_where_it_never_ran():
    # D20: an element whose loop ran no iteration reads `y` unbound, as CPython.
    from oracle import check_raising

    @vectorize
    def f(x):
        while x > 1.0:
            y = x
            x = x / 2
        return y

    assert check_raising(f, np.array([3.0, 100.0, 1e300])) is None
    exc = check_raising(f, np.array([3.0, 0.5, np.nan]))
    assert isinstance(exc, UnboundLocalError)


def test_generated_code_drives_a_step_function_on_the_mask():
    src = digit_sum.source
    assert "    def iteration(" in src and " = _vec_while(xp, iteration, " in src, src
    assert "while " not in src, src


def test_dask_computes_the_mask_each_iteration():
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.array([0.5, 4.0, 1e6, -3.0]), chunks=2)
    got = np.asarray(halvings(x).compute() if hasattr(halvings(x), "compute") else halvings(x))
    assert got.tolist() == [halvings._vectorized_original(v) for v in [0.5, 4.0, 1e6, -3.0]]


def test_jax_jit_runs_the_loop_as_lax_while_loop():
    """The float body's loop and the int body's (digit sums of int64 lanes) under jax.jit, each
    lane the iterations CPython takes: 0 for NaN, 2000 (the bound) for inf."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    xs = [0.5, 4.0, 1e6, -3.0, 1e300, math.inf, math.nan]
    x = jnp.asarray(xs)
    assert np.asarray(halvings(x)).tolist() == [halvings._vectorized_original(v) for v in xs]
    assert np.asarray(jax.jit(halvings)(x)).tolist() == [halvings._vectorized_original(v) for v in xs]
    ns = [0, 7, -45, 1234567, 2**62, -(2**63) + 1]
    got = jax.jit(digit_sum)(jnp.asarray(ns, dtype=jnp.int64))
    assert np.asarray(got).tolist() == [digit_sum._vectorized_original(v) for v in ns]


#: Rates by year of a schedule, read in a loop at a per-element index.
RATES = (0.01, 0.015, 0.02, 0.03)


def test_a_check_inside_a_traced_loop_raises_when_the_jitted_function_runs():
    """A table read at an index the compiler cannot bound is checked with concrete values: under
    jax.jit, inside the lax loop, when the compiled function runs (docs/semantics.md item 29),
    JAX's runtime error ending with CPython's IndexError."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def years_to_double(start, band):
        value = start
        year = 0
        while value < 2.0 * start:
            value = value * (1.0 + RATES[band + year])
            year += 1
        return year

    vec = vectorize(years_to_double)
    band = np.array([0, 0])
    with pytest.raises(IndexError, match="tuple index out of range"):  # as CPython, in year 4
        vec(np.array([1.0, 5.0]), band)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        np.asarray(jax.jit(vec)(jnp.asarray([1.0, 5.0]), jnp.asarray(band)))
    assert str(info.value).rstrip().splitlines()[-1] == "IndexError: tuple index out of range"


def _bracket_steps(income):
    """Halves a taxable amount until it falls under the first bracket; each step also notes the
    bracket's bounds as a tuple, which only that step reads."""
    steps = 0
    while income > 10_000.0 and steps < 40:
        bounds = (10_000.0, 40_000.0)
        income = income / 2.0 - bounds[0] * 0.0
        steps += 1
    return steps


def _bracket_after_the_loop(income):
    steps = 0
    while income > 10_000.0 and steps < 40:
        bounds = (10_000.0, 40_000.0)
        income = income / 2.0
        steps += 1
    return steps + bounds[1]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_tuple_first_assigned_in_a_while_body_and_read_there_compiles(backend):
    # Campaign 57, seed 540003, program 1021: the tuple met the loop's phi (a number, the name
    # unbound where the loop did not run) and was rejected at the tuple (D18).
    check(vectorize(_bracket_steps), np.array([0.0, 5e3, 1e4, 1e4 + 1, 3e5, 1e12, -1.0, np.nan, np.inf]), backend=backend)


def test_a_tuple_first_assigned_in_a_while_body_read_after_it_is_rejected_at_the_read():
    # D18, D20: no phi holds a tuple unbound on some lanes; the read is where the name may be
    # undefined (CPython: UnboundLocalError on the lanes where the loop did not run).
    with pytest.raises(VectorizationError, match="may be undefined") as info:
        vectorize(_bracket_after_the_loop)
    (d,) = info.value.diagnostics
    assert (d["line"], d["col"]) == (_bracket_after_the_loop.__code__.co_firstlineno + 6, 20), d


def _bracket_of_the_previous_step(income):
    steps = 0
    while income > 10_000.0 and steps < 40:
        if steps > 0:
            if bounds:
                income = income - 1.0
        bounds = (10_000.0, 40_000.0)
        income = income / 2.0
        steps += 1
    return steps


def test_a_tuple_read_before_its_assignment_in_a_while_body_is_rejected_at_the_read():
    # The previous iteration's tuple: no phi holds it (it was read as D20's stand-in, false).
    with pytest.raises(VectorizationError, match="may be undefined") as info:
        vectorize(_bracket_of_the_previous_step)
    (d,) = info.value.diagnostics
    assert (d["line"], d["col"]) == (_bracket_of_the_previous_step.__code__.co_firstlineno + 4, 16), d
