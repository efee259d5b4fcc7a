"""A branch that ends in `raise` ends its lanes' path (D11): no missing return or possibly
undefined name follows from it, so each function below compiles (it was once rejected with one
diagnostic, the `raise`, when raise was unsupported) and raises as CPython's element loop does."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check_raising
from sourcefile import from_source

RAISING = [
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
]


@pytest.mark.parametrize("backend", ["numpy", "strict"])
@pytest.mark.parametrize("source", RAISING)
def test_a_branch_ending_in_raise_leaves_no_undefined_name(source, backend):
    fn = from_source(textwrap.dedent(source).lstrip())
    vec = vectorize(fn)
    x = np.array([2.5, 0.0, -0.0, -0.5, -1.0, -3.0, np.inf, -np.inf, np.nan, 5e-324])
    for lanes in (x, x[:2], x[4:], x[1:2]):
        check_raising(vec, lanes, backend=backend)
