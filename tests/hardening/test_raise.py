"""A branch that ends in a `raise` the compiler rejects (inside a loop, D11) is reported for the
`raise` alone: the lanes that reach it leave the function, so no missing return or possibly
undefined name follows from it."""

from __future__ import annotations

import textwrap

import pytest

from array_vectorize import VectorizationError, vectorize
from sourcefile import from_source

RAISING = [
    # (source, line and column of the `raise`). Raises outside loops compile (D11,
    # tests/behavior/test_raise_per_lane.py); inside loops they are rejected, alone.
    (
        """
        def tariff(x):
            for i in range(3):
                if x > i:
                    raise ValueError("too large")
                x = x + 1.0
            return x
        """,
        (4, 13),
    ),
    (
        """
        def tariff(x):
            n = 0
            while x > 1.0:
                if x > 1e9:
                    phi = 2.0
                else:
                    raise ValueError("too large")
                x = x / phi
                n += 1
            return n
        """,
        (7, 13),
    ),
]


@pytest.mark.parametrize("source,position", RAISING)
def test_a_raise_is_the_only_diagnostic(source, position):
    fn = from_source(textwrap.dedent(source).lstrip())
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    found = [(d["code"], d["line"], d["col"]) for d in info.value.diagnostics]
    assert found == [("unsupported-statement", *position)], found
    assert "`raise` and `assert` inside a loop" in info.value.diagnostics[0]["message"]
