"""Calendars and solar time, as an astronomer's or a scheduler's utility module writes them:
ints for dates, floats for times of day, a leap-year helper called from several functions."""

from __future__ import annotations

import math

import numpy as np

from . import case

#: Days before the first of each month in a common year.
CUM_DAYS = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_CUM = np.array(CUM_DAYS, dtype=np.int64)


def is_leap_year(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _dates(rng, n):
    y = rng.integers(1600, 2400, n)
    m = rng.integers(1, 13, n)
    d = rng.integers(1, 29, n)
    return y, m, d


def _leap(y):
    return (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))


# ----------------------------------------------------------------------------- Julian date


def julian_date_hand(year, month, day, hour):
    early = month <= 2
    y = np.where(early, year - 1, year)
    m = np.where(early, month + 12, month)
    a = y // 100
    b = 2 - a + a // 4
    jdn = (1461 * (y + 4716)) // 4 + (153 * (m + 1)) // 5 + day + b - 1524
    return jdn + (hour - 12.0) / 24.0


@case("calendar", lambda rng, n: (*_dates(rng, n), rng.uniform(0.0, 24.0, n)), julian_date_hand)
def julian_date(year, month, day, hour):
    """Julian date of a Gregorian calendar date and a time of day in hours (UT)."""
    if month <= 2:
        year -= 1
        month += 12
    century = year // 100
    correction = 2 - century + century // 4
    jdn = (1461 * (year + 4716)) // 4 + (153 * (month + 1)) // 5 + day + correction - 1524
    return jdn + (hour - 12.0) / 24.0


# ----------------------------------------------------------------------------- decimal year


def decimal_year_hand(year, doy, hour):
    length = np.where(_leap(year), 366.0, 365.0)
    return year + ((doy - 1) + hour / 24.0) / length


@case(
    "calendar",
    lambda rng, n: (rng.integers(1900, 2100, n), rng.integers(1, 366, n), rng.uniform(0.0, 24.0, n)),
    decimal_year_hand,
)
def decimal_year(year, doy, hour):
    length = 366.0 if is_leap_year(year) else 365.0
    return year + ((doy - 1) + hour / 24.0) / length


# ----------------------------------------------------------------------------- day length


def day_length_hand(lat_deg, doy):
    decl = 0.409 * np.sin(2.0 * math.pi * (doy - 81.0) / 365.0)
    x = -np.tan(np.radians(lat_deg)) * np.tan(decl)
    with np.errstate(invalid="ignore"):
        h = np.degrees(np.arccos(np.clip(x, -1.0, 1.0)))
    return np.where(x >= 1.0, 0.0, np.where(x <= -1.0, 24.0, 2.0 * h / 15.0))


@case(
    "calendar",
    lambda rng, n: (rng.uniform(-89.0, 89.0, n), rng.uniform(1.0, 366.0, n)),
    day_length_hand,
)
def day_length(lat_deg, doy):
    """Hours of daylight at a latitude on a day of the year (a sine model of the declination)."""
    decl = 0.409 * math.sin(2.0 * math.pi * (doy - 81.0) / 365.0)
    x = -math.tan(math.radians(lat_deg)) * math.tan(decl)
    if x >= 1.0:
        return 0.0  # polar night
    if x <= -1.0:
        return 24.0  # midnight sun
    return 2.0 * math.degrees(math.acos(x)) / 15.0


# ----------------------------------------------------------------------------- equation of time


def equation_of_time_hand(doy):
    g = 2.0 * math.pi / 365.0 * (doy - 1.0)
    return 229.18 * (
        0.000075
        + 0.001868 * np.cos(g)
        - 0.032077 * np.sin(g)
        - 0.014615 * np.cos(2.0 * g)
        - 0.040849 * np.sin(2.0 * g)
    )


@case("calendar", lambda rng, n: (rng.uniform(1.0, 366.0, n),), equation_of_time_hand)
def equation_of_time(doy):
    """Minutes between apparent and mean solar time (Spencer's Fourier series)."""
    g = 2.0 * math.pi / 365.0 * (doy - 1.0)
    return 229.18 * (
        0.000075
        + 0.001868 * math.cos(g)
        - 0.032077 * math.sin(g)
        - 0.014615 * math.cos(2.0 * g)
        - 0.040849 * math.sin(2.0 * g)
    )


# ----------------------------------------------------------------------------- week number


def week_of_year_hand(year, month, day):
    doy = np.take(_CUM, month - 1) + day + ((month > 2) & _leap(year))
    py = year - 1
    jan1 = (py * 365 + py // 4 - py // 100 + py // 400) % 7  # 0 = Monday
    return (doy - 1 + jan1) // 7 + 1


# raises: `CUM_DAYS[month - 1]` is an IndexError for a month of 13 or more (or -12 and below).
@case("calendar", lambda rng, n: _dates(rng, n), week_of_year_hand, raises=True)
def week_of_year(year, month, day):
    """Week of the year counted from the week holding January 1, weeks starting on Monday."""
    doy = CUM_DAYS[month - 1] + day
    if month > 2 and is_leap_year(year):
        doy += 1
    py = year - 1
    jan1 = (py * 365 + py // 4 - py // 100 + py // 400) % 7
    return (doy - 1 + jan1) // 7 + 1
