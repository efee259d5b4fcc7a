"""Thermophysical correlations whose coefficients live in classes used as namespaces: tables as
class attributes (`Water.CP[k]`), rows of brackets (`for lo, hi, rate in Tariff.BANDS:`),
attributes computed in the class body from the ones above, and a class inheriting another's
tables (D15, issue 27 part 2 item 1)."""

from array_vectorize import vectorize


class Water:
    """Liquid water at 1 atm, 0-100 degC (polynomial fits in degrees Celsius)."""

    # Isobaric heat capacity, J/(kg K): c0 + c1 t + c2 t^2 + c3 t^3
    CP = (4217.4, -3.720283, 0.1412855, -2.654387e-3, 2.093236e-5)
    # Density, kg/m^3 (Kell 1975): numerator in Horner order (highest power first)
    RHO = [-2.8054253e-10, 1.0556302e-7, -4.6170461e-5, -7.9870401e-3, 16.945176, 999.83952]
    RHO_DEN = 16.879850e-3
    MOLAR_MASS = 18.015268e-3
    DEGREES = len(CP)


class Ice(Water):
    """Ice Ih: inherits the molar mass; its own heat capacity fit."""

    CP = (2096.6, 7.7, 0.0)
    HALF_CP = tuple(c / 2.0 for c in CP)


class Tariff:
    """Stepped electricity tariff: (from kWh, to kWh, price per kWh)."""

    BANDS = ((0.0, 100.0, 0.12), (100.0, 400.0, 0.15), (400.0, 1e30, 0.21))
    STANDING = {0: 0.0, 1: 0.35, 2: 0.55}


@vectorize
def heat_capacity_water(t):
    cp = 0.0
    for k in range(Water.DEGREES):
        cp += Water.CP[k] * t ** k
    return cp


@vectorize
def density_water(t):
    num = 0.0
    for c in Water.RHO:
        num = num * t + c
    return num / (1.0 + Water.RHO_DEN * t)


@vectorize
def molar_enthalpy_change(t0, t1):
    # Trapezoid of cp over [t0, t1], per mole.
    cp0 = sum(c * t0 ** k for k, c in enumerate(Water.CP))
    cp1 = sum(c * t1 ** k for k, c in enumerate(Water.CP))
    return 0.5 * (cp0 + cp1) * (t1 - t0) * Water.MOLAR_MASS


@vectorize
def heat_capacity_ice(t):
    if t > 0.0:
        raise ValueError(f"ice above 0 degC: {t}")
    return Ice.CP[0] + Ice.CP[1] * t + Ice.HALF_CP[2] * Ice.MOLAR_MASS


@vectorize
def fit_coefficient(k):
    # An index per element: Python's negative indices, IndexError past the end (D15).
    return Water.CP[k]


@vectorize
def electricity_bill(kwh, meter):
    cost = Tariff.STANDING[meter]
    for lo, hi, price in Tariff.BANDS:
        if kwh <= lo:
            break
        cost += (min(kwh, hi) - lo) * price
    return cost
