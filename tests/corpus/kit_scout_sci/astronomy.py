"""Positional astronomy in the manner of Meeus-style and solar-position code: Julian days,
the Sun's coordinates, sidereal time, Kepler's equation, magnitudes."""

from __future__ import annotations

import math
from math import radians, degrees

from . import constants as C
from .constants import J2000, JULIAN_CENTURY
from .numerics import horner, wrap360, sind, cosd

MAX_KEPLER_ITER = 30


def julian_day(year: int, month: int, day: float) -> float:
    """Julian day of a Gregorian calendar date (Meeus, ch. 7)."""
    if month <= 2:
        year -= 1
        month += 12
    a = year // 100
    b = 2 - a + a // 4
    return int(365.25 * (year + 4716)) + int(30.6001 * (month + 1)) + day + b - 1524.5


def julian_century(jd: float) -> float:
    return (jd - J2000) / JULIAN_CENTURY


def sun_mean_longitude(T: float) -> float:
    """Geometric mean longitude of the Sun [deg] for Julian century T."""
    return wrap360(280.46646 + T * (36000.76983 + T * 0.0003032))


def sun_equation_of_center(T: float) -> float:
    M = radians(357.52911 + T * (35999.05029 - 0.0001537 * T))
    return (math.sin(M) * (1.914602 - T * (0.004817 + 0.000014 * T))
            + math.sin(2 * M) * (0.019993 - 0.000101 * T) + math.sin(3 * M) * 0.000289)


def sun_declination(T: float) -> float:
    """Apparent declination of the Sun [deg]."""
    lon = sun_mean_longitude(T) + sun_equation_of_center(T)
    omega = 125.04 - 1934.136 * T
    apparent = lon - 0.00569 - 0.00478 * sind(omega)
    eps0 = 23.0 + (26.0 + (21.448 - T * (46.815 + T * (0.00059 - T * 0.001813))) / 60.0) / 60.0
    eps = eps0 + 0.00256 * cosd(omega)
    return degrees(math.asin(sind(eps) * sind(apparent)))


def equation_of_time(T: float) -> float:
    """Equation of time [minutes]."""
    eps = radians(23.4393 - 0.013 * T)
    y = math.tan(eps / 2) ** 2
    l0 = radians(sun_mean_longitude(T))
    e = 0.016708634 - T * (0.000042037 + 0.0000001267 * T)
    m = radians(357.52911 + T * (35999.05029 - 0.0001537 * T))
    eot = (y * math.sin(2 * l0) - 2 * e * math.sin(m) + 4 * e * y * math.sin(m) * math.cos(2 * l0)
           - 0.5 * y * y * math.sin(4 * l0) - 1.25 * e * e * math.sin(2 * m))
    return 4 * degrees(eot)


def hour_angle_sunrise(lat: float, decl: float, altitude: float = -0.833) -> float:
    """Hour angle [deg] of sunrise; 0 for polar night, 180 for midnight sun."""
    cos_h = (sind(altitude) - sind(lat) * sind(decl)) / (cosd(lat) * cosd(decl))
    if cos_h > 1:
        return 0.0
    if cos_h < -1:
        return 180.0
    return degrees(math.acos(cos_h))


def greenwich_mean_sidereal_time(jd: float) -> float:
    """GMST [deg] (IAU 1982 polynomial)."""
    T = (jd - J2000) / JULIAN_CENTURY
    gmst = 280.46061837 + 360.98564736629 * (jd - J2000) + T * T * (0.000387933 - T / 38710000.0)
    return gmst % 360


def solve_kepler(M: float, e: float, tol: float = 1e-12) -> float:
    """Eccentric anomaly [rad] from the mean anomaly M [rad] for an elliptic orbit (Newton)."""
    if not 0.0 <= e < 1.0:
        raise ValueError(f"eccentricity must be in [0, 1), got {e!r}")
    E = M if e < 0.8 else math.pi
    for _ in range(MAX_KEPLER_ITER):
        dE = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E -= dE
        if abs(dE) < tol:
            break
    return E


def true_anomaly(M: float, e: float) -> float:
    E = solve_kepler(M, e)
    return 2.0 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))


def angular_separation(ra1, dec1, ra2, dec2):
    """Angle [deg] between two directions given in degrees (Vincenty's formula)."""
    ra1, dec1, ra2, dec2 = map(radians, (ra1, dec1, ra2, dec2))
    sdlon = math.sin(ra2 - ra1)
    cdlon = math.cos(ra2 - ra1)
    num1 = math.cos(dec2) * sdlon
    num2 = math.cos(dec1) * math.sin(dec2) - math.sin(dec1) * math.cos(dec2) * cdlon
    denom = math.sin(dec1) * math.sin(dec2) + math.cos(dec1) * math.cos(dec2) * cdlon
    return degrees(math.atan2(math.hypot(num1, num2), denom))


def distance_modulus(distance_pc: float) -> float:
    if distance_pc <= 0:
        raise ValueError("distance must be positive")
    return 5.0 * math.log10(distance_pc) - 5.0


def flux_to_magnitude(flux: float, zero_point: float = 25.0) -> float:
    return -2.5 * math.log10(flux) + zero_point


def refraction_bennett(altitude_deg: float) -> float:
    """Atmospheric refraction [arcmin] for an apparent altitude [deg] (Bennett 1982)."""
    return 1.0 / math.tan(radians(altitude_deg + 7.31 / (altitude_deg + 4.4)))


def nutation_longitude(T: float) -> float:
    """Nutation in longitude [arcsec], the four largest terms."""
    omega = radians(horner(T, (1.0 / 450000.0, 0.0020708, -1934.136261, 125.04452)))
    L = radians(280.4665 + 36000.7698 * T)
    Lp = radians(218.3165 + 481267.8813 * T)
    return -17.20 * math.sin(omega) - 1.32 * math.sin(2 * L) - 0.23 * math.sin(2 * Lp) + 0.21 * math.sin(2 * omega)


def orbital_period_days(a_au: float, mass_solar: float = 1.0) -> float:
    return 365.25636 * math.sqrt(a_au ** 3 / mass_solar)


def earth_sun_distance(T: float) -> float:
    """Earth-Sun distance [m]."""
    e = 0.016708634 - T * (0.000042037 + 0.0000001267 * T)
    M = radians(357.52911 + T * (35999.05029 - 0.0001537 * T))
    nu = M + radians(sun_equation_of_center(T))
    return C.au * 1.000001018 * (1 - e * e) / (1 + e * math.cos(nu))
