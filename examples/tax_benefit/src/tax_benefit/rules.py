"""A tax year's rules for one household, in plain Python: run per household by CPython, or on
arrays of households through `@vectorize`.

The bracket table is the published one (upper bounds of each band of taxable income, the
marginal rate of each band); the tax due at the start of each band follows from it.
"""

import bisect
from enum import Enum

from array_vectorize import vectorize


class FilingStatus(Enum):
    SINGLE = 1
    JOINT = 2
    HEAD_OF_HOUSEHOLD = 3


# Upper bounds of the bands of taxable income, and the marginal rate of each band.
BANDS = (11_600.0, 47_150.0, 100_525.0, 191_950.0, 243_725.0, 609_350.0)
RATES = (0.10, 0.12, 0.22, 0.24, 0.32, 0.35, 0.37)
# Where each band starts, and the tax due up to there.
BAND_START = (0.0, 11_600.0, 47_150.0, 100_525.0, 191_950.0, 243_725.0, 609_350.0)
TAX_AT_START = (0.0, 1_160.0, 5_426.0, 17_168.5, 39_110.5, 55_678.5, 183_647.25)
# Weight of the credit per number of qualifying children; four and more count as 3.2.
CHILD_WEIGHT = {0: 0.0, 1: 1.0, 2: 2.0, 3: 2.8}

PARAMS_2024 = {
    "standard_deduction": 14_600.0,
    "credit_per_child": 2_000.0,
    "phase_out_single": 200_000.0,
    "phase_out_joint": 400_000.0,
}


class Credit:
    """The child credit's phase-out rule."""

    PHASE_OUT_RATE = 0.05
    STEP = 1_000.0

    @staticmethod
    def phased_out(credit, income, threshold):
        # The credit falls by 5% of each started 1,000 of income above the threshold.
        if income <= threshold:
            return credit
        steps = (income - threshold) // Credit.STEP + 1.0
        return max(credit - steps * Credit.STEP * Credit.PHASE_OUT_RATE, 0.0)

    @classmethod
    def threshold(cls, status, params):
        if status == FilingStatus.JOINT:
            return params["phase_out_joint"]
        return params["phase_out_single"]


def allowance(status, params):
    """The standard deduction of the filing status."""
    if status == FilingStatus.JOINT:
        return params["standard_deduction"] * 2.0
    if status == FilingStatus.HEAD_OF_HOUSEHOLD:
        return params["standard_deduction"] * 1.5
    return params["standard_deduction"]


def bracket_tax(taxable):
    band = bisect.bisect_right(BANDS, taxable)
    return TAX_AT_START[band] + (taxable - BAND_START[band]) * RATES[band]


def check_income(gross):
    if gross < 0.0:
        raise ValueError(f"gross income must be non-negative, got {gross}")


@vectorize
def marginal_rate(gross, status, params):
    """The rate of the next unit of income."""
    check_income(gross)
    taxable = gross - allowance(status, params)
    if taxable < 0.0:
        return 0.0
    return RATES[bisect.bisect_right(BANDS, taxable)]


@vectorize
def income_tax(gross, status, params):
    """Income tax due, to the cent."""
    check_income(gross)
    taxable = max(gross - allowance(status, params), 0.0)
    return round(bracket_tax(taxable), 2)


@vectorize
def child_credit(children, gross, status, params):
    """The child credit after its phase-out."""
    if children < 0:
        raise ValueError("the number of children cannot be negative", children)
    weight = CHILD_WEIGHT.get(children, 2.8 + 0.4 * (children - 3))
    credit = weight * params["credit_per_child"]
    return Credit.phased_out(credit, gross, Credit.threshold(status, params))


@vectorize
def net_income(gross, children, status, params):
    """Gross income less income tax plus the child credit."""
    check_income(gross)
    tax = bracket_tax(max(gross - allowance(status, params), 0.0))
    weight = CHILD_WEIGHT.get(children, 2.8 + 0.4 * (children - 3))
    credit = Credit.phased_out(weight * params["credit_per_child"], gross, Credit.threshold(status, params))
    return gross - tax + credit
