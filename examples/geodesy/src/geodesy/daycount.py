"""Day counts in integer arithmetic: Julian day numbers of Gregorian dates (Fliegel and Van
Flandern's formula, every step an integer) and spans between day counters, written for counters
held as unsigned 64-bit integers (a uint64 array is the usual column type of a day counter).
"""

from array_vectorize import vectorize


def _fliegel(year, month, day):
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045


@vectorize
def day_number(year, month, day):
    """Julian day number of the Gregorian date ``year-month-day`` (integers)."""
    return _fliegel(year, month, day)


@vectorize
def modified_julian_date(year, month, day, seconds):
    """Modified Julian date at ``seconds`` after midnight of the Gregorian date."""
    return _fliegel(year, month, day) - 2400001 + seconds / 86400.0


@vectorize
def elapsed_days(start, end):
    """Days between two day counters, whichever comes first."""
    return end - start if end >= start else start - end


@vectorize
def days_left(today, deadline):
    """Days until ``deadline``, 0 once it has passed."""
    if deadline >= today:
        return deadline - today
    return 0


@vectorize
def week_offset(day, epoch):
    """Whole weeks from ``epoch`` to ``day`` (negative before the epoch)."""
    return (day - epoch) // 7
