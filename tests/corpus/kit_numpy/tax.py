"""Rounding rules of a tax calculator, written with builtins as people write them: `round`'s
keywords, ndigits given per call, `math.modf`, and rate tables built with `dict(...)`."""

import math

from array_vectorize import vectorize

RATES = dict(basic=0.2, higher=0.4, additional=0.45)
THRESHOLDS = dict(allowance=12_570.0, higher=50_270.0, additional=125_140.0)


@vectorize
def income_tax(income):
    # The tables are read per call (D14): float() says the amounts are floats.
    taxable = float(max(income - THRESHOLDS["allowance"], 0.0))
    if income <= THRESHOLDS["higher"]:
        return round(taxable * float(RATES["basic"]), ndigits=2)
    basic = float(THRESHOLDS["higher"] - THRESHOLDS["allowance"]) * RATES["basic"]
    return round(basic + float(income - THRESHOLDS["higher"]) * RATES["higher"], ndigits=2)


@vectorize
def vat_inclusive(net, rate, digits):
    return round(net * (1.0 + rate), digits)


@vectorize
def cash_rounding(amount):
    # Swiss rounding to 5 centimes: round(x, ndigits=None) is round(x).
    return round(amount * 20.0, ndigits=None) / 20.0


@vectorize
def pounds_and_pence(amount):
    pence, pounds = math.modf(amount)
    return pounds + round(number=pence * 100.0) / 100.0


@vectorize
def months_of_service(years):
    frac, whole = math.modf(years)
    return whole * 12 + round(frac * 12, ndigits=1)


@vectorize
def payroll_deduction(gross, digits=2):
    return round(float(gross * RATES["basic"]), ndigits=digits)
