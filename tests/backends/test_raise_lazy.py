"""raise/assert (D11) on lazy and traced namespaces: Dask computes the "did any element raise"
flag at call time (the result stays lazy); JAX eager behaves as NumPy; under jax.jit the check
runs when the compiled function runs (a host callback) and a raising element makes it raise a
JaxRuntimeError that ends with CPython's exception, except for item 7's int conversions beyond
int64, which a trace does not check and leaves saturated (docs/semantics.md items 7 and 29)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.exceptions.test_raise_per_lane import f_string_message, returned_lanes_never_raise

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def test_dask_raises_the_first_element_and_stays_lazy_otherwise():
    vec = vectorize(returned_lanes_never_raise)
    ok = vec(da.from_array(np.array([1.0, 12.0, -2.0, 3.0]), chunks=2))
    assert isinstance(ok, da.Array)
    assert ok.compute().tolist() == [2.0, 10.0, -4.0, 6.0]
    x = np.array([1.0, 12.0, 6.0, -7.0])
    with pytest.raises(OverflowError) as info:
        vec(da.from_array(x, chunks=2))
    assert str(info.value) == "x=6.0 in the forbidden band"
    assert info.value.__notes__ == ["array-vectorize: raised for element (2,) (flat index 2)"]


def test_jax_eager_matches_cpython():
    vec = vectorize(f_string_message)
    rh = np.array([0.5, 0.2, 1.5, -0.1])
    t = np.array([10.0, 20.0, 30.0, 40.0])
    with pytest.raises(ValueError) as info:
        vec(jnp.asarray(rh), jnp.asarray(t))
    try:
        f_string_message(1.5, 30.0)
    except ValueError as expected:
        assert info.value.args == expected.args
    ok = vec(jnp.asarray(rh[:2]), jnp.asarray(t[:2]))
    assert np.asarray(ok).tolist() == [5.0, 4.0]


def test_jax_jit_computes_cpython_where_no_element_raises():
    # Before issue 30's second round: item 29's TypeError at trace time, whatever the values.
    rh = np.array([0.5, 0.2, 1.0, 0.0])
    t = np.array([10.0, 20.0, 30.0, 40.0])
    got = np.asarray(jax.jit(vectorize(f_string_message))(jnp.asarray(rh), jnp.asarray(t)))
    assert got.tolist() == [f_string_message(a, b) for a, b in zip(rh.tolist(), t.tolist())]


def test_jax_jit_raises_cpythons_exception_when_it_runs():
    jitted = jax.jit(vectorize(f_string_message))
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        np.asarray(jitted(jnp.asarray([0.5, 1.5, -0.1]), jnp.asarray([1.0, 30.0, 2.0])))
    try:
        f_string_message(1.5, 30.0)
    except ValueError as expected:
        assert str(info.value).rstrip().splitlines()[-1] == f"ValueError: {expected}"


def test_nan_on_raise_under_jax_jit_gives_nan_on_raising_elements():
    vec = vectorize(f_string_message, nan_on_raise=True)
    rh = np.array([0.5, 1.5, -0.1, 1.0])
    t = np.array([10.0, 20.0, 30.0, 40.0])
    got = np.asarray(jax.jit(vec)(jnp.asarray(rh), jnp.asarray(t)))
    expected = [f_string_message(a, b) if 0 <= a <= 1 else float("nan") for a, b in zip(rh, t)]
    np.testing.assert_array_equal(got, np.array(expected))


def test_nan_on_raise_keeps_dask_lazy():
    vec = vectorize(returned_lanes_never_raise, nan_on_raise=True)
    got = vec(da.from_array(np.array([1.0, 12.0, 6.0, -7.0]), chunks=2))
    assert isinstance(got, da.Array)
    np.testing.assert_array_equal(got.compute(), np.array([2.0, 10.0, np.nan, np.nan]))


# ---- docs/semantics.md item 7 on traced and lazy arrays: float to int beyond int64 ----
# A shipping company's rules, one conversion of a float each (`int`, `round`,
# `math.floor/ceil/trunc`), by a positive factor: ±inf converts ±inf. Divisions are by powers of
# two: XLA may compute a division by a constant as a product by its reciprocal (item 14).


def cents_billed(fare):
    return round(fare * 100.0)


def full_pallets(volume):
    return math.floor(volume / 4.0)


def trucks_needed(load):
    return math.ceil(load / 8.0)


def whole_crates(count):
    return math.trunc(count)


def half_loads(load):
    return int(load * 0.5)


def crates_checked(count):
    # Another raise site beside item 7's: checked when the jitted function runs (item 29).
    if count < 0.0:
        raise ValueError(f"negative crate count {count}")
    return int(count)


CONVERSIONS = [cents_billed, full_pallets, trucks_needed, whole_crates, half_loads]
CONVERTS = {"cents_billed": "round", "full_pallets": "math.floor", "trucks_needed": "math.ceil",
            "whole_crates": "math.trunc", "half_loads": "int"}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Normal floats only: XLA's CPU backend flushes subnormals to zero (item 14).
BEYOND = [
    0.0, -0.0, 1.5, -2.5, 12345.675, 2.0**62, math.nextafter(2.0**63, 0.0), 2.0**63, -(2.0**63),
    math.nextafter(-(2.0**63), -math.inf), 1e19, -1e19, 1e300, -1e300, math.inf, -math.inf, math.nan,
]


def _saturated(original, x):
    """Item 7's value where the conversion is not checked: CPython's exact int clamped to int64,
    +inf as INT64_MAX, -inf as INT64_MIN (CPython's OverflowError), nan as 0 (its ValueError)."""
    try:
        r = original(x)
    except OverflowError:
        return INT64_MAX if x > 0 else INT64_MIN
    except ValueError:
        return 0
    return min(max(r, INT64_MIN), INT64_MAX)


@pytest.mark.parametrize("fn", CONVERSIONS, ids=lambda fn: fn.__name__)
def test_int_conversion_beyond_int64_is_not_checked_under_jax_jit(fn):
    # Item 7: a trace cannot inspect the values, so the OverflowError is not raised there; the
    # element holds the saturated value (as with protect_domains=True), every other element
    # CPython's int. Before: the TypeError of item 29 for any `int()` of a float.
    got = np.asarray(jax.jit(vectorize(fn))(jnp.asarray(BEYOND)))
    assert got.dtype == np.int64
    assert got.tolist() == [_saturated(fn, x) for x in BEYOND]


@pytest.mark.parametrize("fn", CONVERSIONS, ids=lambda fn: fn.__name__)
def test_int_conversion_beyond_int64_raises_on_jax_eager_and_dask(fn):
    # Concrete values (JAX eager) and Dask's check computed at call time: item 7's
    # OverflowError for the first element beyond int64 in C order, as on NumPy.
    vec = vectorize(fn)
    x = np.array([12345.675, -2.5, 1e300, -math.inf])
    for call in (lambda: vec(jnp.asarray(x)), lambda: vec(da.from_array(x, chunks=2))):
        with pytest.raises(OverflowError) as info:
            call()
        assert str(info.value).startswith(f"{CONVERTS[fn.__name__]}(")
        assert str(info.value).endswith(") is beyond int64, which an int array cannot hold (docs/semantics.md item 7)")
        assert info.value.__notes__ == ["array-vectorize: raised for element (2,) (flat index 2)"]


def test_nan_on_raise_under_jax_jit_gives_nan_beyond_int64():
    vec = vectorize(trucks_needed, nan_on_raise=True)
    got = np.asarray(jax.jit(vec)(jnp.asarray(BEYOND)))
    for x, g in zip(BEYOND, got.tolist()):
        if x != x:
            assert g == 0.0  # item 7: nan gives 0
        elif abs(x / 8.0) >= 2.0**63:
            assert math.isnan(g), (x, g)
        else:
            assert g == float(trucks_needed(x)), (x, g)


def test_another_raise_beside_an_int_conversion_is_checked_when_the_jitted_function_runs():
    jitted = jax.jit(vectorize(crates_checked))
    assert np.asarray(jitted(jnp.asarray([1.5, 2.0, 1e300]))).tolist() == [1, 2, INT64_MAX]  # item 7: not checked
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        np.asarray(jitted(jnp.asarray([1.5, -2.0])))
    assert str(info.value).rstrip().splitlines()[-1] == "ValueError: negative crate count -2.0"
    assert np.asarray(vectorize(crates_checked)(jnp.asarray([1.5, 2.0]))).tolist() == [1, 2]
