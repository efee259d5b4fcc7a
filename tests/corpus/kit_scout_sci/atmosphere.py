"""Standard atmosphere and optical air mass.

The layers of the 1976 standard atmosphere are a table of base heights and lapse rates; the
air-mass models are chosen by name, as solar-energy libraries do.
"""

from __future__ import annotations

import math

import numpy as np

from .constants import P0, R, g
from .numerics import cosd

M_AIR = 0.0289644  # molar mass of air [kg/mol]
H_BASE = (0.0, 11000.0, 20000.0, 32000.0, 47000.0, 51000.0, 71000.0)
LAPSE = (-0.0065, 0.0, 0.001, 0.0028, 0.0, -0.0028, -0.002)
T_BASE = (288.15, 216.65, 216.65, 228.65, 270.65, 270.65, 214.65)
P_BASE = (101325.0, 22632.1, 5474.89, 868.019, 110.906, 66.9389, 3.95642)

AIRMASS_MODELS = ("simple", "kasten1966", "kastenyoung1989", "young1994", "pickering2002")


def isa_temperature(h: float) -> float:
    """Temperature [K] of the standard atmosphere at geopotential height h [m], 0 <= h < 86 km."""
    if h < 0 or h >= 86000.0:
        raise ValueError(f"height {h} m outside the standard atmosphere")
    layer = 0
    for i in range(len(H_BASE)):
        if h >= H_BASE[i]:
            layer = i
    return T_BASE[layer] + LAPSE[layer] * (h - H_BASE[layer])


def isa_pressure(h: float) -> float:
    """Pressure [Pa] of the standard atmosphere at h [m]."""
    for i in range(len(H_BASE) - 1, -1, -1):
        if h >= H_BASE[i]:
            break
    else:
        raise ValueError("negative height")
    hb, tb, pb, lb = H_BASE[i], T_BASE[i], P_BASE[i], LAPSE[i]
    if lb == 0.0:
        return pb * math.exp(-g * M_AIR * (h - hb) / (R * tb))
    return pb * (tb / (tb + lb * (h - hb))) ** (g * M_AIR / (R * lb))


def alt2pres(altitude):
    """Pressure [Pa] at an altitude [m] above sea level (a simple fit)."""
    return 100 * ((44331.514 - altitude) / 11880.516) ** (1 / 0.1902632)


def pres2alt(pressure):
    return 44331.5 - 4946.62 * pressure ** 0.190263


def relative_airmass(zenith, model="kastenyoung1989"):
    """Relative optical air mass at sea level for a solar zenith angle [deg].

    NaN where the sun is below the horizon (zenith > 90).
    """
    z = zenith
    zenith_rad = np.radians(z)
    model = model.lower()
    if "kastenyoung1989" == model:
        am = 1.0 / (np.cos(zenith_rad) + 0.50572 * ((6.07995 + (90 - z)) ** -1.6364))
    elif "kasten1966" == model:
        am = 1.0 / (np.cos(zenith_rad) + 0.15 * ((93.885 - z) ** -1.253))
    elif "simple" == model:
        am = 1.0 / np.cos(zenith_rad)
    elif "pickering2002" == model:
        am = 1.0 / (np.sin(np.radians(90 - z + 244.0 / (165 + 47.0 * (90 - z) ** 1.1))))
    elif "young1994" == model:
        am = ((1.002432 * ((np.cos(zenith_rad)) ** 2) + 0.148386 * (np.cos(zenith_rad)) + 0.0096467)
              / (np.cos(zenith_rad) ** 3 + 0.149864 * (np.cos(zenith_rad) ** 2) + 0.0102963 * (np.cos(zenith_rad))
                 + 0.000303978))
    else:
        raise ValueError("%s is not a valid model for relativeairmass" % model)
    if z > 90:
        am = np.nan
    return am


def absolute_airmass(airmass_relative, pressure=101325.0):
    return airmass_relative * pressure / P0


def linke_turbidity_clear_sky(zenith: float, linke: float = 3.0, altitude: float = 0.0) -> float:
    """Clear-sky global horizontal irradiance [W m^-2], an Ineichen-style model."""
    cos_z = cosd(zenith)
    if cos_z <= 0.0:
        return 0.0
    am = 1.0 / (cos_z + 0.50572 * (96.07995 - zenith) ** -1.6364)
    fh1 = math.exp(-altitude / 8000.0)
    fh2 = math.exp(-altitude / 1250.0)
    cg1 = 5.09e-5 * altitude + 0.868
    cg2 = 3.92e-5 * altitude + 0.0387
    ghi = cg1 * 1364.0 * cos_z * math.exp(-cg2 * am * (fh1 + fh2 * (linke - 1)))
    return max(ghi, 0.0)


def scale_height(t_kelvin: float) -> float:
    return R * t_kelvin / (M_AIR * g)
