"""Building services: a unit system chosen once for the module (as ASHRAE-style libraries do),
material tables keyed by name, degree days, duct and coil sizing."""

import math
from enum import Enum, auto
from functools import lru_cache

from .constants import T0
from .numerics import horner


class UnitSystem(Enum):
    IP = auto()
    SI = auto()


IP = UnitSystem.IP
SI = UnitSystem.SI

UNITS = SI
"""The unit system in use; `set_unit_system` changes it."""

ROUGHNESS = {"steel": 4.5e-5, "copper": 1.5e-6, "concrete": 1.0e-3, "pvc": 1.5e-6}
"""Absolute roughness of pipe materials [m]."""

CONDUCTIVITY = {"brick": 0.72, "concrete": 1.4, "glass": 0.96, "mineral_wool": 0.04}


def set_unit_system(units):
    global UNITS
    if not isinstance(units, UnitSystem):
        raise ValueError("The system of units has to be either SI or IP.")
    UNITS = units


def is_ip():
    if UNITS == IP:
        return True
    elif UNITS == SI:
        return False
    raise ValueError("The system of units has not been defined.")


def freezing_point():
    return 32.0 if is_ip() else 0.0


def degree_days(t_mean, base=None):
    """Heating degree days of one day from its mean temperature, in the unit system in use."""
    if base is None:
        base = 65.0 if is_ip() else 18.0
    return max(base - t_mean, 0.0)


def relative_roughness(D, material="steel"):
    """eD of a pipe of inner diameter D [m] made of `material`."""
    return ROUGHNESS[material] / D


def wall_u_value(thickness, material="brick", h_in=7.7, h_out=25.0):
    """Thermal transmittance [W m^-2 K^-1] of a single-layer wall."""
    k = CONDUCTIVITY.get(material)
    if k is None:
        raise KeyError(f"unknown material {material!r}")
    return 1.0 / (1.0 / h_in + thickness / k + 1.0 / h_out)


def duct_equivalent_diameter(a, b):
    """Circular equivalent of a rectangular duct (Huebscher)."""
    assert a > 0 and b > 0, "duct sides must be positive"
    return 1.30 * (a * b) ** 0.625 / (a + b) ** 0.25


@lru_cache(maxsize=None)
def _air_density_coefficients():
    return (-1.5e-8, 1.8e-5, -4.6e-3, 1.2922)


def air_density(t_celsius):
    return horner(t_celsius, _air_density_coefficients())


def coil_lmtd(t_hot_in, t_hot_out, t_cold_in, t_cold_out):
    """Log-mean temperature difference of a counterflow coil."""
    dt1 = t_hot_in - t_cold_out
    dt2 = t_hot_out - t_cold_in
    if math.isclose(dt1, dt2):
        return dt1
    return (dt1 - dt2) / math.log(dt1 / dt2)


def sensible_load(flow_m3s, dt, rho=1.2, cp=1005.0):
    return flow_m3s * rho * cp * dt


def fahrenheit_to_kelvin(t_f):
    return (t_f - 32.0) * 5.0 / 9.0 + T0


def sum_of_heat_gains(q_solar, q_people, q_lights, q_equipment):
    gains = [q_solar, q_people, q_lights, q_equipment]
    return math.fsum(gains)


def cop_carnot(t_cold, t_hot):
    """Carnot coefficient of performance of a heat pump; temperatures in Celsius."""
    tc, th = (t + T0 for t in (t_cold, t_hot))
    if th <= tc:
        return math.inf
    return th / (th - tc)


def fan_power(flow, pressure_rise, efficiency=0.6):
    if efficiency <= 0 or efficiency > 1:
        raise ValueError(f"fan efficiency {efficiency} outside (0, 1]")
    power = lambda q, dp: q * dp
    return power(flow, pressure_rise) / efficiency
