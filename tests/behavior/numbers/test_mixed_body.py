"""The mixed body (issue 30): calls that pass some parameters as int64 and others as float64 (a
calendar function of int dates and a float hour) run the IR compiled for those kinds, in the
exact body's function after the int body, instead of the exact body's helpers. Which parameters
are floats is read from the code (src/analysis/mixed.rs: those met with a float constant), and the
prologue `_vec_mixed_args` takes only calls of exactly those kinds: int64 (or a narrower signed
int, or uint8/16/32, widened; or a Python int within int64) where the kinds say `i`, float64 or a
Python float where they say `f`. Anything else (uint64, bool, float32, an int where a float is
expected) keeps the exact body and its own semantics.

Every function here is checked against CPython element by element (NumPy and array-api-strict;
int64 extremes, negative dates, huge, subnormal, NaN and infinite hours), and bit for bit
against the exact body (the mixed prologue switched off in the function's globals)."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime.args import _vec_mixed_args
from behavior.runtime.test_blocked_evaluation import assert_bitwise
from oracle import check, floats, ints, uints


def julian_day(year, month, day, hour):
    # Meeus' Julian day of a Gregorian date and an hour of the day (UT).
    if month <= 2:
        year -= 1
        month += 12
    century = year // 100
    leap_days = 2 - century + century // 4
    days = (1461 * (year + 4716)) // 4 + (153 * (month + 1)) // 5 + day + leap_days - 1524
    return days + (hour - 12.0) / 24.0


def fractional_year(year, day_of_year, hour):
    # A date as a decimal year: the year's length read from the Gregorian leap rule.
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    length = 366.0 if leap else 365.0
    return year + ((day_of_year - 1) + hour / 24.0) / length


def shift_pay(minutes_worked, hourly_rate):
    # Pay for the whole quarter hours worked; nothing at a negative rate.
    if hourly_rate < 0.0:
        return 0.0
    quarters = minutes_worked // 15
    return quarters * hourly_rate * 0.25


def late_fee(days_late, balance):
    # 1.5% of the balance per started month late, none on a credit balance.
    if balance <= 0.0:
        return 0.0
    months = (days_late + 29) // 30
    return balance * 0.015 * months


FUNCTIONS = {f.__name__: f for f in (julian_day, fractional_year, shift_pay, late_fee)}
#: The kinds of each function's mixed prologue.
KINDS = {"julian_day": "iiif", "fractional_year": "iif", "shift_pay": "if", "late_fee": "if"}


def _columns(name, seed=0):
    """Int64 columns (edges, negative and random dates) and float64 ones (edges: NaN, +-inf,
    subnormals, 1e300), as the function's kinds ask, each combination of an int edge with a
    float edge present."""
    rng = np.random.default_rng(seed)
    kinds = KINDS[name]
    i = np.concatenate([ints(0, seed), rng.integers(-4000, 4000, 30), rng.integers(1, 13, 10)])
    f = np.concatenate([floats(0, seed), rng.uniform(0.0, 24.0, 20)])
    n = i.size * f.size
    cols = []
    for k, kind in enumerate(kinds):
        if kind == "f":
            cols.append(np.tile(f, i.size))
        else:
            cols.append(np.repeat(np.roll(i, 3 * k), f.size))
    assert all(c.size == n for c in cols)
    return cols


def _exact_only(vec, args):
    """`vec(*args)` with the mixed prologue declining the call, so the exact body computes."""
    glob = vec.__globals__
    vec(*args)  # materialized: the exact body reads its prologue from these globals
    saved = glob["_vec_mixed_args"]
    glob["_vec_mixed_args"] = lambda kinds, *a: None
    try:
        return vec(*args)
    finally:
        glob["_vec_mixed_args"] = saved


def _same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8), err_msg=what)


@pytest.fixture(scope="module")
def vectorized():
    return {name: vectorize(fn) for name, fn in FUNCTIONS.items()}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_mixed_body_has_the_kinds_read_from_the_code(vectorized, name):
    src = vectorized[name].source
    assert f"_vec_mixed_args('{KINDS[name]}', " in src, src
    # Plain operators: no `_vec_binary` in the mixed body.
    mixed = src.split("_vec_mixed_args(")[1].split("_vec_exact_args(")[0]
    assert "_vec_binary" not in mixed, src


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_mixed_arguments_compute_what_cpython_computes(vectorized, name, backend):
    cols = _columns(name)
    assert _vec_mixed_args(KINDS[name], *cols) is not None  # the mixed body runs
    check(vectorized[name], *cols, backend=backend)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_mixed_body_is_the_exact_body_bit_for_bit(vectorized, name):
    vec = vectorized[name]
    kinds = KINDS[name]
    for seed in range(2):
        cols = _columns(name, seed)
        _same(vec(*cols), _exact_only(vec, cols), f"{name} seed {seed}")
        grid = [c.reshape(-1, 2) for c in cols]
        _same(vec(*grid), _exact_only(vec, grid), f"{name} 2-d")
    # A Python int broadcast against float arrays, and a Python float against int arrays.
    cols = _columns(name)
    for scalar_int in (7, -(2**63), 2**63 - 1):
        args = [scalar_int if k == "i" and i == 0 else c for i, (k, c) in enumerate(zip(kinds, cols))]
        assert _vec_mixed_args(kinds, *args) is not None
        _same(vec(*args), _exact_only(vec, args), f"{name} with {scalar_int}")
        check(vec, *args)
    for scalar_float in (12.5, float("nan"), float("-inf"), 1e300):
        args = [scalar_float if k == "f" else c for k, c in zip(kinds, cols)]
        assert _vec_mixed_args(kinds, *args) is not None
        _same(vec(*args), _exact_only(vec, args), f"{name} with {scalar_float}")
        check(vec, *args)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_other_kinds_keep_their_own_semantics(vectorized, name):
    vec = vectorized[name]
    kinds = KINDS[name]
    cols = _columns(name)
    # Narrower signed ints where an int is expected: widened, the mixed body.
    narrow = [np.clip(c, -(2**31), 2**31 - 1).astype(np.int32) if k == "i" else c for k, c in zip(kinds, cols)]
    assert _vec_mixed_args(kinds, *narrow) is not None
    check(vec, *narrow)
    # uint64 (the lattice of item 13), bools, float32 and ints where a float is expected: the
    # exact body (or the int body), each compared with CPython.
    others = [
        [np.resize(uints(0), c.size) if k == "i" else c for k, c in zip(kinds, cols)],
        [(c % 2 == 0) if k == "i" else c for k, c in zip(kinds, cols)],
        [c.astype(np.float32) if k == "f" else c for k, c in zip(kinds, cols)],
        [np.resize(ints(0), c.size) if k == "f" else c for k, c in zip(kinds, cols)],
    ]
    for args in others:
        check(vec, *args)
        assert _vec_mixed_args(kinds, *args) is None


def test_the_prologue_checks_each_calls_dtypes():
    i, f = np.array([2000, 2001]), np.array([0.5, 1.5])
    xp, a, b = _vec_mixed_args("if", i, f)
    assert a.dtype == np.int64 and b.dtype == np.float64
    assert _vec_mixed_args("if", i, np.array([1, 2])) is None  # cached by type, checked by dtype
    assert _vec_mixed_args("if", f, i) is None
    assert _vec_mixed_args("if", 3, 2.5) is None  # no array of a dimension (NumPy scalars)
    xp, a, b = _vec_mixed_args("if", i, 2.5)
    assert b.shape == (1,) and b.dtype == np.float64
    assert _vec_mixed_args("if", 2**63, f) is None  # beyond int64
    assert _vec_mixed_args("if", True, f) is None and _vec_mixed_args("if", i, True) is None
    assert _vec_mixed_args("fi", f, i) is not None  # the kinds are part of the cache key


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_on_jax_and_dask_the_mixed_body_is_the_exact_body(vectorized, name):
    # Against the exact body on the same library (JAX's float arithmetic is XLA's, whose
    # subnormals and NaN signs are not NumPy's: docs/semantics.md); NaN in the same lanes.
    jax = pytest.importorskip("jax")
    da = pytest.importorskip("dask.array")
    jax.config.update("jax_enable_x64", True)
    vec = vectorized[name]
    cols = _columns(name)
    jargs = [jax.numpy.asarray(c) for c in cols]
    assert _vec_mixed_args(KINDS[name], *jargs) is not None
    assert_bitwise(vec(*jargs), _exact_only(vec, jargs))
    assert_bitwise(jax.jit(vec)(*jargs), jax.jit(lambda *a: _exact_only(vec, a))(*jargs))
    dargs = [da.from_array(c, chunks=max(1, c.size // 3)) for c in cols]
    got = vec(*dargs)
    assert isinstance(got, da.Array), "not lazy"
    assert_bitwise(got.compute(), vec(*cols))
