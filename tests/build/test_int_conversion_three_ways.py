"""Float to int beyond int64 (docs/semantics.md item 7; issue 28 item 4): `int(x)`, `round(x)`
and `math.floor/ceil/trunc(x)` of a float from 2**63 up or below -2**63 raise OverflowError per
element (D11: the first such element in C order, with its note), where CPython gives the exact
int (or raises for ±inf); an element on a branch CPython does not take raises nothing; nan gives
0; with `protect_domains=True` they saturate instead. Inside a `try` body no `except` clause
catches it.

CPython is the oracle: each element's value and whether its conversion leaves int64 are the
scalar function's own, run on the element. The functions are payroll, actuarial and
scheduling formulas, compiled the three ways in (decorator, import hook, build backend) and run
on NumPy and array-api-strict.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, to_backend, to_numpy
from three_ways import assert_same_source_three_ways, module_on_path

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]

MODULE = '''\
import math

from array_vectorize import vectorize


@vectorize
def salary_cents(annual):
    return round(annual * 100.0)


@vectorize
def full_years(days):
    return math.floor(days / 365.25)


@vectorize
def pages_needed(lines, per_page):
    return math.ceil(lines / per_page)


@vectorize
def whole_units(quantity):
    return math.trunc(quantity) + int(quantity * 0.5)


@vectorize
def capped_shares(value):
    if abs(value) < 1e18:
        return int(value)
    return -1


@vectorize
def settled_cents(amount):
    try:
        cents = int(amount * 100.0)
    except (ValueError, OverflowError):
        cents = 0
    return cents
'''

NAMES = ("salary_cents", "full_years", "pages_needed", "whole_units", "capped_shares", "settled_cents")
BELOW = math.nextafter(-(2.0**63), -math.inf)
FLOATS = [
    0.0, -0.0, 1.5, -2.5, 12345.675, 2.0**62, -(2.0**63), math.nextafter(2.0**63, 0.0),
    2.0**63, BELOW, 1e19, -1e19, 1e300, -1e300, math.inf, -math.inf, math.nan, 5e-324,
]


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avebeyond", tmp_path, monkeypatch) as found:
        yield importlib.import_module(found[0]), found


def _leaves_int64(original, args):
    """Whether CPython's run of one element converts a float beyond int64 on the way: its
    `int`, `round` and `math.floor/ceil/trunc` watched (CPython's own results)."""
    seen = []

    def watch(fn):
        def conv(x, *rest):
            if isinstance(x, float) and x != x and not rest:
                return 0  # item 7: nan gives 0 (CPython raises ValueError)
            r = fn(x, *rest)
            if isinstance(x, float) and not rest and not INT64_MIN <= r <= INT64_MAX:
                seen.append(r)
            return r
        return conv

    g = original.__globals__
    saved = {k: g.get(k) for k in ("int", "round", "math")}
    shim = type("math", (), {n: staticmethod(watch(getattr(math, n))) for n in ("floor", "ceil", "trunc")})
    g.update(int=watch(int), round=watch(round), math=shim)
    try:
        result = original(*args)
    except OverflowError as exc:  # ±inf: CPython's own exception
        return exc
    finally:
        for k, v in saved.items():
            if v is None:
                g.pop(k, None)
            else:
                g[k] = v
    return bool(seen) or result


def _expect(original, columns):
    """CPython's outcome of a call: ('raise', lane, exception or None) for the first element
    (C order) whose conversion leaves int64 (None: item 7's own OverflowError, CPython gives an
    int there) or raises OverflowError, else ('values', list), each modulo 2**64 (item 6)."""
    out = []
    for lane, args in enumerate(zip(*columns)):
        args = tuple(float(a) for a in args)
        r = _leaves_int64(original, args)
        if r is True or isinstance(r, OverflowError):
            return "raise", lane, None if r is True else r
        out.append((r + 2**63) % 2**64 - 2**63)  # item 6: an int sum beyond int64 wraps
    return "values", out


def _run(vec, columns, backend):
    return vec(*[to_backend(np.array(c, dtype=np.float64), backend) for c in columns])


def _check(vec, columns, backend):
    original = vec._vectorized_original
    expected = _expect(original, columns)
    if expected[0] == "values":
        got = to_numpy(_run(vec, columns, backend))
        assert got.dtype == np.int64 and got.tolist() == expected[1]
        return
    _, lane, cpython = expected
    with pytest.raises(OverflowError) as info:
        _run(vec, columns, backend)
    if cpython is not None:
        assert info.value.args == cpython.args
    else:
        assert "is beyond int64, which an int array cannot hold" in str(info.value)
    if hasattr(info.value, "add_note"):
        assert f"array-vectorize: raised for element ({lane},) (flat index {lane})" in info.value.__notes__


def test_decorator_hook_and_backend_give_the_same_source(module):
    _, (name, tmp_path) = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("name", NAMES)
def test_each_element_alone_is_cpythons_value_or_raises(module, backend, name):
    vec = getattr(module[0], name)
    for x in FLOATS:
        columns = [[x], [3.0]] if name == "pages_needed" else [[x]]
        _check(vec, columns, backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("name", NAMES)
def test_the_first_element_beyond_int64_in_c_order_raises(module, backend, name):
    vec = getattr(module[0], name)
    rng = np.random.default_rng(7)
    for _ in range(6):
        xs = list(rng.choice(np.array(FLOATS), size=5))
        columns = [xs, list(rng.choice([1.0, 7.0, 0.5], size=5))] if name == "pages_needed" else [xs]
        _check(vec, columns, backend)


def test_an_element_on_the_branch_cpython_does_not_take_raises_nothing(module):
    # D1 evaluates `int(value)` on every element; only the elements that take it may raise.
    vec = module[0].capped_shares
    xs = [1e300, -math.inf, 2.5, math.inf, 2.0**63]
    assert vec(np.array(xs)).tolist() == [vec._vectorized_original(x) for x in xs]


def test_inside_a_try_body_no_except_clause_catches_it(module):
    # CPython's `int(1e302)` is an exact int, so `except OverflowError` never runs there; the
    # vectorized call cannot hold it and raises past the clause. ±inf is CPython's own
    # OverflowError, which the clause catches, and nan its ValueError.
    vec = module[0].settled_cents
    original = vec._vectorized_original
    assert vec(np.array([math.inf, math.nan, 1.25])).tolist() == [original(x) for x in (math.inf, math.nan, 1.25)]
    assert original(1e300) == int(1e302)
    with pytest.raises(OverflowError, match=r"int\(1e\+302\) is beyond int64") as info:
        vec(np.array([1.0, 1e300]))
    if hasattr(info.value, "add_note"):
        assert "array-vectorize: raised for element (1,) (flat index 1)" in info.value.__notes__


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_protect_domains_saturates_instead(module, backend):
    # Item 7's values where protect_domains asks for values, not errors: CPython's exact int
    # clamped to int64 (+inf as the largest, -inf as the smallest), nan 0.
    original = module[0].salary_cents._vectorized_original
    vec = vectorize(original, protect_domains=True)
    xs = [x for x in FLOATS if x == x]
    got = to_numpy(vec(to_backend(np.array(xs), backend))).tolist()
    want = [
        INT64_MAX if x == math.inf else INT64_MIN if x == -math.inf else min(max(original(x), INT64_MIN), INT64_MAX)
        for x in xs
    ]
    assert got == want
    assert to_numpy(vec(to_backend(np.array([math.nan]), backend))).tolist() == [0]


def test_nan_on_raise_gives_nan_on_the_elements_beyond_int64(module):
    original = module[0].full_years._vectorized_original
    vec = vectorize(original, nan_on_raise=True)
    xs = [400.0, 1e300, -math.inf, -800.0]
    got = vec(np.array(xs)).tolist()
    assert got[0] == original(400.0) and got[3] == original(-800.0)
    assert math.isnan(got[1]) and math.isnan(got[2])


def _drain_rate(level, rate):
    n = 0
    while n < 3 and int(level * n) < rate:
        n += 1
    return n


def _settled_then_counted(amount):
    cents = 0.0
    try:
        cents = 100.0 / amount
    except ZeroDivisionError:
        cents = 0.0
    finally:
        whole = int(amount)
    return cents + whole


def test_where_no_element_can_raise_the_conversion_is_refused_at_its_position():
    # Item 7's raise site where D11 has no per-element raise (a `finally` clause): a positioned
    # VectorizationError (D10), never the saturated value; protect_domains=True (values, not
    # errors) compiles.
    from array_vectorize import VectorizationError

    with pytest.raises(VectorizationError, match="in a .finally. clause") as info:
        vectorize(_settled_then_counted)
    (d,) = info.value.diagnostics
    first = _settled_then_counted.__code__.co_firstlineno
    # `whole = int(amount)`, seven lines below the `def`, at the column of `int`.
    assert (d["line"], d["col"]) == (first + 7, 17), d
    vectorize(_settled_then_counted, protect_domains=True)


def test_a_conversion_in_a_while_test_runs_per_iteration():
    # A `while` test that can raise runs per iteration (issue 26, branch whiletest): item 7's
    # conversion there gives CPython's count within int64 and raises its OverflowError beyond.
    level, rate = [0.5, 2.0, -3.0, 0.0, 7.25, -0.0], [1.0, 3.0, 0.5, 9.0, 20.0, -1.0]
    got = vectorize(_drain_rate)(np.array(level), np.array(rate))
    assert got.tolist() == [_drain_rate(a, b) for a, b in zip(level, rate)]
    with pytest.raises(OverflowError, match="beyond int64"):
        vectorize(_drain_rate)(np.array([0.5, 1e300]), np.array([1.0, 1e301]))
