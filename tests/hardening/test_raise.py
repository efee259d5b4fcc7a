"""A branch that ends in `raise` ends its lanes' path (D11): no missing return or possibly
undefined name follows from it. Outside loops such functions compile and raise as CPython's
element loop does, inside loops too; inside a loop inside a `try` body, where `raise` is
rejected, the `raise` is the only diagnostic."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check_raising
from sourcefile import from_source

COMPILING = [
    """
        def tariff(x):
            if x > 0.0:
                return 1.0
            else:
                raise ValueError("negative")
        """,
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
    """
        def tariff(x):
            raise ValueError("unsupported")
        """,
    """
        def tariff(x):
            for i in range(3):
                if x > i:
                    raise ValueError("too large")
                x = x + 1.0
            return x
        """,
    """
        def tariff(x):
            n = 0
            while x > 1.0 and n < 50:
                if x > 1e9:
                    phi = 2.0
                else:
                    raise ValueError("too large")
                x = x / phi
                n += 1
            return n
        """,
]


REJECTED = [
    # (source, line and column of the `raise`). Raises compile inside loops too (D11,
    # tests/behavior/exceptions/test_raise_in_loops.py); inside a loop inside a `try` body they are
    # rejected, alone.
    (
        """
        def tariff(x):
            try:
                for i in range(3):
                    if x > i:
                        raise ValueError("too large")
                    x = x + 1.0
            except ValueError:
                x = 0.0
            return x
        """,
        (5, 17),
    ),
    (
        """
        def tariff(x):
            n = 0
            try:
                while x > 1.0:
                    if x > 1e9:
                        phi = 2.0
                    else:
                        raise ValueError("too large")
                    x = x / phi
                    n += 1
            except ValueError:
                n = -1
            return n
        """,
        (8, 17),
    ),
]


@pytest.mark.parametrize("backend", ["numpy", "strict"])
@pytest.mark.parametrize("source", COMPILING)
def test_a_branch_ending_in_raise_leaves_no_undefined_name(source, backend):
    fn = from_source(textwrap.dedent(source).lstrip())
    vec = vectorize(fn)
    x = np.array([2.5, 0.0, -0.0, -0.5, -1.0, -3.0, np.inf, -np.inf, np.nan, 5e-324])
    for lanes in (x, x[:2], x[4:], x[1:2]):
        check_raising(vec, lanes, backend=backend)


@pytest.mark.parametrize("source,position", REJECTED)
def test_a_raise_is_the_only_diagnostic(source, position):
    fn = from_source(textwrap.dedent(source).lstrip())
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    found = [(d["code"], d["line"], d["col"]) for d in info.value.diagnostics]
    assert found == [("unsupported-statement", *position)], found
    assert "a raise inside a loop (`for` or `while`) or an `if` on a uniform value" in info.value.diagnostics[0]["message"]
