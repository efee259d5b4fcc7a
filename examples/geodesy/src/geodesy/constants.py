"""The WGS 84 ellipsoid and the quantities derived from it, each computed from the others."""

from .units import to_rad

A = 6378137.0  # semi-major axis, m
INV_F = 298.257223563  # inverse flattening
F = 1.0 / INV_F  # flattening
B = A * (1.0 - F)  # semi-minor axis, m
E2 = F * (2.0 - F)  # first eccentricity squared
EP2 = E2 / (1.0 - E2)  # second eccentricity squared
MEAN_RADIUS = (2.0 * A + B) / 3.0  # IUGG mean radius, m
POLE = to_rad(90.0)  # computed by a helper of the package, from a constant
