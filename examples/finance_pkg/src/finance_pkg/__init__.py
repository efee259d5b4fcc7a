"""finance-pkg: scalar finance formulas that run on whole arrays (an array-vectorize example)."""

from .options import barrier_call, black_scholes_call, black_scholes_put, digital_call, norm_cdf
from .rates import annuity_payment, compound_value, discount_factor, future_value, income_tax
from .risk import huber_loss, max_drawdown_step, soft_threshold, value_at_risk

__all__ = [
    "annuity_payment",
    "barrier_call",
    "black_scholes_call",
    "black_scholes_put",
    "compound_value",
    "digital_call",
    "discount_factor",
    "future_value",
    "huber_loss",
    "income_tax",
    "max_drawdown_step",
    "norm_cdf",
    "soft_threshold",
    "value_at_risk",
]
__version__ = "1.0.0"
