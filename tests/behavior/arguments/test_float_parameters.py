"""Python floats passed as parameters, call after call: a function's own float prologue
(runtime/args.py) remembers, per position, the float64 value it made of the float object it got
last, and gives it back when the next call passes that very object. Every call must still compute
with its own argument's value: signed zeros, NaNs and equal floats that are other objects, in one
thread and in several at once, checked bit for bit against CPython's element loop."""

from __future__ import annotations

import math
import struct
import sys
import threading

import numpy as np

from array_vectorize import vectorize


def signed_rate(balance, rate):
    """An account's signed interest: the sign of the rate decides the direction (so -0.0 and 0.0
    differ), its size the amount."""
    return math.copysign(balance, rate) + balance * rate


def bits(values):
    """Each value's bits, a NaN as NaN (its sign and payload are the library's, as everywhere)."""
    return [struct.pack("<d", v) if v == v else "nan" for v in map(float, np.asarray(values).ravel())]


def expected(balance, rate):
    return bits([signed_rate(float(b), rate) for b in balance])


def test_each_call_computes_with_its_own_float():
    vec = vectorize(signed_rate)
    balance = np.array([0.0, -0.0, 1.0, -2.5, 1e300, 5e-324, math.inf, -math.inf, math.nan, 100.0])
    zero, negative_zero, nan, other_nan = 0.0, -0.0, math.nan, float("nan")
    one_and_half, same_value_other_object = 1.5, float("1.5")
    rates = [zero, zero, negative_zero, negative_zero, zero, nan, other_nan, nan, math.inf, -math.inf,
             one_and_half, same_value_other_object, one_and_half, -one_and_half, 5e-324, -5e-324,
             1e-300, zero, negative_zero]
    for rate in rates:
        assert bits(vec(balance, rate)) == expected(balance, rate), rate
    # The rate as the only number among arrays of other shapes, and both arguments numbers.
    for rate in (zero, negative_zero, zero):
        assert bits(vec(balance.reshape(2, 5), rate)) == expected(balance, rate)
        assert bits(vec(-1.0, rate)) == expected([-1.0], rate)


def test_threads_calling_with_their_own_floats_get_their_own_results():
    vec = vectorize(signed_rate)
    balance = np.linspace(-3.0, 3.0, 10)
    # One float object per thread, of different values (and signs of zero).
    rates = [0.0, -0.0, 0.25, -0.25, math.inf, 1e-300]
    wrong: list = []
    start = threading.Barrier(len(rates))

    def worker(rate):
        want = expected(balance, rate)
        start.wait()
        for _ in range(300):
            if bits(vec(balance, rate)) != want:
                wrong.append(rate)
                return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows, inside prologues too
    try:
        threads = [threading.Thread(target=worker, args=(rate,)) for rate in rates]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
