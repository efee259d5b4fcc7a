"""In-place chains (src/codegen/chain.rs, issue 30): in the float body a float array computed by
a chain of `+ - * /` is computed into the chain's first array (`t = a * b; t += c; t /= d`).
Results must be CPython's in every lane on every backend (JAX and Dask arrays are immutable:
there `t += c` is `t = t + c`), the caller's arrays are never written, and an operand that may
broadcast the chain's array larger (another parameter, a loop variable) keeps the out-of-place
form: a NumPy or array-api-strict in-place operation would refuse it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats

LEGENDRE = (1.0, 0.42, -0.31, 0.12, 0.07, -0.035, 0.012, -0.004)


def legendre_sum(x):
    """sum c_n P_n(x) by Bonnet's recurrence: `p_next` is read twice, a named chain."""
    p_prev = 1.0
    p = x
    total = LEGENDRE[0] + LEGENDRE[1] * x
    for n in range(1, 7):
        p_next = ((2 * n + 1) * x * p - n * p_prev) / (n + 1)
        total += LEGENDRE[n + 1] * p_next
        p_prev, p = p_next, p
    return total


def brine_density(s, t):
    """A seawater-style correlation: Horner polynomials in `t` inside one expression, joined by
    terms in `s` (a chain in `t` alone must not take an operand in `s`)."""
    rho_w = 999.8 + t * (0.068 + t * (-0.0091 + t * (1.0e-4 - 1.1e-6 * t)))
    a = 0.82 + t * (-4.1e-3 + t * 7.6e-5)
    b = -5.7e-3 + t * (1.0e-4 - 1.65e-6 * t)
    return rho_w + s * (a + b * math.sqrt(abs(s)) + 4.8e-4 * s)


def cooling_margin(t, limit):
    """Subtractions and divisions down the chain, a negated first array, both parameters read
    before the first operation."""
    d = -(t * limit) - 3.0
    return (d - t / 7.0) / (limit + 0.5) - d * 0.25


def relaxed(x, y):
    """A loop variable (its shape unknown: `y` may broadcast it) as a chain operand."""
    acc = x
    for _ in range(3):
        acc = acc * 0.5 + y
    r = x * 0.25 - acc
    return r * r


FUNCTIONS = [legendre_sum, brine_density, cooling_margin, relaxed]


def _args(fn):
    x = floats(20)
    return [x] + [np.roll(x, 5 * k) for k in range(1, fn.__code__.co_argcount)]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_results_are_cpythons_on_every_backend(fn, backend):
    check(vectorize(fn), *_args(fn), backend=backend)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_broadcast_and_zero_d_arguments(fn, backend):
    n = fn.__code__.co_argcount
    if n == 1:
        check(vectorize(fn), np.array(2.5), backend=backend)
        check(vectorize(fn), 0.75, backend=backend)
        return
    x = floats(6)
    # One parameter a column, the other a row; then each parameter 0-d against the other.
    check(vectorize(fn), x.reshape(-1, 1), x[::-1].reshape(1, -1), backend=backend)
    check(vectorize(fn), np.array(1.5), x, backend=backend)
    check(vectorize(fn), x, 2.0, backend=backend)


def test_the_callers_arrays_are_never_written():
    for fn in FUNCTIONS:
        args = _args(fn)
        saved = [a.copy() for a in args]
        vectorize(fn)(*args)
        for a, s in zip(args, saved):
            np.testing.assert_array_equal(a, s)


def test_the_float_body_computes_chains_in_place():
    # The text is pinned by the core's tests (src/codegen/chain.rs); here, that the chains this
    # file checks are there, and that the relaxed loop's operand kept the out-of-place form.
    assert "p_next *= p" in vectorize(legendre_sum).source
    assert "/= limit + 0.5" in vectorize(cooling_margin).source
    assert " -= acc" not in vectorize(relaxed).source
    source = vectorize(brine_density).source
    fast = source[: source.index("def _vec_exact_")]
    # Its three polynomials in `t` are one pass each (src/codegen/horner.rs), the rest chains.
    assert fast.count("_vec_horner(xp, t, ") == 3 and " += " in fast, fast
