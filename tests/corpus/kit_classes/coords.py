"""Coordinate conversions whose helpers return namedtuples (issue 27 part 2 item 4, D13): a
`collections.namedtuple` and a `typing.NamedTuple` class, read by attribute (`p.r`), unpacked
(`lat, lon = ...`) or indexed with a constant inside the functions, which return plain tuples."""

import math
from collections import namedtuple
from typing import NamedTuple

from array_vectorize import vectorize

Polar = namedtuple("Polar", "r theta")
EARTH_RADIUS_M = 6_371_008.8


class Geo(NamedTuple):
    """A point on the sphere, degrees."""

    lat: float
    lon: float


def to_polar(x, y):
    return Polar(math.hypot(x, y), math.atan2(y, x))


def from_polar(r, theta):
    return (r * math.cos(theta), r * math.sin(theta))


def to_geo(x, y, z):
    return Geo(lon=math.degrees(math.atan2(y, x)), lat=math.degrees(math.atan2(z, math.hypot(x, y))))


@vectorize
def polar_radius(x, y):
    return to_polar(x, y).r


@vectorize
def rotate(x, y, degrees):
    p = to_polar(x, y)
    return from_polar(p.r, p.theta + math.radians(degrees))


@vectorize
def bearing_quadrant(x, y):
    angle = to_polar(x, y)[1]
    if angle < 0.0:
        angle += 2.0 * math.pi
    return int(angle // (math.pi / 2.0))


@vectorize
def latitude_of(x, y, z):
    lat, lon = to_geo(x, y, z)
    return lat


@vectorize
def arc_from_origin_m(x, y, z):
    g = to_geo(x, y, z)
    return EARTH_RADIUS_M * math.radians(abs(g.lat) + abs(g.lon))
