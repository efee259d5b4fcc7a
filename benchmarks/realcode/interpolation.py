"""Interpolation in constant tables, as a lookup-table module of a simulation code writes it:
a bisected breakpoint table, uniform grids indexed by `int()`, rational and piecewise cubics."""

from __future__ import annotations

import math
from bisect import bisect_right

import numpy as np

from . import case

# ----------------------------------------------------------------------------- breakpoint table

#: Efficiency of a pump against flow (m3/h), measured at these breakpoints.
FLOWS = (0.0, 5.0, 10.0, 20.0, 35.0, 50.0, 70.0, 90.0, 120.0)
EFFICIENCY = (0.0, 0.31, 0.48, 0.63, 0.72, 0.75, 0.71, 0.62, 0.45)
_FLOWS = np.array(FLOWS)
_EFF = np.array(EFFICIENCY)


def table_lookup_hand(q):
    i = np.clip(np.searchsorted(_FLOWS, q, side="right") - 1, 0, len(FLOWS) - 2)
    x0, x1 = np.take(_FLOWS, i), np.take(_FLOWS, i + 1)
    y0, y1 = np.take(_EFF, i), np.take(_EFF, i + 1)
    mid = y0 + (y1 - y0) * (q - x0) / (x1 - x0)
    return np.where(q <= FLOWS[0], EFFICIENCY[0], np.where(q >= FLOWS[-1], EFFICIENCY[-1], mid))


# raises: NaN passes both end tests and bisects past the last breakpoint, `FLOWS[i + 1]` an IndexError.
@case("interpolation", lambda rng, n: (rng.uniform(-5.0, 130.0, n),), table_lookup_hand, raises=True)
def table_lookup(q):
    """Linear interpolation in the breakpoint table, held constant beyond its ends."""
    if q <= FLOWS[0]:
        return EFFICIENCY[0]
    if q >= FLOWS[-1]:
        return EFFICIENCY[-1]
    i = bisect_right(FLOWS, q) - 1
    x0, x1 = FLOWS[i], FLOWS[i + 1]
    y0, y1 = EFFICIENCY[i], EFFICIENCY[i + 1]
    return y0 + (y1 - y0) * (q - x0) / (x1 - x0)


# ----------------------------------------------------------------------------- Catmull-Rom on a grid

#: Samples of a drag curve at x = 0, 1, ..., 10.
DRAG = (1.20, 1.05, 0.93, 0.86, 0.82, 0.80, 0.81, 0.84, 0.89, 0.95, 1.02)
_DRAG = np.array(DRAG)


def catmull_rom_hand(x):
    xc = np.clip(x, 0.0, 10.0)
    i = np.clip(xc.astype(np.int64), 1, 8)
    t = xc - i
    p0, p1 = np.take(_DRAG, i - 1), np.take(_DRAG, i)
    p2, p3 = np.take(_DRAG, i + 1), np.take(_DRAG, i + 2)
    return 0.5 * (
        2.0 * p1 + (p2 - p0) * t + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t * t + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t * t * t
    )


@case("interpolation", lambda rng, n: (rng.uniform(-1.0, 11.0, n),), catmull_rom_hand)
def catmull_rom(x):
    """Catmull-Rom spline through the uniform samples (end segments extrapolate the inner ones)."""
    x = min(max(x, 0.0), 10.0)
    i = int(x)
    if i < 1:
        i = 1
    elif i > 8:
        i = 8
    t = x - i
    p0, p1, p2, p3 = DRAG[i - 1], DRAG[i], DRAG[i + 1], DRAG[i + 2]
    return 0.5 * (
        2.0 * p1 + (p2 - p0) * t + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t * t + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t * t * t
    )


# ----------------------------------------------------------------------------- barycentric rational

#: Nodes and values of a rational interpolant (Berrut's weights (-1)**i).
NODES = (0.0, 0.4, 1.1, 1.9, 2.6, 3.4, 4.1, 5.0)
VALUES = (1.0, 1.35, 1.62, 1.58, 1.21, 0.84, 0.66, 0.61)


def berrut_hand(x):
    num = np.zeros_like(x)
    den = np.zeros_like(x)
    hit = np.full(x.shape, math.nan)
    for i, (xi, fi) in enumerate(zip(NODES, VALUES)):
        d = x - xi
        hit = np.where(d == 0.0, fi, hit)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = (1.0 if i % 2 == 0 else -1.0) / d
        num = num + w * fi
        den = den + w
    with np.errstate(invalid="ignore"):
        r = num / den
    return np.where(np.isnan(hit), r, hit)


@case("interpolation", lambda rng, n: (rng.uniform(0.0, 5.0, n),), berrut_hand)
def berrut(x):
    """Berrut's barycentric rational interpolant: exact at the nodes, no poles in between."""
    num = 0.0
    den = 0.0
    for i in range(8):
        d = x - NODES[i]
        if d == 0.0:
            return VALUES[i]
        w = (1.0 if i % 2 == 0 else -1.0) / d
        num += w * VALUES[i]
        den += w
    return num / den


# ----------------------------------------------------------------------------- bilinear

#: A 6 x 6 grid of a performance map, row-major (rows: x = 0..5, columns: y = 0..5).
MAP = (
    0.10, 0.14, 0.19, 0.25, 0.30, 0.33,
    0.12, 0.18, 0.26, 0.34, 0.41, 0.45,
    0.15, 0.23, 0.33, 0.44, 0.52, 0.57,
    0.17, 0.27, 0.39, 0.51, 0.61, 0.68,
    0.18, 0.29, 0.42, 0.56, 0.67, 0.75,
    0.18, 0.30, 0.44, 0.58, 0.70, 0.79,
)
_MAP = np.array(MAP)


def bilinear_hand(x, y):
    x = np.clip(x, 0.0, 5.0)
    y = np.clip(y, 0.0, 5.0)
    i = np.minimum(x.astype(np.int64), 4)
    j = np.minimum(y.astype(np.int64), 4)
    u, v = x - i, y - j
    k = i * 6 + j
    q00, q01 = np.take(_MAP, k), np.take(_MAP, k + 1)
    q10, q11 = np.take(_MAP, k + 6), np.take(_MAP, k + 7)
    return (1.0 - u) * ((1.0 - v) * q00 + v * q01) + u * ((1.0 - v) * q10 + v * q11)


@case(
    "interpolation",
    lambda rng, n: (rng.uniform(-0.5, 5.5, n), rng.uniform(-0.5, 5.5, n)),
    bilinear_hand,
)
def bilinear(x, y):
    x = min(max(x, 0.0), 5.0)
    y = min(max(y, 0.0), 5.0)
    i = min(int(x), 4)
    j = min(int(y), 4)
    u = x - i
    v = y - j
    k = i * 6 + j
    q00, q01, q10, q11 = MAP[k], MAP[k + 1], MAP[k + 6], MAP[k + 7]
    return (1.0 - u) * ((1.0 - v) * q00 + v * q01) + u * ((1.0 - v) * q10 + v * q11)


# ----------------------------------------------------------------------------- piecewise cubic


def piecewise_cubic_hand(x):
    a = 0.5 * x * x * (3.0 - x)
    t = x - 2.0
    b = 2.0 + t * (1.5 - t * (0.75 - 0.125 * t))
    u = x - 5.0
    c = 3.625 + u * (0.5 + u * (-0.2 + 0.02 * u))
    return np.where(x <= 0.0, 0.0, np.where(x < 2.0, a, np.where(x < 5.0, b, np.where(x < 9.0, c, 4.0))))


@case("interpolation", lambda rng, n: (rng.uniform(-1.0, 10.0, n),), piecewise_cubic_hand)
def piecewise_cubic(x):
    """A response curve fitted as four cubic pieces between constant knots."""
    if x <= 0.0:
        return 0.0
    if x < 2.0:
        return 0.5 * x * x * (3.0 - x)
    if x < 5.0:
        t = x - 2.0
        return 2.0 + t * (1.5 - t * (0.75 - 0.125 * t))
    if x < 9.0:
        u = x - 5.0
        return 3.625 + u * (0.5 + u * (-0.2 + 0.02 * u))
    return 4.0
