"""Corpus of functions holding their data in local containers (D18) and assigning in `elif`
chains without `else` (D20): steam and seawater correlations with coefficient tables local to
the function, series approximations of special functions whose terms are collected in lists,
crop and calendar models, small lists built with `append` and reduced. The coefficients are
made up in the shape of such correlations. Every function must compile and equal CPython
element by element on numpy and array-api-strict (where CPython raises for an element, the call
raises the same exception for the first such element).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check_raising, grid

# ----------------------------------------------------------------- steam and seawater


def saturation_pressure_ratio(t_kelvin):
    """ln(p/pc) of a Wagner-style vapour-pressure equation: exponents and coefficients local."""
    tc = 647.1
    tau = 1.0 - t_kelvin / tc
    a = [-7.86, 1.84, -11.78, 22.68, -15.96, 1.80]
    e = [1.0, 1.5, 3.0, 3.5, 4.0, 7.5]
    s = 0.0
    for ai, ei in zip(a, e):
        s += ai * abs(tau) ** ei
    return tc / t_kelvin * s


def gibbs_region_like(p, t):
    """A dimensionless Gibbs energy as a sum of n_i * pi**I_i * tau**J_i terms."""
    pi = p / 16.53
    tau = 1386.0 / t
    I = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3]
    J = [-2, -1, 0, 1, -9, -7, -1, 0, 1, -5]
    n = [0.146, -0.845, -3.756, 3.386, -0.958, 0.158, -0.0166, 8.12e-4, 2.83e-4, -6.07e-4]
    g = 0.0
    for i, j, ni in zip(I, J, n):
        g += ni * (7.1 - pi) ** i * (tau - 1.222) ** j
    return g


def seawater_density(salinity, t):
    """Density of sea water as polynomials in temperature, with salinity terms."""
    a = [999.84, 6.79e-2, -9.09e-3, 1.0e-4, -1.12e-6, 6.5e-9]
    b = [0.824, -4.09e-3, 7.64e-5, -8.25e-7, 5.39e-9]
    c = [-5.72e-3, 1.02e-4, -1.65e-6]
    rho_w = sum(ak * t**k for k, ak in enumerate(a))
    b_s = sum(bk * t**k for k, bk in enumerate(b))
    c_s = sum(ck * t**k for k, ck in enumerate(c))
    return rho_w + b_s * salinity + c_s * abs(salinity) ** 1.5 + 4.83e-4 * salinity**2


def sound_speed_water(t):
    """Speed of sound in water: Horner over a local list read backwards."""
    coeffs = [1402.4, 5.04, -5.80e-2, 3.34e-4, -1.48e-6, 3.15e-9]
    acc = 0.0
    for c in coeffs[::-1]:
        acc = acc * t + c
    return acc


def ideal_gas_enthalpy(tau):
    """An ideal-gas part written as a dict of exponent: coefficient."""
    terms = {0: -8.32, 1: 6.68, 2: 3.01}
    h = 0.0
    for k, c in terms.items():
        h += k * c * tau ** (k - 1) if k else 0.0
    return h + 1.0 / (1.0 + tau * tau)


def viscosity_bracket(t):
    """Dynamic viscosity of water from a local table picked per element, linear between."""
    mu = [1.792, 0.890, 0.547, 0.378, 0.282]
    if t < 0.0 or t >= 100.0 or t != t:
        return -1.0
    k = int(t // 25.0)
    frac = (t - 25.0 * k) / 25.0
    upper = mu[k + 1] if k < 4 else mu[4]
    return mu[k] + (upper - mu[k]) * frac


def freezing_point_seawater(salinity, p_dbar):
    """A freezing-point correlation with its coefficients unpacked from a local tuple."""
    a0, a1, a2, b = (-0.0575, 1.710523e-3, -2.154996e-4, -7.53e-4)
    return a0 * salinity + a1 * abs(salinity) ** 1.5 + a2 * salinity**2 + b * p_dbar


# ----------------------------------------------------------------- series of special functions


def erf_taylor(x):
    """erf by its Taylor series, the terms collected in a list then summed."""
    factorials = [1, 1, 2, 6, 24, 120, 720, 5040]
    terms = []
    power = x
    for k in range(8):
        terms.append(power / ((2 * k + 1) * factorials[k]))
        power = -power * x * x
    return 2.0 / math.sqrt(math.pi) * sum(terms)


def bessel_j0_series(x):
    """J0 by its power series: each term from the last, appended, then summed."""
    terms = [1.0]
    q = -(x * x) / 4.0
    for k in range(1, 10):
        terms.append(terms[-1] * q / (k * k))
    return sum(terms)


def rational_center(p):
    """A rational approximation near p = 0.5, numerator and denominator from local lists."""
    num = [2.51, -30.66, 138.35, -275.93, 220.95, -39.70]
    den = [-13.28, 66.80, -155.70, 161.59, -54.48, 1.0]
    q = p - 0.5
    r = q * q
    top = 0.0
    for c in num:
        top = top * r + c
    bottom = 0.0
    for c in den:
        bottom = bottom * r + c
    return q * top / bottom


def clenshaw(x):
    """A Chebyshev series by Clenshaw's recurrence over a local coefficient list."""
    c = [1.266, 1.130, 0.271, 0.0443, 0.00547, 0.000543]
    y = max(-1.0, min(1.0, x))
    b1 = 0.0
    b2 = 0.0
    for ck in c[:0:-1]:
        b1, b2 = 2.0 * y * b1 - b2 + ck, b1
    return y * b1 - b2 + c[0]


def exp_pade(x):
    """exp by a (3, 3) Pade approximant: numerator and denominator as comprehension sums."""
    coeffs = (1.0, 0.5, 0.1, 1.0 / 120.0)
    num = sum(c * x**k for k, c in enumerate(coeffs))
    den = sum(c * (-x) ** k for k, c in enumerate(coeffs))
    return num / den


def log1p_series(x):
    """log1p by its alternating series; the powers are a list comprehension."""
    powers = [x**k for k in range(1, 9)]
    total = 0.0
    for k, pk in enumerate(powers, 1):
        total += (-1) ** (k + 1) * pk / k
    return total


# ----------------------------------------------------------------- crop and calendar models


def crop_coefficient(gdd):
    """FAO-style crop coefficient by growth stage: an elif chain without else."""
    if gdd < 200.0:
        kc = 0.35
    elif gdd < 700.0:
        kc = 0.35 + (gdd - 200.0) / 500.0 * 0.8
    elif gdd < 1300.0:
        kc = 1.15
    elif gdd >= 1300.0:
        kc = max(0.4, 1.15 - (gdd - 1300.0) / 800.0)
    return kc


def season_code(month):
    """Meteorological season; a month outside 1..12 takes no branch (UnboundLocalError)."""
    if 3 <= month <= 5:
        season = 1
    elif 6 <= month <= 8:
        season = 2
    elif 9 <= month <= 11:
        season = 3
    elif month == 12 or 1 <= month <= 2:
        season = 4
    return season * 100 + month


def quarter_start_day(month):
    """Day of the year a month's quarter starts; the quarter from an elif chain."""
    if month <= 3:
        q = 0
    elif month <= 6:
        q = 1
    elif month <= 9:
        q = 2
    elif month <= 12:
        q = 3
    starts = [1, 91, 182, 274]
    return starts[q]


def _stage_factor(day):
    if day < 30.0:
        return 0.3
    elif day < 90.0:
        return 1.0
    elif day >= 90.0:
        return 0.6


def biomass_gain(day, radiation):
    """A helper whose elif chain has no else: a NaN day gets None, and `*` raises TypeError."""
    return 2.8 * radiation * _stage_factor(day)


def stage_or_dormant(day):
    """The helper's None tested with `is None`."""
    f = _stage_factor(day)
    if f is None:
        return 0.0
    return f


def irrigation_need(moisture, stage):
    """Water need: a stage coefficient from a local dict, a moisture factor from an elif chain."""
    kc = {0: 0.4, 1: 0.8, 2: 1.1, 3: 0.7}
    if moisture < 0.15:
        factor = 1.0
    elif moisture < 0.3:
        factor = 0.5
    elif moisture >= 0.3:
        factor = 0.0
    return 5.0 * kc[stage] * factor


# ----------------------------------------------------------------- small lists built and reduced


def spread(a, b, c):
    """Largest minus smallest of three readings, and how many are positive."""
    readings = []
    for v in (a, b, c):
        readings.append(v)
    return max(readings) - min(readings) + sum(1 for r in readings if r > 0.0)


def trapezoid(x):
    """The integral of t**2 on [0, x] by the trapezoid rule over nodes collected in a list."""
    h = x / 4.0
    values = []
    for k in range(5):
        values.append((k * h) ** 2)
    return h * (sum(values) - 0.5 * (values[0] + values[-1]))


def balances(principal, rate):
    """Year-end balances over five years; the last one plus the average."""
    history = [principal]
    for _ in range(5):
        history.append(history[-1] * (1.0 + rate))
    return history[-1] + sum(history) / len(history)


def weighted_grade(a, b, c):
    scores = [a, b, c]
    weights = (0.2, 0.3, 0.5)
    return sum(s * w for s, w in zip(scores, weights)) / sum(weights)


def bracket_tax(income):
    """Income tax over bands local to the function."""
    tops = [12570.0, 50270.0, 125140.0]
    rates = [0.0, 0.2, 0.4, 0.45]
    tax = 0.0
    lower = 0.0
    for top, rate in zip(tops, rates):
        if income > lower:
            tax += (min(income, top) - lower) * rate
        lower = top
    if income > lower:
        tax += (income - lower) * rates[-1]
    return tax


def sorted_pair_gap(x, y):
    """Values stored into a list at constant and per-element positions."""
    slots = [0.0, 0.0]
    slots[0] = x
    slots[int(y > x)] = y
    return slots[1] - slots[0]


T_KELVIN = np.array([273.16, 300.0, 373.15, 500.0, 647.0, 647.1, 700.0, -0.0, 1e-300, np.inf, np.nan, 1e300])
TEMPS = np.array([-2.0, 0.0, -0.0, 4.0, 15.5, 25.0, 35.0, 99.9, 100.0, np.nan, np.inf, -np.inf, 1e-308])
SALINITY = np.array([0.0, 35.0, 40.0, -0.0, 1e-5, np.nan])
PROB = np.array([0.0, 0.02, 0.3, 0.5, 0.7, 0.98, 1.0, np.nan, -0.0])
SMALL = np.array([-2.0, -1.0, -0.5, -0.0, 0.0, 1e-9, 0.25, 0.5, 1.0, 2.0, np.nan, np.inf])
GDD = np.array([0.0, 199.9, 200.0, 450.0, 700.0, 1000.0, 1300.0, 2000.0, 4000.0, -1.0, np.nan, np.inf])
MONTHS = np.arange(-1, 15, dtype=np.int64)
DAYS = np.array([0.0, 29.9, 30.0, 60.0, 90.0, 200.0, -5.0, np.inf, np.nan])
MONEY = np.array([0.0, 100.0, 12570.0, 30000.0, 50270.0, 60000.0, 125140.0, 2e5, -10.0, np.nan, np.inf])

CORPUS = [
    (saturation_pressure_ratio, (T_KELVIN,)),
    (gibbs_region_like, grid(np.array([0.1, 3.0, 16.53, 50.0, -0.0, np.nan]), np.array([300.0, 500.0, 1386.0, 1e-3, np.inf]))),
    (seawater_density, grid(SALINITY, TEMPS)),
    (sound_speed_water, (TEMPS,)),
    (ideal_gas_enthalpy, (SMALL,)),
    (viscosity_bracket, (np.append(TEMPS, [24.999, 25.0, 75.0, 99.0]),)),
    (freezing_point_seawater, grid(SALINITY, np.array([0.0, 1000.0, -0.0, np.nan]))),
    (erf_taylor, (SMALL,)),
    (bessel_j0_series, (SMALL * 3.0,)),
    (rational_center, (PROB,)),
    (clenshaw, (SMALL,)),
    (exp_pade, (SMALL,)),
    (log1p_series, (SMALL * 0.5,)),
    (crop_coefficient, (GDD,)),
    (season_code, (MONTHS,)),
    (quarter_start_day, (MONTHS,)),
    (biomass_gain, grid(DAYS, np.array([0.0, 12.5, np.nan]))),
    (stage_or_dormant, (DAYS,)),
    (irrigation_need, grid(np.array([0.0, 0.1, 0.15, 0.2, 0.3, 0.9, np.nan, -0.0]), np.array([0, 1, 2, 3], dtype=np.int64))),
    (spread, grid(SMALL[::2], SMALL[1::3], np.array([0.0, -1.0, np.nan]))),
    (trapezoid, (SMALL * 10.0,)),
    (balances, grid(np.array([0.0, 100.0, -50.0, np.inf, np.nan]), np.array([0.0, 0.05, -1.0, -0.0]))),
    (weighted_grade, grid(np.array([0.0, 55.5, 100.0]), np.array([60.0, np.nan]), np.array([70.0, -0.0, np.inf]))),
    (bracket_tax, (MONEY,)),
    (sorted_pair_gap, grid(SMALL[::2], SMALL[1::2])),
]


@pytest.mark.parametrize("fn, args", CORPUS, ids=[fn.__name__ for fn, _ in CORPUS])
def test_corpus_matches_cpython(fn, args, backend):
    check_raising(vectorize(fn), *args, backend=backend, tolerance=0.0)


def test_the_corpus_raises_where_cpython_raises():
    # Elements outside a chain's branches or a helper's returns: CPython's exceptions.
    assert isinstance(check_raising(vectorize(season_code), MONTHS), UnboundLocalError)
    assert isinstance(check_raising(vectorize(quarter_start_day), MONTHS), UnboundLocalError)
    assert isinstance(check_raising(vectorize(biomass_gain), *grid(DAYS, np.array([1.0]))), TypeError)
    assert isinstance(check_raising(vectorize(crop_coefficient), GDD), UnboundLocalError)
