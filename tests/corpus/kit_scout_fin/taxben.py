"""Income tax, payroll contributions and benefit tapers of a small tax-benefit microsimulation
model. Parameters are module constants, tables keyed by filing status or number of children, a
class of rates, and a frozen dataclass of one year's parameters, as such models keep them."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from enum import IntEnum

from . import common as cm


class FilingStatus(IntEnum):
    SINGLE = 1
    JOINT = 2
    SEPARATE = 3
    HEAD_OF_HOUSEHOLD = 4


PERSONAL_ALLOWANCE = 12_570.0
TAPER_THRESHOLD = 100_000.0
# (width of the band above the allowance, marginal rate)
RELATIVE_BANDS = ((37_700.0, 0.20), (74_870.0, 0.40), (math.inf, 0.45))

# (marginal rate in percent, upper limit of the bracket)
PROVINCIAL_BRACKETS = [
    (15.0, 48_535.0),
    (20.5, 97_069.0),
    (26.0, 150_473.0),
    (29.0, 214_368.0),
    (33.0, float("inf")),
]

# per filing status 1-4
STANDARD_DEDUCTION = (14_600.0, 29_200.0, 14_600.0, 21_900.0)

EITC_PARAMS = {
    "credit_pct": {0: 7.65, 1: 34.0, 2: 40.0, 3: 45.0},
    "phaseout_pct": {0: 7.65, 1: 15.98, 2: 21.06, 3: 21.06},
    "earned_income_amount": {0: 8_490.0, 1: 12_730.0, 2: 17_880.0, 3: 17_880.0},
    "phaseout_single": {0: 10_620.0, 1: 23_350.0, 2: 23_350.0, 3: 23_350.0},
    "phaseout_joint": {0: 17_730.0, 1: 30_470.0, 2: 30_470.0, 3: 30_470.0},
}

# council-tax band limits (property values) and the band letters' ratios to band D
BAND_LIMITS = (40_000, 52_000, 68_000, 88_000, 120_000, 160_000, 320_000)
BAND_RATIOS = (6 / 9, 7 / 9, 8 / 9, 1.0, 11 / 9, 13 / 9, 15 / 9, 18 / 9)

SDLT_THRESHOLDS = (0.0, 250_000.0, 925_000.0, 1_500_000.0)
SDLT_RATES = (0.0, 0.05, 0.10, 0.12)


class NI:
    """Class 1 employee contributions, weekly thresholds."""

    PRIMARY = 242.0
    UPPER = 967.0
    MAIN_RATE = 0.08
    UPPER_RATE = 0.02

    @staticmethod
    def band(weekly_pay, lower, upper):
        return max(0.0, min(weekly_pay, upper) - lower)


@dataclass(frozen=True)
class BenefitParams:
    max_award: float = 393.45
    work_allowance: float = 404.0
    taper: float = 0.55
    minimum_award: float = 0.01


UC_2024 = BenefitParams()


def income_tax(income: float) -> float:
    """Income tax through the bands, with the personal allowance withdrawn at 50p per pound
    above the taper threshold; rounded to pence."""
    allowance = PERSONAL_ALLOWANCE
    if income > TAPER_THRESHOLD:
        allowance = max(0.0, allowance - (income - TAPER_THRESHOLD) / 2)
    taxable = max(0.0, income - allowance)
    tax = 0.0
    lower = 0.0
    for width, rate in RELATIVE_BANDS:
        upper = lower + width
        if taxable <= lower:
            break
        tax += (min(taxable, upper) - lower) * rate
        lower = upper
    return round(tax, 2)


def provincial_tax(gross):
    """Tax owed walking the brackets until the income falls inside one."""
    owed = 0.0
    floor = 0.0
    for (rate, max) in PROVINCIAL_BRACKETS:
        if gross > max:
            owed = owed + rate * (max - floor) / 100
            floor = max
        else:
            return owed + rate * (gross - floor) / 100
    return owed


def standard_deduction(status, age, blind, extra_amount=1_950.0):
    """Basic standard deduction by filing status plus the additional amounts for age and
    blindness."""
    base = STANDARD_DEDUCTION[status - 1]
    extra = 0.0
    if age >= 65:
        extra += extra_amount
    if blind:
        extra += extra_amount
    if status == FilingStatus.SEPARATE and base + extra > 20_000.0:
        raise ValueError(f"deduction {base + extra} exceeds the separate filer's cap")
    return base + extra


def eitc(earnings, children, joint=False):
    """Earned income tax credit: phase-in, plateau, phase-out."""
    kids = min(children, 3)
    rate = EITC_PARAMS["credit_pct"][kids] / 100
    plateau_start = EITC_PARAMS["earned_income_amount"][kids]
    phaseout_start = EITC_PARAMS["phaseout_joint" if joint else "phaseout_single"][kids]
    max_credit = rate * plateau_start
    credit = rate * min(earnings, plateau_start)
    if earnings > phaseout_start:
        out_rate = EITC_PARAMS["phaseout_pct"][kids] / 100
        credit = max(0.0, max_credit - out_rate * (earnings - phaseout_start))
    return round(credit, 2)


def national_insurance(weekly_pay):
    """Employee Class 1 contributions for one week's pay."""
    main = NI.band(weekly_pay, NI.PRIMARY, NI.UPPER) * NI.MAIN_RATE
    upper = max(0.0, weekly_pay - NI.UPPER) * NI.UPPER_RATE
    return round(main + upper, 2)


def child_benefit_charge(income, benefit):
    """1% of the benefit for every full 200 of income above 60,000, up to all of it."""
    if income <= 60_000:
        return 0.0
    percent = min(100, (income - 60_000) // 200)
    return math.floor(benefit * percent / 100)


def universal_credit(earnings, other_income=0.0, params=UC_2024):
    """Monthly award after the earnings taper."""
    excess = max(earnings - params.work_allowance, 0.0)
    award = params.max_award - params.taper * excess - other_income
    return award if award >= params.minimum_award else 0.0


def council_tax(property_value, band_d=2_171.0):
    """Annual council tax of a property from its valuation band."""
    band = bisect.bisect_right(BAND_LIMITS, property_value)
    return round(band_d * BAND_RATIOS[band], 2)


def stamp_duty(price):
    """Slices of the price taxed at each band's rate."""
    duty = 0.0
    uppers = SDLT_THRESHOLDS[1:] + (math.inf,)
    for lower, upper, rate in zip(SDLT_THRESHOLDS, uppers, SDLT_RATES):
        if price > lower:
            duty += (min(price, upper) - lower) * rate
    return math.floor(duty)


def amt_exemption(amti, mars, exemption=(85_700.0, 133_300.0, 66_650.0, 85_700.0),
                  phaseout_start=(609_350.0, 1_218_700.0, 609_350.0, 609_350.0), phaseout_rate=0.25):
    """Alternative minimum tax exemption after its phase-out, parameters per filing status."""
    em = exemption[mars - 1]
    return max(0.0, em - phaseout_rate * max(0.0, amti - phaseout_start[mars - 1]))


def marginal_rate(income, delta=100.0):
    """Effective marginal rate of income tax, by finite difference."""
    return (income_tax(income + delta) - income_tax(income)) / delta


def pension_tax_relief(contribution, income):
    """Relief at source on a personal pension contribution: basic rate added, higher rates
    claimed back, capped by relevant earnings."""
    relievable = cm.clamp(contribution, 0.0, income)
    gross = relievable / 0.8
    if income > PERSONAL_ALLOWANCE + RELATIVE_BANDS[0][0]:
        return gross - relievable + gross * 0.2
    return gross - relievable
