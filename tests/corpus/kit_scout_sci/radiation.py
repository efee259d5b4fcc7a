"""Thermal radiation, optics and photometry."""

import math
from numpy import exp as np_exp, sqrt as np_sqrt

from .constants import b_wien, c, h, k_B, sigma
from . import numerics as nm


def planck_radiance(wavelength: float, T: float) -> float:
    """Spectral radiance [W sr^-1 m^-3] of a black body at wavelength [m] and temperature [K]."""
    if wavelength <= 0 or T <= 0:
        raise ValueError("wavelength and temperature must be positive")
    x = h * c / (wavelength * k_B * T)
    return 2.0 * h * c * c / wavelength ** 5 / math.expm1(x)


def brightness_temperature(wavelength, radiance):
    """Temperature [K] of the black body with this spectral radiance."""
    return h * c / (wavelength * k_B) / math.log1p(2.0 * h * c * c / (wavelength ** 5 * radiance))


def wien_peak(T):
    return b_wien / T


def radiant_exitance(T, emissivity=1.0):
    if not 0.0 <= emissivity <= 1.0:
        raise ValueError("emissivity must be in [0, 1]")
    return emissivity * sigma * T ** 4


def snell_angle(theta_i: float, n1: float, n2: float) -> float:
    """Refraction angle [deg]; NaN for total internal reflection."""
    s = n1 / n2 * nm.sin(math.radians(theta_i))
    if abs(s) > 1:
        return math.nan
    return math.degrees(math.asin(s))


def fresnel_reflectance(theta_i, n1, n2):
    """Unpolarised reflectance at a dielectric interface, angle in radians."""
    ci = math.cos(theta_i)
    st = n1 / n2 * math.sin(theta_i)
    if st >= 1.0:
        return 1.0
    ct = math.sqrt(1.0 - st * st)
    rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)
    rp = (n1 * ct - n2 * ci) / (n1 * ct + n2 * ci)
    return 0.5 * (rs * rs + rp * rp)


def thin_lens_image(f, d_object):
    """Image distance of a thin lens; infinite at the focal point."""
    if d_object == f:
        return math.inf
    return 1.0 / (1.0 / f - 1.0 / d_object)


def exposure_value(N: float, t: float, iso: float = 100.0) -> float:
    return math.log2(N * N / t) - math.log2(iso / 100.0)


def illuminance_from_ev(ev, calibration=2.5):
    return calibration * 2 ** ev


def beer_lambert(absorbance_coefficient, path_length, concentration=1.0):
    return np_exp(-absorbance_coefficient * path_length * concentration)


def rayleigh_optical_depth(wavelength_um, pressure_hpa=1013.25):
    """Rayleigh optical depth of the atmosphere (Bodhaine-style fit), wavelength in microns."""
    lam2 = wavelength_um * wavelength_um
    tau = 0.0021520 * (1.0455996 - 341.29061 / lam2 - 0.90230850 * lam2) / (1 + 0.0027059889 / lam2 - 85.968563 * lam2)
    return tau * pressure_hpa / 1013.25


def diffraction_limit_arcsec(wavelength: float, aperture: float) -> float:
    return math.degrees(1.21966989 * wavelength / aperture) * 3600.0


def doppler_factor(beta: float) -> float:
    """Relativistic Doppler factor sqrt((1 + b) / (1 - b))."""
    return float(np_sqrt((1.0 + beta) / (1.0 - beta)))
