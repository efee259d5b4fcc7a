"""European option values and sensitivities: Black-Scholes-Merton on spot, Black-76 on forwards,
Bachelier (normal model), digitals, a barrier, and the implied volatility by safeguarded Newton."""

from __future__ import annotations

import math
from math import exp, log, sqrt

import numpy as np

from . import common as cm
from .common import PricingError, norm_cdf, norm_pdf

# The short names pricing texts use.
N = norm_cdf
phi = norm_pdf


def d1_d2(S, K, t, r, sigma, q=0.0):
    """The standardised moneyness terms d1 and d2 of the lognormal model."""
    vol_sqrt_t = sigma * sqrt(t)
    d1 = (log(S / K) + (r - q + 0.5 * sigma**2) * t) / vol_sqrt_t
    return d1, d1 - vol_sqrt_t


def bsm_price(flag: str, S: float, K: float, t: float, r: float, sigma: float, q: float = 0.0) -> float:
    """Black-Scholes-Merton value of a European call (flag 'c') or put ('p').

    :param S: spot price of the underlying
    :param K: strike
    :param t: years to expiry
    :param r: continuously compounded risk-free rate
    :param sigma: annual volatility
    :param q: continuous dividend yield
    """
    if flag not in ("c", "p"):
        raise ValueError(f"flag must be 'c' or 'p', not {flag!r}")
    D1, D2 = d1_d2(S, K, t, r, sigma, q)
    if flag == "c":
        return S * exp(-q * t) * N(D1) - K * exp(-r * t) * N(D2)
    return K * exp(-r * t) * N(-D2) - S * exp(-q * t) * N(-D1)


def bsm_delta(flag, S, K, t, r, sigma, q=0.0):
    """Sensitivity of the value to the spot."""
    D1, _ = d1_d2(S, K, t, r, sigma, q)
    if flag == "p":
        return -np.exp(-q * t) * N(-D1)
    return np.exp(-q * t) * N(D1)


def bsm_gamma(S, K, t, r, sigma, q=0.0):
    D1 = d1_d2(S, K, t, r, sigma, q)[0]
    numerator = np.exp(-q * t) * phi(D1)
    return numerator / (S * sigma * np.sqrt(t))


def bsm_theta(flag, S, K, t, r, sigma, q=0.0):
    """Theta per calendar day (the annual figure divided by 365)."""
    D1, D2 = d1_d2(S, K, t, r, sigma, q)
    decay = -S * exp(-q * t) * phi(D1) * sigma / (2.0 * sqrt(t))
    sign = 1.0 if flag == "c" else -1.0
    carry = sign * q * S * exp(-q * t) * N(sign * D1)
    funding = -sign * r * K * exp(-r * t) * N(sign * D2)
    return (decay + carry + funding) / cm.DAYS_PER_YEAR


def black76(is_call: bool, F: float, K: float, t: float, r: float, sigma: float, *, cdf=norm_cdf) -> float:
    """Black's formula for an option on a forward F; expired options are worth their intrinsic
    value."""
    if t <= 0.0:
        return max(F - K, 0.0) if is_call else max(K - F, 0.0)
    sd = sigma * math.sqrt(t)
    d1 = math.log(F / K) / sd + 0.5 * sd
    d2 = d1 - sd
    df = cm.discount(r, t)
    if is_call:
        return df * (F * cdf(d1) - K * cdf(d2))
    return df * (K * cdf(-d2) - F * cdf(-d1))


def bachelier(S, K, t, sigma, call=True):
    """Normal-model value (rates zero): for spreads and negative-rate underlyings."""
    sd = sigma * math.sqrt(t)
    if sd == 0.0:
        return max(S - K, 0.0) if call else max(K - S, 0.0)
    d = (S - K) / sd
    w = 1 if call else -1
    return w * (S - K) * N(w * d) + sd * phi(d)


def cash_or_nothing(flag, S, K, t, r, sigma, cash=1.0):
    """A digital paying `cash` when it ends in the money."""
    _, D2 = d1_d2(S, K, t, r, sigma)
    if flag == "c":
        return cash * exp(-r * t) * N(D2)
    return cash * exp(-r * t) * N(-D2)


def down_and_out_call(S, K, barrier, t, r, sigma):
    """Down-and-out call with the barrier at or below the strike (reflection principle)."""
    cm.require_positive("volatility", sigma)
    if S <= barrier:
        return 0.0
    lam = (r + 0.5 * sigma**2) / sigma**2
    vanilla = bsm_price("c", S, K, t, r, sigma)
    reflected = bsm_price("c", barrier**2 / S, K, t, r, sigma)
    return vanilla - (barrier / S) ** (2.0 * lam - 2.0) * reflected


def implied_vol(price, S, K, t, r, flag="c", tol=1e-10, max_iter=60):
    """The volatility that reprices `price`: Newton's steps on vega, kept inside a shrinking
    bisection bracket."""
    lo, hi = 1e-6, 5.0
    sigma = 0.3
    for _ in range(max_iter):
        diff = bsm_price(flag, S, K, t, r, sigma) - price
        if abs(diff) < tol:
            return sigma
        if diff > 0.0:
            hi = sigma
        else:
            lo = sigma
        vega = S * sqrt(t) * phi(d1_d2(S, K, t, r, sigma)[0])
        step = sigma - diff / vega if vega > cm.EPS else 0.5 * (lo + hi)
        sigma = step if lo < step < hi else 0.5 * (lo + hi)
    raise PricingError(f"implied volatility did not converge for price {price}")


def parity_gap(call, put, S, K, t, r, q=0.0):
    """How far quoted prices stand from put-call parity."""
    return call - put - (S * np.exp(-q * t) - K * np.exp(-r * t))
