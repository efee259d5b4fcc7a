"""Example corpus of issue 27 part 2 items 1-3, written for this repository: `kit_rules` (tax
rules and tariffs whose tables are parameters of the marked functions, with defaults a caller may
replace per call; steam-table fits whose coefficients a class of constants holds) and
`kit_objects` (a family of easing curves whose helpers a decorator of the module checks; scores
read through `statistics.NormalDist` objects). Each function is compared element by element with
CPython running the scalar original on NumPy and array-api-strict, with its defaults and with
tables passed per call. `kit_rules` compiles the same through the decorator, the import hook's
static compile and the build backend, and so do the easing curves of `kit_objects`; its
NormalDist objects are left to the decorator by the static compile (made at import time), which
a test pins."""

from __future__ import annotations

import importlib
import math
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

from array_vectorize import _core
from kit_three_ways import assert_package_same_three_ways
from oracle import NAN_TO_INT, check, check_outcomes, check_raising, grid

KITS = Path(__file__).parent
sys.path.insert(0, str(KITS))

EDGES = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
COLUMNS = {
    "i": [0.0, 12_570.0, 12_570.01, 30_000.0, 50_270.0, 100_000.0, 125_140.0, 260_000.0, 1e7, -5.0],  # incomes, profits, prices
    "e": [0.0, 0.5, 120.0, 3_100.0],  # kWh
    "w": [0.0, 5.0, 10.0, 10.5, 25.0, 60.0, 61.0],  # m3
    "a": [0.0, 100.0, 423.46, 423.47, -3.0],  # benefit awards
    "q": [0.0, 9.0, 10.0, 49.0, 50.0, 100.0, 1e4],  # quantities
    "t": [0.0, 3.98, 20.0, 99.9, 100.0, 150.0, 373.9, -10.0],  # degC
    "p": [1.0, 47.4, 101.325, 500.0, 2_000.0],  # kPa
    "h": [0.0, 500.0, 2_000.0, 8_848.0],  # metres
    "u": [0.0, 1e-310, 0.25, 0.5, 0.75, 0.9999999999999999, 1.0],  # t in [0, 1]
    "s": [55.0, 85.0, 100.0, 115.0, 145.0, -1e300, 1e300],  # scores
    "c": [0.01, 1.0, 2.5, 50.0, 97.5, 99.99],  # percentiles
    "r": [1e-300, 0.025, 0.075, 0.5, 0.925, 0.999999],  # probabilities
    "z": [0.0, 0.5, -1.96, 3.0, -8.0, 40.0],  # z scores, tolerances
}
INDEX = {
    "tier": np.array([0, 1, 2, -1, -3, 1, 0]),  # energy tiers, pension bands
    "band": np.array([0, 1, 2, 3, 4, 5, 6, 7, -1, -8]),  # council-tax bands A-H
}
# (columns, [the arguments after them per call: a tuple, or None for the defaults])
RULES = {
    "tariffs.income_tax": ("i", [None, (((0.0, 1e4, 0.1), (1e4, math.inf, 0.3)),)]),
    "tariffs.marginal_rate": ("i", [None, ([(0.0, 5e4, 0.2), (5e4, 1e5, 0.4)],)]),
    "tariffs.corporation_tax": ("i", [None, (((0.0, math.inf, 0.25),),), ((),)]),
    "tariffs.energy_bill": ("e tier", [None, ((0.1, 0.2, 0.3), 0.0)]),
    "tariffs.council_tax": ("band", [None, (1_500.0, (1, 2, 3, 4, 5, 6, 7, 8))]),
    "tariffs.water_bill": ("w", [None, ([5.0, 50.0], [1.0, 3.0])]),
    "tariffs.capped_benefit": ("a", [None, ((50.0, None),), ((None, None),)]),
    "tariffs.child_benefit_charge": ("i a", [None, ((50_000.0, 60_000.0),)]),
    "tariffs.average_rate": ("e", [None, ([1, 2],)]),
    "tariffs.pension_relief": ("a tier", [None, ((0.19, 0.2, 0.21),)]),
    "tariffs.stamp_duty": ("i", [None, (((0.0, 1e5, 0.02), (1e5, math.inf, 0.07)),)]),
    "tariffs.volume_discount": ("q", [None, ((5, 500), (0.5, 0.25, 0.125))]),
    "bands.bracket_tax": ("i", [None, ((0.0, 1e4, 5e4), [0.1, 0.2, 0.3]), ((), ()), ((0.0,), (0.25,))]),
    "bands.marginal_rate_of": ("i", [None, ([0.0, 5e4], (0.2, 0.4)), ((1e4,), (0.5,))]),
    "bands.tiered_unit_price": ("q", [None, ((5, 500), [2.0, 1.5, 1.0]), ((), (3.0,))]),
    "bands.blended_tariff": ("e", [None, ((0.5,), 0.0), ([0.1, 0.2, 0.4, 0.8], 1.0)]),
    "bands.higher_rate_payer": ("i", [None, ((0.0, 1e5), (0.5, 0.1)), ((), ())]),
    "bands.relief_total": ("a", [None, ((),), ([0.0, 0.5],), ((0.0, 0.0),)]),
    "steam.saturation_pressure_kpa": ("t", [None]),
    "steam.saturation_temperature": ("p", [None]),
    "steam.heat_of_vaporisation": ("t", [None]),
    "steam.liquid_density": ("t", [None]),
    "steam.relative_humidity": ("tt", [None]),
    "steam.boiling_point_at_altitude": ("h", [None]),
}
OBJECTS = {
    "easing.ease_in_out_quad": "u",
    "easing.ease_in_cubic": "u",
    "easing.ease_in_quart": "u",
    "easing.ease_in_sine": "u",
    "easing.ease_out_expo": "u",
    "easing.ease_in_back": "u",
    "easing.tween": "zzu",
    "normal.iq_percentile": "s",
    "normal.iq_at_percentile": "c",
    "normal.standard_density": "z",
    "normal.within_tolerance": "z",
    "normal.z_of": "r",
    "normal.upper_tail": "z",
}
# Transcendental functions: the array library's last bits (docs/semantics.md item 9); the CDF
# through the D17 helper erf, absolute (item 47).
ULPS = {"steam.saturation_pressure_kpa": 4, "steam.saturation_temperature": 4, "steam.heat_of_vaporisation": 4,
        "steam.relative_humidity": 8, "steam.boiling_point_at_altitude": 8, "easing.ease_in_sine": 4,
        "easing.ease_out_expo": 4, "normal.iq_at_percentile": 4, "normal.standard_density": 4, "normal.z_of": 16}
TOLERANCE = {"normal.iq_percentile": 1e-13, "normal.within_tolerance": 1e-15, "normal.upper_tail": 1e-15}
# Elements outside [0, 1] or (0, 1): the first raises CPython's exception (D11).
RAISING = {"easing.ease_in_cubic": [0.5, 1.5, -0.5], "easing.tween": [0.2, math.nan], "normal.iq_at_percentile": [50.0, 100.0, 0.0]}


def function(qualified: str):
    module, name = qualified.split(".")
    package = "kit_objects" if module in ("easing", "normal") else "kit_rules"
    return getattr(importlib.import_module(f"{package}.{module}"), name)


def column(code: str) -> np.ndarray:
    if code in INDEX:
        return INDEX[code]
    rng = np.random.default_rng(27)
    values = COLUMNS[code] + (EDGES if code not in "urc" else [])
    spread = max(abs(v) for v in COLUMNS[code] if math.isfinite(v))
    low = 0.0 if code in "urc" else -spread
    return np.concatenate([np.array(values), rng.uniform(low, spread, 5)])


def arguments(codes: str) -> list[np.ndarray]:
    if codes in INDEX:
        return [column(codes)]
    if " " in codes:  # paired columns (an amount and its band), cycled to one length
        columns = [column(c) for c in codes.split()]
        return [np.resize(c, max(len(c) for c in columns)) for c in columns]
    columns = [column(c) for c in codes]
    return columns if len(columns) == 1 else [c[::2] for c in grid(*columns)]


@pytest.mark.parametrize("qualified", sorted(RULES))
def test_rules_match_cpython_with_defaults_and_tables_passed(qualified, backend):
    codes, passed = RULES[qualified]
    # An element CPython rejects (`round(inf)`'s OverflowError, item 7) makes the call raise the
    # same for the first such element; the other elements are compared by value on their own.
    for tables in passed:
        check_outcomes(
            function(qualified), *arguments(codes), *(tables or ()), backend=backend, ulps=ULPS.get(qualified, 0),
            as_values=(NAN_TO_INT,),
        )


@pytest.mark.parametrize("qualified", sorted(OBJECTS))
def test_objects_match_cpython(qualified, backend):
    tolerance = TOLERANCE.get(qualified, 0.0)
    check(function(qualified), *arguments(OBJECTS[qualified]), backend=backend, ulps=ULPS.get(qualified, 0), tolerance=tolerance)


@pytest.mark.parametrize("qualified", sorted(RAISING))
def test_objects_raise_as_cpython(qualified, backend):
    args = [np.array(RAISING[qualified])] * len(OBJECTS[qualified])
    got = check_raising(function(qualified), *args, backend=backend)
    assert isinstance(got, (ValueError, statistics.StatisticsError)), got


def test_rules_compile_the_same_three_ways(tmp_path):
    assert_package_same_three_ways(KITS / "kit_rules", sorted(RULES), tmp_path)


def test_easing_compiles_the_same_three_ways(tmp_path):
    """A helper wrapped by a checking decorator of the module (`unit_interval`) is resolved by
    the import hook's and the build backend's static compile as by the decorator."""
    easing = sorted(q for q in OBJECTS if q.startswith("easing."))
    normal = [f"kit_objects.{q.replace('.', ':')}" for q in OBJECTS if q.startswith("normal.")]
    assert_package_same_three_ways(KITS / "kit_objects", easing, tmp_path, {"runtime": normal})


def test_the_static_compile_leaves_normal_dist_objects_to_the_decorator():
    """A NormalDist is made at import time: deferred, with the name."""
    kit = KITS / "kit_objects"
    normal = {e["name"]: e for e in _core.compile_module((kit / "normal.py").read_text(), str(kit / "normal.py"))}
    assert {e["status"] for e in normal.values()} == {"deferred"}, normal


def test_corpus_is_large_enough():
    assert len(RULES) + len(OBJECTS) >= 30
