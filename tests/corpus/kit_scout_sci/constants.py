# -*- coding: utf-8 -*-
"""Physical constants (CODATA-like values), in SI units unless the name says otherwise."""

import math

#: Standard acceleration of gravity [m s^-2]
g = 9.80665
#: Universal gas constant [J mol^-1 K^-1]
R = 8.314462618
#: Specific gas constant of dry air [J kg^-1 K^-1]
R_d = 287.04749
#: Specific gas constant of water vapour [J kg^-1 K^-1]
R_v = 461.52
#: Ratio of molar masses of water and dry air [-]
epsilon = R_d / R_v
#: Specific heat of dry air at constant pressure [J kg^-1 K^-1]
cp_d = 1004.6
kappa = R_d / cp_d
#: Zero Celsius [K]
T0 = 273.15
#: Standard sea-level pressure [Pa]
P0 = 101325.0
#: Speed of light [m s^-1]
c = 299792458.0
#: Planck constant [J s]
h = 6.62607015e-34
#: Boltzmann constant [J K^-1]
k_B = 1.380649e-23
#: Stefan-Boltzmann constant [W m^-2 K^-4]
sigma = 5.670374419e-8
#: Wien displacement constant [m K]
b_wien = 2.897771955e-3
#: Astronomical unit [m]
au = 1.495978707e11
#: Julian day of J2000.0
J2000 = 2451545.0
#: Days per Julian century
JULIAN_CENTURY = 36525.0

DEG2RAD = math.pi / 180.0
RAD2DEG = 180.0 / math.pi
TWO_PI = 2.0 * math.pi


class Earth:
    """The Earth's figure (WGS 84) and rotation."""

    a = 6378137.0
    f = 1.0 / 298.257223563
    b = a * (1.0 - f)
    e2 = f * (2.0 - f)
    mean_radius = 6371008.8
    omega = 7.292115e-5
