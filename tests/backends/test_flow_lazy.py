"""Control flow of issue 11 on lazy and traced namespaces (docs/semantics.md items 20 and 29):
`while` loops, `break`, `try`/`except`, `assert` and the program's own exception classes on JAX
(eager and under `jax.jit`) and Dask, against CPython's element loop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.exceptions.test_user_exceptions import HumidityRangeError, dew_point, dew_point_or_nan

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def newton_sqrt(a):
    if a <= 0.0:
        return 0.0
    x = a if a > 1.0 else 1.0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def first_doubling_over(x):
    p = 1.0
    for _ in range(60):
        p = p * 2.0
        if p > x:
            break
    return p


def safe_ratio(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


def ratio_or_raise(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    if r > 100.0:
        raise ValueError(f"ratio {r} too large")
    return r


def dew_point_or_sentinel(t, rh):
    # `except ValueError` alone would leave the formula's divisions (ZeroDivisionError) to check.
    try:
        d = dew_point(t, rh)
    except (ValueError, ArithmeticError):
        d = -999.0
    return d


def checked_root(x):
    assert x >= 0.0, f"negative {x}"
    return math.sqrt(x)


X = np.array([0.0, 0.25, 2.0, 9.0, 1e6, -3.0])
B = np.array([0.0, 1.0, 0.01, 2.0, 0.0, -4.0])


def scalar(fn, *columns):
    return [fn(*args) for args in zip(*[c.tolist() for c in columns])]


@pytest.mark.parametrize("fn", [newton_sqrt, first_doubling_over], ids=lambda f: f.__name__)
def test_loops_on_jax_eager_and_dask_match_cpython(fn):
    vec = vectorize(fn)
    expected = scalar(fn, X)
    assert np.asarray(vec(jnp.asarray(X))).tolist() == expected
    lazy = vec(da.from_array(X, chunks=3))
    assert isinstance(lazy, da.Array)
    assert lazy.compute().tolist() == expected


def test_a_while_loop_runs_under_jax_jit():
    # Item 20: the trip count depends on the lanes' values, unknown while tracing: the loop
    # runs as jax.lax.while_loop, each lane its own iterations (1e-12 relative: FMAs, item 14).
    for vec in (vectorize(newton_sqrt), vectorize(newton_sqrt, nan_on_raise=True)):
        got = np.asarray(jax.jit(vec)(jnp.asarray(X)))
        np.testing.assert_allclose(got, scalar(newton_sqrt, X), rtol=1e-12, atol=0.0)


def test_a_counted_loop_with_break_runs_under_jax_jit():
    got = jax.jit(vectorize(first_doubling_over))(jnp.asarray(X))
    assert np.asarray(got).tolist() == scalar(first_doubling_over, X)


def test_a_try_that_catches_everything_runs_under_jax_jit():
    got = jax.jit(vectorize(safe_ratio))(jnp.asarray(X), jnp.asarray(B))
    assert np.asarray(got).tolist() == scalar(safe_ratio, X, B)
    assert vectorize(safe_ratio)(da.from_array(X, chunks=2), da.from_array(B, chunks=2)).compute().tolist() == scalar(safe_ratio, X, B)


def test_a_raise_left_after_a_try_under_jax_jit():
    # Lane 2 (2.0 / 0.01) raises: under jit when the compiled function runs (item 29), or NaN
    # there with nan_on_raise; the lanes before it run.
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        np.asarray(jax.jit(vectorize(ratio_or_raise))(jnp.asarray(X), jnp.asarray(B)))
    try:
        ratio_or_raise(2.0, 0.01)
    except ValueError as expected:
        assert str(info.value).rstrip().splitlines()[-1] == f"ValueError: {expected}"
    got = np.asarray(jax.jit(vectorize(ratio_or_raise))(jnp.asarray(X[:2]), jnp.asarray(B[:2])))
    assert got.tolist() == scalar(ratio_or_raise, X[:2], B[:2])
    got = np.asarray(jax.jit(vectorize(ratio_or_raise, nan_on_raise=True))(jnp.asarray(X), jnp.asarray(B)))
    expected = []
    for a, b in zip(X.tolist(), B.tolist()):
        try:
            expected.append(ratio_or_raise(a, b))
        except ValueError:
            expected.append(math.nan)
    np.testing.assert_array_equal(got, np.array(expected))


def test_assert_under_jax_jit_with_nan_on_raise():
    got = np.asarray(jax.jit(vectorize(checked_root, nan_on_raise=True))(jnp.asarray(X)))
    np.testing.assert_array_equal(got, np.array([math.sqrt(v) if v >= 0 else math.nan for v in X.tolist()]))


def test_program_exception_classes_on_jax_and_dask():
    t = np.array([20.0, 10.0, 15.0])
    rh = np.array([0.5, 1.5, -1.0])
    with pytest.raises(HumidityRangeError) as eager:
        vectorize(dew_point)(jnp.asarray(t), jnp.asarray(rh))
    with pytest.raises(HumidityRangeError) as lazy:
        vectorize(dew_point)(da.from_array(t, chunks=1), da.from_array(rh, chunks=1))
    for got in (eager.value, lazy.value):
        assert got.args == ("relative humidity 1.5 outside [0, 1]",)
        assert got.__notes__ == ["array-vectorize: raised for element (1,) (flat index 1)"]
    # Caught by the base class: NaN on both on Dask.
    expected = [dew_point_or_nan(a, b) for a, b in zip(t.tolist(), rh.tolist())]
    np.testing.assert_array_equal(vectorize(dew_point_or_nan)(da.from_array(t, chunks=1), da.from_array(rh, chunks=1)).compute(), expected)
    # Under jit, `except ValueError` leaves the formula's ZeroDivisionError to the check when the
    # compiled function runs (item 29): these values raise none, so CPython's values; catching
    # both leaves nothing to check.
    got = np.asarray(jax.jit(vectorize(dew_point_or_nan))(jnp.asarray(t), jnp.asarray(rh)))
    np.testing.assert_array_equal(got, [dew_point_or_nan(a, b) for a, b in zip(t.tolist(), rh.tolist())])
    expected = [dew_point_or_sentinel(a, b) for a, b in zip(t.tolist(), rh.tolist())]
    np.testing.assert_array_equal(np.asarray(jax.jit(vectorize(dew_point_or_sentinel))(jnp.asarray(t), jnp.asarray(rh))), expected)
