"""Elementary functions by series, recurrences and iterations, in the style of multiple
precision libraries and numerical-methods ports: argument reduction with Taylor series, Newton,
Euclid, Clenshaw's recurrence, Simpson's rule, compensated summation, continued fractions."""

import math
from functools import reduce

LN2 = math.log(2.0)
# Chebyshev coefficients of a smooth test function on [-1, 1] (c0 counted at half weight)
CHEB = (1.2660658777520082, 1.1303182079849700, 0.2714953395340766, 0.0443368498486638,
        0.0054742404420937, 0.0005429263119139, 0.0000449773229543, 0.0000031984364624)


def exp_taylor(x, tol=1e-17):
    """exp(x) by reduction to |r| <= ln2 / 2 and the Taylor series of exp(r)."""
    if not math.isfinite(x):
        return math.exp(x)
    k = round(x / LN2)
    r = x - k * LN2
    term = total = 1.0
    n = 1
    while abs(term) > tol * abs(total):
        term *= r / n
        total += term
        n += 1
    return math.ldexp(total, k)


def log1p_atanh(x, terms=40):
    """log(1 + x) = 2 atanh(x / (2 + x)), summed to a fixed number of terms (x > -1)."""
    y = x / (2.0 + x)
    y2 = y * y
    total = 0.0
    power = y
    for k in range(terms):
        total += power / (2 * k + 1)
        power *= y2
    return 2.0 * total


def newton_sqrt(a, rtol=1e-15):
    """Square root by Heron's iteration."""
    if a < 0:
        raise ValueError(f"square root of the negative number {a}")
    if a == 0 or not math.isfinite(a):
        return a * 1.0
    x = a if a > 1.0 else 1.0
    while True:
        nxt = 0.5 * (x + a / x)
        if abs(nxt - x) <= rtol * nxt:
            return nxt
        x = nxt


def gcd(a, b):
    """Greatest common divisor by Euclid's algorithm."""
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def horner(x, coeffs=(0.5, -1.0, 0.25, 2.0)):
    """Polynomial value with the coefficients highest power first."""
    return reduce(lambda acc, c: acc * x + c, coeffs, 0.0)


def clenshaw(x, lo=-1.0, hi=1.0):
    """Chebyshev series CHEB on [lo, hi] by Clenshaw's recurrence."""
    y = (2.0 * x - lo - hi) / (hi - lo)
    b1 = b2 = 0.0
    for c in CHEB[:0:-1]:
        b1, b2 = 2.0 * y * b1 - b2 + c, b1
    return y * b1 - b2 + 0.5 * CHEB[0]


def _gauss(u):
    return math.exp(-0.5 * u * u)


def simpson_gauss(a, b, n=32):
    """Simpson's rule for the integral of exp(-u**2 / 2) from a to b on n panels."""
    if n % 2:
        n += 1
    h = (b - a) / n
    s = _gauss(a) + _gauss(b)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * _gauss(a + i * h)
    return s * h / 3


def kahan_sum(a, b, c, d):
    """Compensated sum of four numbers."""
    total = 0.0
    comp = 0.0
    for v in [a, b, c, d]:
        y = v - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total


def exact_sum(a, b, c):
    return math.fsum([a, b, c])


def tan_cf(x, depth=12):
    """tan(x) by Lambert's continued fraction, evaluated from the bottom up."""
    acc = 0.0
    for k in range(depth, 0, -1):
        acc = x * x / ((2 * k + 1) - acc)
    return x / (1.0 - acc)


def cube_root_bisect(c, tol=1e-13):
    """Real solution of u**3 = c by bisection on a bracket that contains it."""
    lo, hi = (c, 1.0) if abs(c) < 1.0 and c > 0 else (-max(1.0, abs(c)), max(1.0, abs(c)))
    while hi - lo > tol * max(1.0, abs(lo)):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid < c:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def mantissa(x):
    m, _ = math.frexp(x)
    return m


def choose(n, k):
    return math.comb(n, k)


def relative_error(approx, exact):
    if exact == 0:
        return abs(approx)
    return abs((approx - exact) / exact)
