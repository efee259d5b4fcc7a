"""Geodesy on arrays: the WGS 84 ellipsoid, map projections and Julian days.

Every function is written for one coordinate, as a textbook gives it, and marked with
``@vectorize``: it takes arrays of any Array API library (NumPy, JAX, ...) element by element.
"""

from .ellipsoid import Wgs84, geodetic_to_ecef_z, surface_distance
from .errors import GeodesyError, LatitudeError
from .projections import mercator_y, transverse_scale, web_mercator_y
from .timescales import days_in_year, julian_century, julian_day

__all__ = [
    "GeodesyError",
    "LatitudeError",
    "Wgs84",
    "days_in_year",
    "geodetic_to_ecef_z",
    "julian_century",
    "julian_day",
    "mercator_y",
    "surface_distance",
    "transverse_scale",
    "web_mercator_y",
]
