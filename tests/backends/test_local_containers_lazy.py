"""Local containers (D18) and names unbound on some elements (D20) on the lazy backends.

On Dask the generated code stays lazy and computes CPython's values; an index outside a list, or
an element reading an unassigned name, raises at call time, when the check is computed (as every
raise, docs/semantics.md item 29). Under `jax.jit` a container indexed with constants (a local
coefficient table, a list built by `append`) is plain arithmetic and traces; an index per element
is a table gather (D15), whose range check runs when the compiled function runs, as for
module-level tables; a function some of whose elements may read an unbound name or return None
has a raise check, which under `jax.jit` runs when the compiled function runs too (item 29: JAX's
runtime error ending with CPython's exception), or gives NaN on those elements with
`nan_on_raise=True`.
"""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from backends.test_dask_jax import DaskCall, JitCall
from behavior.values.test_local_containers import appended, dict_of_values, gibbs_like, pick, store
from behavior.control.test_unbound_names import crop_growth, growth_stage
from oracle import check, floats, grid

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy

ORDINARY = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, -10.0, 123.5, -0.001])
INDEX = np.array([-3, -1, 0, 1, 2], dtype=np.int64)


def test_containers_on_dask_are_lazy_and_exact():
    check(DaskCall(vectorize(gibbs_like)), *grid(ORDINARY, ORDINARY + 2.0), ulps=4)
    check(DaskCall(vectorize(appended)), floats(10), ulps=2)
    check(DaskCall(vectorize(pick)), *grid(ORDINARY, INDEX))
    check(DaskCall(vectorize(store)), *grid(ORDINARY, INDEX))
    check(DaskCall(vectorize(dict_of_values)), *grid(ORDINARY, np.array([0, 1, 5], dtype=np.int64)))


def test_an_index_outside_the_list_raises_on_dask():
    with pytest.raises(IndexError, match="list index out of range"):
        DaskCall(vectorize(pick))(np.array([1.0, 2.0, 3.0]), np.array([0, 3, 1]))


def test_a_local_coefficient_table_traces_under_jax_jit():
    check(JitCall(vectorize(gibbs_like)), *grid(ORDINARY, ORDINARY + 2.0), tolerance=1e-12)
    check(JitCall(vectorize(appended)), ORDINARY, tolerance=1e-12)


def test_an_index_per_element_is_checked_when_the_jitted_function_runs():
    check(JitCall(vectorize(pick)), ORDINARY[:5], INDEX)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        JitCall(vectorize(pick))(ORDINARY[:3], np.array([0, 3, -4], dtype=np.int64))
    assert str(info.value).rstrip().splitlines()[-1] == "IndexError: list index out of range"


DAYS = np.array([0.0, 45.0, 90.0, 200.0, 250.0, 364.0])


def test_an_unbound_name_on_dask_raises_for_the_first_element():
    check(DaskCall(vectorize(growth_stage)), DAYS)
    with pytest.raises(UnboundLocalError):
        DaskCall(vectorize(growth_stage))(np.array([1.0, np.nan, 300.0]))
    with pytest.raises(TypeError, match="NoneType"):
        DaskCall(vectorize(crop_growth))(np.array([1.0, np.nan, 300.0]), np.array([2.0, 2.0, 2.0]))


def test_an_unbound_name_under_jax_jit_is_nan_with_nan_on_raise():
    check(JitCall(vectorize(growth_stage)), DAYS)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        JitCall(vectorize(growth_stage))(np.array([1.0, np.nan, 300.0]))
    try:
        growth_stage(np.nan)
    except UnboundLocalError as expected:
        assert str(info.value).rstrip().splitlines()[-1] == f"UnboundLocalError: {expected}"
    jitted = JitCall(vectorize(growth_stage, nan_on_raise=True))
    got = jitted(np.array([1.0, np.nan, 300.0]))
    assert got[0] == 10.0 and np.isnan(got[1]) and got[2] == 30.0
