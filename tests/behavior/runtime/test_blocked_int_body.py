"""Cache-blocked evaluation of the int body (issue 30): a large call whose arguments are all int64
NumPy arrays (or Python ints within int64) runs in blocks when the function's int body is
lane-wise: it calls only `xp` functions and the helpers of `blocked.LANEWISE_INT_CALLS`, so each
lane is computed from that lane alone, with kinds fixed at compile time. Every blocked call here
is compared with CPython and, bit for bit, with the same call evaluated whole; int bodies that
call another helper (`_vec_binary`, whose uint64 lattice decides over the whole array) and calls
of other argument types are never blocked."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import blocked
from behavior.numbers.test_int_body import CUM_DAYS, FUNCTIONS, _columns
from behavior.runtime.test_blocked_evaluation import _raised, assert_bitwise, blocks, slow_low_blocks, whole  # noqa: F401
from oracle import check

#: Int bodies of test_int_body.py that are lane-wise, and ones that call `_vec_binary`.
LANEWISE = {"leap", "remainders", "by_constants", "by_bounded_divisor", "digits", "day_number", "bits", "month_of", "tables"}
NOT_LANEWISE = {"by_zero_or_minus_one", "shifts_out_of_range"}


def _dispatch(vec):
    (dispatch,) = [v for v in vec.__globals__.values() if type(v) is blocked.Dispatch]
    return dispatch


def _parts(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_int_bodies_in_blocks_give_cpythons_values_and_the_whole_calls_bits(name, blocks):
    vec = vectorize(FUNCTIONS[name])
    cols = _columns(FUNCTIONS[name])
    got = check(vec, *cols)
    for g, w in zip(_parts(got), _parts(whole(vec, *cols))):
        assert_bitwise(g, w)
    lanewise = blocked.int_body_is_lanewise(*_dispatch(vec).exact_text)
    assert bool(blocks) == lanewise, (name, blocks)
    if name in LANEWISE | NOT_LANEWISE:
        assert lanewise == (name in LANEWISE), vec.source
    # A 2-d call and one with a Python int beside the arrays are blocked alike.
    grid = [c.reshape(2, -1) for c in cols]
    for g, w in zip(_parts(vec(*grid)), _parts(whole(vec, *grid))):
        assert_bitwise(g, w)
    if len(cols) > 1 and name != "day_number":
        args = [cols[0], *([7] * (len(cols) - 1))]
        for g, w in zip(_parts(check(vec, *args)), _parts(whole(vec, *args))):
            assert_bitwise(g, w)


def test_other_argument_types_run_whole(blocks):
    vec = vectorize(FUNCTIONS["leap"])
    n = np.arange(-60, 60, dtype=np.int64)
    for arg in (n.astype(np.int32), n.astype(np.uint64), n.astype(np.float64) > 0):
        assert_bitwise(check(vec, arg), whole(vec, arg))
    assert not blocks
    vec(n)
    assert blocks == ["leap"]


def day_in_year(m, d):
    return CUM_DAYS[m - 1] + d


def test_a_table_error_in_a_block_names_the_whole_calls_element(blocks, slow_low_blocks):
    vec = vectorize(day_in_year)
    m = np.full(90, 3, dtype=np.int64)
    m[61] = 13
    m[75] = 0  # `CUM_DAYS[-1]`: a valid index
    d = np.arange(90, dtype=np.int64)
    got = _raised(vec, m, d)
    assert got == _raised(whole, vec, m, d)
    assert got[0] is IndexError and "element 61 (C order)" in got[2][0], got
    assert 56 in slow_low_blocks, "the call was not blocked"
