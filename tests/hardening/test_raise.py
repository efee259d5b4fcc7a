"""A branch that ends in `raise` (unsupported) is reported for the `raise` alone: the lanes that
reach it leave the function, so no missing return or possibly undefined name follows from it."""

from __future__ import annotations

import textwrap

import pytest

from array_vectorize import VectorizationError, vectorize
from sourcefile import from_source

RAISING = [
    # (source, line and column of the `raise`)
    (
        """
        def tariff(x):
            if x > 0.0:
                return 1.0
            else:
                raise ValueError("negative")
        """,
        (5, 9),
    ),
    (
        """
        def tariff(x):
            if x > 0.0:
                phi = 1.0
            elif x < -1.0:
                phi = 2.0
            else:
                raise ValueError("negative")
            return phi * x
        """,
        (7, 9),
    ),
    (
        """
        def tariff(x):
            raise ValueError("unsupported")
        """,
        (2, 5),
    ),
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
]


@pytest.mark.parametrize("source,position", RAISING)
def test_a_raise_is_the_only_diagnostic(source, position):
    fn = from_source(textwrap.dedent(source).lstrip())
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    found = [(d["code"], d["line"], d["col"]) for d in info.value.diagnostics]
    assert found == [("unsupported-statement", *position)], found
    assert "`raise` is not supported" in info.value.diagnostics[0]["message"]
