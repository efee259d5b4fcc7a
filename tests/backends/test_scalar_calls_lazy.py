"""The scalar residue of a recursion (D19) and element-wise call sites (D23) on lazy and traced
namespaces (docs/semantics.md): on Dask the lanes that reach the call and its arguments are
computed once per call site at call time, the callee runs on those lanes, and the result stays a
Dask array (chunked like the inputs); JAX eager behaves as NumPy; under `jax.jit` a function with
a residue or a call site raises a TypeError saying the elements are traced, and a recursion the
compiler proves bounded has no residue, so it traces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.calls.test_call_sites import black_scholes_call, strict_sigma
from behavior.calls.test_recursion import collatz_steps, gamma_shift, normcdf, sign_check

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


def test_dask_residue_stays_lazy_and_matches_cpython():
    x = np.array([0.5, 3.5, 25.5, -4.5, 12.25, 1.5])
    got = vectorize(gamma_shift)(da.from_array(x, chunks=2))
    assert isinstance(got, da.Array)
    assert got.chunks == ((2, 2, 2),)
    expected = [gamma_shift(v) for v in x.tolist()]
    assert np.allclose(got.compute(), expected, rtol=1e-14, atol=0)


def test_dask_int_residue():
    n = np.array([1, 6, 27, 97, 871, 0])
    got = vectorize(collatz_steps)(da.from_array(n, chunks=3))
    assert isinstance(got, da.Array)
    assert got.compute().tolist() == [collatz_steps(v) for v in n.tolist()]


def test_dask_raises_the_first_raising_element_of_the_residue():
    vec = vectorize(sign_check)
    with pytest.raises(RecursionError) as info:
        vec(da.from_array(np.array([3.0, 2.0**40, -500.0]), chunks=1))
    assert "array-vectorize: raised for element (1,) (flat index 1)" in info.value.__notes__


def test_dask_call_sites():
    vec = vectorize(black_scholes_call, fallback="calls")
    spot = np.array([80.0, 100.0, 120.0, 95.0])
    got = vec(da.from_array(spot, chunks=2), 100.0, 0.25)
    assert isinstance(got, da.Array)
    expected = [black_scholes_call(s, 100.0, 0.25) for s in spot.tolist()]
    assert np.allclose(got.compute(), expected, rtol=1e-13, atol=1e-13)
    with pytest.raises(Exception) as info:
        vectorize(strict_sigma, fallback="calls")(da.from_array(np.array([0.5, 1.0]), chunks=1), da.from_array(np.array([1.0, 0.0]), chunks=1))
    assert type(info.value).__name__ == "StatisticsError"


def test_jax_eager_residue_matches_cpython():
    x = np.array([0.5, 3.5, 25.5, -4.5])
    got = vectorize(gamma_shift)(jnp.asarray(x))
    assert np.allclose(np.asarray(got), [gamma_shift(v) for v in x.tolist()], rtol=1e-13, atol=0)


def test_jax_jit_residue_is_a_clear_error():
    jitted = jax.jit(vectorize(gamma_shift))
    with pytest.raises(TypeError, match="traced .*jax.jit.*Call the vectorized function outside the trace"):
        jitted(jnp.asarray([0.5, 30.5]))


def test_jax_jit_call_site_is_a_clear_error():
    jitted = jax.jit(vectorize(black_scholes_call, fallback="calls"))
    with pytest.raises(TypeError, match="fallback=\"calls\""):
        jitted(jnp.asarray([100.0]), 100.0, 0.2)


def test_jax_jit_traces_a_recursion_proved_bounded():
    vec = vectorize(normcdf)
    assert "_vec_residue" not in vec.source
    x = np.array([-3.0, -0.5, 0.0, 0.5, 2.0])
    got = jax.jit(vec)(jnp.asarray(x))
    assert np.allclose(np.asarray(got), [normcdf(v) for v in x.tolist()], rtol=1e-12, atol=1e-15)
    assert math.isclose(float(got[0]), normcdf(-3.0), rel_tol=1e-12)
