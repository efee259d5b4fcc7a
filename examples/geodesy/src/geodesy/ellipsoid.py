"""Radii of curvature and latitudes on the WGS 84 ellipsoid."""

import math

from array_vectorize import vectorize

from .constants import A, E2, MEAN_RADIUS, POLE
from .errors import LatitudeError
from .units import RAD, clamp, to_rad, wrap180


class Wgs84:
    """The ellipsoid's formulas, as a namespace: each takes a geodetic latitude in degrees."""

    A = 6378137.0
    E2 = 0.0066943799901413165

    @staticmethod
    def prime_vertical(phi):
        s = math.sin(phi)
        return Wgs84.A / math.sqrt(1.0 - Wgs84.E2 * s * s)

    @staticmethod
    @vectorize
    def normal_radius(lat):
        """Radius of curvature in the prime vertical, m."""
        return Wgs84.prime_vertical(lat * RAD)

    @vectorize
    @staticmethod
    def meridian_radius(lat):
        """Radius of curvature in the meridian, m."""
        s = math.sin(lat * RAD)
        w = 1.0 - Wgs84.E2 * s * s
        return Wgs84.A * (1.0 - Wgs84.E2) / (w * math.sqrt(w))

    @classmethod
    @vectorize
    def geocentric_latitude(cls, lat):
        """Geocentric latitude of a geodetic latitude, degrees."""
        return math.atan2((1.0 - cls.E2) * math.sin(lat * RAD), math.cos(lat * RAD)) / RAD

    @vectorize
    @classmethod
    def reduced_latitude(cls, lat):
        """Parametric (reduced) latitude of a geodetic latitude, degrees."""
        return math.atan2(math.sqrt(1.0 - cls.E2) * math.sin(lat * RAD), math.cos(lat * RAD)) / RAD

    class Sphere:
        """The mean sphere of the ellipsoid."""

        @staticmethod
        @vectorize
        def arc_length(angle):
            """Length of an arc of `angle` degrees on the mean sphere, m."""
            return wrap180(angle) * RAD * MEAN_RADIUS


@vectorize
def geodetic_to_ecef_z(lat, height):
    """Earth-centred z of a point at latitude `lat` (degrees) and ellipsoidal height, m."""
    phi = to_rad(lat)
    if abs(phi) > POLE:
        raise LatitudeError(f"latitude {lat} is beyond a pole")
    n = _prime_vertical(phi)
    return (n * (1.0 - E2) + height) * math.sin(phi)


@vectorize
def surface_distance(lat1, lon1, lat2, lon2):
    """Great-circle distance on the mean sphere (haversine), m."""
    p1, p2 = to_rad(lat1), to_rad(lat2)
    dlat = p2 - p1
    dlon = to_rad(wrap180(lon2 - lon1))
    h = math.sin(dlat / 2.0) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2.0) ** 2
    return 2.0 * MEAN_RADIUS * math.asin(math.sqrt(clamp(h, 0.0, 1.0)))


def _prime_vertical(phi):
    # Defined below the function that calls it: CPython looks it up when that function runs.
    s = math.sin(phi)
    return A / math.sqrt(1.0 - E2 * s * s)
