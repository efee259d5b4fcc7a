"""Classes used as namespaces (D7, D8): class attributes bound once read as constants
(`Const.R`), staticmethods called as helpers (`Units.to_k(t)`), classmethods with `cls` bound to
the class (`cls.K0`, `cls.other(...)`), inherited attributes; and helpers reached through a
module alias (`import pkg.units as u; u.to_k(t)`). CPython running the scalar original is the
oracle, on every backend."""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats, ints, to_backend


class Const:
    """Physical constants, SI."""

    R = 8.314462618
    G = 9.80665
    MOLAR_VOLUME = 0.022413969
    SEA_LEVEL_KPA = 101.325


class Units:
    K0 = 273.15
    F_SCALE = 9.0 / 5.0

    @staticmethod
    def to_k(c):
        return c + Units.K0

    @classmethod
    def from_k(cls, k):
        return k - cls.K0

    @classmethod
    def to_f(cls, c, offset=32.0):
        return c * cls.F_SCALE + offset

    @classmethod
    def k_to_f(cls, k):
        return cls.to_f(cls.from_k(k))


class Fahrenheit(Units):
    """Inherits the conversions; `cls` is this class."""

    OFFSET = 32.0


def ideal_gas_pressure(moles, celsius):
    return moles * Const.R * Units.to_k(celsius) / Const.MOLAR_VOLUME / 1000.0


def fall_time(height):
    if height <= 0.0:
        return 0.0
    return math.sqrt(2.0 * height / Const.G)


def kelvin_to_fahrenheit(k):
    return Units.k_to_f(k)


def keywords_and_defaults(c):
    return Units.to_f(c, offset=0.0) - Units.to_f(c)


def inherited(k):
    return Fahrenheit.from_k(k) + Fahrenheit.OFFSET * Fahrenheit.F_SCALE


@pytest.mark.parametrize("fn", [fall_time, kelvin_to_fahrenheit, keywords_and_defaults, inherited],
                         ids=lambda f: f.__name__)
def test_namespace_reads_match_cpython(fn, backend):
    check(vectorize(fn), floats(), backend=backend)
    check(vectorize(fn), ints(), backend=backend)


def test_two_argument_namespace_function_matches_cpython(backend):
    check(vectorize(ideal_gas_pressure), floats(10), np.array([0.0, -0.0, 1.0, 2.5, np.nan, np.inf])[:, None], backend=backend)


def test_class_attributes_are_frozen_into_the_source():
    src = vectorize(ideal_gas_pressure).source
    assert "8.314462618" in src and "273.15" in src and "Const" not in src and "Units" not in src, src


class Registry:
    def scale(self, x):
        return x * 2.0

    LIMIT = [1.0, 2.0]


def calls_an_instance_method(x):
    return Registry.scale(x)


def reads_a_missing_attribute(x):
    return x * Const.PLANCK


def uses_the_class_as_a_value(x):
    return Const if x > 0 else x


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (calls_an_instance_method, "an instance method"),
        (reads_a_missing_attribute, "`Const` has no attribute `PLANCK`"),
        (uses_the_class_as_a_value, "class used as a namespace"),
    ],
    ids=lambda v: getattr(v, "__name__", "msg"),
)
def test_what_a_namespace_cannot_give_is_rejected(fn, message):
    with pytest.raises(VectorizationError, match=message):
        vectorize(fn)


UNITS_MODULE = '''\
K0 = 273.15


def to_k(c):
    return c + K0


def wind_chill(t, v):
    if v < 4.8:
        return t
    p = v ** 0.16
    return 13.12 + 0.6215 * t - 11.37 * p + 0.3965 * t * p
'''


@pytest.fixture
def units_package(tmp_path, monkeypatch):
    pkg = tmp_path / "avunits_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "units.py").write_text(UNITS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("avunits_pkg.units")
    for name in [n for n in sys.modules if n.startswith("avunits_pkg")]:
        del sys.modules[name]


def test_helpers_through_a_module_alias_match_cpython(units_package, backend):
    u = units_package
    pkg = sys.modules["avunits_pkg"]

    def felt(t, v):
        return u.to_k(u.wind_chill(t, v)) - u.K0

    def through_package(t):
        return pkg.units.to_k(t)

    check(vectorize(felt), floats(20), np.array([0.0, 4.8, 10.0, 30.0, np.nan])[:, None], backend=backend)
    check(vectorize(through_package), floats(), backend=backend)


class Tariff:
    RATE = 0.25


def tariffed(x):
    return x * Tariff.RATE


def test_a_class_attribute_is_frozen_at_decoration_docs_semantics_item_35(backend):
    vec = vectorize(tariffed)
    Tariff.RATE = 0.5
    try:
        # CPython reads the attribute at each call; the vectorized function froze 0.25 (D8).
        assert tariffed(2.0) == 1.0
        assert np.asarray(vec(to_backend(np.array([2.0]), backend))).tolist() == [0.5]
    finally:
        Tariff.RATE = 0.25


# Issue 27 part 2 item 1 (D15): class attributes that are tables, rows of a table unpacked.
class Steam:
    """Saturation pressure fit (kPa) and a table of bands."""

    COEFFS = [0.61121, 0.0444, 1.43e-3, 2.6e-5]
    BANDS = ((0.0, 0.1), (10.0, 0.2), (25.0, 0.35))
    SCALED = tuple(c * 1000.0 for c in COEFFS)
    DEGREE = len(COEFFS) - 1


class SuperheatedSteam(Steam):
    COEFFS = (0.5, 0.25)


def class_table_polynomial(t):
    return sum(c * t ** k for k, c in enumerate(Steam.COEFFS)) + Steam.SCALED[Steam.DEGREE]


def banded_surcharge(t):
    out = 0.0
    for lo, rate in Steam.BANDS:
        if t <= lo:
            break
        out += (t - lo) * rate
    return out


@pytest.mark.parametrize("fn", [class_table_polynomial, banded_surcharge], ids=lambda f: f.__name__)
def test_class_tables_match_cpython(fn, backend):
    check(vectorize(fn), floats(), backend=backend)
    check(vectorize(fn), ints(), backend=backend)


def test_a_class_table_indexed_per_element_matches_cpython(backend):
    k = np.array([0, 1, -1, -2, 3, 2])
    vec = vectorize(lambda k: Steam.COEFFS[k] + SuperheatedSteam.COEFFS[k % 2])
    check(vec, k, backend=backend)


def test_rows_of_a_table_of_the_wrong_width_are_rejected_with_their_position():
    def wrong_width(t):
        out = 0.0
        for lo, rate, extra in Steam.BANDS:
            out += t * rate
        return out

    with pytest.raises(VectorizationError, match=r":\d+:\d+: each row of the table this loop runs over must be a tuple or list of 3 values, one per target \(D15"):
        vectorize(wrong_width)
