"""A lane's result never depends on the other lanes (docs/semantics.md item 13).

Integer lanes of a computation that involves uint64 each hold a value in [-2**63, 2**64) (the
union of the int64 and uint64 ranges) until the function returns; only the returned array picks
one dtype for all lanes: uint64 when no lane is negative, else int64, each lane equal to its value
modulo 2**64. An operation whose exact result leaves that range on a lane raises OverflowError
(issue 28 item 3), never a wrapped value. So every lane of a mixed array must equal, modulo 2**64
for ints and exactly for floats and bools, the same lane computed alone, a call raises only when
one of its lanes raises alone, and the lanes are CPython's values.

The functions are small ledger, calendar and counter formulas over a uint64 and an int64 input,
with ``+ - * // % /``, ``float()``, ``int()``, ``abs``, comparisons and branches.
"""

from __future__ import annotations

import math

import array_api_strict
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from array_vectorize import vectorize

M64 = 1 << 64
INT64_MIN, INT64_MAX, UINT64_MAX = -(1 << 63), (1 << 63) - 1, M64 - 1
LIBS = {"numpy": np, "strict": array_api_strict}


def quarter_index(n):
    return (n - 1) // 4


def weekday(n):
    return (n - 1) % 7


def julian_day(year, shift):
    y = year + 4800 + shift
    return 365 * y + y // 4 - y // 100 + y // 400 - 32045


def julian_fraction(year, shift):
    y = year + shift - 1
    return float(y * 365) / 86400.0 - 0.5


def net_share(credit, debit):
    net = credit - debit
    if net > 0:
        return net // 3
    return net % 5 - 5


def per_head(credit, debit):
    return (credit + debit) / 3


def truncated_rate(credit, debit):
    return int((credit - debit) / 7) + (credit * debit) % 11


def pooled_quarter(credit, debit):
    return (credit + debit) // 4


def over_limit(credit, debit):
    return credit - debit > debit * 2


def spread(credit, debit):
    if credit > debit:
        return credit - debit
    return debit - credit


def rebalanced(credit, debit):
    gap = -(credit - debit) // 2 + abs(debit - credit)
    return gap * 3 - debit


def carried(credit, debit):
    total = credit
    for k in range(3):
        total = total - debit * k
    return total % 1000003 - 500000


def peak(credit, debit):
    return max(credit - debit, debit - 7, -credit) ** 3 % 1009 - (debit - credit) ** 2 // 5


def mixed_kind(credit, debit):
    d = credit - debit
    if d < 0:
        return float(d) * 0.5
    return d // 2


def day_number(year, month, day):
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045


TWO_ARG = [julian_day, julian_fraction, net_share, pooled_quarter, per_head, truncated_rate, over_limit, spread,
           rebalanced, carried, peak, mixed_kind]
ONE_ARG = [quarter_index, weekday]
VECTORIZED = {f.__name__: vectorize(f) for f in TWO_ARG + ONE_ARG + [day_number]}

U_EDGE = [0, 1, 2, 3, 7, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, UINT64_MAX - 1, UINT64_MAX]
I_EDGE = [0, 1, -1, 2, -2, 7, -7, 2**62, INT64_MAX, INT64_MIN, INT64_MIN + 1, -(10**18)]
uints = st.sampled_from(U_EDGE) | st.integers(0, UINT64_MAX) | st.integers(0, 100)
ints = st.sampled_from(I_EDGE) | st.integers(INT64_MIN, INT64_MAX) | st.integers(-100, 100)


def lanes(arr):
    """The result as Python scalars, one per lane, and whether it is an integer array."""
    a = np.asarray(arr).reshape(-1)
    return a.tolist(), a.dtype.kind


def same_lane(mixed, alone, kind):
    if kind in "iu":
        return (int(mixed) - int(alone)) % M64 == 0
    if kind == "f":
        return (math.isnan(mixed) and math.isnan(alone)) or (
            mixed == alone and math.copysign(1.0, mixed) == math.copysign(1.0, alone))
    return mixed == alone


def beyond_the_lattice(vec, arrays):
    """The call's lanes, or None when it raises item 13's OverflowError (a lane's exact value
    leaves [-2**63, 2**64))."""
    try:
        return lanes(vec(*arrays))
    except OverflowError as exc:
        assert "vectorized integers are 64-bit (docs/semantics.md item 13)" in str(exc), exc
        return None


def check_lanes(fn_name, lib, columns):
    """Each lane of a call is the lane computed alone; a call that raises item 13's
    OverflowError has a lane that raises it alone."""
    vec = VECTORIZED[fn_name]
    arrays = [lib.asarray(values, dtype=dt) for values, dt in columns]
    called = beyond_the_lattice(vec, arrays)
    alone_calls = [beyond_the_lattice(vec, [a[k:k + 1] for a in arrays]) for k in range(len(columns[0][0]))]
    if called is None:
        return [] if None in alone_calls else [f"{fn_name}: the call raised, no lane raises alone"]
    if None in alone_calls:
        return [f"{fn_name}: lane {alone_calls.index(None)} raises alone, the call returned"]
    mixed, kind = called
    failures = []
    if kind in "iu" and (kind == "u") == any(v < 0 for v in mixed):
        failures.append(f"{fn_name}: result dtype {kind} breaks item 13 for lanes {mixed}")
    for k in range(len(mixed)):
        alone, alone_kind = alone_calls[k]
        lane_kind = kind if kind == alone_kind else ("f" if "f" in (kind, alone_kind) else "i")
        if not same_lane(mixed[k], alone[0], lane_kind):
            inputs = [values[k] for values, _ in columns]
            failures.append(f"{fn_name}{tuple(inputs)}: lane {k} of the array is {mixed[k]!r}, alone {alone[0]!r}")
    return failures


@pytest.mark.parametrize("lib_name", sorted(LIBS))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_lane_does_not_depend_on_its_neighbours(lib_name, data):
    lib = LIBS[lib_name]
    n = data.draw(st.integers(2, 5), label="lanes")
    u = data.draw(st.lists(uints, min_size=n, max_size=n), label="u")
    i = data.draw(st.lists(ints, min_size=n, max_size=n), label="i")
    failures = []
    for f in TWO_ARG:
        failures += check_lanes(f.__name__, lib, [(u, lib.uint64), (i, lib.int64)])
        failures += check_lanes(f.__name__, lib, [(u, lib.uint64), (u[::-1], lib.uint64)])
    for f in ONE_ARG:
        failures += check_lanes(f.__name__, lib, [(u, lib.uint64)])
    assert not failures, "\n".join(failures[:10])


def cpython(fn, *args):
    try:
        return fn(*args)
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize("lib_name", sorted(LIBS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_lanes_match_cpython_when_nothing_wraps(lib_name, data):
    """Inputs small enough that no intermediate leaves [-2**63, 2**64): CPython's exact values,
    next to lanes that go negative and lanes near 2**64."""
    lib = LIBS[lib_name]
    n = data.draw(st.integers(2, 5), label="lanes")
    u = data.draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n), label="u")
    i = data.draw(st.lists(st.integers(-(10**6), 10**6), min_size=n, max_size=n), label="i")
    failures = []
    for f in TWO_ARG:
        got, kind = lanes(VECTORIZED[f.__name__](lib.asarray(u, dtype=lib.uint64), lib.asarray(i, dtype=lib.int64)))
        for k in range(n):
            want = cpython(f, u[k], i[k])
            if want is None:
                continue
            if kind in "iu" and isinstance(want, int) and not isinstance(want, bool):
                ok = got[k] == want
            else:
                ok = got[k] == want or (isinstance(want, float) and math.isnan(want) and math.isnan(got[k]))
            if not ok:
                failures.append(f"{f.__name__}({u[k]}, {i[k]}): got {got[k]!r}, CPython {want!r}")
    assert not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("lib_name", sorted(LIBS))
def test_issue_examples(lib_name):
    lib = LIBS[lib_name]
    n = lib.asarray([2**64 - 1, 0], dtype=lib.uint64)
    got = VECTORIZED["quarter_index"](n)
    assert lanes(got) == ([4611686018427387903, -1], "i")
    got = VECTORIZED["weekday"](n)
    assert lanes(got) == ([(2**64 - 2) % 7, 6], "u")
    # (u + i) // 4 with the sum of one lane above int64 and the other negative.
    u = lib.asarray([2**64 - 2, 0], dtype=lib.uint64)
    i = lib.asarray([1, -9], dtype=lib.int64)
    got = VECTORIZED["pooled_quarter"](u, i)
    assert lanes(got) == ([(2**64 - 1) // 4, -3], "i")
    # Issue 28 item 3: a float computed from an int beyond the lattice's range matched neither
    # CPython nor a wrapping of it; now the call raises item 13's OverflowError, alone or not.
    years = lib.asarray([2**64 - 4801, 2**64 - 4801], dtype=lib.uint64)
    shifts = lib.asarray([0, -(2**63)], dtype=lib.int64)
    assert julian_fraction(2**64 - 4801, 0) == float((2**64 - 4802) * 365) / 86400.0 - 0.5  # CPython
    for ys, ss in ((years[:1], shifts[:1]), (years, shifts)):
        with pytest.raises(OverflowError, match=r"\* 365 leaves the range of int64 and uint64"):
            VECTORIZED["julian_fraction"](ys, ss)
    # The calendar of the issue: a month near 2**64 makes `14 - m` fall below -2**63.
    months = lib.asarray([2**64 - 2, 3], dtype=lib.uint64)
    assert day_number(2000, 2**64 - 2, 1) == 561461243528490860297  # CPython, beyond 64 bits
    with pytest.raises(OverflowError, match="14 - 18446744073709551614 leaves the range") as info:
        VECTORIZED["day_number"](lib.asarray([2000, 2000], dtype=lib.uint64), months, lib.asarray([1, 1], dtype=lib.uint64))
    assert "flat index 0" in str(info.value)
    ok = lib.asarray([2000, 2000], dtype=lib.uint64)
    got = VECTORIZED["day_number"](ok, lib.asarray([12, 3], dtype=lib.uint64), lib.asarray([31, 1], dtype=lib.uint64))
    assert lanes(got)[0] == [day_number(2000, 12, 31), day_number(2000, 3, 1)]


def difference(a, b):
    return a - b


def test_result_dtype_follows_item_13():
    sub = vectorize(difference)
    u = np.array([5, 2**64 - 1], dtype=np.uint64)
    assert lanes(sub(u, np.array([3, 1], dtype=np.uint64))) == ([2, 2**64 - 2], "u")
    # Some lane negative: int64, every lane its value modulo 2**64.
    assert lanes(sub(u, np.array([6, 1], dtype=np.uint64))) == ([-1, -2], "i")


# ------------------------------------------------------------------ the helpers on lattice values


def lattice_value(v):
    """CPython's value ``v`` as a lane of the uint64 lattice holds it (docs/semantics.md item 13)."""
    r = v % M64
    return r - M64 if v < 0 and r > INT64_MAX else r


@pytest.mark.parametrize("lib_name", sorted(LIBS))
def test_helpers_take_lattice_operands(lib_name):
    """Each helper on an intermediate whose lanes fit neither int64 nor uint64 (a LatticeInt),
    lane by lane against CPython on the lanes' values."""
    from array_vectorize.runtime.arith import _vec_binary, _vec_result, _vec_unary
    from array_vectorize.runtime.elementwise import _vec_elementwise
    from array_vectorize.runtime.select import _vec_broadcast, _vec_select

    lib = LIBS[lib_name]
    xp = __import__("array_api_compat").array_namespace(lib.asarray([0]))
    u = [2**64 - 1, 0, 2**63, 5, 1]
    v = [1, 7, 0, 9, 2**63 + 1]
    values = [a - b for a, b in zip(u, v)]  # 2**64 - 2, -7, 2**63, -4, -2**63
    lanes_of = [lattice_value(x) for x in values]
    mixed = _vec_binary(xp, "sub", lib.asarray(u, dtype=lib.uint64), lib.asarray(v, dtype=lib.uint64))
    assert type(mixed).__name__ == "LatticeInt"

    def py(arr):
        return lanes(_vec_result(xp, arr))[0]

    def same_ints(got, want):
        return all((g - w) % M64 == 0 for g, w in zip(got, want))

    def exact_or_raises(call, want):
        """CPython's lanes ``want``, or OverflowError when one leaves [-2**63, 2**64) (item 13)."""
        if any(not -(2**63) <= w < M64 for w in want):
            with pytest.raises(OverflowError, match="item 13"):
                _vec_result(xp, call())  # the helper marks the lanes; returning the value raises
            return True
        return same_ints(py(call()), want)

    i64 = [-1, 3, -(2**63), 2**62, 0]
    others = {
        "int64": (lib.asarray(i64, dtype=lib.int64), i64),
        "uint64": (lib.asarray(u, dtype=lib.uint64), u),
        "lattice": (mixed, lanes_of),
        "small": (3, [3] * 5),
        "big": (2**63 + 5, [2**63 + 5] * 5),
        "negative": (-6, [-6] * 5),
    }
    for name, (other, other_lanes) in others.items():
        for op, f in (("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
                      ("floordiv", lambda a, b: a // b if b else 0), ("mod", lambda a, b: a % b if b else 0)):
            want = [f(a, b) for a, b in zip(lanes_of, other_lanes)]
            assert exact_or_raises(lambda: _vec_binary(xp, op, mixed, other), want), (name, op, want)
        for op, f in (("lt", lambda a, b: a < b), ("ge", lambda a, b: a >= b), ("eq", lambda a, b: a == b)):
            assert py(_vec_binary(xp, op, mixed, other)) == [f(a, b) for a, b in zip(lanes_of, other_lanes)], (name, op)
            assert py(_vec_binary(xp, op, other, mixed)) == [f(b, a) for a, b in zip(lanes_of, other_lanes)], (name, op)
        got = py(_vec_binary(xp, "truediv", mixed, other))
        want = [a / b if b else math.copysign(math.inf, a) for a, b in zip(lanes_of, other_lanes)]
        assert got == want, (name, got, want)
    floats = lib.asarray([1.8446744073709552e19, -7.0, 9.3e18, -3.5, 2.0], dtype=lib.float64)
    for op, f in (("lt", lambda a, b: a < b), ("eq", lambda a, b: a == b), ("gt", lambda a, b: a > b)):
        assert py(_vec_binary(xp, op, mixed, floats)) == [f(a, b) for a, b in zip(lanes_of, lanes(floats)[0])]
    assert py(_vec_binary(xp, "add", mixed, 0.5)) == [a + 0.5 for a in lanes_of]
    assert py(_vec_unary(xp, "float", mixed)) == [float(a) for a in lanes_of]
    assert exact_or_raises(lambda: _vec_unary(xp, "neg", mixed), [-a for a in lanes_of])
    assert py(_vec_unary(xp, "abs", mixed)) == [abs(a) for a in lanes_of]
    assert py(_vec_unary(xp, "not", mixed)) == [not a for a in lanes_of]
    assert py(_vec_unary(xp, "bool", mixed)) == [bool(a) for a in lanes_of]
    assert same_ints(py(_vec_unary(xp, "int", mixed)), lanes_of)
    assert py(_vec_binary(xp, "pow", 2, _vec_binary(xp, "sub", mixed, mixed))) == [1] * 5
    got = py(_vec_binary(xp, "pow", 2.0, _vec_binary(xp, "sub", lib.asarray([1, 0, 3, 0, 2], dtype=lib.uint64), 1)))
    assert got == [1.0, 0.5, 4.0, 0.5, 2.0]
    cond = lib.asarray([True, False, True, False, True])
    assert same_ints(py(_vec_select(xp, cond, mixed, lib.asarray(i64, dtype=lib.int64))),
                     [a if c else b for a, b, c in zip(lanes_of, i64, [True, False, True, False, True])])
    assert py(_vec_select(xp, cond, mixed, 0.5)) == [float(a) if c else 0.5 for a, c in zip(lanes_of, [1, 0, 1, 0, 1])]
    # max(a, b, -3) as the exact body emits it: a later argument wins only when strictly greater.
    b64 = lib.asarray(i64, dtype=lib.int64)
    running = _vec_select(xp, _vec_binary(xp, "gt", b64, mixed), b64, mixed)
    running = _vec_select(xp, _vec_binary(xp, "gt", -3, running), -3, running)
    assert same_ints(py(running), [max(a, b, -3) for a, b in zip(lanes_of, i64)])
    assert same_ints(py(_vec_broadcast(xp, mixed, lib.asarray([[0.0]] * 2))), lanes_of * 2)
    assert lanes(_vec_elementwise(xp, lambda a: a // 2, mixed))[0] == [lattice_value(a // 2) for a in lanes_of]
    # A lane beyond the lattice (item 13) cannot be passed to a call run element by element.
    beyond = _vec_binary(xp, "mul", mixed, 3)
    with pytest.raises(OverflowError, match=r"18446744073709551614 \* 3 leaves the range .*flat index 0\)"):
        _vec_elementwise(xp, lambda a: a // 2, beyond)
