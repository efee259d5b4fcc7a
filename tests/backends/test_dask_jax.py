"""Scale-out and compiler backends (issue 3): the generated code stays lazy on Dask and computes
the same result; it works under `jax.jit`. Every language case of tests/behavior runs on both."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.language.test_constructs import CASES
from oracle import BOOL_EDGES, check, floats, grid, ints

da = pytest.importorskip("dask.array")
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)  # Python floats are float64
jnp = jax.numpy


def case_args(kinds):
    columns = {"f": floats(6), "i": ints(4), "b": np.array(BOOL_EDGES)}
    if len(kinds) == 3:
        columns = {"f": floats(0)[:10], "i": ints(0)[:8], "b": np.array(BOOL_EDGES)}
    return grid(*[columns[k] for k in kinds])


class DaskCall:
    """Calls the vectorized function on chunked Dask arrays; checks the result is lazy."""

    def __init__(self, vec):
        self.vec = vec
        self._vectorized_original = vec._vectorized_original

    def __call__(self, *args):
        result = self.vec(*[da.from_array(a, chunks=max(1, a.shape[0] // 3)) for a in args])
        assert isinstance(result, da.Array), f"not lazy: {type(result)}"
        return result.compute()


class JitCall:
    def __init__(self, vec):
        self.jitted = jax.jit(vec)
        self._vectorized_original = vec._vectorized_original

    def __call__(self, *args):
        return np.asarray(self.jitted(*[jnp.asarray(a) for a in args]))


# `int ** int` is an int for non-negative exponents and a float otherwise; a lazy or traced
# array cannot show its values, so the helper returns float64 there (docs/semantics.md).
VALUE_DEPENDENT_KIND = {"int_powers"}

#: Cases without uint64 arguments: on a lazy backend the uint64 lattice picks the result dtype from
#: the dtypes alone (runtime/intops.py), a rule of its own the oracle's model does not cover.
WITHOUT_UINT64 = sorted(name for name, (_, kinds, _) in CASES.items() if "u" not in kinds)


@pytest.mark.parametrize("name", WITHOUT_UINT64)
def test_dask_is_lazy_and_exact(name):
    fn, kinds, ulps = CASES[name]
    check(DaskCall(vectorize(fn)), *case_args(kinds), ulps=ulps, check_kind=name not in VALUE_DEPENDENT_KIND)


def ordinary_args(kinds):
    """Values away from the edges of the float range: XLA's CPU backend flushes subnormals to
    zero and contracts multiply-adds into FMAs, so at the edges (and in the last bits) jitted
    results differ from CPython (documented divergence)."""
    columns = {
        "f": np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, -10.0, 123.5, -0.001]),
        "i": np.array([0, 1, -1, 2, -3, 7, 100, -1000], dtype=np.int64),
        "b": np.array(BOOL_EDGES),
    }
    return grid(*[columns[k] for k in kinds])


@pytest.mark.parametrize("name", WITHOUT_UINT64)
def test_jax_jit_matches_cpython(name):
    fn, kinds, ulps = CASES[name]
    check(
        JitCall(vectorize(fn)),
        *ordinary_args(kinds),
        tolerance=1e-12,
        check_kind=name not in VALUE_DEPENDENT_KIND,
    )


def test_clamps_between_large_arrays_on_dask_and_jax():
    """`_vec_clip`/`_vec_pick` (runtime/select.py) keep their one-pass form for NumPy; on Dask and
    under jax.jit they are the comparisons and `where`s: edge values in every operand, compared
    bit for bit with CPython."""
    from behavior.numbers.test_min_max_clip import EDGES, N_LARGE, _assert_bitwise, _cpython_bits, _operands, band, floor_at

    def operands(edges):
        args = _operands(np.random.default_rng(11), N_LARGE)
        for i, value in enumerate(edges):
            for operand in range(3):
                args[operand][100 * i + 7 * operand] = value
        args[0][5000], args[1][5000] = -0.0, 0.0  # a tie of zeros
        args[0][5001], args[2][5001] = 0.0, -0.0
        return args

    # XLA's CPU backend flushes subnormals to zero (docs/semantics.md, divergence 14).
    normal = [v for v in EDGES if v == 0.0 or not abs(v) < 2.2250738585072014e-308]
    for fn in (band, floor_at):
        n = fn.__code__.co_argcount
        vec = vectorize(fn)
        used = operands(EDGES)[:n]
        lazy = vec(*[da.from_array(a, chunks=N_LARGE // 3) for a in used])
        assert isinstance(lazy, da.Array)
        _assert_bitwise(lazy.compute(), _cpython_bits(fn, used))
        used = operands(normal)[:n]
        traced = jax.jit(vec)(*[jnp.asarray(a) for a in used])
        _assert_bitwise(np.asarray(traced), _cpython_bits(fn, used))
