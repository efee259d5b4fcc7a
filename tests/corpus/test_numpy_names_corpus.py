"""Example corpus for NumPy names and builtins as written (issue 27, D16, D14): the package
`kit_numpy` (geodesy with NumPy's functions imported by name, optics through a numeric module
re-exporting `math` and NumPy functions as `math`, a tax calculator's rounding rules). Each
function is compared element by element with CPython running the scalar original (on NumPy
scalars where it calls NumPy, as its users run it) on NumPy and array-api-strict, an element
CPython raises on by the exception the call raises; and each module
compiles the same through the decorator, the import hook's static compile and the build backend."""

from __future__ import annotations

import importlib
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from kit_three_ways import assert_package_same_three_ways
from oracle import NAN_TO_INT, check_outcomes, grid

KIT = Path(__file__).parent / "kit_numpy"
sys.path.insert(0, str(KIT.parent))

EDGES = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
COLUMNS = {
    "a": [0.0, 12.5, 45.0, 89.9, 90.0, -30.0, 180.0, -179.5],  # angles, degrees
    "r": [0.0, 0.3, 1.2, -0.7, 1.5707963267948966],  # angles, radians
    "n": [1.0, 1.33, 1.5, 2.4, 1.0003],  # refractive indices
    "w": [1e-3, 5e-4, 2.0],  # beam waists, attenuations
    "z": [0.0, 0.5, -3.0, 1e4],  # distances
    "m": [0.0, 0.004, 1.25, 12_570.0, 12_570.005, 50_270.0, 80_000.555, 150_000.0, 2.675, 1e12],  # money
    "y": [0.0, 0.5, 1.25, 7.999, 30.0],  # years
    "t": [0.0, 0.25, 1.0, 1e-12],  # fractions
}
CORPUS = {
    "geodesy.haversine_m": "aaaa",
    "geodesy.initial_bearing_deg": "aaaa",
    "geodesy.reduced_latitude_deg": "a",
    "geodesy.prime_vertical_radius": "a",
    "geodesy.mercator_y": "a",
    "geodesy.barometric_pressure": "z",
    "geodesy.geoid_offset": "a",
    "geodesy.grid_cell": "a",
    "optics.refraction_angle_deg": "ann",
    "optics.fresnel_rs": "rnn",
    "optics.brewster_deg": "nn",
    "optics.numerical_aperture": "nn",
    "optics.beam_radius": "wzw",
    "optics.transmitted_fraction": "wz",
    "optics.optical_density_gain": "t",
    "optics.signed_delay_ns": "zn",
    "tax.income_tax": "m",
    "tax.vat_inclusive": "mt",
    "tax.cash_rounding": "m",
    "tax.pounds_and_pence": "m",
    "tax.months_of_service": "y",
    "tax.payroll_deduction": "m",
}
# Uniform arguments (D14: one per call): ndigits of round.
UNIFORM = {"tax.vat_inclusive": (2,), "tax.payroll_deduction": (0,)}
# Functions over NumPy's transcendental functions: the array library's last bits (item 9).
ULPS = {"geodesy.haversine_m": 4, "geodesy.initial_bearing_deg": 4, "geodesy.reduced_latitude_deg": 4,
        "geodesy.mercator_y": 4, "geodesy.prime_vertical_radius": 4, "geodesy.barometric_pressure": 4,
        "optics.refraction_angle_deg": 4, "optics.fresnel_rs": 8, "optics.beam_radius": 4,
        "optics.transmitted_fraction": 4, "optics.optical_density_gain": 4, "optics.brewster_deg": 4}


def function(qualified: str):
    module, name = qualified.split(".")
    return getattr(importlib.import_module(f"kit_numpy.{module}"), name)


def column(code: str) -> np.ndarray:
    rng = np.random.default_rng(27)
    values = COLUMNS[code] + (EDGES if len(code) == 1 else [])
    return np.concatenate([np.array(values), rng.uniform(-2.0, 2.0, 3) * max(abs(v) for v in COLUMNS[code])])


def on_numpy_scalars(fn):
    """CPython running `fn` on NumPy float64 scalars (ints stay ints: uniform arguments)."""

    def oracle(*args):
        out = fn(*[np.float64(a) if type(a) is float else a for a in args])
        return out.item() if hasattr(out, "item") else out

    return oracle


@pytest.mark.parametrize("qualified", sorted(CORPUS))
def test_corpus_function_matches_cpython(qualified, backend):
    vec = function(qualified)
    codes = CORPUS[qualified]
    columns = [column(c) for c in codes]
    if len(codes) > 2:
        columns = [c[::2] for c in columns]  # keep the grid small
    args = [*grid(*columns), *UNIFORM.get(qualified, ())]
    # The NumPy-flavoured modules run as their users run them, on NumPy scalars; the tax rules
    # on Python floats (CPython's round and math.modf).
    scalar = None if qualified.startswith("tax.") else on_numpy_scalars(vec._vectorized_original)
    # An element CPython rejects (`round(inf)`'s OverflowError, item 7) makes the call raise the
    # same for the first such element; the other elements are compared by value on their own.
    # NaN converted to an int is item 7's 0, not a raise (the corpus formats no NaN with `%d`).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_outcomes(vec, *args, backend=backend, scalar=scalar, ulps=ULPS.get(qualified, 0), as_values=(NAN_TO_INT,))


def test_corpus_modules_compile_the_same_three_ways(tmp_path):
    """The decorator's source of every function is the import hook's static compile's and the
    build backend's artifact, and the static assumptions hold for the live functions."""
    assert_package_same_three_ways(KIT, CORPUS, tmp_path)


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 15
