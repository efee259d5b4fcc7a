"""Operands Python evaluates on some elements only (the right of `and`/`or`, the tail of a
comparison chain, a ternary's sides): a helper's raise there (D11), a recursion's residue (D19)
and a call run element by element (D23) hold on the elements that evaluate them, as in CPython's
element loop. Before, a helper raising in the right operand of `and` raised for every element
(found by the fuzzer once recursive helpers could raise: seed 202 #28)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from array_vectorize import vectorize
from oracle import check_raising, floats


def checked(v):
    if v < 5.0:
        raise ValueError(f"{v} below the table")
    return v * 2.0


def in_and(x):
    return x > 10.0 and checked(x) > 30.0


def in_or(x):
    return x <= 10.0 or checked(x) > 30.0


def in_chain(x):
    return 10.0 < x < checked(x)


def in_ternary(x):
    return checked(x) if x > 10.0 else -1.0


def countdown_raising(a, n):
    if not (0.0 < n <= 12.0):
        return a
    if a < -3.0:
        raise ValueError(f"a={a}")
    return 1.0 + countdown_raising(a, n - 1)


def recursion_in_and(x, n):
    return x > 0.0 and countdown_raising(-x, n) > 2.0


def tail_in_and(x, sigma):
    return sigma > 0.0 and NormalDist(0.0, sigma).cdf(x) > 0.5


def test_a_helpers_raise_holds_where_the_operand_is_evaluated(backend):
    column = np.concatenate([floats(20), np.array([2.0, 11.0, 12.0, 4.0])])
    for fn in (in_and, in_or, in_chain, in_ternary):
        check_raising(vectorize(fn), column, backend=backend)
        check_raising(vectorize(fn), np.array([-1.0, 2.0, 11.0]), backend=backend)


def test_a_residue_holds_where_the_operand_is_evaluated(backend):
    x = np.array([-5.0, 1.0, 4.0, 2.0])
    n = np.array([12, 3, 11, 12])
    check_raising(vectorize(recursion_in_and), x, n, backend=backend)
    check_raising(vectorize(recursion_in_and), x[:2], n[:2], backend=backend)


def test_a_call_site_runs_where_the_operand_is_evaluated(backend):
    vec = vectorize(tail_in_and, fallback="calls")
    check_raising(vec, np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.0, -2.0]), backend=backend)
