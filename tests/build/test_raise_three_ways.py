"""A function with raise/assert (D11) gives byte-identical generated source on the three ways in:
the decorator (live compile), the import hook's static compile and the build backend's artifact."""

from __future__ import annotations

import importlib
import sys
import uuid

from array_vectorize import _core
from array_vectorize.api import compile_live
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry

MODULE = '''\
import math

from array_vectorize import vectorize

T_MIN = -273.15


def require_fraction(rh):
    if rh < 0.0 or rh > 1.0:
        raise ValueError(f"relative humidity {rh} outside [0, 1]")


@vectorize
def dew_point(t, rh):
    require_fraction(rh)
    if t < T_MIN:
        raise ValueError("below absolute zero", t)
    assert rh != 0.0, f"dry air at t={t:.1f}"
    g = math.log(rh) + 17.62 * t / (243.12 + t)
    return 243.12 * g / (17.62 - g)
'''


def test_decorator_hook_and_backend_give_the_same_source(tmp_path, monkeypatch):
    name = f"avraise_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    static = [e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py")) if e["name"] == "dew_point"]
    assert static and static[0]["status"] == "ok", static
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(MODULE.encode())}
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table({}), str(tmp_path))
    (artifact,) = [e.data.decode() for k, e in artifacts.items() if k.endswith("dew_point.py")]
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        mod = importlib.import_module(name)
        options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0}
        live, _ = compile_live(mod.dew_point._vectorized_original, options)
        assert live["source"] == static[0]["source"] == artifact == mod.dew_point.source
    finally:
        sys.modules.pop(name, None)
