"""Loans, annuities and bonds: payments, balances, prices from yields and yields from prices,
durations, compounding conventions and day counts."""

import math
from typing import Optional

from .common import EPS

# numpy-financial's `when` argument: payments at the end or the beginning of each period
_WHEN = {"end": 0, "begin": 1, "e": 0, "b": 1}


def payment(rate, nper, pv, fv=0.0, when="end"):
    """Level payment per period that repays `pv` (to leave `fv`) over `nper` periods; cash paid
    out is negative, as in spreadsheet functions."""
    w = _WHEN[when]
    if rate == 0.0:
        return -(pv + fv) / nper
    growth = (1.0 + rate) ** nper
    return -(fv + pv * growth) * rate / ((1.0 + rate * w) * (growth - 1.0))


def future_value(rate, nper, pmt, pv=0.0, when="end"):
    w = _WHEN[when]
    if rate == 0:
        return -(pv + pmt * nper)
    growth = (1 + rate) ** nper
    return -(pv * growth + pmt * (1 + rate * w) / rate * (growth - 1))


def remaining_balance(principal, rate, nper, paid):
    """Outstanding balance of an amortising loan after `paid` level payments."""
    pmt = -payment(rate, nper, principal)
    balance = principal
    for _ in range(paid):
        balance = balance * (1.0 + rate) - pmt
    return max(balance, 0.0)


def bond_price(face, coupon_rate, ytm, years, freq=2):
    """Price of a fixed-coupon bond from its yield to maturity (compounded `freq` times a
    year)."""
    periods = int(round(years * freq))
    if periods <= 0:
        raise ValueError("years and freq must give at least one coupon period")
    c = face * coupon_rate / freq
    y = ytm / freq
    price = 0.0
    for k in range(1, periods + 1):
        price += c / (1.0 + y) ** k
    return price + face / (1.0 + y) ** periods


def macaulay_duration(coupon_rate, ytm, periods, freq=2):
    """Present-value-weighted mean time of a bond's cash flows, in years."""
    c = coupon_rate / freq
    y = ytm / freq
    weighted = total = 0.0
    for k in range(1, periods + 1):
        cash = c + 1.0 if k == periods else c
        pv = cash / (1.0 + y) ** k
        weighted += k * pv
        total += pv
    return weighted / total / freq


def yield_to_maturity(price, face, coupon_rate, years, freq=2, tol=1e-10):
    """The yield that reprices the bond, by bisection of the (decreasing) price-yield curve."""
    lo, hi = -0.5, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if bond_price(face, coupon_rate, mid, years, freq) > price:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def effective_annual_rate(nominal, periods_per_year: int = 12):
    return (1.0 + nominal / periods_per_year) ** periods_per_year - 1.0


def continuous_to_periodic(rate, m=1):
    """The rate compounded m times a year equal to a continuously compounded `rate`."""
    return m * (math.exp(rate / m) - 1.0)


def thirty_360(y1, m1, d1, y2, m2, d2):
    """Days between two dates under the 30/360 US (bond basis) convention."""
    if d1 == 31:
        d1 = 30
    if d2 == 31 and d1 == 30:
        d2 = 30
    return 360 * (y2 - y1) + 30 * (m2 - m1) + (d2 - d1)


def year_fraction(days, convention="ACT/365F"):
    if convention == "ACT/365F":
        return days / 365.0
    elif convention == "ACT/360":
        return days / 360.0
    elif convention == "ACT/365.25":
        return days / 365.25
    raise ValueError(f"unknown day count convention {convention!r}")


def accrued_interest(face, coupon_rate, days_since_coupon, days_in_period, freq=2, cap: Optional[float] = None):
    """Coupon accrued since the last payment, optionally capped."""
    if days_in_period <= 0:
        raise ValueError(f"a coupon period has a positive length, got {days_in_period}")
    accrued = face * coupon_rate / freq * days_since_coupon / days_in_period
    if cap is not None and accrued > cap:
        return cap
    return accrued


def zero_rate_from_discount(df, years):
    """Continuously compounded zero rate implied by a discount factor."""
    if years < EPS:
        return 0.0
    return -math.log(df) / years
