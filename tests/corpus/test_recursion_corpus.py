"""Corpus (issue 26: D19, D21, D23): recursive pricing formulas and special functions, validation
with messages built as written and exception classes of the program's own, and physics formulas
calling another library's function under `fallback="calls"`. Each function, written in the
domains' style for this corpus, compiles and matches CPython's element loop (values, or the first
raising element's exception) on NumPy and array-api-strict.

PYTEST_DONT_REWRITE: the functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, check_raising, floats, grid

RATE = 0.03
SQRT2 = math.sqrt(2.0)
HALF_PI = 0.5 * math.pi
# Coefficients of the Stirling series of log Gamma (1/12, -1/360, 1/1260, -1/1680).
STIRLING = (1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0)

# ----------------------------------------------------------------------------- recursive pricing


def norm_cdf(x):
    if x < 0.0:
        return 1.0 - norm_cdf(-x)
    return 0.5 * math.erfc(-x / SQRT2)


def european_option(spot, strike, vol, years, is_call):
    """A put through put-call parity on the call: the price calls itself once."""
    if not is_call:
        call = european_option(spot, strike, vol, years, True)
        return call - spot + strike * math.exp(-RATE * years)
    sd = vol * math.sqrt(years)
    d1 = (math.log(spot / strike) + (RATE + 0.5 * vol * vol) * years) / sd
    return spot * norm_cdf(d1) - strike * math.exp(-RATE * years) * norm_cdf(d1 - sd)


def digital_payoff(spot, strike, pays_above):
    """The below-strike digital as the above-strike one with the roles swapped."""
    if not pays_above:
        return digital_payoff(strike, spot, True)
    return 1.0 if spot > strike else 0.0


def compound_balance(principal, rate, years):
    """Year by year: deep for long horizons (the residue finishes them)."""
    if years <= 0:
        return principal
    return compound_balance(principal * (1.0 + rate), rate, years - 1)


def bond_price(face, coupon, ytm, periods):
    if periods <= 0:
        return face
    return (coupon + bond_price(face, coupon, ytm, periods - 1)) / (1.0 + ytm)


def annuity_factor(rate, periods):
    if periods <= 0:
        return 0.0
    return 1.0 / (1.0 + rate) ** periods + annuity_factor(rate, periods - 1)


# ----------------------------------------------------------------------------- special functions


def log_gamma(x):
    """Shift up to x >= 7, then the Stirling series."""
    if x < 7.0:
        return log_gamma(x + 1.0) - math.log(x)
    z = 1.0 / (x * x)
    series = (STIRLING[0] + z * (STIRLING[1] + z * (STIRLING[2] + z * STIRLING[3]))) / x
    return (x - 0.5) * math.log(x) - x + 0.5 * math.log(2.0 * math.pi) + series


def digamma(x):
    if x < 6.0:
        return digamma(x + 1.0) - 1.0 / x
    z = 1.0 / (x * x)
    return math.log(x) - 0.5 / x - z * (1.0 / 12.0 - z * (1.0 / 120.0 - z / 252.0))


def arctan_reduced(x):
    """Odd symmetry, then 1/x above one, then a short series: at most two levels."""
    if x < 0.0:
        return -arctan_reduced(-x)
    if x > 1.0:
        return HALF_PI - arctan_reduced(1.0 / x)
    return math.atan(x)


def exp_by_halving(x):
    """exp(x) = exp(x/2)**2 until |x| is small: depth grows with log2|x|."""
    if abs(x) > 0.5:
        half = exp_by_halving(0.5 * x)
        return half * half
    return 1.0 + x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x / 120.0))))


def hermite(n, x):
    """Physicists' Hermite polynomials by their three-term recurrence (two calls per level)."""
    if n <= 0:
        return 1.0
    if n == 1:
        return 2.0 * x
    return 2.0 * x * hermite(n - 1, x) - 2.0 * (n - 1) * hermite(n - 2, x)


def legendre(n, x):
    if n <= 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


def gcd_steps(a, b):
    """Euclid's algorithm on ints, counting its steps."""
    if b == 0:
        return 0
    return 1 + gcd_steps(b, a % b)


# ----------------------------------------------------------------------------- validation (D21)

OUT_OF_TABLE = "t=%g K is outside the steam table"
YEAR_MESSAGE = "no tax table for {0}"


class SteamTableError(ValueError):
    """A state outside the region a correlation covers."""

    def __init__(self, quantity, value, low, high):
        super().__init__(f"{quantity}={value!r} outside [{low}, {high}]")
        self.quantity = quantity
        self.value = value


class SensorError(RuntimeError):
    def __init__(self, channel, reading):
        super().__init__(channel, reading)
        self.reading = reading

    def __str__(self):
        return f"channel {self.args[0]}: reading {self.args[1]:.2f} out of range"


def saturation_pressure(t):
    if t < 273.16 or t > 647.096:
        raise ValueError(OUT_OF_TABLE % t)
    tau = 1.0 - t / 647.096
    return 22.064 * math.exp(647.096 / t * (-7.85951783 * tau + 1.84408259 * tau**1.5))


def region_volume(p, t):
    if p <= 0.0 or p > 100.0:
        raise SteamTableError("p", p, 0.0, 100.0)
    if t < 273.15:
        raise SteamTableError("T", t, 273.15, 1073.15)
    return 0.461526 * t / (1000.0 * p)


def tax_due(income, year):
    if year < 2020 or year > 2025:
        raise KeyError(YEAR_MESSAGE.format(year))
    allowance = 12570.0 if year >= 2021 else 12500.0
    return max(income - allowance, 0.0) * 0.2


def dose_rate(activity_mbq, hours):
    if hours < 0.0:
        raise ValueError(f"elapsed time {hours:+.1f} h is negative")
    if activity_mbq > 1e4:
        raise ValueError("activity " + str(activity_mbq) + " MBq above the licence (" + repr(1e4) + ")")
    return activity_mbq * 0.5 ** (hours / 6.01)


def thermocouple(millivolts, channel):
    if millivolts < -6.0 or millivolts > 54.0:
        raise SensorError(channel, millivolts)
    return 25.08355 * millivolts + 0.07860106 * millivolts * millivolts


def pipe_friction(reynolds, roughness):
    if reynolds < 2300.0:
        raise ValueError("Re={:.3g} is laminar: use 64/Re".format(reynolds))
    a = -2.0 * math.log10(roughness / 3.7 + 5.74 / reynolds**0.9)
    return 1.0 / (a * a)


# ----------------------------------------------------------------------------- another library (D23)

class StandardNormal(statistics.NormalDist):
    """A NormalDist subclass (its methods may be overridden): another library's method, run per
    element (a `NormalDist` itself compiles, issue 27)."""

    __slots__ = ()


STANDARD = StandardNormal()


def gaussian_line(x, center, width):
    if width <= 0.0:
        return 0.0
    return statistics.NormalDist(center, width).pdf(x)


def var_quantile_loss(mu, sigma, level):
    """The value at risk of a normal P&L: the library's inverse CDF at a fixed level."""
    return -(mu + sigma * STANDARD.inv_cdf(level))


def heat_front(x, t, diffusivity):
    if t <= 0.0:
        return 0.0
    return float(SPECIAL.erfc(x / (2.0 * math.sqrt(diffusivity * t))))


def large_amplitude_period(length, amplitude):
    k = math.sin(0.5 * amplitude)
    return 4.0 * math.sqrt(length / 9.80665) * float(SPECIAL.ellipk(k * k))


SPECIAL = pytest.importorskip("scipy.special")

RECURSIVE = [
    (european_option, lambda: grid(np.array([80.0, 100.0, 125.0]), np.array([100.0, 90.0]), np.array([0.15, 0.4]), np.array([0.25, 2.0]), np.array([True, False]))),
    (digital_payoff, lambda: grid(np.array([90.0, 100.0, 110.0, math.nan]), np.array([100.0, -0.0]), np.array([True, False]))),
    (compound_balance, lambda: grid(np.array([1000.0, 0.0, -50.0]), np.array([0.05, -0.02, 0.0]), np.array([0, 1, 5, 9, 30, 45, -3]))),
    (bond_price, lambda: grid(np.array([100.0, 1000.0]), np.array([2.5, 0.0]), np.array([0.04, 0.0, -0.01]), np.array([0, 2, 8, 20, 40]))),
    (annuity_factor, lambda: grid(np.array([0.05, 0.0, 0.12, -0.5]), np.array([0, 1, 7, 10, 25]))),
    (log_gamma, lambda: [np.concatenate([np.linspace(0.05, 40.0, 57), [1e-3, 0.5, 1.0, 2.0, 7.0, 1e5]])]),
    (digamma, lambda: [np.concatenate([np.linspace(0.05, 30.0, 41), [1e-3, 6.0, 1e4]])]),
    (arctan_reduced, lambda: [floats(40)]),
    (exp_by_halving, lambda: [np.concatenate([np.linspace(-40.0, 40.0, 61), [0.0, -0.0, 0.5, 700.0, -745.0]])]),
    (hermite, lambda: grid(np.array([0, 1, 2, 3, 5, 8, 11, -1]), np.array([-1.5, 0.0, 0.3, 2.0]))),
    (legendre, lambda: grid(np.array([0, 1, 2, 4, 7, 10]), np.array([-1.0, -0.4, 0.0, 0.75, 1.0]))),
    (gcd_steps, lambda: grid(np.array([0, 1, 12, 89, 144, 1071, 2**40 + 1]), np.array([0, 1, 5, 55, 462, 233]))),
]

VALIDATING = [
    (saturation_pressure, lambda: [np.array([300.0, 273.16, 400.0, 700.0, 200.0, math.nan])]),
    (region_volume, lambda: grid(np.array([1.0, 50.0, 0.0, 120.0]), np.array([300.0, 500.0, 200.0]))),
    (tax_due, lambda: grid(np.array([20000.0, 5000.0, 1e6]), np.array([2020, 2023, 2019, 2030]))),
    (dose_rate, lambda: grid(np.array([10.0, 5e3, 2e4]), np.array([0.0, 6.01, -1.5, 48.0]))),
    (thermocouple, lambda: grid(np.array([0.0, 20.5, 60.0, -7.25]), np.array([1, 4]))),
    (pipe_friction, lambda: grid(np.array([4000.0, 1e5, 1e7, 1500.0]), np.array([1e-4, 0.01]))),
]

CALLS = [
    (gaussian_line, lambda: grid(floats(6), np.array([0.0, 1.5]), np.array([1.0, 0.0, 0.25]))),
    (var_quantile_loss, lambda: grid(np.array([0.0, 1e3, -50.0]), np.array([1.0, 250.0]), np.array([0.01, 0.05, 0.5]))),
    (heat_front, lambda: grid(np.array([0.0, 0.01, 0.5]), np.array([1.0, 3600.0, 0.0]), np.array([1e-7, 1e-5]))),
    (large_amplitude_period, lambda: grid(np.array([0.5, 1.0, 10.0]), np.array([0.1, 1.0, 2.5, 3.0]))),
]


@pytest.mark.parametrize("fn, columns", RECURSIVE, ids=lambda v: getattr(v, "__name__", ""))
def test_recursive_function_matches_cpython(fn, columns, backend):
    check(vectorize(fn), *columns(), backend=backend, ulps=16)


@pytest.mark.parametrize("fn, columns", VALIDATING, ids=lambda v: getattr(v, "__name__", ""))
def test_validation_raises_as_written(fn, columns, backend):
    vec = vectorize(fn)
    check_raising(vec, *columns(), backend=backend)
    # The elements that pass compare by value too.
    args = columns()
    ok = np.ones(args[0].shape, dtype=bool)
    for index in np.ndindex(ok.shape):
        try:
            fn(*[a[index].item() for a in args])
        except Exception:  # noqa: BLE001
            ok[index] = False
    check(vec, *[a[ok] for a in args], backend=backend, ulps=4)


@pytest.mark.parametrize("fn, columns", CALLS, ids=lambda v: getattr(v, "__name__", ""))
def test_another_library_runs_per_element(fn, columns, backend):
    vec = vectorize(fn, fallback="calls")
    assert "_vec_call_site(" in vec.source
    check(vec, *columns(), backend=backend, ulps=4)


def test_corpus_is_large_enough():
    assert len(RECURSIVE) + len(VALIDATING) + len(CALLS) >= 20
