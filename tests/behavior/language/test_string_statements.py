"""A string literal used as a statement (a block comment) is ignored anywhere in the body."""

from __future__ import annotations

import numpy as np

from array_vectorize import vectorize
from oracle import check, floats


def commented(x, y):
    """Docstring."""
    """A second string: a block comment, not a docstring."""
    if x > y:
        """Inside an if."""
        z = x - y
    else:
        '''Inside the else.'''
        z = y - x
    for k in range(2):
        "Inside a loop."
        z = z + k
    return z


def helper_with_comment(v):
    "Doc."
    "Another."
    return v * 2.0


def calls_helper(x):
    "Calls a helper whose body has string statements."
    return helper_with_comment(x) + 1.0


def test_block_comments_are_ignored(backend):
    check(vectorize(commented), *np.meshgrid(floats(5), floats(5)), backend=backend)
    check(vectorize(calls_helper), floats(), backend=backend)


def test_an_f_string_statement_is_still_rejected():
    import pytest

    from array_vectorize import VectorizationError

    def formatted(x):
        f"{x}"
        return x

    with pytest.raises(VectorizationError, match="no effect"):
        vectorize(formatted)
