"""Steam-table fits whose coefficients are tables held by a class of constants (D15, issue 27):
saturation pressure and temperature, liquid density and heat of vaporisation."""

import math

from array_vectorize import vectorize


class Saturation:
    # Antoine constants of water (mmHg, degC) for 1-100 degC and 99-374 degC
    LOW = (8.07131, 1730.63, 233.426)
    HIGH = (8.14019, 1810.94, 244.485)
    MMHG_TO_KPA = 0.133322
    # Watson's heat of vaporisation: (T_c [K], reference T [K], reference kJ/kg, exponent)
    WATSON = (647.096, 373.15, 2256.4, 0.38)
    # liquid density fit rho = sum(c_k * t**k), t in degC
    DENSITY = [999.83952, 16.945176e-3, -7.9870401e-3, -46.170461e-6, 105.56302e-9, -280.54253e-12]


@vectorize
def saturation_pressure_kpa(t):
    if t < 100.0:
        a, b, c = Saturation.LOW
    else:
        a, b, c = Saturation.HIGH
    return Saturation.MMHG_TO_KPA * 10.0 ** (a - b / (c + t))


@vectorize
def saturation_temperature(p_kpa):
    a, b, c = Saturation.HIGH
    mmhg = p_kpa / Saturation.MMHG_TO_KPA
    return b / (a - math.log10(mmhg)) - c


@vectorize
def heat_of_vaporisation(t):
    tc, tref, href, n = Saturation.WATSON
    k = t + 273.15
    if k >= tc:
        return 0.0
    return href * ((tc - k) / (tc - tref)) ** n


@vectorize
def liquid_density(t):
    return sum(c * t**k for k, c in enumerate(Saturation.DENSITY))


@vectorize
def relative_humidity(t, dew_point):
    return 100.0 * saturation_pressure_kpa(dew_point) / saturation_pressure_kpa(t)


@vectorize
def boiling_point_at_altitude(metres):
    p = 101.325 * (1.0 - 2.25577e-5 * metres) ** 5.25588
    return saturation_temperature(p)
