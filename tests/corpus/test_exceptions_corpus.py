"""Corpus (issue 11, D11 with D12): formulas that validate with the program's own exception
classes (`class HumidityError(PsychrometricError): pass`), chain causes with `raise ... from`,
catch by base class, and iterate to convergence with checks before and after the loop. Each is
checked against CPython's element loop on values that pass and values that fail its checks.

PYTEST_DONT_REWRITE: the functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check_raising, floats


class PsychrometricError(ValueError):
    """An input outside the range a psychrometric formula holds for."""


class HumidityError(PsychrometricError):
    pass


class OrbitalElementError(ValueError):
    """An orbital element outside its domain."""


class ConvergenceError(ArithmeticError):
    """An iteration that did not reach its tolerance."""


class ColourRangeError(ValueError):
    pass


class ChannelError(ColourRangeError):
    """A colour channel outside [0, 1]."""


class TaxValidationError(Exception):
    pass


class NegativeIncomeError(TaxValidationError):
    pass


MU_EARTH = 3.986004418e14
R_EARTH = 6.371e6
# Income tax bands: where each starts, and how much its rate adds to the one below.
BAND_LOWER = (0.0, 37700.0, 125140.0)
BAND_STEP = (0.2, 0.2, 0.05)


def require_humidity(rh):
    if not (0.0 < rh <= 1.0):
        raise HumidityError(f"relative humidity {rh} outside (0, 1]")
    return rh


def wet_bulb_stull(t_c, rh):
    """Stull's (2011) wet-bulb temperature from dry-bulb degC and relative humidity."""
    rh = require_humidity(rh)
    if t_c < -20.0 or t_c > 50.0:
        raise PsychrometricError(f"Stull's fit holds for -20..50 degC, got {t_c}")
    p = rh * 100.0
    return (
        t_c * math.atan(0.151977 * math.sqrt(p + 8.313659))
        + math.atan(t_c + p)
        - math.atan(p - 1.676331)
        + 0.00391838 * p**1.5 * math.atan(0.023101 * p)
        - 4.686035
    )


def dew_point_bisection(t_c, rh):
    """The dew point as the temperature whose saturation pressure is the vapour pressure, by
    bisection to a tolerance; the inputs are checked first."""
    require_humidity(rh)
    if t_c < -40.0 or t_c > 60.0:
        raise PsychrometricError("temperature outside the Magnus range") from None
    e = rh * 6.112 * math.exp(17.62 * t_c / (243.12 + t_c))
    lo, hi = -80.0, t_c
    n = 0
    while hi - lo > 1e-9 and n < 200:
        mid = 0.5 * (lo + hi)
        if 6.112 * math.exp(17.62 * mid / (243.12 + mid)) > e:
            hi = mid
        else:
            lo = mid
        n += 1
    if n >= 200:
        raise ConvergenceError(f"no dew point for t={t_c}, rh={rh}")
    return 0.5 * (lo + hi)


def wet_bulb_or_dew(t_c, rh):
    # Out-of-range temperatures fall back to the dew point's error; bad humidity is caught.
    try:
        w = wet_bulb_stull(t_c, rh)
    except HumidityError:
        w = -273.15
    return w


def eccentric_anomaly(m, e):
    """Kepler's equation E - e sin E = M by Newton's method; elements validated first, the
    iteration count after."""
    if e < 0.0 or e >= 1.0:
        raise OrbitalElementError(f"eccentricity {e} is not elliptic")
    if not math.isfinite(m):
        raise OrbitalElementError("mean anomaly must be finite")
    big_e = m if e < 0.8 else math.pi
    step = 1.0
    k = 0
    while abs(step) > 1e-14 and k < 60:
        step = (big_e - e * math.sin(big_e) - m) / (1.0 - e * math.cos(big_e))
        big_e = big_e - step
        k += 1
    if k >= 60:
        raise ConvergenceError(f"Kepler's equation did not converge for M={m}, e={e}")
    return big_e


def escape_velocity(altitude_m, mass_factor):
    if altitude_m < -R_EARTH:
        raise OrbitalElementError(f"altitude {altitude_m} m is below the centre") from None
    if mass_factor <= 0.0:
        raise OrbitalElementError("mass factor must be positive") from ValueError(mass_factor)
    return math.sqrt(2.0 * MU_EARTH * mass_factor / (R_EARTH + altitude_m))


def circular_speed_or_zero(altitude_m, mass_factor):
    try:
        v = escape_velocity(altitude_m, mass_factor) / math.sqrt(2.0)
    except ValueError:
        v = 0.0
    return v


def check_channel(c):
    if c < 0.0 or c > 1.0:
        raise ChannelError(f"channel {c} outside [0, 1]")
    return c


def srgb_to_linear(c):
    c = check_channel(c)
    if c <= 0.04045:
        return c / 12.92
    return ((c + 0.055) / 1.055) ** 2.4


def rgb_to_hsl(r, g, b):
    r = check_channel(r)
    g = check_channel(g)
    b = check_channel(b)
    hi = max(r, g, b)
    lo = min(r, g, b)
    light = (hi + lo) / 2.0
    if hi == lo:
        return 0.0, 0.0, light
    d = hi - lo
    sat = d / (2.0 - hi - lo) if light > 0.5 else d / (hi + lo)
    if hi == r:
        hue = (g - b) / d + (6.0 if g < b else 0.0)
    elif hi == g:
        hue = (b - r) / d + 2.0
    else:
        hue = (r - g) / d + 4.0
    return hue / 6.0, sat, light


def contrast_ratio(l1, l2):
    try:
        a = srgb_to_linear(l1)
        b = srgb_to_linear(l2)
    except ColourRangeError:
        return 1.0
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def income_tax(income, allowance):
    if income < 0.0:
        raise NegativeIncomeError(f"income {income} is negative")
    if allowance < 0.0 or allowance > income + 1e6:
        raise TaxValidationError("allowance out of range", allowance)
    taxable = max(income - allowance, 0.0)
    tax = 0.0
    for k in range(3):
        if taxable > BAND_LOWER[k]:
            tax += (taxable - BAND_LOWER[k]) * BAND_STEP[k]
    return tax


def tax_or_refund_flag(income, allowance):
    try:
        t = income_tax(income, allowance)
    except NegativeIncomeError:
        t = -1.0
    return t


def net_income(income, allowance):
    try:
        t = income_tax(income, allowance)
    except TaxValidationError:
        raise
    return income - t


CORPUS = [
    wet_bulb_stull, dew_point_bisection, wet_bulb_or_dew, eccentric_anomaly, escape_velocity,
    circular_speed_or_zero, srgb_to_linear, rgb_to_hsl, contrast_ratio, income_tax,
    tax_or_refund_flag, net_income,
]
# Functions whose numeric errors stand inside `try` bodies (they raise there, D11).
TRY_CORPUS = [wet_bulb_or_dew, circular_speed_or_zero, contrast_ratio, tax_or_refund_flag, net_income]

GOOD = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 15.0, 45.0, 300.0, 40000.0, 130000.0])
BAD = np.array([-7e6, -50.0, -1.0, 0.0, -0.0, 1.5, 70.0, math.inf, -math.inf, math.nan])


def columns(n, values, seed):
    rng = np.random.default_rng(seed)
    return [rng.choice(values, size=24) for _ in range(n)]


@pytest.mark.parametrize("fn", CORPUS, ids=lambda f: f.__name__)
def test_corpus_matches_cpython(fn, backend):
    vec = vectorize(fn)
    numeric = fn in TRY_CORPUS
    # NumPy's atan, pow and sin differ from libm's in the last bits (docs/semantics.md item 9).
    tolerance = 1e-12
    n = fn.__code__.co_argcount
    check_raising(vec, *columns(n, GOOD, 1), backend=backend, tolerance=tolerance, numeric=numeric)
    for seed in range(6):
        values = np.concatenate([GOOD, BAD, floats(0)[:8]])
        check_raising(vec, *columns(n, values, seed), backend=backend, tolerance=tolerance, numeric=numeric)
    for v in np.concatenate([BAD, GOOD[:4]]):
        check_raising(vec, *[np.array([v])] * n, backend=backend, tolerance=tolerance, numeric=numeric)


def test_kepler_converges_on_valid_elements(backend):
    m = np.linspace(-10.0, 10.0, 41)
    e = np.concatenate([np.linspace(0.0, 0.99, 40), [0.999]])
    check_raising(vectorize(eccentric_anomaly), m, e, backend=backend, tolerance=1e-12)


def test_corpus_size():
    assert len(CORPUS) >= 8
