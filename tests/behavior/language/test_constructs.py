"""Every language construct of issue 2, against CPython as the oracle, on every backend.

Each case is a scalar function and the kinds of its arguments ("f" float64, "i" int64, "u" uint64,
"b" bool);
the vectorized function must equal the scalar original element by element on edge and random
values (oracle.check), with Python's result kinds.
"""

from __future__ import annotations

import math
import re
from math import copysign, hypot, pi, sqrt

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BOOL_EDGES, check, floats, grid, ints, uints
from sourcefile import from_source as _from_source

EPS = 1e-9
SCALE = 2.5
COEFFS = (1.0, -2.0, 0.5, 3.0)
WEIGHTS = (0.25, 0.5, 0.25)
OFFSET = 3
LIMIT = 4
FLAG = True
MISSING = math.nan


def _distance(a, b):
    if a > b:
        return a - b
    return b - a


def _clip01(v):
    return min(max(v, 0.0), 1.0)


def _uses_helper(v):
    return _clip01(v * 0.5) + _distance(v, 1.0)


CASES: dict[str, tuple] = {}


def case(*kinds, ulps=0):
    def register(fn):
        CASES[fn.__name__] = (fn, kinds, ulps)
        return fn

    return register


# ---- literals and arithmetic ----
@case("f")
def literals(x):
    return x * 2 + 0.5 - 1e-3 + 1_000 * 0 + True


@case("f", "f")
def arithmetic(x, y):
    return x + y - x * y + x / (abs(y) + 1.0)


@case("f", "f")
def floor_division_and_modulo(x, y):
    return x // y + x % y


@case("f", ulps=4)
def powers(x):
    return x ** 2 - abs(x) ** 0.5 + 2.0 ** -abs(x)


@case("f", "f", ulps=4)
def general_power(x, y):
    return abs(x) ** y


@case("f")
def unary(x):
    return -x + +x - (-(-x))


@case("i", "i")
def int_arithmetic(a, b):
    return a * 3 - b + a // 7 + b % 5


@case("i", "i")
def int_floor_division_by_variable(a, b):
    return a // b + a % b


@case("i", "i")
def int_true_division(a, b):
    return a / b


@case("i")
def int_powers(a):
    return (a % 5) ** 3 + 2 ** (a % 7)


@case("b", "b")
def bool_arithmetic(p, q):
    return p + q + p * 3


@case("f", "i")
def mixed_kinds(x, n):
    return x * n + n / 2


# ---- uint64, and integers at and beyond 2**53 ----
@case("u", "u")
def uint_arithmetic(a, b):
    return a + b * 3 - a


@case("u", "i")
def uint_int_mixed(u, n):
    return u - n + (u > n) - (u == n)


@case("u", "i")
def uint_floor_division(u, n):
    return u // n + u % n


@case("u", "f")
def uint_float_select(u, x):
    if u > x:
        return u
    return x


@case("i", "u")
def int_uint_select(n, u):
    return n if n < 0 else u


@case("i", "i")
def wrapping_product(a, b):
    # Items 6, 13: the exact product modulo 2**64 (int64 wraps).
    return a * b + a


@case("i", "f", ulps=4)
def half_power_of_mixed_kinds(n, x):
    # The helpers' body (an int argument): CPython's (-0.0) ** 0.5 == 0.0 and (-inf) ** 0.5 == inf.
    return x ** 0.5 + n


@case("i", "f")
def big_int_meets_float(n, x):
    return (n + 1 > x) + (n == x) + n / 3


# ---- comparisons ----
@case("f", "f")
def comparisons(x, y):
    return (x < y) + (x <= y) * 2 + (x > y) * 4 + (x >= y) * 8 + (x == y) * 16 + (x != y) * 32


@case("f", "f")
def chained_comparison(x, y):
    return 0.0 <= x < y <= 10.0


@case("i", "f")
def int_float_comparison(n, x):
    return n < x


@case("i")
def int_vs_float_constants(n):
    return (n < MISSING) + (n == 2.5) * 2 + (n >= 9.3e18) * 4 + (n != MISSING) * 8 + (n <= -math.inf) * 16


# ---- math ----
UNARY_MATH = ["exp", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "asinh", "sqrt", "log", "log1p",
              "log2", "log10", "acosh", "asin", "acos", "atanh", "fabs"]


@pytest.mark.parametrize("fname", UNARY_MATH)
def test_each_math_function(fname, backend):
    glob = {"math": math}
    exec(f"def f(x):\n    return math.{fname}(x)\n", glob)
    # exec'd functions have no source file: compile from this file's text instead.
    fn = _from_source(f"def f(x):\n    return math.{fname}(x)\n", glob)
    check(vectorize(fn), floats(40), backend=backend, ulps=4)


@pytest.mark.parametrize("fname", ["atan2", "hypot", "copysign", "pow"])
def test_each_binary_math_function(fname, backend):
    fn = _from_source(f"def f(x, y):\n    return math.{fname}(x, y)\n", {"math": math})
    check(vectorize(fn), *grid(floats(10), floats(10)), backend=backend, ulps=4)


@case("f", ulps=4)
def math_domain(x):
    y = abs(x) + 1.0
    return (
        math.sqrt(y) + math.log(y) + math.log1p(y) + math.log2(y) + math.log10(y) + math.acosh(y)
        + math.asin(1.0 / y) + math.acos(1.0 / y) + math.atanh(0.5 / y) + math.log(y, 3.0)
    )


@case("f")
def math_exact(x):
    return math.fabs(x) + math.isnan(x) + math.isinf(x) * 2 + math.isfinite(x) * 4


@case("f")
def math_rounding(x):
    if not math.isfinite(x) or abs(x) > 1e15:
        return 0
    return math.floor(x) + math.ceil(x) * 10 + math.trunc(x) * 100


@case("f")
def math_constants(x):
    return x * math.pi + math.e - math.tau + (x < math.inf) + math.isnan(math.nan)


@case("f", "f", ulps=4)
def from_math_import(x, y):
    return sqrt(abs(x)) + hypot(x, y) + copysign(pi, y)


@case("f")
def degrees_radians(x):
    return math.degrees(x) + math.radians(x)


# ---- builtins ----
@case("f", "f")
def builtin_abs_min_max(x, y):
    return abs(x) + min(x, y) - max(x, y, 0.0) + min(y, x, -1.0, 2.0)


@case("f", "f")
def min_max_nan_order(x, y):
    # CPython: a NaN first is kept, a NaN later never wins; ties keep the first (-0.0 vs 0.0).
    return min(x, y) * 3.0 + max(y, x)


@case("f")
def clamps(x):
    # Printed as xp.clip / xp.maximum / xp.minimum where that is exact (codegen min_max).
    return min(max(x, 0.0), 1.0) + max(min(x, 1.0), 0.0) * 2 + min(max(x, 1.0), 0.0) * 4 + max(x, -0.0) * 8


@case("i", "i")
def int_min_max(a, b):
    return min(a, b) * 2 + max(a, b, 0)


@case("f")
def casts(x):
    if not math.isfinite(x) or abs(x) > 1e15:
        return 0.0
    return int(x) + float(round(x)) + bool(x) + float(x)


@case("f")
def bool_cast(x):
    return bool(x)


@case("i")
def float_of_int(n):
    return float(n) / 3.0


# ---- control flow ----
@case("f", "f")
def soft_threshold(x, lam):
    if x > lam:
        return x - lam
    if x < -lam:
        return x + lam
    return 0.0


@case("f", "f", "f")
def barrier_payoff(spot, strike, barrier):
    if spot >= barrier:
        return 0.0
    gain = spot - strike
    return gain if gain > 0.0 else 0.0


@case("f", "f")
def if_elif_else(x, y):
    if x < 0.0:
        r = -x
    elif x < 1.0:
        r = x * y
    elif x < 10.0:
        r = y
    else:
        r = x + y
    return r * 2.0


@case("f", "f")
def deep_early_returns(x, y):
    if x > 0.0:
        if y > 0.0:
            if x > y:
                return x
            return y
        t = x - y
        if t > 5.0:
            return t
    elif y < -1.0:
        return -y
    z = x * y
    if z > 1.0:
        return z
    return 0.5


@case("f")
def assignment_after_partial_return(x):
    y = 1.0
    if x < 0.0:
        return y
    y = y + x
    if x > 3.0:
        y = y * 2.0
    return y


@case("f", "f")
def ternaries(x, y):
    a = x if x > y else y
    b = 1.0 if x else 2.0
    return a + b + (3.0 if y != 0.0 else 4.0)


@case("f", "f")
def and_or_values(x, y):
    # D2: Python's value semantics (`a and b` is a if a is falsy else b).
    return (x and y) + (x or y) * 2.0 + (not x) * 4.0


@case("f", "f")
def and_or_booleans(x, y):
    return (x > 0.0 and y > 0.0) or (not x < y)


@case("f")
def augmented_assignment(x):
    y = x
    y += 1.0
    y *= 2.0
    y -= x
    y /= 3.0
    y **= 2
    y //= 1.5
    y %= 7.0
    return y


@case("f", "f")
def tuple_swap(x, y):
    a, b = x, y
    a, b = b, a * 2.0
    return a - b


@case("f")
def walrus(x):
    if (y := x * 2.0) > 1.0:
        return y
    return -y


@case("f")
def constant_result(x):
    return 3.0


@case("f", "f")
def partial_dependence(x, y):
    return x * 2.0


@case("f")
def constant_condition(x):
    if FLAG:
        return x + 1.0
    return x


@case("f")
def bool_result(x):
    return x > 0.0


@case("f")
def int_result(x):
    if x > 0.0:
        return 1
    return 2


@case("f")
def mixed_result_kinds(x):
    # CPython returns an int on some elements and a float on others; one array holds both as
    # float64 (documented divergence: value-equal).
    return 1 if x > 0.0 else 0.5


# ---- loops (D6) ----
@case("f")
def range_loop_with_phi(x):
    acc = 0.0
    for i in range(5):
        acc = acc * x + i
    return acc


@case("f")
def loop_over_constant_tuple(x):
    acc = 0.0
    for c in COEFFS:
        acc = acc * x + c
    return acc


@case("f")
def tuple_indexed_by_loop_index(x):
    total = 0.0
    for i in range(len_weights := 3):
        total = total + WEIGHTS[i] * (x - i)
    return total + len_weights


@case("f")
def branch_on_loop_index(x):
    acc = x
    for i in range(6):
        if i % 2 == 0:
            acc = acc + i
        else:
            acc = acc * 0.5
    return acc


@case("f")
def early_return_in_loop(x):
    for i in range(LIMIT):
        if x < i:
            return float(i)
    return -1.0


@case("f")
def early_return_on_loop_index(x):
    acc = x
    for i in range(10):
        acc = acc + 1.0
        if i == 3:
            return acc
    return 0.0


@case("f")
def newton_sqrt(x):
    a = abs(x) + 1.0
    guess = a
    for _ in range(8):
        guess = 0.5 * (guess + a / guess)
    return guess


@case("f")
def loop_return_inside_array_if(x):
    # Found by the fuzzer: the loop's done mask must keep the enclosing condition.
    if x > 0.0:
        for i in range(3):
            if x < i:
                return float(i)
    return -1.0


@case("f")
def scalar_if_return_inside_array_if(x):
    # Found by the fuzzer: a return under a loop-index `if` inside an array `if` branch.
    if x > 0.0:
        for i in range(3):
            if i == 1:
                return x + i
    return -x


@case("f")
def earlier_returns_survive_a_loop_in_a_branch(x):
    if x < -1.0:
        return 1.0
    if x > 0.0:
        for i in range(2):
            if i == 1:
                return 2.0
    else:
        if x < -0.5:
            return 4.0
    return 3.0


@case("f")
def scalar_division_on_a_dead_path(x):
    # D3 for loop-index arithmetic: CPython raises only on elements whose path divides by zero.
    acc = x
    for i in range(3):
        if x > 100.0:
            acc = acc + 1.0 / (i - 1) + (i - 1) // (i - 1)
    return acc


@case("f")
def bool_flowing_into_a_float_loop_variable(x):
    acc = x > 0.0
    for _ in range(3):
        acc = math.sqrt(acc + 1.5)
    return acc


@case("i", "f")
def folded_max_leaves_the_loop_variable_an_int(units, rate):
    # `max(base, 10, 2.5)` folds to the int 10, so `fee` is an int in every lane with an int
    # `units`: the `float()` must stay although the kinds before folding said float.
    base = 10
    for _ in range(1):
        fee = abs(max(base, 10, 2.5) + (units if rate < 2.0 else 10))
    return float(fee)


@case("f")
def nested_loops(x):
    acc = 0.0
    for i in range(3):
        for j in range(1, 4, 2):
            acc = acc + x * j - i
    return acc


@case("f")
def loop_variable_after_loop(x):
    for i in range(OFFSET, 10, 3):
        x = x + i
    return x + i


@case("f")
def array_branch_in_loop(x):
    acc = 0.0
    for i in range(4):
        if acc < x:
            acc = acc + 1.0
    return acc


@case("f")
def empty_range(x):
    for i in range(0):
        x = x + 1.0
    return x


# ---- closures, globals, helpers, lambdas (D7, D8) ----
@case("f")
def global_constants(x):
    return x * SCALE + EPS + OFFSET


@case("f", "f")
def helper_calls(x, y):
    return _distance(x, y) + _uses_helper(x)


def _square_plus_one(v):
    t = 1.0 + v * v
    return t * t


@case("f", "i")
def helper_temporaries_freed(x, n):
    # `t` of each inlined helper is deleted once dead (codegen's free_dead_arrays); values
    # read after it, and the int path (exact body), must be unaffected.
    u = _square_plus_one(x)
    w = _square_plus_one(float(n))
    return u + u * x - w * n


@case("f")
def helper_keywords(x):
    return _distance(b=1.0, a=x)


@case("f")
def local_lambda(x):
    sq = lambda t: t * t  # noqa: E731
    return sq(x) + sq(x + 1.0)


@case("f", "f")
def nested_def_reads_enclosing(x, y):
    k = y * 2.0

    def inner(t):
        return t + k

    return inner(x)


@case("f", "f")
def nested_def_calls_a_sibling(spot, strike):
    # `payoff` is a local function of the enclosing function: Python's closure makes it visible
    # in `discounted`, which the compiler inlines with it.
    def payoff(s):
        return max(s - strike, 0.0)

    def discounted(s):
        return 0.97 * payoff(s)

    shadowing = lambda payoff: payoff * 2.0  # noqa: E731 - its own parameter, not the function
    return discounted(spot) + shadowing(spot)


def _columns(kinds):
    columns = {"f": floats(12), "i": ints(8), "u": uints(6), "b": np.array(BOOL_EDGES)}
    if len(kinds) == 3:
        columns = {"f": floats(0)[:14], "i": ints(0), "u": uints(0), "b": np.array(BOOL_EDGES)}
    return [columns[k] for k in kinds]


def _check_case(name, backend):
    fn, kinds, ulps = CASES[name]
    check(vectorize(fn), *grid(*_columns(kinds)), backend=backend, ulps=ulps)


#: Cases that expose open compiler bugs (issue 13), as strict xfails: remove the entry with the fix.
OPEN_BUGS = {
}


def _marks(name):
    return [pytest.mark.xfail(strict=True, reason=OPEN_BUGS[name])] if name in OPEN_BUGS else []


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(CASES)])
def test_matches_cpython(name, backend):
    _check_case(name, backend)


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if len(CASES[n][1]) >= 2])
def test_matches_cpython_with_a_python_scalar_argument(name):
    # The last argument as a Python scalar (float, int, bool; ints beyond int64 too), the others arrays.
    fn, kinds, ulps = CASES[name]
    columns = _columns(kinds)
    vec = vectorize(fn)
    for value in SCALAR_EDGES[kinds[-1]]:
        check(vec, *columns[:-1], value, ulps=ulps)


SCALAR_EDGES = {
    "f": [0.0, -0.0, 1.5, -2.5, math.nan, math.inf, -math.inf, 2.0**53 + 2],
    "i": [0, -7, 3, 2**53 + 1, 2**63 - 1, -(2**63)],
    "u": [0, 5, 2**63 + 1, 2**64 - 1],
    "b": [False, True],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_names_no_array_library(name):
    """D9: generated code reaches arrays only through the namespace of its arguments."""
    source = vectorize(CASES[name][0]).source
    assert not re.search(r"\bnp\.|\bnumpy\b|^\s*(import|from)\s", source, re.MULTILINE), source


def test_closure_scalars_are_frozen(backend):
    def make(scale):
        def scaled(x):
            return x * scale + 1.0

        return scaled

    fn = make(3.0)
    check(vectorize(fn), floats(), backend=backend)


def test_global_array_is_a_hidden_keyword_parameter():
    table = np.array([1.0, 2.0, 3.0])
    fn = _from_source("def scaled(x):\n    return x * TABLE + 1.0\n", {"TABLE": table})
    vec = vectorize(fn)
    x = np.array([[0.5], [2.0]])
    np.testing.assert_array_equal(vec(x), x * table + 1.0)
    # D8: bound as a global of the generated module; the signature stays the original's.
    assert vec.__globals__["TABLE"] is table
    assert vec.source.startswith("def scaled(x):")
    assert "arrays = _vec_float_args(x, TABLE)" in vec.source


def test_scalar_arguments_give_zero_dimensional_arrays():
    vec = vectorize(CASES["soft_threshold"][0])
    assert float(vec(2.5, 1.0)) == 1.5


def test_uint64_lane_never_depends_on_its_neighbours(backend):
    # A lane that goes negative must not change the value of another (docs/semantics.md item 13:
    # each lane equals its exact value modulo 2**64).
    def days_after(n):
        return (n - 1) // 4 + (n - 1) % 7

    check(vectorize(days_after), np.array([2**64 - 1, 0, 5], dtype=np.uint64), backend=backend)


JULIAN_YEAR = 365.25


def days_in_julian_year(year, mean_days):
    # Calendars: the quarter day a Julian year has over 365 makes every fourth year a leap year.
    # `JULIAN_YEAR % 1` and `JULIAN_YEAR // 1` are constants, folded as CPython computes them, so
    # the float `mean_days` is on no path and the result is CPython's int on every element: left
    # to run time, the conditionals merged an int with a float (item 8's float64; fuzz seed
    # 690005 #1216, `1.0 // 1 < 0`).
    if JULIAN_YEAR % 1 == 0.0:
        return mean_days
    return 365 + (year % 4 == 0) if JULIAN_YEAR // 1 == 365.0 else mean_days


def test_a_condition_on_float_floor_division_and_modulo_of_constants_is_folded(backend):
    years = np.array([1900.0, 2000.0, 2023.0, 2024.0, 0.0, -0.0, -4.0, 1.5, 5e-324, 1e300, -1e300])
    for year, mean_days in ((years, np.resize(floats(0), len(years))), (years, 365.2425), (ints(), 365.2425)):
        got = check(vectorize(days_in_julian_year), year, mean_days, backend=backend)
        assert np.asarray(got).dtype == np.int64, np.asarray(got).dtype
