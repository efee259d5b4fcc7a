"""Example corpus for uniform values (D14): scalar functions written the way domain code passes
per-call objects (tax-benefit rules with a parameter dict and a filing-status Enum, unit-system
switches, saturation vapour pressure over water or ice, optional caps). Each compiles and
matches CPython element by element, for every uniform value its branches distinguish, on NumPy
and array-api-strict."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum, IntEnum
from types import SimpleNamespace
from typing import Optional

import pytest

from array_vectorize import vectorize
from oracle import BACKENDS, check, floats, ints

BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]


class FilingStatus(Enum):
    SINGLE = "single"
    JOINT = "joint"
    HEAD_OF_HOUSEHOLD = "hoh"


class UnitSystem(Enum):
    SI = "si"
    IMPERIAL = "imperial"


class Region(IntEnum):
    NORTH = 1
    SOUTH = 2


@dataclass(frozen=True)
class Schedule:
    basic_rate: float
    higher_rate: float
    higher_threshold: float
    allowance: float


TAX_2024 = {
    "allowance_single": 12_570.0,
    "allowance_joint": 25_140.0,
    "basic_rate": 0.2,
    "higher_rate": 0.4,
    "higher_threshold": 50_270.0,
    "taper_start": 100_000.0,
    "child_benefit": 1_331.2,
    "credit_rate": 0.1,
}
TAX_ALT = dict(TAX_2024, basic_rate=0.19, higher_rate=0.41, taper_start=125_000, child_benefit=0.0)


def income_tax(income, params, status):
    if status == FilingStatus.JOINT:
        allowance = params["allowance_joint"]
    else:
        allowance = params["allowance_single"]
    if income > params["taper_start"]:
        allowance = max(allowance - (income - params["taper_start"]) / 2.0, 0.0)
    taxable = max(income - allowance, 0.0)
    basic_band = params["higher_threshold"] - allowance
    if taxable <= basic_band:
        return taxable * params["basic_rate"]
    return basic_band * params["basic_rate"] + (taxable - basic_band) * params["higher_rate"]


def child_benefit(income, children, params):
    benefit = params["child_benefit"] * children
    if income > 60_000.0:
        withdrawn = min((income - 60_000.0) / 20_000.0, 1.0)
        return benefit * (1.0 - withdrawn)
    return benefit


def earned_income_credit(earnings, params, status=FilingStatus.SINGLE):
    rate = params["credit_rate"]
    if status is FilingStatus.HEAD_OF_HOUSEHOLD:
        rate = rate * 1.5
    credit = earnings * rate
    phase_out = 20_000.0 if status == FilingStatus.JOINT else 15_000.0
    if earnings > phase_out:
        credit = max(credit - (earnings - phase_out) * 0.05, 0.0)
    return credit


def schedule_tax(income, schedule):
    taxable = max(income - schedule.allowance, 0.0)
    if taxable <= schedule.higher_threshold:
        return taxable * schedule.basic_rate
    return schedule.higher_threshold * schedule.basic_rate + (taxable - schedule.higher_threshold) * schedule.higher_rate


def status_multiplier(income, status: FilingStatus):
    if status == FilingStatus.SINGLE:
        return income * 1.0
    elif status == FilingStatus.JOINT:
        return income * 0.5
    return income * 0.75


def temperature(t, unit):
    if unit == UnitSystem.SI:
        return t + 273.15
    return (t - 32.0) * 5.0 / 9.0 + 273.15


def pressure_to_pa(p, unit: UnitSystem):
    if unit is UnitSystem.IMPERIAL:
        return p * 6894.757293168
    return p


def wind_chill(temp, speed, unit):
    if unit == UnitSystem.IMPERIAL:
        temp = (temp - 32.0) / 1.8
        speed = speed * 1.609344
    if temp > 10.0 or speed < 4.8:
        return temp
    v = speed**0.16
    return 13.12 + 0.6215 * temp - 11.37 * v + 0.3965 * temp * v


def saturation_vapour_pressure(t, phase="liquid"):
    if phase == "ice":
        return 6.1115 * math.exp((23.036 - t / 333.7) * (t / (279.82 + t)))
    return 6.1121 * math.exp((18.678 - t / 234.5) * (t / (257.14 + t)))


def dew_point(t, rh, phase):
    if phase == "ice":
        b, c = 22.587, 273.86
    else:
        b, c = 17.625, 243.04
    if rh <= 0.0:
        return -273.15
    gamma = math.log(rh / 100.0) + b * t / (c + t)
    return c * gamma / (b - gamma)


def capped_benefit(amount, cap=None):
    if cap is None:
        return amount
    return min(amount, cap)


def clamp_optional(x, lo: Optional[float] = None, hi: Optional[float] = None):
    if lo is not None and x < lo:
        return lo
    if hi is not None and x > hi:
        return hi
    return x


def scaled_with_default_scale(x, scale=None):
    if scale is None:
        scale = 2.5
    return x * scale


def regional_rate(x, region):
    if region == Region.NORTH:
        return x * 1.1
    return x * 0.9 + region.value


def drag_force(v, cfg):
    force = 0.5 * cfg.rho * v * v * cfg.cd * cfg.area
    if cfg.limit is not None:
        return min(force, cfg.limit)
    return force


def rate_by_mode(x, mode: str):
    if mode == "linear":
        return x * 0.5
    if mode == "quadratic":
        return x * x * 0.5
    return 0.0 * x


def typed_threshold(x, threshold):
    if isinstance(threshold, dict):
        return x - threshold["value"]
    return x - threshold


INCOMES = [-1.0, 0.0, 5_000.0, 12_570.0, 30_000.0, 50_270.0, 80_000.0, 100_000.0, 110_000.0, 125_140.0, 200_000.0, 1e7, math.inf, math.nan]


def incomes():
    import numpy as np

    return np.concatenate([np.array(INCOMES), np.abs(floats(seed=3)) * 10_000.0])


CORPUS = [
    (income_tax, lambda: [(incomes(), p, s) for p in (TAX_2024, TAX_ALT) for s in FilingStatus]),
    (child_benefit, lambda: [(incomes(), 2.0, TAX_2024), (incomes(), 0.0, TAX_ALT)]),
    (earned_income_credit, lambda: [(incomes(), TAX_2024, s) for s in FilingStatus] + [(incomes(), TAX_ALT)]),
    (schedule_tax, lambda: [(incomes(), Schedule(0.2, 0.4, 37_700.0, 12_570.0)), (incomes(), SimpleNamespace(basic_rate=0.1, higher_rate=0.3, higher_threshold=10_000, allowance=0))]),
    (status_multiplier, lambda: [(incomes(), s) for s in FilingStatus]),
    (temperature, lambda: [(floats(), u) for u in UnitSystem]),
    (pressure_to_pa, lambda: [(floats(), u) for u in UnitSystem]),
    (wind_chill, lambda: [(floats(), floats(seed=2), u) for u in UnitSystem]),
    (saturation_vapour_pressure, lambda: [(floats(),), (floats(), "ice"), (floats(), "liquid")]),
    (dew_point, lambda: [(floats(), floats(seed=5), ph) for ph in ("ice", "liquid")]),
    (capped_benefit, lambda: [(floats(),), (floats(), None), (floats(), 100.0), (floats(), floats(seed=4))]),
    (clamp_optional, lambda: [(floats(),), (floats(), -1.0), (floats(), None, 1.0), (floats(), -2.0, 2.0), (ints(), -5, 5), (ints(), None, None)]),
    (scaled_with_default_scale, lambda: [(floats(),), (floats(), -1.5), (ints(), None), (ints(), 3)]),
    (regional_rate, lambda: [(floats(), r) for r in Region]),
    (drag_force, lambda: [(floats(), SimpleNamespace(rho=1.225, cd=0.47, area=0.5, limit=None)), (floats(), SimpleNamespace(rho=1.0, cd=1.0, area=2.0, limit=1e3))]),
    (rate_by_mode, lambda: [(floats(), m) for m in ("linear", "quadratic", "other")]),
    (typed_threshold, lambda: [(floats(), {"value": 2.0}), (floats(), 1.5)]),
]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn, calls", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_corpus_function_compiles_and_matches_cpython(fn, calls, backend):
    vec = vectorize(fn)
    for args in calls():
        check(vec, *args, backend=backend)


def test_the_corpus_has_at_least_fifteen_functions():
    assert len(CORPUS) >= 15
