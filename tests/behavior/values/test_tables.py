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


def whole_divmod(x):
    return divmod(x, 7)


def test_divmod_returned_whole_is_a_tuple_result():
    days = np.array([-8, -1, 0, 1, 6, 7, 2**62], dtype=np.int64)
    q, r = vectorize(whole_divmod)(days)
    assert np.asarray(q).tolist() == [whole_divmod(int(d))[0] for d in days]
    assert np.asarray(r).tolist() == [whole_divmod(int(d))[1] for d in days]


def test_membership_in_a_tuple_of_per_element_values(backend):
    # D18: a display of per-element values is a local tuple: `x == y or x == 2.0` per element.
    def member(x, y):
        return x in (y, 2.0)

    check(vectorize(member), np.array([2.0, 1.0, np.nan, -0.0, 3.0]), np.array([1.0, 1.0, np.nan, 0.0, 4.0]), backend=backend)


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


# Lists and dicts of numbers (D15): frozen like tuples; a list's IndexError names `list`, a
# dict lookup per element is exact across bool, int and float keys and raises CPython's KeyError.
LIST_RATES = [0.0, 0.12, 0.25, 0.4]
ALLOWANCE = {1: 250.0, 2: 410.5, 3: 530.0, 5: 700.0}
MIXED_KEYS = {0: 10, 2.5: 20, True: 30, 2**53 + 1: 40, -7: -1}
BOOL_VALUES = {1: True, 2: False, 3: True}


def list_rate(k):
    return LIST_RATES[k]


def allowance(size):
    return ALLOWANCE[size]


def mixed_keys(key):
    return MIXED_KEYS[key]


def bool_values(key):
    return BOOL_VALUES[key]


def guarded_allowance(size):
    if size in ALLOWANCE:
        return ALLOWANCE[size] * 2.0
    return 0.0


def literal_list(k):
    return [3, 1, 4, 1, 5][k]


def literal_dict(code):
    return {10: 0.5, 20: 0.25, 30: 0.125}[code] if code > 0 else -1.0


def set_member(x):
    return x in {2, 3, 5, 7, 11}


def list_member(x):
    return x not in [0.5, 1.5]


def dict_member(x):
    return x in ALLOWANCE


def dict_closure(scale):
    factors = {1: scale, 2: scale * 2.0}

    def pick(k):
        return factors[k]

    return pick


def test_list_gather_matches_cpython(backend):
    check(vectorize(list_rate), np.array([0, 1, 3, -1, -4, 2], dtype=np.int64), backend=backend)
    check(vectorize(literal_list), np.array([0, 4, -5, -1, 2], dtype=np.int64), backend=backend)


def test_list_out_of_range_says_list(backend):
    with pytest.raises(IndexError) as info:
        vectorize(list_rate)(to_backend(np.array([0, 4], dtype=np.int64), backend))
    assert str(info.value) == "list index out of range"


@pytest.mark.parametrize(
    "fn, keys",
    [
        (allowance, np.array([1, 2, 3, 5, 1, 5], dtype=np.int64)),
        (allowance, np.array([1.0, 2.0, 5.0, -0.0 + 3.0])),
        (allowance, np.array([True, True])),
        (allowance, np.array([1, 5, 2], dtype=np.uint64)),
        (mixed_keys, np.array([0, 1, -7, 2**53 + 1], dtype=np.int64)),
        (mixed_keys, np.array([0.0, -0.0, 2.5, 1.0, -7.0])),
        (mixed_keys, np.array([True, False])),
        (bool_values, np.array([1, 2, 3, 3], dtype=np.int64)),
        (guarded_allowance, np.array([0, 1, 2, 4, 5, -(2**63), 2**63 - 1], dtype=np.int64)),
        (guarded_allowance, np.array([1.0, 1.5, np.nan, np.inf, 5.0])),
        (literal_dict, np.array([10, 20, 30, -5, 0, -(2**63)], dtype=np.int64)),
        (dict_closure(1.5), np.array([1, 2, 2], dtype=np.int64)),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_dict_lookup_matches_cpython(fn, keys, backend):
    check(vectorize(fn), keys, backend=backend)


@pytest.mark.parametrize(
    "fn, keys",
    [
        (allowance, np.array([1, 4, 7], dtype=np.int64)),
        (allowance, np.array([1.0, 2.5, np.nan])),
        (allowance, np.array([1.0, np.nan])),
        (allowance, np.array([2**64 - 1], dtype=np.uint64)),
        (mixed_keys, np.array([0, 2**53], dtype=np.int64)),
        (literal_dict, np.array([10, 15], dtype=np.int64)),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_missing_key_raises_cpythons_key_error(fn, keys, backend):
    with pytest.raises(KeyError) as cpython:
        for k in keys.reshape(-1).tolist():
            fn(k)
    with pytest.raises(KeyError) as info:
        fn_vec = vectorize(fn)
        fn_vec(to_backend(keys, backend))
    # repr: a NaN key is a different object on each side, so == would not hold.
    assert repr(info.value.args) == repr(cpython.value.args)
    assert type(info.value.args[0]) is type(cpython.value.args[0])


def test_membership_in_set_list_and_dict_displays(backend):
    check(vectorize(set_member), np.array([-2, 0, 2, 3, 4, 11, 12, 2**62], dtype=np.int64), backend=backend)
    check(vectorize(set_member), np.array([2.0, 2.5, np.nan, 7.0, -0.0]), backend=backend)
    check(vectorize(list_member), np.array([0.5, 1.0, 1.5, np.nan, -0.5]), backend=backend)
    check(vectorize(dict_member), np.array([0, 1, 4, 5, 6], dtype=np.int64), backend=backend)


def test_an_empty_dict_and_a_set_display_outside_in_are_rejected():
    def empty(k):
        return {}[k]

    def set_length(k):
        return k + len({1, 2, 2})

    with pytest.raises(VectorizationError, match="empty dict"):
        vectorize(empty)
    with pytest.raises(VectorizationError, match="set display is supported only"):
        vectorize(set_length)


def test_a_constant_missing_key_is_rejected():
    def missing(x):
        return x * ALLOWANCE[4]

    with pytest.raises(VectorizationError, match="KeyError"):
        vectorize(missing)


def test_a_mutated_list_is_frozen_at_decoration():
    table = [1.0, 2.0]

    def pick(k):
        return table[k]

    vec = vectorize(pick)
    table[0] = 100.0
    assert to_numpy_list(vec(np.array([0, 1]))) == [1.0, 2.0]


def to_numpy_list(a):
    return np.asarray(a).tolist()


LIST_DICT_MODULE = '''\
from array_vectorize import vectorize

BRACKETS = [0.0, 0.1, 0.2]
CHILD = {0: 0.0, 1: 120.0, 2: 230.0, 3.0: 330.0, True: 125.0}
BANDS = [2, 5]


@vectorize
def benefit(income, children):
    band = int(income // 20000.0)
    if band > 2:
        band = 2
    if band < 0 or children in BANDS:
        return 0.0
    return income * BRACKETS[band] + CHILD[children if children < 3 else 3]


COEFFS = (1.0, -0.5, 0.25)


@vectorize
def flagged_poly(x, flags):
    """Bit flags, a comprehension over a table and len, with a block comment."""
    "The second string is a block comment."
    scale = len(COEFFS) if flags & 0x4 != 0 else 1
    return scale * sum(c * x**k for k, c in enumerate(COEFFS)) + (flags >> 1 ^ ~flags)
'''


def test_static_compile_gives_the_decorators_source_for_lists_dicts_bits_and_reductions(tmp_path, monkeypatch):
    import importlib

    from array_vectorize import _core

    path = tmp_path / "list_dict_module.py"
    path.write_text(LIST_DICT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("list_dict_module")
    static = {e["qualname"]: e for e in _core.compile_module(LIST_DICT_MODULE, str(path))}
    for name in ("benefit", "flagged_poly"):
        assert static[name]["status"] == "ok", static[name]
        assert static[name]["source"] == getattr(module, name).source
    assert "_vec_lookup(" in module.benefit.source and '"list"' in module.benefit.source
    check(module.benefit, np.array([-1.0, 5000.0, 25000.0, 1e6]), np.array([0, 1, 3, 9]))
    check(module.flagged_poly, np.array([-1.5, 0.0, 2.0, np.nan]), np.array([0, 4, 7, -5]))
