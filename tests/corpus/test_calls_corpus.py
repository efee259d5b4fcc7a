"""Example corpus for calls (D16 NumPy inside scalar code, D17 functions the Array API lacks,
helpers with defaults and keywords): option pricing with erfc, gamma-family densities with
lgamma, NumPy-flavoured signal and physics code, money rounding. Each function is compiled with
`@vectorize` and compared element by element with CPython (NumPy scalars for the functions that
call NumPy, as their users run them) on NumPy and array-api-strict."""

from __future__ import annotations

import colorsys as cs
import math
import warnings

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime.special import ULP_BOUNDS
from oracle import check, grid

SQRT2 = math.sqrt(2.0)
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# ----------------------------------------------------------------------------- option pricing


def norm_cdf(x):
    return 0.5 * math.erfc(-x / SQRT2)


def norm_pdf(x):
    return math.exp(-0.5 * x * x - LOG_SQRT_2PI)


def bs_call(spot, strike, vol, t, rate=0.02):
    sd = vol * math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / sd
    d2 = d1 - sd
    return spot * norm_cdf(d1) - strike * math.exp(-rate * t) * norm_cdf(d2)


def bs_put(spot, strike, vol, t):
    sd = vol * math.sqrt(t)
    d1 = (math.log(spot / strike) + 0.5 * vol * vol * t) / sd
    return strike * norm_cdf(-(d1 - sd)) - spot * norm_cdf(-d1)


def bs_vega(spot, strike, vol, t):
    sd = vol * math.sqrt(t)
    d1 = (math.log(spot / strike) + 0.5 * vol * vol * t) / sd
    return spot * norm_pdf(d1) * math.sqrt(t)


def digital_call(spot, strike, vol, t):
    sd = vol * math.sqrt(t)
    d2 = math.log(spot / strike) / sd - 0.5 * sd
    return round(float(norm_cdf(d2)), 6)


def bachelier_call(forward, strike, vol, t):
    sd = vol * np.sqrt(t)
    d = (forward - strike) / sd
    return (forward - strike) * norm_cdf(d) + sd * norm_pdf(d)


# ----------------------------------------------------------------------------- distributions


def gamma_pdf(x, shape, scale=1.0):
    if x <= 0.0:
        return 0.0
    log_density = (shape - 1.0) * math.log(x) - x / scale - math.lgamma(shape) - shape * math.log(scale)
    return math.exp(log_density)


def chi_square_pdf(x, dof):
    return gamma_pdf(x, dof / 2.0, scale=2.0)


def beta_log_norm(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def student_t_log_pdf(t, nu):
    return (
        math.lgamma((nu + 1.0) / 2.0)
        - math.lgamma(nu / 2.0)
        - 0.5 * math.log(nu * math.pi)
        - (nu + 1.0) / 2.0 * math.log1p(t * t / nu)
    )


def poisson_log_pmf(k, lam):
    return k * math.log(lam) - lam - math.lgamma(k + 1.0)


def gaussian_tail(z):
    return math.erfc(z / SQRT2) / 2.0 if z > 0.0 else 1.0 - math.erfc(-z / SQRT2) / 2.0


# ----------------------------------------------------------------------------- NumPy-flavoured


def soft_clip(x, limit):
    return np.clip(x, -limit, limit) + 0.1 * np.tanh(x - np.clip(x, -limit, limit))


def relu6(x):
    return np.minimum(np.maximum(x, 0.0), 6.0)


def safe_log_ratio(a, b):
    return np.where(np.isfinite(a) and np.isfinite(b), np.log1p(np.abs(a)) - np.log1p(np.abs(b)), np.nan)


def heading_deg(east, north):
    return np.degrees(np.arctan2(east, north)) % 360.0


def pendulum_period(length, amplitude_deg):
    theta = np.radians(amplitude_deg)
    return 2.0 * np.pi * np.sqrt(np.abs(length) / 9.80665) * (1.0 + np.square(theta) / 16.0)


def quantize(x, step):
    return np.floor(x / step + 0.5) * step + 0.0 * np.sign(x)


def wind_chill(temp_c, wind_kmh):
    v = np.power(np.maximum(wind_kmh, 4.8), 0.16)
    return np.where(temp_c <= 10.0, 13.12 + 0.6215 * temp_c - 11.37 * v + 0.3965 * temp_c * v, temp_c)


# ----------------------------------------------------------------------------- money and physics


def vat_inclusive(net, rate=0.2):
    return round(float(net * (1.0 + rate)), 2)


def compound(principal, rate, years=10):
    return round(float(principal * math.fsum((1.0, rate, rate * rate / 2.0)) ** years), 2)


def angle_wrap(theta):
    return math.remainder(theta, 2.0 * math.pi)


def phase_of(t, period):
    return math.fmod(t, period) / period


def nearly_equal(a, b):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def error_budget(x, sigma):
    return math.erf(x / (sigma * SQRT2))


def stirling_ratio(n):
    return math.gamma(n + 1.0) / (math.sqrt(2.0 * math.pi * n) * (n / math.e) ** n)


# ------------------------------------------------------- classes as namespaces, module constants


class Phys:
    """SI constants, bound once: read as constants (D8)."""

    R = 8.314462618
    G = 9.80665
    C_AIR = 1005.0
    KELVIN = 273.15

    @staticmethod
    def to_kelvin(celsius):
        return celsius + Phys.KELVIN

    @classmethod
    def air_density(cls, celsius, kpa=101.325):
        return kpa * 1000.0 * 0.0289652 / (cls.R * cls.to_kelvin(celsius))


def barometric_pressure(height, celsius):
    # Isothermal atmosphere: p = p0 exp(-M g h / (R T)).
    return 101.325 * math.exp(-0.0289652 * Phys.G * height / (Phys.R * Phys.to_kelvin(celsius)))


def heating_power(flow, t_in, t_out):
    return flow * Phys.air_density(t_in) * Phys.C_AIR * (t_out - t_in)


# -------------------------------------------------------- helpers through a module alias (stdlib)


def luma(r, g, b):
    # `colorsys` is plain Python: its functions are helpers reached through the alias (D7).
    y, _, _ = cs.rgb_to_yiq(r, g, b)
    return y


def lightness(r, g, b):
    return cs.rgb_to_hls(r, g, b)[1]


CORPUS = {
    "luma": (luma, "xxx"),
    "lightness": (lightness, "xxx"),
    "barometric_pressure": (barometric_pressure, "fx"),
    "heating_power": (heating_power, "nxf"),
    "bs_call": (bs_call, "ppvt"),
    "bs_put": (bs_put, "ppvt"),
    "bs_vega": (bs_vega, "ppvt"),
    "digital_call": (digital_call, "ppvt"),
    "bachelier_call": (bachelier_call, "ppvt"),
    "gamma_pdf": (gamma_pdf, "xk"),
    "chi_square_pdf": (chi_square_pdf, "xk"),
    "beta_log_norm": (beta_log_norm, "kk"),
    "student_t_log_pdf": (student_t_log_pdf, "fk"),
    "poisson_log_pmf": (poisson_log_pmf, "nk"),
    "gaussian_tail": (gaussian_tail, "f"),
    "soft_clip": (soft_clip, "fk"),
    "relu6": (relu6, "f"),
    "safe_log_ratio": (safe_log_ratio, "ff"),
    "heading_deg": (heading_deg, "ff"),
    "pendulum_period": (pendulum_period, "fk"),
    "quantize": (quantize, "fk"),
    "wind_chill": (wind_chill, "tk"),
    "vat_inclusive": (vat_inclusive, "p"),
    "compound": (compound, "pr"),
    "angle_wrap": (angle_wrap, "f"),
    "phase_of": (phase_of, "fk"),
    "nearly_equal": (nearly_equal, "ff"),
    "error_budget": (error_budget, "fk"),
    "stirling_ratio": (stirling_ratio, "k"),
}

NUMPY_FLAVOURED = {"bachelier_call", "soft_clip", "relu6", "safe_log_ratio", "heading_deg", "pendulum_period",
                   "quantize", "wind_chill"}
# Sums and products of special functions: the bound of the functions, a few times over (lgamma's
# 8 ulps are of max(|result|, 1): absolute near lgamma(171) ~ 706, so the difference of two such
# values in beta_log_norm is only good to ~1e-12 absolute).
TOLERANCE = {"gamma_pdf": 1e-13, "chi_square_pdf": 1e-13, "beta_log_norm": 5e-12, "student_t_log_pdf": 1e-14,
             "poisson_log_pmf": 1e-14, "bs_call": 1e-13, "bs_put": 1e-13, "bs_vega": 1e-13, "bachelier_call": 1e-13,
             "stirling_ratio": 1e-13, "pendulum_period": 1e-15, "wind_chill": 1e-15, "heading_deg": 1e-15}
ULPS = {"gaussian_tail": ULP_BOUNDS["erfc"], "error_budget": ULP_BOUNDS["erf"], "soft_clip": 4, "safe_log_ratio": 4}


def column(code: str) -> np.ndarray:
    rng = np.random.default_rng(12)
    edges = {
        "f": [0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 1e-300, 1e300, math.inf, -math.inf, math.nan],
        "p": [100.0, 80.0, 125.5, 1e-3, 0.0],  # prices
        "v": [0.2, 0.05, 1.5],  # volatilities
        "t": [1.0, 0.25, 1e-4, 30.0],  # years
        "x": [0.0, -1.0, 0.5, 1.0, 3.0, 40.0, math.inf, math.nan],
        "k": [0.5, 1.0, 2.0, 3.5, 10.0, 171.0],  # shapes, degrees of freedom, steps
        "n": [0.0, 1.0, 2.0, 7.0, 30.0],
        "r": [0.0, 0.01, -0.02, 0.05],
    }[code]
    spread = {"f": 50.0, "p": 150.0, "v": 0.5, "t": 5.0, "x": 10.0, "k": 8.0, "n": 20.0, "r": 0.1}[code]
    random = np.abs(rng.normal(0.0, spread, 4)) if code not in "f" else rng.normal(0.0, spread, 4)
    return np.concatenate([np.array(edges, dtype=np.float64), random])


def on_numpy_scalars(fn):
    def oracle(*args):
        out = fn(*[np.float64(a) for a in args])
        return out.item() if hasattr(out, "item") else out

    return oracle


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_function_matches_cpython(name, backend):
    fn, codes = CORPUS[name]
    args = grid(*[column(c) for c in codes])
    scalar = on_numpy_scalars(fn) if name in NUMPY_FLAVOURED else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(vectorize(fn), *args, backend=backend, scalar=scalar, ulps=ULPS.get(name, 0),
              tolerance=TOLERANCE.get(name, 0.0))


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 20
