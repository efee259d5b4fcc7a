"""Truth values and several results (D4, D13) through the three ways in: the plain decorator,
the import hook (cold and warm) and the build backend's static compile give the same generated
source, and the same tuple of arrays."""

from __future__ import annotations

from hookproj import CALLS, Project

from array_vectorize import _core

FLOW = '''\
import math
from array_vectorize import vectorize


def sincosd(angle):
    rad = math.radians(angle)
    return math.sin(rad), math.cos(rad)


@vectorize
def f(x, y):
    s, c = sincosd(y)
    if x - 1.0:
        return x * c, x * s
    return 0.0, y


@vectorize
def g(x):
    if not x - 2.0:
        return x, 1
    return x * 2.0, 2
'''

PROBE = (
    CALLS
    + """
import mod
out = {
    "f": mod.f.source,
    "g": mod.g.source,
    "f(x, y)": [a.tolist() for a in mod.f(_x, _y)],
    "g(x)": [a.tolist() for a in mod.g(_x)],
    "kinds": [str(a.dtype) for a in mod.g(_x)],
}
"""
)


def test_tuple_results_are_the_same_on_every_way_in(project: Project):
    project.write("mod.py", FLOW)
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    assert warm.stats["compiled"] == 0
    assert cold.out == plain.out and warm.out == plain.out
    assert "return (" in plain.out["f"] and "!= 0" in plain.out["f"]
    assert plain.out["kinds"] == ["float64", "int64"]
    assert plain.out["g(x)"] == [[1.0, 2.0, 2.0, 8.0, 18.0], [2, 2, 1, 2, 2]]
    # The build backend's static compile of the same text gives the same source, byte for byte.
    static = {e["qualname"]: e for e in _core.compile_module(FLOW, "x.py")}
    assert static["f"]["source"] == plain.out["f"]
    assert static["g"]["source"] == plain.out["g"]
