"""Interest-rate arithmetic: deposits, loans, discounting and a progressive tax schedule."""

import functools
import math

from array_vectorize import vectorize

MONTHS = 12
HORIZON_MONTHS = 120  # ten years of monthly deposits

# Progressive schedule: lower bound of each band and its marginal rate, lowest band first.
BAND_FLOORS = (0.0, 12_570.0, 50_270.0, 125_140.0)
BAND_RATES = (0.0, 0.2, 0.4, 0.45)
NBANDS = 4


def rate_per_period(fn):
    """Checks that the first argument, a rate per period, is a rate a balance can grow or shrink
    at (above -100%), then forwards the call."""

    @functools.wraps(fn)
    def checked(rate, *args, **kwargs):
        if not rate > -1.0:
            raise ValueError(f"{fn.__name__}: a rate per period must exceed -1, got {rate}")
        return fn(rate, *args, **kwargs)

    return checked


@rate_per_period
def growth_factor(rate, periods=1):
    """What one unit grows to over `periods` periods at `rate` per period."""
    return (1.0 + rate) ** periods


@vectorize
def compound_value(principal, annual_rate, years):
    """Balance of a deposit compounded monthly (a helper checked by a decorator of the module)."""
    return principal * growth_factor(annual_rate / MONTHS, years * MONTHS)


@vectorize
def discount_factor(rate, t):
    """Continuously compounded discount factor."""
    return math.exp(-rate * t)


@vectorize
def annuity_payment(principal, annual_rate, years):
    """Monthly payment of a fully amortising loan."""
    n = years * MONTHS
    if annual_rate == 0.0:
        return principal / n
    r = annual_rate / MONTHS
    return principal * r / (1.0 - (1.0 + r) ** -n)


@vectorize
def future_value(deposit, annual_rate):
    """Balance after HORIZON_MONTHS monthly deposits, compounded monthly."""
    r = annual_rate / MONTHS
    balance = 0.0
    for _ in range(HORIZON_MONTHS):
        balance = balance * (1.0 + r) + deposit
    return balance


@vectorize
def income_tax(income):
    """Tax due: each band's rate applies to the part of income inside that band."""
    tax = 0.0
    for i in range(NBANDS):
        lower = BAND_FLOORS[i]
        upper = BAND_FLOORS[i + 1] if i + 1 < NBANDS else math.inf
        if income > lower:
            tax += (min(income, upper) - lower) * BAND_RATES[i]
    return tax
