"""Calendar arithmetic on dates given as year, month and day numbers (proleptic Gregorian):
leap years, day of year, Julian day numbers both ways, weekdays, Easter, ISO weeks, month
arithmetic."""

import calendar
import datetime
from calendar import isleap

DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
# Sakamoto's month offsets
_MONTH_KEY = (0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4)


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def day_of_year(year, month, day):
    doy = DAYS_BEFORE_MONTH[month] + day
    if month > 2 and isleap(year):
        doy += 1
    return doy


def days_in_month(year, month):
    if not 1 <= month <= 12:
        raise ValueError(f"bad month number {month}; must be 1-12")
    if month == 2 and calendar.isleap(year):
        return 29
    return DAYS_IN_MONTH[month - 1]


def julian_day_number(year, month, day):
    """Julian day number of a Gregorian date (integer arithmetic, valid for all years)."""
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045


def civil_from_jdn(jdn):
    """(year, month, day) of a Julian day number."""
    f = jdn + 1401 + (((4 * jdn + 274277) // 146097) * 3) // 4 - 38
    e = 4 * f + 3
    g = (e % 1461) // 4
    h = 5 * g + 2
    day = (h % 153) // 5 + 1
    month = (h // 153 + 2) % 12 + 1
    year = e // 1461 - 4716 + (12 + 2 - month) // 12
    return year, month, day


def weekday(year, month, day):
    """Day of the week, 0 for Monday to 6 for Sunday, as datetime.date.weekday()."""
    if month < 3:
        year -= 1
    sunday_based = (year + year // 4 - year // 100 + year // 400 + _MONTH_KEY[month - 1] + day) % 7
    return (sunday_based + 6) % 7


def easter(year):
    """(month, day) of Easter Sunday in the Gregorian calendar (the anonymous algorithm)."""
    if year < 1583:
        raise ValueError("the Gregorian computus starts in 1583, got %d" % year)
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return month, day + 1


def iso_week(year, month, day):
    """ISO 8601 week number of a date."""
    doy = day_of_year(year, month, day)
    wd = weekday(year, month, day)
    week = (doy - wd + 9) // 7
    if week < 1:
        prev = year - 1
        dec31 = weekday(prev, 12, 31)
        return 53 if dec31 == 3 or (dec31 == 4 and is_leap(prev)) else 52
    if week == 53:
        jan1_next = weekday(year + 1, 1, 1)
        if jan1_next <= 3:
            return 1
    return week


def days_between(y1, m1, d1, y2, m2, d2):
    return julian_day_number(y2, m2, d2) - julian_day_number(y1, m1, d1)


def add_months(year, month, day, months):
    """The date `months` later, the day clipped to the month's length."""
    total = year * 12 + (month - 1) + months
    y, m0 = divmod(total, 12)
    last = calendar.monthrange(y, m0 + 1)[1]
    return y, m0 + 1, min(day, last)


def ordinal(year, month, day):
    """Proleptic Gregorian ordinal, 1 for 1 January of year 1."""
    return datetime.date(year, month, day).toordinal()


def decimal_year(year, month, day):
    days = 366.0 if isleap(year) else 365.0
    return year + (day_of_year(year, month, day) - 1) / days


def end_of_month(year, month):
    """Last day of the month, through the day before the first of the next month."""
    if month == 12:
        return 31
    return julian_day_number(year, month + 1, 1) - julian_day_number(year, month, 1)
