"""Example corpus of issue 27 part 2 (D15, D8): the package `kit_classes` (thermophysical fits
whose coefficient tables are class attributes, a tariff's rows of bands; process checks reading a
module-level settings object; tax rules whose helpers take tables of bands as parameters; coordinate conversions whose helpers
return namedtuples). Each function is
compared element by element with CPython running the scalar original on NumPy and
array-api-strict; and each module compiles the same through the decorator, the import hook's
static compile and the build backend (nothing deferred)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from kit_three_ways import assert_package_same_three_ways
from oracle import check, check_raising, grid, to_backend

KIT = Path(__file__).parent / "kit_classes"
sys.path.insert(0, str(KIT.parent))

EDGES = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
COLUMNS = {
    "t": [0.0, 3.98, 20.0, 37.0, 99.9, -12.5],  # temperatures, degC
    "e": [0.0, 50.0, 100.0, 100.5, 399.0, 400.0, 1234.5],  # energy, kWh
    "i": [0.0, 12_570.0, 12_570.01, 30_000.0, 50_270.0, 100_000.0, 110_000.5, 125_140.0, 200_000.0],  # incomes
    "x": [0.0, -0.0, 1.0, -2.5, 3.0, 1e-300, 1e3],  # coordinates
    "m": [500.0, 492.5, 507.5, 507.50000001, 479.9, 520.0, 0.0],  # filled masses, g
}
INDEX = {
    "k": np.array([0, 1, 2, 3, 4, -1, -5]),  # table positions (5 and -6 raise: see below)
    "band": np.array([0, 1, 2, 2, 1, 0, 1]),  # tariff bands
    "lag": np.array([0, 1, 2, -1, -2, -3]),  # positions in a table of 3 weights
}
CORPUS = {
    "thermo.heat_capacity_water": "t",
    "thermo.density_water": "t",
    "thermo.molar_enthalpy_change": "tt",
    "thermo.fit_coefficient": "k",
    "thermo.electricity_bill": "e band",
    "process.within_tolerance": "m",
    "process.smoothed": "mmm",
    "process.clamp_to_limits": "m",
    "process.lag_weight": "lag",
    "process.deviation_in_spans": "m",
    "tax_rules.income_tax": "i",
    "tax_rules.scottish_income_tax": "i",
    "tax_rules.national_insurance": "i",
    "tax_rules.marginal_band": "i",
    "tax_rules.take_home": "i",
    "coords.polar_radius": "xx",
    "coords.rotate": "xxx",
    "coords.bearing_quadrant": "xx",
    "coords.latitude_of": "xxx",
    "coords.arc_from_origin_m": "xxx",
}
# Functions over transcendental functions: the array library's last bits (item 9).
# `rotate` composes atan2 with cos and sin: a last-bit difference of the angle is amplified
# where the result is small against the radius (cancellation), so its bound is wider.
ULPS = {"coords.rotate": 64, "coords.latitude_of": 4, "coords.arc_from_origin_m": 4, "coords.polar_radius": 4}
# Functions that raise for some elements (D11): the same exception as CPython's first element.
RAISING = {
    "thermo.heat_capacity_ice": ("t",),
}


def function(qualified: str):
    module, name = qualified.split(".")
    return getattr(importlib.import_module(f"kit_classes.{module}"), name)


def column(code: str) -> np.ndarray:
    if code in INDEX:
        return INDEX[code]
    rng = np.random.default_rng(27)
    values = COLUMNS[code] + EDGES
    return np.concatenate([np.array(values), rng.uniform(-2.0, 2.0, 3) * max(abs(v) for v in COLUMNS[code])])


def arguments(codes: str) -> list[np.ndarray]:
    columns = [column(c) for c in (codes.split() if " " in codes or codes in INDEX else list(codes))]
    if len(columns) == 1:
        return columns
    if " " in codes:  # paired columns (an amount and its band), cycled to one length
        return [np.resize(c, max(len(c) for c in columns)) for c in columns]
    return grid(*columns)


@pytest.mark.parametrize("qualified", sorted(CORPUS))
def test_corpus_function_matches_cpython(qualified, backend):
    vec = function(qualified)
    codes = CORPUS[qualified]
    columns = arguments(codes)
    if len(codes) > 2 and " " not in codes:
        columns = [c[::3] for c in columns]  # keep the grid small
    check(vec, *columns, backend=backend, ulps=ULPS.get(qualified, 0))


@pytest.mark.parametrize("qualified", sorted(RAISING))
def test_corpus_function_raises_as_cpython(qualified, backend):
    check_raising(function(qualified), *[column(c) for c in RAISING[qualified]], backend=backend)


def test_a_class_table_read_past_its_end_raises_indexerror_as_cpython(backend):
    """D15: the first element out of range raises CPython's IndexError (its message)."""
    vec = function("thermo.fit_coefficient")
    k = np.array([0, 2, -5, 5, 1, -6])
    with pytest.raises(IndexError) as cpython:
        [vec._vectorized_original(v) for v in k.tolist()]
    with pytest.raises(IndexError) as got:
        vec(to_backend(k, backend))
    assert got.value.args == cpython.value.args
    assert any("element 3" in n for n in getattr(got.value, "__notes__", [])), got.value


def corpus_names() -> set[str]:
    return set(CORPUS) | set(RAISING)


def test_corpus_modules_compile_the_same_three_ways(tmp_path):
    """The decorator's source of every function is the import hook's static compile's and the
    build backend's artifact, and the static assumptions hold for the live functions."""
    assert_package_same_three_ways(KIT, corpus_names(), tmp_path)


def test_corpus_is_large_enough():
    assert len(corpus_names()) >= 15
