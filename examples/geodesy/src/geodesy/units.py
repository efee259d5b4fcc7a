"""Angle units and the small numeric helpers the other modules share."""

from math import pi

RAD = pi / 180.0  # radians per degree: a constant expression of another constant
DEG = 180.0 / pi
ARCSEC = RAD / 3600.0


def to_rad(deg):
    return deg * RAD


def to_deg(rad):
    return rad * DEG


# A helper bound to a lambda, as numeric code often writes one-liners.
wrap180 = lambda deg: (deg + 180.0) % 360.0 - 180.0  # noqa: E731


def clamp(x, lo, hi):
    return min(max(x, lo), hi)
