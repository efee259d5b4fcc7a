"""Corpus of table-driven rules (D15): rate and benefit tables indexed per element, membership
in status tables, calendar arithmetic with divmod. Every function must compile and equal
CPython element by element on numpy and array-api-strict."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check

BRACKET_WIDTH = 12500.0
MARGINAL_RATES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.45)
BRACKET_BASE_TAX = (0.0, 0.0, 1250.0, 3750.0, 7500.0, 12500.0)
BENEFIT_BY_HOUSEHOLD = (0, 410, 655, 830, 990, 1120, 1240)
CHILD_SUPPLEMENT = (0.0, 120.5, 230.0, 330.25)
EXEMPT_STATUSES = (2, 5, 7)
DISABILITY_CODES = (11, 12, 19, 23)
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
CUMULATIVE_DAYS = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
SEASON_OF_MONTH = (0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0)
HEATING_FACTOR = (1.35, 1.0, 0.4, 0.95)
GRADE_POINTS = (4.0, 3.7, 3.3, 3.0, 2.7, 2.3, 2.0, 0.0)
VAT_RATES = (0.0, 0.05, 0.2)
ZONE_SURCHARGE = (0, 150, 300, 450, -50)


def income_tax(income):
    if income <= 0.0:
        return 0.0
    bracket = int(income // BRACKET_WIDTH)
    if bracket > 5:
        bracket = 5
    return BRACKET_BASE_TAX[bracket] + (income - bracket * BRACKET_WIDTH) * MARGINAL_RATES[bracket]


def household_benefit(size, children):
    if size < 1:
        return 0.0
    capped = size if size < 6 else 6
    kids = children if children < 3 else 3
    if kids < 0:
        kids = 0
    return BENEFIT_BY_HOUSEHOLD[capped] + CHILD_SUPPLEMENT[kids]


def tax_exempt(status, income):
    return status in EXEMPT_STATUSES or income < 1000.0


def disability_allowance(code, base):
    if code in DISABILITY_CODES:
        return base * 1.25
    return base


def day_of_year(month, day):
    return CUMULATIVE_DAYS[(month - 1) % 12] + day


def days_in_month(month):
    return MONTH_DAYS[month % 12 - 1]


def heating_demand(month, degree_days):
    season = SEASON_OF_MONTH[(month - 1) % 12]
    return degree_days * HEATING_FACTOR[season]


def weekday_from_days(days_since_epoch):
    # 1970-01-01 was a Thursday (3 when Monday is 0).
    _, weekday = divmod(days_since_epoch + 3, 7)
    return weekday


def hours_minutes(total_minutes):
    hours, minutes = divmod(total_minutes, 60)
    return hours * 100 + minutes


def billing_periods(days, period):
    full, rest = divmod(days, period)
    return full + (1 if rest > 0 else 0)


def grade_point(score):
    rank = 7 - int(score // 10.0) if score >= 30.0 else 7
    if rank < 0:
        rank = 0
    return GRADE_POINTS[rank]


def vat_due(net, category):
    rate = VAT_RATES[category % 3]
    return net * rate


def delivery_fee(zone, weight):
    return 500 + ZONE_SURCHARGE[zone % 5] + weight // 2


def is_weekend_day(days_since_epoch):
    return (days_since_epoch + 3) % 7 in (5, 6)


def last_surcharge(zone):
    # Negative indices count from the end, as in CPython.
    return ZONE_SURCHARGE[-1 - zone % 5]


def seconds_to_clock(seconds):
    minutes, sec = divmod(seconds, 60.0)
    hours, minute = divmod(minutes, 60.0)
    return hours * 10000.0 + minute * 100.0 + sec


INCOMES = np.array([-1.0, 0.0, 1.0, 12499.99, 12500.0, 30000.0, 62500.0, 1e7, np.inf, 37500.5, -0.0])
SMALL_INTS = np.array([-3, -1, 0, 1, 2, 3, 5, 6, 7, 11, 12, 13, 19, 23, 100, 2**40], dtype=np.int64)
DAYS = np.array([-10000, -1, 0, 1, 6, 7, 365, 19000, 2**40, -(2**40)], dtype=np.int64)
SCORES = np.array([-5.0, 0.0, 29.9, 30.0, 55.5, 69.99, 70.0, 100.0, 120.0])

CORPUS = [
    (income_tax, (INCOMES,)),
    (household_benefit, np.meshgrid(SMALL_INTS, np.array([-1, 0, 1, 2, 3, 9]), indexing="ij")),
    (tax_exempt, np.meshgrid(SMALL_INTS, np.array([0.0, 999.5, 1000.0, np.nan]), indexing="ij")),
    (disability_allowance, np.meshgrid(SMALL_INTS, np.array([100.0, -0.0, np.inf]), indexing="ij")),
    (day_of_year, np.meshgrid(SMALL_INTS, np.array([1, 15, 31]), indexing="ij")),
    (days_in_month, (SMALL_INTS,)),
    (heating_demand, np.meshgrid(SMALL_INTS, np.array([0.0, 12.5, -3.0, np.nan]), indexing="ij")),
    (weekday_from_days, (DAYS,)),
    (hours_minutes, (DAYS,)),
    (billing_periods, np.meshgrid(DAYS, np.array([1, 7, 30, -30]), indexing="ij")),
    (grade_point, (SCORES,)),
    (vat_due, np.meshgrid(np.array([0.0, 19.99, 1e6, -5.0]), SMALL_INTS, indexing="ij")),
    (delivery_fee, np.meshgrid(SMALL_INTS, np.array([0, 1, 7, -3]), indexing="ij")),
    (is_weekend_day, (DAYS,)),
    (last_surcharge, (SMALL_INTS,)),
    (seconds_to_clock, (np.array([0.0, 59.5, 60.0, 3599.9, 86399.0, -1.0, 1e9, np.nan]),)),
]


@pytest.mark.parametrize("fn, args", CORPUS, ids=[fn.__name__ for fn, _ in CORPUS])
def test_corpus_matches_cpython(fn, args, backend):
    check(vectorize(fn), *args, backend=backend)
