"""The speed specialisations whose own files run NumPy and array-api-strict only, on JAX (eager
and under `jax.jit`) and Dask (three chunks, lazy): in-place chains (src/codegen/chain.rs), owned
buffers (src/codegen/inplace.rs), `max`/`min` against a number and clamps (src/codegen/
peephole.rs, runtime `_vec_pick`/`_vec_clip`), loop-index arithmetic run as Python (src/rewrite/
legalize.rs), table parameters walked per call (D14, `_vec_sequence_given`), and the int body's
`%`/`//` by constants and its unchecked table gathers at clamped indices (issue 30, src/codegen/
choice.rs, analysis/ranges.rs). Each NumPy call is judged against CPython (tests/oracle.py); the
Dask call must give its bits (dtype, every lane, NaN and the sign of zero), and the JAX calls
the bits of the same call with every specialised body declined (the exact body on JAX arrays:
XLA's arithmetic is not NumPy's, docs/semantics.md item 14).
docs/testing.md ("Specialisations and their judges") says which test covers which
specialisation on which backend."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from behavior.numbers import test_index_arithmetic as index_arithmetic
from behavior.numbers import test_min_max_clip as min_max_clip
from behavior.runtime import test_inplace_chains as chains
from behavior.runtime import test_owned_buffers as owned
from behavior.values import test_table_parameter_loops as table_parameters
from oracle import check, floats, ints

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)  # Python floats are float64
jnp = jax.numpy

MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def days_in_month(year, month):
    """The int body: `%` by 4, 100 and 400 (a mask and products by the quotient), a table read
    at an index clamped to [1, 12] (no check: analysis/ranges.rs bounds it)."""
    m = min(max(month, 1), 12)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return MONTH_DAYS[m - 1] + (1 if leap and m == 2 else 0)


def clock(seconds):
    """The int body: `//` and `%` by 60, 3600, 86400 and 16 (a power of two)."""
    return seconds // 3600 % 24 * 10000 + seconds // 60 % 60 * 100 + seconds % 60 + seconds % 16


def _float_columns(n):
    x = floats(20)
    return [x] + [np.roll(x, 5 * k) for k in range(1, n)]


def _cases():
    """name -> (function, arguments): arrays, and numbers or tables given as they are."""
    cases = {}
    for fn in chains.FUNCTIONS + owned.FUNCTIONS:
        cases[fn.__name__] = (fn, _float_columns(fn.__code__.co_argcount))
    x = floats(20)
    for c in (-0.0, 1.5, float("nan")):
        for fn in (min_max_clip.floor_at, min_max_clip.cap_at, min_max_clip.price_floor):
            cases[f"{fn.__name__}[{c!r}]"] = (fn, [x, c])
    cases["band[arrays]"] = (min_max_clip.band, _float_columns(3))
    for fn in (index_arithmetic.reciprocal_series, index_arithmetic.backward_steps, index_arithmetic.crossing_zero):
        cases[fn.__name__] = (fn, [x])
    for name, table in table_parameters.TABLES.items():
        tables = [] if table is None else [table]
        rates = [] if table is None else [tuple(0.1 * k for k in range(len(table)))]
        cases[f"band_tax[{name}]"] = (table_parameters.band_tax, [table_parameters.EDGE, *tables, *rates])
        cases[f"bands_passed[{name}]"] = (table_parameters.bands_passed, [table_parameters.EDGE, *tables])
    years = np.concatenate([ints(20), np.array([1900, 2000, 2024, 2023, -400, -1, 0], dtype=np.int64)])
    months = np.resize(np.arange(-2, 15, dtype=np.int64), years.size)
    cases["days_in_month"] = (days_in_month, [years, months])
    cases["clock"] = (clock, [ints(30)])
    return cases


CASES = _cases()


def _same(got, want, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind == "f":
        assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want)), (what, got, want)
    else:
        assert np.array_equal(got, want), (what, got, want)


#: Open (jax.jit only): a loop over an empty table parameter (below).
JIT_OPEN = {f"{fn}[empty]" for fn in ("band_tax", "bands_passed")}

#: Loops over a table parameter (D14), whose exact body is refused under jax.jit.
TABLE_LOOPS = (table_parameters.band_tax, table_parameters.bands_passed)

#: The prologues of the specialised bodies: declined, every call runs the exact body.
PROLOGUES = ("_vec_float_args", "_vec_int_args", "_vec_mixed_args")


def unspecialised(vec, call):
    """`call()` with `vec`'s float, int and mixed prologues declining (its own globals patched
    meanwhile): the exact body, a helper for every kind-dependent operation, computes."""
    glob = vec.__globals__
    saved = {name: glob[name] for name in PROLOGUES if name in glob}
    glob.update({name: (lambda *a: None) for name in saved})
    try:
        return call()
    finally:
        glob.update(saved)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jax_and_dask_give_the_unspecialised_bits(name):
    fn, args = CASES[name]
    vec = vectorize(fn)
    want = np.asarray(check(vec, *args))  # NumPy, against CPython; materializes the globals
    arrays = [k for k, a in enumerate(args) if isinstance(a, np.ndarray)]

    def given(convert):
        return [convert(a) if k in arrays else a for k, a in enumerate(args)]

    # Dask computes each chunk with NumPy: NumPy's bits.
    lazy = vec(*given(lambda a: da.from_array(a, chunks=max(1, a.shape[0] // 3))))
    assert isinstance(lazy, da.Array), f"not lazy: {type(lazy)}"
    _same(lazy.compute(), want, "Dask")
    # JAX: XLA's own arithmetic (docs/semantics.md item 14: subnormals flushed, a division by a
    # constant taken as a product by its reciprocal, FMAs under jax.jit), so the judge is the
    # exact body on the same arrays, eager and jitted.
    jargs = given(jnp.asarray)
    got = vec(*jargs)
    assert isinstance(got, jax.Array), type(got)
    _same(got, np.asarray(unspecialised(vec, lambda: vec(*jargs))), "JAX")

    if name in JIT_OPEN:
        return

    def jitted():
        # A new function per trace (JAX caches traces by function): numbers and tables stay
        # Python values (D14), the arrays are traced.
        def traced(*traced_arrays):
            full = list(args)
            for k, a in zip(arrays, traced_arrays):
                full[k] = a
            return vec(*full)

        return jax.jit(traced)(*[jnp.asarray(args[k]) for k in arrays])

    if fn in TABLE_LOOPS:
        # The exact body's loop indexes the sequence given per call by its carried counter,
        # traced under jax.jit: refused there with D12's clear error (the float body's counter
        # stays a Python int). The jitted float body is judged by the eager call, within item
        # 14's FMAs (`tax += (income - lo) * rate`): 1e-12 relative, as tests/backends does.
        with pytest.raises(VectorizationError, match="jax.lax.while_loop"):
            unspecialised(vec, jitted)
        traced, eager = np.asarray(jitted()), np.asarray(got)
        assert traced.dtype == eager.dtype
        np.testing.assert_allclose(traced, eager, rtol=1e-12, atol=0)
        return
    _same(jitted(), np.asarray(unspecialised(vec, jitted)), "jax.jit")


def test_a_loop_over_an_empty_table_parameter_under_jax_jit_is_refused_clearly():
    # `for lo in thresholds` over a sequence given per call is a masked loop (D12) whose mask,
    # `0 < len(thresholds)`, is a tracer under jax.jit although its value is known in Python:
    # `_vec_while` hands it to `jax.lax.while_loop`, which traces the body once, and the body's
    # `thresholds[k]` of the empty tuple raised JAX's IndexError out of the generated code (issue
    # 30). Now the project's error, saying to call outside jax.jit, where the loop runs no
    # iteration and every element gives CPython's result.
    vec = vectorize(table_parameters.bands_passed)
    x = jnp.asarray(table_parameters.EDGE)
    with pytest.raises(VectorizationError, match=r"empty sequence given per call .*outside jax\.jit"):
        jax.jit(lambda a: vec(a, ()))(x)
    want = np.array([table_parameters.bands_passed(v, ()) for v in table_parameters.EDGE.tolist()])
    _same(vec(x, ()), want, "JAX")


def third(x):
    return x / 3.0


def test_item_14_jax_divides_by_a_constant_as_a_product_by_its_reciprocal():
    # Why the JAX calls above are judged against the exact body on JAX, not against NumPy:
    # XLA's quotient by a constant is an ulp from IEEE division (CPython's) on many lanes, on
    # the float body and the exact body alike (docs/semantics.md item 14).
    vec = vectorize(third)
    x = np.random.default_rng(14).uniform(-1e3, 1e3, 1000)
    want = np.array([v / 3.0 for v in x.tolist()])
    for got in (vec(jnp.asarray(x)), unspecialised(vec, lambda: vec(jnp.asarray(x)))):
        ulps = np.abs(np.asarray(got).view(np.int64) - want.view(np.int64))
        assert ulps.max() == 1 and (ulps == 1).sum() > 100, ulps.max()
