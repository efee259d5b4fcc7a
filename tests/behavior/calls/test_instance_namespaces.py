"""Instances used as namespaces (issue 27 part 2 item 3, D8): a module-level object whose numeric
and table attributes a function reads (`cfg = Settings(); cfg.tolerance`) is frozen when the
function is compiled. Statically (hook, backend) only where the module's text pins the values
(an `__init__(self)` assigning constants), checked against the live object; else deferred to the
decorator with the reason. CPython running the scalar original is the oracle."""

from __future__ import annotations

import importlib
import sys
import uuid

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from array_vectorize.precompiled import assumptions_hold
from oracle import check, floats, ints


class Calibration:
    OFFSET = 0.25

    def __init__(self, gain, table):
        self.gain = gain
        self.table = table

    def scale(self, x):
        return x * self.gain

    @property
    def doubled(self):
        return self.gain * 2.0


cal = Calibration(1.5, (0.0, 0.5, 1.5))


def calibrated(x):
    return x * cal.gain + cal.OFFSET


def tabulated(k):
    return cal.table[k] * cal.gain


def test_instance_attributes_match_cpython(backend):
    check(vectorize(calibrated), floats(), backend=backend)
    check(vectorize(calibrated), ints(), backend=backend)
    check(vectorize(tabulated), np.array([0, 1, 2, -1, -3]), backend=backend)


def test_the_attributes_are_frozen_at_compile_time_docs_semantics_item_46():
    """docs/semantics.md item 46: a later change of the instance is not seen (D8)."""
    vec = vectorize(calibrated)
    assert "1.5" in vec.source and "cal." not in vec.source, vec.source
    before = np.asarray(vec(np.array([2.0])))
    cal.gain = 3.0
    try:
        np.testing.assert_array_equal(np.asarray(vec(np.array([2.0]))), before)
    finally:
        cal.gain = 1.5


def reads_a_method(x):
    return cal.scale(x)


def reads_a_property(x):
    return x + cal.doubled


@pytest.mark.parametrize("fn", [reads_a_method, reads_a_property], ids=lambda f: f.__name__)
def test_methods_and_properties_are_not_frozen(fn):
    with pytest.raises(VectorizationError, match=r":\d+:\d+: .*a method or property of `Calibration`"):
        vectorize(fn)


MODULE = '''\
from array_vectorize import vectorize


class Line:
    NOMINAL = 500.0

    def __init__(self):
        self.tolerance = 0.015
        self.band = self.NOMINAL * 0.015


class Sensor:
    def __init__(self, gain):
        self.gain = gain


line = Line()
sensor = Sensor(2.0)


@vectorize
def in_band(m):
    return abs(m - line.NOMINAL) <= line.band


@vectorize
def sensed(v):
    return v * sensor.gain
'''


@pytest.fixture
def module(tmp_path, monkeypatch):
    name = f"avinst_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, tmp_path
    sys.modules.pop(name, None)


def test_an_instance_the_text_pins_compiles_statically_and_its_assumptions_are_checked(module):
    name, tmp_path = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    assert static["in_band"]["status"] == "ok", static["in_band"]
    assumed = {a: tuple(b) for a, b in static["in_band"]["assumptions"]}
    assert assumed["line.band"] == ("const", 7.5) and assumed["line.NOMINAL"] == ("const", 500.0)
    # An instance made from arguments: only the live object says what its attributes are.
    assert static["sensed"]["status"] == "deferred" and static["sensed"]["deferred"] == ["sensor"]
    mod = importlib.import_module(name)
    original = mod.in_band._vectorized_original
    assert mod.in_band.source == static["in_band"]["source"]
    assert assumptions_hold(original, static["in_band"]["assumptions"])
    mod.line.band = 8.0  # rebound after import: the static code no longer applies
    assert not assumptions_hold(original, static["in_band"]["assumptions"])
    m = np.array([500.0, 507.5, 492.4, np.nan, np.inf])
    np.testing.assert_array_equal(np.asarray(mod.sensed(m)), [mod.sensed._vectorized_original(v) for v in m.tolist()])
