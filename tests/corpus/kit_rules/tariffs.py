"""Tariffs and tax rules whose tables are parameters of the marked functions themselves (D14,
D15): a default table the caller may replace per call (bands as rows `(from, to, rate)`, a
price list, a pair of limits either of which may be None)."""

import math

from array_vectorize import vectorize

INCOME_BANDS = ((0.0, 12_570.0, 0.0), (12_570.0, 50_270.0, 0.20), (50_270.0, 125_140.0, 0.40), (125_140.0, math.inf, 0.45))
CORPORATION_BANDS = [(0.0, 50_000.0, 0.19), (50_000.0, 250_000.0, 0.265), (250_000.0, math.inf, 0.25)]
ENERGY_RATES = (0.2450, 0.2731, 0.3012)
COUNCIL_RATIOS = (6 / 9, 7 / 9, 8 / 9, 1.0, 11 / 9, 13 / 9, 15 / 9, 18 / 9)


@vectorize
def income_tax(income, bands=INCOME_BANDS):
    tax = 0.0
    for lo, hi, rate in bands:
        if income > lo:
            tax += (min(income, hi) - lo) * rate
    return tax


@vectorize
def marginal_rate(income, bands=INCOME_BANDS):
    for lo, hi, rate in bands:
        if income <= hi:
            return rate
    return bands[len(bands) - 1][2]


@vectorize
def corporation_tax(profit, bands=CORPORATION_BANDS):
    if profit <= 0.0:
        return 0.0
    due = 0.0
    for lo, hi, rate in bands:
        if profit <= lo:
            break
        due += (min(profit, hi) - lo) * rate
    return due


@vectorize
def energy_bill(kwh, tier, rates=ENERGY_RATES, standing=0.53):
    return standing + kwh * rates[tier]


@vectorize
def council_tax(band, band_d=2_065.0, ratios=COUNCIL_RATIOS):
    return round(float(band_d * ratios[band]), 2)


@vectorize
def water_bill(m3, limits=[10.0, 25.0, 60.0], prices=(1.42, 1.98, 2.71)):
    cost = 0.0
    used = 0.0
    for k in range(len(limits)):
        if m3 > used:
            cost += (min(m3, limits[k]) - used) * prices[k]
        used = limits[k]
    return cost


@vectorize
def capped_benefit(award, limits=(None, 423.46)):
    lower, upper = limits
    if lower is not None and award < lower:
        return 0.0
    if upper is not None and award > upper:
        return upper
    return award


@vectorize
def child_benefit_charge(income, benefit, thresholds=(60_000.0, 80_000.0)):
    start, end = thresholds
    if income <= start:
        return 0.0
    if income >= end:
        return benefit
    return benefit * (income - start) / (end - start)


@vectorize
def average_rate(amount, rates=ENERGY_RATES):
    total = 0.0
    for rate in rates:
        total += amount * rate
    return total / len(rates)


@vectorize
def pension_relief(contribution, band, reliefs=(0.20, 0.40, 0.45)):
    if contribution <= 0.0:
        return 0.0
    return contribution * reliefs[band] / (1.0 - reliefs[band])


@vectorize
def stamp_duty(price, bands=((0.0, 250_000.0, 0.0), (250_000.0, 925_000.0, 0.05), (925_000.0, 1_500_000.0, 0.10), (1_500_000.0, math.inf, 0.12))):
    duty = 0.0
    for lo, hi, rate in bands:
        if price <= lo:
            break
        duty += (min(price, hi) - lo) * rate
    return math.floor(duty)


@vectorize
def volume_discount(quantity, breaks=(10, 50, 100), discounts=(0.0, 0.05, 0.10, 0.15)):
    k = 0
    for n in range(len(breaks)):
        if quantity >= breaks[n]:
            k = n + 1
    return discounts[k]
