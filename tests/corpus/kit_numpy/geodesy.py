"""Geodesy on the sphere and the WGS84 ellipsoid, with NumPy's functions imported by name."""

import numpy as xnp
from numpy import arcsin, arctan, arctan2, cos, degrees, exp, pi, radians, sin, sqrt, tan

from array_vectorize import vectorize

R_EARTH = 6_371_008.8
WGS84_A = 6_378_137.0
WGS84_F = 0.0033528106647474805  # 1 / 298.257223563
# A made-up polynomial correction (metres) in latitude, highest power first.
GEOID_POLY = (1.2e-9, -3.4e-5, 0.21, 17.0)


@vectorize
def haversine_m(lat1, lon1, lat2, lon2):
    p1, p2 = radians(lat1), radians(lat2)
    dl = radians(lon2 - lon1)
    h = sin((p2 - p1) / 2) ** 2 + cos(p1) * cos(p2) * sin(dl / 2) ** 2
    return 2 * R_EARTH * arcsin(sqrt(h))


@vectorize
def initial_bearing_deg(lat1, lon1, lat2, lon2):
    p1, p2 = radians(lat1), radians(lat2)
    dl = radians(lon2 - lon1)
    y = sin(dl) * cos(p2)
    x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
    b = degrees(arctan2(y, x))
    return b + 360.0 if b < 0.0 else b


@vectorize
def reduced_latitude_deg(lat):
    return degrees(arctan((1 - WGS84_F) * tan(radians(lat))))


@vectorize
def prime_vertical_radius(lat):
    e2 = WGS84_F * (2 - WGS84_F)
    s = sin(radians(lat))
    return WGS84_A / sqrt(1 - e2 * s * s)


@vectorize
def mercator_y(lat):
    phi = radians(xnp.clip(lat, -85.0511, 85.0511))
    return R_EARTH * xnp.log(tan(pi / 4 + phi / 2))


@vectorize
def barometric_pressure(height_m):
    return 101_325.0 * exp(-height_m / 8_434.5)


@vectorize
def geoid_offset(lat):
    lat = xnp.asarray(lat)
    return xnp.polyval(GEOID_POLY, lat)


@vectorize
def grid_cell(lat):
    if not xnp.isfinite(lat):
        return -1
    lat = xnp.clip(xnp.asarray(lat, dtype=float), -90.0, 90.0)
    return xnp.floor(lat / 0.25).astype(int) + xnp.zeros_like(lat, dtype=int)
