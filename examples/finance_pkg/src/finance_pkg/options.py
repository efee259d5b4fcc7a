"""Option pricing, written for one contract: ``black_scholes_call(spot, strike, rate, vol, t)``
prices one option, and the vectorized version prices a book of them at once."""

import math

from array_vectorize import vectorize

# Abramowitz & Stegun 26.2.17: the standard normal CDF to 7.5e-8, with exp only (no erf in the
# Array API standard).
P = 0.2316419
B1 = 0.319381530
B2 = -0.356563782
B3 = 1.781477937
B4 = -1.821255978
B5 = 1.330274429
INV_SQRT_2PI = 0.3989422804014327


def _tail(x):
    """Upper tail 1 - N(|x|)."""
    a = abs(x)
    t = 1.0 / (1.0 + P * a)
    poly = t * (B1 + t * (B2 + t * (B3 + t * (B4 + t * B5))))
    return INV_SQRT_2PI * math.exp(-0.5 * a * a) * poly


@vectorize
def norm_cdf(x):
    """Standard normal cumulative distribution function."""
    if x < 0.0:
        return _tail(x)
    return 1.0 - _tail(x)


@vectorize(protect_domains=True)
def black_scholes_call(spot, strike, rate, vol, t):
    """Black-Scholes price of a European call; intrinsic value at or after expiry."""
    if t <= 0.0 or vol <= 0.0:
        return max(spot - strike * math.exp(-rate * max(t, 0.0)), 0.0)
    sd = vol * math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / sd
    d2 = d1 - sd
    return spot * norm_cdf(d1) - strike * math.exp(-rate * t) * norm_cdf(d2)


@vectorize(protect_domains=True)
def black_scholes_put(spot, strike, rate, vol, t):
    """European put by put-call parity."""
    return black_scholes_call(spot, strike, rate, vol, t) - spot + strike * math.exp(-rate * t)


@vectorize
def barrier_call(spot, strike, barrier, rebate):
    """Up-and-out call payoff: the rebate once the barrier is touched, else max(S - K, 0)."""
    if spot >= barrier:
        return rebate
    if spot <= strike:
        return 0.0
    return spot - strike


@vectorize
def digital_call(spot, strike, payout=1.0):
    """Cash-or-nothing call payoff."""
    return payout if spot > strike else 0.0
