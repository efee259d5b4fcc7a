"""Reductions over constant tables (D15): sum/min/max/any/all of generator expressions and list
comprehensions over constant tables, range, zip and enumerate, unrolled; `len` of a constant
table. CPython is the oracle, on edge values, on every backend."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats, grid, ints

COEFFS = (1.0, -0.5, 0.25, -0.125, 0.0625)
WEIGHTS = [0.2, 0.3, 0.5]
NODES = (-1.0, 0.0, 2.5)
LIMITS = {1: 10.0, 2: 20.0, 3: -5.0}
INT_COEFFS = (3, -2, 7)
FLAGS = (True, False, True)


def horner_free(x):
    return sum(c * x**k for k, c in enumerate(COEFFS))


def weighted(x):
    return sum(w * (x - n) ** 2 for w, n in zip(WEIGHTS, NODES))


def int_poly(n):
    return sum(c * n**k for k, c in enumerate(INT_COEFFS, 1))


def count_flags(x):
    return sum(f for f in FLAGS) + x


def above_nodes(x):
    return sum(1 for n in NODES if x > n)


def masked_sum(x):
    return sum(x * w for w in WEIGHTS if x < w)


def min_distance(x):
    return min(abs(x - n) for n in NODES)


def max_limit(x):
    return max([x * LIMITS[k] for k in LIMITS])


def any_over(x):
    return any(x > n for n in NODES)


def all_under(x):
    return all(x < LIMITS[k] for k in LIMITS)


def any_filtered(x):
    return any(x == n for n in NODES if n != 0.0)


def nested(x):
    return sum(a * b * x for a in (1, 2) for b in range(3) if a != b)


def table_len(k):
    return k % len(WEIGHTS) + len(LIMITS) + len([1, 2])


def min_of_table(x):
    return x * min(COEFFS) + max(INT_COEFFS)


def negative_zero_sum(x):
    # CPython's sum starts from the int 0: sum of (-0.0,) is 0.0.
    return sum(x * 0.0 for _ in range(2))


def range_sum(n):
    return sum(k * n for k in range(1, 6, 2))


FLOATS = np.concatenate([floats(10), np.array([-1.0, 0.0, 2.5, -0.0, 10.0, 20.0])])


@pytest.mark.parametrize(
    "fn",
    [
        horner_free,
        weighted,
        count_flags,
        above_nodes,
        masked_sum,
        min_distance,
        max_limit,
        any_over,
        all_under,
        any_filtered,
        nested,
        min_of_table,
        negative_zero_sum,
    ],
    ids=lambda f: f.__name__,
)
def test_float_reductions_match_cpython(fn, backend):
    check(vectorize(fn), FLOATS, backend=backend)


@pytest.mark.parametrize("fn", [int_poly, table_len, range_sum, count_flags], ids=lambda f: f.__name__)
def test_int_reductions_match_cpython(fn, backend):
    check(vectorize(fn), ints(10), backend=backend)


def test_reductions_are_unrolled_in_the_source():
    source = vectorize(horner_free).source
    assert "for " not in source.split("def _vec_exact")[0], source


def test_an_empty_min_and_a_lane_filtered_max_are_rejected():
    def empty(x):
        return x + min(v for v in COEFFS if v > 10.0)

    def filtered(x):
        return max(v for v in COEFFS if v > x)

    with pytest.raises(VectorizationError, match="empty sequence"):
        vectorize(empty)
    with pytest.raises(VectorizationError, match="filter depends"):
        vectorize(filtered)


def test_a_comprehension_over_a_parameter_reads_it_as_a_sequence_given_per_call():
    """A number cannot be iterated: a parameter a comprehension runs over is a tuple or list
    given per call (D14, docs/semantics.md item 47), and an array passed for it is a TypeError
    naming it (CPython: `'float' object is not iterable`)."""

    def over_array(x):
        return sum(v for v in x)

    with pytest.raises(TypeError, match="is an array"):
        vectorize(over_array)(np.array([1.0, 2.0]))


def test_a_comprehension_indexed_is_a_local_list(backend):
    # D18: a list comprehension that is not reduced makes a list of per-element values.
    def listed(x):
        return [x * w for w in WEIGHTS][0]

    check(vectorize(listed), np.array([0.0, -0.0, 1.5, np.nan, np.inf]), backend=backend)


def test_len_of_a_parameter_reads_it_as_a_sequence_given_per_call():
    def length(x):
        return len(x)

    with pytest.raises(TypeError, match="is an array"):
        vectorize(length)(np.array([1.0, 2.0]))
