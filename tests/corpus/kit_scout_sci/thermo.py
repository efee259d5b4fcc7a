"""Thermophysical properties: water and steam, gases, simple fits with coefficient tables."""

from __future__ import annotations

import math
from numbers import Real

from . import constants
from .constants import R, T0
from .numerics import horner, clamp

# IAPWS-IF97 saturation line coefficients n1..n10
N_SAT = (0.11670521452767e4, -0.72421316703206e6, -0.17073846940092e2, 0.12020824702470e5,
         -0.32325550322333e7, 0.14915108613530e2, -0.48232657361591e4, 0.40511340542057e6,
         -0.23855557567849, 0.65017534844798e3)

ANTOINE = {
    "water": (8.07131, 1730.63, 233.426),
    "ethanol": (8.20417, 1642.89, 230.3),
    "benzene": (6.90565, 1211.033, 220.79),
}

# Sutherland constants: (mu0 [Pa s], T_ref [K], S [K])
SUTHERLAND = {"air": (1.716e-5, 273.15, 110.4), "N2": (1.663e-5, 273.15, 106.7), "CO2": (1.370e-5, 273.15, 222.0)}


def iapws_psat(T: float) -> float:
    """Saturation pressure [MPa] of water at T [K], 273.15 <= T <= 647.096 (IF97 eq. 30)."""
    if not isinstance(T, Real):
        raise TypeError("temperature must be a real number")
    if T < 273.15 or T > 647.096:
        raise ValueError("Temperature out of range of validity")
    n = N_SAT
    theta = T + n[8] / (T - n[9])
    A = theta ** 2 + n[0] * theta + n[1]
    B = n[2] * theta ** 2 + n[3] * theta + n[4]
    Cc = n[5] * theta ** 2 + n[6] * theta + n[7]
    return (2 * Cc / (-B + (B ** 2 - 4 * A * Cc) ** 0.5)) ** 4


def iapws_tsat(P: float) -> float:
    """Saturation temperature [K] at P [MPa] (IF97 eq. 31)."""
    if P < 611.212677e-6 or P > 22.064:
        raise ValueError("Pressure out of range of validity")
    n = N_SAT
    beta = P ** 0.25
    E = beta ** 2 + n[2] * beta + n[5]
    F = n[0] * beta ** 2 + n[3] * beta + n[6]
    G = n[1] * beta ** 2 + n[4] * beta + n[7]
    D = 2 * G / (-F - (F ** 2 - 4 * E * G) ** 0.5)
    return (n[9] + D - ((n[9] + D) ** 2 - 4 * (n[8] + n[9] * D)) ** 0.5) / 2


def antoine_pressure(T_celsius: float, substance: str = "water") -> float:
    """Vapour pressure [mmHg] by the Antoine equation."""
    try:
        A, B, Cc = ANTOINE[substance]
    except KeyError:
        raise ValueError(f"no Antoine coefficients for {substance!r}") from None
    return 10 ** (A - B / (Cc + T_celsius))


def sutherland_viscosity(T: float, gas: str = "air") -> float:
    mu0, T_ref, S = SUTHERLAND[gas]
    return mu0 * (T / T_ref) ** 1.5 * (T_ref + S) / (T + S)


def ideal_gas_density(P, T, MW):
    """Density [kg/m^3] of an ideal gas, molar mass in g/mol."""
    return P * MW * 1e-3 / (R * T)


def speed_of_sound_ideal(T, gamma=1.4, MW=28.9647):
    return math.sqrt(gamma * R * 1000.0 * T / MW)


def water_density_kell(t_celsius: float) -> float:
    """Density of liquid water [kg/m^3], Kell's (1975) rational fit, 0..150 degC."""
    t = clamp(t_celsius, 0.0, 150.0)
    num = horner(t, (-2.8054253e-10, 1.0556302e-7, -4.6170461e-5, -7.9870401e-3, 16.945176, 999.83952))
    return num / (1 + 16.879850e-3 * t)


def latent_heat_watson(T: float, Tc: float, Tb: float, Hvap_b: float, n: float = 0.38) -> float:
    """Heat of vaporisation at T from its value at the normal boiling point (Watson)."""
    if T >= Tc:
        return 0.0
    Tr = T / Tc
    Trb = Tb / Tc
    return Hvap_b * ((1 - Tr) / (1 - Trb)) ** n


def heat_capacity_shomate(T, coeffs=(30.09200, 6.832514, 6.793435, -2.534480, 0.082139)):
    """Shomate heat capacity [J/mol/K]; the coefficients are water vapour's by default."""
    t = T / 1000.0
    A, B, Cc, D, E = coeffs
    return A + B * t + Cc * t ** 2 + D * t ** 3 + E / t ** 2


def celsius_to_kelvin(t: float) -> float:
    return t + T0


def gravity_at_latitude(lat_deg: float, h: float = 0.0) -> float:
    """Normal gravity [m/s^2] (Somigliana-like series) with a free-air height correction."""
    s2 = math.sin(math.radians(lat_deg)) ** 2
    g0 = 9.7803253359 * (1 + 0.00193185265241 * s2) / math.sqrt(1 - 0.00669437999013 * s2)
    return g0 - 3.086e-6 * h


def earth_radius_at_latitude(lat_deg: float) -> float:
    E = constants.Earth
    phi = math.radians(lat_deg)
    num = (E.a ** 2 * math.cos(phi)) ** 2 + (E.b ** 2 * math.sin(phi)) ** 2
    den = (E.a * math.cos(phi)) ** 2 + (E.b * math.sin(phi)) ** 2
    return math.sqrt(num / den)
