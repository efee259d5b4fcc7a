"""Loop functions of D12 (a `while` with an early return; `break`, `continue`, a loop's `else:`
and a per-lane `range`) give byte-identical generated source on the three ways in:
the decorator (live compile), the import hook's static compile (`compile_module`), and the build
backend's precompiled artifact."""

from __future__ import annotations

import importlib.util
import json
import sys

from array_vectorize import _core
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry

MODULE = '''\
import math

from array_vectorize import vectorize

TOL = 1e-12


@vectorize
def eccentric_anomaly(m, e):
    E = m
    n = 0
    while n < 50:
        step = (E - e * math.sin(E) - m) / (1.0 - e * math.cos(E))
        E = E - step
        if abs(step) < TOL:
            return E
        n += 1
    return E


@vectorize
def payoff_months(balance, rate, payment, months):
    paid = -1
    for m in range(months):
        if payment <= 0.0:
            continue
        balance = balance * (1.0 + rate) - payment
        if balance <= 0.0:
            paid = m
            break
    else:
        balance = max(balance, 0.0)
    return balance + paid
'''


def test_while_loop_source_is_identical_on_every_way_in(tmp_path):
    pkg = tmp_path / "orbits"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    path = pkg / "kepler.py"
    path.write_text(MODULE)

    spec = importlib.util.spec_from_file_location("orbits_kepler_live", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        live = [mod.eccentric_anomaly.source, mod.payoff_months.source]
    finally:
        del sys.modules[spec.name]

    statics = _core.compile_module(MODULE, str(path))
    assert [f["status"] for f in statics] == ["ok", "ok"], statics

    entries = {"orbits/__init__.py": Entry(b""), "orbits/kepler.py": Entry(MODULE.encode())}
    artifacts, report = precompile.precompile(entries, "orbits-0.1.0.dist-info", config.from_table({}), str(tmp_path))
    assert report.precompiled
    manifest = json.loads(artifacts["orbits/__vectorized__/kepler.json"].data)
    built = [artifacts[f"orbits/__vectorized__/kepler/{fn['file']}"].data.decode() for fn in manifest["functions"]]

    assert "_vec_while(" in live[0] and "_vec_while(" in live[1]
    assert live == [f["source"] for f in statics] == built
