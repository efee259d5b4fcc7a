"""Corpus of table-driven rules (D15): rate and benefit tables (tuples, lists, dicts) indexed per
element, membership in status tables, calendar arithmetic with divmod, bit-flag decoding,
polynomial approximations summed over coefficient tables. Every function must compile and equal
CPython element by element on numpy and array-api-strict."""

from __future__ import annotations

import bisect
import math
from bisect import bisect_left

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


# Parameter tables of a benefit system, as a module binds them once.
PENSION_ACCRUAL = [0.0, 0.012, 0.015, 0.018]
CHILD_BENEFIT_BY_RANK = {1: 219.0, 2: 219.0, 3: 225.0, 4: 250.0}
REGION_COST_INDEX = {11: 1.08, 12: 0.97, 21: 1.0, 22: 0.93, 31: 1.15}
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
CHEBYSHEV_EXP = (1.2660658777520082, 1.1303182079849700, 0.2714953395340766, 0.0443368498486638, 0.0054742404420937)
SIMPSON_W = (1.0, 4.0, 2.0, 4.0, 1.0)
STEFAN_BOLTZMANN = 5.670374419e-8
PERMIT_READ, PERMIT_WRITE, PERMIT_ADMIN = 1, 2, 4


def pension_accrual(years, tier):
    rate = PENSION_ACCRUAL[tier if 0 <= tier < 4 else 0]
    return years * rate


def child_benefit(rank):
    if rank < 1:
        return 0.0
    return CHILD_BENEFIT_BY_RANK[rank if rank < 4 else 4]


def regional_rent_cap(region, base_rent):
    if region not in REGION_COST_INDEX:
        return base_rent
    return base_rent * REGION_COST_INDEX[region]


def erf_approx(x):
    """Abramowitz-Stegun 7.1.26 for x >= 0, odd extension below."""
    sign = 1.0 if x >= 0.0 else -1.0
    ax = abs(x)
    t = 1.0 / (1.0 + 0.3275911 * ax)
    poly = sum(a * t ** (k + 1) for k, a in enumerate(ERF_A))
    return sign * (1.0 - poly * math.exp(-ax * ax))


def chebyshev_cosh_like(x):
    # A Chebyshev series on [-1, 1] via T_k(x) = cos(k * acos(x)), clamped to the interval.
    c = min(max(x, -1.0), 1.0)
    theta = math.acos(c)
    return sum(a * math.cos(k * theta) for k, a in enumerate(CHEBYSHEV_EXP))


def radiated_power(t_kelvin, emissivity):
    """Simpson's rule of a made-up spectral weight over five nodes, times Stefan-Boltzmann."""
    h = 0.25
    weight = sum(w * (1.0 - (k * h) ** 2) for k, w in enumerate(SIMPSON_W)) * h / 3.0
    return emissivity * STEFAN_BOLTZMANN * t_kelvin**4 * weight


def permission_level(flags):
    """Bit-flag decoding: 0 none, 1 read, 2 read-write, 3 admin (admin needs read)."""
    if flags & PERMIT_ADMIN != 0 and flags & PERMIT_READ != 0:
        return 3
    if flags & (PERMIT_READ | PERMIT_WRITE) == PERMIT_READ | PERMIT_WRITE:
        return 2
    return 1 if flags & PERMIT_READ else 0


def pack_date(year, month, day):
    """Packs a date into one int: 23 bits of year, 4 of month, 5 of day."""
    return (year << 9) | ((month & 0xF) << 5) | (day & 0x1F)


def unpack_day_of_year(packed):
    month = (packed >> 5) & 0xF
    day = packed & 0x1F
    return CUMULATIVE_DAYS[(month - 1) % 12] + day


AIR_LIMITS = (25.0, 40.0, 120.0)


def any_threshold_crossed(pm25, no2, o3):
    return any(v > lim for v, lim in zip((pm25, no2, o3), AIR_LIMITS))


def worst_index(pm25, no2):
    return max(v / lim for v, lim in zip((pm25, no2), (25.0, 40.0)))


# ----------------------------------------------------------------- bisect, enumerate/zip, dict.get

NI_THRESHOLDS = (6_396.0, 12_570.0, 50_270.0)
NI_RATES = (0.0, 0.0, 0.08, 0.02)
SPEED_LIMITS = [20, 30, 40, 50, 60, 70]
FINE_BANDS = (0.0, 60.0, 100.0, 200.0, 300.0, 500.0, 1000.0)
DEPENDANT_SCALE = {0: 1.0, 1: 1.5, 2: 1.8, 3: 2.1}
REGION_LEVY = {11: 0.012, 12: 0.015, 21: 0.009}
TARIFF_TOPS = (100.0, 300.0, 1000.0)
TARIFF_PRICES = (0.12, 0.18, 0.25, 0.31)


def national_insurance(weekly_pay):
    # Rate of the band the pay falls in: bisect on the published thresholds.
    return weekly_pay * NI_RATES[bisect.bisect_right(NI_THRESHOLDS, weekly_pay)]


def speeding_band(speed):
    # How many limits the speed reaches or exceeds (an int per driver).
    return bisect_left(SPEED_LIMITS, speed)


def fine_for_excess(excess_kmh):
    # A band per 10% of the fine table; the fine of the band is its lower edge doubled.
    band = bisect.bisect_right(FINE_BANDS, excess_kmh * 10.0, 1)
    return 2.0 * FINE_BANDS[band - 1]


def equivalised_income(income, dependants):
    return income / DEPENDANT_SCALE.get(dependants, 2.1 + 0.3 * (dependants - 3))


def regional_levy(region, payroll):
    return payroll * REGION_LEVY.get(region, 0.01)


def block_tariff(kwh):
    # Increasing block tariff: each block's energy at its price.
    cost = 0.0
    lower = 0.0
    for top, price in zip(TARIFF_TOPS, TARIFF_PRICES):
        if kwh > lower:
            cost += (min(kwh, top) - lower) * price
        lower = top
    if kwh > lower:
        cost += (kwh - lower) * TARIFF_PRICES[3]
    return cost


def horner_free_polynomial(x):
    total = 0.0
    for power, coefficient in enumerate((0.9999, -0.4982, 0.3194, -0.1369), 1):
        total += coefficient * x**power
    return total


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
    (pension_accrual, np.meshgrid(np.array([0.0, 12.5, 40.0, -1.0]), np.array([-1, 0, 1, 2, 3, 4, 9]), indexing="ij")),
    (child_benefit, (SMALL_INTS,)),
    (regional_rent_cap, np.meshgrid(np.array([0, 11, 12, 21, 22, 31, 99, -11]), np.array([500.0, 0.0, -0.0, np.inf]), indexing="ij")),
    (erf_approx, (np.array([-3.0, -1.0, -0.0, 0.0, 1e-9, 0.5, 1.0, 2.5, 6.0, np.inf, -np.inf, np.nan]),)),
    (chebyshev_cosh_like, (np.array([-2.0, -1.0, -0.5, 0.0, 0.25, 0.99, 1.0, 3.0, np.nan]),)),
    (radiated_power, np.meshgrid(np.array([0.0, 300.0, 5778.0, -10.0, np.inf]), np.array([0.0, 0.5, 1.0]), indexing="ij")),
    (permission_level, (np.arange(-9, 17, dtype=np.int64),)),
    (pack_date, np.meshgrid(np.array([0, 1970, 2024, -1, 2**40]), np.array([1, 12, 13, -1]), np.array([0, 1, 31, 32]), indexing="ij")),
    (unpack_day_of_year, (np.array([0, 1, 33, 1036767, 1036799, -1, 2**40 + 45], dtype=np.int64),)),
    (any_threshold_crossed, np.meshgrid(np.array([0.0, 25.0, 30.0, np.nan]), np.array([10.0, 40.5]), np.array([119.0, 121.0]), indexing="ij")),
    (worst_index, np.meshgrid(np.array([0.0, 25.0, 50.0, -1.0, np.nan]), np.array([0.0, 40.0, 80.0, np.inf]), indexing="ij")),
    (national_insurance, (np.array([-1.0, 0.0, 6_396.0, 6_395.99, 12_570.0, 3e4, 50_270.0, 1e6, np.inf, np.nan, -0.0]),)),
    (speeding_band, (np.array([-5, 0, 19, 20, 21, 30, 55, 70, 71, 2**62], dtype=np.int64),)),
    (fine_for_excess, (np.array([-1.0, 0.0, 5.9, 6.0, 10.0, 19.99, 50.0, 100.0, 1e5, np.nan, np.inf]),)),
    (equivalised_income, np.meshgrid(np.array([0.0, 25_000.0, -0.0, np.inf]), np.array([0, 1, 2, 3, 4, 7, -1]), indexing="ij")),
    (regional_levy, np.meshgrid(np.array([11, 12, 21, 22, 0, -11]), np.array([1e5, 0.0, np.nan]), indexing="ij")),
    (block_tariff, (np.array([-5.0, 0.0, 50.0, 100.0, 250.0, 300.0, 999.0, 1000.0, 4000.0, np.inf, np.nan]),)),
    (horner_free_polynomial, (np.array([-1.0, -0.0, 0.0, 0.25, 0.5, 0.99, 1.0, 2.0, np.nan]),)),
]


@pytest.mark.parametrize("fn, args", CORPUS, ids=[fn.__name__ for fn, _ in CORPUS])
def test_corpus_matches_cpython(fn, args, backend):
    check(vectorize(fn), *args, backend=backend)
