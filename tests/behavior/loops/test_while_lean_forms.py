"""The leaner forms of masked `while` loops (issue 15, 10-element call overhead), pinned lane by
lane against CPython, bit for bit, on edge values.

Three forms, each exact by construction (the comments in src/ say why):

* an iteration counter (`n = 0 ... n += 1`, `n -= 3`) stays a Python int in the loop body
  (src/lower/loops/while_loop.rs, `is_counter_step`): every lane active in an iteration holds the same
  value; its per-lane value is kept in a phi of its own only when read after the loop;
* a loop test on Python values only (`n < 40`) selects the still-running lanes with a Python
  conditional instead of a per-lane `and`;
* a value returned early that a float variable also holds is read from that variable after the
  loop, without a `result` phi (src/rewrite/loop_return.rs).

The functions use only IEEE-exact operations (+ - * /, abs, comparisons), so CPython's value is
the vectorized one to the bit: -0.0 stays -0.0, NaN stays NaN.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, to_backend, to_numpy

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, 5e-324, 1e300, math.inf, -math.inf, math.nan, 3.0, 7.25, 1e6, 123.456]


def newton_sqrt(a):
    x = a
    n = 0
    while n < 40:
        y = 0.5 * (x + a / x)
        if abs(y - x) <= 1e-15 * abs(x):
            return y
        x = y
        n += 1
    return x


def counter_after(a):
    x = a
    n = 0
    while n < 30 and abs(x) > 1.0:
        x = x * 0.5
        n = n + 1
        if x == 1.0:
            return -x
    return x + n


def countdown(a):
    x = a
    n = 61
    while n > 0:
        x = x * 0.5 - 0.25
        if abs(x) < 0.3:
            return x * n
        n -= 3
    return x


def returns_before(a):
    if a < 0.0:
        return -0.0
    x = a
    k = 0
    while k < 25:
        x = x * 0.75
        if x < 1.0:
            return x
        k += 1
    return -x


def returns_other_value(a):
    x = a
    n = 0
    while n < 20:
        x = x * 0.5
        if abs(x) < 1.0:
            return x + 1.0
        x = x - 0.0
        n += 1
    return x


def counter_in_body(a):
    x = a
    n = 0
    while n < 12:
        x = x + n * 0.25
        if x > 10.0:
            return x
        n = n + 1
    return -x


FUNCTIONS = [newton_sqrt, counter_after, countdown, returns_before, returns_other_value, counter_in_body]


def bits(v: float) -> int:
    """The float's bits; every NaN as one value (a NaN's payload is not CPython's to choose)."""
    return -1 if v != v else struct.unpack("<q", struct.pack("<d", v))[0]


def expect_same(fn, vec_result, args: np.ndarray) -> None:
    got = to_numpy(vec_result)
    assert got.shape == args.shape
    for a, g in zip(args.reshape(-1).tolist(), got.reshape(-1).tolist()):
        try:
            want = fn(a)
        except ArithmeticError:
            continue  # D3: CPython raises, the array gives the IEEE value (tests/behavior/language/test_divergences.py)
        assert type(g) is type(float(want)) and bits(g) == bits(float(want)), (fn.__name__, a, want, g)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_edges_bit_for_bit(fn, backend):
    vec = vectorize(fn)
    xs = np.array(EDGES + [float(v) for v in np.linspace(-40.0, 40.0, 23)])
    expect_same(fn, vec(to_backend(xs, backend)), xs)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1])
def test_zero_and_one_element_arrays(fn, n):
    vec = vectorize(fn)
    xs = np.array([7.25] * n)
    out = vec(xs)
    assert out.shape == (n,) and out.dtype == np.float64
    expect_same(fn, out, xs)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_scalar_and_int_arguments_take_the_exact_body(fn):
    vec = vectorize(fn)
    for a in (7.25, -0.0, math.nan):
        expect_same(fn, vec(a), np.array(a))
    ints = np.array([0, 1, -1, 3, 17, 1000, -250])
    got = to_numpy(vec(ints))
    for a, g in zip(ints.tolist(), got.tolist()):
        try:
            want = fn(a)
        except ArithmeticError:
            continue
        assert g == want or (g != g and want != want), (fn.__name__, a, want, g)


def test_lanes_finish_at_different_iterations():
    # 1.0 converges at once, 1e300 takes dozens of steps, NaN runs to the bound, 0.0 divides
    # by zero into NaN: every lane leaves at its own iteration.
    vec = vectorize(newton_sqrt)
    xs = np.array([1.0, 4.0, 1e300, 2.0, math.nan, 1e-300, math.inf, 0.0, -1.0])
    with np.errstate(all="ignore"):
        expect_same(newton_sqrt, vec(xs), xs)


def test_forms_in_the_generated_code():
    src = vectorize(newton_sqrt).source
    float_body = src.split("def _vec_exact_")[0]
    assert "n = 0" in float_body and "n + 1" in float_body  # a Python int counter
    # The test on it, no per-lane `and`: a Python conditional where the counter is concrete,
    # `where` where jax.lax.while_loop carries it traced (src/codegen/loop_fn.rs).
    assert "_vec_ifexp(xp, n_1 < 40, (lambda : (" in float_body
    assert "result" not in float_body  # the returned value read from `x`
    assert float_body.rstrip().endswith("return x")  # `where(done, y, x)` is `x` on done lanes
    # Read after the loop: the counter keeps its per-lane value too.
    assert "xp.where(active" in vectorize(counter_after).source.split("def _vec_exact_")[0]
    # A value returned early that no variable holds keeps its phi.
    assert "result" in vectorize(returns_other_value).source.split("def _vec_exact_")[0]


def test_jax_eager_and_dask_compute_the_same():
    # No subnormals: XLA on CPU flushes them to zero, a property of JAX's arithmetic, not of
    # these forms.
    xs = np.array([v for v in EDGES if not 0.0 < abs(v) < 2.2250738585072014e-308])
    jnp = pytest.importorskip("jax.numpy")
    import jax

    jax.config.update("jax_enable_x64", True)
    da = pytest.importorskip("dask.array")
    for fn in FUNCTIONS:
        vec = vectorize(fn)
        expect_same(fn, vec(jnp.asarray(xs)), xs)
        lazy = vec(da.from_array(xs, chunks=5))
        assert isinstance(lazy, da.Array)
        expect_same(fn, lazy.compute(), xs)
