"""Constant tables indexed per element (D15), against CPython as the oracle, on every backend.

A tuple of numbers (literal, module global, closure, default) indexed by an int array is a
gather: Python's negative indices hold, and an index outside the table on a lane the scalar
function reaches raises CPython's IndexError at call time.
"""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, to_backend

RATES = (0.0, 0.1, 0.2, 0.3, 0.45)
FLAGS = (True, False, True)
MIXED = (1, 2.5, True)
STEPS = (-3, 0, 7, 2**62, -(2**63))
WIDE = (0, 2**63, 2**64 - 1)


def rate(bracket):
    return RATES[bracket]


def rate_from_end(k):
    return RATES[-1 - k]


def flag(k):
    return FLAGS[k]


def mixed(k):
    return MIXED[k] * 2


def step(k):
    return STEPS[k]


def wide(k):
    return WIDE[k]


def literal_table(k):
    return (10, 20, 30)[k] + 1


def guarded(k):
    # The lanes outside [0, 5) never index the table: no IndexError for them.
    if 0 <= k < 5:
        return RATES[k] * 100.0
    return -1.0


def guarded_ternary(k):
    return RATES[k] if -5 <= k < 5 else 0.0


def computed_index(income):
    bracket = int(income // 10000.0)
    if bracket > 4:
        bracket = 4
    if bracket < 0:
        bracket = 0
    return income * RATES[bracket]


def by_bool(x):
    return (1.5, -2.0)[x > 0.0]


def closure_table(scale):
    table = (scale, scale * 2.0, scale * 3.0)

    def pick(k):
        return table[k]

    return pick


IN_RANGE = np.array([0, 1, 2, 3, 4, -1, -2, -5, 4, 0], dtype=np.int64)


@pytest.mark.parametrize(
    "fn, idx",
    [
        (rate, IN_RANGE),
        (rate_from_end, np.array([0, 1, 4, -1, -5, 3], dtype=np.int64)),
        (flag, np.array([0, 1, 2, -1, -3], dtype=np.int64)),
        (mixed, np.array([0, 1, 2, -2], dtype=np.int64)),
        (step, np.array([0, 1, 2, 3, 4, -1, -5], dtype=np.int64)),
        (wide, np.array([0, 1, 2, -1, -3], dtype=np.int64)),
        (literal_table, np.array([0, 1, 2, -3], dtype=np.int64)),
        (guarded, np.array([-(2**63), -6, -1, 0, 4, 5, 2**63 - 1], dtype=np.int64)),
        (guarded_ternary, np.array([-(2**63), -6, -5, -1, 0, 4, 5, 2**63 - 1], dtype=np.int64)),
        (closure_table(1.5), np.array([0, 2, -1, -3], dtype=np.int64)),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_gather_matches_cpython(fn, idx, backend):
    check(vectorize(fn), idx, backend=backend)


def test_gather_of_a_computed_index(backend):
    incomes = np.array([-5.0, 0.0, 9999.99, 10000.0, 25000.0, 49999.0, 50000.0, 1e9, -0.0])
    check(vectorize(computed_index), incomes, backend=backend)


def test_gather_by_a_bool_index(backend):
    check(vectorize(by_bool), np.array([-1.0, 0.0, 2.0, np.nan, -0.0, np.inf]), backend=backend)


def test_bool_and_uint64_index_arrays(backend):
    vec = vectorize(rate)
    check(vec, np.array([True, False]), backend=backend)
    check(vec, np.array([0, 4, 3], dtype=np.uint64), backend=backend)


def test_gather_keeps_the_index_shape(backend):
    idx = np.array([[0, 1, 2], [-1, -2, -3]], dtype=np.int64)
    check(vectorize(rate), idx, backend=backend)
    check(vectorize(rate), np.array(3, dtype=np.int64), backend=backend)


@pytest.mark.parametrize(
    "idx, first",
    [
        (np.array([0, 5, 1], dtype=np.int64), "element 1 (C order), index 5"),
        (np.array([0, 1, -6, 9], dtype=np.int64), "element 2 (C order), index -6"),
        (np.array([[0, 1], [2, 2**63 - 1]], dtype=np.int64), "element 3 (C order), index 9223372036854775807"),
        (np.array([-(2**63)], dtype=np.int64), "element 0 (C order), index -9223372036854775808"),
        (np.array([2, 2**64 - 1], dtype=np.uint64), "element 1 (C order), index 18446744073709551615"),
    ],
)
def test_out_of_range_raises_cpythons_index_error(idx, first, backend):
    vec = vectorize(rate)
    with pytest.raises(IndexError) as cpython:
        for i in idx.reshape(-1).tolist():
            rate(i)
    with pytest.raises(IndexError) as info:
        vec(to_backend(idx, backend))
    assert str(info.value) == str(cpython.value)
    assert any(first in note for note in getattr(info.value, "__notes__", [])), info.value.__notes__


def test_index_equal_to_len_raises():
    with pytest.raises(IndexError, match="tuple index out of range"):
        vectorize(rate)(np.array([len(RATES)], dtype=np.int64))


def test_a_float_index_raises_cpythons_type_error(backend):
    vec = vectorize(rate)
    with pytest.raises(TypeError) as cpython:
        rate(1.0)
    with pytest.raises(TypeError) as info:
        vec(to_backend(np.array([1.0, 2.0]), backend))
    assert str(info.value) == str(cpython.value)


def test_a_known_float_index_is_rejected_at_compile_time():
    def by_float(x):
        return RATES[x * 0.5]

    with pytest.raises(VectorizationError, match="integer"):
        vectorize(by_float)


def test_an_empty_table_is_rejected():
    def empty(k):
        return ()[k]

    with pytest.raises(VectorizationError, match="empty"):
        vectorize(empty)


def test_the_table_is_one_gather_in_the_source():
    source = vectorize(rate).source
    assert "_vec_take(" in source and '"tuple"' in source, source


HOLIDAYS = (0, 6, 359)
LEVELS = (0.5, 1, True)


def is_weekend(day):
    return day % 7 in (5, 6)


def not_holiday(day):
    return day not in HOLIDAYS


def level_member(x):
    return x in LEVELS


def chained(x):
    return 0 < x in (1, 2, 3.0)


def weekday_and_week(days):
    weeks, day = divmod(days + 3, 7)
    return day * 100 + weeks % 7


def divmod_items(x, y):
    return divmod(x, y)[1] - divmod(x, y)[-2]


def test_membership_matches_cpython(backend):
    days = np.array([-8, -1, 0, 1, 5, 6, 7, 12, 13, 359, 2**62, -(2**63)], dtype=np.int64)
    check(vectorize(is_weekend), days, backend=backend)
    check(vectorize(not_holiday), days, backend=backend)
    values = np.array([0.5, 1.0, -0.0, 0.0, np.nan, np.inf, 2.0, 1.5])
    check(vectorize(level_member), values, backend=backend)
    check(vectorize(level_member), np.array([0, 1, 2, -1], dtype=np.int64), backend=backend)
    check(vectorize(level_member), np.array([True, False]), backend=backend)
    check(vectorize(chained), np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 3.5, np.nan]), backend=backend)


def test_divmod_unpacked_and_indexed_matches_cpython(backend):
    days = np.array([-8, -1, 0, 1, 6, 7, 2**62, -(2**62)], dtype=np.int64)
    check(vectorize(weekday_and_week), days, backend=backend)
    x = np.array([-7.5, -1.0, -0.0, 0.0, 2.5, 1e300, np.inf, np.nan])
    check(vectorize(divmod_items), *np.meshgrid(x, np.array([2.5, -3.0, 0.5]), indexing="ij"), backend=backend)
    n = np.array([-9, -1, 0, 1, 9, 2**62], dtype=np.int64)
    check(vectorize(divmod_items), *np.meshgrid(n, np.array([7, -7, 2]), indexing="ij"), backend=backend)


def test_divmod_as_a_value_is_rejected_with_a_hint():
    def whole(x):
        return divmod(x, 7)

    with pytest.raises(VectorizationError, match="unpack it"):
        vectorize(whole)


def test_membership_in_a_non_constant_is_rejected():
    def member(x, y):
        return x in (y, 2.0)

    with pytest.raises(VectorizationError, match="constants"):
        vectorize(member)


TABLE_MODULE = '''\
from array_vectorize import vectorize

RATES = (0.0, 0.1, 0.2, 0.45)
EXEMPT = (2, 5)


@vectorize
def tax(income, status):
    bracket = int(income // 10000.0)
    if bracket > 3:
        bracket = 3
    if bracket < 0 or status in EXEMPT:
        return 0.0
    weeks, days = divmod(status, 7)
    return income * RATES[bracket] + (weeks - days) * 0.0
'''


def test_static_compile_gives_the_decorators_source_for_a_module_table(tmp_path, monkeypatch):
    """The import hook and the build backend compile from module text (`compile_module`); the
    decorator from the live function: the generated source is byte-identical."""
    import importlib

    from array_vectorize import _core

    path = tmp_path / "table_module.py"
    path.write_text(TABLE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("table_module")
    static = {e["qualname"]: e for e in _core.compile_module(TABLE_MODULE, str(path))}
    assert static["tax"]["source"] == module.tax.source
    assert "_vec_take(" in module.tax.source
    check(module.tax, np.array([-1.0, 5000.0, 25000.0, 1e6]), np.array([0, 2, 5, 9]))
