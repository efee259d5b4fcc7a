"""Helpers shared by the pricing, statistics and benefit modules."""

from __future__ import annotations

import math

SQRT_2PI = math.sqrt(2.0 * math.pi)
INV_SQRT2 = 1.0 / math.sqrt(2.0)
DAYS_PER_YEAR = 365.0
EPS = 1e-12


class PricingError(ValueError):
    """An input outside the model's domain."""


def norm_pdf(x: float) -> float:
    """Density of the standard normal distribution."""
    return math.exp(-0.5 * x * x) / SQRT_2PI


def norm_cdf(x: float) -> float:
    """Distribution function of the standard normal, through erfc so both tails keep their
    relative accuracy."""
    return 0.5 * math.erfc(-x * INV_SQRT2)


def clamp(value, lower, upper):
    return max(lower, min(upper, value))


def require_positive(name: str, value: float) -> None:
    """Raises PricingError unless `value` is a positive number."""
    if not value > 0.0:
        raise PricingError(f"{name} must be positive, got {value!r}")


def discount(rate, years):
    return math.exp(-rate * years)
