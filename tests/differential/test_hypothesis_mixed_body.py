"""Hypothesis: the mixed body (issue 30) against the exact body, bit for bit, and against CPython,
on int64 and float64 arguments drawn from edge-heavy strategies (int64 extremes, negative dates,
huge, subnormal, NaN and infinite hours), arrays of one shape or a Python scalar broadcast
against them, and on the same calls evaluated in blocks (runtime/blocked.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from array_vectorize import vectorize
from array_vectorize.fuzz.inputs import FLOAT_EDGES, INT_EDGES
from behavior.numbers.test_mixed_body import FUNCTIONS, KINDS, _exact_only, _same
from behavior.runtime.test_blocked_evaluation import THRESHOLD, blocks, whole  # noqa: F401 - blocks is a fixture
from oracle import check

_INTS = st.one_of(st.sampled_from(INT_EDGES), st.integers(-5000, 5000), st.integers(-(2**63), 2**63 - 1))
_FLOATS = st.one_of(st.sampled_from(FLOAT_EDGES), st.floats(allow_nan=True, allow_infinity=True), st.floats(0.0, 24.0))


@st.composite
def mixed_args(draw, kinds):
    n = draw(st.integers(1, 40))
    args = []
    for kind in kinds:
        values = _INTS if kind == "i" else _FLOATS
        if args and draw(st.integers(0, 4)) == 0:
            args.append(draw(values))  # a Python scalar broadcast against the arrays
        else:
            args.append(np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.int64 if kind == "i" else np.float64))
    return args


_VECTORIZED = {name: vectorize(fn) for name, fn in FUNCTIONS.items()}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_mixed_body_is_the_exact_body_and_cpythons(name):
    vec = _VECTORIZED[name]

    @given(mixed_args(KINDS[name]))
    def run(args):
        got = vec(*args)
        _same(got, _exact_only(vec, args), name)
        check(vec, *args)

    run()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_blocked_mixed_calls_are_the_whole_calls(name, blocks):
    # Blocks of 7 from 20 elements on, in one thread or four: the blocked call against the same
    # call evaluated whole.
    vec = _VECTORIZED[name]

    @given(mixed_args(KINDS[name]))
    def compare(args):
        if max(np.size(a) for a in args) < THRESHOLD:
            args = [np.resize(a, 3 * THRESHOLD) if np.ndim(a) else a for a in args]
        _same(vec(*args), whole(vec, *args), name)

    compare()
    assert blocks, "no call ran in blocks"
