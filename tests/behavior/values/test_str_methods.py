"""Methods of a string given per call (D14) and string defaults: `model = model.lower()`,
`name.strip()`, `unit.startswith("k")` run once per call in Python, the branches on them are
Python `if`s; a parameter whose default is a string is uniform (a table's key the same on every
element). Each case against CPython element by element (oracle.check), for every string the
branches distinguish."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BACKENDS, check, check_raising, floats

BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]

EMISSIVITY = {"steel": 0.8, "copper": 0.05, "brick": 0.93}


def radiated_heat(t_kelvin, surface="steel"):
    return EMISSIVITY[surface] * 5.670374419e-8 * t_kelvin**4


def wind_load(speed, terrain="Open "):
    terrain = terrain.strip().lower()
    if terrain == "open":
        factor = 1.0
    elif "urban" == terrain:
        factor = 0.6
    elif terrain.startswith("sub"):
        factor = 0.8
    else:
        raise ValueError("unknown terrain %s" % terrain)
    return 0.613 * factor * speed * speed


def unit_scale(x, unit="kPa"):
    if unit.upper().endswith("PA"):
        return x * (1000.0 if unit.lower().startswith("k") else 1.0)
    return x * unit.replace("x", "").count("b")  # `count`: not one of the methods


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("surface", ["steel", "copper", "brick"])
def test_a_string_default_keys_a_table(surface, backend):
    vec = vectorize(radiated_heat)
    check(vec, floats(), backend=backend)
    check(vec, floats(), surface, backend=backend)


def test_a_missing_key_raises_keyerror():
    with pytest.raises(KeyError, match="zinc"):
        vectorize(radiated_heat)(np.array([300.0]), "zinc")


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("terrain", [" OPEN", "urban", "Urban ", "suburban", "Sub"])
def test_string_methods_run_once_per_call(terrain, backend):
    vec = vectorize(wind_load)
    check(vec, floats(), terrain, backend=backend)
    assert "terrain.strip().lower()" in vec.source


def test_an_unknown_string_raises_as_cpython():
    got = check_raising(vectorize(wind_load), floats(), "forest")
    assert isinstance(got, ValueError)


def test_other_methods_are_refused_with_their_position():
    with pytest.raises(VectorizationError, match=r"test_str_methods.py:40:16: only functions of .* can be called as attributes"):
        vectorize(unit_scale)
