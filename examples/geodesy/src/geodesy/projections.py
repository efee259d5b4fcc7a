"""Conformal projections of the sphere, made for a scale factor each by a factory."""

import math

from array_vectorize import vectorize

from .constants import MEAN_RADIUS, POLE
from .units import RAD, clamp


def _mercator(k0, radius=MEAN_RADIUS):
    """The Mercator northing function of scale factor `k0` on a sphere of `radius`."""

    @vectorize
    def northing(lat):
        """Mercator northing of a latitude in degrees, m (clamped short of the poles)."""
        phi = clamp(lat * RAD, -POLE + 1e-9, POLE - 1e-9)
        return k0 * radius * math.log(math.tan(0.25 * math.pi + 0.5 * phi))

    return northing


# One precompiled function per call (the build reads each call's arguments).
mercator_y = _mercator(1.0)
web_mercator_y = _mercator(1.0, radius=6378137.0)
transverse_y = _mercator(k0=0.9996)


@vectorize
def transverse_scale(lon, central):
    """Point scale of a transverse projection with the secant factor of UTM, at a longitude."""
    dl = (lon - central) * RAD
    return 0.9996 * (1.0 + 0.5 * dl * dl)
