"""Names as CPython reads them: NFKC-equivalent identifiers are one name (PEP 3131), and a
private name in a class body is mangled. Every way in must read the same binding CPython reads:
the decorator (live), the import hook and a wheel (both the static compile, `compile_module`)."""

from __future__ import annotations

import numpy as np
from hookproj import Project

from array_vectorize import _core, vectorize
from array_vectorize.runtime.registry import helper_globals
from sourcefile import from_source

# `ﬁ` (U+FB01) is `fi` once normalized: the parameter shadows the module global.
LIGATURE = """\
from array_vectorize import vectorize

fi = 100.0


@vectorize
def levy(\ufb01, base):
    return fi + base
"""

# Inside `class Duty`, `__RATE` reads the global `_Duty__RATE`, never the global `__RATE`.
PRIVATE = """\
from array_vectorize import vectorize

__RATE = 0.1
__FLOOR = 0.0
_Duty__RATE = 0.25
_Duty__FLOOR = 2.0


class Duty:
    @vectorize
    def charge(units, value, __floor=0.0):
        return max(units * value * __RATE, __FLOOR) + __floor


class __Duty:
    @vectorize
    def charge(units, value):
        return units * value * __RATE
"""

CALLS = """
import numpy as np
import mod
v = np.array([1.0, 10.0, 100.0])
out = {
    "levy": mod.levy(v, v).tolist() if hasattr(mod, "levy") else None,
    "charge": mod.Duty.charge(2, v).tolist() if hasattr(mod, "Duty") else None,
    "charge_kw": mod.Duty.charge(2, v, _Duty__floor=1.0).tolist() if hasattr(mod, "Duty") else None,
    "dunder": mod.__Duty.charge(2, v).tolist() if hasattr(mod, "__Duty") else None,
}
"""


def _scalar(source: str, call):
    namespace: dict = {"vectorize": lambda f: f}
    exec(source.replace("from array_vectorize import vectorize\n", ""), namespace)
    return call(namespace)


def test_nfkc_identifiers_in_the_static_compile():
    (entry,) = _core.compile_module(LIGATURE, "levy.py")
    assert entry["status"] == "ok", entry
    # The parameter is read, not the global: nothing about `fi` is assumed of the module.
    assert all(name != "fi" for name, _ in entry["assumptions"]), entry["assumptions"]
    namespace = helper_globals()
    exec(entry["source"], namespace)
    got = namespace[entry["entry"]](np.array([1.0, -2.5]), np.array([10.0, 0.5]))
    expected = _scalar(LIGATURE, lambda ns: [ns["levy"](1.0, 10.0), ns["levy"](-2.5, 0.5)])
    assert got.tolist() == expected == [11.0, -2.0]


def test_nfkc_identifiers_in_the_decorator():
    levy = from_source(LIGATURE.replace("@vectorize\n", ""), name="levy")
    x, y = np.array([1.0, -2.5, 0.0]), np.array([10.0, 0.5, -0.0])
    got = vectorize(levy)(x, y)
    assert got.tolist() == [levy(a, b) for a, b in zip(x.tolist(), y.tolist())]


def test_private_names_in_the_static_compile():
    entries = {e["qualname"]: e for e in _core.compile_module(PRIVATE, "duty.py")}
    assert entries["Duty.charge"]["status"] == "ok", entries["Duty.charge"]
    names = {name for name, _ in entries["Duty.charge"]["assumptions"]}
    assert "_Duty__RATE" in names and "__RATE" not in names, names
    # The class name's leading underscores are stripped (CPython's rule).
    assert {n for n, _ in entries["__Duty.charge"]["assumptions"]} == {"_Duty__RATE"}


def test_private_names_on_every_way_in(project: Project):
    project.write("mod.py", PRIVATE + "\n\n" + LIGATURE.split("\n", 1)[1])
    plain = project.run(CALLS, hook=False)
    cold = project.run(CALLS)
    warm = project.run(CALLS)
    assert cold.stats["hook_hits"] == warm.stats["hook_hits"] == 3, cold.stats
    assert warm.stats["compiled"] == 0, warm.stats
    ns: dict = {}
    exec(PRIVATE.replace("from array_vectorize import vectorize\n", "vectorize = lambda f: f\n"), ns)
    exec(LIGATURE.replace("from array_vectorize import vectorize\n", "vectorize = lambda f: f\n"), ns)
    v = [1.0, 10.0, 100.0]
    expected = {
        "levy": [ns["levy"](a, a) for a in v],
        "charge": [ns["Duty"].charge(2, a) for a in v],
        "charge_kw": [ns["Duty"].charge(2, a, _Duty__floor=1.0) for a in v],
        "dunder": [ns["__Duty"].charge(2, a) for a in v],
    }
    assert expected["charge"] == [2.0, 5.0, 50.0]
    assert plain.out == cold.out == warm.out == expected
