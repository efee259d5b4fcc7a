"""Risk and estimation formulas: robust losses, shrinkage, parametric value at risk."""

import math

from array_vectorize import vectorize

Z_99 = 2.3263478740408408  # one-sided 99% quantile of the standard normal


@vectorize
def huber_loss(residual, delta):
    """Quadratic near zero, linear in the tails."""
    a = abs(residual)
    if a <= delta:
        return 0.5 * residual * residual
    return delta * (a - 0.5 * delta)


@vectorize
def soft_threshold(x, lam):
    """Lasso shrinkage of one coefficient."""
    if x > lam:
        return x - lam
    if x < -lam:
        return x + lam
    return 0.0


@vectorize
def value_at_risk(mu, sigma, horizon_days, z=Z_99):
    """Parametric (normal) value at risk of a position, as a positive loss."""
    scaled = sigma * math.sqrt(horizon_days)
    loss = z * scaled - mu * horizon_days
    return max(loss, 0.0)


@vectorize
def max_drawdown_step(peak, price):
    """Drawdown from the running peak after one more price (0 at a new high)."""
    if price >= peak:
        return 0.0
    return (peak - price) / peak
