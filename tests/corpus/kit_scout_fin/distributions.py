"""Distribution functions as pure-Python statistics fallbacks write them: polynomial fits,
Taylor series run to convergence, the incomplete gamma function by series and continued fraction
(Numerical Recipes' split), Acklam's normal quantile, a Student t cdf by its finite series."""

import math
from math import atan, exp, lgamma, log, log1p, pi, sqrt

from .common import norm_cdf

ITMAX = 300
EPS = 3.0e-16
FPMIN = 1.0e-300

# Chebyshev fit of erfc(z) * exp(z*z) in t = 1 / (1 + z/2), highest power last
ERFC_FIT = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
            0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277)

# Acklam's rational approximation of the normal quantile
_A = [-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
      1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00]
_B = [-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
      6.680131188771972e01, -1.328068155092442e01]
_C = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
      -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00]
_D = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
      3.754408661907416e00]
P_LOW = 0.02425


def erfc_cheb(x):
    """erfc with a fractional error below 1.2e-7 everywhere."""
    z = abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = 0.0
    for c in reversed(ERFC_FIT):
        poly = poly * t + c
    r = t * exp(-z * z + poly)
    return r if x >= 0.0 else 2.0 - r


def phi_taylor(z):
    """Normal cdf from the Taylor series of its integral, summed until adding a term no longer
    changes the total."""
    if math.isnan(z):
        return z
    if z < -8.0:
        return 0.0
    if z > 8.0:
        return 1.0
    total, term, i = 0.0, z, 3
    while total != total + term:
        total += term
        term *= z * z / i
        i += 2
    return 0.5 + total * exp(-0.5 * z * z) / sqrt(2.0 * pi)


def _gamma_series(a, x):
    """P(a, x) by its series, with ln Gamma(a)."""
    gln = lgamma(a)
    ap = a
    delta = total = 1.0 / a
    for _ in range(ITMAX):
        ap += 1.0
        delta *= x / ap
        total += delta
        if abs(delta) < abs(total) * EPS:
            break
    return total * exp(-x + a * log(x) - gln), gln


def _gamma_fraction(a, x):
    """Q(a, x) by its continued fraction (modified Lentz), with ln Gamma(a)."""
    gln = lgamma(a)
    b = x + 1.0 - a
    c = 1.0 / FPMIN
    d = 1.0 / b
    h = d
    for i in range(1, ITMAX + 1):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < FPMIN:
            d = FPMIN
        c = b + an / c
        if abs(c) < FPMIN:
            c = FPMIN
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < EPS:
            break
    return exp(-x + a * log(x) - gln) * h, gln


def gamma_p(a, x):
    """Regularized lower incomplete gamma function P(a, x)."""
    if x < 0.0 or a <= 0.0:
        raise ValueError("invalid arguments in gamma_p: a=%r, x=%r" % (a, x))
    if x == 0.0:
        return 0.0
    if x < a + 1.0:
        gam, _ = _gamma_series(a, x)
        return gam
    gamc, _ = _gamma_fraction(a, x)
    return 1.0 - gamc


def chi2_sf(x, k):
    """Survival function of the chi-square distribution with k degrees of freedom."""
    if x <= 0.0:
        return 1.0
    return 1.0 - gamma_p(0.5 * k, 0.5 * x)


def poisson_cdf(k, lam):
    """P(X <= k) for a Poisson count, term by term."""
    if k < 0:
        return 0.0
    term = exp(-lam)
    total = term
    for i in range(1, k + 1):
        term *= lam / i
        total += term
    return min(total, 1.0)


def binom_pmf(k, n, p):
    """Binomial probability through log-gamma, stable for large n."""
    if k < 0 or k > n:
        return 0.0
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    log_choose = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)
    return exp(log_choose + k * log(p) + (n - k) * log1p(-p))


def student_t_cdf(t, df):
    """Student's t distribution function for a whole number of degrees of freedom, from the
    finite series in the angle theta = atan(t / sqrt(df))."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    theta = atan(t / sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        term = math.cos(theta)
        total = 0.0 if df == 1 else term
        for k in range(3, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        a = (2.0 / pi) * (theta + s * total)
    else:
        term = 1.0
        total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        a = s * total
    return 0.5 + 0.5 * a


def normal_quantile(p):
    """Inverse of the standard normal cdf (Acklam), refined by one Halley step."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie strictly between 0 and 1, got {p}")
    if p < P_LOW:
        q = sqrt(-2.0 * log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    elif p <= 1.0 - P_LOW:
        q = p - 0.5
        r = q * q
        x = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / (
            ((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    else:
        q = sqrt(-2.0 * log1p(-p))
        x = -(((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    e = norm_cdf(x) - p
    u = e * sqrt(2.0 * pi) * exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


def logistic_cdf(x, loc=0.0, scale=1.0):
    """Logistic distribution function without overflow on either side."""
    z = (x - loc) / scale
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


def log_add_exp(a, b):
    """log(exp(a) + exp(b)) without overflow."""
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + log1p(exp(lo - hi))


def z_test_pvalue(z, alternative="two-sided"):
    if alternative == "two-sided":
        return 2.0 * norm_cdf(-abs(z))
    elif alternative == "greater":
        return norm_cdf(-z)
    elif alternative == "less":
        return norm_cdf(z)
    raise ValueError(f"Unknown alternative: {alternative!r}")
