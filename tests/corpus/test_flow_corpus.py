"""Example corpus for truth values (D4) and several results (D13): functions written the way
colour science, geometry, psychrometrics and tax-benefit code write them, each compiled with
`@vectorize` and compared with CPython element by element on NumPy and array-api-strict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats, grid, ints

# ----------------------------------------------------------------------------- colour science


def rgb_to_hsl(r, g, b):
    hi = max(r, g, b)
    lo = min(r, g, b)
    lightness = (hi + lo) / 2.0
    if hi == lo:
        return 0.0, 0.0, lightness
    delta = hi - lo
    if lightness > 0.5:
        saturation = delta / (2.0 - hi - lo)
    else:
        saturation = delta / (hi + lo)
    if hi == r:
        hue = (g - b) / delta + (6.0 if g < b else 0.0)
    elif hi == g:
        hue = (b - r) / delta + 2.0
    else:
        hue = (r - g) / delta + 4.0
    return hue / 6.0, saturation, lightness


def rgb_to_hsv(r, g, b):
    value = max(r, g, b)
    chroma = value - min(r, g, b)
    if not chroma:
        return 0.0, 0.0, value
    saturation = chroma / value if value else 0.0
    if value == r:
        hue = ((g - b) / chroma) % 6.0
    elif value == g:
        hue = (b - r) / chroma + 2.0
    else:
        hue = (r - g) / chroma + 4.0
    return hue * 60.0, saturation, value


def relative_luminance(r, g, b):
    def linear(c):
        if c <= 0.04045:
            return c / 12.92
        return ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


# ----------------------------------------------------------------------------- geometry


def polar_to_cartesian(radius, theta):
    return radius * math.cos(theta), radius * math.sin(theta)


def cartesian_to_polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


def sincosd(angle):
    rad = math.radians(angle)
    return math.sin(rad), math.cos(rad)


def rotate_point(x, y, angle):
    s, c = sincosd(angle)
    return x * c - y * s, x * s + y * c


def wind_components(speed, direction):
    s, c = sincosd(direction)
    u = -speed * s
    v = -speed * c
    return u, v


def quadrant(x, y):
    if not x or not y:
        return 0
    if x > 0:
        return 1 if y > 0 else 4
    return 2 if y > 0 else 3


def radius_of(x, y):
    polar = cartesian_to_polar(x, y)
    return polar[0]


def quadratic_roots(a, b, c):
    if not a:
        if b:
            root = -c / b
            return root, root
        return math.nan, math.nan
    disc = b * b - 4.0 * a * c
    if disc < 0:
        return math.nan, math.nan
    sq = math.sqrt(disc)
    return (-b + sq) / (2.0 * a), (-b - sq) / (2.0 * a)


# ----------------------------------------------------------------------------- psychrometrics


def psychrometric_state(temp_c, rel_humidity):
    if rel_humidity <= 0:
        return -273.15, 0.0
    a, b = 17.62, 243.12
    gamma = math.log(rel_humidity) + a * temp_c / (b + temp_c)
    dew_point = b * gamma / (a - gamma)
    vapour = rel_humidity * 6.112 * math.exp(a * temp_c / (b + temp_c))
    humidity_ratio = 0.622 * vapour / (1013.25 - vapour)
    return dew_point, humidity_ratio


# ----------------------------------------------------------------------------- tax and benefits


def child_benefit(children, single_parent):
    if single_parent:
        if children:
            return 180.0 + 120.0 * children
        return 0.0
    if children:
        return 120.0 * children
    return 0.0


def average_claim(total, count):
    if count:
        return total / count
    return 0.0


def split_hours(hours, overtime_eligible):
    regular = min(hours, 40.0)
    overtime = hours - regular if overtime_eligible else 0.0
    return regular, overtime


def income_tax(income, married, dependants):
    allowance = 12570.0 * 2 if married else 12570.0
    if dependants:
        allowance = allowance + 1500.0 * dependants
    taxable = max(income - allowance, 0.0)
    tax = 0.2 * min(taxable, 37700.0) + 0.4 * max(taxable - 37700.0, 0.0)
    return tax, taxable


def housing_support(rent, income, disabled):
    eligible = rent and income < 20000.0
    if not eligible:
        return 0.0
    support = 0.8 * rent - 0.1 * income
    if disabled:
        support = support + 50.0
    return max(support, 0.0)


def wage_split(hours, rate):
    if hours > 40:
        return 40, (hours - 40) * rate * 1.5
    return hours, 0.0


CORPUS = {
    "rgb_to_hsl": (rgb_to_hsl, "uuu"),
    "rgb_to_hsv": (rgb_to_hsv, "uuu"),
    "relative_luminance": (relative_luminance, "uuu"),
    "polar_to_cartesian": (polar_to_cartesian, "ff"),
    "cartesian_to_polar": (cartesian_to_polar, "ff"),
    "sincosd": (sincosd, "f"),
    "rotate_point": (rotate_point, "fff"),
    "wind_components": (wind_components, "ff"),
    "quadrant": (quadrant, "ff"),
    "radius_of": (radius_of, "ff"),
    "quadratic_roots": (quadratic_roots, "fff"),
    "psychrometric_state": (psychrometric_state, "tr"),
    "child_benefit": (child_benefit, "ib"),
    "average_claim": (average_claim, "fi"),
    "split_hours": (split_hours, "fb"),
    "income_tax": (income_tax, "mbi"),
    "housing_support": (housing_support, "mmb"),
    "wage_split": (wage_split, "if"),
}

ULPS = {"relative_luminance": 4, "polar_to_cartesian": 4, "cartesian_to_polar": 4, "sincosd": 4,
        "rotate_point": 4, "wind_components": 4, "radius_of": 4, "psychrometric_state": 4, "rgb_to_hsl": 0}


def column(code: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    if code == "f":
        return floats(10, seed=1)[::2]
    if code == "u":  # unit interval, with its edges and a repeated value (grey pixels)
        return np.concatenate([[0.0, 1.0, 0.5, -0.0, 0.25], rng.uniform(0, 1, 4)])
    if code == "i":
        return np.concatenate([ints(4)[:9], [0, 0, 3]]).astype(np.int64)
    if code == "b":
        return np.array([False, True])
    if code == "t":  # temperatures in degrees Celsius
        return np.concatenate([[-40.0, 0.0, -0.0, 20.0, 45.0], rng.uniform(-30, 40, 5)])
    if code == "r":  # relative humidity, with the edges
        return np.concatenate([[0.0, -0.0, 1.0, 0.5, 1e-12, math.nan], rng.uniform(0, 1, 4)])
    if code == "m":  # money amounts
        return np.concatenate([[0.0, -0.0, 12570.0, 50270.0, 1e6, math.nan], rng.uniform(0, 150000, 4)])
    raise AssertionError(code)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_function_matches_cpython(name, backend):
    fn, codes = CORPUS[name]
    args = grid(*[column(c) for c in codes])
    check(vectorize(fn), *args, backend=backend, ulps=ULPS.get(name, 0))


def test_tuple_results_have_the_broadcast_shape(backend):
    vec = vectorize(polar_to_cartesian)
    radius = np.array([[1.0], [2.0]])
    theta = np.array([0.0, 0.5, 1.0])
    check(vec, radius, theta, backend=backend, ulps=4)
    check(vectorize(rgb_to_hsl), np.array([[0.1, 0.5]]), np.array([[0.2], [0.9]]), 0.5, backend=backend)
