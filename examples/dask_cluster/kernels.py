"""Scalar rules of a toy tax-benefit model, vectorized: what the cluster evaluates per person."""

import math

from array_vectorize import vectorize

PERSONAL_ALLOWANCE = 12_570.0
BASIC_RATE, HIGHER_RATE = 0.20, 0.40
HIGHER_THRESHOLD = 50_270.0
TAPER_START = 100_000.0


@vectorize
def income_tax(gross, pension_share):
    """Income tax after a pension contribution, with the allowance tapered away above 100k."""
    taxable_income = gross * (1.0 - pension_share)
    allowance = PERSONAL_ALLOWANCE
    if taxable_income > TAPER_START:
        allowance = max(PERSONAL_ALLOWANCE - (taxable_income - TAPER_START) / 2.0, 0.0)
    taxable = taxable_income - allowance
    if taxable <= 0.0:
        return 0.0
    if taxable_income <= HIGHER_THRESHOLD:
        return taxable * BASIC_RATE
    basic_band = HIGHER_THRESHOLD - PERSONAL_ALLOWANCE
    return basic_band * BASIC_RATE + (taxable - basic_band) * HIGHER_RATE


@vectorize
def savings_after(years, deposit, rate):
    """A deposit compounded yearly for up to 10 years (a range loop), capped growth."""
    balance = deposit
    for year in range(10):
        growth = balance * rate
        if year < years:
            balance = balance + min(growth, 5_000.0)
    return math.floor(balance * 100.0) / 100.0
