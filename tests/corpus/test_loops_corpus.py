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


@vectorize
def remaining_balance(balance, monthly_rate, payment, months):
    """Loan balance after `months` payments (per lane), stopping once it is paid off."""
    paid_off_at = -1
    for m in range(months):
        balance = balance * (1.0 + monthly_rate) - payment
        if balance <= 0.0:
            paid_off_at = m
            balance = 0.0
            break
    return balance + paid_off_at


@vectorize
def smallest_prime_factor(n):
    """Trial division with `break` once d*d passes n and a `for ... else` for primes."""
    if n < 2:
        return 0
    for d in range(2, 1200):
        if d * d > n:
            break
        if n % d == 0:
            return d
    else:
        return -1
    return n


@vectorize
def is_prime_flag(n):
    """`continue` skips even divisors after 2; the answer is a bool."""
    if n < 2:
        return False
    for d in range(2, 400):
        if d > 2 and d % 2 == 0:
            continue
        if d * d > n:
            break
        if n % d == 0:
            return False
    return True


@vectorize
def lambert_w(x):
    """Principal branch of Lambert W for x >= 0 by Halley's iteration, `while True` + `break`."""
    if not (x >= 0.0 and x < 1e300):
        return math.nan
    w = math.log1p(x)
    k = 0
    while True:
        ew = math.exp(w)
        f = w * ew - x
        step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        w = w - step
        k += 1
        if abs(step) <= 1e-14 * (1.0 + abs(w)) or k >= 100:
            break
    return w


@vectorize
def dew_point_fixed_point(t_celsius, rh):
    """Dew point from the Magnus formula, refined by fixed-point iteration on the vapour
    pressure; `else:` flags a non-converged lane with NaN."""
    if not (rh > 0.0 and rh <= 1.0 and t_celsius > -60.0 and t_celsius < 60.0):
        return math.nan
    e = rh * 6.112 * math.exp(17.62 * t_celsius / (243.12 + t_celsius))
    td = t_celsius
    n = 0
    while n < 60:
        g = math.log(e / 6.112)
        nxt = 243.12 * g / (17.62 - g)
        n += 1
        if abs(nxt - td) < 1e-10:
            td = nxt
            break
        td = nxt
    else:
        return math.nan
    return td


@vectorize
def annuity_factor(rate, years):
    """Present value of 1 paid at the end of each of `years` years (per lane)."""
    pv = 0.0
    discount = 1.0
    for y in range(years):
        discount = discount / (1.0 + rate)
        pv += discount
    return pv


BRACKETS = (0.0, 11000.0, 44725.0, 95375.0, 182100.0, 231250.0, 578125.0, 1e308)
RATES = (0.10, 0.12, 0.22, 0.24, 0.32, 0.35, 0.37)


@vectorize
def marginal_tax(income, exempt):
    """Progressive tax walking the brackets: income below `exempt` is untaxed, so brackets
    wholly below it are skipped with `continue`; the walk stops with `break` at the first
    bracket above the income."""
    tax = 0.0
    for k in range(7):
        lower = BRACKETS[k]
        upper = BRACKETS[k + 1]
        if upper <= exempt:
            continue
        if income <= lower:
            break
        tax += (min(income, upper) - max(lower, exempt)) * RATES[k]
    return tax


@vectorize
def power_mod(base, exponent, modulus):
    """base**exponent % modulus by binary exponentiation (ints below 2**31)."""
    if modulus <= 1 or exponent < 0:
        return 0
    result = 1
    b = base % modulus
    e = exponent
    while e > 0:
        if e % 2 == 1:
            result = result * b % modulus
        b = b * b % modulus
        e = e // 2
    return result


@vectorize
def sqrt2_convergent(n):
    """The n-th continued-fraction convergent of sqrt(2), p/q, with n per lane."""
    p = 1
    q = 1
    for _ in range(n):
        p, q = p + 2 * q, p + q
    return p / q


@vectorize
def leap_days_between(y0, y1):
    """Leap days in the years [y0, y1): a per-lane range with `continue` for common years."""
    count = 0
    for y in range(y0, y1):
        if y % 4 != 0:
            continue
        if y % 100 == 0 and y % 400 != 0:
            continue
        count += 1
    return count


@vectorize
def secant_cos_root(t):
    """Root of cos(x) = t*x by the secant method; `while ... else` gives NaN when the
    iteration bound is hit first."""
    if not (t > 0.01 and t < 100.0):
        return math.nan
    x0 = 0.0
    x1 = 1.0
    n = 0
    while n < 80:
        f0 = math.cos(x0) - t * x0
        f1 = math.cos(x1) - t * x1
        if f1 == f0:
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        x0 = x1
        x1 = x2
        n += 1
        if abs(x1 - x0) < 1e-13:
            break
    else:
        return math.nan
    return x1


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


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_break_continue_and_else(backend):
    check(remaining_balance, RNG.uniform(1e3, 5e4, 60), RNG.uniform(0, 0.02, 60), RNG.uniform(50, 2000, 60),
          RNG.integers(-2, 90, 60), backend=backend)
    n = np.concatenate([np.arange(-3, 300), RNG.integers(300, 10**6, 100), [999983, 1000003, 2**20]])
    check(smallest_prime_factor, n, backend=backend)
    check(is_prime_flag, n[n < 150000], backend=backend)
    x = np.concatenate([RNG.uniform(0, 50, 60), RNG.uniform(0, 1e6, 20), FLOATS])
    check(lambert_w, x, backend=backend)
    check(dew_point_fixed_point, np.concatenate([RNG.uniform(-40, 45, 80), FLOATS]),
          np.concatenate([RNG.uniform(0.05, 1.0, 80), np.full(FLOATS.size, 0.5)]), backend=backend)
    check(secant_cos_root, np.concatenate([RNG.uniform(0.02, 50, 80), FLOATS]), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_per_lane_range(backend):
    years = np.concatenate([RNG.integers(-3, 60, 60), [0, 1, 2]])
    check(annuity_factor, RNG.uniform(-0.05, 0.2, years.size), years, backend=backend)
    check(sqrt2_convergent, np.arange(-2, 30), backend=backend)
    y0 = RNG.integers(1500, 2100, 60)
    check(leap_days_between, y0, y0 + RNG.integers(-10, 500, 60), backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_tax_and_modular_loops(backend):
    income = np.concatenate([RNG.uniform(-1e4, 8e5, 100), [0.0, 11000.0, 44725.0, 1e7], FLOATS[np.isfinite(FLOATS)]])
    check(marginal_tax, income, 13850.0, backend=backend)
    check(marginal_tax, income, RNG.uniform(0, 3e5, income.size), backend=backend)
    b = RNG.integers(-50, 2**31 - 1, 80)
    check(power_mod, b, RNG.integers(-3, 200, 80), RNG.integers(-2, 2**31 - 1, 80), backend=backend)
