"""Helpers wrapped by a decorator of the program (issue 27 part 2 item 2, D7, D10): a helper that
`functools.wraps` made look like the function it wraps, whose wrapper checks its input and then
returns `fn(*args, **kwargs)`, is compiled with the wrapper's checks (a raise per element, D11)
and the wrapped function's body. A wrapper of another form is refused at the call with its
position and the reason (or runs element by element under fallback="calls", D23). CPython
running the scalar original is the oracle."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, check_raising, floats

LOW, HIGH = 0.0, 1.0


def unit_interval(fn):
    @functools.wraps(fn)
    def wrapper(t, *args, **kwargs):
        if not LOW <= t <= HIGH:
            raise ValueError(f"{fn.__name__}: t must lie in [0, 1], got {t!r}")
        return fn(t, *args, **kwargs)

    return wrapper


def finite(fn):
    @functools.wraps(fn)
    def checked(x, y, *args, **kwargs):
        if math.isnan(x) or math.isnan(y):
            raise ValueError("no NaN please")
        return fn(x, y, *args, **kwargs)

    return checked


@unit_interval
def ease_in(t, power=2):
    return t**power


@unit_interval
def ease_out(t):
    return 1.0 - (1.0 - t) * (1.0 - t)


@unit_interval
def smoothstep(t):
    return t * t * (3.0 - 2.0 * t)


@finite
def lerp(x, y, t=0.5):
    return x + (y - x) * t


def blend(t):
    return 0.5 * ease_in(t) + 0.5 * ease_out(t)


def cubic(t):
    return ease_in(t, 3) - smoothstep(t)


def mix(a, b):
    return lerp(a, b) + lerp(a, b, 0.25)


INSIDE = np.concatenate([np.array([0.0, -0.0, 1.0, 0.5, 1e-310, 0.9999999999999999]), np.random.default_rng(2).uniform(0.0, 1.0, 50)])


def test_wrapped_helpers_match_cpython_inside_the_checks(backend):
    check(vectorize(blend), INSIDE, backend=backend)
    check(vectorize(cubic), INSIDE, backend=backend)
    numbers = floats()[~np.isnan(floats())]  # `finite` raises for a NaN: below
    check(vectorize(mix), numbers[:20], numbers[20:40], backend=backend)


@pytest.mark.parametrize("t", [[0.5, 1.5, -0.5], [math.nan, 0.2], [0.1, -math.inf], [2.0]])
def test_the_wrappers_check_raises_as_cpython_for_the_first_element(t, backend):
    got = check_raising(vectorize(blend), np.array(t), backend=backend)
    assert isinstance(got, ValueError) and "t must lie in [0, 1]" in str(got), got


def piecewise(t):
    if t < 0.5:
        return ease_in(2.0 * t)
    return ease_out(2.0 * t - 1.0)


@pytest.mark.parametrize("t", [[0.25, 1.5], [0.5, -0.5], [1.0, 0.75, 0.9999999999999999, math.inf]])
def test_each_helpers_message_names_that_helper(t, backend):
    """Two helpers of one decorator: each message reads `fn.__name__` of its own wrapped
    function (once, both read one global `fn`, and a raise in `ease_out` said `ease_in`)."""
    got = check_raising(vectorize(piecewise), np.array(t), backend=backend)
    assert isinstance(got, ValueError), got


def test_a_two_argument_check(backend):
    got = check_raising(vectorize(mix), np.array([1.0, 2.0, math.nan]), np.array([0.0, 5.0, 1.0]), backend=backend)
    assert isinstance(got, ValueError), got


def reads_args(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args[0] < 0:
            raise ValueError("negative")
        return fn(*args, **kwargs)

    return wrapper


def doubles(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 2.0 * fn(*args, **kwargs)

    return wrapper


@reads_args
def by_index(t):
    return t + 1.0


@doubles
def doubled(t):
    return t + 1.0


def calls_by_index(t):
    return by_index(t)


def calls_doubled(t):
    return doubled(t)


@pytest.mark.parametrize(
    ("fn", "why"),
    [(calls_by_index, "reads `args`"), (calls_doubled, "does not end by returning the call")],
    ids=["reads-args", "changes-the-result"],
)
def test_another_wrapper_is_refused_with_its_position_and_reason(fn, why):
    with pytest.raises(VectorizationError, match=rf":\d+:\d+: .*{why}") as info:
        vectorize(fn)
    assert info.value.diagnostics[0]["line"] == fn.__code__.co_firstlineno + 1


def test_another_wrapper_runs_element_by_element_under_fallback_calls():
    vec = vectorize(calls_doubled, fallback="calls")
    check(vec, floats())
