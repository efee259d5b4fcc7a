"""Scale-out and compiler backends (issue 3): the generated code stays lazy on Dask and computes
the same result; it works under `jax.jit`. Every language case of tests/behavior runs on both."""

from __future__ import annotations

import bisect
import math

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


# --------------------------------------------------------------------------- under jax.jit (issue 30)
# Convergence loops (D12) run as jax.lax.while_loop; tables indexed by a value the compiler bounds
# run as gathers. Each function is our own, in the style of the benchmark's real-code set.


def kepler_eccentric(m, e):
    """Eccentric anomaly E of Kepler's equation M = E - e sin E, by Newton's method."""
    ecc = m if e < 0.8 else math.pi
    n = 0
    while n < 40:
        d = (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))
        ecc -= d
        if abs(d) < 1e-14:
            break
        n += 1
    return ecc


def heron_sqrt(a):
    """A square root by Heron's method from above, until the iterate stops decreasing."""
    if a <= 0.0:
        return 0.0
    x = a if a > 1.0 else 1.0
    while True:
        nxt = 0.5 * (x + a / x)
        if nxt >= x:
            return x
        x = nxt


def cube_root_bisection(c):
    """The real cube root by bisection of [0, max(1, |c|)] to a relative width of 1e-13."""
    a = abs(c)
    lo = 0.0
    hi = a if a > 1.0 else 1.0
    n = 0
    while n < 200 and hi - lo > 1e-13 * hi:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid < a:
            lo = mid
        else:
            hi = mid
        n += 1
    root = 0.5 * (lo + hi)
    return root if c >= 0.0 else -root


def colebrook_friction(re, rel_rough):
    """Darcy friction factor of turbulent pipe flow (Colebrook), by fixed-point iteration on
    1/sqrt(f) to a relative tolerance; NaN below the turbulent range."""
    if re < 4000.0:
        return math.nan
    x = 8.0
    n = 0
    while n < 100:
        nxt = -2.0 * math.log10(rel_rough / 3.7 + 2.51 * x / re)
        done = abs(nxt - x) <= 1e-13 * nxt
        x = nxt
        if done:
            break
        n += 1
    return 1.0 / (x * x)


def _jit(vec, *args):
    return np.asarray(jax.jit(vec)(*[jnp.asarray(a) for a in args]))


def test_convergence_loops_run_under_jax_jit():
    """Each lane takes its own number of iterations, as in CPython; XLA's sin, cos and log10 may
    differ from libm in the last bits (docs/semantics.md, divergence 14): 1e-12 relative."""
    m = np.array([0.0, -0.0, 0.1, 1.0, 2.5, math.pi, -3.0, 6.2, 100.0])
    e = np.array([0.0, 0.3, 0.5, 0.7, 0.9, 0.95, 0.2, 0.85, 0.6])
    check(JitCall(vectorize(kepler_eccentric)), m, e, tolerance=1e-12)
    re = np.array([1000.0, 3999.0, 4000.0, 1e4, 5e4, 1e5, 1e6, 1e7, 1e8])
    rough = np.array([0.0, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.0, 0.002])
    check(JitCall(vectorize(colebrook_friction)), re, rough, tolerance=1e-12)


def test_loops_of_exact_arithmetic_are_bit_for_bit_the_numpy_path_under_jax_jit():
    """`+ - * /` only: the jitted loop gives NumPy's bits (and CPython's) on every lane, the
    iteration counts differing from lane to lane (Heron's 1e-300 takes ~500)."""
    a = np.array([0.0, -0.0, -4.0, 1e-300, 1e-10, 0.25, 1.0, 2.0, 10.0, 12345.678, 1e300])
    c = np.array([0.0, -0.0, 1.0, -1.0, 8.0, -27.0, 0.001, 1e-250, 3e250, math.inf, -math.inf, math.nan])
    for fn, arg in ((heron_sqrt, a), (cube_root_bisection, c)):
        vec = vectorize(fn)
        on_numpy = check(vec, arg)
        traced = _jit(vec, arg)
        assert traced.dtype == np.float64
        np.testing.assert_array_equal(traced.view(np.int64), on_numpy.view(np.int64), err_msg=fn.__name__)


#: Days before the first of each month (a common year).
MONTH_START = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
#: Breakpoints of a pump curve: flow (m3/h) and head (m).
FLOW = (0.0, 10.0, 25.0, 40.0, 60.0, 80.0, 100.0)
HEAD = (52.0, 51.5, 49.0, 44.5, 36.0, 25.5, 12.0)
#: A drag curve sampled at Mach 0, 0.5, ..., 4.5.
DRAG = (0.30, 0.31, 0.36, 0.52, 0.48, 0.42, 0.37, 0.33, 0.31, 0.30)
#: A 4 x 4 efficiency map, row-major.
EFFICIENCY = (0.61, 0.66, 0.69, 0.70, 0.65, 0.72, 0.76, 0.77, 0.66, 0.74, 0.80, 0.82, 0.64, 0.71, 0.78, 0.81)


def day_of_year(month, day):
    """A month outside 1..12 (13, or -12 and below) raises IndexError in CPython."""
    return MONTH_START[month - 1] + day


def day_of_year_wrapped(month, day):
    return MONTH_START[(month - 1) % 12] + day


def pump_head(q):
    """Head from the breakpoint table, clamped at its ends (the index kept inside the table:
    NaN reads the last segment and gives NaN, as in CPython)."""
    if q <= FLOW[0]:
        return HEAD[0]
    i = min(bisect.bisect_right(FLOW, q) - 1, len(FLOW) - 2)
    return HEAD[i] + (HEAD[i + 1] - HEAD[i]) * (q - FLOW[i]) / (FLOW[i + 1] - FLOW[i])


def drag_coefficient(mach):
    """Catmull-Rom through the samples (`int()` of NaN is 0 here, docs/semantics.md item 7)."""
    x = min(max(mach, 0.0), 4.5) * 2.0
    i = int(x)
    if i < 1:
        i = 1
    elif i > 6:
        i = 6
    t = x - i
    p0, p1, p2, p3 = DRAG[i - 1], DRAG[i], DRAG[i + 1], DRAG[i + 2]
    return 0.5 * (2.0 * p1 + (p2 - p0) * t + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t * t + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t * t * t)


def map_efficiency(load, speed):
    """Bilinear in the map, each cell index clamped as an int."""
    x = min(max(load, 0.0), 3.0)
    y = min(max(speed, 0.0), 3.0)
    i = min(max(int(x), 0), 2)
    j = min(max(int(y), 0), 2)
    u = x - i
    v = y - j
    k = i * 4 + j
    return (1.0 - u) * ((1.0 - v) * EFFICIENCY[k] + v * EFFICIENCY[k + 1]) + u * ((1.0 - v) * EFFICIENCY[k + 4] + v * EFFICIENCY[k + 5])


def meter_charge(kwh):
    """A metered tariff: a negative reading is an error."""
    if kwh < 0.0:
        raise ValueError("negative meter reading")
    return 12.5 + 0.31 * kwh


def test_table_reads_the_compiler_bounds_run_under_jax_jit():
    """A gather needs no concrete value where the compiler proves every index inside the table:
    `% 12`, a clamp (`min`, `if i < 1 ... elif i > 6`) of a per-element int, the clamped
    bisection of a breakpoint table. NaN lanes give NaN through the interpolation weight (where
    CPython's `int()` raises, docs/semantics.md item 7); the comparison skips those lanes."""
    months = np.array([1, 2, 3, 6, 11, 12, 13, 0, -1, 25], dtype=np.int64)
    days = np.array([1, 28, 15, 30, 31, 1, 5, 9, 12, 17], dtype=np.int64)
    check(JitCall(vectorize(day_of_year_wrapped)), months, days)
    q = np.array([-5.0, -0.0, 0.0, 5.0, 10.0, 33.3, 60.0, 99.9, 100.0, 250.0, math.inf, math.nan])
    check(JitCall(vectorize(pump_head)), q, tolerance=1e-12)
    mach = np.array([-1.0, 0.0, 0.3, 0.5, 1.26, 2.0, 3.3, 4.4, 4.5, 9.0, math.inf, math.nan])
    got = check(JitCall(vectorize(drag_coefficient)), mach, tolerance=1e-12)
    assert np.isnan(got[-1]) and not np.isnan(got[:-1]).any()
    load = np.array([-1.0, 0.0, 0.4, 1.0, 2.5, 3.0, 7.0, math.nan, 1.5])
    speed = np.array([0.0, 3.0, 1.7, 0.2, 2.9, -2.0, 1.0, 1.0, math.nan])
    got = check(JitCall(vectorize(map_efficiency)), load, speed, tolerance=1e-12)
    assert np.isnan(got[-2:]).all() and not np.isnan(got[:-2]).any()


def test_a_raise_that_can_trigger_is_checked_when_the_jitted_function_runs():
    """Whether a lane raises needs its value, which a trace does not have: the check runs when
    the compiled function runs (docs/semantics.md item 29), CPython's values where no lane
    raises, and where one does JAX's runtime error ending with CPython's exception, never the
    tracer's error at trace time; with `nan_on_raise=True`, NaN on the lanes CPython raises on."""
    months = np.array([1, 12, 3], dtype=np.int64)
    days = np.array([1, 31, 15], dtype=np.int64)
    assert _jit(vectorize(day_of_year), months, days).tolist() == [day_of_year(m, d) for m, d in zip(months.tolist(), days.tolist())]
    kwh = np.array([0.0, -1.0, 250.0])
    for vec, args, expected in (
        (vectorize(day_of_year), (np.array([1, 13], dtype=np.int64), days[:2]), "IndexError: tuple index out of range"),
        (vectorize(meter_charge), (kwh,), "ValueError: negative meter reading"),
    ):
        with pytest.raises(jax.errors.JaxRuntimeError) as info:
            _jit(vec, *args)
        assert str(info.value).rstrip().splitlines()[-1] == expected
    got = _jit(vectorize(meter_charge, nan_on_raise=True), kwh)
    # (XLA may contract the tariff's multiply-add into an FMA: 1e-12 relative.)
    assert got[0] == 12.5 and np.isnan(got[1]) and abs(got[2] - meter_charge(250.0)) <= 1e-12 * got[2]
