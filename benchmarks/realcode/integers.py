"""Exact integer and bool bodies: leap years, day numbers, weekdays, digit and bit arithmetic,
calendar conversions. Each has the NumPy a careful person writes for int64 arrays."""

from __future__ import annotations

import numpy as np

from . import case

CUM_DAYS = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_CUM = np.array(CUM_DAYS, dtype=np.int64)
_MONTH = np.array(MONTH_DAYS, dtype=np.int64)


def _years(rng, n):
    return (rng.integers(1, 4000, n),)


def _dates(rng, n):
    return rng.integers(1, 4000, n), rng.integers(1, 13, n), rng.integers(1, 29, n)


def _leap(y):
    return (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))


# ----------------------------------------------------------------------------- leap years


@case("calendar", _years, _leap, integer=True)
def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def day_of_year_hand(y, m, d):
    return np.take(_CUM, m - 1) + d + ((m > 2) & _leap(y))


@case("calendar", _dates, day_of_year_hand, integer=True)
def day_of_year(y, m, d):
    n = CUM_DAYS[m - 1] + d
    if m > 2 and is_leap(y):
        n += 1
    return n


def days_in_month_hand(y, m):
    return np.take(_MONTH, m - 1) + ((m == 2) & _leap(y))


@case("calendar", lambda rng, n: _dates(rng, n)[:2], days_in_month_hand, integer=True)
def days_in_month(y, m):
    if m == 2 and is_leap(y):
        return 29
    return MONTH_DAYS[m - 1]


# ----------------------------------------------------------------------------- day numbers


def day_number_hand(y, m, d):
    py = y - 1
    return py * 365 + py // 4 - py // 100 + py // 400 + day_of_year_hand(y, m, d)


@case("calendar", _dates, day_number_hand, integer=True)
def day_number(y, m, d):
    """Days since the proleptic Gregorian 0001-01-01, which is day 1."""
    py = y - 1
    return py * 365 + py // 4 - py // 100 + py // 400 + day_of_year(y, m, d)


def weekday_hand(y, m, d):
    early = m < 3
    y = y - early
    m = np.where(early, m + 12, m)
    k = y % 100
    j = y // 100
    h = (d + 13 * (m + 1) // 5 + k + k // 4 + j // 4 + 5 * j) % 7
    return (h + 5) % 7 + 1


@case("calendar", _dates, weekday_hand, integer=True)
def weekday(y, m, d):
    """ISO weekday (Monday 1 .. Sunday 7) by Zeller's congruence."""
    if m < 3:
        m += 12
        y -= 1
    k = y % 100
    j = y // 100
    h = (d + 13 * (m + 1) // 5 + k + k // 4 + j // 4 + 5 * j) % 7
    return (h + 5) % 7 + 1


def date_from_day_number_hand(n):
    n = n - 1
    q400, n = np.divmod(n, 146097)
    q100 = np.minimum(n // 36524, 3)
    n = n - q100 * 36524
    q4, n = np.divmod(n, 1461)
    q1 = np.minimum(n // 365, 3)
    n = n - q1 * 365
    year = q400 * 400 + q100 * 100 + q4 * 4 + q1 + 1
    leap = _leap(year)
    month = np.ones_like(n)
    for k in range(1, 12):
        month = month + (n >= _CUM[k] + (leap & (k >= 2)))
    day = n - np.take(_CUM, month - 1) - (leap & (month > 2)) + 1
    return year, month, day


@case("calendar", lambda rng, n: (rng.integers(1, 1_500_000, n),), date_from_day_number_hand, integer=True)
def date_from_day_number(n):
    """(year, month, day) of a day number (day 1 is 0001-01-01)."""
    n -= 1
    q400, n = divmod(n, 146097)
    q100 = min(n // 36524, 3)
    n -= q100 * 36524
    q4, n = divmod(n, 1461)
    q1 = min(n // 365, 3)
    n -= q1 * 365
    year = q400 * 400 + q100 * 100 + q4 * 4 + q1 + 1
    leap = is_leap(year)
    month = 1
    for k in range(1, 12):
        if n >= CUM_DAYS[k] + (leap and k >= 2):
            month = k + 1
    day = n - CUM_DAYS[month - 1] - (leap and month > 2) + 1
    return year, month, day


# ----------------------------------------------------------------------------- time of day


def split_seconds_hand(t):
    minutes, s = np.divmod(t, 60)
    h, m = np.divmod(minutes, 60)
    return h % 24, m, s


@case("time", lambda rng, n: (rng.integers(0, 10**9, n),), split_seconds_hand, integer=True)
def split_seconds(t):
    """Hours (of the day), minutes and seconds of a count of seconds."""
    minutes, s = divmod(t, 60)
    h, m = divmod(minutes, 60)
    return h % 24, m, s


# ----------------------------------------------------------------------------- digits


def digit_sum_hand(n):
    n = np.abs(n)
    total = np.zeros_like(n)
    while (n > 0).any():
        total += n % 10
        n //= 10
    return total


@case("digits", lambda rng, n: (rng.integers(-(10**12), 10**12, n),), digit_sum_hand, integer=True)
def digit_sum(n):
    n = abs(n)
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


def luhn_valid_hand(number):
    total = np.zeros_like(number)
    n = number
    for position in range(16):
        digit = n % 10
        n = n // 10
        if position % 2 == 1:
            digit = digit * 2
            digit = np.where(digit > 9, digit - 9, digit)
        total = total + digit
    return total % 10 == 0


@case("digits", lambda rng, n: (rng.integers(10**15, 10**16, n),), luhn_valid_hand, integer=True)
def luhn_valid(number):
    """Whether a 16-digit card number passes the Luhn check."""
    total = 0
    n = number
    for position in range(16):
        digit = n % 10
        n //= 10
        if position % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


# ----------------------------------------------------------------------------- bits


#: The shifts that fold a Gray code back into binary, 64 bits wide.
GRAY_SHIFTS = (32, 16, 8, 4, 2, 1)


def gray_decode_hand(g):
    for shift in GRAY_SHIFTS:
        g = g ^ (g >> shift)
    return g


@case("bits", lambda rng, n: (rng.integers(0, 2**62, n),), gray_decode_hand, integer=True)
def gray_decode(g):
    """The binary number whose reflected Gray code is g (g >= 0)."""
    for shift in GRAY_SHIFTS:
        g ^= g >> shift
    return g


def popcount32_hand(n):
    n = n - ((n >> 1) & 0x55555555)
    n = (n & 0x33333333) + ((n >> 2) & 0x33333333)
    n = (n + (n >> 4)) & 0x0F0F0F0F
    n = n + (n >> 8)
    n = n + (n >> 16)
    return n & 0x3F


@case("bits", lambda rng, n: (rng.integers(0, 2**32, n),), popcount32_hand, integer=True)
def popcount32(n):
    """Set bits of a 32-bit unsigned value, by the parallel (SWAR) sums."""
    n = n - ((n >> 1) & 0x55555555)
    n = (n & 0x33333333) + ((n >> 2) & 0x33333333)
    n = (n + (n >> 4)) & 0x0F0F0F0F
    n = n + (n >> 8)
    n = n + (n >> 16)
    return n & 0x3F


def reverse_byte_hand(b):
    b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)
    b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)
    return ((b & 0xAA) >> 1) | ((b & 0x55) << 1)


@case("bits", lambda rng, n: (rng.integers(0, 256, n),), reverse_byte_hand, integer=True)
def reverse_byte(b):
    b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)
    b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)
    return ((b & 0xAA) >> 1) | ((b & 0x55) << 1)


def parity_hand(n):
    n = n ^ (n >> 32)
    n = n ^ (n >> 16)
    n = n ^ (n >> 8)
    n = n ^ (n >> 4)
    n = n ^ (n >> 2)
    n = n ^ (n >> 1)
    return (n & 1) == 1


@case("bits", lambda rng, n: (rng.integers(0, 2**62, n),), parity_hand, integer=True)
def parity(n):
    """Whether a non-negative value has an odd number of set bits."""
    n ^= n >> 32
    n ^= n >> 16
    n ^= n >> 8
    n ^= n >> 4
    n ^= n >> 2
    n ^= n >> 1
    return n & 1 == 1
