"""bisect on constant tables, classes used as namespaces (constants, staticmethods,
classmethods) and `for` over enumerate/zip give byte-identical generated source on the three ways
in: the decorator (live compile), the import hook's static compile and the build backend's
artifact; and the static compile's assumptions (dotted for class attributes, D8) hold for the
live functions, so the hook and a wheel use the precompiled code."""

from __future__ import annotations

import importlib
import sys
import uuid

import numpy as np
import pytest

from array_vectorize import _core
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.precompiled import assumptions_hold
from three_ways import assert_one_same_three_ways, assert_same_source_three_ways, module_on_path

MODULE = '''\
import bisect
from bisect import bisect_left

from array_vectorize import vectorize

BANDS = (12_570.0, 50_270.0, 125_140.0)
RATES = (0.0, 0.2, 0.4, 0.45)
UPPER_RATES = [0.2, 0.4, 0.45]


class Const:
    """Constants bound once."""

    R = 8.314462618
    G = 9.80665


class Units:
    K0 = 273.15

    @staticmethod
    def to_k(c):
        return c + Units.K0

    @classmethod
    def from_k(cls, k):
        return k - cls.K0


def band_rate(band, rates=(0.0, 0.2, 0.4, 0.45), weights={0: 1.0, 3: 1.5}):
    return rates[band] * weights.get(band, 1.0)


@vectorize
def defaulted(income):
    return income * band_rate(bisect.bisect_right(BANDS, income))


@vectorize
def marginal_rate(income):
    return RATES[bisect.bisect_right(BANDS, income)]


@vectorize
def band(income):
    return bisect_left(BANDS, income, 1)


@vectorize
def gas_pressure(moles, celsius):
    return moles * Const.R * Units.to_k(celsius) / 0.0224


@vectorize
def round_trip(c):
    return Units.from_k(Units.to_k(c)) * Const.G


@vectorize
def band_tax(income):
    tax = 0.0
    lower = 0.0
    for top, rate in zip(BANDS, UPPER_RATES):
        if income > lower:
            tax += (min(income, top) - lower) * rate
        lower = top
    for k, r in enumerate(RATES):
        tax += 0.0 * k * r
    return tax
'''

NAMES = ("marginal_rate", "band", "gas_pressure", "round_trip", "band_tax", "defaulted")


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avns", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_static_assumptions_name_class_attributes_and_bisect(module):
    name, tmp_path = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    gas = {a: tuple(b) for a, b in static["gas_pressure"]["assumptions"]}
    assert gas["Const.R"] == ("const", 8.314462618)
    assert gas["Units.to_k"][0] == "function"
    trip = {a: tuple(b) for a, b in static["round_trip"]["assumptions"]}
    assert trip["Units.from_k"][:2] == ("classmethod", "from_k")
    assert {a: tuple(b) for a, b in static["marginal_rate"]["assumptions"]}["bisect"] == ("bisect_module",)
    assert {a: tuple(b) for a, b in static["band"]["assumptions"]}["bisect_left"] == ("bisect", "bisect_left")


def test_a_changed_class_attribute_invalidates_the_static_code(module):
    name, tmp_path = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    mod = importlib.import_module(name)
    original = mod.gas_pressure._vectorized_original
    assert assumptions_hold(original, static["gas_pressure"]["assumptions"])
    mod.Const.R = 8.0
    assert not assumptions_hold(original, static["gas_pressure"]["assumptions"])
    mod.Const.R = 8.314462618
    mod.Units.from_k = classmethod(lambda cls, k: k)
    assert not assumptions_hold(mod.round_trip._vectorized_original, static["round_trip"]["assumptions"])


def test_the_module_computes_what_cpython_computes(module):
    name, _ = module
    mod = importlib.import_module(name)
    x = np.array([-1.0, 0.0, 12_570.0, 30_000.0, 50_270.0, 2e5, np.nan, np.inf])
    for fn_name in ("marginal_rate", "band", "round_trip", "band_tax", "defaulted"):
        vec = getattr(mod, fn_name)
        expected = [vec._vectorized_original(v) for v in x.tolist()]
        np.testing.assert_array_equal(np.asarray(vec(x)), np.array(expected, dtype=np.float64 if fn_name != "band" else np.int64))


# Issue 12: helpers of another module of the package, imported by name (relative and absolute)
# and through a module alias.
UNITS = '''\
OFFSET = 273.15
TABLE = (0.5, 1.5, 2.5)


def clamp(k):
    return 0.0 if k < 0.0 else abs(k)


def to_kelvin(c):
    return clamp(c + OFFSET) * TABLE[1]
'''

CONV = '''\
from array_vectorize import vectorize
from .units import to_kelvin
from {pkg}.units import clamp as cl, OFFSET
import {pkg}.units as u


@vectorize
def relative(c):
    return to_kelvin(c) - OFFSET


@vectorize
def aliased(c, d):
    if d > c:
        return u.to_kelvin(d) + u.TABLE[0]
    return cl(c) * u.OFFSET
'''


@pytest.fixture
def package(tmp_path, monkeypatch):
    name = f"avpkg_{uuid.uuid4().hex[:10]}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "units.py").write_text(UNITS)
    (tmp_path / name / "conv.py").write_text(CONV.format(pkg=name))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, tmp_path
    for mod in (name, f"{name}.units", f"{name}.conv"):
        sys.modules.pop(mod, None)


def test_helpers_imported_from_a_sibling_module_are_the_same_three_ways(package):
    """Fails before issue 12: the hook and the backend deferred both functions."""
    from array_vectorize.hook.compile import _program_modules

    name, tmp_path = package
    conv_path = tmp_path / name / "conv.py"
    text = conv_path.read_text()
    importlib.import_module(name)  # the package is imported before its submodule loads
    package_name, modules, deps = _program_modules(text, f"{name}.conv", str(conv_path))
    assert package_name == name and sorted(modules) == [f"{name}.units"]
    assert deps == [("units.py", _core.sha256_hex((tmp_path / name / "units.py").read_bytes()))]
    hook = {e["name"]: e for e in _core.compile_module(text, str(conv_path), None, package_name, modules)}
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {
        f"{name}/__init__.py": Entry(b""),
        f"{name}/units.py": Entry(UNITS.encode()),
        f"{name}/conv.py": Entry(text.encode()),
    }
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table({}), str(tmp_path))
    assert sorted(report.precompiled) == [f"{name}.conv:aliased", f"{name}.conv:relative"]
    mod = importlib.import_module(f"{name}.conv")
    x = np.array([-400.0, -273.15, -0.0, 25.5, np.nan, np.inf, -np.inf])
    y = np.array([0.0, 1.0, -5.0, 30.0, 2.0, np.nan, 0.0])
    for fn_name in ("relative", "aliased"):
        assert_one_same_three_ways(mod, fn_name, hook, artifacts)
        vec = getattr(mod, fn_name)
        args = (x,) if fn_name == "relative" else (x, y)
        expected = [vec._vectorized_original(*lane) for lane in zip(*[a.tolist() for a in args])]
        np.testing.assert_array_equal(np.asarray(vec(*args)), np.array(expected))
    assumed = dict(hook["aliased"]["assumptions"])
    assert assumed["u.to_kelvin"][:4] == ("module_function", "to_kelvin", 9, f"{name}.units")
    assert assumed[f"{name}.units:clamp"] == ("function", "clamp", 5)
    assert assumed["u.OFFSET"] == ("const", 273.15)
    assert assumed[f"{name}.units:abs"] == ("builtin", "abs")  # a builtin the helper reads there


def test_a_changed_helper_module_invalidates_the_static_code(package):
    name, tmp_path = package
    conv_path = tmp_path / name / "conv.py"
    units_path = tmp_path / name / "units.py"
    modules = {f"{name}.units": (UNITS, str(units_path), _core.sha256_hex(UNITS.encode()))}
    static = {e["name"]: e for e in _core.compile_module(conv_path.read_text(), str(conv_path), None, name, modules)}
    mod = importlib.import_module(f"{name}.conv")
    original = mod.relative._vectorized_original
    assert assumptions_hold(original, static["relative"]["assumptions"])
    units = sys.modules[f"{name}.units"]
    units.OFFSET = 300.0  # a name the helper reads, rebound at run time
    assert not assumptions_hold(original, static["relative"]["assumptions"])
    units.OFFSET = 273.15
    assert assumptions_hold(original, static["relative"]["assumptions"])
    units_path.write_text(UNITS + "\n# edited\n")  # the helper's file: its bytes are pinned
    assert not assumptions_hold(original, static["relative"]["assumptions"])
