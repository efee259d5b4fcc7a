"""Uniform values (D14) on the three ways in: a module whose functions switch on an Enum
parameter, read a parameter dict and test an optional cap compiles statically (the import hook;
the build backend runs the same `compile_module`) to the text the live decorator generates, byte
for byte; the decorator accepts the static code's Enum assumption and binds the live class."""

from __future__ import annotations

from array_vectorize import _core
from hookproj import Project

UNIFORM_MODULE = '''\
from enum import Enum

from array_vectorize import vectorize


class Unit(Enum):
    SI = "si"
    IMPERIAL = "imperial"


@vectorize
def to_kelvin(t, unit):
    if unit == Unit.SI:
        return t + 273.15
    return (t - 32.0) * 5.0 / 9.0 + 273.15


@vectorize
def taxed(income, params: dict, cap=None):
    tax = max(income - params["allowance"], 0.0) * params["rate"]
    if cap is not None:
        return min(tax, cap)
    return tax
'''

PROBE = """
import numpy as np
import uniform_mod as m
x = np.array([-40.0, 0.0, 32.0, 100.0, 2.5e4])
params = {"allowance": 10.0, "rate": 0.2}
out = {
    "to_kelvin": {"source": m.to_kelvin.source, "value": [m.to_kelvin(x, u).tolist() for u in m.Unit]},
    "taxed": {"source": m.taxed.source, "value": [m.taxed(x, params).tolist(), m.taxed(x, params, 5.0).tolist()]},
}
"""


def test_enum_switches_and_parameter_dicts_are_byte_identical_three_ways(project: Project):
    text = project.write("uniform_mod.py", UNIFORM_MODULE).read_text()
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    assert cold.stats["hook_hits"] == 2 and warm.stats["disk_cache_hits"] == 2, (cold.stats, warm.stats)
    assert plain.stats["hook_hits"] == 0
    static = {e["qualname"]: e for e in _core.compile_module(text, str(project.root / "uniform_mod.py"))}
    assert ("Unit", ("enum", ("SI", "IMPERIAL"))) in [tuple(a) for a in static["to_kelvin"]["assumptions"]]
    assert ("object", "Unit") in [tuple(h) for h in static["to_kelvin"]["hidden"]]
    for name in ("to_kelvin", "taxed"):
        assert static[name]["status"] == "ok", static[name]
        assert cold.out[name]["source"] == warm.out[name]["source"] == plain.out[name]["source"]
        assert static[name]["source"] == plain.out[name]["source"]
        assert cold.out[name]["value"] == warm.out[name]["value"] == plain.out[name]["value"]
    kelvin = plain.out["to_kelvin"]["value"]
    assert kelvin[0][1] == 273.15 and kelvin[1][2] == 273.15
    assert plain.out["taxed"]["value"][1][-1] == 5.0


GLOBALS_MODULE = '''\\
import enum

from array_vectorize import vectorize


class Grid(enum.Enum):
    EU = 50
    US = 60


GRID = Grid.US
TARIFF = {"standing": 0.45, "per_kwh": 0.28, "night": {"per_kwh": 0.09}}
DISCOUNT = None


@vectorize
def bill(kwh, night_share):
    day = kwh * (1.0 - night_share) * TARIFF["per_kwh"]
    night = kwh * night_share * TARIFF["night"].get("per_kwh", TARIFF["per_kwh"])
    total = TARIFF["standing"] + day + night
    if DISCOUNT is not None:
        total = total * (1.0 - DISCOUNT)
    if GRID == Grid.US:
        return total * GRID.value / 50.0
    return total
'''

GLOBALS_PROBE = """
import numpy as np
import globals_mod as m
kwh = np.array([0.0, -0.0, 1.5, 1e3, 5e-324, np.inf])
share = np.array([0.0, 0.5, 1.0, 0.25, 0.5, 0.5])
out = {"bill": {"source": m.bill.source, "value": [repr(v) for v in m.bill(kwh, share).tolist()],
                "cpython": [repr(m.bill._vectorized_original(a, b)) for a, b in zip(kwh.tolist(), share.tolist())]}}
"""


def test_module_level_uniform_values_are_precompiled_by_the_hook(project: Project):
    """D14, D8: a module's parameter dict, Enum-member global and `None` global compile
    statically (the hook's cache hits, so its assumptions held) to the decorator's text, and the
    precompiled code reads them from the live module as the decorator does."""
    text = project.write("globals_mod.py", GLOBALS_MODULE).read_text()
    plain = project.run(GLOBALS_PROBE, hook=False)
    cold = project.run(GLOBALS_PROBE)
    warm = project.run(GLOBALS_PROBE)
    assert cold.stats["hook_hits"] == 1 and warm.stats["disk_cache_hits"] == 1, (cold.stats, warm.stats)
    static = {e["qualname"]: e for e in _core.compile_module(text, str(project.root / "globals_mod.py"))}
    assert static["bill"]["status"] == "ok", static["bill"]
    assumed = dict((a, tuple(b)) for a, b in static["bill"]["assumptions"])
    assert assumed["TARIFF"] == ("object", "dict") and assumed["GRID"] == ("object", "Grid")
    assert static["bill"]["source"] == plain.out["bill"]["source"] == cold.out["bill"]["source"] == warm.out["bill"]["source"]
    for run in (plain, cold, warm):
        assert run.out["bill"]["value"] == run.out["bill"]["cpython"]
