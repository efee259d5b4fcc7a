"""Scalar kernels marked for vectorization. Imported after ``import array_vectorize.auto``, this
module is compiled by the import hook as it loads, and the result is cached in ``__pycache__``:
the next import compiles nothing."""

import math

from array_vectorize import vectorize

EPS = 1e-12


def clamp01(v):
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


@vectorize
def smoothstep(x, edge0, edge1):
    """Hermite interpolation between two edges."""
    t = clamp01((x - edge0) / (edge1 - edge0))
    return t * t * (3.0 - 2.0 * t)


@vectorize
def huber(r, delta):
    """Huber loss: quadratic near zero, linear in the tails."""
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    return delta * (a - 0.5 * delta)


@vectorize(protect_domains=True)  # log's operand is made safe on the lanes that return 0.0 (D1)
def safe_log_ratio(a, b):
    """log(a / b), with 0 where either side is not positive."""
    if a <= 0.0 or b <= 0.0:
        return 0.0
    return math.log((a + EPS) / (b + EPS))
