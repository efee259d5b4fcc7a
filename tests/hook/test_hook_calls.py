"""Calls of the second language round on the three ways in: NumPy inside scalar code (D16) and the
functions the Array API lacks (D17) compile statically (the import hook; the build backend runs
the same `compile_module`) to the text the live decorator generates, byte for byte, and the
decorator accepts the static code's assumptions (`import numpy as np` is NumPy)."""

from __future__ import annotations

from array_vectorize import _core
from hookproj import Project

CALLS_MODULE = '''\
import math

import numpy as np
from array_vectorize import vectorize

SQRT2 = math.sqrt(2.0)


@vectorize
def call_price(spot, strike, vol, t):
    d1 = (np.log(spot / strike) + 0.5 * vol * vol * t) / (vol * np.sqrt(t))
    d2 = d1 - vol * np.sqrt(t)
    nd1 = 0.5 * math.erfc(-d1 / 1.4142135623730951)
    nd2 = 0.5 * math.erfc(-d2 / 1.4142135623730951)
    return np.maximum(spot * nd1 - strike * nd2, 0.0)


@vectorize
def gamma_density(x, k):
    return np.where(x > 0.0, np.exp((k - 1.0) * np.log(x) - x - math.lgamma(k)), 0.0)


@vectorize
def banded(x):
    return np.clip(round(float(x), 2), -np.pi, np.pi) + np.floor(x)
'''

PROBE = """
import numpy as np
import calls_mod as m
x = np.array([80.0, 100.0, 120.0, 0.5])
out = {
    name: {"source": getattr(m, name).source, "value": getattr(m, name)(*args).tolist()}
    for name, args in [
        ("call_price", (x, 100.0, 0.2, 1.5)),
        ("gamma_density", (x / 40.0, 2.5)),
        ("banded", (x / 30.0,)),
    ]
}
"""


def test_numpy_and_special_calls_are_byte_identical_three_ways(project: Project):
    text = project.write("calls_mod.py", CALLS_MODULE).read_text()
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    # The hook compiled the three functions itself (nothing deferred to the decorator), and the
    # warm import read them back from its cache.
    assert cold.stats["hook_hits"] == 3 and warm.stats["disk_cache_hits"] == 3, (cold.stats, warm.stats)
    assert plain.stats["hook_hits"] == 0
    static = {e["qualname"]: e for e in _core.compile_module(text, str(project.root / "calls_mod.py"))}
    for name in ("call_price", "gamma_density", "banded"):
        assert static[name]["status"] == "ok", static[name]
        assert ("np", ("numpy",)) in [tuple(a) for a in static[name]["assumptions"]]
        assert cold.out[name]["source"] == warm.out[name]["source"] == plain.out[name]["source"]
        assert static[name]["source"] == plain.out[name]["source"]
        assert cold.out[name]["value"] == plain.out[name]["value"]
        assert "np." not in plain.out[name]["source"]

