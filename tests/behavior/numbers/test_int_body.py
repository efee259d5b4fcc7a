"""The int body (issue 30): calls whose arguments are all ints run the IR compiled with int64
parameters, where each integer and bool operation that is exactly Python's on every lane is the
library's own operator (src/codegen/choice.rs proves each rule): `%` and `//` by a divisor no
lane of which is 0 or -1, shifts by counts in [0, 63], comparisons with float constants as
comparisons with ints, `not` of a number, selects and `+ - *` joining an int with a float, table
gathers at indices the compiler bounds.

Every function here is checked three ways: against CPython element by element (NumPy and
array-api-strict, int64 extremes included); bitwise against the exact body, the same program
compiled with helpers for every operation (the int prologue switched off in a copy of the
function's globals); and on JAX (eager and under jax.jit) and Dask against NumPy's result."""

from __future__ import annotations

import types

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime.args import _vec_int_args
from oracle import INT_EDGES, check, ints, uints

MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
CUM_DAYS = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def by_constants(n):
    return n // 7 + n % 7 + n // -3 + n % -3 + n // 1 + n % 1 + n // 2**40 + n % -(2**62)


def by_bounded_divisor(n, m):
    d = m % 12 + 1
    return n // d + n % d - n // -(m % 5 + 2)


def by_zero_or_minus_one(n, m):
    # The divisor's interval holds 0 and -1: the helper's D3 `x // 0 == 0` and wrap of
    # INT64_MIN // -1.
    d = m % 3 - 1
    return n // d + n % d


def remainders(n, m):
    # `%` by a positive constant (issue 30): by a power of two a mask (`n & 3`), by another
    # constant the dividend less its quotient times the divisor (`n - n // 10 * 10`), which
    # wraps in between for a dividend near int64's minimum (the int64 edges are among the
    # columns); a dividend of one operation is printed twice (`n // 60 - n // 60 // 24 * 24`),
    # a longer one keeps the library's `%`.
    r = n % 1 + n % 2 + n % 4 + n % 2**62 + n % 3 + n % 10 + n % 60 + n % 146097 + n % (10**18 + 7)
    r += n // 60 % 24 + (n // 3 + m // 3 + 1) % 1000 + (n % 400 == 0) + (m % 100 != 0)
    q, s = divmod(n, 86400)
    return r, q, s, n % (2**62 + 1)


def shifts(n, k):
    return (n >> 3) + (n << 5) + (n >> (k % 64)) + (n << (k & 63)) + (n >> 63)


def shifts_out_of_range(n, k):
    # Counts beyond 63 and negative ones (docs/semantics.md item 24): the helper's.
    return (n >> (k % 70)) + (n << (k % 70 - 3))


def float_constants(n):
    return (
        (n > 2.5)
        + (n >= 2.5)
        + (n < -1.5)
        + (n <= -1.5)
        + (n == 3.0)
        + (n != 3.0)
        + (1e-9 < n)
        + (n > 1e300)
        + (n < 9.3e18)
        + (-9.3e18 <= n)
    )


def not_of_numbers(n, x):
    return (not n) + (not (n % 3)) + (not x)


def joined_kinds(n, m):
    a = n if m > 3 else 2.5
    b = n if n > 0 else (m > 0)
    c = (n > 0) if m < 0 else 1.5
    return a + b * c


def int_float_arithmetic(n, m):
    return n * 0.5 + (m - 1.5) - 2.0 * n + (n + m) * 1e-3


def tables(n, m):
    return MONTH_DAYS[m % 12] + CUM_DAYS[(n & 7) - 8] + MONTH_DAYS[m % 13 - 1] + CUM_DAYS[n % 12]


def month_of(day):
    day = day % 365
    month = 1
    for k in range(1, 12):
        if day >= CUM_DAYS[k]:
            month = k + 1
    return month * 100 + day - CUM_DAYS[month - 1]


def day_number(y, m, d):
    py = y - 1
    n = py * 365 + py // 4 - py // 100 + py // 400 + CUM_DAYS[m - 1] + d
    if m > 2 and leap(y):
        n += 1
    return n


def bits(n):
    n = n - ((n >> 1) & 0x5555555555555555)
    n = (n & 0x3333333333333333) + ((n >> 2) & 0x3333333333333333)
    return (n + (n >> 4)) & 0x0F0F0F0F0F0F0F0F ^ (n & 0xFF)


def digits(n):
    n = abs(n)
    total = 0
    for _ in range(19):
        total += n % 10
        n //= 10
    return total


#: Each function with the number of its arguments (ints).
FUNCTIONS = {
    f.__name__: f
    for f in (
        leap,
        by_constants,
        by_bounded_divisor,
        by_zero_or_minus_one,
        remainders,
        shifts,
        shifts_out_of_range,
        float_constants,
        not_of_numbers,
        joined_kinds,
        int_float_arithmetic,
        tables,
        month_of,
        day_number,
        bits,
        digits,
    )
}


def _arity(fn: types.FunctionType) -> int:
    return fn.__code__.co_argcount


def _columns(fn, seed=0):
    """Every argument an int64 column: the int64 edges against each other and random values;
    `day_number` gets dates (its table needs months 1..12)."""
    if fn is day_number:
        rng = np.random.default_rng(seed)
        y = np.concatenate([rng.integers(-3000, 3000, 60), np.array([2**40, -(2**40), 0, 1, 1600, 1900, 2000, 2100])])
        return [y, rng.integers(1, 13, y.size), rng.integers(1, 32, y.size)]
    base = ints(30, seed)
    cols = [np.resize(np.roll(base, 5 * i), base.size * 2) for i in range(_arity(fn))]
    if len(cols) > 1:
        cols[1] = np.concatenate([cols[1][: base.size], np.roll(base, 1)])
    return cols


def _exact_only(vec):
    """`vec` with its int prologue declining every call, so the exact body computes: the
    generated functions' own globals (the exact body reads its prologue there) patched for the
    duration of each call."""
    vec(*[np.arange(3, dtype=np.int64)] * _arity(vec._vectorized_original))  # materialized
    glob = vec.__globals__

    def call(*args):
        saved = glob["_vec_int_args"]
        glob["_vec_int_args"] = lambda *a: None
        try:
            return vec(*args)
        finally:
            glob["_vec_int_args"] = saved

    return call


def _same(a, b, what):
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{what}: {x.dtype}{x.shape} != {y.dtype}{y.shape}"
        np.testing.assert_array_equal(x.view(np.uint8) if x.dtype.kind == "f" else x, y.view(np.uint8) if y.dtype.kind == "f" else y, err_msg=what)


@pytest.fixture(scope="module")
def vectorized():
    return {name: vectorize(fn) for name, fn in FUNCTIONS.items()}


def test_the_int_body_exists_and_is_plain(vectorized):
    # The integer operations the rules cover print as the library's operators.
    src = vectorized["leap"].source
    assert "_vec_int_args(y)" in src and "y & 3 == 0" in src and "y != y // 100 * 100" in src, src
    src = vectorized["by_constants"].source
    for op in ("n // 7", "n - n // 7 * 7", "n // -3", "n % -3", "n & 0", "n % -4611686018427387904"):
        assert op in src, src
    src = vectorized["remainders"].source.split("def _vec_exact_remainders")[1].split("_vec_exact_args")[0]
    for op in ("n & 1", "n & 3", "n & 4611686018427387903", "n - n // 60 * 60", "n // 60 - n // 60 // 24 * 24", "(n // 3 + m // 3 + 1) % 1000", "n - n // 86400 * 86400"):
        assert op in src, src
    assert "n // d" in vectorized["by_bounded_divisor"].source
    assert '_vec_binary(xp, "floordiv", n, d)' in vectorized["by_zero_or_minus_one"].source
    src = vectorized["shifts"].source
    assert "n >> 3" in src and "n << 5" in src and "n >> 63" in src, src
    assert "n > 2" in vectorized["float_constants"].source
    assert "None)" in vectorized["month_of"].source  # `CUM_DAYS[month - 1]`: an index proven in range


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_int_arguments_compute_what_cpython_computes(vectorized, name, backend):
    vec = vectorized[name]
    cols = _columns(FUNCTIONS[name])
    assert _vec_int_args(*cols) is not None  # the int body runs
    check(vec, *cols, backend=backend)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_int_body_is_the_exact_body_bit_for_bit(vectorized, name):
    vec = vectorized[name]
    exact = _exact_only(vec)
    for seed in range(3):
        cols = _columns(FUNCTIONS[name], seed)
        _same(vec(*cols), exact(*cols), f"{name} seed {seed}")
        # 2-d, broadcast against a Python int and a 0-d array (shape (1,) inside, on NumPy).
        grid = [c.reshape(2, -1) for c in cols]
        _same(vec(*grid), exact(*grid), f"{name} 2-d")
        if len(cols) > 1:
            extremes = () if FUNCTIONS[name] is day_number else (-(2**63), 2**63 - 1)
            for scalar in (7, np.array(12), *extremes):
                args = [cols[0], *([scalar] * (len(cols) - 1))]
                _same(vec(*args), exact(*args), f"{name} with {scalar!r}")


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_narrow_ints_are_widened_and_other_kinds_take_the_exact_body(vectorized, name):
    vec = vectorized[name]
    fn = FUNCTIONS[name]
    if fn is day_number:
        pytest.skip("dates")
    n = _arity(fn)
    narrow = [np.array([-128, -1, 0, 1, 127], dtype=np.int8), np.array([0, 1, 2**31 - 1, 7, 255], dtype=np.uint32)]
    for dt_cols in (narrow[:n] if n <= 2 else narrow * n)[:n], [narrow[1]] * n:
        args = list(dt_cols)[:n]
        assert _vec_int_args(*args) is not None
        check(vec, *args)
    # uint64 (the lattice), bools and floats: the exact body.
    u = uints(10)
    args = [u] * n
    assert _vec_int_args(*args) is None
    check(vec, *args)
    b = [np.array([True, False, True])] * n
    assert _vec_int_args(*b) is None
    check(vec, *b)


def test_python_ints_alone_take_the_exact_body():
    # On NumPy a call of Python ints and 0-d arrays only takes the exact body (0-d int
    # arithmetic would be NumPy scalars', which warn on wrap-around).
    assert _vec_int_args(3, 4) is None
    assert _vec_int_args(np.array(3), 4) is None
    xp, a, b = _vec_int_args(np.array([3, 4]), 5)
    assert a.shape == (2,) and b.shape == (1,) and b.dtype == np.int64
    assert _vec_int_args(np.array([1]), 2**63) is None  # beyond int64
    assert _vec_int_args(np.array([1.0])) is None and _vec_int_args(np.array([1], dtype=np.uint64)) is None
    # The plan is cached by the arguments' types: each call checks its arrays' dtypes.
    assert _vec_int_args(np.array([1]), np.array([2])) is not None
    assert _vec_int_args(np.array([1]), np.array([2.0])) is None
    vec = vectorize(by_constants)
    for v in INT_EDGES:
        assert vec(v).item() == vec(np.array([v]))[0]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jax_and_dask_give_numpys_result(vectorized, name):
    jax = pytest.importorskip("jax")
    da = pytest.importorskip("dask.array")
    jax.config.update("jax_enable_x64", True)
    vec = vectorized[name]
    cols = _columns(FUNCTIONS[name])
    want = vec(*cols)
    jargs = [jax.numpy.asarray(c) for c in cols]
    _same(tuple(np.asarray(r) for r in _tuple(vec(*jargs))), _tuple(want), f"{name} on JAX")
    # `CUM_DAYS[m - 1]` in day_number with `m` unbounded: checked when the compiled function
    # runs (docs/semantics.md item 29), no index out of range here.
    _same(tuple(np.asarray(r) for r in _tuple(jax.jit(vec)(*jargs))), _tuple(want), f"{name} under jax.jit")
    dargs = [da.from_array(c, chunks=max(1, c.size // 3)) for c in cols]
    got = vec(*dargs)
    assert all(isinstance(r, da.Array) for r in _tuple(got)), "not lazy"
    _same(tuple(r.compute() for r in _tuple(got)), _tuple(want), f"{name} on Dask")


def _tuple(v):
    return v if isinstance(v, tuple) else (v,)


def loop_float(p0, p1):
    w = 0
    while w < 1 and p1:
        w += 1
        p0 = 0.0
    return p0


def test_a_loop_variable_that_is_a_float_on_some_iteration_is_float64(vectorized):
    # docs/semantics.md item 8: in the int body (as in the float body) its kind is static, so
    # also where no element enters the loop (fuzz seed 520001 #314); the helpers' body settles
    # an unknown kind at run time and keeps the int there.
    vec = vectorize(loop_float)
    p0, none_enter = np.array([3, -4], dtype=np.int64), np.array([0, 0], dtype=np.int64)
    got = vec(p0, none_enter)
    assert got.dtype == np.float64 and got.tolist() == [3.0, -4.0]
    assert _exact_only(vec)(p0, none_enter).dtype == np.int64
    check(vec, p0, np.array([0, 1], dtype=np.int64))
