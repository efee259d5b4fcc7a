import math

from array_vectorize import vectorize

RATE = 0.05


@vectorize
def barrier_payoff(spot, strike, barrier):
    if spot >= barrier:
        return 0.0
    gain = spot - strike
    return gain if gain > 0.0 else 0.0


@vectorize
def discounted(value, years):
    return value * math.exp(-RATE * years)


@vectorize(protect_domains=True)
def log_return(p0, p1):
    if p0 > 0.0 and p1 > 0.0:
        return math.log(p1 / p0)
    return 0.0
