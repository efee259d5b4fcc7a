"""The runtime helpers against CPython, lane by lane, on NumPy and on array-api-strict.

CPython is the oracle: every lane of a helper's result is compared with the scalar expression
on the same Python values, with the documented divergences (D3 IEEE values, integer wrap-around,
the uint64 lattice's dtype rule) applied to the oracle's answer, never to the helper's. NaN
equals NaN, and the sign of zero must match.

Warnings are errors (pytest ``filterwarnings = error``): every call below runs without
``errstate`` except ``add``/``sub``/``mul`` of floats, which are the plain operators and warn on
overflow exactly as the float body does (pinned by ``test_plain_float_ops_warn_like_the_operator``).
"""

from __future__ import annotations

import math
import operator
import struct
import sys
from typing import Any, NamedTuple

import array_api_compat
import array_api_strict
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from array_vectorize.runtime import RUNTIME_HELPERS
from array_vectorize.runtime import intops
from array_vectorize.runtime.arith import _vec_binary, _vec_result, _vec_unary
from array_vectorize.runtime.elementwise import _vec_elementwise
from array_vectorize.runtime.select import _vec_broadcast, _vec_select

M64 = 1 << 64
INT64_MIN, INT64_MAX, UINT64_MAX = -(1 << 63), (1 << 63) - 1, M64 - 1
DBL_MAX = sys.float_info.max
INF, NAN = math.inf, math.nan
SNAN = struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]  # signaling NaN

F_EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -7.0, 0.1, 5e-324, -5e-324,
          2.2250738585072014e-308, 1e-300, 1e300, DBL_MAX, -DBL_MAX, INF, -INF, NAN, SNAN,
          2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**63, -(2.0**63), 2.0**64, 9.2e18, 1e19]
I_EDGE = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2**53, 2**53 + 1, -(2**53) - 1, 2**62, INT64_MAX,
          INT64_MIN, INT64_MIN + 1, 10**18, -(10**18)]
U_EDGE = [0, 1, 2, 3, 7, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, UINT64_MAX, UINT64_MAX - 1, 10**19]
B_EDGE = [False, True]
VALUES = {"b": B_EDGE, "i": I_EDGE, "u": U_EDGE, "f": F_EDGE,
          "B": B_EDGE, "I": I_EDGE + [2**63, UINT64_MAX], "F": F_EDGE}

ARITH = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"]
COMPARE = ["lt", "le", "gt", "ge", "eq", "ne"]
PYOPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
         "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lt": operator.lt,
         "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne}


# --------------------------------------------------------------------------- backends


class Backend:
    def __init__(self, name: str, lib: Any) -> None:
        self.name = name
        self.lib = lib
        self.xp = array_api_compat.array_namespace(lib.asarray([0.0]))
        self.dtypes = {"b": lib.bool, "i": lib.int64, "u": lib.uint64, "f": lib.float64}

    def __repr__(self) -> str:
        return self.name

    def array(self, values: Any, kind: str) -> Any:
        return self.lib.asarray(values, dtype=self.dtypes[kind])

    def kind(self, arr: Any) -> str:
        """The dtype kind of a helper's result, as a function would return it (``_vec_result``)."""
        arr = _vec_result(self.xp, arr)
        for kind, dt in self.dtypes.items():
            if arr.dtype == dt:
                return kind
        raise AssertionError(f"unexpected dtype {arr.dtype}")

    def values(self, arr: Any) -> list[Any]:
        arr = _vec_result(self.xp, arr)
        return np.asarray(arr).reshape(-1).tolist()  # type: ignore[no-any-return]


BACKENDS = [Backend("numpy", np), Backend("strict", array_api_strict)]


@pytest.fixture(autouse=True)
def _numpy_warns() -> Any:
    """The suite's conftest silences NumPy (``errstate(all="ignore")``); these tests restore
    NumPy's defaults, so that ``filterwarnings = error`` proves the helpers raise no warnings.
    """
    with np.errstate(over="warn", divide="warn", invalid="warn", under="ignore"):
        yield
backends = pytest.mark.parametrize("be", BACKENDS, ids=repr)


def same(got: Any, expected: Any) -> bool:
    """Equality for the oracle: NaN equals NaN, and zeros must agree in sign."""
    if isinstance(expected, float) or isinstance(got, float):
        got, expected = float(got), float(expected)
        if math.isnan(expected):
            return math.isnan(got)
        return got == expected and math.copysign(1.0, got) == math.copysign(1.0, expected)
    return type(got) is type(expected) and got == expected


# --------------------------------------------------------------------------- the CPython oracle


class IntR(NamedTuple):
    """An exact integer result: its value modulo 2**64 and whether it is negative once wrapped
    into the uint64 lattice's range [-2**63, 2**64) (a value below -2**63 wraps to a
    non-negative one, as in int64)."""

    residue: int
    negative: bool


def intr(v: int) -> IntR:
    return IntR(v % M64, v < 0 and v % M64 > INT64_MAX)


def odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and int(y) % 2 == 1


def d3_zero(op: str, a: Any, b: Any) -> Any:
    """D3: the value a ZeroDivisionError becomes."""
    ints = isinstance(a, int) and isinstance(b, int)
    if op in ("floordiv", "mod") and ints:
        return IntR(0, False)  # x // 0 == x % 0 == 0
    if op == "mod":
        return NAN
    if op == "pow":  # 0 ** negative: IEEE pow
        x, y = float(a), float(b)
        return -INF if math.copysign(1.0, x) < 0 and odd_integer(y) else INF
    x = float(a)  # truediv, float floordiv: the IEEE quotient
    zero_sign = math.copysign(1.0, b) if isinstance(b, float) else 1.0
    if x == 0 or math.isnan(x):
        return NAN
    return math.copysign(INF, x) * zero_sign


def py_binary(op: str, a: Any, b: Any) -> Any:
    """CPython's ``a op b`` with the documented divergences (bool, float, or IntR)."""
    if op in COMPARE:
        return PYOPS[op](a, b)
    if op == "pow" and isinstance(a, int) and isinstance(b, int) and b >= 0:
        return intr(pow(a, b, M64) - (M64 if a < 0 and b % 2 == 1 and pow(a, b, M64) else 0))
    x, y = float(a), float(b)
    if op == "pow" and -INF < x < 0 and math.isfinite(y) and not y.is_integer():
        return NAN  # CPython returns a complex (or overflows computing it)
    try:
        r = PYOPS[op](a, b)
    except ZeroDivisionError:
        return d3_zero(op, a, b)
    except OverflowError:  # a float power out of range
        x, y = float(a), float(b)
        return -INF if x < 0 and odd_integer(y) else INF
    if isinstance(r, complex):  # negative ** fractional
        return NAN
    if isinstance(r, int):
        return intr(r)
    return r


def in_lattice(kind: str, v: Any) -> bool:
    return kind == "u" or (kind == "I" and v >= 2**63)


def as_dtype(r: IntR, unsigned: bool) -> int:
    if unsigned or r.residue <= INT64_MAX:
        return r.residue
    return r.residue - M64


def expected_binary(op: str, ka: str, avals: list[Any], kb: str, bvals: list[Any]) -> tuple[str, list[Any]]:
    """The dtype kind and lane values the helper must return."""
    lanes = [py_binary(op, x, y) for x, y in zip(avals, bvals)]
    if op in COMPARE:
        return "b", lanes
    lattice = any(in_lattice(ka, v) for v in avals) or any(in_lattice(kb, v) for v in bvals)
    ints = [r for r in lanes if isinstance(r, IntR)]
    # uint64 when no lane is negative (lanes with a negative exponent were computed as x ** 0).
    unsigned = lattice and not any(r.negative for r in ints)
    if len(ints) < len(lanes):  # float result; mixed-sign int exponents convert each int lane
        return "f", [float(as_dtype(r, lattice and not r.negative)) if isinstance(r, IntR) else r for r in lanes]
    return ("u" if unsigned else "i"), [as_dtype(r, unsigned) for r in lanes]


def same_pow(got: Any, expected: Any) -> bool:
    """``same``, except that finite non-zero float powers may differ by 2 units in the last place.

    Float ``**`` is the backend's ``pow`` (documented): NumPy's SIMD loops on AVX-512 machines are
    not correctly rounded, CPython's C library ``pow`` nearly always is. Special values, signs and
    integer results are still compared exactly.
    """
    if same(got, expected):
        return True
    if not isinstance(expected, float) or not math.isfinite(expected) or expected == 0:
        return False
    got = float(got)
    if not math.isfinite(got) or math.copysign(1, got) != math.copysign(1, expected):
        return False
    return abs(got - expected) <= 2 * math.ulp(expected)


def operand(be: Backend, kind: str, values: list[Any]) -> Any:
    return be.array(values, kind) if kind in "biuf" else values[0]


def leaves_the_lattice(op: str, x: Any, y: Any) -> bool:
    """Whether CPython's int ``x op y`` lies outside [-2**63, 2**64), the uint64 lattice's range
    (docs/semantics.md item 13: such a lane makes the helper raise OverflowError)."""
    if op not in ("add", "sub", "mul", "pow", "floordiv") or isinstance(x, float) or isinstance(y, float):
        return False
    x, y = int(x), int(y)
    if op == "pow":
        if y < 0:
            return False  # a negative exponent: the float power, computed as x ** 0 here
        if abs(x) >= 2 and y >= 64:
            return True
    if op == "floordiv":
        return y != 0 and not -(2**63) <= x // y < 2**64
    r = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "pow": operator.pow}[op](x, y)
    return not -(2**63) <= r < 2**64


def check_binary(be: Backend, op: str, ka: str, avals: list[Any], kb: str, bvals: list[Any]) -> list[str]:
    """Run the helper on one operand pair; return mismatch descriptions. On the uint64 lattice a
    lane whose exact result leaves its range makes the call raise OverflowError (item 13)."""
    a, b = operand(be, ka, avals), operand(be, kb, bvals)
    n = max(len(avals), len(bvals))
    avals, bvals = avals * (n // len(avals)), bvals * (n // len(bvals))
    lattice = any(in_lattice(ka, v) for v in avals) or any(in_lattice(kb, v) for v in bvals)
    if lattice and any(leaves_the_lattice(op, x, y) for x, y in zip(avals, bvals)):
        try:  # the helper marks the lanes (item 13); returning the value raises
            _vec_result(be.xp, _vec_binary(be.xp, op, a, b))
        except OverflowError as exc:
            if "vectorized integers are 64-bit (docs/semantics.md item 13)" not in str(exc):
                return [str(exc)]
        else:
            return [f"{ka}{avals[:3]}.. {op} {kb}{bvals[:3]}..: no OverflowError for a lane beyond the lattice"]
        # The other lanes, alone, compute CPython's values.
        kept = [(x, y) for x, y in zip(avals, bvals) if not leaves_the_lattice(op, x, y)]
        if not kept:
            return []
        avals, bvals = [x for x, _ in kept], [y for _, y in kept]
        a, b = operand(be, ka, avals), operand(be, kb, bvals)
    want_kind, want = expected_binary(op, ka, avals, kb, bvals)
    if op in ("add", "sub", "mul") and (ka in "fF" or kb in "fF"):
        with np.errstate(all="ignore"):  # plain float operators: overflow warns as in the float body
            got = _vec_binary(be.xp, op, a, b)
    else:
        got = _vec_binary(be.xp, op, a, b)
    if be.kind(got) != want_kind:
        return [f"{ka}{avals[:3]}.. {op} {kb}{bvals[:3]}..: dtype {be.kind(got)}, expected {want_kind}"]
    equal = same_pow if op == "pow" and want_kind == "f" else same
    return [
        f"{x!r} {op} {y!r} ({ka},{kb}): got {g!r}, expected {w!r}"
        for x, y, g, w in zip(avals, bvals, be.values(got), want)
        if not equal(g, w)
    ]


def grid_cases(ka: str, kb: str) -> list[tuple[list[Any], list[Any]]]:
    """Operand value lists: array-array pairs as one cartesian call, scalars one call per value."""
    va, vb = VALUES[ka], VALUES[kb]
    if ka in "biuf" and kb in "biuf":
        return [([x for x in va for _ in vb], [y for _ in va for y in vb])]
    if ka in "BIF":
        return [([x], vb) for x in va]
    return [(va, [y]) for y in vb]


KIND_PAIRS = [(ka, kb) for ka in "biufBIF" for kb in "biufBIF" if not (ka in "BIF" and kb in "BIF")]


# --------------------------------------------------------------------------- binary: grids


@backends
@pytest.mark.parametrize("op", ARITH + COMPARE)
def test_binary_matches_cpython_on_edge_grid(be: Backend, op: str) -> None:
    mismatches: list[str] = []
    for ka, kb in KIND_PAIRS:
        for avals, bvals in grid_cases(ka, kb):
            mismatches += check_binary(be, op, ka, avals, kb, bvals)
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:15])


def _values(kind: str, size: int) -> st.SearchStrategy[list[Any]]:
    if kind in "bB":
        elem: st.SearchStrategy[Any] = st.booleans()
    elif kind == "i":
        elem = st.integers(INT64_MIN, INT64_MAX) | st.sampled_from(I_EDGE)
    elif kind == "I":
        elem = st.integers(INT64_MIN, UINT64_MAX) | st.sampled_from(VALUES["I"])
    elif kind == "u":
        elem = st.integers(0, UINT64_MAX) | st.sampled_from(U_EDGE)
    else:
        elem = st.floats() | st.sampled_from(F_EDGE) | st.integers(-(2**65), 2**65).map(float)
    return st.lists(elem, min_size=size, max_size=size)


@backends
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_binary_matches_cpython_on_random_values(be: Backend, data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(ARITH + COMPARE), label="op")
    ka, kb = data.draw(st.sampled_from(KIND_PAIRS), label="kinds")
    n = data.draw(st.integers(1, 6), label="lanes")
    avals = data.draw(_values(ka, 1 if ka in "BIF" else n), label="a")
    bvals = data.draw(_values(kb, 1 if kb in "BIF" else n), label="b")
    mismatches = check_binary(be, op, ka, avals, kb, bvals)
    assert not mismatches, "\n".join(mismatches)


@backends
@settings(max_examples=100, deadline=None)
@given(
    p=st.lists(st.integers(INT64_MIN, INT64_MAX) | st.integers(-(2**60), 2**60), min_size=1, max_size=20),
    q=st.lists(st.integers(INT64_MIN, INT64_MAX) | st.integers(-(2**60), 2**60), min_size=1, max_size=20),
)
def test_int64_true_division_is_correctly_rounded(be: Backend, p: list[int], q: list[int]) -> None:
    n = min(len(p), len(q))
    mismatches = check_binary(be, "truediv", "i", p[:n], "i", q[:n])
    assert not mismatches, "\n".join(mismatches)


@backends
def test_true_division_of_large_integers(be: Backend) -> None:
    # float(a) / float(b) is wrong on all of these; CPython rounds the exact quotient once.
    pairs = [(2**53 + 1, 3), (2**63 - 1, 2**63 - 2), (10**18 + 1, 10**18), (2**62 + 1, 2**53 + 1),
             (-(2**63), 2**63 - 1), (3, 2**53 + 1), (2**63 - 25, 7), (6004799503160661, 2**53 + 3)]
    assert sum(float(a) / float(b) != a / b for a, b in pairs) >= 4  # the naive way fails here
    got = _vec_binary(be.xp, "truediv", be.array([a for a, _ in pairs], "i"), be.array([b for _, b in pairs], "i"))
    assert be.values(got) == [a / b for a, b in pairs]
    u = [(2**64 - 1, 3), (2**64 - 1, 2**64 - 2), (2**63 + 1, 2**63), (1, 2**64 - 1), (2**64 - 1, 1)]
    got = _vec_binary(be.xp, "truediv", be.array([a for a, _ in u], "u"), be.array([b for _, b in u], "u"))
    assert be.values(got) == [a / b for a, b in u]


# --------------------------------------------------------------------------- binary: named cases


@backends
def test_bools_are_ints_in_arithmetic(be: Backend) -> None:
    t = be.array([True, True, False], "b")
    got = _vec_binary(be.xp, "add", t, t)
    assert be.kind(got) == "i" and be.values(got) == [2, 2, 0]
    got = _vec_binary(be.xp, "sub", False, t)
    assert be.kind(got) == "i" and be.values(got) == [-1, -1, 0]
    assert be.values(_vec_binary(be.xp, "lt", t, 2)) == [True, True, True]


@backends
def test_int_float_comparison_is_exact(be: Backend) -> None:
    i = be.array([2**53 + 1, 2**53, INT64_MAX, INT64_MAX], "i")
    f = be.array([2.0**53, 2.0**53, 2.0**63, 9.223372036854775e18], "f")
    assert be.values(_vec_binary(be.xp, "gt", i, f)) == [True, False, False, True]
    assert be.values(_vec_binary(be.xp, "eq", i, f)) == [False, True, False, False]
    assert be.values(_vec_binary(be.xp, "gt", i, 2.0**53)) == [True, False, True, True]
    assert be.values(_vec_binary(be.xp, "lt", f, 2**53 + 1)) == [True, True, False, False]
    assert be.values(_vec_binary(be.xp, "lt", f, 10**400)) == [True] * 4  # beyond any float
    u = be.array([UINT64_MAX, 2**63], "u")
    assert be.values(_vec_binary(be.xp, "lt", u, be.array([2.0**64, 2.0**63], "f"))) == [True, False]
    assert be.values(_vec_binary(be.xp, "gt", u, be.array([-1, -1], "i"))) == [True, True]


@backends
def test_division_by_zero_gives_documented_values(be: Backend) -> None:
    xp = be.xp
    f = be.array([1.0, -1.0, 0.0, -0.0, NAN, INF], "f")
    assert all(map(same, be.values(_vec_binary(xp, "truediv", f, 0.0)), [INF, -INF, NAN, NAN, NAN, INF]))
    assert all(map(same, be.values(_vec_binary(xp, "truediv", f, -0.0)), [-INF, INF, NAN, NAN, NAN, -INF]))
    assert all(map(same, be.values(_vec_binary(xp, "mod", f, 0.0)), [NAN] * 6))
    i = be.array([5, -5, 0], "i")
    assert be.values(_vec_binary(xp, "floordiv", i, 0)) == [0, 0, 0]
    assert be.values(_vec_binary(xp, "mod", i, 0)) == [0, 0, 0]
    assert all(map(same, be.values(_vec_binary(xp, "truediv", i, 0)), [INF, -INF, NAN]))
    assert be.values(_vec_binary(xp, "floordiv", be.array([7, 7], "u"), be.array([0, 2], "u"))) == [0, 3]


@backends
def test_integer_powers(be: Backend) -> None:
    xp = be.xp
    i = be.array([2, -2, 0, 3], "i")
    got = _vec_binary(xp, "pow", i, -1)
    assert be.kind(got) == "f" and be.values(got) == [0.5, -0.5, INF, 1 / 3]
    got = _vec_binary(xp, "pow", i, 3)
    assert be.kind(got) == "i" and be.values(got) == [8, -8, 0, 27]
    got = _vec_binary(xp, "pow", 3, be.array([40, 41], "i"))  # wraps modulo 2**64
    assert be.values(got) == [as_dtype(intr(3**40), False), as_dtype(intr(3**41), False)]
    # Mixed-sign exponent array: float64 for every lane (documented).
    got = _vec_binary(xp, "pow", 2, be.array([-1, 2], "i"))
    assert be.kind(got) == "f" and be.values(got) == [0.5, 4.0]


@backends
def test_uint64_result_aware_subtraction(be: Backend) -> None:
    xp = be.xp
    u = be.array([5, 2**64 - 1], "u")
    v = be.array([3, 2**63], "u")
    got = _vec_binary(xp, "sub", u, v)  # every difference non-negative: uint64
    assert be.kind(got) == "u" and be.values(got) == [2, 2**63 - 1]
    got = _vec_binary(xp, "sub", v, u)  # some negative: int64
    assert be.kind(got) == "i" and be.values(got) == [-2, -(2**63) + 1]
    got = _vec_binary(xp, "sub", u, 1)
    assert be.kind(got) == "u" and be.values(got) == [4, 2**64 - 2]
    got = _vec_binary(xp, "add", be.array([2**63], "u"), be.array([-1], "i"))
    assert be.kind(got) == "u" and be.values(got) == [2**63 - 1]
    got = _vec_binary(xp, "mod", be.array([2**64 - 1], "u"), -7)  # Python sign rules
    assert be.kind(got) == "i" and be.values(got) == [(2**64 - 1) % -7]
    got = _vec_binary(xp, "floordiv", be.array([2**64 - 1, 6], "u"), be.array([-2, 3], "i"))
    assert be.values(got) == [as_dtype(intr((2**64 - 1) // -2), False), 2]


def test_uint64_lattice_is_static_on_lazy_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lazy arrays cannot be inspected: a possibly negative result is int64 (documented)."""
    def unknown(xp: Any, mask: Any) -> bool | None:
        return bool(mask) if mask is None or mask is True else None

    monkeypatch.setattr(intops, "known_any", unknown)
    be = BACKENDS[0]
    got = _vec_binary(be.xp, "sub", be.array([5], "u"), be.array([3], "u"))
    assert be.kind(got) == "i" and be.values(got) == [2]
    got = _vec_binary(be.xp, "add", be.array([5], "u"), be.array([3], "u"))
    assert be.kind(got) == "u"


@backends
def test_zero_dimensional_integer_operands_wrap_without_warnings(be: Backend) -> None:
    xp = be.xp
    big = be.array(2**62, "i")
    got = _vec_binary(xp, "mul", big, be.array(4, "i"))
    assert got.shape == () and be.values(got) == [0]
    assert be.values(_vec_binary(xp, "floordiv", be.array(INT64_MIN, "i"), be.array(-1, "i"))) == [INT64_MIN]
    with pytest.raises(OverflowError, match="item 13"):  # beyond the uint64 lattice's range
        _vec_result(xp, _vec_binary(xp, "add", be.array(UINT64_MAX, "u"), be.array(1, "u")))
    assert be.values(_vec_binary(xp, "add", be.array(UINT64_MAX - 1, "u"), be.array(1, "u"))) == [UINT64_MAX]
    assert be.values(_vec_binary(xp, "truediv", be.array(2**63 - 1, "i"), be.array(3, "i"))) == [(2**63 - 1) / 3]


def test_plain_float_ops_warn_like_the_operator() -> None:
    """add/sub/mul of floats are the plain operator: NumPy warns on overflow, as the float body does."""
    be = BACKENDS[0]
    with pytest.warns(RuntimeWarning, match="overflow"):
        _vec_binary(be.xp, "mul", be.array([DBL_MAX], "f"), 2.0)


@backends
def test_out_of_range_int_literals(be: Backend) -> None:
    with pytest.raises(OverflowError, match="64-bit"):
        _vec_binary(be.xp, "add", be.array([1], "i"), 2**64)
    assert be.values(_vec_binary(be.xp, "add", be.array([1.0], "f"), 2**64)) == [2.0**64 + 1.0]
    assert be.values(_vec_binary(be.xp, "lt", be.array([INT64_MAX], "i"), 2**70)) == [True]
    assert be.values(_vec_binary(be.xp, "ge", be.array([0], "u"), -(2**70))) == [True]


def test_binary_float_fast_path_returns_the_plain_operator_result() -> None:
    be = BACKENDS[0]
    x, y = be.array([1.0, 2.0], "f"), be.array([3.0, 0.5], "f")
    assert be.values(_vec_binary(be.xp, "add", x, y)) == [4.0, 2.5]
    assert be.values(_vec_binary(be.xp, "truediv", x, 0.5)) == [2.0, 4.0]
    with pytest.raises(ValueError, match="unknown binary operation"):
        _vec_binary(be.xp, "matmul", be.array([1], "i"), 2)


# --------------------------------------------------------------------------- unary

UNARY = ["neg", "pos", "abs", "not", "float", "int", "bool", "round"]


def py_unary(op: str, v: Any) -> Any:
    if op == "not":
        return not v
    if op == "bool":
        return bool(v)
    if op == "float":
        return float(v)
    if op in ("int", "round") and isinstance(v, float):
        if math.isnan(v):
            return intr(0)  # documented: NaN -> 0
        if v >= 2.0**63 or v < -(2.0**63):
            return intr(INT64_MAX if v > 0 else INT64_MIN)  # documented: saturate
        return intr(int(v) if op == "int" else round(v))
    if op in ("int", "round"):
        return intr(int(v))
    r = {"neg": operator.neg, "pos": operator.pos, "abs": abs}[op](v)
    return intr(r) if isinstance(r, int) else r


@backends
@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("kind", "biuf")
def test_unary_matches_cpython(be: Backend, op: str, kind: str) -> None:
    values = VALUES[kind] + ([0.49999999999999994, 4.5, -3.5, 1e16 + 1, -0.4] if kind == "f" else [])
    if kind == "u" and op == "neg":
        # -u below -2**63 leaves the uint64 lattice's range: OverflowError (item 13).
        with pytest.raises(OverflowError, match="item 13"):
            _vec_result(be.xp, _vec_unary(be.xp, op, be.array(values, kind)))
        values = [v for v in values if v <= 2**63]
    got = _vec_unary(be.xp, op, be.array(values, kind))
    lanes = [py_unary(op, v) for v in values]
    if op in ("not", "bool"):
        want_kind, want = "b", lanes
    elif any(isinstance(r, float) for r in lanes):
        want_kind, want = "f", lanes
    else:
        # uint64 stays uint64 unless a lane is negative (-u: the lattice)
        unsigned = kind == "u" and not any(r.negative for r in lanes)
        want_kind, want = ("u" if unsigned else "i"), [as_dtype(r, unsigned) for r in lanes]
    assert be.kind(got) == want_kind
    bad = [(v, g, w) for v, g, w in zip(values, be.values(got), want) if not same(g, w)]
    assert not bad


@backends
def test_unary_on_python_scalars_and_zero_dim(be: Backend) -> None:
    assert be.values(_vec_unary(be.xp, "neg", True)) == [-1]
    assert be.values(_vec_unary(be.xp, "round", 2.5)) == [2]
    assert be.values(_vec_unary(be.xp, "abs", be.array(INT64_MIN, "i"))) == [INT64_MIN]  # wraps
    assert be.kind(_vec_unary(be.xp, "neg", be.array([0, 0], "u"))) == "u"  # -0 stays unsigned
    with pytest.raises(ValueError, match="unknown unary"):
        _vec_unary(be.xp, "reciprocal", be.array([1], "i"))


# --------------------------------------------------------------------------- select and min/max


def promoted(operands: list[tuple[str, list[Any]]], chosen: list[Any]) -> str:
    """The result kind of a select (or min/max) of ``(kind, values)`` operands selecting ``chosen``."""
    kinds = [k for k, _ in operands]
    if any(k in "fF" for k in kinds):
        return "f"
    if any(in_lattice(k, v) for k, vals in operands for v in vals):
        return "u" if all(v >= 0 for v in chosen) else "i"
    if any(k in "iI" for k in kinds):
        return "i"
    return "b"


def lane_value(kind: str, v: Any) -> Any:
    if kind == "f":
        return float(v)
    if kind == "b":
        return bool(v)
    return as_dtype(intr(int(v)), kind == "u")


@backends
def test_select_promotes_like_documented(be: Backend) -> None:
    samples = {"b": [True, False, True], "i": [-5, 2**53 + 1, INT64_MIN], "u": [3, 2**63, UINT64_MAX],
               "f": [-0.0, NAN, 2.5], "B": [True], "I": [-3], "F": [-0.0]}
    cond = be.array([True, False, True], "b")
    for ka in samples:
        for kb in samples:
            if ka in "BIF" and kb in "BIF":
                continue
            a, b = operand(be, ka, samples[ka]), operand(be, kb, samples[kb])
            av = samples[ka] * (3 // len(samples[ka]))
            bv = samples[kb] * (3 // len(samples[kb]))
            chosen = [x if c else y for c, x, y in zip([True, False, True], av, bv)]
            want_kind = promoted([(ka, samples[ka]), (kb, samples[kb])], chosen)
            got = _vec_select(be.xp, cond, a, b)
            assert be.kind(got) == want_kind, (ka, kb)
            want = [lane_value(want_kind, v) for v in chosen]
            assert all(map(same, be.values(got), want)), (ka, kb, be.values(got), want)


@backends
def test_select_condition_forms(be: Backend) -> None:
    x = be.array([1.0, 2.0], "f")
    assert be.values(_vec_select(be.xp, True, x, 0.0)) == [1.0, 2.0]
    assert be.values(_vec_select(be.xp, be.array([NAN, 0.0], "f"), x, -1.0)) == [1.0, -1.0]  # truthiness
    assert be.values(_vec_select(be.xp, be.array([0, 3], "i"), x, -1.0)) == [-1.0, 2.0]


def exact_min_max(xp: Any, op: str, a: Any, b: Any) -> Any:
    """What an exact body computes for ``min(a, b)`` / ``max(a, b)``: lowering keeps CPython's rule
    (``b`` replaces ``a`` only on a strict win) as a comparison and a select (src/lower.rs)."""
    wins = _vec_binary(xp, "lt" if op == "min" else "gt", b, a)
    return _vec_select(xp, wins, b, a)


@backends
@pytest.mark.parametrize("op", ["min", "max"])
def test_min_max_as_emitted_matches_cpython(be: Backend, op: str) -> None:
    fn = min if op == "min" else max
    cases = [("f", "f"), ("i", "f"), ("f", "i"), ("i", "u"), ("b", "i"), ("u", "u"), ("f", "F"), ("i", "I")]
    for ka, kb in cases:
        for avals, bvals in grid_cases(ka, kb):
            n = max(len(avals), len(bvals))
            av, bv = avals * (n // len(avals)), bvals * (n // len(bvals))
            chosen = [fn(x, y) for x, y in zip(av, bv)]
            got = exact_min_max(be.xp, op, operand(be, ka, avals), operand(be, kb, bvals))
            want_kind = promoted([(ka, avals), (kb, bvals)], chosen)
            assert be.kind(got) == want_kind, (ka, kb)
            want = [lane_value(want_kind, v) for v in chosen]
            bad = [(x, y, g, w) for x, y, g, w in zip(av, bv, be.values(got), want) if not same(g, w)]
            assert not bad, (ka, kb, bad[:5])


@backends
def test_min_max_as_emitted_keeps_the_first_of_ties_and_nans(be: Backend) -> None:
    xp = be.xp
    nan1 = be.array([NAN, 1.0], "f")
    one_nan = be.array([1.0, NAN], "f")
    assert all(map(same, be.values(exact_min_max(xp, "min", nan1, one_nan)), [NAN, 1.0]))
    assert all(map(same, be.values(exact_min_max(xp, "max", 0.0, be.array([-0.0], "f"))), [0.0]))
    got = exact_min_max(xp, "max", be.array([True, False], "b"), 0)
    assert be.kind(got) == "i" and be.values(got) == [1, 0]


# --------------------------------------------------------------------------- broadcast


@backends
def test_broadcast(be: Backend) -> None:
    xp, lib = be.xp, be.lib
    x = lib.reshape(be.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "f"), (2, 3))
    row = be.array([1, 2, 3], "i")
    for value, kind in ((True, "b"), (7, "i"), (2**63, "u"), (1.5, "f")):
        got = _vec_broadcast(xp, value, x, row)
        assert got.shape == (2, 3) and be.kind(got) == kind and be.values(got) == [value] * 6
    got = _vec_broadcast(xp, row, x)
    assert got.shape == (2, 3) and be.values(got) == [1, 2, 3, 1, 2, 3]
    assert _vec_broadcast(xp, row, row) is row
    assert _vec_broadcast(xp, 0.5).shape == ()
    assert _vec_broadcast(xp, 1.0, row, 3.0).shape == (3,)  # scalar params are shape ()
    with pytest.raises(OverflowError):
        _vec_broadcast(xp, 2**64, row)
    with pytest.raises(ValueError, match="broadcast"):
        _vec_broadcast(xp, 1.0, row, be.array([1.0, 2.0], "f"))


# --------------------------------------------------------------------------- elementwise


@backends
def test_elementwise_calls_fn_per_lane(be: Backend) -> None:
    xp, lib = be.xp, be.lib
    x = lib.reshape(be.array([1.5, -2.0, NAN, 4.0], "f"), (2, 2))
    n = be.array([1, 2], "i")
    seen = []

    def fn(a: Any, k: Any, c: Any) -> Any:
        seen.append((type(a), type(k), c))
        return a * k + c

    got = _vec_elementwise(xp, fn, x, n, 1)
    assert got.shape == (2, 2) and be.kind(got) == "f"
    assert all(map(same, be.values(got), [2.5, -3.0, NAN, 9.0]))
    assert set(seen) == {(float, int, 1)}
    assert be.kind(_vec_elementwise(xp, lambda a: a > 0, x)) == "b"
    got = _vec_elementwise(xp, lambda k: k * 2**62, n)
    assert be.kind(got) == "u" and be.values(got) == [2**62, 2**63]
    got = _vec_elementwise(xp, lambda b: b, be.array([True, False], "b"))
    assert be.kind(got) == "b" and be.values(got) == [True, False]
    got = _vec_elementwise(xp, lambda k: k if k > 1 else True, n)
    assert be.kind(got) == "i" and be.values(got) == [1, 2]
    assert _vec_elementwise(xp, lambda a: a, be.array([], "f")).shape == (0,)
    with pytest.raises(TypeError, match="NoneType"):
        _vec_elementwise(xp, lambda a: None, n)
    with pytest.raises(OverflowError):
        _vec_elementwise(xp, lambda k: -(k * 2**63), n)
    with pytest.raises(ZeroDivisionError):
        _vec_elementwise(xp, lambda k: 1 // (k - 1), n)


# --------------------------------------------------------------------------- registry and layering


def test_registry_binds_the_cores_contract() -> None:
    from array_vectorize import _core

    names = {key: name for key, (name, _) in RUNTIME_HELPERS.items()}
    assert names == {key: helper["name"] for key, helper in _core.RUNTIME_HELPERS.items()}
    assert all(callable(fn) and fn.__name__ == name for name, fn in RUNTIME_HELPERS.values())


def test_f64_lifts_python_scalars_to_float64_0d_values() -> None:
    f64 = RUNTIME_HELPERS["f64"][1]
    for value in (0.0, -0.0, 1.5, math.inf, math.nan, 3, True, 2**53 + 1):
        for xp in (array_api_compat.numpy, array_api_strict):
            got = f64(xp, value)
            assert got.dtype == xp.float64 and got.shape == ()
            got, want = float(got), float(value)
            if want != want:
                assert got != got
            else:
                assert got == want and math.copysign(1, got) == math.copysign(1, want)
    # NumPy gets a float64 scalar (what the float prologue makes of Python floats), which divides
    # by zero as a 0-d array does: IEEE values, not ZeroDivisionError.
    scalar = f64(array_api_compat.numpy, 1.0)
    assert type(scalar) is np.float64
    with np.errstate(divide="ignore"):
        assert scalar / 0 == math.inf


def test_bool0d_is_the_array_xp_asarray_makes() -> None:
    """The float body's bool lift (a loop's activity mask and done flag) is
    ``xp.asarray(value, dtype=xp.bool)`` on every namespace: on NumPy a fresh writeable 0-d bool
    ``ndarray`` (the loops update and test it as one), never a shared or read-only one."""
    bool0d = RUNTIME_HELPERS["bool0d"][1]
    for xp in (array_api_compat.numpy, array_api_strict):
        for value in (True, False, 1 > 2, np.True_, np.False_):
            got, want = bool0d(xp, value), xp.asarray(value, dtype=xp.bool)
            assert type(got) is type(want) and got.dtype == want.dtype == xp.bool
            assert got.shape == () and bool(got) is bool(want) is bool(value)
    first, second = bool0d(array_api_compat.numpy, True), bool0d(array_api_compat.numpy, True)
    assert first is not second and first.flags.writeable and first.base is None
    first[...] = False
    assert bool(second) and bool(bool0d(array_api_compat.numpy, True))


def test_loops_count_a_mask_with_numpys_own_count() -> None:
    """The masked loops' test (`_vec_any`, `_vec_while`) counts a NumPy mask's true lanes with the
    C function ``numpy.count_nonzero`` calls, without its dispatch: the same count."""
    from array_vectorize.runtime import loops

    count = loops._count_nonzero(np)
    assert type(count) is type(len)
    rng = np.random.default_rng(20261207)
    masks = [np.zeros(0, bool), np.zeros(10, bool), np.ones(10, bool), rng.uniform(size=(7, 5)) < 0.1,
             (rng.uniform(size=(64, 64)) < 0.5)[::3, 1::2], np.asarray(True), np.asarray(False)]
    for mask in masks:
        assert count(mask) == np.count_nonzero(mask)
        assert bool(loops._vec_any(array_api_compat.numpy, mask)) is bool(np.any(mask))


@pytest.mark.parametrize("op", ["gt", "lt"])
def test_pick_is_the_python_ternary_per_lane(op: str) -> None:
    """`a if a > b else b` (or `<`) exactly, signs of zero and NaNs included, whether `a` is a
    NumPy scalar (the one-pass path unless NaN or zero), a 0-d array or an array."""
    pick = RUNTIME_HELPERS["pick"][1]
    xp = array_api_compat.numpy
    values = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e300]
    b = np.array(values * len(values))
    for a_value in values:
        for a in (np.float64(a_value), np.asarray(a_value), np.full(b.shape, a_value)):
            got = pick(xp, op, a, b)
            assert got.shape == b.shape
            for lane, bv in enumerate(values * len(values)):
                want = a_value if (a_value > bv if op == "gt" else a_value < bv) else bv
                g = float(got[lane])
                assert (g != g and want != want) or (g == want and math.copysign(1, g) == math.copysign(1, want)), (
                    op, a_value, bv, g)
