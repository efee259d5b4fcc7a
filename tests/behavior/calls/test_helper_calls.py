"""Helpers as people write them (D7): defaults and keywords, local lambdas calling one another;
recursion rejected naming the cycle; `nonlocal` rejected with a position. CPython is the oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats, ints

BACKENDS = ["numpy", "strict"]
LIMIT = 4.0


def discount(amount, rate=0.05, *, years=1, floor=-LIMIT):
    return max(amount / (1.0 + rate) ** years, floor)


def with_defaults(x):
    return discount(x) + discount(x, 0.1) + discount(x, years=3) + discount(x, rate=0.2, floor=0.0)


def local_lambdas(x):
    sq = lambda v: v * v  # noqa: E731 - the construct under test
    poly = lambda v: sq(v) + 2.0 * v + 1.0  # noqa: E731
    return poly(x) - sq(x - 1.0)


def nested_defaults(x):
    def shifted(v, by=1.5):
        return v + by

    return shifted(x) * shifted(x, by=-2.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [with_defaults, local_lambdas, nested_defaults])
def test_helpers_with_defaults_keywords_and_local_calls(fn, backend):
    vec = vectorize(fn)
    check(vec, floats(), backend=backend, ulps=4)
    check(vec, ints(), backend=backend, ulps=4)


def ping(n, x):
    return pong(n, x) if n > 0 else x


def pong(n, x):
    return ping(n - 1, x)


def bounce(x):
    return ping(3, x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mutual_recursion_with_a_constant_depth_unrolls_without_residue(backend):
    # D19: `ping(3, x)` folds its way down to `ping(0, x)`: three levels, no residue.
    vec = vectorize(bounce)
    assert "_vec_residue" not in vec.source
    check(vec, floats(), backend=backend)


def shifted_by_name(v, by=math.pi):
    return v + by


def test_a_default_naming_a_module_value_is_frozen():
    def f(x):
        return shifted_by_name(x)

    check(vectorize(f), floats())


def test_a_nested_function_default_that_is_not_a_literal_is_rejected_with_its_position():
    def f(x):
        k = 2.0

        def g(v, by=k):
            return v + by

        return g(x)

    with pytest.raises(VectorizationError, match=r"default of `g` used by this call must be a number") as info:
        vectorize(f)
    assert "by=k" in str(info.value)


def test_nonlocal_is_rejected_with_a_position():
    def f(x):
        total = 0.0

        def add(v):
            nonlocal total
            total += v
            return total

        return add(x)

    with pytest.raises(VectorizationError, match=r"`nonlocal` are not supported") as info:
        vectorize(f)
    assert info.value.diagnostics[0]["line"] > 0
