"""The benchmark set: realistic scalar functions, each with a hand-written Array API version.

Every benchmark has

* ``scalar``: the scalar original, plain Python on floats (what a user decorates);
* ``hand``: the same computation written by hand as a competent person writes it for whole
  arrays, with ``xp = array_api_compat.numpy`` (for every function used here, ``xp.where``,
  ``xp.exp``, ... are the very NumPy ufuncs/functions, so this is plain NumPy speed);
* ``generated()``: ``vectorize(scalar)`` (compiled on first use, then the canonical cache);
* ``make_args(rng, n)``: realistic arguments with ``n``-element float64 arrays where a caller
  would pass arrays and Python floats where a caller would pass a parameter;
* ``edges``: special values for the smoke test (``tests/unit/test_bench_smoke.py``), spliced into
  every array argument in turn.

The hand-written versions compute the same IEEE operations as the scalar original (same formula
order), so results agree to the last bit except where NumPy's and libm's transcendental functions
round differently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import array_api_compat.numpy as xp
import numpy as np

from array_vectorize import vectorize

Args = tuple  # of float64 arrays and Python floats

INF = math.inf
NAN = math.nan
COMMON_EDGES = (0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 1e300, -1e300, INF, -INF, NAN)


@dataclass
class Benchmark:
    name: str
    description: str
    scalar: Callable[..., float]
    hand: Callable[..., Any]
    make_args: Callable[[np.random.Generator, int], Args]
    edges: tuple = COMMON_EDGES
    _generated: Any = field(default=None, repr=False)

    def generated(self) -> Callable[..., Any]:
        """``vectorize(scalar)``; raises ``VectorizationError`` if the compiler rejects it."""
        if self._generated is None:
            self._generated = vectorize(self.scalar)
        return self._generated


BENCHMARKS: list[Benchmark] = []


def benchmark(description: str, hand: Callable, make_args: Callable, edges: tuple = COMMON_EDGES, name: str = ""):
    """Registers the decorated scalar function (under ``name`` when one scalar serves two
    benchmarks with other arguments)."""

    def register(fn: Callable) -> Callable:
        BENCHMARKS.append(Benchmark(name or fn.__name__, description, fn, hand, make_args, edges))
        return fn

    return register


def by_name(name: str) -> Benchmark:
    for b in BENCHMARKS:
        if b.name == name:
            return b
    raise KeyError(name)


# ----------------------------------------------------------------------------- soft threshold


def soft_threshold_hand(x, lam):
    return xp.where(x > lam, x - lam, xp.where(x < -lam, x + lam, 0.0))


@benchmark(
    "soft threshold (lasso shrinkage), two early returns",
    soft_threshold_hand,
    lambda rng, n: (rng.normal(0.0, 2.0, n), 1.0),
)
def soft_threshold(x, lam):
    if x > lam:
        return x - lam
    if x < -lam:
        return x + lam
    return 0.0


# ----------------------------------------------------------------------------- barrier payoff


def barrier_call_hand(s, k, barrier, rebate):
    return xp.where(s >= barrier, rebate, xp.where(s <= k, 0.0, s - k))


@benchmark(
    "up-and-out call payoff with rebate, early returns",
    barrier_call_hand,
    lambda rng, n: (rng.uniform(50.0, 150.0, n), 100.0, 130.0, 5.0),
    COMMON_EDGES + (100.0, 130.0, 129.99999999999997),
)
def barrier_call(s, k, barrier, rebate):
    if s >= barrier:
        return rebate
    if s <= k:
        return 0.0
    return s - k


# ----------------------------------------------------------------------------- Horner polynomial

# Taylor coefficients of exp(-x) up to x**9, highest degree first.
COEFFS = tuple((-1.0) ** k / math.factorial(k) for k in range(9, -1, -1))
NCOEFFS = len(COEFFS)


def horner_hand(x):
    acc = COEFFS[0]
    for c in COEFFS[1:]:
        acc = acc * x + c
    return acc


@benchmark(
    "degree-9 polynomial by Horner's rule: a loop over a constant tuple",
    horner_hand,
    lambda rng, n: (rng.uniform(-1.0, 1.0, n),),
)
def horner(x):
    acc = COEFFS[0]
    for i in range(1, NCOEFFS):
        acc = acc * x + COEFFS[i]
    return acc


# ----------------------------------------------------------------------------- log-normal density

SQRT_2PI = math.sqrt(2.0 * math.pi)


def lognormal_pdf_hand(x, mu, sigma):
    z = (xp.log(x) - mu) / sigma
    return xp.where(x <= 0.0, 0.0, xp.exp(-0.5 * z * z) / (x * sigma * SQRT_2PI))


@benchmark(
    "log-normal density: piecewise, math.log/exp/sqrt",
    lognormal_pdf_hand,
    lambda rng, n: (rng.lognormal(0.0, 1.0, n), 0.1, 0.8),
    (0.0, -0.0, 1.0, -1.0, 1e-300, 1e300, INF, NAN, 2.5),
)
def lognormal_pdf(x, mu, sigma):
    if x <= 0.0:
        return 0.0
    z = (math.log(x) - mu) / sigma
    return math.exp(-0.5 * z * z) / (x * sigma * math.sqrt(2.0 * math.pi))


# ----------------------------------------------------------------------------- softplus


def softplus_hand(x):
    ex = xp.exp(x)
    return xp.where(x > 30.0, x, xp.where(x < -30.0, ex, xp.log1p(ex)))


@benchmark(
    "softplus with overflow-safe branches (log1p(exp(x)))",
    softplus_hand,
    lambda rng, n: (rng.normal(0.0, 15.0, n),),
    (0.0, -0.0, 1.0, -1.0, 30.0, -30.0, 30.000000000000004, 700.0, -700.0, -INF, NAN),
)
def softplus(x):
    if x > 30.0:
        return x
    if x < -30.0:
        return math.exp(x)
    return math.log1p(math.exp(x))


# ----------------------------------------------------------------------------- Huber loss


def huber_hand(r, delta):
    a = xp.abs(r)
    return xp.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


@benchmark(
    "Huber loss: abs and a branch",
    huber_hand,
    lambda rng, n: (rng.normal(0.0, 2.0, n), 1.0),
)
def huber(r, delta):
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    return delta * (a - 0.5 * delta)


# ----------------------------------------------------------------------------- Kepler solver


def kepler_hand(m, e):
    ecc = m
    for _ in range(5):
        ecc = ecc - (ecc - e * xp.sin(ecc) - m) / (1.0 - e * xp.cos(ecc))
    return ecc


@benchmark(
    "Kepler's equation: 5 fixed Newton iterations (a range loop)",
    kepler_hand,
    lambda rng, n: (rng.uniform(0.0, 2.0 * math.pi, n), 0.3),
    (0.0, -0.0, 1.0, -1.0, math.pi, 2.0 * math.pi, 1e-300, 100.0, NAN),
)
def kepler(m, e):
    ecc = m
    for _ in range(5):
        ecc = ecc - (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))
    return ecc


# ----------------------------------------------------------------------------- Kepler to tolerance


def kepler_tol_hand(m, e):
    ecc = m
    active = xp.ones(m.shape, dtype=xp.bool)
    for _ in range(50):
        step = (ecc - e * xp.sin(ecc) - m) / (1.0 - e * xp.cos(ecc))
        ecc = xp.where(active, ecc - step, ecc)
        active = active & ~(xp.abs(step) < 1e-12)
        if not xp.any(active):
            break
    return ecc


@benchmark(
    "Kepler's equation: Newton to tolerance, a while loop with an early return (D12)",
    kepler_tol_hand,
    lambda rng, n: (rng.uniform(0.0, 2.0 * math.pi, n), 0.3),
    (0.0, -0.0, 1.0, -1.0, math.pi, 2.0 * math.pi, 1e-300, 100.0, NAN),
)
def kepler_tol(m, e):
    ecc = m
    n = 0
    while n < 50:
        step = (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))
        ecc = ecc - step
        if abs(step) < 1e-12:
            return ecc
        n += 1
    return ecc


def kepler_mixed_hand(m, e):
    # A careful hand rewrite of a solver whose lanes need very different iteration counts
    # computes the lanes still iterating only: their flat indices, gathered operands, and the
    # result written back each iteration.
    m, e = np.broadcast_arrays(m, e)
    ecc = m.astype(xp.float64, copy=True)
    out = ecc.reshape(-1)
    lanes = np.arange(out.size)
    cur, mm, ee = out.copy(), m.reshape(-1), e.reshape(-1)
    for _ in range(50):
        step = (cur - ee * xp.sin(cur) - mm) / (1.0 - ee * xp.cos(cur))
        cur = cur - step
        out[lanes] = cur
        going = ~(xp.abs(step) < 1e-12)
        if not xp.any(going):
            break
        lanes, cur, mm, ee = lanes[going], cur[going], mm[going], ee[going]
    return ecc


def _mixed_orbits(rng, n):
    # 98% of the orbits at e = 0.3, 2% near-parabolic (e = 0.999: dozens of Newton steps).
    return rng.uniform(0.0, 2.0 * math.pi, n), xp.where(rng.uniform(size=n) < 0.02, 0.999, 0.3)


benchmark(
    "Kepler's equation to tolerance over mixed orbits: 2% near-parabolic take 10x the steps (D12)",
    kepler_mixed_hand,
    _mixed_orbits,
    (0.0, -0.0, 1.0, -1.0, math.pi, 2.0 * math.pi, 1e-300, 100.0, NAN),
    name="kepler_mixed",
)(kepler_tol)


# ----------------------------------------------------------------------------- Babylonian sqrt


def babylonian_sqrt_hand(a):
    x = xp.where(a > 1.0, a, 1.0)
    for _ in range(6):
        x = 0.5 * (x + a / x)
    return xp.where(a <= 0.0, 0.0, x)


@benchmark(
    "square root by 6 fixed Babylonian (Newton) steps, a ternary start, a guard",
    babylonian_sqrt_hand,
    lambda rng, n: (rng.uniform(0.0, 100.0, n),),
    (0.0, -0.0, 1.0, -1.0, 0.25, 2.0, 100.0, 1e-300, NAN),
)
def babylonian_sqrt(a):
    if a <= 0.0:
        return 0.0
    x = a if a > 1.0 else 1.0
    for _ in range(6):
        x = 0.5 * (x + a / x)
    return x


# ----------------------------------------------------------------------------- Black-Scholes


def _norm_cdf_hand(x):
    t = 1.0 / (1.0 + 0.2316419 * xp.abs(x))
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    c = 1.0 - xp.exp(-0.5 * x * x) / SQRT_2PI * poly
    return xp.where(x < 0.0, 1.0 - c, c)


def bs_call_hand(s, k, t, r, sigma):
    vol = sigma * xp.sqrt(t)
    d1 = (xp.log(s / k) + (r + 0.5 * sigma * sigma) * t) / vol
    d2 = d1 - vol
    price = s * _norm_cdf_hand(d1) - k * xp.exp(-r * t) * _norm_cdf_hand(d2)
    return xp.where(t <= 0.0, xp.maximum(s - k, 0.0), price)


def _norm_cdf(x):
    # Abramowitz & Stegun 26.2.17
    t = 1.0 / (1.0 + 0.2316419 * abs(x))
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    c = 1.0 - math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi) * poly
    if x < 0.0:
        return 1.0 - c
    return c


@benchmark(
    "Black-Scholes call calling a helper (normal CDF, A&S 26.2.17) twice",
    bs_call_hand,
    lambda rng, n: (rng.uniform(50.0, 150.0, n), 100.0, rng.uniform(0.01, 2.0, n), 0.03, 0.2),
    (1.0, 50.0, 100.0, 150.0, 1e-3, 2.0, 1e6),
)
def bs_call(s, k, t, r, sigma):
    if t <= 0.0:
        return max(s - k, 0.0)
    vol = sigma * math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / vol
    d2 = d1 - vol
    return s * _norm_cdf(d1) - k * math.exp(-r * t) * _norm_cdf(d2)


# ----------------------------------------------------------------------------- smoothstep


def smoothstep_hand(x, e0, e1):
    t = xp.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _clamp(v, lo, hi):
    return min(max(v, lo), hi)


@benchmark(
    "smoothstep calling a clamp helper (min/max)",
    smoothstep_hand,
    lambda rng, n: (rng.uniform(-0.5, 1.5, n), 0.0, 1.0),
    (0.0, -0.0, 1.0, -1.0, 0.5, 1e300, -1e300, INF, -INF),
)
def smoothstep(x, e0, e1):
    t = _clamp((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


# ----------------------------------------------------------------------------- knock-out value
# The ~20-line function whose decoration latency bench_compile.py measures.


def knock_out_value_hand(s, k, barrier, rebate, t, r, sigma):
    disc = xp.exp(-r * t)
    dist = xp.log(barrier / s) / (sigma * xp.sqrt(t))
    haircut = 1.0 - xp.exp(-2.0 * dist * dist)
    intrinsic = s / disc - k
    value = xp.where(intrinsic <= 0.0, 0.0, xp.where(dist < 0.5, 0.5 * intrinsic * haircut, intrinsic * haircut))
    alive = disc * value + rebate * (1.0 - haircut) * disc
    expired = xp.where(s >= barrier, rebate, xp.maximum(s - k, 0.0))
    return xp.where(t <= 0.0, expired, xp.where(s >= barrier, rebate * disc, alive))


def knock_out_value(s, k, barrier, rebate, t, r, sigma):
    """Rough value of an up-and-out call: discounted forward intrinsic with a barrier haircut."""
    disc = math.exp(-r * t)
    if t <= 0.0:
        if s >= barrier:
            return rebate
        return max(s - k, 0.0)
    if s >= barrier:
        return rebate * disc
    vol = sigma * math.sqrt(t)
    dist = math.log(barrier / s) / vol
    haircut = 1.0 - math.exp(-2.0 * dist * dist)
    intrinsic = s / disc - k
    if intrinsic <= 0.0:
        value = 0.0
    elif dist < 0.5:
        value = 0.5 * intrinsic * haircut
    else:
        value = intrinsic * haircut
    return disc * value + rebate * (1.0 - haircut) * disc


# Registered by a call, not a decorator, so that its source is exactly its 20 lines.
benchmark(
    "knock-out option value: 20 lines, nested branches, exp/log/sqrt",
    knock_out_value_hand,
    lambda rng, n: (rng.uniform(50.0, 150.0, n), 100.0, 130.0, 5.0, rng.uniform(0.01, 2.0, n), 0.03, 0.2),
    (1.0, 50.0, 100.0, 129.0, 130.0, 150.0, 1e-3, 2.0),
)(knock_out_value)


# ----------------------------------------------------------------------------- reciprocal series
# A loop whose constants come from the loop index: 1.0 / (i + 1) is a Python float per iteration.


def reciprocal_series_hand(x):
    acc = 0.0
    for i in range(5):
        acc = acc * x + 1.0 / (i + 1)
    return acc


@benchmark(
    "Horner over range(5) with coefficients 1 / (i + 1) from the loop index",
    reciprocal_series_hand,
    lambda rng, n: (rng.uniform(-1.0, 1.0, n),),
)
def reciprocal_series(x):
    acc = 0.0
    for i in range(5):
        acc = acc * x + 1.0 / (i + 1)
    return acc


# ----------------------------------------------------------------------------- clamp, array bounds


def clamp_bounds_hand(x, lo, hi):
    return xp.minimum(xp.maximum(x, lo), hi)


@benchmark(
    "min(max(x, lo), hi) with per-element bounds",
    clamp_bounds_hand,
    lambda rng, n: (rng.normal(0.0, 1.0, n), rng.uniform(-1.5, -0.5, n), rng.uniform(0.5, 1.5, n)),
    # No NaN: np.maximum/np.minimum propagate a NaN bound, CPython's max/min keep x (the
    # generated code does what CPython does).
    (0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 1e300, -1e300, INF, -INF),
)
def clamp_bounds(x, lo, hi):
    return min(max(x, lo), hi)


# ----------------------------------------------------------------------------- floor at a parameter


def floor_at_hand(x, c):
    return xp.maximum(x, c)


@benchmark(
    "max(x, c) with c a parameter",
    floor_at_hand,
    lambda rng, n: (rng.normal(0.0, 1.0, n), 0.25),
)
def floor_at(x, c):
    return max(x, c)


# ----------------------------------------------------------------------------- put through parity (D19)

PARITY_RATE = 0.03


def bs_parity_hand(s, k, t, sigma, phi):
    vol = sigma * xp.sqrt(t)
    d1 = (xp.log(s / k) + (PARITY_RATE + 0.5 * sigma * sigma) * t) / vol
    d2 = d1 - vol
    discount = xp.exp(-PARITY_RATE * t)
    call = s * _norm_cdf_hand(d1) - k * discount * _norm_cdf_hand(d2)
    return xp.where(phi < 0.0, call - s + k * discount, call)


@benchmark(
    "a put priced by calling itself as a call (put-call parity): recursion, one level (D19)",
    bs_parity_hand,
    lambda rng, n: (rng.uniform(50.0, 150.0, n), 100.0, rng.uniform(0.01, 2.0, n), 0.2, rng.choice([-1.0, 1.0], n)),
    (1.0, 50.0, 100.0, 150.0, 1e-3, 2.0, 1e6, -1.0, -0.0),
)
def bs_parity(s, k, t, sigma, phi):
    if phi < 0.0:
        return bs_parity(s, k, t, sigma, 1.0) - s + k * math.exp(-PARITY_RATE * t)
    vol = sigma * math.sqrt(t)
    d1 = (math.log(s / k) + (PARITY_RATE + 0.5 * sigma * sigma) * t) / vol
    d2 = d1 - vol
    return s * _norm_cdf(d1) - k * math.exp(-PARITY_RATE * t) * _norm_cdf(d2)


# ----------------------------------------------------------------------------- local coefficient table

# The shape of a steam-table (IAPWS-IF97-style) Gibbs-energy correlation; coefficients made up.
GIBBS_I = (0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5)
GIBBS_J = (-2, -1, 0, 1, 2, 3, -9, -7, -1, 0, -3, 0, 3, -4, 1, -11, 2, -38)
GIBBS_N = (
    0.1463, -0.8455, -3.7564, 3.3855, -0.9579, 0.1577, -1.66e-2, 8.12e-4, 2.83e-4, -6.07e-4,
    -1.89e-2, -3.25e-2, -2.18e-2, -5.28e-5, -4.71e-4, -3.00e-4, 4.77e-5, -1.41e-15,
)


def gibbs_table_hand(p, t):
    # Each distinct power computed once, as a careful person writes it.
    a = 7.1 - p / 16.53
    b = 1386.0 / t - 1.222
    pa = {i: a**i for i in set(GIBBS_I)}
    pb = {j: b**j for j in set(GIBBS_J)}
    g = 0.0
    for i, j, n in zip(GIBBS_I, GIBBS_J, GIBBS_N):
        g = g + n * pa[i] * pb[j]
    return g


@benchmark(
    "steam-table-style correlation: 18 terms from coefficient lists local to the function, walked by zip (D18)",
    gibbs_table_hand,
    lambda rng, n: (rng.uniform(1.0, 40.0, n), rng.uniform(300.0, 620.0, n)),
    (1.0, 16.53, 40.0, 1e-300, 1e300, INF, NAN),
)
def gibbs_table(p, t):
    I = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5]
    J = [-2, -1, 0, 1, 2, 3, -9, -7, -1, 0, -3, 0, 3, -4, 1, -11, 2, -38]
    n = [
        0.1463, -0.8455, -3.7564, 3.3855, -0.9579, 0.1577, -1.66e-2, 8.12e-4, 2.83e-4, -6.07e-4,
        -1.89e-2, -3.25e-2, -2.18e-2, -5.28e-5, -4.71e-4, -3.00e-4, 4.77e-5, -1.41e-15,
    ]
    pi = p / 16.53
    tau = 1386.0 / t
    g = 0.0
    for i, j, ni in zip(I, J, n):
        g += ni * (7.1 - pi) ** i * (tau - 1.222) ** j
    return g
