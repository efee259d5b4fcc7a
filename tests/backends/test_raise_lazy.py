"""raise/assert (D11) on lazy and traced namespaces: Dask computes the "did any element raise"
flag at call time (the result stays lazy); JAX eager behaves as NumPy; under jax.jit the call
raises a clear TypeError instead of a silent result."""

from __future__ import annotations

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


def test_jax_jit_gives_a_clear_error():
    jitted = jax.jit(vectorize(f_string_message))
    with pytest.raises(TypeError, match="traced .*jax.jit"):
        jitted(jnp.asarray([0.5]), jnp.asarray([1.0]))


def test_jax_jit_error_names_the_option():
    jitted = jax.jit(vectorize(f_string_message))
    with pytest.raises(TypeError, match="nan_on_raise=True"):
        jitted(jnp.asarray([0.5]), jnp.asarray([1.0]))


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
