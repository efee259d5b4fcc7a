"""Small numerical helpers shared by the modules, and the one place that says which library
computes the elementary functions."""

from __future__ import annotations

import math
from math import atan2, cos, exp, log, log10, pi, sin, sqrt, tan  # noqa: F401 - re-exported

import numpy as np

__all__ = ["clamp", "horner", "wrap360", "interp_linear", "sind", "cosd", "cbrt", "np"]


def clamp(x: float, lo: float, hi: float) -> float:
    """x limited to [lo, hi]."""
    return max(lo, min(hi, x))


def horner(x: float, coeffs) -> float:
    """Polynomial with coefficients from the highest power down, evaluated at x."""
    result = 0.0
    for c in coeffs:
        result = result * x + c
    return result


def wrap360(angle: float) -> float:
    """An angle in degrees reduced to [0, 360)."""
    return angle % 360.0


def sind(x: float) -> float:
    return math.sin(math.radians(x))


def cosd(x: float) -> float:
    return math.cos(math.radians(x))


def cbrt(x: float) -> float:
    """Real cube root, negative for negative x."""
    return math.copysign(abs(x) ** (1.0 / 3.0), x)


def interp_linear(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    if x1 == x0:
        raise ZeroDivisionError("interpolation nodes coincide")
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
