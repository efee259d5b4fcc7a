"""Functions that can raise, and loops with a counter, under `jax.jit` (issue 30; docs/semantics.md
items 20, 21 and 29): where no element raises, the traced function computes CPython's values;
where one does, the compiled function raises when it runs (a host callback), as a JAX runtime
error whose message ends with the exception CPython raises for the first such element.

Before issue 30's second round, each of these failed at trace time: a raise site and a table
index the compiler cannot bound with item 29's TypeError, and a loop whose counter decides a
Python conditional inside the loop with a VectorizationError (its counter a tracer)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

# Saturated vapour pressure (kPa) at 0, 10, ..., 50 degC: a steam-table column.
VAPOUR_KPA = (0.6113, 1.2281, 2.3388, 4.2455, 7.3814, 12.344)
# Correction factor by humidity band (0-20 %, ..., 80-100 %).
BAND_FACTOR = (1.0, 0.98, 0.95, 0.91, 0.86, 0.80)


def vapour_interpolated(t_celsius, rh):
    """Bilinear-style table interpolation: the cell from int() of each coordinate, clamped above
    only (a negative index counts from the end in CPython, as here, down to -len)."""
    i = min(int(t_celsius / 10.0), 4)
    j = min(int(rh * 5.0), 4)
    ft = t_celsius / 10.0 - i
    fh = rh * 5.0 - j
    p = VAPOUR_KPA[i] * (1.0 - ft) + VAPOUR_KPA[i + 1] * ft
    k = BAND_FACTOR[j] * (1.0 - fh) + BAND_FACTOR[j + 1] * fh
    return p * k


def bond_yield(price, coupon):
    """Yield of a 10-year annual bond priced per 100 by Newton's method to a tolerance, with an
    iteration counter that bounds the loop (the shape of a solver with an early return)."""
    y = coupon / price
    n = 0
    while n < 40:
        v = 0.0
        dv = 0.0
        for t in range(1, 11):
            d = (1.0 + y) ** -t
            v += coupon * d
            dv -= t * coupon * d / (1.0 + y)
        v += 100.0 * (1.0 + y) ** -10
        dv -= 1000.0 * (1.0 + y) ** -11
        step = (v - price) / dv
        y = y - step
        if abs(step) < 1e-13:
            return y
        n += 1
    return y


def darcy_friction(re, roughness):
    """A validated formula: laminar, else Swamee-Jain; a Reynolds number that is not positive
    is an error."""
    if re <= 0.0:
        raise ValueError(f"Reynolds number must be positive, got {re}")
    if re < 2300.0:
        return 64.0 / re
    return 0.25 / math.log10(roughness / 3.7 + 5.74 / re**0.9) ** 2


def _jit(fn, *args):
    return np.asarray(jax.jit(vectorize(fn))(*[jnp.asarray(a) for a in args]))


def _cpython(fn, *args):
    return [fn(*lane) for lane in zip(*[a.tolist() for a in args])]


def _first_exception(fn, *args):
    for lane in zip(*[a.tolist() for a in args]):
        try:
            fn(*lane)
        except Exception as exc:  # noqa: BLE001 - CPython's own, the oracle
            return exc
    raise AssertionError("no element raises")


def _assert_raises_when_run(fn, *args):
    """The compiled function raises when it runs; JAX's error ends with CPython's exception."""
    expected = _first_exception(fn, *args)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        _jit(fn, *args)
    assert str(info.value).rstrip().splitlines()[-1] == f"{type(expected).__name__}: {expected}"


def _close(got, expected, rel):
    # XLA contracts multiply-adds into FMAs under jit (docs/semantics.md item 14).
    assert len(got) == len(expected)
    for g, e in zip(got.tolist(), expected):
        assert abs(g - e) <= rel * abs(e), (g, e)


def test_table_interpolation_at_int_of_a_float_runs_under_jax_jit():
    # -0.5 degC and rh -0.1 are cell -1 in CPython (int() truncates, the index counts from the end).
    t = np.array([0.0, -0.0, 4.0, 25.0, 49.9, 50.0, 61.0, -0.5, 1e-300])
    rh = np.array([0.0, 0.5, 0.99, 1.0, 0.35, -0.1, 0.2, 0.6, 1e-300])
    _close(_jit(vapour_interpolated, t, rh), _cpython(vapour_interpolated, t, rh), 1e-12)


def test_table_index_out_of_range_raises_when_the_jitted_function_runs():
    # -75 degC is cell -7 of a 6-entry table: CPython's IndexError at the second element.
    _assert_raises_when_run(vapour_interpolated, np.array([10.0, -75.0, 20.0]), np.array([0.5, 0.5, 0.5]))


def test_newton_with_an_iteration_counter_runs_under_jax_jit():
    price = np.array([100.0, 95.0, 120.0, 60.0, 100.0, 140.0])
    coupon = np.array([5.0, 5.0, 3.0, 1.0, 0.5, 9.0])
    got = _jit(bond_yield, price, coupon)
    _close(got, _cpython(bond_yield, price, coupon), 1e-12)
    # On NumPy the result is CPython's bit for bit where the same operations run (item 9 aside:
    # `**` is the array library's; here every lane matches).
    assert vectorize(bond_yield)(price, coupon).tolist() == pytest.approx(_cpython(bond_yield, price, coupon), rel=1e-15)


def test_a_validated_formula_runs_under_jax_jit_where_nothing_raises():
    re = np.array([1.0, 1000.0, 2299.9, 2300.0, 1e5, 1e8, 3.0])
    rough = np.array([1e-4, 1e-3, 1e-2, 1e-4, 1e-5, 1e-6, 1e-3])
    _close(_jit(darcy_friction, re, rough), _cpython(darcy_friction, re, rough), 1e-12)


@pytest.mark.parametrize("re", [[1000.0, -5.0, 0.0], [0.0, 1e5, -1.0], [-0.0, 2.0, 3.0]])
def test_a_validated_formula_raises_when_the_jitted_function_runs(re):
    re = np.array(re)
    _assert_raises_when_run(darcy_friction, re, np.full(re.shape, 1e-3))
