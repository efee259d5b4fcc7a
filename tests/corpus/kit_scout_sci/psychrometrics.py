# -*- coding: utf-8 -*-
"""Moist air: saturation vapour pressure, dew point, wet bulb, humidity ratio, comfort indices.

Written in the manner of ASHRAE-style psychrometric libraries: module constants with docstrings,
a Newton iteration with an iteration limit, validity checks that raise ValueError.
"""

import math
from typing import Optional

from . import constants as C
from .numerics import clamp

TRIPLE_POINT_WATER = 0.01
"""float: Triple point of water in Celsius."""

MAX_ITER_COUNT = 100
"""int: Iterations before a solver gives up."""

MIN_HUM_RATIO = 1e-7
"""float: Smallest humidity ratio returned."""

TOLERANCE = 0.001

# Magnus coefficients over water and over ice (a, b [degC]).
MAGNUS = {"water": (17.62, 243.12), "ice": (22.46, 272.62)}


def sat_vapour_pressure(t_dry_bulb: float) -> float:
    """
    Saturation vapour pressure [Pa] over liquid water (above the triple point) or ice.

    Args:
        t_dry_bulb: Dry-bulb temperature [degC]

    Raises:
        ValueError: outside -100..200 degC
    """
    if t_dry_bulb < -100.0 or t_dry_bulb > 200.0:
        raise ValueError("Dry bulb temperature is outside range [-100, 200]")
    T = t_dry_bulb + C.T0
    if t_dry_bulb <= TRIPLE_POINT_WATER:
        ln_pws = (-5.6745359e3 / T + 6.3925247 - 9.677843e-3 * T + 6.2215701e-7 * T ** 2
                  + 2.0747825e-9 * math.pow(T, 3) - 9.484024e-13 * math.pow(T, 4) + 4.1635019 * math.log(T))
    else:
        ln_pws = (-5.8002206e3 / T + 1.3914993 - 4.8640239e-2 * T + 4.1764768e-5 * T ** 2
                  - 1.4452093e-8 * math.pow(T, 3) + 6.5459673 * math.log(T))
    return math.exp(ln_pws)


def magnus_pressure(t: float, phase: str = "water") -> float:
    """Saturation vapour pressure [hPa] by the Magnus formula, over water or ice."""
    a, b = MAGNUS[phase]
    return 6.112 * math.exp(a * t / (b + t))


def dew_point(t: float, rh: float) -> float:
    """Dew point [degC] from temperature [degC] and relative humidity [%] (Magnus)."""
    if rh <= 0:
        return float("nan")
    a, b = MAGNUS["water"]
    gamma = math.log(rh / 100.0) + a * t / (b + t)
    return b * gamma / (a - gamma)


def humidity_ratio(vap_pres: float, pressure: float = C.P0) -> float:
    """Humidity ratio [kg/kg] from vapour pressure and total pressure [Pa]."""
    if vap_pres < 0:
        raise ValueError("Partial pressure of water vapor in moist air cannot be negative")
    w = C.epsilon * vap_pres / (pressure - vap_pres)
    return max(w, MIN_HUM_RATIO)


def relative_humidity(t: float, td: float) -> float:
    """Relative humidity in [0, 1] from dry bulb and dew point [degC]."""
    if td > t:
        raise ValueError(f"Dew point temperature {td} is above dry bulb temperature {t}")
    return sat_vapour_pressure(td) / sat_vapour_pressure(t)


def _dln_pws(t: float) -> float:
    """d ln(pws) / dT, the derivative the Newton iteration of `dew_point_from_vap_pres` needs."""
    T = t + C.T0
    if t <= TRIPLE_POINT_WATER:
        return (5.6745359e3 / T ** 2 - 9.677843e-3 + 2 * 6.2215701e-7 * T
                + 3 * 2.0747825e-9 * T ** 2 - 4 * 9.484024e-13 * T ** 3 + 4.1635019 / T)
    return (5.8002206e3 / T ** 2 - 4.8640239e-2 + 2 * 4.1764768e-5 * T
            - 3 * 1.4452093e-8 * T ** 2 + 6.5459673 / T)


def dew_point_from_vap_pres(t_dry_bulb: float, vap_pres: float) -> float:
    """Dew point [degC] by Newton-Raphson on ln(pws), starting from the dry bulb."""
    bounds = [-100.0, 200.0]
    if vap_pres < sat_vapour_pressure(bounds[0]) or vap_pres > sat_vapour_pressure(bounds[1]):
        raise ValueError("Partial pressure of water vapor is outside range of validity of equations")
    t_dew = t_dry_bulb
    ln_vp = math.log(vap_pres)
    index = 1
    while True:
        t_iter = t_dew
        ln_vp_iter = math.log(sat_vapour_pressure(t_iter))
        d_ln_vp = _dln_pws(t_iter)
        t_dew = t_iter - (ln_vp_iter - ln_vp) / d_ln_vp
        t_dew = max(t_dew, bounds[0])
        t_dew = min(t_dew, bounds[1])
        if math.fabs(t_dew - t_iter) <= TOLERANCE:
            break
        if index > MAX_ITER_COUNT:
            raise ValueError("Convergence not reached in GetTDewPointFromVapPres. Stopping.")
        index = index + 1
    return min(t_dew, t_dry_bulb)


def wet_bulb_stull(t: float, rh: float) -> float:
    """Wet-bulb temperature [degC] from Stull's (2011) fit; rh in percent."""
    return (t * math.atan(0.151977 * (rh + 8.313659) ** 0.5)
            + math.atan(t + rh) - math.atan(rh - 1.676331)
            + 0.00391838 * rh ** 1.5 * math.atan(0.023101 * rh) - 4.686035)


def heat_index(t_f: float, rh: float) -> float:
    """NWS heat index [degF] (Rothfusz regression with its adjustments)."""
    hi = 0.5 * (t_f + 61.0 + (t_f - 68.0) * 1.2 + rh * 0.094)
    if (hi + t_f) / 2.0 < 80.0:
        return hi
    hi = (-42.379 + 2.04901523 * t_f + 10.14333127 * rh - 0.22475541 * t_f * rh
          - 6.83783e-3 * t_f * t_f - 5.481717e-2 * rh * rh + 1.22874e-3 * t_f * t_f * rh
          + 8.5282e-4 * t_f * rh * rh - 1.99e-6 * t_f * t_f * rh * rh)
    if rh < 13 and 80 <= t_f <= 112:
        hi -= ((13 - rh) / 4) * math.sqrt((17 - abs(t_f - 95.0)) / 17)
    elif rh > 85 and 80 <= t_f <= 87:
        hi += ((rh - 85) / 10) * ((87 - t_f) / 5)
    return hi


def wind_chill(t: float, v_kmh: float) -> Optional[float]:
    """Wind chill index [degC] (Environment Canada); None where it is not defined."""
    if t > 10.0 or v_kmh < 4.8:
        return None
    v16 = v_kmh ** 0.16
    return 13.12 + 0.6215 * t - 11.37 * v16 + 0.3965 * t * v16


def apparent_temperature(t: float, rh: float, wind: float) -> float:
    """Australian apparent temperature [degC]; rh in percent, wind in m/s."""
    rh = clamp(rh, 0.0, 100.0)
    e = rh / 100.0 * 6.105 * math.exp(17.27 * t / (237.7 + t))
    return t + 0.33 * e - 0.70 * wind - 4.00


def virtual_temperature(t_kelvin: float, mixing_ratio: float, molecular_weight_ratio: float = C.epsilon) -> float:
    """Virtual temperature [K] from temperature and mixing ratio."""
    return t_kelvin * (mixing_ratio + molecular_weight_ratio) / (molecular_weight_ratio * (1 + mixing_ratio))


def potential_temperature(pressure_hpa: float, t_kelvin: float) -> float:
    return t_kelvin * (1000.0 / pressure_hpa) ** C.kappa


def equivalent_potential_temperature(p_hpa, t_k, td_k):
    """Bolton (1980) equivalent potential temperature [K]."""
    e = 6.112 * math.exp(17.67 * (td_k - C.T0) / (td_k - 29.65))
    r = C.epsilon * e / (p_hpa - e)
    t_lcl = 56 + 1.0 / (1.0 / (td_k - 56) + math.log(t_k / td_k) / 800.0)
    th_l = t_k * (1000 / (p_hpa - e)) ** C.kappa * (t_k / t_lcl) ** (0.28 * r)
    return th_l * math.exp((3036.0 / t_lcl - 1.78) * r * (1 + 0.448 * r))
