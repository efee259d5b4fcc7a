"""Tax bands and tariffs walked, searched and reduced per call (D14, D15; issue 27): thresholds
and rates as separate default parameters zipped together, a band found by `bisect` over the
thresholds, and sums, maxima and `any` of a rate table the caller may replace per call."""

import bisect

from array_vectorize import vectorize

THRESHOLDS = (0.0, 12_570.0, 50_270.0, 125_140.0)
RATES = (0.0, 0.20, 0.40, 0.45)
TIER_RATES = (0.2450, 0.2731, 0.3012)


@vectorize
def bracket_tax(income, thresholds=THRESHOLDS, rates=RATES):
    """Income tax as marginal increments: above each threshold, the rise of the rate over the
    band below."""
    tax = 0.0
    previous = 0.0
    for lo, rate in zip(thresholds, rates):
        if income <= lo:
            break
        tax += (income - lo) * (rate - previous)
        previous = rate
    return tax


@vectorize
def marginal_rate_of(income, thresholds=THRESHOLDS, rates=RATES):
    """The rate of the band an income falls in (below the first threshold: the last rate, by
    Python's negative index)."""
    return rates[bisect.bisect_right(thresholds, income) - 1]


@vectorize
def tiered_unit_price(quantity, breaks=(10, 50, 100), prices=(1.0, 0.9, 0.8, 0.7)):
    """The price of a unit once the order reaches each break: the cheapest reached price."""
    return prices[bisect.bisect_left(breaks, quantity + 1)]


@vectorize
def blended_tariff(kwh, rates=TIER_RATES, standing=0.53):
    """A bill at the mean of the tier rates, capped by the top rate, plus the standing charge."""
    mean = sum(rates) / len(rates)
    return min(kwh * mean, kwh * max(rates)) + standing


@vectorize
def higher_rate_payer(income, thresholds=THRESHOLDS, rates=RATES):
    """Whether some band above the basic one taxes this income at more than 20%."""
    return any(income > lo for lo, rate in zip(thresholds, rates) if rate > 0.2)


@vectorize
def relief_total(amount, reliefs=(0.20, 0.40, 0.45)):
    """Relief summed over the relief rates that apply, none when no relief rate is positive."""
    if not any(reliefs):
        return 0.0
    return sum(amount * r for r in reliefs if r > 0.0)
