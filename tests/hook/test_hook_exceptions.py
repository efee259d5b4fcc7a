"""The program's own exception classes and `raise ... from` (D11) through the import hook: the
static compile resolves a module-level `class RangeError(ValueError): pass` from the text, records
its MRO as an assumption, and gives the same source as the plain decorator, cold and warm; the
exception raised (class, message, cause) is CPython's."""

from __future__ import annotations

from hookproj import Project

from array_vectorize import _core

EXC_MODULE = '''\
import math
from array_vectorize import vectorize


class PsychroError(ValueError):
    """A psychrometric input outside its range."""


class SaturationError(PsychroError):
    pass


@vectorize
def vapour_pressure(t, rh):
    if rh < 0.0 or rh > 1.0:
        raise SaturationError(f"relative humidity {rh}") from None
    if t < -45.0:
        raise PsychroError("below the Magnus range", t)
    return rh * 6.112 * math.exp(17.62 * t / (243.12 + t))


@vectorize
def vapour_pressure_or_zero(t, rh):
    try:
        e = vapour_pressure(t, rh)
    except SaturationError:
        e = 0.0
    return e
'''

PROBE = """
import numpy as np
import exc_mod as m
t = np.array([20.0, 25.0, -50.0])
rh = np.array([0.5, 1.2, 0.5])
out = {}
for name in ("vapour_pressure", "vapour_pressure_or_zero"):
    fn = getattr(m, name)
    try:
        value = fn(t, rh).tolist()
    except Exception as e:
        value = [type(e).__name__, list(e.args), e.__suppress_context__, e.__notes__[-1]]
    out[name] = {"source": fn.source, "value": value}
"""


def test_program_exception_classes_are_byte_identical_three_ways(project: Project):
    text = project.write("exc_mod.py", EXC_MODULE).read_text()
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    assert cold.stats["hook_hits"] == 2 and warm.stats["disk_cache_hits"] == 2, (cold.stats, warm.stats)
    static = {e["qualname"]: e for e in _core.compile_module(text, str(project.root / "exc_mod.py"))}
    mro = (".SaturationError", ".PsychroError", "ValueError", "Exception", "BaseException")
    assert ("SaturationError", ("exception", mro)) in [tuple(a) for a in static["vapour_pressure"]["assumptions"]]
    for name in ("vapour_pressure", "vapour_pressure_or_zero"):
        assert static[name]["status"] == "ok", static[name]
        assert static[name]["source"] == plain.out[name]["source"] == cold.out[name]["source"] == warm.out[name]["source"]
        assert cold.out[name]["value"] == warm.out[name]["value"] == plain.out[name]["value"]
    # Element 1 raises first (CPython's loop stops there), with its cause suppressed.
    assert plain.out["vapour_pressure"]["value"] == [
        "SaturationError", ["relative humidity 1.2"], True, "array-vectorize: raised for element (1,) (flat index 1)"
    ]
    # Caught there, so element 2's base class is the one left to raise.
    assert plain.out["vapour_pressure_or_zero"]["value"][:2] == ["PsychroError", ["below the Magnus range", -50.0]]


def test_a_class_with_a_body_of_its_own_compiles_three_ways(project: Project):
    # D21: a class with attributes of its own is raised as written (the live class, pinned by its
    # MRO); the static compile no longer defers it to the decorator.
    text = EXC_MODULE.replace('    """A psychrometric input outside its range."""', "    limit = 1.0")
    project.write("exc_mod.py", text)
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    assert cold.stats["hook_hits"] == 2 and warm.stats["disk_cache_hits"] == 2, (cold.stats, warm.stats)
    static = {e["qualname"]: e for e in _core.compile_module(text, str(project.root / "exc_mod.py"))}
    for name in ("vapour_pressure", "vapour_pressure_or_zero"):
        assert static[name]["status"] == "ok", static[name]
        assert static[name]["source"] == plain.out[name]["source"] == cold.out[name]["source"] == warm.out[name]["source"]
        assert cold.out[name]["value"] == warm.out[name]["value"] == plain.out[name]["value"]
    assert plain.out["vapour_pressure"]["value"] == [
        "SaturationError", ["relative humidity 1.2"], True, "array-vectorize: raised for element (1,) (flat index 1)"
    ]
    assert plain.out["vapour_pressure_or_zero"]["value"][:2] == ["PsychroError", ["below the Magnus range", -50.0]]
