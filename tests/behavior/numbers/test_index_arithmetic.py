"""Arithmetic on loop indices and constants that cannot raise runs as plain Python (src/rewrite/
legalize.rs with `analysis::partial::never_raises`): a division, floor division or remainder by
an int whose interval over the loop excludes zero. Plain Python is CPython's own arithmetic, so every lane must equal the scalar
original's, on every backend, at the float edges and for ints beyond 2**53 (where a 0-d int64
array's true division would round twice). Divisors whose interval reaches zero keep the 0-d array
and item 16's IEEE value."""

from __future__ import annotations

import numpy as np

from array_vectorize import vectorize
from oracle import check, floats, ints


def reciprocal_series(x):
    """Horner over 1/(k+1): the Taylor coefficients of -log(1 - x) / x, truncated."""
    acc = 0.0
    for i in range(5):
        acc = acc * x + 1.0 / (5 - i)
    return acc


def harmonic_discount(rate):
    """A cash flow discounted by the harmonic weights of its five periods."""
    weight = 0.0
    for period in range(1, 6):
        weight = weight + 1.0 / period
    return rate * weight


def harmonic_constant(rate):
    """Only indices and constants: the whole sum is one Python float, broadcast at the end."""
    total = 0
    for period in range(1, 4):
        total = total + 1 / period
    return total


def big_share(units):
    """An int beyond 2**53 shared among indices: CPython's correctly rounded int / int (a 0-d
    int64 array would convert 2**53 + 1 to 2**53 first: 3002399751580330.5, not ...331.0)."""
    out = units * 0.0
    for k in range(1, 4):
        out = out + (2**53 + 1) / (k * 3)
    return out


def backward_steps(x):
    """Negative divisors: floor division and remainder take the divisor's sign (CPython)."""
    acc = x
    for i in range(-4, -1):
        acc = acc + (7 // i) + (7 % i) + (7.5 // i) + (-7.5 % i)
    return acc


def moment_weights(x):
    """An int power of an index stays a 0-d int64 array (unbounded in Python): same lanes."""
    acc = x
    for k in range(4):
        acc = acc + 3**k * x
    return acc


def crossing_zero(x):
    """`i - 2` is zero once: that lane is item 16's IEEE value, computed on a 0-d array."""
    acc = x
    for i in range(4):
        acc = acc + 1.0 / (i - 2) * x
    return acc


def test_indices_and_constants_match_cpython(backend):
    x = floats(30)
    for fn in (reciprocal_series, harmonic_discount, backward_steps, moment_weights):
        check(vectorize(fn), x, backend=backend)


def test_a_sum_of_constants_is_broadcast(backend):
    check(vectorize(harmonic_constant), floats(10), backend=backend)


def test_ints_beyond_2_pow_53_divide_correctly_rounded(backend):
    check(vectorize(big_share), ints(10).astype(np.float64), backend=backend)


def test_the_generated_code_has_no_0d_array_where_nothing_can_raise():
    source = vectorize(reciprocal_series).source
    assert "1.0 / (5 - i)" in source and "_vec_f64(xp, 1.0)" not in source, source
    assert "1.0 / (i - 2)" not in vectorize(crossing_zero).source


def test_a_divisor_reaching_zero_keeps_ieee_values():
    x = floats(10)
    want = x.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(4):
            want = want + np.float64(1.0) / np.float64(i - 2) * x  # item 16: 1.0 / 0 is inf
        got = vectorize(crossing_zero)(x)
    np.testing.assert_array_equal(got, want)
