"""Julian days and leap years of the proleptic Gregorian calendar (Meeus, chapter 7)."""

from calendar import isleap

from array_vectorize import vectorize

J2000 = 2451545.0
DAYS_PER_CENTURY = 36525.0


@vectorize
def julian_day(year, month, day):
    """Julian day at 0h UT of a Gregorian date (integer year and month, day with fraction)."""
    y = _march_year(year, month)
    m = _march_month(month)
    a = y // 100
    return int(365.25 * (y + 4716)) + int(30.6001 * (m + 1)) + day + _gregorian(a) - 1524.5


@vectorize
def julian_century(jd):
    """Julian centuries since J2000.0."""
    return (jd - J2000) / DAYS_PER_CENTURY


@vectorize
def days_in_year(year):
    """366 in a leap year, else 365 (the standard library's rule)."""
    return 366 if isleap(year) else 365


def _march_year(year, month):
    return year - 1 if month <= 2 else year


def _march_month(month):
    return month + 12 if month <= 2 else month


def _gregorian(century):
    return 2 - century + century // 4
