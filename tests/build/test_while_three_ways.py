"""A `while` loop function (D12) gives byte-identical generated source on the three ways in:
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
        live = mod.eccentric_anomaly.source
    finally:
        del sys.modules[spec.name]

    (static,) = _core.compile_module(MODULE, str(path))
    assert static["status"] == "ok", static

    entries = {"orbits/__init__.py": Entry(b""), "orbits/kepler.py": Entry(MODULE.encode())}
    artifacts, report = precompile.precompile(entries, "orbits-0.1.0.dist-info", config.from_table({}), str(tmp_path))
    assert report.precompiled
    manifest = json.loads(artifacts["orbits/__vectorized__/kepler.json"].data)
    (fn,) = manifest["functions"]
    built = artifacts[f"orbits/__vectorized__/kepler/{fn['file']}"].data.decode()

    assert "while _vec_any(" in live
    assert live == static["source"] == built
