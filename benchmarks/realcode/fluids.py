"""Steam, water, seawater and air correlations as an engineering property library writes them:
standard formulas with their published coefficients, range checks, helpers calling helpers."""

from __future__ import annotations

import math

import numpy as np

from . import case

# IAPWS-IF97 region 4 (the saturation line) coefficients n1..n10.
N1, N2, N3, N4, N5 = 0.11670521452767e4, -0.72421316703206e6, -0.17073846940092e2, 0.12020824702470e5, -0.32325550322333e7
N6, N7, N8, N9, N10 = 0.14915108613530e2, -0.48232657361591e4, 0.40511340542057e6, -0.23855557567849, 0.65017534844798e3


# ----------------------------------------------------------------------------- IF97 saturation


def psat_if97_hand(t):
    theta = t + N9 / (t - N10)
    a = theta * theta + N1 * theta + N2
    b = N3 * theta * theta + N4 * theta + N5
    c = N6 * theta * theta + N7 * theta + N8
    p = (2.0 * c / (-b + np.sqrt(b * b - 4.0 * a * c))) ** 4
    return np.where((t < 273.15) | (t > 647.096), math.nan, p)


@case("steam", lambda rng, n: (rng.uniform(280.0, 640.0, n),), psat_if97_hand)
def psat_if97(t):
    """Saturation pressure of water in MPa at temperature t in K (IF97 region 4)."""
    if t < 273.15 or t > 647.096:
        return math.nan
    theta = t + N9 / (t - N10)
    a = theta * theta + N1 * theta + N2
    b = N3 * theta * theta + N4 * theta + N5
    c = N6 * theta * theta + N7 * theta + N8
    return (2.0 * c / (-b + math.sqrt(b * b - 4.0 * a * c))) ** 4


def tsat_if97_hand(p):
    beta = p**0.25
    e = beta * beta + N3 * beta + N6
    f = N1 * beta * beta + N4 * beta + N7
    g = N2 * beta * beta + N5 * beta + N8
    d = 2.0 * g / (-f - np.sqrt(f * f - 4.0 * e * g))
    return (N10 + d - np.sqrt((N10 + d) ** 2 - 4.0 * (N9 + N10 * d))) / 2.0


@case("steam", lambda rng, n: (rng.uniform(0.001, 22.0, n),), tsat_if97_hand)
def tsat_if97(p):
    """Saturation temperature in K at pressure p in MPa (IF97 backward equation)."""
    beta = p**0.25
    e = beta * beta + N3 * beta + N6
    f = N1 * beta * beta + N4 * beta + N7
    g = N2 * beta * beta + N5 * beta + N8
    d = 2.0 * g / (-f - math.sqrt(f * f - 4.0 * e * g))
    return (N10 + d - math.sqrt((N10 + d) ** 2 - 4.0 * (N9 + N10 * d))) / 2.0


# ----------------------------------------------------------------------------- humidity


def humidity_ratio_hand(t_celsius, rh, p_kpa):
    pw = rh / 100.0 * psat_if97_hand(t_celsius + 273.15) * 1000.0
    return 0.621945 * pw / (p_kpa - pw)


@case(
    "steam",
    lambda rng, n: (rng.uniform(1.0, 45.0, n), rng.uniform(5.0, 100.0, n), 101.325),
    humidity_ratio_hand,
)
def humidity_ratio(t_celsius, rh, p_kpa):
    """kg of water vapour per kg of dry air, from the IF97 saturation pressure."""
    pw = rh / 100.0 * psat_if97(t_celsius + 273.15) * 1000.0
    return 0.621945 * pw / (p_kpa - pw)


# ----------------------------------------------------------------------------- seawater


def seawater_density_hand(s, t):
    rho_w = 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 + t * 6.536332e-9))))
    a = 0.824493 + t * (-4.0899e-3 + t * (7.6438e-5 + t * (-8.2467e-7 + t * 5.3875e-9)))
    b = -5.72466e-3 + t * (1.0227e-4 - 1.6546e-6 * t)
    return rho_w + s * (a + b * np.sqrt(s) + 4.8314e-4 * s)


@case(
    "seawater",
    lambda rng, n: (rng.uniform(0.0, 40.0, n), rng.uniform(-2.0, 35.0, n)),
    seawater_density_hand,
)
def seawater_density(s, t):
    """Density of seawater at one atmosphere, kg/m3 (UNESCO 1981, EOS-80), salinity s in PSU."""
    rho_w = 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 + t * 6.536332e-9))))
    a = 0.824493 + t * (-4.0899e-3 + t * (7.6438e-5 + t * (-8.2467e-7 + t * 5.3875e-9)))
    b = -5.72466e-3 + t * (1.0227e-4 - 1.6546e-6 * t)
    return rho_w + s * (a + b * math.sqrt(s) + 4.8314e-4 * s)


def freezing_point_hand(s, p_dbar):
    return (-0.0575 + 1.710523e-3 * np.sqrt(s) - 2.154996e-4 * s) * s - 7.53e-4 * p_dbar


@case(
    "seawater",
    lambda rng, n: (rng.uniform(4.0, 40.0, n), rng.uniform(0.0, 500.0, n)),
    freezing_point_hand,
)
def freezing_point(s, p_dbar):
    return (-0.0575 + 1.710523e-3 * math.sqrt(s) - 2.154996e-4 * s) * s - 7.53e-4 * p_dbar


def sound_speed_hand(t, s, depth):
    ds = s - 35.0
    return (
        1448.96
        + t * (4.591 + t * (-5.304e-2 + t * 2.374e-4))
        + 1.340 * ds
        + depth * (1.630e-2 + 1.675e-7 * depth)
        - 1.025e-2 * t * ds
        - 7.139e-13 * t * depth**3
    )


@case(
    "seawater",
    lambda rng, n: (rng.uniform(2.0, 30.0, n), rng.uniform(25.0, 40.0, n), rng.uniform(0.0, 8000.0, n)),
    sound_speed_hand,
)
def sound_speed(t, s, depth):
    """Speed of sound in seawater, m/s (Mackenzie's nine-term equation)."""
    ds = s - 35.0
    return (
        1448.96
        + t * (4.591 + t * (-5.304e-2 + t * 2.374e-4))
        + 1.340 * ds
        + depth * (1.630e-2 + 1.675e-7 * depth)
        - 1.025e-2 * t * ds
        - 7.139e-13 * t * depth**3
    )


# ----------------------------------------------------------------------------- water and air


def water_viscosity_hand(t_kelvin):
    return 2.414e-5 * 10.0 ** (247.8 / (t_kelvin - 140.0))


@case("steam", lambda rng, n: (rng.uniform(274.0, 370.0, n),), water_viscosity_hand)
def water_viscosity(t_kelvin):
    """Dynamic viscosity of liquid water in Pa s (Vogel's equation)."""
    return 2.414e-5 * 10.0 ** (247.8 / (t_kelvin - 140.0))


def dew_point_hand(t, rh):
    ice = t < 0.0
    a = np.where(ice, 22.46, 17.62)
    b = np.where(ice, 272.62, 243.12)
    gamma = np.log(rh / 100.0) + a * t / (b + t)
    return b * gamma / (a - gamma)


@case(
    "steam",
    lambda rng, n: (rng.uniform(-30.0, 40.0, n), rng.uniform(5.0, 100.0, n)),
    dew_point_hand,
)
def dew_point(t, rh):
    """Dew (or frost) point in degrees Celsius by the Magnus formula, over water or ice."""
    if t < 0.0:
        a, b = 22.46, 272.62
    else:
        a, b = 17.62, 243.12
    gamma = math.log(rh / 100.0) + a * t / (b + t)
    return b * gamma / (a - gamma)


def latent_heat_hand(t_kelvin):
    return np.where(t_kelvin >= 647.096, 0.0, 2257.0 * ((647.096 - t_kelvin) / (647.096 - 373.15)) ** 0.38)


@case("steam", lambda rng, n: (rng.uniform(280.0, 660.0, n),), latent_heat_hand)
def latent_heat(t_kelvin):
    """Latent heat of vaporisation of water in kJ/kg (Watson's correlation from 100 C)."""
    if t_kelvin >= 647.096:
        return 0.0
    return 2257.0 * ((647.096 - t_kelvin) / (647.096 - 373.15)) ** 0.38


# ----------------------------------------------------------------------------- pipe friction

#: The unit system of this module, checked on every call of the functions that need it.
SETTINGS = {"units": "SI"}


def friction_factor_hand(re, rel_roughness):
    units = SETTINGS["units"]
    if units != "SI" and units != "US":
        raise ValueError(f"unit system {units!r} not set up")
    turbulent = 0.25 / np.log10(rel_roughness / 3.7 + 5.74 / re**0.9) ** 2
    return np.where(re < 2300.0, 64.0 / re, turbulent)


@case(
    "steam",
    lambda rng, n: (rng.lognormal(9.0, 1.5, n), rng.uniform(1e-6, 1e-2, n)),
    friction_factor_hand,
    raises=True,
)
def friction_factor(re, rel_roughness):
    """Darcy friction factor: laminar, else the Swamee-Jain explicit formula."""
    units = SETTINGS["units"]
    if units != "SI" and units != "US":
        raise ValueError(f"unit system {units!r} not set up")
    if re < 2300.0:
        return 64.0 / re
    return 0.25 / math.log10(rel_roughness / 3.7 + 5.74 / re**0.9) ** 2
