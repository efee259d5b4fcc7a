"""Special functions by series, polynomial approximations and iterations, as a numerics module
writes them: the handbook's approximations with two branches, recurrences over constant ranges,
coefficient tables, a solver iterating to a tolerance."""

from __future__ import annotations

import math

import numpy as np

from . import case

# ----------------------------------------------------------------------------- Bessel J0


def bessel_j0_hand(x):
    ax = np.abs(x)
    y = (ax / 3.0) ** 2
    small = 1.0 + y * (-2.2499997 + y * (1.2656208 + y * (-0.3163866 + y * (0.0444479 + y * (-0.0039444 + y * 0.0002100)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = 3.0 / ax
        f0 = 0.79788456 + z * (-0.00000077 + z * (-0.00552740 + z * (-0.00009512 + z * (0.00137237 + z * (-0.00072805 + z * 0.00014476)))))
        th = ax - 0.78539816 + z * (-0.04166397 + z * (-0.00003954 + z * (0.00262573 + z * (-0.00054125 + z * (-0.00029333 + z * 0.00013558)))))
        large = f0 * np.cos(th) / np.sqrt(ax)
    return np.where(ax <= 3.0, small, large)


@case("series", lambda rng, n: (rng.uniform(-20.0, 20.0, n),), bessel_j0_hand)
def bessel_j0(x):
    """J0 by the polynomial approximations of Abramowitz and Stegun 9.4.1 and 9.4.3."""
    ax = abs(x)
    if ax <= 3.0:
        y = (ax / 3.0) ** 2
        return 1.0 + y * (-2.2499997 + y * (1.2656208 + y * (-0.3163866 + y * (0.0444479 + y * (-0.0039444 + y * 0.0002100)))))
    z = 3.0 / ax
    f0 = 0.79788456 + z * (-0.00000077 + z * (-0.00552740 + z * (-0.00009512 + z * (0.00137237 + z * (-0.00072805 + z * 0.00014476)))))
    theta = ax - 0.78539816 + z * (-0.04166397 + z * (-0.00003954 + z * (0.00262573 + z * (-0.00054125 + z * (-0.00029333 + z * 0.00013558)))))
    return f0 * math.cos(theta) / math.sqrt(ax)


# ----------------------------------------------------------------------------- exponential integral


def expint_e1_hand(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        small = -np.log(x) + (-0.57721566 + x * (0.99999193 + x * (-0.24991055 + x * (0.05519968 + x * (-0.00976004 + x * 0.00107857)))))
        num = x * (x * (x * (x + 8.5733287401) + 18.0590169730) + 8.6347608925) + 0.2677737343
        den = x * (x * (x * (x + 9.5733223454) + 25.6329561486) + 21.0996530827) + 3.9584969228
        large = num / den / (x * np.exp(x))
    return np.where(x <= 0.0, math.inf, np.where(x <= 1.0, small, large))


@case("series", lambda rng, n: (rng.uniform(0.01, 8.0, n),), expint_e1_hand)
def expint_e1(x):
    """E1(x) for x > 0 (Abramowitz and Stegun 5.1.53 and 5.1.56)."""
    if x <= 0.0:
        return math.inf
    if x <= 1.0:
        return -math.log(x) + (-0.57721566 + x * (0.99999193 + x * (-0.24991055 + x * (0.05519968 + x * (-0.00976004 + x * 0.00107857)))))
    num = x * (x * (x * (x + 8.5733287401) + 18.0590169730) + 8.6347608925) + 0.2677737343
    den = x * (x * (x * (x + 9.5733223454) + 25.6329561486) + 21.0996530827) + 3.9584969228
    return num / den / (x * math.exp(x))


# ----------------------------------------------------------------------------- Lanczos gamma

LANCZOS_G = 7.0
LANCZOS = (
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _lanczos_positive_hand(z):
    z = z - 1.0
    s = np.full(z.shape, LANCZOS[0])
    for k in range(1, 9):
        s = s + LANCZOS[k] / (z + k)
    t = z + LANCZOS_G + 0.5
    return math.sqrt(2.0 * math.pi) * t ** (z + 0.5) * np.exp(-t) * s


def lanczos_gamma_hand(x):
    with np.errstate(all="ignore"):
        reflected = math.pi / (np.sin(math.pi * x) * _lanczos_positive_hand(1.0 - x))
        direct = _lanczos_positive_hand(x)
    return np.where(x < 0.5, reflected, direct)


def _lanczos_positive(z):
    z -= 1.0
    s = LANCZOS[0]
    for k in range(1, 9):
        s += LANCZOS[k] / (z + k)
    t = z + LANCZOS_G + 0.5
    return math.sqrt(2.0 * math.pi) * t ** (z + 0.5) * math.exp(-t) * s


@case("series", lambda rng, n: (rng.uniform(-4.5, 10.0, n),), lanczos_gamma_hand)
def lanczos_gamma(x):
    """Gamma by Lanczos' approximation (g = 7, nine terms), reflected below 1/2."""
    if x < 0.5:
        return math.pi / (math.sin(math.pi * x) * _lanczos_positive(1.0 - x))
    return _lanczos_positive(x)


# ----------------------------------------------------------------------------- Legendre series

#: Coefficients c0..c7 of a Legendre expansion of an angular distribution.
LEGENDRE_COEFFS = (1.0, 0.42, -0.31, 0.12, 0.07, -0.035, 0.012, -0.004)


def legendre_series_hand(x):
    p_prev = np.ones_like(x)
    p = x
    total = LEGENDRE_COEFFS[0] + LEGENDRE_COEFFS[1] * x
    for n in range(1, 7):
        p_next = ((2 * n + 1) * x * p - n * p_prev) / (n + 1)
        total = total + LEGENDRE_COEFFS[n + 1] * p_next
        p_prev, p = p, p_next
    return total


@case("series", lambda rng, n: (rng.uniform(-1.0, 1.0, n),), legendre_series_hand)
def legendre_series(x):
    """sum c_n P_n(x) by Bonnet's recurrence."""
    p_prev = 1.0
    p = x
    total = LEGENDRE_COEFFS[0] + LEGENDRE_COEFFS[1] * x
    for n in range(1, 7):
        p_next = ((2 * n + 1) * x * p - n * p_prev) / (n + 1)
        total += LEGENDRE_COEFFS[n + 1] * p_next
        p_prev, p = p, p_next
    return total


# ----------------------------------------------------------------------------- normal CDF


def normal_cdf_hand(x):
    ax = np.abs(x)
    t = 1.0 / (1.0 + 0.2316419 * ax)
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    upper = 1.0 - np.exp(-0.5 * ax * ax) / math.sqrt(2.0 * math.pi) * poly
    return np.where(x >= 0.0, upper, 1.0 - upper)


@case("series", lambda rng, n: (rng.normal(0.0, 2.0, n),), normal_cdf_hand)
def normal_cdf(x):
    """Phi(x) by the Zelen-Severo approximation (Abramowitz and Stegun 26.2.17)."""
    ax = abs(x)
    t = 1.0 / (1.0 + 0.2316419 * ax)
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    upper = 1.0 - math.exp(-0.5 * ax * ax) / math.sqrt(2.0 * math.pi) * poly
    if x >= 0.0:
        return upper
    return 1.0 - upper


# ----------------------------------------------------------------------------- Debye function

PI4_15 = math.pi**4 / 15.0


def debye3_hand(x):
    x2 = x * x
    small = 1.0 - 3.0 * x / 8.0 + x2 / 20.0 - x2 * x2 / 1680.0 + x2 * x2 * x2 / 90720.0
    tail = np.zeros_like(x)
    for k in range(1, 6):
        tail = tail + np.exp(-k * x) * (x2 * x / k + 3.0 * x2 / k**2 + 6.0 * x / k**3 + 6.0 / k**4)
    large = 3.0 / (x2 * x) * (PI4_15 - tail)
    return np.where(x < 2.0, small, large)


@case("series", lambda rng, n: (rng.uniform(0.01, 12.0, n),), debye3_hand)
def debye3(x):
    """The Debye function D3(x): its series below 2, the exponential sum above."""
    x2 = x * x
    if x < 2.0:
        return 1.0 - 3.0 * x / 8.0 + x2 / 20.0 - x2 * x2 / 1680.0 + x2 * x2 * x2 / 90720.0
    tail = 0.0
    for k in range(1, 6):
        tail += math.exp(-k * x) * (x2 * x / k + 3.0 * x2 / k**2 + 6.0 * x / k**3 + 6.0 / k**4)
    return 3.0 / (x2 * x) * (PI4_15 - tail)


# ----------------------------------------------------------------------------- Fresnel C


def fresnel_c_hand(x):
    a = 0.5 * math.pi
    term = x.copy()
    total = x.copy()
    x4 = x * x * x * x
    for n in range(1, 14):
        term = -term * a * a * x4 / ((2 * n) * (2 * n - 1))
        total = total + term / (4 * n + 1)
    return total


@case("series", lambda rng, n: (rng.uniform(-2.0, 2.0, n),), fresnel_c_hand)
def fresnel_c(x):
    """The Fresnel integral C(x) by its power series (|x| <= 2)."""
    a = 0.5 * math.pi
    term = x
    total = x
    x4 = x * x * x * x
    for n in range(1, 14):
        term = -term * a * a * x4 / ((2 * n) * (2 * n - 1))
        total += term / (4 * n + 1)
    return total


# ----------------------------------------------------------------------------- Lambert W


def lambert_w0_hand(x):
    w = np.where(x < 1.0, x * (1.0 - x), np.log1p(x))
    w = np.where(x < -0.36787944117144233, math.nan, w)
    active = ~np.isnan(w)
    n = 0
    while active.any() and n < 50:
        ew = np.exp(w)
        f = w * ew - x
        dw = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        w = np.where(active, w - dw, w)
        active = active & (np.abs(dw) > 1e-12 * (1.0 + np.abs(w)))
        n += 1
    return w


@case("series", lambda rng, n: (rng.uniform(-0.3, 50.0, n),), lambert_w0_hand)
def lambert_w0(x):
    """The principal branch of Lambert's W by Halley's iteration to a relative tolerance."""
    if x < -0.36787944117144233:
        return math.nan
    w = x * (1.0 - x) if x < 1.0 else math.log1p(x)
    n = 0
    while n < 50:
        ew = math.exp(w)
        f = w * ew - x
        dw = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        w -= dw
        if abs(dw) <= 1e-12 * (1.0 + abs(w)):
            break
        n += 1
    return w
