"""Convergence and counting loops (D12) in the style of real scalar code: orbital mechanics,
option pricing, pipe flow, finance, number puzzles. Every function terminates for every input
(an iteration bound, or a test the loop always reaches), and each compiles and matches CPython
lane by lane on NumPy and array-api-strict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, FLOAT_EDGES, check

BACKEND_NAMES = sorted(BACKENDS)
RNG = np.random.default_rng(20261201)


@vectorize
def eccentric_anomaly(mean_anomaly, ecc):
    """Kepler's equation E - e sin E = M by Newton's method, to 1e-12."""
    E = mean_anomaly if ecc < 0.8 else math.pi
    it = 0
    while it < 100:
        f = E - ecc * math.sin(E) - mean_anomaly
        step = f / (1.0 - ecc * math.cos(E))
        E = E - step
        if abs(step) < 1e-12:
            return E
        it += 1
    return E


def norm_cdf(z):
    """Standard normal CDF (Abramowitz and Stegun 26.2.17, |error| < 7.5e-8)."""
    t = 1.0 / (1.0 + 0.2316419 * abs(z))
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    tail = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) * poly
    return 1.0 - tail if z >= 0.0 else tail


@vectorize
def implied_vol_bisection(price, spot, strike, rate, tau):
    """Black-Scholes call implied volatility by bisection on [1e-6, 5], at most 200 halvings."""
    lo = 1e-6
    hi = 5.0
    n = 0
    while hi - lo > 1e-10 and n < 200:
        mid = 0.5 * (lo + hi)
        sd = mid * math.sqrt(tau)
        d1 = (math.log(spot / strike) + (rate + 0.5 * mid * mid) * tau) / sd
        d2 = d1 - sd
        nd1 = norm_cdf(d1)
        nd2 = norm_cdf(d2)
        model = spot * nd1 - strike * math.exp(-rate * tau) * nd2
        if model > price:
            hi = mid
        else:
            lo = mid
        n += 1
    return 0.5 * (lo + hi)


@vectorize
def colebrook_friction(reynolds, rel_roughness):
    """Darcy friction factor from the Colebrook-White equation by fixed-point iteration."""
    if reynolds < 2300.0:
        return 64.0 / reynolds
    x = 0.02
    k = 0
    while k < 100:
        rhs = -2.0 * math.log10(rel_roughness / 3.7 + 2.51 * x / reynolds)
        x_new = 1.0 / rhs
        if abs(x_new - x) < 1e-14:
            return x_new * x_new
        x = x_new
        k += 1
    return x * x


@vectorize
def digit_sum(n):
    total = 0
    n = abs(n)
    while n > 0:
        total += n % 10
        n //= 10
    return total


@vectorize
def digital_root(n):
    n = abs(n)
    while n >= 10:
        s = 0
        while n > 0:
            s += n % 10
            n //= 10
        n = s
    return n


@vectorize
def years_to_target(principal, rate, target):
    """Whole years of compound interest until the balance reaches the target (at most 500)."""
    years = 0
    balance = principal
    while balance < target and years < 500:
        balance = balance * (1.0 + rate)
        years += 1
    return years


@vectorize
def exp_series(x):
    """exp(x) summed term by term until the term drops below eps relative to the sum."""
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-17 * abs(total) and k < 400:
        term = term * x / k
        total = total + term
        k += 1
    return total


@vectorize
def collatz_steps(n):
    """Steps of the 3n+1 map to reach 1 (inputs bounded, so every lane ends)."""
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@vectorize
def gcd_euclid(a, b):
    a = abs(a)
    b = abs(b)
    while b != 0:
        a, b = b, a % b
    return a


@vectorize
def cube_root_newton(v):
    if v == 0.0 or not math.isfinite(v):
        return v
    x = abs(v) ** (1.0 / 3.0)
    for_sign = 1.0 if v > 0 else -1.0
    i = 0
    while i < 60:
        nx = x - (x * x * x - abs(v)) / (3.0 * x * x)
        if abs(nx - x) <= 1e-15 * nx:
            return for_sign * nx
        x = nx
        i += 1
    return for_sign * x


@vectorize
def bits_needed(n):
    n = abs(n)
    bits = 0
    while n > 0:
        n = n // 2
        bits += 1
    return bits


@vectorize
def loan_months(balance, monthly_rate, payment):
    """Months to pay a loan off (at most 1200; a payment below the interest never pays it)."""
    months = 0
    while balance > 0.0 and months < 1200:
        balance = balance * (1.0 + monthly_rate) - payment
        months += 1
    return months


@vectorize
def isqrt_newton(n):
    if n < 2:
        return max(n, 0)
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


@vectorize
def atan_series(x):
    """atan(x) for |x| <= 0.9 by its Taylor series, to 1e-16, at most 2000 terms."""
    if abs(x) > 0.9:
        return math.atan(x)
    term = x
    total = x
    k = 1
    while abs(term) > 1e-16 and k < 2000:
        term = -term * x * x
        total = total + term / (2 * k + 1)
        k += 1
    return total


@vectorize
def halving_time(quantity, threshold):
    """Half-lives until a decaying quantity drops below the threshold (at most 1100)."""
    n = 0
    while quantity >= threshold and n < 1100:
        quantity = quantity / 2.0
        n += 1
    return n


@vectorize
def wien_peak(t):
    """Solves 5(1 - exp(-x)) = x by fixed-point iteration, then Wien's law for the peak (m)."""
    x = 5.0
    while True:
        nx = 5.0 * (1.0 - math.exp(-x))
        if abs(nx - x) < 1e-13:
            return 6.62607015e-34 * 299792458.0 / (nx * 1.380649e-23 * t)
        x = nx


FLOATS = np.array(FLOAT_EDGES + [0.1, 0.7, 3.0, -12.5, 1e6, 123.456])


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_kepler(backend):
    M = RNG.uniform(-10, 10, 200)
    e = RNG.uniform(0, 0.99, 200)
    check(eccentric_anomaly, M, e, backend=backend)
    check(eccentric_anomaly, FLOATS, 0.5, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_implied_vol(backend):
    price = RNG.uniform(0.5, 30, 60)
    check(implied_vol_bisection, price, 100.0, RNG.uniform(60, 140, 60), 0.03, RNG.uniform(0.1, 3, 60), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_colebrook(backend):
    re = np.concatenate([RNG.uniform(500, 1e8, 100), [2299.0, 2300.0, 1e9]])
    check(colebrook_friction, re, RNG.uniform(0, 0.05, re.size), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_integer_loops(backend):
    ints = np.concatenate([RNG.integers(-(10**15), 10**15, 100), [0, 1, -1, 9, 10, 2**62, -(2**62), 2**63 - 1]])
    for fn in (digit_sum, digital_root, bits_needed):
        check(fn, ints, backend=backend)
    # n + 1 must stay within int64 (integer overflow wraps: docs/semantics.md).
    check(isqrt_newton, ints[ints < 2**62], backend=backend)
    check(gcd_euclid, ints, ints[::-1].copy(), backend=backend)
    check(collatz_steps, np.arange(-3, 400), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_finance_loops(backend):
    check(years_to_target, RNG.uniform(1, 1000, 80), RNG.uniform(-0.01, 0.2, 80), RNG.uniform(1, 5000, 80), backend=backend)
    check(loan_months, RNG.uniform(0, 1e5, 80), RNG.uniform(0, 0.02, 80), RNG.uniform(100, 3000, 80), backend=backend)
    check(years_to_target, FLOATS, 0.05, 100.0, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_series_and_roots(backend):
    x = np.concatenate([RNG.uniform(-30, 30, 100), FLOATS])
    check(exp_series, np.where(np.isfinite(x), x, 0.0), backend=backend)
    check(atan_series, x, backend=backend)
    check(cube_root_newton, x, backend=backend)
    check(halving_time, np.abs(x), 1e-3, backend=backend)
    check(wien_peak, RNG.uniform(100, 10000, 50), backend=backend)
