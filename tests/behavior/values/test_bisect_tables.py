"""`bisect.bisect_left` / `bisect_right` on a constant sorted table (D15), against CPython's
`bisect` as the oracle, on every backend: edge keys (NaN, -0.0, ±inf, int extremes) included.

CPython's search compares with `<` only, so a NaN key lands at 0 (left) or `len` (right); the
vectorized count of comparisons gives the same, and compares ints with floats exactly.
"""

from __future__ import annotations

import bisect
import math
from bisect import bisect_left, bisect_right

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BOOL_EDGES, check, floats, ints, uints

# Tax bands: income up to 10,000 untaxed, then 20% / 40% / 45%.
BANDS = (10_000.0, 40_000.0, 125_000.0)
BAND_RATES = (0.0, 0.2, 0.4, 0.45)
# Ints with a repeat and one beyond 2**53 (a float key compares with it exactly).
CUTS = [0, 5, 5, 9, 2**53 + 1]
SIGNED_ZEROS = (-1.0, -0.0, 0.0, 1.0)
MIXED = (False, 1, 1.5, 2, 2**62)


def marginal_rate(income):
    return BAND_RATES[bisect.bisect_right(BANDS, income)]


def band_left(income):
    return bisect.bisect_left(BANDS, income)


def cut_right(x):
    return bisect_right(CUTS, x)


def cut_left(x):
    return bisect_left(CUTS, x)


def cut_window(x):
    return bisect.bisect_left(CUTS, x, 1, 4)


def cut_keywords(x):
    return bisect_right(CUTS, x, lo=2, hi=None)


def zeros_left(x):
    return bisect_left(SIGNED_ZEROS, x)


def zeros_right(x):
    return bisect.bisect(SIGNED_ZEROS, x)


def mixed_kinds(x):
    return bisect_right(MIXED, x) - bisect_left(MIXED, x)


def literal_table(x):
    return bisect.bisect_right((1, 2.5, 2.5, 4.0), x) * 2


def graduated_tax(income):
    # Tax owed over the bands below the income: a bracket lookup, then the rate of that band.
    k = bisect.bisect_right(BANDS, income)
    lower = (0.0, 10_000.0, 40_000.0, 125_000.0)[k]
    base = (0.0, 0.0, 6_000.0, 56_000.0)[k]
    return base + (income - lower) * BAND_RATES[k] if income > 0.0 else 0.0


def empty_window(x):
    return bisect_left(CUTS, x, 3, 3) + bisect_right(CUTS, x, 4, 2)


FUNCTIONS = [marginal_rate, band_left, cut_right, cut_left, cut_window, cut_keywords, zeros_left, zeros_right,
             mixed_kinds, literal_table, graduated_tax, empty_window]
MONEY = np.concatenate([floats(), np.array([10_000.0, 40_000.0, 125_000.0, np.nextafter(10_000.0, 0), 2.0**53 + 1,
                                            9.5, 5.0, 1.5, 2.0**62])])


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_bisect_matches_cpython_on_floats(fn, backend):
    check(vectorize(fn), MONEY, backend=backend)


@pytest.mark.parametrize("fn", [cut_right, cut_left, cut_window, cut_keywords, mixed_kinds, literal_table,
                                zeros_left, band_left, empty_window], ids=lambda f: f.__name__)
def test_bisect_matches_cpython_on_ints_bools_and_uints(fn, backend):
    edges = np.concatenate([ints(), np.array([5, 9, 2**53, 2**53 + 1, 2**53 + 2, 2**62], dtype=np.int64)])
    check(vectorize(fn), edges, backend=backend)
    check(vectorize(fn), np.array(BOOL_EDGES), backend=backend)
    check(vectorize(fn), uints(), backend=backend)


def test_a_nan_key_lands_where_cpythons_search_does():
    # Computed, not assumed: CPython's `<` is false for NaN on every probe.
    nan = float("nan")
    assert (bisect_left(SIGNED_ZEROS, nan), bisect_right(SIGNED_ZEROS, nan)) == (0, 4)
    got = vectorize(zeros_left)(np.array([nan])), vectorize(zeros_right)(np.array([nan]))
    assert [int(g[0]) for g in got] == [0, 4]


def test_a_python_scalar_key_gives_cpythons_int():
    assert vectorize(cut_right)(5) == cut_right(5)
    assert vectorize(marginal_rate)(50_000.0) == 0.4


def test_the_search_is_frozen_into_comparisons_with_the_bands():
    src = vectorize(marginal_rate).source
    assert "bisect" not in src.replace("def marginal_rate", "") and "125000.0" in src, src


def unsorted_bands(x):
    return bisect.bisect_right((1.0, 3.0, 2.0), x)


def nan_in_table(x):
    return bisect_left((0.0, math.nan), x)


def with_key(x):
    return bisect_left(CUTS, x, key=abs)


def lo_out_of_range(x):
    return bisect_left(CUTS, x, 7)


def lo_per_lane(x, lo):
    return bisect_left(CUTS, x, lo)


def insort_call(x):
    return bisect.insort(CUTS, x)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (unsorted_bands, r"not sorted: index 2 \(2.0\) is below index 1 \(3.0\)"),
        (nan_in_table, "NaN at index 1"),
        (with_key, r"key=\.\.\.\) is not supported"),
        (lo_out_of_range, "`lo` must be a constant int from 0 to the table's length"),
        (lo_per_lane, "`lo` must be a constant int"),
        (insort_call, "only `bisect_left`, `bisect_right` and `bisect`"),
    ],
    ids=lambda v: getattr(v, "__name__", "msg"),
)
def test_what_cannot_be_exact_is_rejected_at_its_position(fn, message):
    with pytest.raises(VectorizationError, match=message) as info:
        vectorize(fn)
    line = fn.__code__.co_firstlineno + 1
    assert any(d["line"] == line for d in info.value.diagnostics), info.value.diagnostics


def single_band(x):
    return bisect_right((0.0,), x)


def test_a_one_item_table_still_gives_an_int(backend):
    check(vectorize(single_band), floats(), backend=backend)
    check(vectorize(single_band), np.array(BOOL_EDGES), backend=backend)
